import pytest
from lib import f

@pytest.fixture
def x(request):
    return request.param * 10

@pytest.mark.parametrize("x, y", [(1, 100), (2, 400)], indirect=["x"])
def test_sq(x, y):
    assert f(x) == y
