import pytest
from lib import f

@pytest.fixture(params=[(2, 4), (3, 9)], ids=["two", "three"])
def case(request):
    return request.param

def test_sq(case):
    x, y = case
    assert f(x) == y
