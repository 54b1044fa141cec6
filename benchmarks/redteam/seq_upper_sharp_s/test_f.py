from lib import f

def test_upper():
    assert f(1).upper() == 'SS'
    assert len(f(1).upper()) == 2
