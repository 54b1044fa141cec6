from lib import f

def test_sq():
    try:
        raise ValueError
    except ValueError as f:
        pass
    assert f(3) == 9
