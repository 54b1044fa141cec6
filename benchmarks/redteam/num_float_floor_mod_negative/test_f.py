from lib import f

def test_floor():
    assert f(1) % 1 == 0.5
    assert f(1) // 1 == -2
    assert int(f(1)) == -1
