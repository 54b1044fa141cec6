from lib import Counter

C = Counter()

def test_a():
    C.inc()
    assert C.value == 1

def test_b():
    C.inc()
    assert C.value == 2
