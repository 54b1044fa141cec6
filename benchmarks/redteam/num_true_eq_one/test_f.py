from lib import f

def test_one():
    assert f(1) == 1
    assert f(1) == 1.0
