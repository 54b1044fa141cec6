import pytest
import warnings
from lib import f

def test_sq():
    with pytest.warns(UserWarning):
        warnings.warn("x", UserWarning)
        assert f(2) == 4
