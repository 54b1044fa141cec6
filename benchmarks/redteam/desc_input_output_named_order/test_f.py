from lib import f

def test_order():
    assert f(1, 3) == -2
    assert f(3, 1) == 2
