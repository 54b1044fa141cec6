import pytest
from lib import f

def test_rel():
    # rel is relative to the expected value (2.0), not to the actual one
    assert f(1) == pytest.approx(2.0, rel=0.2)
