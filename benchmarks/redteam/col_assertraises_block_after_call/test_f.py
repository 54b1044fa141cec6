import unittest
from lib import f

class TestF(unittest.TestCase):
    def test_sq(self):
        with self.assertRaises(TypeError):
            f(None)
            self.assertEqual(f(2), 99)
