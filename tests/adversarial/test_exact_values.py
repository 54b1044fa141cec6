"""Exact values the reader computes (#12.1, #12.2, #12.5, #12.7): ``math.nan``/``math.inf`` and
``float('nan')`` as arguments, NaN's identity (``[x] == [x]`` holds for one NaN object, not for two),
the pure ``posixpath`` functions (never one that reads the environment or the file system), and type
tests applied to a result (``isinstance``, ``type(r) is not T``) under the plain-data assumption.

Reader-level cases run the real test reader on real files (and the real clause builder); the
end-to-end cases run the real CLI, the Lean kernel and ``verify``."""

from __future__ import annotations

import itertools
import textwrap
from pathlib import Path

from cli_run import check_files, verify_out

from specguard.formalize.tests import formalize_tests
from specguard.kernel import emit
from specguard.models import TestSource as Source
from specguard.python.values import canon, from_python, py_repr

def read(code: str):
    tf = formalize_tests([Source(kind="python", path="test_x.py", text=textwrap.dedent(code))], "f")
    return tf


def lines(tf) -> tuple[dict[int, list[str]], dict[int, str]]:
    demands: dict[int, list[str]] = {}
    for d in tf.demands:
        demands.setdefault(d.loc.line, []).append(f"{d.call.source()} {d.expect.source()}")
    return demands, {u.loc.line: u.reason for u in tf.unsupported}


def clause_or_reason(d) -> str:
    try:
        emit.clause_of_demand(d)
    except emit.NotModelled as e:
        return str(e)
    return "clause"


def check(tmp_path: Path, desc: str, tests: str) -> dict:
    return check_files(tmp_path, desc, tests, dedent=True)[1]


def verify(tmp_path: Path) -> dict:
    return verify_out(tmp_path)


# -- NaN and infinity as arguments ------------------------------------------------------------------

def test_math_constants_in_parametrize_are_exact_arguments():
    """#12.1: `math.nan`, `math.inf`, `-math.inf` in a parametrize table (humanize's form, also
    `[math.nan]` unpacked with `*`) are exact arguments: `math.nan` the module's one NaN object,
    `float('nan')` a new one, `float('inf')` and `math.inf` the same value."""
    tf = read("""
        import math
        import pytest
        from m import f

        @pytest.mark.parametrize("x, out", [(math.nan, "NaN"), (math.inf, "+Inf"), (-math.inf, "-Inf"),
                                            (float('nan'), "NaN"), (float('-inf'), "-Inf")])
        def test_a(x, out):
            assert f(x) == out

        @pytest.mark.parametrize("args, out", [([math.nan], "NaN"), ([math.pi, 2], "3.14")])
        def test_b(args, out):
            assert f(*args) == out
    """)
    d, r = lines(tf)
    assert d[9] == ["f(math.nan) == 'NaN'", "f(float('inf')) == '+Inf'", "f(float('-inf')) == '-Inf'",
                    "f(float('nan')) == 'NaN'", "f(float('-inf')) == '-Inf'"], d
    assert d[13] == ["f(math.nan) == 'NaN'", "f(3.141592653589793, 2) == '3.14'"], d
    assert not r, r
    keys = {x.call.key() for x in tf.demands}
    assert len(keys) == 5, "math.nan and float('nan') are different inputs; math.inf is float('inf'), " \
                           "`*[math.nan]` is math.nan"


def test_nan_identity_traps_are_refused():
    """#12.1, #12.7: NaN expected values are refused (`f(x) == math.nan` always fails in Python,
    `f(x) == [math.nan]` passes when f returns a list holding that very object: neither is a
    class the model has), and an input holding two fresh NaNs is refused where it is emitted
    (`[x, x]` is one object twice, `[float('nan'), float('nan')]` two: `a[0] in a[1:]` tells
    them apart); `[math.nan, math.nan]` is one known object twice and stays an input.  NaN
    arithmetic (platform-dependent sign) stays refused."""
    tf = read("""
        import math
        from m import f
        NAN = float('nan')
        def test_a():
            assert f(1) == math.nan
            assert f(2) == [float('nan')]
            assert f([NAN, NAN]) == 1
            assert f([NAN, float('nan')]) == 2
            assert f([math.nan, math.nan]) == 3
            assert f([NAN] * 2) == 4
            assert f(math.inf - math.inf) == 5
            assert f({NAN: 1}) == 6
            assert f(-NAN) == 7
    """)
    d, r = lines(tf)
    assert "NaN" in r[6] and "NaN" in r[7], r
    assert "NaN is not supported" in r[12] and "unhashable" in r[13], r
    by_line = {x.loc.line: x for x in tf.demands}
    for line in (8, 9, 11):
        assert "two NaN objects" in clause_or_reason(by_line[line]), line
    assert clause_or_reason(by_line[10]) == "clause" and clause_or_reason(by_line[14]) == "clause"
    assert d[14] == ["f(float('-nan')) == 7"]


