from lib import f

def test_local(f=lambda x: 0):
    assert f(3) == 0
