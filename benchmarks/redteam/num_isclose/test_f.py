import math
from lib import f

def test_close():
    assert math.isclose(f(1), 0.3)
