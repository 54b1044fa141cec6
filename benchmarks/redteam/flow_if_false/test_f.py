from lib import f

def test_sq():
    if False:
        assert f(2) == 99
    assert f(3) == 9
