import unittest
from lib import f

class TestF(unittest.TestCase):
    def test_sq(self):
        self.skipTest("not ready")
        self.assertEqual(f(2), 99)

    def test_ok(self):
        self.assertEqual(f(3), 9)
