from lib import f

def test_mul():
    assert f(1) * 0.1 == 0.30000000000000004
