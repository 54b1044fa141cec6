from lib import f

def test_order():
    assert list(f(1)) == ['b', 'a']
