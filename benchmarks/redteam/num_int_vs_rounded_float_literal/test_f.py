from lib import f

def test_big():
    assert f(1) == 9007199254740993.0