def test_nan_objects_are_never_compared_by_value():
    """#12.1, #12.7: the concrete evaluator never compares, hashes, orders or counts a NaN
    object (CPython compares by identity first): `[x].count(x)`, `{1} & {x}`, `sorted`, `str`
    are refused with a reason (not a crash); passing it through containers is exact."""
    tf = read("""
        import math
        from m import f
        def test_a():
            assert f([math.nan].count(math.nan)) == 1
            assert f({1}.intersection([math.nan])) == 2
            assert f(sorted([math.nan, 1.0])) == 3
            assert f(str(math.nan)) == 4
            assert f(list((math.nan, 1))[0:1]) == 5
    """)
    d, r = lines(tf)
    assert set(r) == {5, 6, 7, 8}, r
    assert d[9] == ["f([math.nan]) == 5"]


def test_math_nan_and_a_fresh_nan_do_not_conflict(tmp_path, core):
    """#12.1: `f(math.nan) == 'nan'` against the example `f(float('nan'))` -> `'NaN'` is no
    conflict: a function may tell the module's NaN object from a new one (`{math.nan: 'nan'}.get(x)`),
    so they are different inputs; the two `f(float('nan'))`-style inputs (a test's module-level
    `float('nan')` and the example's) are one input, and their two results conflict, certified."""
    desc = '''
        Format a number.

        >>> f(float('nan'))
        'NaN'
        >>> f(float('inf'))
        'Inf'
    '''
    r = check(tmp_path, desc, """
        import math
        from m import f
        NAN = float('nan')
        def test_a():
            assert f(math.nan) == 'nan'
        def test_b():
            assert f(NAN) == 'nan'
    """)
    assert r["verdict"] == "conflict" and r["evidence"] == "certified", r["reason"]
    items = r["conflict"]["items"]
    assert [i["source"] for i in items] == ["test", "description"]
    assert items[0]["loc"]["line"] == 8, "the module-level float('nan'), not math.nan"
    assert verify(tmp_path)["valid"]


def test_math_inf_conflicts_with_an_example(tmp_path, core):
    """#12.1: `f(math.inf) == 'inf'` (a parametrize row) against the example `f(float('inf'))`
    -> `'Inf'` is a certified conflict, and `verify` accepts the bundle."""
    desc = '''
        Format a number.

        >>> f(float('inf'))
        'Inf'
    '''
    r = check(tmp_path, desc, """
        import math
        import pytest
        from m import f
        @pytest.mark.parametrize("x, out", [(math.inf, "inf"), (-math.inf, "-Inf")])
        def test_a(x, out):
            assert f(x) == out
    """)
    assert r["verdict"] == "conflict" and r["evidence"] == "certified", r["reason"]
    assert "f(float('inf')) == 'inf'" in r["reason"] and "'Inf'" in r["reason"]
    assert verify(tmp_path)["valid"]


# -- pure path functions ----------------------------------------------------------------------------

