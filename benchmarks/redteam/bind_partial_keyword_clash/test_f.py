import functools
import pytest
from lib import f

def test_partial():
    g = functools.partial(f, x=2)
    assert g() == 4
    with pytest.raises(TypeError):
        g(3)
