from lib import f

def test_sq():
    try:
        assert f(2) == 99
    finally:
        return
