"""Traps for the forms read through names bound by other calls, functions as values and assertion
helpers (#12.1, #12.4, #12.7): each would be a false certificate if the reader took the form for
more than Python establishes."""

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


def test_calls_depending_on_a_lambda_parameter_are_not_one_call():
    """#12.4, #12.7: `f(c)` inside `lambda c: ...` or a comprehension over `c` is one call per item,
    not the call an observation reads; a lambda default or a walrus does not hide that either."""
    _, u, tf = read("from m import f\n\ndef test_a():\n"
                    "    assert all(map(lambda c: f(c) == 1, [1, 2]))\n"
                    "    assert [f(c) for c in (1, 2)] == [1, 1]\n"
                    "    assert all(f(c) == 1 for c in (1, 2))\n"
                    "    assert (lambda c: f(c))(1) == 1\n")
    assert not tf.demands
    assert len(u) == 4


def test_raising_helpers_that_may_pass_without_a_raise_are_not_read():
    """#12.1, #12.7: a helper whose failing statement stands inside the `try` (`except err` may
    catch it: `err` may be `Exception`), one that returns True on both paths, one rebound later,
    a local function of that name, and `assert not raises(...)` give no `raises` demand."""
    d, u, tf = read("from m import f\n\n"
                    "def bad(err, g):\n    try:\n        g()\n        raise AssertionError('no')\n"
                    "    except err:\n        pass\n\n"
                    "def always(err, g):\n    try:\n        g()\n        return True\n    except err:\n"
                    "        return True\n\n"
                    "def twice(err, g):\n    try:\n        g()\n        return False\n    except err:\n"
                    "        return True\n\ntwice = always\n\n"
                    "def test_a():\n    bad(Exception, lambda: f(1))\n\n"
                    "def test_b():\n    assert always(ValueError, lambda: f(2))\n"
                    "    assert twice(ValueError, lambda: f(3))\n\n"
                    "def test_c():\n    def raises(err, g):\n        return True\n"
                    "    assert raises(ValueError, lambda: f(4))\n\n"
                    "def test_d():\n    from toolz.utils import raises\n    assert not raises(ValueError, lambda: f(5))\n")
    assert not [x for x in d.values() if x[1].startswith("raises")], d
    assert tf.assumptions == ()


@pytest.mark.lean
def test_an_always_true_raises_helper_is_no_conflict(tmp_path, core):
    """#12.1: `raises` of the test module returns True whatever its callable does, so
    `assert raises(ValueError, lambda: f(1))` passes with the documented `f(1) == 2`: no conflict
    (read as a raises demand it would be a false certificate); an imported helper named otherwise
    (`check_raises`) is not assumed to be the toolz form."""
    r = check(tmp_path, "Add one.\n\n>>> f(1)\n2\n",
              "from toolz.utils import check_raises\nfrom m import f\n\n"
              "def raises(err, fn):\n    try:\n        fn()\n        return True\n    except err:\n        return True\n\n"
              "def test_a():\n    assert raises(ValueError, lambda: f(1))\n"
              "    assert check_raises(ValueError, lambda: f(1))\n")
    assert r["verdict"] != "conflict", r["reason"]
    assert not any("imported test helper" in a for a in r["assumptions"])


def test_builtin_names_that_may_be_rebound_are_not_the_builtin():
    """#12.4, #12.7: `D = dict` in a class whose file rebinds `dict`, or where another statement
    stores `D` on an object, or a subclass sets `D` to a class of the test file: `D({..})` is not
    `dict({..})`."""
    d, u, _ = read("from m import f\n\ndict = lambda x: x\n\nclass TestA:\n    D = dict\n\n"
                   "    def test_a(self):\n        D = self.D\n        assert f(D({1: 2})) == 1\n")
    assert not d
    d, u, _ = read("from m import f\n\nclass TestA:\n    D = dict\n\n"
                   "    def test_a(self):\n        self.D = list\n        D = self.D\n        assert f(D({1: 2})) == 1\n")
    assert not any(c == "f({1: 2})" for c, _ in d.values())
    d, u, _ = read("from m import f\n\nclass C(dict):\n    pass\n\nclass TestA:\n    D = dict\n\n"
                   "    def test_a(self):\n        D = self.D\n        assert f(D({1: 2})) == 1\n\n"
                   "class TestB(TestA):\n    D = C\n")
    assert list(d.values()).count(("f({1: 2})", "== 1")) <= 1      # TestA's run only, never TestB's


