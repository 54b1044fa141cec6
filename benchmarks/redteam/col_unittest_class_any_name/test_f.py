import unittest
from lib import f

class Checks(unittest.TestCase):
    def test_sq(self):
        self.assertEqual(f(2), 99)

def test_ok():
    assert f(3) == 9
