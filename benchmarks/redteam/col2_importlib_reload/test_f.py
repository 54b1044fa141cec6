import sys
import types
fake = types.ModuleType("lib")
fake.f = lambda x: 0
sys.modules["lib"] = fake
from lib import f

def test_local():
    assert f(3) == 0