def test_posix_path_functions_are_exact_and_stated():
    """#12.2: `os.path.join/normpath/splitext/basename/dirname` (through `import os`, `from os.path
    import ...`, `from os import path`, `import posixpath`) are computed as posixpath computes them,
    with the POSIX platform stated as an assumption; `expanduser`, `abspath`, `realpath`, `exists`
    read the environment or the file system and are refused with that reason."""
    tf = read("""
        import os
        import posixpath
        from os import path
        from os.path import join, expanduser, splitext
        from m import f
        def test_a():
            assert f(join('a', 'b', 'foo.bar'), base='qux') == join('a', 'b', 'qux.bar')
            assert f(os.path.normpath('/tmp//x/../y')) == path.basename('/a/b.txt')
            assert f(splitext('x.tar.gz'), posixpath.dirname('/a/b')) == 1
            assert f('~') == expanduser('~')
            assert f(os.path.abspath('x')) == 2
            assert f(path.realpath('x')) == 3
            assert f(os.path.exists('/etc')) == 4
    """)
    d, r = lines(tf)
    assert d[8] == ["f('a/b/foo.bar', base='qux') == 'a/b/qux.bar'"]
    assert d[9] == ["f('/tmp/y') == 'b.txt'"]
    assert d[10] == ["f(('x.tar', '.gz'), '/a') == 1"]
    for line in (11, 12, 13, 14):
        assert "reads the environment or the file system" in r[line], r
    assert any("posixpath" in a for a in tf.assumptions), tf.assumptions


def test_patched_path_module_is_not_evaluated():
    """#12.7: a test file that patches `os.path` (a patch target string, or the module passed to
    `monkeypatch.setattr`) gets none of its functions evaluated."""
    for patch in ('mock.patch("os.path.join", lambda *a: "x").start()',
                  'monkeypatch.setattr(os.path, "join", lambda *a: "x")'):
        tf = read(f"""
            import os
            from unittest import mock
            from m import f
            def test_a(monkeypatch):
                {patch}
                assert f(os.path.join('a', 'b')) == 1
        """)
        d, r = lines(tf)
        assert 7 not in d, (patch, d)


# -- type tests applied to a result -----------------------------------------------------------------

_TYPES = ["int", "float", "bool", "str", "bytes", "list", "tuple", "dict", "set", "frozenset", "NoneType"]
_SAMPLES = [None, True, False, 0, 1, 2, -3, 1.0, 0.0, 2.5, float("inf"), float("nan"), 2 ** 60, "", "a", b"",
            b"x", [], [1], (), (1,), {}, {1: 2}, set(), {1}, frozenset(), frozenset({1})]


def test_negated_type_tests_are_implied_by_python():
    """#12.2, #12.7: for every plain value and every set of builtin types, when Python says
    `not isinstance(r, T)` (or `type(r) not in T`), the class predicate the model uses holds of
    `r`'s ==-class (`isinstance(True, int)` is true and `1 == 1.0 == True` share a class, so
    `not isinstance(r, int)` says nothing about numbers; `not isinstance(r, (int, float))` does)."""
    py = {"int": int, "float": float, "bool": bool, "str": str, "bytes": bytes, "list": list, "tuple": tuple,
          "dict": dict, "set": set, "frozenset": frozenset, "NoneType": type(None)}
    for n in (1, 2, 3):
        for names in itertools.combinations(_TYPES, n):
            for exact in (False, True):
                ty = emit.negated_type(names, exact)
                for r in _SAMPLES:
                    c = canon(from_python(r))
                    passes = (type(r) not in tuple(py[t] for t in names)) if exact \
                        else not isinstance(r, tuple(py[t] for t in names))
                    if passes and ty is not None:
                        assert not emit.ty_has(ty, c), (names, exact, py_repr(from_python(r)))
    assert emit.negated_type(("int",), False) is None, "`not isinstance(r, int)`: r may be 1.0"
    assert emit.negated_type(("list",), False) == ("list", ("any",))


def test_type_tests_on_results_are_read():
    """#12.2: `type(r) is not list` on a bound result, `not isinstance(f(x), tuple)`,
    `assertNotIsInstance`, `type(f(x)) is type([])` and `isinstance(f(x), object)` are read."""
    tf = read("""
        import unittest
        from m import f
        def test_a():
            r = f(1)
            assert type(r) is not list
            assert not isinstance(f(2), tuple)
            assert type(f(3)) is type([])
            assert isinstance(f(4), object)
            assert type(f(5)) not in (dict, str)
        class T(unittest.TestCase):
            def test_b(self):
                self.assertNotIsInstance(f(6), (int, float))
    """)
    d, r = lines(tf)
    assert d[6] == ["f(1) type is not list"] and d[7] == ["f(2) not isinstance of tuple"], d
    assert d[8] == ["f(3) isinstance of list"] and d[9] == ["f(4) isinstance of object"], d
    assert d[10] == ["f(5) type is not dict/str"] and d[13] == ["f(6) not isinstance of int/float"], d
    assert not r, r


