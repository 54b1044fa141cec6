from lib import f

def test_local():
    assert f(3) == 0
