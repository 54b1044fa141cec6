from lib import f


def test_types():
    assert f((1,)) == 2
