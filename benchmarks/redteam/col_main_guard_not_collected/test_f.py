from lib import f

if __name__ == "__main__":
    def test_sq():
        assert f(2) == 99

def test_ok():
    assert f(3) == 9
