def f(x):
    return 0

def test_local():
    assert f(3) == 9

from lib import f
