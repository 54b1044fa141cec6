import unittest
from lib import Counter

class TestC(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        cls.c = Counter()

    def test_a(self):
        self.c.inc()
        self.assertEqual(self.c.value, 1)

    def test_b(self):
        self.c.inc()
        self.assertEqual(self.c.value, 2)
