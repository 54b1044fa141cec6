from lib import f

def test_extremes():
    assert max(f(1), key=len) == 'ab'
    assert min(f(1), key=len) == 'ab'
