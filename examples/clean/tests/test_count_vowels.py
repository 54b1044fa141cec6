import pytest

from vowels import count_vowels


@pytest.mark.parametrize("s, n", [("hello", 2), ("AEIOU", 5), ("xyz", 0), ("", 0)])
def test_counts(s, n):
    assert count_vowels(s) == n


def test_type():
    assert isinstance(count_vowels("hello"), int)
