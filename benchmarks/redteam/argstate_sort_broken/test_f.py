from lib import f

def test_sorts():
    xs = [3, 1, 2]
    assert f(xs) is None
    assert xs == [1, 3, 2]
