from lib import f

def test_is():
    assert f(1) is True
