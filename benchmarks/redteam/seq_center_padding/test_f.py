from lib import f

def test_center():
    assert f(1).center(5) == '  ab '
    assert f(1).center(4, '*') == '*ab*'
    assert 'a'.center(4) == ' a  '
