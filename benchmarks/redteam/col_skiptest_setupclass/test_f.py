import unittest
from lib import f

class TestF(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        raise unittest.SkipTest("not ready")

    def test_sq(self):
        self.assertEqual(f(2), 99)
