import unittest
from lib import f

class TestF(unittest.TestCase):
    def test_count(self):
        self.assertCountEqual(f(1), [1, 2, 2])
        self.assertIn(1, f(1))
        self.assertIn(f(1)[0], [2, 7])
