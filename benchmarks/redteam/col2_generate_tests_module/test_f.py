import pytest
from lib import f

def pytest_generate_tests(metafunc):
    if "n" in metafunc.fixturenames:
        metafunc.parametrize("n", [3])

@pytest.fixture
def n():
    return 2

def test_sq(n):
    assert f(n) == 9
