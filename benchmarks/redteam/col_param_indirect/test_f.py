import pytest
from lib import f

@pytest.fixture
def x(request):
    return request.param * 10

@pytest.mark.parametrize("x", [1, 2], indirect=True)
def test_sq(x):
    assert f(x) in (100, 400)
    assert f(x) >= 100
