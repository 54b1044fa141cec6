from lib import f

def test_two():
    assert f(2) == 4

def test_three():
    assert f(3) == 6
