from lib import f

def test_digit():
    assert f(1).isdigit()
    assert not f(1).isdecimal()
