import pytest
from lib import f

def test_tiny():
    # pytest.approx's default absolute tolerance is 1e-12, so 0.0 is accepted
    assert f(1) == pytest.approx(1e-13)
