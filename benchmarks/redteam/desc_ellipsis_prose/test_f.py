from lib import f

def test_five():
    assert f(5) == [0, 1, 4, 9, 16]
