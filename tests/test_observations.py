"""Observations (#12.2): an assertion or doctest line applying Python operations to one call of
the function under test becomes one ``obs`` clause, evaluated by the spec language's semantics on
the result's ``==``-class.  Real pipeline (``specguard check`` / ``verify`` in a subprocess, the
real kernel) and the differential property of the guards (CPython on values this file wrote)."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from specguard.kernel import emit
from specguard.formalize import speclang
from specguard.models import Call, Expect, ExpectKind
from specguard.python.values import canon, from_python

ROOT = Path(__file__).resolve().parent.parent


def run(args, cwd):
    env = dict(os.environ, PYTHONPATH=str(ROOT))
    return subprocess.run([sys.executable, "-m", "specguard", *args], capture_output=True, text=True, cwd=cwd,
                          env=env)


def check(tmp_path, desc: str, tests: str):
    (tmp_path / "description.md").write_text(desc)
    (tmp_path / "test_task.py").write_text(tests)
    p = run(["check", "--description", "description.md", "--tests", "test_task.py", "--entry-point", "f",
             "--out", "out", "--json"], tmp_path)
    assert p.returncode in (0, 1, 2), p.stdout + p.stderr
    return p.returncode, json.loads(p.stdout)


def certified(r) -> bool:
    return r["verdict"] == "conflict" and r["evidence"] == "certified"


def holds(text: str, value) -> bool:
    return speclang.observation(text).holds(canon(from_python(value)))


# -- the mirror of the predicate ---------------------------------------------------------------

def test_mirror_evaluates_with_python_semantics():
    """#12.2: the observation predicate is the expression's truth on the class representative."""
    assert holds("sorted(result) == [1, 2]", [2, 1])
    assert not holds("sorted(result) == [1, 2]", [3, 1])
    assert holds("result[0] == 5", [5, 6]) and not holds("result[0] == 5", [6])
    assert holds("result[1:] == [2]", [1, 2]) and not holds("result[1:] == [2]", [1, 3])
    assert holds("set(result) == {1, 2}", [2, 1, 2])
    assert holds("sum(result) == 3", [1, 2]) and not holds("sum(result) == 3", [1, 1])
    assert holds("max(result) > 2", [3, 1]) and not holds("max(result) > 2", [1])
    assert holds("3 in result", {3: "a"}) and not holds("3 in result", [1])
    assert holds("result.split() == ['a']", " a ") and not holds("result.split() == ['a']", "a b")
    assert holds("len(result) == 2", "ab")


def test_undefined_is_true():
    """#12.2: an implicit Python error or a value outside the subset makes the predicate true
    (the clause is implied by the assertion either way)."""
    assert holds("result[5] == 1", [1])                 # IndexError
    assert holds("sorted(result) == [1]", 1.5)          # a float class: outside the subset
    assert holds("result + 1 == 3", 10 ** 30)           # beyond 2**53: a float of it may round


def test_unsound_operations_are_refused():
    """#12.2: operations whose result differs between ==-equal values are not modelled."""
    for text in ("str(result) == '1'", "repr(result) == '1'", "result[0] is True", "result ** 2 == 4",
                 "f'{result}' == '1'", "list(result.keys()) == [1]", "result.keys() == {1, 2}",
                 "divmod(result, 2) == (1, 0)"):
        with pytest.raises(speclang.ObservationError):
            speclang.observation(text)
    assert speclang.observation("result is None")     # None is the only value == None


# -- differential: the guards on ==-equal plain values (CPython on values written here) -------

