import pytest
from lib import f

@pytest.mark.parametrize("x, y", [(1, 1), pytest.param(2, 99, marks=pytest.mark.xfail), (3, 9)])
def test_sq(x, y):
    assert f(x) == y
