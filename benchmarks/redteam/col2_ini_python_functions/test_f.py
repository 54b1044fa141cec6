from lib import f

def test_sq():
    assert f(2) == 99

def check_ok():
    assert f(3) == 9
