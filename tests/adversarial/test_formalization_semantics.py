"""Formalization layer: what a task says against the model's assumptions (objects, state) and
demands weakened to fit the model (approx, isinstance, ``is True``) never yield a false
certificate.  Real CLI, real files, real Lean kernel."""

import math
import os
import random
import subprocess
import sys
import unittest
from fractions import Fraction
from pathlib import Path

import pytest
from cli_run import check_files

from specguard.kernel import emit, runner as lean_runner
from specguard.kernel.emit import Outcome, Pred
from specguard.models import Expect, ExpectKind
from specguard.python.values import canon, from_python

ROOT = Path(__file__).resolve().parent.parent.parent
pytestmark = pytest.mark.lean


def check(tmp_path, desc: str, tests: str, *extra):
    """``specguard check --json`` on a stub description and one test file (tests/cli_run.py): (exit code, result)."""
    return check_files(tmp_path, desc, tests, *extra, entry_point=None, desc_name="desc.py")


def certified_conflict(r) -> bool:
    return r["verdict"] == "conflict" and r["evidence"] == "certified"


def status(r) -> dict:
    return {t["id"]: t["status"] for t in r["tests"]}


# -- #11.13: results that may be objects ---------------------------------------------------------

def test_class_stub_results_are_not_plain_data(tmp_path, core):
    """#11.13: an empty `class Point: ...` stub, tests `Point(1, 2) == (1, 2)` and `== [1, 2]`:
    a Point may define __eq__, so no conflict is certified and the assumption says why."""
    code, r = check(tmp_path, "class Point:\n    ...\n",
                    "from m import Point\n\ndef test_t():\n    assert Point(1, 2) == (1, 2)\n\n"
                    "def test_l():\n    assert Point(1, 2) == [1, 2]\n")
    assert code == 2 and not certified_conflict(r)
    assert "may be objects" in r["assumptions"][0] and "class Point" in r["assumptions"][0]
    assert all(not t["exact"] for t in r["tests"])


def test_return_annotation_naming_a_class_with_eq(tmp_path, core):
    """#11.13: the result is annotated as a class the description defines with its own __eq__;
    examples compare it with values of several types: no certified conflict."""
    desc = ('class Money:\n    def __eq__(self, other):\n        """Equal to numbers and strings of its amount."""\n\n'
            'def money(n: int) -> Money:\n    """Make a Money."""\n')
    code, r = check(tmp_path, desc, "from m import money\n\ndef test_a():\n    assert money(1) == 1\n\n"
                                    "def test_b():\n    assert money(1) == '1'\n")
    assert not certified_conflict(r) and code == 2
    assert "`money`" in r["assumptions"][0] and "Money" in r["assumptions"][0]


def test_description_defines_a_class_and_an_unannotated_function(tmp_path, core):
    """#11.13: the description defines `class Money` and `money(n)` without a return annotation:
    the result may be a Money, so `money(1) == 1` and `== "1"` are not a certified conflict."""
    code, r = check(tmp_path, 'class Money:\n    pass\n\ndef money(n):\n    """Make Money."""\n',
                    "from m import money\n\ndef test_a():\n    assert money(1) == 1\n\n"
                    "def test_b():\n    assert money(1) == '1'\n")
    assert code == 2 and not certified_conflict(r)
    assert "class Money" in r["assumptions"][0]


def test_raises_versus_returns_still_certified_for_objects(tmp_path, core):
    """#11.13: a conflict that does not rest on == (the call raises vs the call returns) is still
    certified when results may be objects."""
    code, r = check(tmp_path, "class Point:\n    ...\n",
                    "import pytest\nfrom m import Point\n\ndef test_eq():\n    assert Point(1, 2) == (1, 2)\n\n"
                    "def test_raises():\n    with pytest.raises(TypeError):\n        Point(1, 2)\n")
    assert code == 1 and certified_conflict(r)
    assert "may be objects" in r["assumptions"][0]


