import unittest
from lib import f

class TestF(unittest.TestCase):
    def test_is(self):
        self.assertIs(f(1), True)
