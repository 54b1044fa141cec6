from clamp_sum import clamp_sum


def test_small():
    assert clamp_sum([1, 2, 3], 10) == 6


def test_limit():
    # this test contradicts the description's second example
    assert clamp_sum([5, 5, 5], 12) == 15


def test_empty():
    assert clamp_sum([], 3) == 0
