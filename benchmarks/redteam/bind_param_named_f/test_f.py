import pytest
from lib import f

@pytest.mark.parametrize("f", [lambda x: 0])
def test_local(f):
    assert f(3) == 0
