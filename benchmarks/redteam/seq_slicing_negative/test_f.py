from lib import f

def test_slices():
    assert f(1)[4:1:-2] == 'ec'
    assert f(1)[::-2] == 'fdb'
    assert f(1)[-100:2] == 'ab'
    assert f(1)[1:-1:2] == 'bd'
    assert f(1)[5:-7:-1] == 'fedcba'
