"""Observation terms (#12.2, #12.3, #12.5): assertions that transform the result before comparing
it.  Each case here would have been a false certificate without the guards of
``speclang.compile_observation`` (the class representative is not the Python value)."""

from __future__ import annotations


import pytest
from cli_run import check_files

pytestmark = pytest.mark.lean


def check(tmp_path, desc: str, tests: str):
    """``specguard check --json`` (tests/cli_run.py): (exit code, result)."""
    return check_files(tmp_path, desc, tests)


def by_text(r) -> dict:
    return {t["text"]: t for t in r["tests"]}


def unsupported(r) -> dict:
    return {u["text"]: u["reason"] for u in r["unsupported"]}


def test_order_and_float_guards(tmp_path, core):
    """#12.2: `list(f(x)) == [2, 1]` (and a comprehension over it) against a doctest
    `f(x)` -> `{1: 'a', 2: 'b'}` is not a conflict (a dict built in the other order); `f(x) + 1 ==
    2**60` against `f(x)` -> `2**60` is not one either (a float result of that value rounds the
    sum); `sum(f(x)) == 2**60` against `[2**60, 1]` likewise."""
    big = 2 ** 60
    desc = (f"Items.\n\n>>> f(1)\n{{1: 'a', 2: 'b'}}\n>>> f(3)\n{big}\n>>> f(4)\n[{big}, 1]\n")
    tests = ("from m import f\n\n"
             "def test_a():\n    assert list(f(1)) == [2, 1]\n\n"
             "def test_b():\n    assert [k for k in f(1)] == [2, 1]\n\n"
             f"def test_c():\n    assert f(3) + 1 == {big}\n\n"
             f"def test_d():\n    assert sum(f(4)) == {big}\n")
    rc, r = check(tmp_path, desc, tests)
    assert r["verdict"] != "conflict", r["reason"]
    st = by_text(r)
    assert all(t["status"] != "contradicted" for t in st.values())
    assert r["coverage"]["assertions_read"] == 4


def test_printed_forms_and_identity_are_unsupported(tmp_path, core):
    """#12.2: `str(f(x)) == '1.0'` against a doctest `f(x)` -> `1` is not a conflict (str of 1.0);
    `f(x)[0] is True`, `repr(...)` are unsupported with the reason; `type(f(x)) == float` is read
    only as isinstance (#12.2, tests/adversarial/test_named_terms.py), which 1 satisfies."""
    desc = "Items.\n\n>>> f(2)\n1\n>>> f(5)\n[1]\n"
    tests = ("from m import f\n\n"
             "def test_a():\n    assert str(f(2)) == '1.0'\n\n"
             "def test_b():\n    assert f(5)[0] is True\n\n"
             "def test_c():\n    assert repr(f(5)) == '[True]'\n\n"
             "def test_d():\n    assert type(f(2)) == float\n")
    rc, r = check(tmp_path, desc, tests)
    assert r["verdict"] != "conflict", r["reason"]
    u = unsupported(r)
    assert "str()" in u["assert str(f(2)) == '1.0'"]
    assert "`is`" in u["assert f(5)[0] is True"]
    assert "repr()" in u["assert repr(f(5)) == '[True]'"]
    assert "assert type(f(2)) == float" not in u
    assert {t["text"]: t["status"] for t in r["tests"]}["assert type(f(2)) == float"] != "contradicted"


def test_mutated_argument_and_two_calls(tmp_path, core):
    """#12.2: `sorted(f(xs)) == xs` may compare with xs as f changed it (unsupported, not read as
    the literal written before the call); the same call twice with a mutable argument too (the
    first call may change it).  (Two different calls in one assertion, `f(1)[0] == f(2)[0]`, were
    unsupported here; they are read now, one clause over both calls:
    tests/adversarial/test_cross_input_clauses.py.)"""
    desc = "Items.\n\n>>> f([3, 1])\n[5]\n>>> f(1)\n[1]\n>>> f(2)\n[2]\n"
    tests = ("from m import f\n\n"
             "def test_a():\n    xs = [3, 1]\n    assert sorted(f(xs)) == xs\n\n"
             "def test_c():\n    xs = [3, 1]\n    assert f(xs)[0] == 5 and len(f(xs)) == 9\n")
    rc, r = check(tmp_path, desc, tests)
    u = unsupported(r)
    assert any("share a mutable object" in why for why in u.values()), u
    assert r["verdict"] != "conflict", r["reason"]


