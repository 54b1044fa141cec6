from lib import f


def test_types():
    assert f(2.0**53) == 2
    assert f(9007199254740992.0) == 2
