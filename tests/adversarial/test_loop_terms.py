"""Loops over a result of the function under test and generator-expression arguments (#12.2, #12.3,
#12.7): ``for p in f(x): assert P(p)`` is one assertion ``all(P(p) for p in f(x))`` over that term
(specguard/python/loops.py); a generator expression over exact values is an input of its own
(specguard/python/literals.py ``ev_GeneratorExp``).  The traps are loops and arguments whose naive
reading would certify a false conflict."""

from __future__ import annotations

import os
import subprocess
import sys

import pytest
from cli_run import ROOT, check_files

pytestmark = pytest.mark.lean


def by_text(r) -> dict:
    return {t["text"]: t["status"] for t in r["tests"]}


def unsupported(r) -> dict:
    return {u["loc"]["line"]: u["reason"] for u in r["unsupported"]}


POSITIVE_DESC = ("Pairs.\n\n>>> list(f([1, 2, 3]))\n[[1, 2], [3]]\n>>> list(f([4]))\n[4]\n")
POSITIVE_TESTS = """\
import unittest
from m import f

def test_items_too_long():
    for p in f([1, 2, 3]):
        assert len(p) <= 1

class T(unittest.TestCase):
    def test_bounds(self):
        for p in f([1, 2, 3]):
            n = len(p)
            self.assertLessEqual(n, 2)
            self.assertGreaterEqual(n, 1)

    def test_subtests(self):
        for i, p in enumerate(f([1, 2, 3])):
            with self.subTest(i=i):
                self.assertEqual(len(p), 2 - i)

def test_assignment_raises():
    for p in f([4]):
        n = len(p)
        assert True
"""


def test_loop_over_result_against_doctest_is_certified_and_verified(tmp_path, core):
    """#12.2: `for p in f([1, 2, 3]): assert len(p) <= 1` against a doctest `list(f([1, 2, 3]))`
    -> `[[1, 2], [3]]` is a certified conflict, and `verify` with the inputs says VALID (the claim
    re-derived).  A body's local assignment is inlined and stays evaluated where it stands (`[len(p)]`
    in the conjunction: an assignment that raises fails the loop; the spec language reads an error
    of an observation as a weaker "holds", never entailed); the loops whose bounds hold (one through
    `with self.subTest(...)`, whose block is read as its statements) stay open.
    Every assertion of the bodies counts as read."""
    rc, r = check_files(tmp_path, POSITIVE_DESC, POSITIVE_TESTS)
    assert rc == 1 and r["verdict"] == "conflict" and r["evidence"] == "certified", r["reason"]
    st = by_text(r)
    assert st["for p in f([1, 2, 3]): assert len(p) <= 1"] == "contradicted"
    stmt = {t["text"]: t["statement"] for t in r["tests"]}["for p in f([4]): n = len(p) assert True"]
    assert "[len(p)] and True for p in result" in stmt      # the assignment stays evaluated
    assert [s for t, s in st.items() if "assertLessEqual" in t] == ["left-open"]
    assert [s for t, s in st.items() if "subTest" in t] == ["left-open"]
    assert r["coverage"]["assertions_read"] == r["coverage"]["assertions_total"] == 5
    env = dict(os.environ, PYTHONPATH=str(ROOT))
    p = subprocess.run([sys.executable, "-m", "specguard", "verify", "out", "--inputs", "description.md",
                        "test_task.py"], capture_output=True, text=True, cwd=tmp_path, env=env)
    assert p.returncode == 0 and p.stdout.startswith("VALID"), p.stdout + p.stderr


TRAP_DESC = "Items.\n\n>>> list(f(1))\n[1, 2]\n>>> list(f(0))\n[]\n"
TRAP_TESTS = """\
from m import f

def test_break():
    for p in f(1):
        assert p == 1
        break

def test_empty():
    for p in f(0):
        assert p == 99

def test_consumed_before():
    r = f(1)
    assert list(r) == [1, 2]
    for p in r:
        assert p == 99

def test_consumed_by_loop():
    r = f(1)
    for p in r:
        assert p > 0
    for p in r:
        assert p == 99

def test_body_reads_iterable():
    r = f(1)
    for p in r:
        assert p not in r

def test_conditional_body():
    for p in f(1):
        if p > 5:
            assert p == 99

def test_read_before_assigned():
    n = 0
    for p in f(1):
        assert n < 9
        n = p * 5

def test_identity():
    for p in f(1):
        q = [p]
        assert q is not q
"""