_EQUAL = [
    [[1, 2], [True, 2], [1.0, 2.0]],
    [{1: "a", 2: "b"}, {2: "b", 1: "a"}, {True: "a", 2.0: "b"}],
    [{3, 1, 2}, {2, 3, 1}, {1.0, 2, 3}],
    [(1, 0), (True, False), (1.0, 0.0)],
    [[{2: 1, 1: 2}], [{1: 2, 2: 1}]],
    [2 ** 60, float(2 ** 60)],
    [[2 ** 60, 1], [float(2 ** 60), 1]],
    ["ab", "ab"],
    [7, 7.0],
    [[1, 2, 3], [1.0, 2, True + 2]],
]
_EXPRS = [
    "list(result) == [1, 2]", "list(result) == [2, 1]", "tuple(result) == (1, 2)", "sorted(result) == [1, 2]",
    "sorted(result) == [1, 2, 3]", "set(result) == {1, 2}", "len(result) == 2", "sum(result) == 3",
    "sum(result) == 2 ** 60 + 1", "result + 1 == 2 ** 60 + 1", "result + 1 == 2 ** 60", "result * 3 == 21",
    "result // 2 == 3", "result % 4 == 3", "max(result) == 2", "min(result) == 1", "1 in result",
    "result[0] == 1", "result[0] == {1: 2, 2: 1}", "list(result[0]) == [2, 1]", "list(result[0]) == [1, 2]",
    "[x for x in result] == [1, 2]", "[x for x in result] == [2, 1]", "list(enumerate(result)) == [(0, 1), (1, 2)]",
    "list(reversed(result)) == [2, 1]", "sorted(result.items()) == [(1, 'a'), (2, 'b')]",
    "sorted(result, key=lambda t: 0) == [1, 2]", "sorted(result, key=lambda t: 0) == [2, 1]", "any(result)",
    "all(result)", "result[0] != result[1]", "result == {1: 'a', 2: 'b'}", "bool(result)", "not result",
    "result[-1] == 3", "result[1:] == [2, 3]", "int(result) == 7", "abs(result) == 7",
]


def _py_outcome(text: str, value):
    try:
        return bool(eval(text, {"__builtins__": __builtins__}, {"result": value}))  # noqa: S307 - the test's own text
    except Exception:       # noqa: BLE001 - an error: the assertion fails
        return None


@pytest.mark.parametrize("text", _EXPRS)
def test_guards_are_sound_on_equal_values(text):
    """#12.2: whenever a real value of the class passes the assertion, the predicate holds on the
    class representative (so a conflict through it is sound), for every whitelisted operation."""
    try:
        o = speclang.observation(text)
    except speclang.ObservationError:
        return
    for group in _EQUAL:
        rep = canon(from_python(group[0]))
        for v in group:
            assert canon(from_python(v)) == rep
            if _py_outcome(text, v) is True:
                assert o.holds(rep), (text, v)


# -- the real pipeline --------------------------------------------------------------------------

@pytest.mark.lean
def test_sorted_against_doctest_is_certified_and_verifies(tmp_path, core):
    """#12.2: `sorted(f(x)) == [1, 2]` against a doctest `f(x)` -> `[3, 1]` is a certified
    conflict, and `verify --inputs` re-derives it (VALID)."""
    rc, r = check(tmp_path, "Items.\n\n>>> f(3)\n[3, 1]\n",
                  "from m import f\n\ndef test_a():\n    assert sorted(f(3)) == [1, 2]\n")
    assert rc == 1 and certified(r)
    assert r["coverage"]["assertions_read"] == 1
    p = run(["verify", "out", "--inputs", "description.md", "test_task.py"], tmp_path)
    assert p.returncode == 0 and p.stdout.startswith("VALID"), p.stdout + p.stderr


@pytest.mark.lean
def test_description_observations_against_tests(tmp_path, core):
    """#12.2 (description side): `>>> len(f(x))` / `2`, `>>> f(x)[0]` / `7` against tests pinning
    the result are certified conflicts; consistent ones are not."""
    rc, r = check(tmp_path, "Items.\n\n>>> len(f(4))\n2\n>>> f(6)[0]\n7\n>>> sorted(f(8))\n[1, 2]\n",
                  "from m import f\n\ndef test_a():\n    assert f(4) == [1, 2, 3]\n\n"
                  "def test_b():\n    assert f(6) == [7]\n\ndef test_c():\n    assert f(8) == [2, 1]\n")
    assert rc == 1 and certified(r)
    st = {t["text"]: t["status"] for t in r["tests"]}
    assert st["assert f(4) == [1, 2, 3]"] == "contradicted"
    assert st["assert f(6) == [7]"] != "contradicted"
    assert st["assert f(8) == [2, 1]"] != "contradicted"
    assert r["coverage"]["examples_read"] == 3


