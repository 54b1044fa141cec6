from lib import f
del f

def f(x):
    return 0

def test_local():
    assert f(3) == 0
