"""Clauses over several calls of the function under test (#12.2): ``assert f(a) == f(b)``.

Each case is a trap (a satisfiable task that a careless reading of two calls would certify as a
conflict: Python's ``==`` across int/float/bool, NaN, tuples vs lists, a call the assertion never
evaluates, arguments shared between the calls) or an attack (a bundle edited so verify would
accept a different claim).  The real CLI and the real Lean kernel throughout."""

from __future__ import annotations

import ast
import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent.parent
pytestmark = pytest.mark.lean


def run(cwd: Path, *args: str) -> subprocess.CompletedProcess:
    env = dict(os.environ, PYTHONPATH=str(ROOT))
    return subprocess.run([sys.executable, "-m", "specguard", *args], capture_output=True, text=True, cwd=cwd,
                          env=env, timeout=300)


def check(tmp_path: Path, desc: str, tests: str, out: str = "out") -> dict:
    (tmp_path / "description.md").write_text(desc)
    (tmp_path / "test_task.py").write_text(tests)
    p = run(tmp_path, "check", "--description", "description.md", "--tests", "test_task.py", "--entry-point", "f",
            "--out", out, "--json")
    assert p.returncode in (0, 1, 2), p.stdout + p.stderr
    return json.loads(p.stdout)


def statuses(r: dict) -> dict:
    return {t["text"]: t["status"] for t in r["tests"]}


def unsupported(r: dict) -> dict:
    return {u["text"]: u["reason"] for u in r["unsupported"]}


def test_python_equality_across_types_and_containers(tmp_path, core):
    """#12.2 traps: `f(1) == f(2)` with `f(1) -> True`, `f(2) -> 1` holds in Python (True == 1), so
    does `f(2) == f(3)` with `f(3) -> 1.0`, `f(4) == list(f(5))` with `[1, 2]` and `(1, 2)`, and
    `f(1) == f(1)` (one call read twice); `f(6) != f(7)` with NaN results holds (NaN != NaN).  None of
    these is a conflict; every one but the NaN one (no NaN class) is read."""
    desc = ("Values.\n\n>>> f(1)\nTrue\n>>> f(2)\n1\n>>> f(3)\n1.0\n>>> f(4)\n[1, 2]\n>>> f(5)\n(1, 2)\n"
            ">>> f(6)\nnan\n>>> f(7)\nnan\n")
    tests = ("from m import f\n\n"
             "def test_a():\n    assert f(1) == f(2)\n\n"
             "def test_b():\n    assert f(2) == f(3)\n\n"
             "def test_c():\n    assert f(4) == list(f(5))\n\n"
             "def test_d():\n    assert f(1) == f(1)\n\n"
             "def test_e():\n    assert f(6) != f(7)\n\n"
             "def test_f():\n    assert tuple(f(4)) == f(5)\n")
    r = check(tmp_path, desc, tests)
    assert r["verdict"] != "conflict", r["reason"]
    assert "contradicted" not in statuses(r).values(), r["tests"]
    assert r["coverage"]["assertions_read"] == 6, r["unsupported"]


def test_types_and_containers_really_differ(tmp_path, core):
    """#12.2: `f(5) == f(4)` with `f(4) -> [1, 2]` and `f(5) -> (1, 2)` fails in Python (a tuple is
    never equal to a list): a certified description-vs-test conflict naming the test and both
    examples; `f(1) != f(2)` with `True` and `1` likewise fails, and is contradicted."""
    desc = "Values.\n\n>>> f(1)\nTrue\n>>> f(2)\n1\n>>> f(4)\n[1, 2]\n>>> f(5)\n(1, 2)\n"
    tests = ("from m import f\n\n"
             "def test_a():\n    assert f(5) == f(4)\n\n"
             "def test_b():\n    assert f(1) != f(2)\n")
    r = check(tmp_path, desc, tests)
    assert r["verdict"] == "conflict" and r["evidence"] == "certified", r["reason"]
    assert len(r["conflict"]["items"]) == 3
    assert {i["source"] for i in r["conflict"]["items"]} == {"test", "description"}
    st = statuses(r)
    assert st["assert f(5) == f(4)"] == "contradicted" and st["assert f(1) != f(2)"] == "contradicted"


