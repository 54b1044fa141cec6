import unittest
from lib import f

class TestF(unittest.TestCase):
    def test_truthy(self):
        # the second argument of assertTrue is the message
        self.assertTrue(f(2), 5)
        self.assertFalse(f(0), 4)
