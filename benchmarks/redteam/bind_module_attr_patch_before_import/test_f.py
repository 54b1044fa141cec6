import lib
lib.f = lambda x: 0
from lib import f

def test_local():
    assert f(3) == 0
