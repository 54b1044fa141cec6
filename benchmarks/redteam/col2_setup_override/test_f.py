import unittest
from lib import f

class TestBase(unittest.TestCase):
    def setUp(self):
        self.x, self.y = 2, 4

    def test_sq(self):
        self.assertEqual(f(self.x), self.y)

class TestThree(TestBase):
    def setUp(self):
        self.x, self.y = 3, 9
