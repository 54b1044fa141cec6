"""Objects and call histories, what the test reader and the doctest reader take from real test
forms (issue 13, items 1 and 2; issue 12, item 4 for functions as values): comparisons of an
object with a value, stdlib functions as named constants, `try`/`except`/`else: fail`, items of
an attribute, operator results shown, functions returned by the function under test.  No Lean
here (the adversarial suite and tests/test_objects.py run the kernel)."""

from specguard.formalize.description import formalize_description
from specguard.formalize.tests import formalize_tests
from specguard.models import TestSource


def read(code: str, target: str = "Stack"):
    tf = formalize_tests([TestSource(kind="python", path="test_s.py", text=code)], target)
    return [(d.loc.line, f"{d.call.source()} {d.expect.source()}") for d in tf.demands], tf


def reasons(tf) -> str:
    return "\n".join(f"{u.loc.line}: {u.reason}" for u in tf.unsupported)


def test_comparisons_of_the_object_are_observations():
    """#13.2: `s == v`, `s != v`, `assertEqual(s, v)`, `(s == v) == False`: the class's own
    `__eq__`/`__ne__` runs, so each is an observation of its own (an event of the history too)."""
    got, tf = read("import unittest\nfrom s import Stack\n\ndef test_a():\n    s = Stack([1, 2, 3])\n"
                   "    s.pop()\n    assert s == [1, 2]\n    assert (s == [1, 2, 5]) == False\n"
                   "    assert s != [1]\n    assert not s == [7]\n\n"
                   "class T(unittest.TestCase):\n    def test_b(self):\n        s = Stack([1])\n"
                   "        self.assertEqual(s, [1])\n        self.assertNotEqual(s, (1,))\n")
    assert got == [(7, "s = Stack([1, 2, 3]); s.pop(); (s == [1, 2]) is truthy"),
                   (8, "s = Stack([1, 2, 3]); s.pop(); (s == [1, 2]); (s == [1, 2, 5]) == False"),
                   (9, "s = Stack([1, 2, 3]); s.pop(); (s == [1, 2]); (s == [1, 2, 5]); (s != [1]) is truthy"),
                   (10, "s = Stack([1, 2, 3]); s.pop(); (s == [1, 2]); (s == [1, 2, 5]); (s != [1]); "
                        "(s == [7]) is falsy"),
                   (15, "s = Stack([1]); (s == [1]) is truthy"),
                   (16, "s = Stack([1]); (s == [1]); (s != (1,)) is truthy")]
    assert tf.assertions_read == tf.assertions_total == 6


def test_stdlib_functions_are_named_constants():
    """#12.4: `key=neg` after `from operator import neg` is the same function wherever it is
    imported (one input); a lambda is a new function at every evaluation (never the same input)."""
    got, _ = read("from s import Stack\n\ndef test_a():\n    from operator import neg\n"
                  "    s = Stack([1], key=neg)\n    assert s.pop() == 1\n\n"
                  "def test_b():\n    s = Stack([1], key=lambda x: -x)\n    assert s.pop() == 1\n\n"
                  "def test_c():\n    s = Stack([1], key=lambda x: -x)\n    assert s.pop() == 1\n")
    a, b, c = (t for _, t in got)
    assert a == "s = Stack([1], key=neg); s.pop() == 1"
    tf = formalize_tests([TestSource(kind="python", path="t.py", text=(
        "from s import Stack\n\ndef test_b():\n    s = Stack([1], key=lambda x: -x)\n    assert s.pop() == 1\n\n"
        "def test_c():\n    s = Stack([1], key=lambda x: -x)\n    assert s.pop() == 1\n"))], "Stack")
    k1, k2 = (d.call.key() for d in tf.demands)
    assert k1 != k2


def test_try_except_else_fail_is_a_raises_block():
    """#13.2: `try: s.pop() / except KeyError: pass / else: assert False` is `pytest.raises`
    (the call is one event of the history, recorded once); with the failing statement inside the
    `try` it is read only when the handler cannot catch an AssertionError."""
    got, tf = read("from s import Stack\n\ndef test_a():\n    s = Stack()\n    try:\n        s.pop()\n"
                   "    except KeyError:\n        pass\n    else:\n        assert False\n    assert len(s) == 0\n\n"
                   "def test_b():\n    s = Stack()\n    try:\n        s.pop()\n        raise AssertionError('no')\n"
                   "    except IndexError:\n        pass\n    assert len(s) == 0\n\n"
                   "def test_c():\n    s = Stack()\n    try:\n        s.pop()\n        assert False\n"
                   "    except Exception:\n        pass\n    assert len(s) == 0\n")
    assert got == [(5, "s = Stack(); s.pop() raises KeyError"), (11, "s = Stack(); s.pop(); len(s) == 0"),
                   (15, "s = Stack(); s.pop() raises IndexError"), (20, "s = Stack(); s.pop(); len(s) == 0")]
    assert "26: inside the `try` at line 24" in reasons(tf)
    assert "29: the object `s` is used in the `try` at line 24" in reasons(tf)


