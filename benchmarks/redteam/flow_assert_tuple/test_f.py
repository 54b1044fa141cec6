from lib import f

def test_sq():
    assert (f(2) == 99, "f(2) should be 99")
    assert f(3) == 9