def test_tests_alone_show_an_object_result(tmp_path, core):
    """#11.13: no description of the class, but the tests read `.x` off a result of `make`:
    its results are objects, the tuple/list pair is not certified."""
    code, r = check(tmp_path, "def make(x, y):\n    \"\"\"Make a point.\"\"\"\n",
                    "from m import make\n\ndef test_x():\n    assert make(1, 2).x == 1\n\n"
                    "def test_t():\n    assert make(1, 2) == (1, 2)\n\ndef test_l():\n    assert make(1, 2) == [1, 2]\n")
    assert not certified_conflict(r)
    assert ".x" in r["assumptions"][0]


def test_description_shows_one_call_equal_to_values_of_several_types(tmp_path, core):
    """#11.13: the description's doctests show `f(1) == (1,)` and `f(1) == [1]` both True (an
    object with its own __eq__): the tests' tuple/list pair is not certified."""
    desc = 'def f(n):\n    """Wrap n.\n\n    >>> f(1) == (1,)\n    True\n    >>> f(1) == [1]\n    True\n    """\n'
    code, r = check(tmp_path, desc, "from m import f\n\ndef test_a():\n    assert f(1) == (1,)\n\n"
                                    "def test_b():\n    assert f(1) == [1]\n")
    assert code == 2 and not certified_conflict(r)
    assert "values of different types" in r["assumptions"][0]


def test_plain_function_tuple_list_pair_still_certified(tmp_path, core):
    """#11.13 (control): a plain function with a plain return annotation: the same pair of tests
    is still a certified conflict, under the unchanged plain-data assumption."""
    code, r = check(tmp_path, "def pair(x: int, y: int) -> tuple:\n    \"\"\"The pair.\"\"\"\n",
                    "from m import pair\n\ndef test_t():\n    assert pair(1, 2) == (1, 2)\n\n"
                    "def test_l():\n    assert pair(1, 2) == [1, 2]\n")
    assert code == 1 and certified_conflict(r)
    assert r["assumptions"][0].startswith("The implementation returns plain Python data")


# -- #11.14: documented state --------------------------------------------------------------------

def test_mutable_default_argument_is_documented_state(tmp_path, core):
    """#11.14: `acc=[]` in the signature: the same call asserted twice with different values is
    not a conflict, and the function-of-its-arguments assumption is not stated as holding."""
    code, r = check(tmp_path, 'def collect(x, acc=[]):\n    """Append x to acc and return it."""\n',
                    "from m import collect\n\ndef test_a():\n    assert collect(1) == [1]\n\n"
                    "def test_b():\n    assert collect(1) == [1, 1]\n")
    assert code == 2 and not certified_conflict(r)
    assert "acc=[]" in r["assumptions"][1] and "does NOT assume" in r["assumptions"][1]
    assert all("documents state" in u["reason"] for u in r["unsupported"]) and len(r["unsupported"]) == 2


def test_state_words_in_the_description(tmp_path, core):
    """#11.14: "each call" / "accumulates" in the prose (no mutable default): same call,
    different values: not certified; a doctest of the same call entails nothing."""
    desc = ('def log(x):\n    """Each call adds x to the log, which accumulates, and returns its length.\n\n'
            '    >>> log("a")\n    1\n    """\n')
    code, r = check(tmp_path, desc, 'from m import log\n\ndef test_a():\n    assert log("a") == 1\n\n'
                                    'def test_b():\n    assert log("b") == 2\n\ndef test_c():\n    assert log("b") == 3\n')
    assert code == 2 and not certified_conflict(r)
    assert status(r).get("T1") != "entailed" and r["verdict"] != "no-conflict"
    assert "Each call" in r["assumptions"][1] or "each call" in r["assumptions"][1].lower()


def test_state_keeps_conflicts_that_do_not_rest_on_it(tmp_path, core):
    """#11.14: with documented state, a test against the return annotation (every returned value
    is an int) is still a certified conflict: it does not rest on two calls agreeing."""
    code, r = check(tmp_path, 'def tally(x, acc=[]) -> int:\n    """Count the calls so far."""\n',
                    "from m import tally\n\ndef test_a():\n    assert tally(1) == 'one'\n")
    assert code == 1 and certified_conflict(r)
    assert r["conflict"]["kind"] == "description-vs-test"


