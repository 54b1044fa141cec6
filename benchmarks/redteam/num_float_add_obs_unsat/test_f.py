from lib import f

def test_add():
    assert f(1) + 0.2 == 0.3
