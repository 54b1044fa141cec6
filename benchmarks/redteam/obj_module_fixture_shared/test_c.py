import pytest
from lib import Counter

@pytest.fixture(scope="module")
def c():
    return Counter()

def test_a(c):
    c.inc()
    assert c.value == 1

def test_b(c):
    c.inc()
    assert c.value == 2