def test_no_state_documented_same_call_is_still_certified(tmp_path, core):
    """#11.14 (control): without documented state, the same call with two values stays a
    certified conflict."""
    code, r = check(tmp_path, 'def collect(x):\n    """Return [x]."""\n',
                    "from m import collect\n\ndef test_a():\n    assert collect(1) == [1]\n\n"
                    "def test_b():\n    assert collect(1) == [1, 1]\n")
    assert code == 1 and certified_conflict(r)


# -- #11.15: weakened demands are never entailed --------------------------------------------------

SQUARE = 'def square(n):\n    """Return n squared.\n\n    >>> square(3)\n    9\n    """\n'


def test_approx_is_modelled_and_never_entailed(tmp_path, core):
    """#11.15: doctest `square(3)` -> `9`: `square(3) == pytest.approx(10.0)` is a certified
    conflict (9 is outside 10 +- 1e-5), never "entailed"; `isinstance(square(3), float)` is
    left open, and the verdict is not a certified no-conflict."""
    code, r = check(tmp_path, SQUARE, "import pytest\nfrom m import square\n\n"
                                      "def test_a():\n    assert square(3) == pytest.approx(10.0)\n\n"
                                      "def test_b():\n    assert isinstance(square(3), float)\n")
    assert code == 1 and certified_conflict(r)
    assert status(r) == {"T1": "contradicted", "T2": "left-open"}


def test_weakened_demands_never_give_a_certified_no_conflict(tmp_path, core):
    """#11.15: approx within tolerance, isinstance, `is True` against doctest outputs: none is
    entailed, so the verdict is inconclusive, not a certified no-conflict."""
    code, r = check(tmp_path, SQUARE, "import pytest\nfrom m import square\n\n"
                                      "def test_a():\n    assert square(3) == pytest.approx(9.000001)\n\n"
                                      "def test_b():\n    assert isinstance(square(3), float)\n")
    assert code == 2 and r["verdict"] == "inconclusive"
    assert status(r) == {"T1": "left-open", "T2": "left-open"}
    (tmp_path / "out").rename(tmp_path / "out1")
    code, r = check(tmp_path, 'def odd(n):\n    """>>> odd(3)\n    1\n    """\n',
                    "from m import odd\n\ndef test_c():\n    assert odd(3) is True\n")
    assert code == 2 and status(r) == {"T1": "left-open"}


def test_assert_almost_equal_places(tmp_path, core):
    """#11.15: `assertAlmostEqual(square(3), 9.5)` (7 places) contradicts doctest 9, certified;
    `assertAlmostEqual(square(3), 9.00000001)` is within 7 places: no conflict, not entailed."""
    tests = ("import unittest\nfrom m import square\n\nclass T(unittest.TestCase):\n"
             "    def test_far(self):\n        self.assertAlmostEqual(square(3), 9.5)\n\n")
    code, r = check(tmp_path, SQUARE, tests)
    assert code == 1 and certified_conflict(r)
    near = tests.replace("9.5", "9.00000001")
    (tmp_path / "out").rename(tmp_path / "out1")
    code, r = check(tmp_path, SQUARE, near)
    assert code == 2 and status(r) == {"T1": "left-open"}


def _ours(e: Expect, a) -> bool:
    lo, hi = emit.approx_enclosure(e)
    return lo <= Fraction(a) <= hi


