"""benchmarks.lcb_errata: an original LiveCodeBench suite that contradicts its own description is
demonstrated independently of SpecGuard (so a certified conflict there is not a false positive)."""

import pytest

from benchmarks.lcb import default_data
from benchmarks.lcb_errata import _determine_winner, _max_subsequence_value, demonstrate


def test_game_search_follows_the_description():
    # one index: the first move completes S; two indices with single moves: the second player completes it
    assert _determine_winner(1, [5]) == "Fennec"
    assert _determine_winner(2, [1, 1]) == "Snuke"
    # three single moves: the first player makes the last one
    assert _determine_winner(3, [1, 1, 1]) == "Fennec"
    # a spare move on index 1 does not save the first player of two indices: the second completes S
    assert _determine_winner(2, [2, 1]) == "Snuke"


@pytest.mark.skipif(not (default_data() / "oneoff.json").is_file(), reason="needs ../shared/data/livecodebench")
def test_lcbhard_94_original_test_13_contradicts_the_description():
    lines = demonstrate(default_data())
    assert lines[0].startswith("lcbhard_94:") and ", 1 contradict," in lines[0]
    assert "original_tests[12]" in lines[1] and "'Fennec'" in lines[1]


def test_subsequence_value_follows_the_description():
    # one pair: the value is the XOR of its two elements; the description's own examples
    assert _max_subsequence_value([74, 51], 1) == 74 ^ 51 == 121
    assert _max_subsequence_value([2, 6, 7], 1) == 5
    assert _max_subsequence_value([4, 2, 5, 6, 7], 2) == 2


@pytest.mark.skipif(not (default_data() / "oneoff.json").is_file(), reason="needs ../shared/data/livecodebench")
def test_lcbhard_57_original_test_4_contradicts_the_description():
    """Found by the judge measured with a real model (its flag on lcbhard_57's original): 74 XOR 51 is
    121, the original suite expects 125."""
    lines = demonstrate(default_data())
    i = next(k for k, line in enumerate(lines) if line.startswith("lcbhard_57:"))
    assert ", 1 contradict," in lines[i] and "original_tests[3]" in lines[i + 1] and "gives 121" in lines[i + 1]
