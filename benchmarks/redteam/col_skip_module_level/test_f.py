import pytest
from lib import f

pytest.skip("not ready", allow_module_level=True)

def test_sq():
    assert f(2) == 99
