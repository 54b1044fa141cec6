from lib import f

def test_kept():
    r = f(1)
    f(2)
    assert r == ([1, 2],)
