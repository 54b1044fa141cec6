from lib import f

def test_sq():
    if f(1) == 99:
        assert f(2) == 99
    assert f(3) == 9
