from lib import f

def test_sq():
    for x in []:
        assert f(x) == 99
    for x in range(0):
        assert f(2) == 99
    assert f(3) == 9
