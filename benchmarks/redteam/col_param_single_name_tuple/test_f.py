import pytest
from lib import f

@pytest.mark.parametrize("args", [(2,), (3,)])
def test_sq(args):
    assert f(*args) in (4, 9)
    assert f(args[0]) == args[0] ** 2
