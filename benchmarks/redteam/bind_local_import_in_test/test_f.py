f = lambda x: 0

def test_local():
    assert f(3) == 0

def test_real():
    from lib import f
    assert f(3) == 9
