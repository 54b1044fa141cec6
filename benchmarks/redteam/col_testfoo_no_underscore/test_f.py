from lib import f

def testsquare():
    assert f(2) == 99

def test_ok():
    assert f(3) == 9