def test_a_result_consumed_by_a_stdlib_call_is_dropped():
    """#12.2, #12.7: `permutations(r)` iterates the result `r` (an iterator, perhaps): a later
    `list(r)` is not `list(f(x))`; an expected value computed from an argument `f` was given (and
    may have mutated) is not read."""
    d, u, _ = read("from itertools import permutations\nfrom m import f\n\ndef test_a():\n"
                   "    r = f([1, 2])\n    e = list(permutations(r))\n    assert list(r) == []\n\n"
                   "def test_b():\n    xs = [1, 2]\n    actual = list(f(xs))\n    expected = sorted(permutations(xs))\n"
                   "    assert actual == expected\n")
    assert not d
    assert len(u) == 2


@pytest.mark.lean
def test_a_shared_class_dict_changed_by_a_test_is_not_empty(tmp_path, core):
    """#12.1, #12.7: `kw = {}` on the test class is one dict for all its tests; an earlier test
    stores into it (`self.kw['b'] = 2`), so `f(**kw)` in a later one is `f(b=2)`, not `f()`:
    against the documented `f()` -> 1, `assert f(**kw) == 2` is no conflict."""
    r = check(tmp_path, "Count.\n\n>>> f()\n1\n",
              "from m import f\n\nclass TestA:\n    kw = {}\n\n"
              "    def test_a(self):\n        self.kw['b'] = 2\n\n"
              "    def test_b(self):\n        kw = self.kw\n        assert f(**kw) == 2\n")
    assert r["verdict"] != "conflict", r["reason"]


def test_class_dicts_that_escape_are_not_read():
    """#12.1, #12.7: a class dict read through a local that is also indexed, passed positionally,
    reached by `getattr`, or holding a mutable value, is not read as its value; a local dict with a
    mutable value passed with `**` may still be changed through that value."""
    base = "from m import f\n\nclass TestA:\n    kw = {KW}\n\n    def test_b(self):\n        kw = self.kw\n" \
           "        assert f(**kw) == 2\n{MORE}"
    for kw, more in (("{}", "        assert kw['a'] == 1\n"), ("{}", "        f(kw)\n"),
                     ("{}", "        getattr(self, 'kw')\n"), ("{'a': [1]}", "")):
        d, u, _ = read(base.replace("{KW}", kw).replace("{MORE}", more))
        assert "assert f(**kw) == 2" not in d, (kw, more)
    d, u, _ = read("from m import f\n\ndef test_a():\n    kw = {'a': [1]}\n    assert f(**kw) == 1\n"
                   "    assert f(**kw) == 1\n")
    assert list(d) == ["assert f(**kw) == 1"] and len(u) == 1      # the second call may see a changed list


def test_mutable_functions_inside_containers_are_not_constants():
    """#12.4, #12.7: a test-module function or a lambda inside a container is an object whose
    attributes the function under test may set (`fn.calls += 1`), so it is not read as a named
    constant there; a builtin name the file rebinds is not the builtin."""
    d, u, _ = read("from m import f\n\ndef double(x):\n    return 2 * x\n\n"
                   "def test_a():\n    assert f(2, (double, 5)) == 14\n    assert f(2, [lambda x: x]) == 1\n")
    assert not d and len(u) == 2
    d, u, _ = read("from m import f\nfrom mymod import *\n\ndef test_a():\n    assert f(2, (len, 5)) == 14\n")
    assert not d


