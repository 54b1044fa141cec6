"""Issue 14 item 2: a left-open test is "over-specified" only when a statement about that very
call allows an implementation that fails it; otherwise its finding is "not-covered" (what was
formalized says nothing specific about the call: a gap in SpecGuard's reading, not the task's).
Real CLI, real Lean kernel."""

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
pytestmark = pytest.mark.lean


def run_check(tmp_path: Path, *args: str) -> dict:
    env = dict(os.environ, PYTHONPATH=str(ROOT))
    p = subprocess.run([sys.executable, "-m", "specguard", "check", *args, "--out", str(tmp_path / "out"), "--json"],
                       capture_output=True, text=True, cwd=tmp_path, env=env, timeout=600)
    assert p.returncode in (0, 1, 2), p.stdout + p.stderr
    return json.loads(p.stdout)


def test_return_type_alone_does_not_make_a_test_over_specified(tmp_path, core):
    """#14.2: the prose determines f(1) but only `-> int` was formalized: the witness (another
    int) is an artifact of the reading, so the finding is not-covered, never over-specified."""
    (tmp_path / "desc.py").write_text('def f(n: int) -> int:\n    """Return the n-th odd number, 2n + 1."""\n')
    (tmp_path / "test_f.py").write_text("from m import f\n\ndef test_one():\n    assert f(1) == 3\n")
    r = run_check(tmp_path, "--description", "desc.py", "--tests", "test_f.py")
    [t] = r["tests"]
    assert t["status"] == "left-open" and t["witness"] is not None
    assert t["finding"] == "not-covered"


def test_given_postcondition_that_allows_the_witness_is_over_specified(tmp_path, core):
    """#14.2: a user-given --spec evaluated at the tested call allows ['c', 'ab', 'xy'] (ties in
    any order) while the test demands ['c', 'xy', 'ab']: over-specified, with the witness."""
    (tmp_path / "spec.py").write_text(
        'def post(ws: list[str], result: list[str]) -> bool:\n'
        '    if sorted(result) != sorted(ws):\n        return False\n'
        '    return all(len(result[i]) <= len(result[i + 1]) for i in range(len(result) - 1))\n')
    (tmp_path / "test_f.py").write_text('from m import f\n\ndef test_ties():\n'
                                        '    assert f(["xy", "ab", "c"]) == ["c", "xy", "ab"]\n'
                                        'def test_other():\n    assert f(["b"]) == ["b"]\n')
    r = run_check(tmp_path, "--spec", "spec.py", "--tests", "test_f.py", "--entry-point", "f")
    by = {t["id"]: t for t in r["tests"]}
    assert by["T1"]["status"] == "left-open" and by["T1"]["finding"] == "over-specified"
    assert by["T1"]["witness"] == "returns ['c', 'ab', 'xy']"
    # the postcondition leaves no other outcome at ["b"], but no witness fails the test: not decided,
    # so never over-specified
    assert by["T2"]["status"] == "left-open" and by["T2"]["witness"] is None
    assert by["T2"]["finding"] == "not-covered"
