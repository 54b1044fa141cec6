"""Assertions with two or more calls of the function under test (#12.2), through the real CLI
and the real Lean kernel: read as one clause over the outcomes at every call's exact input,
decided against the description's examples (and the other tests) at those inputs."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
pytestmark = pytest.mark.lean


def run(cwd: Path, *args: str) -> subprocess.CompletedProcess:
    env = dict(os.environ, PYTHONPATH=str(ROOT))
    return subprocess.run([sys.executable, "-m", "specguard", *args], capture_output=True, text=True, cwd=cwd,
                          env=env, timeout=300)


def check(tmp_path: Path, desc: str, tests: str) -> dict:
    (tmp_path / "description.md").write_text(desc)
    (tmp_path / "test_task.py").write_text(tests)
    p = run(tmp_path, "check", "--description", "description.md", "--tests", "test_task.py", "--entry-point", "f",
            "--out", "out", "--json")
    assert p.returncode in (0, 1, 2), p.stdout + p.stderr
    return json.loads(p.stdout)


def verify(tmp_path: Path) -> dict:
    p = run(tmp_path, "verify", "out", "--inputs", "description.md", "test_task.py", "--json")
    rep = json.loads(p.stdout)
    assert (p.returncode == 0) == rep["valid"], p.stdout + p.stderr
    return rep


DESC = "Add one.\n\n>>> f(1)\n2\n>>> f(2)\n3\n>>> f('ab')\n[1, 2]\n>>> f('abc')\n[1]\n"


def test_two_calls_against_two_examples(tmp_path, core):
    """#12.2: `self.assertEqual(f(1), f(2))`, `len(f('ab')) < len(f('abc'))` and
    `assertEqual(f('abc'), list(f('ab')))` contradict the examples `f(1) -> 2`, `f(2) -> 3`,
    `f('ab') -> [1, 2]`, `f('abc') -> [1]`: a certified conflict naming the test and both examples,
    the first two contradicted; the third is left open (the list `f('abc')` returned is still in
    use when `f('ab')` runs, which may change it); all read, and `verify --inputs` re-derives and
    accepts it."""
    tests = ("import unittest\nfrom m import f\n\n"
             "class T(unittest.TestCase):\n"
             "    def test_a(self):\n        self.assertEqual(f(1), f(2))\n\n"
             "    def test_b(self):\n        assert len(f('ab')) < len(f('abc'))\n\n"
             "    def test_c(self):\n        self.assertEqual(f('abc'), list(f('ab')))\n")
    r = check(tmp_path, DESC, tests)
    assert r["verdict"] == "conflict" and r["evidence"] == "certified", r["reason"]
    items = r["conflict"]["items"]
    assert [i["source"] for i in items] == ["test", "description", "description"]
    assert items[0]["statement"] == "f(1) == f(2) holds"
    assert [t["status"] for t in r["tests"]] == ["contradicted", "contradicted", "left-open"]
    assert r["coverage"]["assertions_read"] == r["coverage"]["assertions_total"] == 3
    rep = verify(tmp_path)
    assert rep["valid"] and rep["claim_source"] == "re-derived from the inputs", rep["reason"]


def test_tests_against_each_other_and_a_witness(tmp_path, core):
    """#12.2: `f(1) == 2`, `f(2) == 3` and `0 < f(1) == f(2)` among the tests alone: a certified
    test-vs-test conflict; without the last, `f(1) + 1 == f(2)` and `f(5) == f(6)` (inputs no
    other clause speaks about) are satisfied by a kernel-checked witness implementation."""
    r = check(tmp_path, "Numbers.\n", "from m import f\n\ndef test_a():\n    assert f(1) == 2\n    assert f(2) == 3\n"
                                      "    assert 0 < f(1) == f(2)\n")
    assert r["verdict"] == "conflict" and r["conflict"]["kind"] == "test-vs-test", r["reason"]
    r = check(tmp_path, DESC, "from m import f\n\ndef test_a():\n    assert f(1) + 1 == f(2)\n"
                              "    assert f(5) == f(6)\n    assert f(1) != f(2)\n")
    assert r["verdict"] == "inconclusive", r["reason"]
    assert "witness implementation" in r["reason"], r["reason"]
    assert r["coverage"]["assertions_read"] == 3


def test_what_is_not_read(tmp_path, core):
    """#12.2: `f(h(1)) == 1` (a call of unknown code is not an exact input) and calls
    the assertion may skip are unsupported with the reason; with documented state between calls an
    assertion of two calls is set apart and not counted as read."""
    r = check(tmp_path, DESC, "from m import f\n\ndef test_a():\n    assert f(h(1)) == 1\n\n"
                              "def test_b():\n    assert (f(1) if f(2) else f(3)) == 2\n")
    reasons = {u["text"]: u["reason"] for u in r["unsupported"]}
    assert "not a literal" in reasons["assert f(h(1)) == 1"]
    assert "may not evaluate" in reasons["assert (f(1) if f(2) else f(3)) == 2"]
    assert r["coverage"]["assertions_read"] == 0
    desc = "Each call increments an internal counter and returns it.\n\n>>> f(1)\n1\n>>> f(2)\n2\n"
    r = check(tmp_path, desc, "from m import f\n\ndef test_a():\n    assert f(1) == f(2)\n")
    assert r["verdict"] != "conflict"
    assert r["coverage"]["assertions_read"] == 0, r["coverage"]
    assert any("state" in u["reason"] for u in r["unsupported"]), r["unsupported"]
