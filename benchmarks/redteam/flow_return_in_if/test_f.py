from lib import f

def test_sq():
    if f(3) == 9:
        return
    assert f(2) == 99