def test_doctest_print_and_str_are_not_read(tmp_path, core):
    """#12.2 (description side): `>>> print(sorted(f(x)))` shows str() and is not read as an
    observation; `>>> str(f(x))` is refused; neither gives a conflict with a float-valued test."""
    desc = "Items.\n\n>>> print(sorted(f(3)))\n[1, 3]\n>>> str(f(4))\n'1'\n"
    tests = "from m import f\n\ndef test_a():\n    assert f(3) == [3.0, 2]\n\ndef test_b():\n    assert f(4) == 1.0\n"
    rc, r = check(tmp_path, desc, tests)
    assert r["verdict"] != "conflict", r["reason"]
    assert r["coverage"]["examples_read"] == 0


def test_consumed_iterator_is_not_the_list_of_a_fresh_call(tmp_path, core):
    """#12.3: `r = f(x)`, `assert list(r) == [1]`, `assert list(r) == []` passes for an iterator
    (the second reading sees it consumed): with a doctest `>>> list(f(x))` / `[1]` the task must
    not be certified as conflicting (the list(f(...)) model needs fresh calls)."""
    desc = "Items.\n\n>>> list(f(1))\n[1]\n"
    tests = "from m import f\n\ndef test_a():\n    r = f(1)\n    assert list(r) == [1]\n    assert list(r) == []\n"
    rc, r = check(tmp_path, desc, tests)
    assert r["verdict"] != "conflict", r["reason"]


def test_in_on_a_str_result_is_not_membership_in_its_list(tmp_path, core):
    """#12.3: `'ab' in f(x)` is a substring test on a str result: it keeps f (not list(f(...))), so
    with `list(f(x)) == ['a', 'b']` nothing conflicts (f may return 'ab')."""
    desc = "Items.\n\n>>> list(f(1))\n['a', 'b']\n"
    tests = "from m import f\n\ndef test_a():\n    assert 'ab' in f(1)\n"
    rc, r = check(tmp_path, desc, tests)
    assert r["verdict"] != "conflict", r["reason"]


def test_assert_almost_equal_places_is_a_noted_enclosure(tmp_path, core):
    """#12.5: `assertAlmostEqual(f(x), 0.5)` (round(a - b, 7) == 0) is kept as an enclosure, never
    an exact reading: a doctest `f(x)` -> `0.50000001` (within 0.5e-7) is no conflict, `0.5000001`
    is one, and the note says the reading is a weakening."""
    desc = "Half.\n\n>>> f(1)\n0.50000001\n>>> f(2)\n0.5000001\n"
    tests = ("import unittest\nfrom m import f\n\nclass T(unittest.TestCase):\n"
             "    def test_a(self):\n        self.assertAlmostEqual(f(1), 0.5)\n\n"
             "    def test_b(self):\n        self.assertAlmostEqual(f(2), 0.5)\n")
    rc, r = check(tmp_path, desc, tests)
    st = {t["text"]: t["status"] for t in r["tests"]}
    assert st["self.assertAlmostEqual(f(1), 0.5)"] != "contradicted"
    assert st["self.assertAlmostEqual(f(2), 0.5)"] == "contradicted"
    assert any("exact rational enclosures" in n for n in r["notes"])