def test_attribute_items_and_operator_results():
    """#13.1: `s.inv[k]` (read, set, deleted) is an interaction of `s`; `repr(s - v)` and a
    discarded `s | v` are events (how the result was used is part of them); a result of an
    operator bound to a name is another object: `s` is not followed from there."""
    got, tf = read("from s import Stack\n\ndef test_a():\n    s = Stack()\n    s.inv['a'] = 1\n"
                   "    assert s.inv['a'] == 1\n    del s.inv['a']\n    repr(s - {1})\n    s | {2}\n"
                   "    assert len(s) == 0\n\n"
                   "def test_b():\n    s = Stack()\n    t = s - {1}\n    assert len(s) == 0\n")
    assert got == [(6, "s = Stack(); s.inv['a'] = 1; s.inv['a'] == 1"),
                   (10, "s = Stack(); s.inv['a'] = 1; s.inv['a']; del s.inv['a']; repr(s - {1}); (s | {2}); "
                        "len(s) == 0")]
    assert "15: the object `s` has the result of `s - {1}` used (line 14)" in reasons(tf)


def test_functions_returned_by_the_function_under_test():
    """#13.1 (issue 12 item 4): `g = adder(2)` then `g(3)`, and `adder(2)(3)`: the returned
    function is a fresh object whose calls are observations of its history; a use other than a
    call ends the history; once called, the name no longer reads as a plain result."""
    got, tf = read("from m import adder\n\ndef test_a():\n    g = adder(2)\n    assert g(3) == 5\n"
                   "    assert g(3) == 5\n\ndef test_b():\n    assert adder(2)(3) == 6\n\n"
                   "def test_c():\n    r = adder(2)\n    assert r == [1]\n\n"
                   "def test_d():\n    g = adder(2)\n    g.cache = {}\n    assert g(1) == 3\n\n"
                   "def test_e():\n    g = adder(2)\n    g(1)\n    assert g == 4\n", "adder")
    assert got == [(5, "s = adder(2); s(3) == 5"), (6, "s = adder(2); s(3); s(3) == 5"),
                   (9, "s = adder(2); s(3) == 6"), (13, "adder(2) == [1]")]
    r = reasons(tf)
    assert "18: the object `g` is used otherwise than called (`g.cache` at line 17)" in r
    assert "23: assertion does not call `adder` (`g` is not its result: a function returned by `adder`, " \
           "called at line 22)" in r


DOC = '''class Bag:
    """A bag.

    >>> from operator import neg
    >>> b = Bag([3, 1, 2], key=neg)
    >>> b == [3, 2, 1]
    True
    >>> len(list(b.elements()))
    3
    >>> b[0:2]
    [3, 2]
    >>> b - {1}
    Bag([3, 2])
    >>> b.pop()
    3
    """
'''


def test_doctest_sessions_read_the_same_forms():
    """#13.2: a doctest session's `>>> b == [...]`, an observation term of a method's result
    (`>>> len(list(b.elements()))`), a slice, an imported stdlib function as an argument, and an
    operator whose result is only shown: the inputs the test side builds for the same lines."""
    df = formalize_description(DOC, path="Bag.py", entry_point="Bag")
    got = [f"{c.call.source()} {c.expect.source()}" for c in df.claims if c.call is not None]
    assert got == ["s = Bag([3, 1, 2], key=neg); (s == [3, 2, 1]) == True",
                   "s = Bag([3, 1, 2], key=neg); (s == [3, 2, 1]); s.elements() satisfies `len(list(result)) == 3`",
                   "s = Bag([3, 1, 2], key=neg); (s == [3, 2, 1]); s.elements(); s[0:2] == [3, 2]",
                   "s = Bag([3, 1, 2], key=neg); (s == [3, 2, 1]); s.elements(); s[0:2]; repr(s - {1}); s.pop() == 3"]
    tf = formalize_tests([TestSource(kind="python", path="t.py", text=(
        "from operator import neg\nfrom bag import Bag\n\ndef test_a():\n    b = Bag([3, 1, 2], key=neg)\n"
        "    assert (b == [3, 2, 1]) == True\n    assert len(list(b.elements())) == 3\n    assert b[0:2] == [3, 2]\n"
        "    repr(b - {1})\n    assert b.pop() == 4\n"))], "Bag")
    claims = {c.call.key() for c in df.claims if c.call is not None}
    assert all(d.call.key() in claims for d in tf.demands), [d.call.source() for d in tf.demands]


