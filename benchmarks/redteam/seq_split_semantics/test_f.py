from lib import f

def test_split():
    assert f(1).split(' ') == ['a', '', 'b']
    assert f(1).split() == ['a', 'b']
    assert f(1).split(' ', 1) == ['a', ' b']
    assert f(1).rsplit(' ', 1) == ['a ', 'b']
