from lib import f

class TestF:
    @classmethod
    def test_sq(cls):
        assert f(2) == 99

def test_ok():
    assert f(3) == 9
