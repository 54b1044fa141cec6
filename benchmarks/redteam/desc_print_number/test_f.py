from lib import f

def test_text():
    assert f(7) == "7"
