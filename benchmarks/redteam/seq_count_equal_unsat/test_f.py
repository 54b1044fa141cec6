import unittest
from lib import f

class TestF(unittest.TestCase):
    def test_count(self):
        self.assertCountEqual(f(1), [1, 2, 2])