def test_approx_enclosure_contains_every_value_pytest_accepts():
    """#11.15: differential against pytest.approx and unittest's assertAlmostEqual: every result
    they accept lies in SpecGuard's rational enclosure (sound for conflicts), including values at
    the tolerance's edge, int/float mixes and large magnitudes."""
    rng = random.Random(11)
    tc = unittest.TestCase()
    n = 0
    for _ in range(3000):
        b = rng.choice([rng.uniform(-10, 10), rng.randint(-10**6, 10**6), 10.0 ** rng.randint(-15, 300),
                        rng.choice([0.0, 1e-12, 0.1, 1e16])])
        rel = rng.choice([None, 0.0, 1e-9, 1e-3])
        ab = rng.choice([None, 0.0, 1e-12, 0.5])
        places = rng.choice([None, 0, 3, 7, -1])
        tol = max((1e-6 if rel is None else rel) * abs(b), 1e-12 if ab is None else ab) if not (ab is not None and rel is None) else ab
        width = max(tol, 0.5 * 10.0 ** -(places if places is not None else 7), 1e-300)
        for a in (b + width * rng.uniform(-1.01, 1.01), math.nextafter(b + tol, math.inf), b - tol,
                  int(b) if abs(b) < 1e18 else b):
            e = Expect(kind=ExpectKind.approx, value=from_python(b), rel=rel, abs=ab)
            if a == pytest.approx(b, rel=rel, abs=ab):
                n += 1
                assert _ours(e, a), (a, b, rel, ab)
            e = Expect(kind=ExpectKind.approx, value=from_python(b), places=7 if places is None else places)
            try:
                tc.assertAlmostEqual(a, b, places=places)
            except AssertionError:
                continue
            n += 1
            assert _ours(e, a), (a, b, places)
    assert n > 2000


def test_near_predicate_kernel_agrees_with_mirror(core):
    """#11.15: the `near` value predicate (a number class in [LO, HI], two Val.cmp) evaluated by
    the kernel agrees with its Python mirror, on numbers, infinities, NaN and non-numbers."""
    bounds = [emit.approx_enclosure(Expect(kind=ExpectKind.approx, value=from_python(b)))
              for b in (10.0, 0.1, -3, 0)]
    samples = [9, 10, 10.000001, 10.00002, 0.1, 0.1000001, -3, -3.000002, 0, 1e-13, 2e-12, float("inf"),
               float("-inf"), float("nan"), "10", [10], None, True]
    lines = ["prelude", "import SpecGuard.Core", "import SpecGuard.Value", "open SpecGuard"]
    want = []
    for lo, hi in bounds:
        p = Pred("returns", ("near", emit.vals._num_class(lo), emit.vals._num_class(hi)))
        for x in samples:
            o = Outcome(cls=canon(from_python(x)))
            b = emit.eval_pred(p, o)
            want.append(b)
            lines.append(f"theorem c{len(want)} : Eq ({p.lean()} {o.lean()}) {'Bool.true' if b else 'Bool.false'} "
                         f":= Eq.refl _")
    res = lean_runner.check_text("\n".join(lines) + "\n", timeout=120)
    assert res.ok, [m.text[:200] for m in res.errors[:3]]
    assert True in want and False in want


def test_raises_refutes_only_returns_never_if_returns():
    """#11.13: the new raises-vs-returns refutation pairs `raises` only with a `returns` clause
    (the call returned), never with `ifReturns` (a universal type or bound, which raising
    satisfies), nor with another `raises`."""
    from specguard.kernel.prove import _refutes
    mk = lambda p, k="K": emit.Clause(name="X", key=k, pred=p, input_id=k)  # noqa: E731
    raises, returns = mk(Pred("raises")), mk(Pred("returns", ("any",)))
    assert _refutes(raises, returns) and _refutes(returns, raises)
    assert not _refutes(raises, mk(Pred("ifReturns", ("type", ("int",))), None))
    assert not _refutes(raises, mk(Pred("raises")))


def test_derived_assumptions_match_check(tmp_path, core):
    """#11.14: `check.derived_assumptions` (pure, for `verify --inputs`) states the same
    restated assumptions as `check` wrote into result.json."""
    from specguard import load
    from specguard.check import derived_assumptions
    code, r = check(tmp_path, 'def collect(x, acc=[]):\n    """Append x to acc and return it."""\n',
                    "from m import collect\n\ndef test_a():\n    assert collect(1) == [1]\n")
    task = load.load_from_parts(str(tmp_path / "desc.py"), [str(tmp_path / "test_task.py")])
    assert derived_assumptions(task) == tuple(r["assumptions"])


def _task(desc: str, tests: str = "", entry: str | None = None):
    from specguard.models import Task, TestSource
    return Task(id="t", description=desc, entry_point=entry,
                tests=(TestSource(kind="python", path="test_t.py", text=tests),) if tests else ())