def test_same_call_twice_and_conjunctions():
    """#12.2: `f(x)[0] == 1 and f(x)[1] == 2` gives one observation per conjunct; `f(x)[0] ==
    f(x)[1]` (the same call twice, literal arguments) is one observation."""
    from specguard.formalize.tests import formalize_tests
    from specguard.models import TestSource
    code = ("from m import f\n\ndef test_a():\n    assert f(1)[0] == 1 and f(1)[1] == 2\n"
            "    assert f(2)[0] == f(2)[1]\n")
    tf = formalize_tests([TestSource(kind="python", path="t.py", text=code)], "f")
    assert [(d.call.source(), d.expect.expr) for d in tf.demands] == [
        ("f(1)", "result[0] == 1"), ("f(1)", "result[1] == 2"), ("f(2)", "result[0] == result[1]")]
    assert tf.assertions_read == 2


def test_emit_clause_is_a_weakening():
    """#12.2: an obs clause is never exact (never 'entailed')."""
    c = emit.clause_of_expect("T1", Call(target="f", args=(from_python(1),)),
                              Expect(kind=ExpectKind.obs, expr="len(result) > 1"), None)
    assert not c.exact and c.pred.mode == "returns"
    assert "Py.obsHolds" in c.lean_prop()


# -- #12.3: functions observed through list(...) ---------------------------------------------------

@pytest.mark.lean
def test_iterator_observed_through_list_is_certified_and_verifies(tmp_path, core):
    """#12.3: a doctest `>>> list(f(x))` / `[1, 3]` against a test `assert list(f(x)) == [1, 2]` is
    a certified conflict about list(f(...)) (stated as an assumption), and verify re-derives it."""
    rc, r = check(tmp_path, "Yield the odd numbers below n.\n\n>>> list(f(4))\n[1, 3]\n>>> sorted(f(6))\n[1, 3, 5]\n",
                  "from m import f\n\ndef test_a():\n    assert list(f(4)) == [1, 2]\n\n"
                  "def test_b():\n    assert tuple(f(6)) == (1, 3, 5)\n    assert sum(f(8)) == 16\n")
    assert rc == 1 and certified(r)
    assert any("list(f(...))" in a for a in r["assumptions"])
    assert any(n.startswith("observed through list(...)") for n in r["notes"])
    st = {t["text"]: (t["status"], t["exact"]) for t in r["tests"]}
    assert st["assert list(f(4)) == [1, 2]"] == ("contradicted", True)
    assert {t["statement"] for t in r["tests"]} >= {"list(f(4)) == [1, 2]", "list(f(6)) == [1, 3, 5]"}
    assert st["assert tuple(f(6)) == (1, 3, 5)"][1] is True
    p = run(["verify", "out", "--inputs", "description.md", "test_task.py"], tmp_path)
    assert p.returncode == 0 and p.stdout.startswith("VALID"), p.stdout + p.stderr


def test_direct_use_keeps_the_function():
    """#12.3: one direct use of the result (`len(f(x))`) keeps f: the list(...) readings stay
    observations (never combined with clauses about list(f(...)))."""
    from specguard.python import iterate
    from specguard.models import Demand, Loc
    loc = Loc(file="t.py", line=1)
    mk = lambda i, expr: Demand(id=f"T{i}", call=Call(target="f", args=(from_python(i),)),  # noqa: E731
                                expect=Expect(kind=ExpectKind.obs, expr=expr), loc=loc)
    both = (mk(1, "list(result) == [1]"), mk(2, "sorted(result) == [1]"))
    assert iterate.through_list(both, [], "f") is not None
    assert iterate.through_list(both + (mk(3, "len(result) == 2"),), [], "f") is None
    assert iterate.through_list(both + (mk(4, "1 in result"),), [], "f") is None      # substring on a str
    bound = Demand(id="T5", call=Call(target="f", args=(from_python(5),)), loc=loc,
                   expect=Expect(kind=ExpectKind.obs, expr="list(result) == []", bound_result=True))
    assert iterate.through_list(both + (bound,), [], "f") is None


# -- #12.5: floats ------------------------------------------------------------------------------------

