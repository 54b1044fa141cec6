from lib import f

def test_ok():
    assert f(3) == 9

def test_chain():
    assert f(2) != 5 == 6
