from lib import f

def test_cmp():
    assert f(1) < [1, 3]
    assert f(1) > [1, 2]
    assert not f(1) < [1, 2, 5]
