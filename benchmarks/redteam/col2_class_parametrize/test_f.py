import pytest
from lib import f

@pytest.mark.parametrize("x, y", [(2, 4), (3, 9)])
class TestF:
    def test_sq(self, x, y):
        assert f(x) == y

    def test_pos(self, x, y):
        assert f(x) > 0
