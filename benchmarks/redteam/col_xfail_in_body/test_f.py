import pytest
from lib import f

def test_sq():
    pytest.xfail("known")
    assert f(2) == 99

def test_ok():
    assert f(3) == 9
