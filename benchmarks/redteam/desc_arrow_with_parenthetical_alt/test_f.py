from lib import f

def test_base():
    assert f(3) == 6
    assert f(3, base=3) == 9
