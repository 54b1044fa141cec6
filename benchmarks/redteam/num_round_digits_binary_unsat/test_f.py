from lib import f

def test_round():
    assert round(f(1), 2) == 2.68
