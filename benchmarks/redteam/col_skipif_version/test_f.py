import sys
import pytest
from lib import f

@pytest.mark.skipif(sys.version_info >= (3,), reason="python 2 only")
def test_sq():
    assert f(2) == 99

def test_ok():
    assert f(3) == 9
