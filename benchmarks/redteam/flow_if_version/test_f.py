import sys
from lib import f

def test_sq():
    if sys.version_info < (3,):
        assert f(2) == 99
    assert f(3) == 9
