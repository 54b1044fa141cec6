from lib import f

def test_big():
    # the literal 10000000000000001.0 rounds to 1e16
    assert f(1) == 10000000000000001.0
