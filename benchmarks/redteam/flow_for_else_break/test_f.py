from lib import f

def test_sq():
    for x in [1]:
        break
    else:
        assert f(2) == 99
    assert f(x) == 1