def test_range_and_iterator_arguments_are_their_own_inputs(tmp_path, core):
    """#12.3 (arguments): `range(4)` is not the list `[0, 1, 2, 3]` (f can tell them apart), nor
    `iter([1, 2])` the list or `iter((1, 2))`; an iterator passed once is consumed, so a second
    call with the same name is not the same input.  None of these may be a certified conflict."""
    desc = "Sum.\n\n>>> f(range(4))\n6\n>>> f(iter([1, 2]))\n3\n"
    tests = ("from m import f\n\n"
             "def test_a():\n    assert f([0, 1, 2, 3]) == 7\n    assert f(range(1, 4)) == 7\n\n"
             "def test_b():\n    assert f([1, 2]) == 4\n    assert f(iter((1, 2))) == 4\n\n"
             "def test_c():\n    it = iter([1, 2])\n    assert f(it) == 3\n    assert f(it) == 0\n")
    rc, r = check(tmp_path, desc, tests)
    assert r["verdict"] != "conflict", r["reason"]
    assert any("may have been mutated" in u["reason"] for u in r["unsupported"])


def test_assert_count_equal_is_a_multiset_comparison(tmp_path, core):
    """#12 (reallib, more-itertools `assertCountEqual(actual, set(permutations(...)))`): read as the
    counts of the expected value's ==-classes plus the length, so any order passes (`['ba', 'ab']`
    against `['ab', 'ba']` is no conflict), `1 == 1.0 == True` are one class (`[1, True]` counts
    two of it), and a different multiset (`['ab', 'ab']`) is a certified conflict."""
    desc = "Words.\n\n>>> f('ab')\n['ba', 'ab']\n>>> f(2)\n[1, 1]\n"
    tests = ("import unittest\nfrom m import f\n\nclass T(unittest.TestCase):\n"
             "    def test_a(self):\n        self.assertCountEqual(f('ab'), ['ab', 'ba'])\n"
             "    def test_b(self):\n        self.assertCountEqual(f(2), [True, 1])\n"
             "    def test_c(self):\n        self.assertCountEqual(f(2), {1})\n")
    rc, r = check(tmp_path, desc, tests)
    st = by_text(r)
    assert r["coverage"]["assertions_read"] == 3, r["unsupported"]
    assert st["self.assertCountEqual(f('ab'), ['ab', 'ba'])"]["status"] != "contradicted"
    assert st["self.assertCountEqual(f(2), [True, 1])"]["status"] != "contradicted"
    assert r["verdict"] == "conflict" and r["evidence"] == "certified", r["reason"]
    assert "{1}" in r["reason"] or "test_task.py:10" in r["reason"], r["reason"]


def test_assert_count_equal_refusals(tmp_path, core):
    """A NaN expected item (`==` not reflexive), an expected value sharing a list with the call's
    argument (the call may mutate it), and an expected value that is not exact stay unread."""
    tests = ("import unittest\nfrom m import f\n\nclass T(unittest.TestCase):\n"
             "    def test_a(self):\n        self.assertCountEqual(f(1), [float('nan')])\n"
             "    def test_b(self):\n        xs = [[1]]\n        self.assertCountEqual(f(xs), xs)\n"
             "    def test_c(self):\n        self.assertCountEqual(f(3), g())\n")
    rc, r = check(tmp_path, "Items.\n", tests)
    assert r["coverage"]["assertions_read"] == 0 and len(r["unsupported"]) == 3, r["unsupported"]


def test_assert_count_equal_reading_agrees_with_unittest():
    """Differential: for plain values (numbers of three types, strs, tuples, lists, unhashable
    items) the observation `terms.count_equal` builds holds exactly when unittest's
    `assertCountEqual` passes (the expression is evaluated here by CPython, as a check)."""
    import ast
    import itertools
    import unittest

    from specguard.python import terms
    from specguard.python.values import from_python
    pool = [1, 1.0, True, 0, False, "a", "b", (1, "a"), (True, "a"), [1], [1.0], (), None, 2]
    tc = unittest.TestCase()
    seqs = [list(c) for n in range(4) for c in itertools.combinations(pool, n)]
    seqs += [[1, 1], [1, True], ["a", "a", "b"], [[1], [1]], [0, False, 0.0]]
    for second in seqs:
        node = terms.count_equal(ast.Name("result", ast.Load()), ast.Name("second", ast.Load()), from_python(second))
        code = compile(ast.Expression(node), "<obs>", "eval")
        for first in seqs:
            try:
                tc.assertCountEqual(first, second)
                passes = True
            except AssertionError:
                passes = False
            assert eval(code, {"result": first, "second": second}) == passes, (first, second)


