"""Traps for iterators returned by the function under test and advanced with ``next`` (#12, the
objects issue's evidence): ``it = f(x)``, ``next(it)``, ``list(it)`` after ``next`` are
interactions of one fresh object (specguard/formalize/objects.py).  Each trap below would be a
false certificate, or a false reading, if the reader took ``next`` for more than Python
establishes: another history, another default, another object, a builtin that is not ``next``,
an iterator over data the test changed, an iterator already consumed."""

from __future__ import annotations

import pytest
from cli_run import check_files

from specguard.formalize.tests import formalize_tests
from specguard.models import TestSource


def read(tests: str, target: str = "f"):
    tf = formalize_tests([TestSource(kind="python", path="test_t.py", text=tests)], target)
    return ([(d.loc.line, d.call.source(), d.expect.source()) for d in tf.demands],
            {u.loc.line: u.reason for u in tf.unsupported}, tf)


def test_each_next_is_an_event_of_the_history():
    """`next(it)` twice: the second observation's input has the first in its history, so the two
    are different inputs (an iterator's second item is not its first)."""
    got, _, tf = read("from m import f\n\ndef test_a():\n    it = f(3)\n    assert next(it) == 0\n"
                      "    assert next(it) == 1\n    assert list(it) == [2]\n")
    assert [g[1] for g in got] == ["s = f(3); next(s)", "s = f(3); next(s); next(s)",
                                   "s = f(3); next(s); next(s); list(s)"]
    assert len({d.call.key() for d in tf.demands}) == 3


def test_a_default_is_part_of_the_observation():
    """`next(it, None)` returns the default where `next(it)` raises StopIteration: two inputs."""
    _, _, tf = read("from m import f\n\ndef test_a():\n    assert next(f(0), None) is None\n\n"
                    "def test_b():\n    with __import__('pytest').raises(StopIteration):\n        next(f(0))\n")
    keys = {d.call.key() for d in tf.demands}
    assert len(keys) == len(tf.demands)


def test_aliases_loops_and_shadowed_next_are_not_read():
    """`j = it` (two names, one iterator), a `for` over it, a module-level `next` that is not
    the builtin, an iterator over a list the test changes afterwards: none is read as a history."""
    _, u, _ = read("from m import f\n\ndef test_a():\n    it = f(3)\n    j = it\n    assert next(j) == 0\n"
                   "    assert next(it) == 1\n\n"
                   "def test_b():\n    it = f(3)\n    for x in it:\n        break\n    assert next(it) == 1\n\n"
                   "def test_c():\n    xs = [1, 2]\n    it = f(xs)\n    xs.append(3)\n    assert next(it) == 1\n")
    assert 6 in u and 7 in u, u
    assert "loop at line 11" in u[13], u
    assert "was given `xs`" in u[19], u
    got, u2, _ = read("from m import f\n\ndef next(it):\n    return 5\n\ndef test_a():\n    it = f(3)\n"
                      "    assert next(it) == 5\n    assert next(it) == 5\n")
    assert not any("next(s)" in g[1] for g in got), got


def test_list_of_an_untouched_result_stays_the_call_term():
    """`list(it)` before any `next` is `list(f(x))` (the walker's term over the call, which can
    meet a doctest of `list(f(x))`), not an object history."""
    got, _, _ = read("from m import f\n\ndef test_a():\n    it = f(3)\n    assert list(it) == [0, 1, 2]\n")
    assert got == [(5, "f(3)", "satisfies `list(result) == [0, 1, 2]`")]


@pytest.mark.lean
def test_two_histories_are_no_conflict(tmp_path, core):
    """`next(it) == 1` after one `next` and `next(it) == 2` after two: a counting iterator
    satisfies both; no conflict."""
    r = check_files(tmp_path, "def f(n):\n    \"\"\"Yield 0, 1, ... n - 1.\"\"\"\n",
                    "from m import f\n\ndef test_a():\n    it = f(5)\n    next(it)\n    assert next(it) == 1\n\n"
                    "def test_b():\n    it = f(5)\n    next(it)\n    next(it)\n    assert next(it) == 2\n\n"
                    "def test_c():\n    assert next(f(5), 9) == 0\n\n"
                    "def test_d():\n    assert next(f(0), 9) == 9\n")[1]
    assert r["verdict"] != "conflict", r["reason"]


def test_a_call_of_a_result_is_not_a_second_call_of_the_object():
    """`g(1)(2)` calls the result of `g(1)`, `g(1); g(2)` calls `g` twice: two inputs (a curried
    function gives 3 for the first and may give anything for the second); and after `g(1)(2)`
    the object `g` itself is no longer followed (the result may share its state)."""
    got, u, tf = read("from m import f\n\ndef h(x, y):\n    return x + y\n\n"
                      "def test_a():\n    g = f(h)\n    assert g(1)(2) == 3\n    assert g(5) == 4\n\n"
                      "def test_b():\n    g = f(h)\n    g(1)\n    assert g(2) == 4\n")
    a, b = (d for d in tf.demands)
    assert a.call.key() != b.call.key()
    assert a.call.source() == "s = f(h); s = s(1); s(2)" and b.call.source() == "s = f(h); s(1); s(2)"
    assert "had the result of a call of it called" in u[9], u


def test_decorated_functions_that_are_shared_or_open_are_not_fresh_objects():
    """A decorated function of the module is one object for all its tests (its cache is shared);
    a decorated `def` reading a module name (which may change) or with defaults, or redefined
    afterwards, or with a second decorator: none is read as `f(F)`."""
    _, u, tf = read("from m import f\nimport functools\n\n@f\ndef g(x):\n    return x\n\nn = 0\n\n"
                    "def test_a():\n    assert g(1) == 1\n\n"
                    "def test_b():\n    @f\n    def k(x):\n        return x + n\n    assert k(1) == 1\n\n"
                    "def test_c():\n    @f\n    def k(x, y=2):\n        return x\n    assert k(1) == 1\n\n"
                    "def test_d():\n    @f\n    def k(x):\n        return x\n    def k(x):\n        return 2\n"
                    "    assert k(1) == 2\n\n"
                    "def test_e():\n    @functools.wraps(len)\n    @f\n    def k(x):\n        return x\n"
                    "    assert k(1) == 1\n")
    assert not tf.demands, [d.call.source() for d in tf.demands]
    assert len(u) == 5, u


@pytest.mark.lean
def test_decorated_functions_of_two_tests_are_two_objects(tmp_path, core):
    """Two tests each decorate their own `def k` with `@f` and expect different results of
    `k(1)`: two functions (different bodies, different objects), no conflict."""
    r = check_files(tmp_path, "def f(fn):\n    \"\"\"Wrap fn.\"\"\"\n",
                    "from m import f\n\ndef test_a():\n    @f\n    def k(x):\n        return x\n    assert k(1) == 1\n\n"
                    "def test_b():\n    @f\n    def k(x):\n        return x + 1\n    assert k(1) == 2\n")[1]
    assert r["verdict"] != "conflict", r["reason"]
