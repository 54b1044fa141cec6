from lib import f

def test_round():
    # 2.675 is stored as 2.67499999999999982236431605997495353221893310546875
    assert round(f(1), 2) == 2.67