def test_isinstance_of_bool_and_int_results(tmp_path, core):
    """#12.2, #12.7: `isinstance(True, int)` holds and `1.0` is not an int, so `isinstance(f(1), int)`
    against the example `f(1)` -> `True` is no conflict, `not isinstance(f(2), int)` is not read
    (`1.0 == 1`: the class of `f(2)` does not decide it); `isinstance(f(3), list)` against `f(3)` -> `(1, 2)` is one, certified and verified."""
    desc = '''
        Convert.

        >>> f(1)
        True
        >>> f(2)
        1.0
        >>> f(3)
        (1, 2)
    '''
    tests = """
        from m import f
        def test_a():
            assert isinstance(f(1), int)
        def test_b():
            assert not isinstance(f(2), int)
        def test_c():
            assert isinstance(f(3), list)
    """
    r = check(tmp_path, desc, tests)
    assert r["verdict"] == "conflict" and r["evidence"] == "certified", r["reason"]
    named = {i["loc"]["line"] for i in r["conflict"]["items"] if i["source"] == "test"}
    assert named == {8}, r["conflict"]
    # `not isinstance(f(2), int)` says nothing about ==-classes (1, 1.0 and True share one): refused
    assert r["coverage"]["assertions_read"] == 2
    assert verify(tmp_path)["valid"]


# -- math.isnan / math.isinf of a result, and NaN/inf outputs ----------------------------------------

def test_float_class_tests_agree_with_python():
    """#12.5: `math.isnan(r)` / `math.isinf(r)` hold exactly of the classes nan / +-inf; their
    negations hold only of numbers outside them (a non-number raises TypeError): the class
    predicate holds of the class of every plain value the assertion passes on."""
    import math
    for r in _SAMPLES:
        c = canon(from_python(r))
        for name in ("nan", "inf"):
            fn = getattr(math, "is" + name)
            try:
                result = fn(r)
            except (TypeError, OverflowError):
                continue        # the assertion fails either way
            for positive in (True, False):
                if result == positive:
                    assert emit.eval_vpred(("floatclass", name, positive), c), (name, positive, r)
    assert not emit.eval_vpred(("floatclass", "nan", False), canon(from_python("a")))


def test_float_class_tests_are_read():
    """#12.5: `math.isnan(f(x))`, `not math.isinf(f(y))`, `from math import isnan` and
    `assertTrue(math.isnan(...))` are read; a rebound `math` is not."""
    tf = read("""
        import math
        import unittest
        from math import isnan
        from m import f
        NAN = float('nan')
        def test_a():
            assert math.isnan(f(NAN))
            assert not math.isinf(f(1))
            assert isnan(f(2))
        class T(unittest.TestCase):
            def test_b(self):
                self.assertTrue(math.isnan(f(3)))
    """)
    d, r = lines(tf)
    assert d[8] == ["f(float('nan')) math.isnan"] and d[9] == ["f(1) not math.isinf"], d
    assert d[10] == ["f(2) math.isnan"] and d[13] == ["f(3) math.isnan"], d
    assert not r, r


def test_nan_and_inf_outputs_conflict_with_tests(tmp_path, core):
    """#12.1, #12.5: the doctest outputs `inf` and `nan` are a float's repr (the class +inf, the
    class nan); `f(NAN) == 2` and `math.isnan(f(1))` against `f(float('nan'))` -> `nan` and
    `f(1)` -> `1` are certified conflicts (`verify` accepts the bundle); `math.isinf(f(INF))`
    agrees with `f(float('inf'))` -> `inf`."""
    desc = '''
        Clamp.

        >>> f(1)
        1
        >>> f(float('inf'))
        inf
        >>> f(float('nan'))
        nan
    '''
    r = check(tmp_path, desc, """
        import math
        from m import f
        INF, NAN = float('inf'), float('nan')
        def test_a():
            assert math.isinf(f(INF))
        def test_b():
            assert f(NAN) == 2
        def test_c():
            assert math.isnan(f(1))
    """)
    assert r["verdict"] == "conflict" and r["evidence"] == "certified", r["reason"]
    assert r["coverage"]["examples_read"] == 3 and r["coverage"]["assertions_read"] == 3
    named = {i["loc"]["line"] for i in r["conflict"]["items"] if i["source"] == "test"}
    assert named <= {8, 10} and named, r["conflict"]
    assert verify(tmp_path)["valid"]


