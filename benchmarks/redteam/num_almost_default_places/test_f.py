import unittest
from lib import f

class TestF(unittest.TestCase):
    def test_default(self):
        self.assertAlmostEqual(f(1), 0.3)
