from lib import f

def test_bool():
    assert f(1) + 1 == 2
    assert f(1) * 3 == 3
    assert f(1) == 1 == 1.0
