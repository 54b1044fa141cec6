import copy
from lib import Counter

def test_copy():
    a = Counter()
    a.inc()
    b = copy.copy(a)
    a.inc()
    assert b.value == 1
    assert a.value == 2
