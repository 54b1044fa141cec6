from lib import f

def test_text():
    assert f(2) == "[1, 2]"
