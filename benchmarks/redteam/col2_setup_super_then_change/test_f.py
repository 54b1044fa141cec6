import unittest
from lib import f

class TestBase(unittest.TestCase):
    def setUp(self):
        self.x = 2

    def test_sq(self):
        self.assertEqual(f(self.x), 9)

class TestThree(TestBase):
    def setUp(self):
        super().setUp()
        self.x = 3

del TestBase
