from lib import f

def test_sum():
    assert f(3) == 6
    assert f(2) == 3
