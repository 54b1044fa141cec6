from lib import f

def test_sq():
    for x in (1, 2):
        pass
    assert f(x) == 4
