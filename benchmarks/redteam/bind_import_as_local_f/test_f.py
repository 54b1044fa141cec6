from lib import f as g

def f(x):
    return 0

def test_local():
    assert f(3) == 0

def test_real():
    assert g(3) == 9
