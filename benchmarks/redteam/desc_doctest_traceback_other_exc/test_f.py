import pytest
from lib import f

def test_neg():
    with pytest.raises(ValueError):
        f(-1)

def test_two():
    assert f(2) == 4