def test_loop_traps_are_not_conflicts(tmp_path, core):
    """#12.2/#12.7: against `list(f(1))` -> `[1, 2]` and `list(f(0))` -> `[]`, each of these loops
    passes for some implementation, so none is a conflict: a `break` after the first item (refused
    with its reason); an empty iterable (read: `all` over nothing holds); a result iterator consumed
    by `list(r)` or by an earlier loop before the loop (an iterator's second reading is empty: refused);
    a body that reads its iterable again (`p not in r` advances a generator: refused); an `if` in the
    body (refused); a name read before the body assigns it (the first item sees the outer value:
    refused); `is` on an inlined value (refused)."""
    rc, r = check_files(tmp_path, TRAP_DESC, TRAP_TESTS)
    assert r["verdict"] != "conflict", r["reason"]
    assert all(s != "contradicted" for s in by_text(r).values())
    assert "for p in f(0): assert p == 99" in by_text(r)
    u = unsupported(r)
    assert "`break`" in u[5]
    assert "consumed" in u[16] and "consumed" in u[23]
    assert "uses its iterable `r`" in u[28]
    assert "not an assertion" in u[33]
    assert "before assigning" in u[38]
    assert "`is`" in u[44]


GEN_DESC = "Kind of the argument.\n\n>>> f([0, 1])\n'list'\n"
GEN_TESTS = """\
from m import f

def test_gen():
    assert f(x for x in [0, 1]) == 'gen'

def test_iter():
    assert f(iter([0, 1])) == 'it'

def test_gen_elsewhere():
    assert f(x for x in [0, 1]) == 'a'

def test_bound():
    g = (x for x in range(2))
    assert f(g) == 'b'

def test_late_name():
    k = 1
    assert f(x + k for x in [0]) == 'c'
"""


def test_generator_arguments_are_inputs_of_their_own(tmp_path, core):
    """#12.3: a generator expression over exact values is read as an argument, but never as the
    list it yields, an `iter([...])` over it, or a generator written at another place (`type(g)`,
    `g.gi_code.co_firstlineno` tell them apart): `f([0, 1]) == 'list'`, `f(iter([0, 1])) == 'it'`,
    `f(x for x in [0, 1]) == 'gen'` and the same text at another line `== 'a'` are all satisfiable
    together.  A generator reading another name when iterated (`x + k`) is refused."""
    rc, r = check_files(tmp_path, GEN_DESC, GEN_TESTS)
    assert r["verdict"] != "conflict", r["reason"]
    assert all(s != "contradicted" for s in by_text(r).values())
    assert r["coverage"]["assertions_read"] == 4
    assert "reads `k` when it is iterated" in unsupported(r)[18]


def test_same_generator_site_twice_is_a_conflict(tmp_path, core):
    """#12.3: the same generator expression evaluated twice with the same values (an unrolled loop)
    is the same input (same code, same first iterable, same items): expecting `'a'` and `'b'` from
    it is a certified conflict."""
    tests = "from m import f\n\ndef test_same_site():\n    for want in ['a', 'b']:\n" \
            "        assert f(x for x in [0, 1]) == want\n"
    rc, r = check_files(tmp_path, GEN_DESC, tests)
    assert rc == 1 and r["verdict"] == "conflict" and r["evidence"] == "certified", r["reason"]


def test_unrolled_items_sharing_a_changed_object_are_not_their_first_value(tmp_path, core):
    """#12 (reallib, more-itertools `for n, expected in [(1, [iterable]), (2, [[1, 3]])]`): a loop over
    a fresh display whose body uses or changes the names in it is unrolled; an item holding an object
    of a name (`(2, xs)`) is that object as it is at its iteration, so once an earlier iteration may
    have changed `xs` the item is not the value computed before the loop (`[1]`; Python sees
    `[1, 1, 2]`): no false conflict with the doctest `f(2)` -> `[1, 1, 2]`.  Items reaching no
    changed object stay exact (`(2, [[5]])` conflicts with `f(2)` -> `[[6]]`, certified)."""
    desc = "Items.\n\n>>> f(2)\n[1, 1, 2]\n"
    tests = ("from m import f\n\ndef test_a():\n    xs = [1]\n    for n, e in [(1, 'x'), (2, xs)]:\n"
             "        xs.append(n)\n        assert f(n) == e\n")
    rc, r = check_files(tmp_path, desc, tests)
    assert r["verdict"] != "conflict", r["reason"]
    assert "`e` is not a literal" in unsupported(r)[7], unsupported(r)
    desc = "Items.\n\n>>> f(2)\n[[6]]\n"
    tests = ("from m import f\n\ndef test_a():\n    xs = [1]\n    for n, e in [(1, [xs]), (2, [[5]])]:\n"
             "        assert f(n) == e\n        xs.append(n)\n")
    rc, r = check_files(tmp_path, desc, tests)
    assert r["verdict"] == "conflict" and r["evidence"] == "certified", r["reason"]
