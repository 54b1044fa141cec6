from lib import Counter

def test_alias():
    a = Counter()
    b = a
    b.inc()
    b.inc()
    assert a.value == 2
