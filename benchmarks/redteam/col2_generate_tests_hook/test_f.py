import pytest
from lib import f

@pytest.fixture
def n():
    return 2

def test_sq(n):
    assert f(n) == 9
