from lib import f

def test_held():
    r = f(3)
    s = f(4)
    assert s == 16
    assert r == 10
