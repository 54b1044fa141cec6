from lib import f


def test_types():
    assert f(-0.0) == 2