def test_one_assertion_using_the_object_twice():
    """#13.1: an assertion's operands run left to right and all of them run when it passes, so
    `len(s) == len(s.inv) == 1` gives the history `len(s); s.inv` (its second comparison is an
    observation of `s.inv` after `len(s)`); a use nested in another (`s.m(s.n())`) is not
    followed."""
    got, tf = read("from s import Stack\n\ndef test_a():\n    s = Stack()\n    assert len(s) == len(s.inv) == 1\n"
                   "    assert s.inv[0] == 'c'\n    assert s.m(s.n()) == 1\n    assert s.pop() == 1\n")
    assert got == [(5, "s = Stack(); len(s); s.inv has len 1"), (6, "s = Stack(); len(s); s.inv; s.inv[0] == 'c'")]
    assert "8: the object `s` is called with an argument that is not an exact value" in reasons(tf)


def test_local_function_called_for_its_effect():
    """#13.3: `ck(...)`, a function defined in the test that reaches only the test's own names,
    changes no shared state: objects built after it are read; the objects (and names) it reaches
    lose their histories (values)."""
    got, tf = read("from s import Stack\n\ndef test_a():\n    s = Stack()\n    d = [1]\n\n    def ck(v):\n"
                   "        assert len(s) == v\n        d.append(v)\n    ck({0: 1})\n    t = Stack([1])\n"
                   "    assert t.pop() == 1\n    assert s.pop() == 1\n    assert t.pop() == d\n")
    assert got == [(12, "s = Stack([1]); s.pop() == 1")]
    r = reasons(tf)
    assert "13: the object `s` is used in the nested `ck` at line 7" in r
    assert "14: expected value `d` is not a literal (may be changed by the local function `ck` called at line 10)" in r


def test_try_with_a_rebound_exception_name_is_not_read():
    """#13.3: `KeyError = Exception` in the file: `except KeyError` catches the AssertionError of
    the failing statement inside the `try`, so the block is no raises assertion."""
    got, tf = read("from s import Stack\nKeyError = Exception\n\ndef test_a():\n    s = Stack()\n    try:\n"
                   "        s.pop()\n        assert False\n    except KeyError:\n        pass\n")
    assert got == []
    assert "8: inside the `try` at line 6" in reasons(tf)


def test_iterators_returned_by_the_function_under_test():
    """#12 (the objects issue's evidence): `it = f(x)`, then `next(it)`, `next(it, d)`, a
    `StopIteration` block and `list(it)` after `next`: interactions of one fresh object, each an
    observation of its history (`next(f(x))` alone: the first item, without reading the rest)."""
    got, tf = read("import pytest\nfrom m import count_to\n\ndef test_a():\n    it = count_to(2)\n"
                   "    assert next(it) == 0\n    assert next(it, None) == 1\n    with pytest.raises(StopIteration):\n"
                   "        next(it)\n\ndef test_b():\n    it = count_to(9)\n    next(it)\n    assert list(it)[:2] == [1, 2]\n\n"
                   "def test_c():\n    assert next(count_to(-1)) == 0\n", "count_to")
    assert got == [(6, "s = count_to(2); next(s) == 0"), (7, "s = count_to(2); next(s); next(s, None) == 1"),
                   (8, "s = count_to(2); next(s); next(s, None); next(s) raises StopIteration"),
                   (14, "s = count_to(9); next(s); list(s) satisfies `result[:2] == [1, 2]`"),
                   (17, "s = count_to(-1); next(s) == 0")]
    assert tf.assertions_read == tf.assertions_total == 5


def test_calls_of_results_and_decorated_functions():
    """#12 (factories and decorated objects): `curry(h)(1)(2)` calls the result of a call: the
    earlier calls are events whose result the rest acts on (`s = s(1)`); `@memoize` and
    `@memoize(cache=...)` on a closed `def` in the test bind its name to `memoize(F)` /
    `memoize(cache=...)(F)`, called like any returned function."""
    got, tf = read("from m import memoize\n\ndef h(x, y):\n    return x + y\n\n"
                   "def test_a():\n    assert memoize(h)(1)(2) == 3\n\n"
                   "def test_b():\n    @memoize(cache={1: True})\n    def f(x):\n        return False\n\n"
                   "    assert f(1) is True\n    assert f(2) is False\n\n"
                   "def test_c():\n    @memoize\n    def f(x):\n        return x\n\n    assert f(1) == 1\n", "memoize")
    assert got == [(7, "s = memoize(h); s = s(1); s(2) == 3"),
                   (14, "s = memoize(cache={1: True}); s = s(f); s(1) is True"),
                   (15, "s = memoize(cache={1: True}); s = s(f); s(1); s(2) is False"),
                   (22, "s = memoize(f); s(1) == 1")]
    assert tf.assertions_read == tf.assertions_total == 4
