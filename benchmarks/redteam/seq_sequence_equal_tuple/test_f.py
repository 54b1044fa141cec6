import unittest
from lib import f

class TestF(unittest.TestCase):
    def test_seq(self):
        # assertSequenceEqual compares items, not types
        self.assertSequenceEqual(f(1), [1, 2])
