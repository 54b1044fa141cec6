from lib import f

def make():
    def test_sq():
        assert f(2) == 99
    return test_sq

def test_ok():
    assert f(3) == 9
