from lib import f

def test_floor():
    assert f(1) % 3 == 2
    assert f(1) // 2 == -1
    assert divmod(f(1), 3) == (-1, 2)
