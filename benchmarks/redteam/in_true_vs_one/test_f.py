from lib import f


def test_types():
    assert f(True) == 99
    assert f(1.0) == 98
