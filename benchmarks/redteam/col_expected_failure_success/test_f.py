import unittest
from lib import f

class TestF(unittest.TestCase):
    def test_ok(self):
        self.assertEqual(f(3), 9)

    @unittest.expectedFailure
    def test_sq(self):
        self.assertEqual(f(2), 4)