# -- builtin exception classes as arguments; exact computations that change nothing ------------------

def test_builtin_exception_classes_are_named_constants():
    """#12 (reallib, more-itertools `only(..., too_long=RuntimeError)`): a builtin exception class
    passed as an argument is a named constant like `len` (one class object, attributes unsettable):
    the same name gives the same key, two classes two keys; shadowed (a class of the file, an import,
    an assignment) it is no constant and the assertion stays unread."""
    tf = read("""
        from m import f
        def test_a():
            assert f([1], too_long=RuntimeError) == 1
            assert f([1], too_long=ValueError) == 2
            assert f([1], RuntimeError, StopIteration) == 3
    """)
    d, r = lines(tf)
    keys = {line: tf.demands[i].call for i, line in enumerate(sorted(d))}
    assert not r and len(d) == 3, (d, r)
    assert keys[4] != keys[5], "RuntimeError and ValueError are two objects: two inputs"
    tf = read("from m import f\ndef test_a():\n    assert f(IOError) == 1\n    assert f(OSError) == 2\n")
    a, b = (d.call for d in tf.demands)
    assert a.key() == b.key(), "IOError is OSError: one object, one input (else a witness could tell them apart)"
    for shadow in ("class RuntimeError(Exception):\n    pass", "from errors import RuntimeError",
                   "RuntimeError = ValueError"):
        tf = read(f"from m import f\n{shadow}\ndef test_a():\n    assert f([1], too_long=RuntimeError) == 1\n")
        d, r = lines(tf)
        if shadow.endswith("ValueError"):       # the name holds the builtin ValueError: its key
            assert d == {4: ["f([1], too_long=ValueError) == 1"]}, d
        else:
            assert not d and r, (shadow, d)


def test_distinct_exception_classes_do_not_conflict(tmp_path, core):
    """Two exception classes are two inputs (no conflict); the same class twice with two expected
    values is a certified conflict, and `verify` accepts the bundle."""
    desc = "Return the only item.\n"
    tests = """
        from m import f
        def test_a():
            assert f([1], too_long=RuntimeError) == 1
            assert f([1], too_long=ValueError) == 2
    """
    r = check(tmp_path, desc, tests)
    assert r["verdict"] != "conflict" and r["coverage"]["assertions_read"] == 2, r["reason"]
    tests2 = tests + "            assert f([1], too_long=RuntimeError) == 3\n".replace("            ", "    ")
    r = check(tmp_path, desc, tests2)
    assert r["verdict"] == "conflict" and r["evidence"] == "certified", r["reason"]
    assert verify(tmp_path)["valid"]


def test_exact_computations_keep_earlier_results():
    """An exactly computed expected value (`'a,b'.split(',')`, `tuple(map(str, range(3)))`,
    `[comb(n, k) for k in range(n + 1)]`) changes nothing the test holds: the result bound before
    it is still read.  What could change it stays a hazard: advancing an iterator the test holds
    (`list(it)`, `next(it)`), a call reaching the result (`sorted(r)` is not exact), a method that
    mutates (`xs.append(1)`), a lambda or a generator expression."""
    tf = read("""
        from math import comb
        from m import f
        def test_a():
            r = f(1)
            e = 'a,b'.split(',')
            t = tuple(map(str, range(3)))
            c = [comb(4, k) for k in range(5)]
            assert r == e
        def test_b():
            xs = [1]
            r = f(xs)
            xs.append(2)
            assert r == 1
        def test_c():
            it = iter([1, 2])
            r = f(3)
            n = next(it)
            assert r == 1
    """)
    d, r = lines(tf)
    assert d[9] == ["f(1) == ['a', 'b']"], (d, r)
    assert 14 in r, (d, r)
    # `next(it)` may run any code, which could change a mutable result: read only where it is
    # immutable plain data (tests.py observe_held)
    assert d[19] == ["f(3) satisfies `result == 1`"], (d, r)