def test_a_later_call_may_change_an_earlier_result(tmp_path, core):
    """#12.2 trap: examples `f(1) -> [1]`, `f(2) -> [1, 2]` and `assert f(1) == f(2)`: an
    implementation appending to one list it returns every time shows both examples and passes the
    test (`f(2)` changes the list `f(1)` returned before `==` reads it).  No conflict: the first
    result is still in use when the second call runs, so the clause counts only immutable results
    there (`f(1) < f(2)` likewise); `len(f(1)) == len(f(2))` (each result consumed at once), `f(3)
    == list(f(1))` (a tuple first, the list last) and `list(f(1)) == f(2)` (a copy taken before
    `f(2)` runs) stay conflicts."""
    desc = "Values.\n\n>>> f(1)\n[1]\n>>> f(2)\n[1, 2]\n>>> f(3)\n(1,)\n"
    tests = ("from m import f\n\n"
             "def test_a():\n    assert f(1) == f(2)\n\n"
             "def test_b():\n    assert f(1) < f(2)\n")
    r = check(tmp_path, desc, tests)
    assert r["verdict"] != "conflict", r["reason"]
    assert "contradicted" not in statuses(r).values()
    (tmp_path / "b").mkdir()
    # `list(f(1))` copies the list before `f(2)` runs: what stays in use is its items (ints)
    r = check(tmp_path / "b", desc, "from m import f\n\ndef test_a():\n    assert len(f(1)) == len(f(2))\n\n"
                                    "def test_b():\n    assert f(3) == list(f(1))\n\n"
                                    "def test_c():\n    assert list(f(1)) == f(2)\n")
    assert r["verdict"] == "conflict" and r["evidence"] == "certified", r["reason"]
    assert set(statuses(r).values()) == {"contradicted"}, r["tests"]


def test_a_raising_call_fails_the_assertion(tmp_path, core):
    """#12.2: a doctest shows `f(1)` raising ValueError: `assert f(1) == f(2)` fails whatever f(2)
    is (the assertion needs a value of f(1)), a certified conflict, and so does `f(5) + f(6) ==
    f(1)` (the raising call last, the others unpinned); but `assert 1 if True else
    f(1) == f(2)` never evaluates the comparison (nor f(1)) and is not read as one."""
    desc = ("Values.\n\n>>> f(1)\nTraceback (most recent call last):\n    ...\nValueError: bad\n"
            ">>> f(2)\n3\n")
    (tmp_path / "trap").mkdir()
    trap = check(tmp_path / "trap", desc, "from m import f\n\ndef test_a():\n    assert 1 if True else f(1) == f(2)\n")
    assert trap["verdict"] != "conflict", trap["reason"]
    reason = unsupported(trap).get("assert 1 if True else f(1) == f(2)", "")
    assert reason, trap["tests"]
    r = check(tmp_path, desc, "from m import f\n\ndef test_a():\n    assert f(1) == f(2)\n\n"
                              "def test_b():\n    assert f(5) + f(6) == f(1)\n")
    assert r["verdict"] == "conflict" and r["evidence"] == "certified", r["reason"]
    # f(5), f(6) are pinned by nothing: the proof splits on their outcomes before f(1) raises
    assert set(statuses(r).values()) == {"contradicted"}, r["tests"]


def test_calls_that_may_not_run_are_not_required_to_return(tmp_path, core):
    """#12.2 trap: in `assert f(2) == 3 or f(1) == f(2)` and `assert [f(1) for _ in []] == [] != f(2)`
    f(1) is never called when the test passes; with `f(1)` raising they are no conflict."""
    desc = ("Values.\n\n>>> f(1)\nTraceback (most recent call last):\n    ...\nValueError: bad\n"
            ">>> f(2)\n3\n")
    tests = ("from m import f\n\n"
             "def test_a():\n    assert f(2) == 3 or f(1) == f(2)\n\n"
             "def test_b():\n    assert [f(1) for _ in []] != f(2)\n\n"
             "def test_c():\n    assert (f(2) if True else f(1)) == f(2)\n")
    r = check(tmp_path, desc, tests)
    assert r["verdict"] != "conflict", r["reason"]
    assert "contradicted" not in statuses(r).values()


def test_shared_mutable_arguments_are_refused(tmp_path, core):
    """#12.2 trap: `assert f(l, 1) == f(l, 2)`: the first call may change `l` before the second reads
    it, so the second call's input is not the literal: not read (with the reason), no conflict
    against examples of `f([1], 1)` and `f([1], 2)` that differ."""
    desc = "Values.\n\n>>> f([1], 1)\n1\n>>> f([1], 2)\n2\n"
    tests = "from m import f\n\ndef test_a():\n    l = [1]\n    assert f(l, 1) == f(l, 2)\n"
    r = check(tmp_path, desc, tests)
    assert r["verdict"] != "conflict", r["reason"]
    assert "mutable" in unsupported(r)["assert f(l, 1) == f(l, 2)"]


