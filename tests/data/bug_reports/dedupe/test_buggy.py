from lists import dedupe


def test_dedupe():
    assert dedupe([3, 1, 3, 2]) == [1, 2, 3]
    assert dedupe([]) == []
    assert dedupe([1, 1]) == [1]
