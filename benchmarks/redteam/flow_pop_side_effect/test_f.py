from lib import f

def test_sq():
    xs = [1, 2]
    assert f(xs.pop()) == 4
    assert f(xs.pop()) == 1
