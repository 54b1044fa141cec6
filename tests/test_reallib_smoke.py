"""#12 / #14: a smoke subset of the reallib benchmark (benchmarks/reallib.py) on five real tasks
shipped verbatim in tests/data/reallib_smoke/ (boltons strutils and inflection: real docstrings,
real test files, only_tests selecting the function's tests) and their planted variants, checked
by the real Lean kernel.  Asserts what the current readers measure: no certified conflict on a
clean task, the planted variants certified where the current reader reads the planted line (and
the conflict is on that line), coverage present in every row.  No network."""

import json
from pathlib import Path

import pytest

from benchmarks import reallib

pytestmark = pytest.mark.lean

DATA = Path(__file__).parent / "data" / "reallib_smoke" / "tasks.json"

# measured 2026-12-01 (assertions read, assertions total, examples read): lower bounds on what is read
MEASURED_CLEAN = {
    "boltons/strutils.ellipsize": (9, 11, 4),
    "boltons/strutils.bytes2human": (13, 13, 5),
    "boltons/strutils.gzip_bytes": (0, 2, 0),
    "inflection/inflection.humanize": (1, 1, 2),
    "inflection/inflection.ordinal": (0, 1, 6),
}
CERTIFIED_VARIANTS = {
    "boltons/strutils.ellipsize/oneoff", "boltons/strutils.ellipsize/conflicting",
    "inflection/inflection.humanize/oneoff", "inflection/inflection.humanize/conflicting",
}


def test_smoke_subset(core):
    doc = reallib.load(DATA)
    rows = {r["id"]: r for r in doc["tasks"]}
    assert set(MEASURED_CLEAN) == {i for i, r in rows.items() if r["kind"] == "clean"}
    assert CERTIFIED_VARIANTS <= set(rows)
    out = {i: reallib.check_row(r, doc["files"]) for i, r in rows.items()}
    s = reallib.summarize(list(out.values()))
    assert all(r["verdict"] not in ("error", "timeout") for r in out.values())
    assert s["overall"]["false_conflicts"] == []
    for tid, (read, total, ex_read) in MEASURED_CLEAN.items():
        r = out[tid]
        assert not r["certified_conflict"], tid
        assert r["total"] >= 1 and r["read"] >= read, (tid, r["read"], r["total"])
        assert r["examples_seen"] >= 1 and r["examples_read"] >= ex_read, tid
    for tid in CERTIFIED_VARIANTS:
        assert out[tid]["certified_conflict"] and out[tid]["on_planted_line"], (tid, out[tid]["reason"])
    # the variants change exactly the value their edit names
    v = rows["boltons/strutils.ellipsize/oneoff"]["tests"][0]
    assert v["edit"]["old"] != v["edit"]["new"]
    assert reallib.reallib_build.apply_edit(doc["files"][v["file"]], v["edit"]) != doc["files"][v["file"]]
    assert s["overall"]["assertions_total"] > 0 and s["overall"]["examples_seen"] > 0
    assert s["overall"]["planted"]["oneoff"]["total"] >= 2


def test_cli_prints_the_table(core, capsys, tmp_path):
    out = tmp_path / "r.json"
    assert reallib.main(["--data", str(DATA), "--task", "boltons/strutils.bytes2human", "--no-variants",
                         "--workers", "1", "--json", str(out)]) == 0
    text = capsys.readouterr().out
    assert "boltons" in text and "13/13 (100.0 %)" in text
    assert "certified false conflicts (must be 0): 0" in text
    doc = json.loads(out.read_text())
    assert doc["summary"]["overall"]["tasks"] == 1 and doc["rows"][0]["total"] == 13