def test_float_lists_through_list_are_exact_equalities(tmp_path, core):
    """#12 (reallib, boltons `list(xfrange(5, 0, step=-1.25)) == [5.0, 3.75, 2.5, 1.25]`): floats in
    `list(f(x)) == v` are read only in the list(f(...)) model, as the exact `==` of its result (Python
    compares floats by their exact values: `[1.0]` is the doctest's `[1]`, no conflict; `[2.5]` against
    `[2.25]` is a certified conflict)."""
    desc = "Range.\n\n>>> list(f(1))\n[1]\n"
    tests = ("from m import f\n\ndef test_a():\n    assert list(f(1)) == [1.0]\n"
             "def test_b():\n    assert list(f(2)) == [2.5]\n")
    rc, r = check(tmp_path, desc, tests)
    assert r["verdict"] != "conflict" and r["coverage"]["assertions_read"] == 2, (r["reason"], r["unsupported"])
    tests += "def test_c():\n    assert tuple(f(2)) == (2.25,)\n"
    rc, r = check(tmp_path, desc, tests)
    assert r["verdict"] == "conflict" and r["evidence"] == "certified", r["reason"]


def test_float_lists_are_unread_where_the_result_is_used_directly(tmp_path, core):
    """Where the function's result is also used directly (`f(3) == [1]`), no list model applies and
    the float observations stay unread with the reason (they are not counted as read), as do
    non-finite floats and floats under other operations (`sorted(f(x)) == [1.5]`)."""
    tests = ("from m import f\n\ndef test_a():\n    assert list(f(1)) == [1.5]\n    assert f(3) == [1]\n"
             "def test_b():\n    assert list(f(2)) == [float('inf')]\n    assert sorted(f(2)) == [1.5]\n")
    rc, r = check(tmp_path, "Range.\n", tests)
    assert r["coverage"]["assertions_read"] == 1, r["unsupported"]
    u = unsupported(r)
    assert "through list(...)" in u["assert list(f(1)) == [1.5]"], u
    assert "float" in u["assert list(f(2)) == [float('inf')]"] and "float" in u["assert sorted(f(2)) == [1.5]"], u


def test_float_arithmetic_on_the_result_is_never_inverted_naively(tmp_path, core):
    """#12 (rtgaps): `f(1) / 3 == 0.3333333333333333` is not `f(1) == 1`: the float just below 1.0
    divides to the same float, so a doctest `f(1)` -> `0.9999999999999999` satisfies it (a naive
    inversion would certify a false conflict); `f(2) + 0.2 == 0.3` against `f(2)` -> `0.1` is a
    real conflict (0.1 + 0.2 is 0.30000000000000004 in binary64) and `f(3) + 0.2 ==
    0.30000000000000004` against `f(3)` -> `0.1` is entailed."""
    desc = "Values.\n\n>>> f(1)\n0.9999999999999999\n>>> f(3)\n0.1\n"
    tests = ("from m import f\n\n"
             "def test_a():\n    assert f(1) / 3 == 0.3333333333333333\n\n"
             "def test_c():\n    assert f(3) + 0.2 == 0.30000000000000004\n")
    rc, r = check(tmp_path, desc, tests)
    assert r["verdict"] == "no-conflict" and r["evidence"] == "certified", r["reason"]
    assert {t["status"] for t in r["tests"]} == {"entailed"}
    (tmp_path / "b").mkdir()
    rc, r = check(tmp_path / "b", "Values.\n\n>>> f(2)\n0.1\n",
                  "from m import f\n\ndef test_b():\n    assert f(2) + 0.2 == 0.3\n")
    assert r["verdict"] == "conflict" and r["evidence"] == "certified", r["reason"]
