import math
from lib import f

def test_sign():
    assert math.copysign(1.0, f(1)) == -1.0
