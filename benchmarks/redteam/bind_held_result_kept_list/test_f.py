from lib import f

def test_kept():
    r = f(1)
    s = f(2)
    assert r == [1, 2]
    assert r is s
