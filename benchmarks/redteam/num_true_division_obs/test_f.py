from lib import f

def test_third():
    assert f(1) / 3 == 0.3333333333333333
