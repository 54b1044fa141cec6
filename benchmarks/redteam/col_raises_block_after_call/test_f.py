import pytest
from lib import f

def test_sq():
    with pytest.raises(TypeError):
        f(None)
        assert f(2) == 99
