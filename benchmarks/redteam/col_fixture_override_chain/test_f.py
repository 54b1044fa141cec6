import pytest
from lib import f

@pytest.fixture
def n(n):
    return n * 10

def test_sq(n):
    assert f(n) == 400
