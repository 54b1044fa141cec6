import unittest
from lib import f

class TestF(unittest.TestCase):
    def test_places(self):
        self.assertAlmostEqual(f(1), 1.0, places=1)
