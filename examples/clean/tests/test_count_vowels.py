import pytest

from vowels import count_vowels


@pytest.mark.parametrize("s, n", [("hello", 2), ("AEIOU", 5), ("xyz", 0), ("", 0)])
def test_counts(s, n):
    assert count_vowels(s) == n


def test_some_vowels():
    # (an `isinstance(..., int)` check here would be left open: the kernel's value model is
    # Python's ==-classes, in which 2 and 2.0 are one class, so a type demand is never entailed)
    assert count_vowels("hello") > 0