def test_documented_state_sets_two_calls_apart(tmp_path, core):
    """#12.2 trap: the description says each call advances a counter; `f(1) == f(2)` against
    `f(1) -> 1`, `f(2) -> 2` is then no conflict (the calls see different states): unsupported."""
    desc = ("Return the next value of a counter: each call increments an internal counter.\n\n"
            ">>> f(1)\n1\n>>> f(2)\n2\n")
    r = check(tmp_path, desc, "from m import f\n\ndef test_a():\n    assert f(1) == f(2)\n")
    assert r["verdict"] != "conflict", r["reason"]


def test_edited_bundle_is_not_valid(tmp_path, core):
    """#12.2 attack: a genuine two-call conflict bundle whose tests.lean is edited (the observation's
    `==` made `!=`, or the two inputs swapped) is rejected by verify: with the inputs, the claim
    does not re-derive; without, the certificate no longer proves the edited claim."""
    desc = "Values.\n\n>>> f(1)\n2\n>>> f(2)\n3\n"
    r = check(tmp_path, desc, "from m import f\n\ndef test_a():\n    assert f(1) == f(2)\n")
    assert r["verdict"] == "conflict" and r["evidence"] == "certified"
    ok = run(tmp_path, "verify", "out", "--inputs", "description.md", "test_task.py", "--json")
    assert ok.returncode == 0, ok.stdout
    text = (tmp_path / "out" / "tests.lean").read_text()
    assert "Py.eqOp obsr obsr_1" in text and "(impl TK1))) (impl TK0)" in text
    for i, edited in enumerate([text.replace("Py.eqOp obsr obsr_1", "Py.neOp obsr obsr_1"),
                                text.replace("(impl TK1))) (impl TK0)", "(impl TK0))) (impl TK1)")]):
        bad = tmp_path / f"bad{i}"
        shutil.copytree(tmp_path / "out", bad)
        (bad / "tests.lean").write_text(edited)
        for args in (["--inputs", "description.md", "test_task.py"], []):
            p = run(tmp_path, "verify", bad.name, *args, "--json")
            rep = json.loads(p.stdout)
            assert p.returncode != 0 and not rep["valid"], (args, rep["reason"])


def test_conditional_calls_are_found():
    """#12.2: which calls an assertion may skip when it passes (multiterm.conditional_problem)."""
    from specguard.python.multiterm import conditional_problem

    def prob(src: str):
        node = ast.parse(src, mode="eval").body
        return conditional_problem(node, lambda n: isinstance(n, ast.Call) and getattr(n.func, "id", "") == "f", "f")
    assert prob("f(1) == f(2)") is None
    assert prob("0 == f(1) == f(2)") is None            # a passing chain evaluated every operand
    assert prob("len(f(1)) < len(f(2))") is None
    assert prob("not (0 == f(1) == f(2))") is not None  # a false chain passes: f(2) may be skipped
    assert prob("f(1) or f(2)") is not None
    assert prob("f(1) if c else f(2)") is not None
    assert prob("[f(1) for _ in x]") is not None
    assert prob("[y for y in f(1)] == f(2)") is None    # the first iterable is always evaluated
    assert prob("(lambda: f(1))() == f(2)") is not None


@pytest.mark.lean
def test_a_held_result_is_read_after_the_later_calls_of_the_assertion(tmp_path):
    """#12.2 (red team): `r = f(1)` before `assert f(2) == len(r)`: `f(2)` runs after `f(1)` returned
    the list `r` holds and may append to it (a shared buffer), wherever `r` stands in the expression,
    so no certificate rests on `r`'s pinned value."""
    from cli_run import check_files
    desc = 'def f(n):\n    """Buffer.\n\n    >>> f(1)\n    [1]\n    >>> f(2)\n    2\n    """\n'
    for expr in ("len(r)", "r[-1]"):
        tests = ("from mod import f\n\ndef test_one():\n    assert f(1) == [1]\n\ndef test_two():\n"
                 f"    assert f(2) == 2\n\ndef test_alias():\n    r = f(1)\n    assert f(2) == {expr}\n")
        d = tmp_path / expr.replace("(", "").replace(")", "").replace("[", "").replace("]", "").replace("-", "")
        d.mkdir()
        _, r = check_files(d, desc, tests, desc_name="desc.py")
        assert not (r["verdict"] == "conflict" and r["evidence"] == "certified"), (expr, r["reason"])
