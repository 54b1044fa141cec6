from lib import f

def test_strip():
    assert f(1).strip('xy') == 'abc'
    assert f(1).lstrip('x') == 'abcxy'
    assert f(1).rstrip('yx') == 'xxabc'
