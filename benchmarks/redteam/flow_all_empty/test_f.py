from lib import f

def test_sq():
    assert all(f(x) == 99 for x in [])
    assert not any(f(x) == 99 for x in [1, 2, 3])
