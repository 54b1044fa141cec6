from lib import f

class TestF:
    def __init__(self):
        self.n = 2

    def test_sq(self):
        assert f(2) == 99

def test_ok():
    assert f(3) == 9