def test_isclose_enclosure_contains_every_accepted_value():
    """#12.5: every `a` with `math.isclose(a, b, rel_tol, abs_tol)` lies in the exact rational
    enclosure (CPython decides `isclose` here on values this test draws)."""
    import math
    import random
    from fractions import Fraction
    rnd = random.Random(7)
    for _ in range(20000):
        b = rnd.choice([rnd.uniform(-10, 10), rnd.randint(-10 ** 6, 10 ** 6), rnd.random() * 1e300, 1e-300, 0.0])
        rel = rnd.choice([1e-9, 1e-6, 0.1, 0.0])
        ab = rnd.choice([0.0, 1e-12, 1e-3, 1.0])
        a = b * (1 + rnd.uniform(-1, 1) * rel * rnd.choice([0.5, 1, 2])) + rnd.uniform(-1, 1) * ab * rnd.choice([1, 2])
        a = rnd.choice([a, math.nextafter(a, math.inf), math.nextafter(a, -math.inf)])
        if math.isclose(a, b, rel_tol=rel, abs_tol=ab):
            lo, hi = emit.isclose_enclosure(b, rel, ab)
            assert lo <= Fraction(a) <= hi, (a, b, rel, ab)


@pytest.mark.lean
def test_isclose_against_doctest(tmp_path, core):
    """#12.5: `math.isclose(f(x), 0.5)` against a doctest `f(x)` -> `0.25` is a certified conflict;
    against `0.5000000001` it is not (and the enclosure is noted as a weakening)."""
    rc, r = check(tmp_path, "Half.\n\n>>> f(1)\n0.25\n>>> f(2)\n0.5000000001\n",
                  "import math\nfrom m import f\n\ndef test_a():\n    assert math.isclose(f(1), 0.5)\n\n"
                  "def test_b():\n    assert math.isclose(f(2), 0.5, rel_tol=1e-6)\n")
    assert rc == 1 and certified(r)
    st = {t["text"]: t["status"] for t in r["tests"]}
    assert st["assert math.isclose(f(1), 0.5)"] == "contradicted"
    assert st["assert math.isclose(f(2), 0.5, rel_tol=1e-6)"] != "contradicted"
    assert any("exact rational enclosures" in n for n in r["notes"])


@pytest.mark.lean
def test_mirror_agrees_with_the_kernel(core):
    """#12.2: the Python mirror of every observation predicate agrees with its Lean definition,
    decided by the kernel (one Lean run over all cases of the differential table)."""
    from specguard.kernel import runner as lean_runner
    lines = [emit.HEADER + "noncomputable section", "namespace ObsCheck", "open SpecGuard", ""]
    n = 0
    for text in _EXPRS:
        try:
            o = speclang.observation(text)
        except speclang.ObservationError:
            continue
        for group in _EQUAL[:6]:
            rep = canon(from_python(group[0]))
            want = "Bool.true" if o.holds(rep) else "Bool.false"
            n += 1
            lines.append(f"theorem c{n} : Eq ({o.lean} {emit.lean_val(rep)}) {want} := Eq.refl {want}")
    lines.append("end ObsCheck")
    res = lean_runner.check_text("\n".join(lines) + "\n", timeout=300)
    assert res.ok, [str(m) for m in res.errors[:3]]
    assert n > 150


@pytest.mark.lean
def test_range_argument_is_exact_and_verifies(tmp_path, core):
    """#12.3 (arguments): `f(range(4))` in a doctest and in a test is one exact input (a key no
    list can have); conflicting values are certified and verify re-derives them (VALID)."""
    rc, r = check(tmp_path, "Sum.\n\n>>> f(range(4))\n6\n",
                  "from m import f\n\ndef test_a():\n    assert f(range(0, 4, 1)) == 7\n    assert f(iter([1])) == 1\n")
    assert rc == 1 and certified(r)
    assert r["tests"][0]["statement"] == "f(range(0, 4, 1)) == 7"
    p = run(["verify", "out", "--inputs", "description.md", "test_task.py"], tmp_path)
    assert p.returncode == 0 and p.stdout.startswith("VALID"), p.stdout + p.stderr