def test_a_stdlib_call_that_advances_an_iterator_keeps_it_changed():
    """#12.3, #12.7: `islice(it, 2)` (a pure stdlib function) still consumes the test's iterator
    `it`: a later `f(it)` is not `f(iter([1, 2, 3]))`; over a list it changes nothing."""
    d, u, _ = read("from itertools import islice\nfrom m import f\n\ndef test_a():\n"
                   "    it = iter([1, 2, 3])\n    head = list(islice(it, 2))\n    assert f(it) == 1\n\n"
                   "def test_b():\n    xs = [1, 2, 3]\n    head = list(islice(xs, 2))\n    assert f(xs) == 1\n")
    assert list(d) == ["assert f(xs) == 1"]
    assert "may have been mutated" in u["assert f(it) == 1"]


def test_starred_arguments_holding_lists_are_still_given_away():
    """#12.7: `f(*xs)` with a list inside `xs` hands f that list (it may mutate it): a later
    `f(*xs)` is not read with the old value; `enumerate(xs)` over a name is live, so a loop whose
    body hands `xs` to f is not unrolled."""
    d, u, _ = read("from m import f\n\ndef test_a():\n    xs = [[1], 2]\n    assert f(*xs) == 1\n"
                   "    assert f(*xs) == 2\n\n"
                   "def test_b():\n    xs = [[1], [2]]\n    for i, x in enumerate(xs):\n        assert f(xs, i) == x\n")
    assert list(d) == ["assert f(*xs) == 1"]
    assert "assert f(*xs) == 2" in u and "assert f(xs, i) == x" in u


def test_an_imported_raises_of_unknown_semantics_is_not_read(tmp_path):
    """#12.1 (red team): a `raises` imported from a module other than toolz's may be a decorator
    factory (`nose.tools.raises`: `assert raises(E, fn)` always passes, `fn` never runs), so
    `assert raises(ValueError, lambda: f(1))` is not read as `f(1)` raising."""
    desc = "Return x + 1.\n\n>>> f(1)\n2\n"
    tests = ("from mod import f\nfrom testing.tools import raises\n\ndef test_value():\n    assert f(1) == 2\n\n"
             "def test_raises():\n    assert raises(ValueError, lambda: f(1))\n")
    r = check(tmp_path, desc, tests)
    assert not (r["verdict"] == "conflict" and r["evidence"] == "certified"), r["reason"]
    assert r["coverage"]["assertions_read"] == 1


def test_a_nested_def_passed_to_a_raises_assertion_is_its_expression():
    """#12 (reallib, more-itertools `assertRaisesRegex(ValueError, msg, f)` with `def f(): return
    list(chunked(...))`): a nested `def g(): return E` (or `E`) called by the raises assertion is
    `E` evaluated at the call, with the names as they are then (late binding: `n` rebound after the
    `def` is its new value).  Not read: parameters (a default is evaluated at the `def`), the name
    rebound after the `def`, several statements, extra arguments to the assertion."""
    d, _, tf = read("import unittest\nfrom m import f\n\nclass T(unittest.TestCase):\n"
                   "    def test_a(self):\n        def g():\n            return list(f('ABCDE', 3))\n"
                   "        self.assertRaisesRegex(ValueError, 'not divisible', g)\n"
                   "    def test_b(self):\n        n = 1\n        def g():\n            f(n)\n"
                   "        n = 2\n        self.assertRaises(ValueError, g)\n"
                   "    def test_c(self):\n        def g(x=1):\n            f(x)\n"
                   "        self.assertRaises(ValueError, g)\n"
                   "    def test_d(self):\n        def g():\n            f(1)\n        g = lambda: 0\n"
                   "        self.assertRaises(ValueError, g)\n"
                   "    def test_e(self):\n        def g():\n            x = 1\n            f(x)\n"
                   "        self.assertRaises(ValueError, g)\n"
                   "    def test_f(self):\n        def g(*a):\n            f(1)\n"
                   "        self.assertRaises(ValueError, g, 5)\n")
    assert sorted(d.values()) == [("f('ABCDE', 3)", "raises ValueError or returns a value list() cannot iterate"),
                                  ("f(2)", "raises ValueError")], d
    assert len(tf.unsupported) == 4, tf.unsupported
