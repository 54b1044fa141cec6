import pytest
from lib import f

def test_sq():
    with pytest.raises(AssertionError):
        assert f(2) == 99
