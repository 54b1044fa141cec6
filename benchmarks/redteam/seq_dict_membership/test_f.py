from lib import f

def test_in():
    assert 2 in f(1)
    assert 'a' not in f(1)
    assert list(f(1).values()) == ['a']
