from util import clamp


def test_clamp():
    assert clamp(5, 0, 3) == 3
    assert clamp(1, 0, 3) == 1
    assert clamp(-2, 0, 3) == 0
