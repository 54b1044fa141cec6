from lib import f

def test_ok():
    assert f(3) == 9
