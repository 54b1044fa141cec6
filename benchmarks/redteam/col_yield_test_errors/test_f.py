from lib import f

def test_ok():
    assert f(3) == 9

def test_gen():
    yield
    assert f(2) == 4
