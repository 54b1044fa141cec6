from lib import f


def test_types():
    assert f([True, False]) == 2
