import unittest
from lib import f

class TestBase(unittest.TestCase):
    x, y = 2, 4

    def test_sq(self):
        self.assertEqual(f(self.x), self.y)

class TestThree(TestBase):
    x, y = 3, 9
