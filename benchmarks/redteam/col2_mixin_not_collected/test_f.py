import unittest
from lib import f

class SqMixin:
    x, y = 2, 99

    def test_sq(self):
        self.assertEqual(f(self.x), self.y)

class TestThree(SqMixin, unittest.TestCase):
    x, y = 3, 9
