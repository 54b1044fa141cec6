from lib import f

try:
    import specguard_no_such_module_xyz
except ImportError as f:
    pass

def test_sq():
    assert f(3) == 9
