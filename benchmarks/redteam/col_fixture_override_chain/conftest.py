import pytest

@pytest.fixture
def n():
    return 2