@pytest.mark.parametrize("desc, entry, needle", [
    ("def f(x, acc=[]):\n    ...\n", "f", "acc=[]"),
    ("def f(x, *, seen=set()):\n    ...\n", "f", "seen=set()"),
    ("```python\ndef f(x, log={}):\n```\n", "f", "log={}"),
    ("n = 0\ndef f(x):\n    global n\n    n += 1\n", "f", "global n"),
    ("def make():\n    c = 0\n    def f():\n        nonlocal c\n        c += 1\n        return c\n    return f\n", "f",
     "nonlocal c"),
    ("_seen = set()\ndef f(x):\n    return x in _seen\n", "f", "_seen"),
    ("class Bank:\n    total = 0\n    def f(self, x):\n        ...\n", "f", "Bank.total"),
    ("def f(x):\n    f.calls = 1\n", "f", "f.calls"),
    ("import random\ndef f(x):\n    ...\n", "f", "random"),
    ("Return how many times f was called so far; each call increments the counter.", "f", "each call"),
    ("The result is cached: later calls return the first answer.", "f", "cached"),
    ("It remembers every value it has seen.", "f", "remembers"),
])
def test_documented_state_signals(desc, entry, needle):
    """#11.14: each documented-state signal (mutable default, global/nonlocal, module-level
    mutable value, class attribute, function attribute, nondeterministic import, words) is seen."""
    from specguard.formalize.assumptions import documented_state
    why = documented_state(_task(desc, entry=entry), entry)
    assert why is not None and needle in why, why


@pytest.mark.parametrize("desc", [
    "def f(x: int) -> int:\n    \"\"\"Return x squared, modulo 10**9 + 7.\"\"\"\n",
    "MOD = 10**9 + 7\ndef f(x, acc=None):\n    return x % MOD\n",
    "Given N dice, each shows a random integer; choose a and b uniformly at random. Return the count.",
    "Rotate the board counter-clockwise and return the state of the board.",
])
def test_no_state_without_a_signal(desc):
    """#11.14: constants, `acc=None`, probability prose ("at random"), "counter-clockwise" and
    "the state of the board" are not documented state (LCB tasks keep their certificates)."""
    from specguard.formalize.assumptions import documented_state
    assert documented_state(_task(desc, entry="f"), "f") is None


@pytest.mark.parametrize("desc, tests, target, needle", [
    ("class Point:\n    ...\n", "", "Point", "class Point"),
    ("def f(n) -> Fraction:\n    ...\n", "", "f", "Fraction"),
    ("def f(n) -> 'Optional[Point]':\n    ...\n", "", "f", "Point"),
    ("def f(n) -> Iterator[int]:\n    ...\n", "", "f", "Iterator"),
    ("def f(n):\n    yield n\n", "", "f", "generator"),
    ("f(n) returns a new Vector object.", "", "f", "Vector object"),
    (">>> f(1)\nPoint(x=1, y=2)\n", "", "f", "repr"),
    (">>> f(1)\n<__main__.Point object at 0x7f>\n", "", "f", "repr"),
    ("Objects define __eq__.", "", "f", "__eq__"),
    ("", "from m import f\ndef test():\n    assert isinstance(f(1), f)\n", "f", "isinstance"),
    ("", "from m import f\ndef test():\n    p = f(1)\n    assert p.x == 1\n", "f", ".x"),
    ("", "from m import f\ndef test():\n    assert f.origin == 0\n", "f", "f.origin"),
    ("", "from m import f\nclass G(f):\n    pass\n", "f", "subclass"),
    ("", "", "LRUCache", "CapWords"),
])
def test_object_result_signals(desc, tests, target, needle):
    """#11.13: each sign that results may be objects (class, non-plain annotation, generator,
    prose, object reprs, __eq__, class use in the tests, CapWords) is seen."""
    from specguard.formalize.assumptions import object_results
    from specguard.models import DescFormalization
    why = object_results(_task(desc or "Compute it.", tests), DescFormalization(), {target}).get(target)
    assert why is not None and needle in why, why


