from lib import f


def test_types():
    assert f(frozenset({1})) == 2
