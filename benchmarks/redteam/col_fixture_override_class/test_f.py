import pytest
from lib import f

@pytest.fixture
def n():
    return 2

class TestF:
    @pytest.fixture
    def n(self):
        return 3

    def test_sq(self, n):
        assert f(n) == 9

def test_outer(n):
    assert f(n) == 4