@pytest.mark.parametrize("desc, tests", [
    ("def f(n: int) -> list[int]:\n    \"\"\"Return the digits.\"\"\"\n", "from m import f\ndef test():\n"
     "    assert f(12) == [1, 2]\n    assert f(12).count(1) == 1\n"),
    ("class Solution:\n    def f(self, n: int) -> int:\n        ...\n", ""),
    ("class TreeNode:\n    ...\n\ndef f(root: TreeNode) -> int:\n    ...\n", ""),
])
def test_plain_results_stay_plain(desc, tests):
    """#11.13: plain annotations, methods of plain values (`.count`), a LeetCode container class
    and a class used only as a parameter type do not make the result an object."""
    from specguard.formalize.assumptions import object_results
    from specguard.models import DescFormalization
    assert object_results(_task(desc, tests), DescFormalization(), {"f"}) == {}


def test_verify_rederives_the_new_clauses(tmp_path, core):
    """#11.13/#11.15: bundles whose tests hold an `approx` enclosure, or an object result read as
    'returns' (refuted by a raise: a case split in the certificate), are VALID under `verify
    --inputs`: the trusted files are re-derived byte for byte and the kernel accepts the proof."""
    env = dict(os.environ, PYTHONPATH=str(ROOT))
    cases = [(SQUARE, "import pytest\nfrom m import square\n\n"
                      "def test_a():\n    assert square(3) == pytest.approx(9.5)\n", "Bool.and (Val.cmp 3 v"),
             ("class Point:\n    ...\n", "import pytest\nfrom m import Point\n\n"
              "def test_b():\n    assert Point(1, 2) == (1, 2)\n\n"
              "def test_c():\n    with pytest.raises(TypeError):\n        Point(1, 2)\n", "(fun _ => Bool.true)")]
    for i, (desc, tests, needle) in enumerate(cases):
        d = tmp_path / str(i)
        d.mkdir()
        code, r = check(d, desc, tests)
        assert code == 1 and certified_conflict(r)
        assert needle in (d / "out" / "tests.lean").read_text()
        p = subprocess.run([sys.executable, "-m", "specguard", "verify", str(d / "out"), "--inputs",
                            str(d / "desc.py"), str(d / "test_task.py")],
                           capture_output=True, text=True, cwd=d, env=env)
        assert p.returncode == 0 and p.stdout.startswith("VALID"), p.stdout + p.stderr


@pytest.mark.parametrize("desc", [
    "Both f(1) == (1,) and f(1) == [1] hold: a Wrapper compares equal to tuples and lists.",
    ">>> f(1) == (1,)\nTrue\n>>> f(1) == [1]\nTrue\n",
    "f(1, 'a') == ('a',) and also f(1, 'a') == 'a'.",
])
def test_one_call_equal_to_several_types_in_prose(desc):
    """#11.13: the description states one call == values of different types, in prose or doctests."""
    from specguard.formalize.assumptions import object_results
    from specguard.models import DescFormalization
    why = object_results(_task(desc), DescFormalization(), {"f"}).get("f")
    assert why is not None and "different types" in why, why


@pytest.mark.parametrize("text", ["`" * 20000, "f(" * 20000, "f(1) returns " * 20000, "f(1) == " * 20000,
                                  "> * ` " * 20000])
def test_pathological_prose_is_read_in_bounded_time(text):
    """#11.18/#11.21: a description line of 20 000 backticks (a nested-quantifier regex backtracked for
    hours), or of thousands of calls of the entry point on one line (each call scanned the whole line:
    quadratic, minutes), is read in well under a few seconds, without a claim."""
    import time
    from specguard.formalize.description import formalize_description
    from specguard.formalize import assumptions
    t = time.monotonic()
    d = formalize_description("Compute f.\n\n" + text + "\n", path="d.md", entry_point="f")
    assumptions._description_objects("Compute f.\n\n" + text, "f", d)      # the same class-line scan
    assert time.monotonic() - t < 5.0
    assert not [c for c in d.claims if c.kind.value == "example"]
