import unittest
from lib import f

class TestF(unittest.TestCase):
    def test_sq(self):
        for x, y in [(1, 1), (2, 99), (3, 9)]:
            with self.subTest(x=x):
                self.assertEqual(f(x), y)
