from lib import Counter

def test_fresh():
    a = Counter()
    a.inc()
    assert a.value == 2
