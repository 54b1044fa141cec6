from lib import Counter

class TestC:
    c = Counter()

    def test_a(self):
        self.c.inc()
        assert self.c.value == 1

    def test_b(self):
        self.c.inc()
        assert self.c.value == 2
