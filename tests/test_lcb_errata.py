"""benchmarks.lcb_errata: an original LiveCodeBench suite that contradicts its own description is
demonstrated independently of SpecGuard (so a certified conflict there is not a false positive)."""

import pytest

from benchmarks.lcb import default_data
from benchmarks.lcb_errata import _determine_winner, demonstrate


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
