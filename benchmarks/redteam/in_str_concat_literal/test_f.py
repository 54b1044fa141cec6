from lib import f


def test_types():
    assert f('a' 'b') == 1
    assert f('a' + 'b') == 1
