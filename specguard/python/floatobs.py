"""Float arithmetic on a result compared with a number: ``f(x) * 2 == 3.0``, ``f(x) / 3 ==
0.3333333333333333``, ``0.5 + f(x) == 2.0`` read exactly as ``f(x) == v`` (or ``f(x) in (v1, ..,
vn)`` when rounding makes several numbers pass): the ``==``-classes of the results that pass, all
of them and nothing else; otherwise refused with the reason (never weakened).

The assertion ``r OP k == c`` (``k``, ``c`` exact numbers, ``OP`` one of ``+ - * /`` with the
result on either side of ``+ - *`` and on the left of ``/``) passes for a result ``r`` exactly when
``r`` is a number whose CPython arithmetic lands on ``c``; for any other plain value (None, a str,
a list, ...) the operation raises or gives something that is not a number, and ``== c`` is false
(so ``f(x) == v`` fails for it too).  Floats and ints are each searched:

* ``h(r) = r OP k`` is monotone in ``r`` on the floats and on the ints: each of CPython's operations
  is the exact operation followed by a rounding (an int operand is first converted with
  ``float(n)``, itself a monotone rounding; ``int / int`` rounds the exact quotient), and
  rounding to nearest is monotone.  So the results passing form a run of consecutive floats (and
  one of consecutive ints), around the exact solution ``x0`` of ``x OP k = c``.
* A window of floats (ints) around the float (int) nearest to ``x0`` is evaluated with CPython's
  own arithmetic on these constants; its two ends must lie strictly on opposite sides of ``c``
  (then, by monotonicity, nothing outside the window passes).  An end that raises, gives NaN or
  lands on ``c`` makes the reading refuse.
* Every member of each passing value's class must pass: an integral value that is a float needs
  both ``float(v)`` and ``int(v)`` (True/False are ints in arithmetic, so they pass with
  ``int(v)``); a class some member of which fails is refused.

``k == 0`` with ``*`` and ``/`` is refused (every finite result, or a ZeroDivisionError).
"""

from __future__ import annotations

import ast
import math
from fractions import Fraction

from specguard.python.values import V

WINDOW = 16         # floats (ints) evaluated on each side of the nearest one
_OPS = {ast.Add: "+", ast.Sub: "-", ast.Mult: "*", ast.Div: "/"}


class Refused(Exception):
    """The assertion is not one class ``f(x) == v``; ``reason`` says why."""

    def __init__(self, reason: str) -> None:
        self.reason = reason
        super().__init__(reason)


def applies(op: ast.operator, k: V, c: V) -> bool:
    """Whether ``r OP k == c`` is a float form this module reads (the int-only forms are the spec
    language's): an operator of the four, numbers, and a float among ``k``, ``c`` or a ``/``."""
    return (type(op) in _OPS and k.kind in ("int", "bool", "float") and c.kind in ("int", "bool", "float")
            and (k.kind == "float" or c.kind == "float" or isinstance(op, ast.Div)))


def _apply(op: str, result_left: bool, r, k):
    a, b = (r, k) if result_left else (k, r)
    if op == "+":
        return a + b
    if op == "-":
        return a - b
    if op == "*":
        return a * b
    return a / b


def _side(op: str, result_left: bool, r, k, c) -> int:
    """-1 / 0 / +1: where ``h(r)`` lies against ``c``; raises Refused on an exception or NaN."""
    try:
        y = _apply(op, result_left, r, k)
    except (ArithmeticError, ValueError) as e:       # OverflowError of float(huge int), ZeroDivisionError
        raise Refused(f"`{op}` raises near the value the assertion asks for ({type(e).__name__})") from None
    if isinstance(y, float) and math.isnan(y):
        raise Refused("the arithmetic gives NaN near the value the assertion asks for")
    return (y > c) - (y < c)


def _solution(op: str, result_left: bool, k: Fraction, c: Fraction) -> Fraction:
    """The exact ``x`` with ``x OP k = c`` (``k OP x = c``)."""
    if op == "+":
        return c - k
    if op == "-":
        return c + k if result_left else k - c
    if op == "*":
        return c / k
    return c * k


def _run(candidates: list, op: str, result_left: bool, k, c) -> list:
    """The candidates landing on ``c`` (a window of consecutive floats or ints, in order), after
    checking that the window's ends bracket ``c`` strictly."""
    sides = [_side(op, result_left, r, k, c) for r in candidates]
    if sides[0] == 0 or sides[-1] == 0 or sides[0] == sides[-1]:
        raise Refused("the results that pass are not bracketed by the values searched (very large or "
                      "very small numbers)")
    return [r for r, s in zip(candidates, sides) if s == 0]


def preimage(op: ast.operator, result_left: bool, k: V, c: V) -> tuple[V, ...]:
    """The values ``v1..vn`` (ascending, each a float where its value is one) with: ``r OP k == c``
    (``k OP r == c`` when not ``result_left``) holds for a plain value ``r`` exactly when ``r`` equals
    one of them.  Raises Refused."""
    sym = _OPS[type(op)]
    if sym == "/" and not result_left:
        raise Refused("a number divided by the result (not monotone across 0)")
    kp = int(k.val) if k.kind == "bool" else k.val
    cp = int(c.val) if c.kind == "bool" else c.val
    if any(isinstance(x, float) and not math.isfinite(x) for x in (kp, cp)):
        raise Refused("an infinite or NaN operand in float arithmetic on the result")
    if sym in ("*", "/") and kp == 0:
        raise Refused(f"`{sym} 0` on the result (every finite number, or ZeroDivisionError)")
    x0 = _solution(sym, result_left, Fraction(kp), Fraction(cp))
    if abs(x0) > Fraction(2) ** 1000:
        raise Refused("the value the assertion asks for is beyond the floats searched")
    # floats: the nearest to x0 and WINDOW on each side
    near = float(x0)
    lo = hi = near
    floats = [near]
    for _ in range(WINDOW):
        lo, hi = math.nextafter(lo, -math.inf), math.nextafter(hi, math.inf)
        floats = [lo, *floats, hi]
    passing = _run(floats, sym, result_left, kp, cp)
    base = math.floor(x0)
    ints = list(range(base - WINDOW, base + WINDOW + 2))
    passing_ints = _run(ints, sym, result_left, kp, cp)
    values = sorted({Fraction(x) for x in passing} | {Fraction(n) for n in passing_ints})
    if not values:
        raise Refused(f"no number `r` gives `r {sym} {kp!r} == {cp!r}` (every result fails)"
                      if result_left else f"no number `r` gives `{kp!r} {sym} r == {cp!r}` (every result fails)")
    out = []
    for u in values:             # every member of u's class must pass: then "r == some u" is exact
        as_float = float(u) if Fraction(float(u)) == u else None
        if as_float is not None and as_float not in passing:
            raise Refused(f"`{u}` passes as an int but `{as_float!r}` does not (an int and a float of one "
                          "value differ here)")
        if u.denominator == 1 and int(u) not in passing_ints:
            raise Refused(f"`{as_float!r}` passes but the int `{int(u)}` does not (an int and a float of one "
                          "value differ here)")
        out.append(V("float", as_float) if as_float is not None else V("int", int(u)))
    return tuple(out)
