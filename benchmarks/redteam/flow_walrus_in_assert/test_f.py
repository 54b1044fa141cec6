from lib import f

def test_sq():
    assert (y := f(2)) == 4
    assert f(y) == 16 or y == 4
