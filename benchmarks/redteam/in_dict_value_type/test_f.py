from lib import f


def test_types():
    assert f({'a': 1.0}) == 2
    assert f({'a': True}) == 3
