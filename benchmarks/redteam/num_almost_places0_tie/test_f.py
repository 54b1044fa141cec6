import unittest
from lib import f

class TestF(unittest.TestCase):
    def test_tie_up(self):
        # round(0.5, 0) == 0.0 (banker's rounding), so a difference of exactly 0.5 passes
        self.assertAlmostEqual(f(1), 1.0, places=0)

    def test_tie_down(self):
        self.assertAlmostEqual(f(2), 1.0, places=0)
