import pytest
from lib import f

@pytest.fixture
def f():
    return lambda x: 0

def test_local(f):
    assert f(3) == 0
