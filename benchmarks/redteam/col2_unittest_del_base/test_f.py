import unittest
from lib import f

class Base(unittest.TestCase):
    x, y = 2, 99

    def test_sq(self):
        self.assertEqual(f(self.x), self.y)

class TestThree(Base):
    x, y = 3, 9

del Base
