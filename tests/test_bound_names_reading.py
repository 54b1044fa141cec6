"""Forms of real test suites the reader now reads (#12.1, #12.3, #12.4, #12.8): calls whose
arguments hold lambdas, names bound to such calls, builtin functions held by names, assertion
helpers of the `raises(E, lambda: ...)` kind.  Formalization-level checks, and one real-CLI run
with the real Lean kernel."""

from __future__ import annotations


import pytest
from cli_run import check_files

from specguard.formalize.tests import formalize_tests
from specguard.models import TestSource



def read(tests: str, target: str = "f"):
    tf = formalize_tests([TestSource(kind="python", path="test_t.py", text=tests)], target)
    return ({d.text: (d.call.source(), d.expect.source()) for d in tf.demands},
            {u.text: u.reason for u in tf.unsupported}, tf)


def check(tmp_path, desc: str, tests: str):
    """``specguard check --json`` (tests/cli_run.py): the result."""
    return check_files(tmp_path, desc, tests)[1]


def test_a_lambda_argument_does_not_hide_the_call():
    """#12.4: `list(f('xooxoo', lambda c: c == 'x')) == v` and `actual = list(f(.., lambda ..))`
    are read (the lambda is an argument, a named constant; the call does not depend on its
    parameter); a call inside a lambda that uses the lambda's parameter is still not read."""
    d, u, _ = read("from m import f\n\ndef test_a():\n"
                   "    actual = list(f('xox', lambda c: c == 'x'))\n"
                   "    assert actual == [['x', 'o'], ['x']]\n"
                   "    assert list(f('xx', lambda c: c == 'x')) == [['x'], ['x']]\n"
                   "    assert all(f(c, len) for c in 'ab')\n")
    assert d["assert actual == [['x', 'o'], ['x']]"][1] == "satisfies `list(result) == [['x', 'o'], ['x']]`"
    assert d["assert list(f('xx', lambda c: c == 'x')) == [['x'], ['x']]"][0].startswith("f('xx', <lambda")
    assert "comprehension or lambda" in u["assert all(f(c, len) for c in 'ab')"]


@pytest.mark.lean
def test_lambda_arguments_are_distinct_constants_builtins_shared(tmp_path, core):
    """#12.4: two evaluations of the same lambda text are two functions (no conflict between
    them); a builtin passed by name is the same function as in the docstring: a certified conflict
    with the example, through a name bound to `list(f(1, len))`."""
    r = check(tmp_path, "Split.\n\n>>> list(f(1, len))\n[1]\n",
              "from m import f\n\ndef test_a():\n    assert list(f(1, lambda c: c)) == [1]\n\n"
              "def test_b():\n    assert list(f(1, lambda c: c)) == [2]\n\n"
              "def test_c():\n    actual = list(f(1, len))\n    assert actual == [3]\n")
    assert r["verdict"] == "conflict" and r["evidence"] == "certified"
    st = {t["text"]: t["status"] for t in r["tests"]}
    assert st["assert actual == [3]"] == "contradicted"
    assert st["assert list(f(1, lambda c: c)) == [1]"] == st["assert list(f(1, lambda c: c)) == [2]"] == "left-open"
    assert r["coverage"]["assertions_read"] == r["coverage"]["assertions_total"] == 3


def test_raises_helpers_are_read_as_raises():
    """#12.1: a test-module `raises(err, fn)` of the toolz form, an imported `raises` (under a
    stated assumption), and an `assert_raises(err, fn)` statement helper whose `else:` fails all
    give the `raises` demand; `list(...)` in the lambda is the iterated form."""
    d, u, tf = read("from toolz.utils import raises\nfrom m import f\n\n"
                    "def raises2(err, lamda):\n    try:\n        lamda()\n        return False\n"
                    "    except err:\n        return True\n\n"
                    "def assert_raises(err, g):\n    try:\n        g()\n    except err:\n        pass\n"
                    "    else:\n        raise AssertionError('no')\n\n"
                    "def test_a():\n    assert raises(IndexError, lambda: f(10, 'ABC'))\n"
                    "    assert raises2(KeyError, lambda: f(10, {'a': 1}))\n"
                    "    assert_raises(TypeError, lambda: f({}, [1]))\n"
                    "    assert raises(TypeError, lambda: list(f([1], 2)))\n")
    assert d["assert raises(IndexError, lambda: f(10, 'ABC'))"] == ("f(10, 'ABC')", "raises IndexError")
    assert d["assert raises2(KeyError, lambda: f(10, {'a': 1}))"] == ("f(10, {'a': 1})", "raises KeyError")
    assert d["assert_raises(TypeError, lambda: f({}, [1]))"] == ("f({}, [1])", "raises TypeError")
    assert d["assert raises(TypeError, lambda: list(f([1], 2)))"][0] == "f([1], 2)"
    assert not u and tf.assertions_read == tf.assertions_total
    assert tf.assumptions == (
        "the imported test helper `raises` (`toolz.utils.raises`, whose code is not part of the task) is "
        "`try: fn(); return False` / `except err: return True`: `assert raises(E, fn)` is read as `fn()` raising E",)


