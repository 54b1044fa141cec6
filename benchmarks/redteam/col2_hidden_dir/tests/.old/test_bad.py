from lib import f

def test_sq():
    assert f(2) == 99
