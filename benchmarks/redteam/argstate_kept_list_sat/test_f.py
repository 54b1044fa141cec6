from lib import f

def test_first():
    a = []
    r = f(a)
    assert a == []

def test_later():
    a = []
    r = f(a)
    s = f([])
    assert a == [0]
