import pytest
from lib import f

@pytest.fixture(scope="module")
def xs():
    return [2]

def test_a(xs):
    xs.append(3)
    assert f(xs[-1]) == 9

def test_b(xs):
    assert f(xs[-1]) == 9
