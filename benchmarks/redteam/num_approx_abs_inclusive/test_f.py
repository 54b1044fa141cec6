import pytest
from lib import f

def test_abs():
    assert f(1) == pytest.approx(1.0, abs=0.5)
