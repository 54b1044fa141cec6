from lib import f

def test_repeat():
    assert f(1) * -1 == ''
    assert f(1) * 2 == 'abab'
    assert f(1)[-1] * 0 == ''
