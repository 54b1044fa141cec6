from lib import f

def test_rebound():
    r = f(3)
    def g():
        nonlocal r
        r = 7
    g()
    assert r == 7
