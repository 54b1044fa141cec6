from lib import f

def test_div():
    assert f(6) == [6, 3, 2]
