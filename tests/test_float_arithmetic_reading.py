"""Float arithmetic on a result compared with a number (issue 12, rtgaps): ``f(x) * 2 == 3.0``,
``f(x) / 3 == 0.3333333333333333``, ``0.2 + f(x) == 0.30000000000000004`` read as exactly the
``==``-classes of the results that pass (:mod:`specguard.python.floatobs`).  The differential test
runs CPython as the oracle on generated numbers (SpecGuard never runs test code)."""

from __future__ import annotations

import ast
import math
import textwrap

from hypothesis import given, settings
from hypothesis import strategies as st

from specguard.formalize.tests import formalize_tests
from specguard.models import ExpectKind
from specguard.models import TestSource as Source
from specguard.python import floatobs
from specguard.python.values import from_python

_OPS = {"+": ast.Add(), "-": ast.Sub(), "*": ast.Mult(), "/": ast.Div()}


def _apply(op, a, b):
    return a + b if op == "+" else a - b if op == "-" else a * b if op == "*" else a / b


def _neighbours(r):
    out = [r, True, False, 0, 0.0, -0.0]
    if isinstance(r, float):
        for d in (math.inf, -math.inf):
            x = r
            for _ in range(40):
                x = math.nextafter(x, d)
                out.append(x)
        if math.isfinite(r):
            out += [int(r) + i for i in range(-3, 4)]
    else:
        out += [r + i for i in range(-40, 41)] + [float(r)]
    return out


numbers = st.one_of(st.integers(-2 ** 60, 2 ** 60), st.floats(-1e20, 1e20), st.floats(-10, 10),
                    st.sampled_from([0, 1, True, 0.1, 0.5, 3.0]))
constants = st.sampled_from([2, 3, 7, -7, True, 0.1, 0.5, -0.25, 1.5, 1e-3, 3.0, 10 ** 17, 1e300, 5e-324])


@settings(max_examples=400, deadline=None)
@given(st.sampled_from("+-*/"), st.booleans(), constants, numbers)
def test_preimage_is_exactly_the_passing_results(op, result_left, k, r0):
    result_left = result_left or op == "/"
    a, b = (r0, k) if result_left else (k, r0)
    try:
        c = _apply(op, a, b)
    except ArithmeticError:
        return
    if isinstance(c, float) and not math.isfinite(c):
        return
    if not floatobs.applies(_OPS[op], from_python(k), from_python(c)):
        return
    try:
        vs = [v.val for v in floatobs.preimage(_OPS[op], result_left, from_python(k), from_python(c))]
    except floatobs.Refused:
        return                                     # refusing is always allowed
    assert any(r0 == v for v in vs)
    for r in _neighbours(r0) + vs:
        a, b = (r, k) if result_left else (k, r)
        try:
            passes = _apply(op, a, b) == c
        except ArithmeticError:
            passes = False
        assert passes == any(r == v for v in vs), (op, result_left, k, c, r, vs)


def read(code: str):
    tf = formalize_tests([Source(kind="python", path="test_x.py", text=textwrap.dedent(code))], "f")
    return {d.loc.line: d.expect for d in tf.demands}, {u.loc.line: u.reason for u in tf.unsupported}


def test_float_arithmetic_assertions_are_read_as_the_passing_classes():
    d, r = read("""
        import unittest
        from m import f
        def test_a():
            assert f(1) * 2 == 3.0
            assert 0.5 + f(2) == 2
            assert f(3) / 3 == 0.3333333333333333
            assert 1.0 - f(4) == 0.5
        class T(unittest.TestCase):
            def test_b(self):
                self.assertEqual(f(5) * 0.5, 1.25)
    """)
    assert d[5].kind is ExpectKind.eq and d[5].value == from_python(1.5)
    # 0.5 + 1.5000000000000002 is 2.0000000000000002 exactly, a tie rounded to the even 2.0
    assert d[6].kind is ExpectKind.in_ and [v.val for v in d[6].values] == [1.5, 1.5000000000000002]
    assert d[7].kind is ExpectKind.in_ and [v.val for v in d[7].values] == [0.9999999999999999, 1.0]
    assert d[8].kind is ExpectKind.in_ and [v.val for v in d[8].values] == [0.49999999999999994, 0.5]
    assert d[11].kind is ExpectKind.eq and d[11].value == from_python(2.5)


def test_float_arithmetic_refusals_say_why():
    d, r = read("""
        from m import f
        def test_a():
            assert f(1) + 1e20 == 1e20
            assert f(2) * 0 == 0.0
            assert 3 / f(3) == 1.5
            assert f(4) * 2 != 3.0
    """)
    assert "bracketed" in r[4]
    assert "`* 0`" in r[5]
    assert "divided by the result" in r[6]
    assert 4 not in d and 5 not in d and 6 not in d
    assert 7 not in d or d[7].kind is not ExpectKind.ne     # `!=`: a str result passes it; never read as f != 1.5
