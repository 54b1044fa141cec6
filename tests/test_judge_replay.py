"""Issue 15, item 4: the judge measured with a real model (benchmarks/recordings/lcb-oneoff-judge.jsonl,
answered through a local endpoint by a model instance that saw only judge prompts), replayed without
the network by `benchmarks.judge`."""

import json
from pathlib import Path

import pytest

pytest.importorskip("litellm")

ROOT = Path(__file__).resolve().parent.parent
REC = ROOT / "benchmarks" / "recordings" / "lcb-oneoff-judge.jsonl"


@pytest.fixture(autouse=True)
def no_network(monkeypatch):
    import litellm
    monkeypatch.setattr(litellm, "completion", lambda *a, **k: pytest.fail("a replay reached the network"))


def test_judge_replay_scores_against_ground_truth(capsys):
    """#15.4: a corrupted suite judged `conflict` counts as right only when the cited test is the
    changed one; a conflict on an original is a false flag unless benchmarks/lcb_errata.py
    demonstrates an erratum (lcbhard_94, lcbhard_57); lcbhard_17's corrupted suite was judged no-conflict;
    lcbhard_71's original was flagged by a wrong hand count (a false flag)."""
    from benchmarks import judge, lcb
    if not (lcb.default_data() / "oneoff.json").is_file():
        pytest.skip("shared/data/livecodebench is not present")
    assert judge.main(["--replay", str(REC), "--ids", "lcbhard_19", "lcbhard_94", "lcbhard_17", "lcbhard_57",
                       "lcbhard_71", "--json"]) == 0
    s = json.loads(capsys.readouterr().out)["summary"]
    # lcbhard_94's corrupted suite is judged a conflict citing another test (its erratum), not a hit
    assert s["corrupted"]["judged"] == 5 and s["corrupted"]["right"] == 3 and s["corrupted"]["no-conflict"] == 1
    assert s["corrupted"]["conflict_other_test"] == 1
    assert sorted(s["original"]["errata_flagged"]) == ["lcbhard_57", "lcbhard_94"]
    assert s["original"]["false_flags"] == ["lcbhard_71"]


def test_a_cited_test_with_another_value_is_not_right():
    """#15.4: naming the changed test's arguments with a different expected value is not a hit."""
    from benchmarks.judge import _names_test
    case = {"args": [4, 3, 924844033], "expected": 50831, "original_expected": 50820}
    assert _names_test("count_special_permutations(4, 3, 924844033) == 50831", case)
    assert not _names_test("count_special_permutations(4, 3, 924844033) == 50820", case)
    assert not _names_test("count_special_permutations(4, 3, 9) == 50831", case)
    assert not _names_test(None, case)


def test_replay_does_not_depend_on_where_the_task_files_lie(tmp_path, capsys):
    """#15.5: the recording was made with the data at another path; the judge's question names a
    JSON table by its file name, so a copy of the data elsewhere replays the same answers (before,
    a clean clone beside another shared/ folder missed every judge question)."""
    import shutil
    from benchmarks import judge, lcb
    from specguard import load
    from specguard.model.judge import _tests_text
    src = lcb.default_data() / "oneoff.json"
    if not src.is_file():
        pytest.skip("shared/data/livecodebench is not present")
    (tmp_path / "elsewhere").mkdir()
    shutil.copy(src, tmp_path / "elsewhere" / "oneoff.json")
    text = _tests_text(load.load_lcb(str(tmp_path / "elsewhere" / "oneoff.json"), "lcbhard_19", "corrupted"))
    assert "<<<TESTS oneoff.json\n" in text and str(tmp_path) not in text
    assert judge.main(["--replay", str(REC), "--data", str(tmp_path / "elsewhere"), "--ids", "lcbhard_19",
                       "--json"]) == 0
    s = json.loads(capsys.readouterr().out)["summary"]
    assert s["corrupted"]["right"] == 1 and s["original"]["no-conflict"] == 1