def test_builtin_functions_held_by_names_are_called():
    """#12.4: `D = dict` as a class constant read through `D, kw = self.D, self.kw`, or a local
    `D = dict`: `D({1: 2})` is `dict({1: 2})`, an exact argument."""
    d, u, _ = read("from m import f\n\nclass TestDict:\n    D = dict\n\n"
                   "    def test_a(self):\n        D, n = self.D, 2\n        assert f(D({1: n})) == D({1: 3})\n\n"
                   "def test_b():\n    L = list\n    assert f(L('ab')) == 1\n")
    call, expect = d["assert f(D({1: n})) == D({1: 3})"]
    assert call == "f({1: 2})" and expect in ("== {1: 3}", "satisfies `result == {1: 3}`")
    assert d["assert f(L('ab')) == 1"] == ("f(['a', 'b'])", "== 1")
    assert not u


def test_pure_stdlib_calls_keep_a_held_result():
    """#12.2: a pure stdlib call the evaluator knows (`sorted(set(permutations(xs)))`) does not
    drop `actual = list(f(...))`, and its value, a new container of immutable items, shares no
    object with `xs`."""
    d, u, _ = read("from itertools import permutations\nfrom m import f\n\ndef test_a():\n"
                   "    actual = list(f([1, 2], r=2))\n    expected = sorted(set(permutations([1, 2], r=2)))\n"
                   "    assert actual == expected\n"
                   "    xs = [3, 4]\n    e2 = sorted(permutations(xs))\n    assert f(xs) == e2\n")
    assert d["assert actual == expected"] == ("f([1, 2], r=2)", "satisfies `list(result) == [(1, 2), (2, 1)]`")
    assert d["assert f(xs) == e2"] == ("f([3, 4])", "== [(3, 4), (4, 3)]")
    assert not u


def test_math_prod_of_ints_is_exact():
    """#12.1: `math.prod` of ints is an exact expected value (the stdlib functions live in
    specguard/python/stdlib.py); of floats it is not evaluated."""
    d, u, _ = read("from math import prod, factorial\nfrom m import f\n\ndef test_a():\n"
                   "    assert f(1) == factorial(sum([5, 2])) // prod([5, 2])\n"
                   "    assert f(2) == prod([2.0, 3])\n")
    assert d["assert f(1) == factorial(sum([5, 2])) // prod([5, 2])"] == ("f(1)", "== 504")
    assert "assert f(2) == prod([2.0, 3])" in u


def test_class_dict_only_unpacked_is_read():
    """#12.1: toolz's `D = dict; kw = {}` class constants read through `D, kw = self.D, self.kw`:
    `f(D({1: 1}), **kw)` is `f({1: 1})` in every assertion (`**kw` gives the callee a new dict)."""
    d, u, _ = read("from m import f\n\nclass TestDict:\n    D = dict\n    kw = {}\n\n"
                   "    def test_a(self):\n        D, kw = self.D, self.kw\n"
                   "        assert f(D({1: 1}), **kw) == D({1: 2})\n        assert f(D({2: 1}), **kw) == D({2: 2})\n")
    assert [c for c, _ in d.values()] == ["f({1: 1})", "f({2: 1})"]
    assert not u


def test_builtin_functions_inside_argument_containers():
    """#12.4: `f(2, (add, 5), double)` (toolz's thread_first): `operator.add` inside a tuple is the
    named constant of the builtin, `double` a test-module function at the top level."""
    d, u, _ = read("from operator import add\nfrom m import f\n\ndef double(x):\n    return 2 * x\n\n"
                   "def test_a():\n    assert f(2, (add, 5), double) == 14\n    assert f(2, [len]) == 1\n")
    assert d["assert f(2, (add, 5), double) == 14"] == ("f(2, (add, 5), double)", "== 14")
    assert d["assert f(2, [len]) == 1"] == ("f(2, [len])", "== 1")


def test_loops_over_copied_stdlib_iterators_and_starred_arguments():
    """#12.1, #12.3: `for i, e in enumerate(product(*iterables))` iterates a new object (product
    copies its inputs when built), so every iteration is read; `f(i, *iterables)` hands f a new
    tuple of the list's immutable items, so `iterables` keeps its value."""
    _, u, tf = read("from itertools import product\nfrom m import f\n\ndef test_a():\n"
                    "    iterables = ['ab', 'cd']\n    for index, expected in enumerate(product(*iterables)):\n"
                    "        actual = f(index, *iterables)\n        assert actual == expected\n")
    assert [(d.call.source(), d.expect.source()) for d in tf.demands] == [
        ("f(0, 'ab', 'cd')", "== ('a', 'c')"), ("f(1, 'ab', 'cd')", "== ('a', 'd')"),
        ("f(2, 'ab', 'cd')", "== ('b', 'c')"), ("f(3, 'ab', 'cd')", "== ('b', 'd')")]
    assert not u
