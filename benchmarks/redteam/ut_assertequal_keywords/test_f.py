import unittest
from lib import f

class TestF(unittest.TestCase):
    def test_kw(self):
        self.assertEqual(second=4, first=f(2))
        self.assertEqual(f(3), 9, msg=f(2) == 99)
