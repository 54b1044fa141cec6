"""Safe evaluation of constant Python expressions into exact values (:class:`~specguard.python.values.V`).

Works on ``ast`` nodes only: nothing is passed to ``eval``/``exec`` and no user code runs.  The
only Python operations performed are builtin arithmetic, ``float()``/``int()`` conversions,
``format()`` and slicing on *plain* data (ints, floats, strs, bytes, tuples), whose results are
then turned back into exact values.  Anything not understood raises :class:`NotLiteral`.

Supported forms
===============

=============================  ===============================================================
form                           notes
=============================  ===============================================================
constants                      int, float, str, bytes, bool, None (not ``...``, not complex)
``[..]`` ``(..)`` ``{..}``     list / tuple / set / dict displays, source order kept; ``*xs`` and
                               ``**d`` unpacking of literal values; duplicate set elements and
                               dict keys follow CPython (:func:`~specguard.python.values.make_dict`,
                               :func:`~specguard.python.values.make_set`)
``-x`` ``+x`` ``~x``           numbers (``~`` on int/bool)
``not x``                      any value (truthiness of plain data)
``+ - * / // % **``            numbers, with Python semantics (bool is an int, int/float mixing)
``<< >> & | ^``                ints / bools
``s + t``                      str + str, bytes + bytes, list + list, tuple + tuple
``s * n``, ``n * s``           str, bytes, list, tuple repeated an int number of times
``x[i]``, ``x[i:j:k]``         list / tuple / str / bytes index and slice; dict lookup by key
f-strings                      parts that are literals, with ``!r``/``!s``/``!a`` and literal specs
``list(it)`` ``tuple(it)``     ``it`` a literal container, str, ``range(..)``, ``enumerate(..)``,
``set(it)`` ``frozenset(it)``  ``zip(..)`` or ``d.keys()/.values()/.items()`` of a literal dict
``dict(..)``                   ``dict()``, ``dict(pairs_or_dict)``, ``dict(k=v, ...)``
``float(x)`` ``int(x)``        of a number or a numeric string; ``float('inf')``/``'-inf'``
names                          looked up in ``env`` (see below)
=============================  ===============================================================

NaN: ``float('nan')`` (and ``-x`` of a NaN) is a new NaN *object*, ``math.nan`` the module's one
(:func:`~specguard.python.values.nan_object`: arguments only, identity kept; see values.py).

Refused with a reason: NaN from arithmetic (``inf - inf``, ...: its sign is the platform's),
complex numbers, division by
zero, overflow, ``**`` with an exponent above :data:`MAX_EXPONENT`, ints with more than
:data:`MAX_INT_DIGITS` digits (or more than Python's int-to-str limit,
``sys.get_int_max_str_digits()``, since such ints could not be printed or serialised), str/bytes/
sequences longer than :data:`MAX_SEQ_LEN`, values of more than :data:`MAX_VALUE_SIZE` nodes
(:func:`~specguard.python.values.value_size`), and nesting too deep for the evaluator.

Object identity.  An exact value cannot say that two parts are *the same object*, which a function
that mutates its arguments can observe.  So the evaluator refuses expressions that would build
aliased mutable objects: repeating a sequence whose elements contain a list/dict/set
(``[[]] * 2``), and using a name whose value contains a list/dict/set twice in one evaluation
(``[x, x]``; use :func:`eval_literals` to evaluate a call's arguments together).

``env`` maps names to values.  A mapping may raise :class:`NotLiteral` from ``__getitem__`` to say
why a name has no literal value (the test formalizer does this, e.g. "bound at line 4 by a call");
a missing name gives a generic reason.  A name present in ``env`` also shadows the builtins above.
"""

from __future__ import annotations

import ast
import functools
import math
import operator
import re
import sys
from collections.abc import Mapping
from typing import Any, Callable, Iterable, NamedTuple, Sequence

from specguard.python.values import (V, canon, is_hashable, is_nan_object, make_dict, make_set, nan_bits,
                                     nan_object, sort_key, to_python, value_size)

__all__ = ["NotLiteral", "eval_literal", "eval_literals", "eval_literal_text", "eval_iterable",
           "is_mutable", "MAX_EXPONENT", "MAX_INT_DIGITS", "MAX_SEQ_LEN", "MAX_VALUE_SIZE",
           "MAX_RANGE"]

MAX_EXPONENT = 10_000
"""Largest ``**`` exponent (in absolute value) evaluated."""
MAX_INT_DIGITS = 10**6
"""Largest int (decimal digits); also capped by ``sys.get_int_max_str_digits()`` when set."""
MAX_SEQ_LEN = 10**7
"""Longest str / bytes / list / tuple built by repetition or concatenation."""
MAX_VALUE_SIZE = 10**7
"""Most nodes in one value (:func:`~specguard.python.values.value_size`)."""
MAX_RANGE = 10**6
"""Most elements of a ``range(...)`` evaluated."""
MAX_COMPREHENSION_STEPS = 10**6
"""Most iterations (all generators together) of one comprehension evaluated."""
"""Most elements materialised from one ``range(..)``."""

_SEQ_KINDS = ("str", "bytes", "list", "tuple")
_NUM_KINDS = ("bool", "int", "float")
_MUTABLE_KINDS = ("list", "dict", "set")


class NotLiteral(ValueError):
    """Raised when an expression is not a literal SpecGuard can evaluate exactly; ``reason`` says why."""

    def __init__(self, reason: str) -> None:
        self.reason = reason
        super().__init__(reason)


# =====================================================================================
# public entry points
# =====================================================================================

def eval_literal(node: ast.expr, env: Mapping[str, V] | None = None) -> V:
    """The exact value of a constant expression node (raises :class:`NotLiteral`)."""
    return eval_literals([node], env)[0]


def eval_literals(nodes: Sequence[ast.expr], env: Mapping[str, V] | None = None) -> list[V]:
    """Several expressions evaluated together (a call's arguments): a mutable named value may be
    used only once among all of them, since the parts would otherwise share one object."""
    out: list[V] = []
    shared: set[str] = set()
    for n in nodes:
        ev = _Evaluator(env)
        v = ev.top(n).v
        if is_mutable(v):          # only a value holding a list/dict/set can hold a named object
            if ev.mutable_names & shared:
                name = sorted(ev.mutable_names & shared)[0]
                raise NotLiteral(f"`{name}` is used twice, and both uses would share one mutable object")
            shared |= ev.mutable_names
        out.append(v)
    return out


def eval_literal_text(src: str) -> V:
    """The exact value of one expression given as source text (raises :class:`NotLiteral`)."""
    try:
        tree = ast.parse(src.strip(), mode="eval")
    except SyntaxError as e:
        raise NotLiteral(f"not a Python expression: {e.msg}") from None
    except (ValueError, RecursionError, MemoryError):
        raise NotLiteral("not a Python expression") from None
    return eval_literal(tree.body)


def eval_iterable(node: ast.expr, env: Mapping[str, V] | None = None) -> list[V]:
    """The elements a ``for`` loop over ``node`` would see: a literal container (dict: its keys;
    str: its characters; bytes: ints), ``range(..)``, ``enumerate(..)``, ``zip(..)``,
    ``reversed(..)`` or ``d.keys()/.values()/.items()`` of literals."""
    ev = _Evaluator(env)
    return ev.guard(lambda: [r.v for r in ev.iterate(node)])


def is_mutable(v: V) -> bool:
    """Whether ``v`` contains a list, dict or set, or an iterator (an object a callee could
    mutate, or consume)."""
    if v.kind in _MUTABLE_KINDS or v.kind == "obj" and v.val[0] in ("iter", "gen", "result"):
        return True
    if v.kind in ("tuple", "frozenset"):
        return any(is_mutable(x) for x in v.val)
    return False


# =====================================================================================
# limits
# =====================================================================================

def _digit_limit() -> int:
    py = sys.get_int_max_str_digits()
    return MAX_INT_DIGITS if py == 0 else min(MAX_INT_DIGITS, py)


@functools.lru_cache(maxsize=4)
def _int_bound(digits: int) -> int:
    return 10**digits


def _max_int_bits() -> int:
    return int(_digit_limit() / math.log10(2)) + 2


def _check_int(n: int) -> int:
    digits = _digit_limit()
    if n.bit_length() > _max_int_bits() or abs(n) >= _int_bound(digits):
        raise NotLiteral(f"integer with more than {digits} digits is too large")
    return n


def _check_float(x: float) -> float:
    if math.isnan(x):
        raise NotLiteral("NaN is not supported")
    return x


def _bits_float(bits: int) -> float:
    import struct
    return struct.unpack("<d", struct.pack("<Q", bits))[0]


def _check_len(n: int, what: str) -> None:
    if n > MAX_SEQ_LEN:
        raise NotLiteral(f"{what} of length {n:,} is longer than the {MAX_SEQ_LEN:,} limit")


def _check_size(size: int) -> None:
    if size > MAX_VALUE_SIZE:
        raise NotLiteral(f"value of {size:,} nodes is larger than the {MAX_VALUE_SIZE:,} limit")


_INFO_CACHE: dict[int, tuple[V, int, bool]] = {}


def _env_info(v: V) -> tuple[int, bool]:
    """(value_size, is_mutable) of an env value, memoised by identity for large containers
    (env values are looked up once per assertion)."""
    if v.kind not in ("list", "tuple", "set", "frozenset", "dict") or len(v.val) < 32:
        return value_size(v), is_mutable(v)
    hit = _INFO_CACHE.get(id(v))
    if hit is not None and hit[0] is v:
        return hit[1], hit[2]
    if len(_INFO_CACHE) > 4096:
        _INFO_CACHE.clear()
    info = (value_size(v), is_mutable(v))
    _INFO_CACHE[id(v)] = (v, *info)
    return info


# =====================================================================================
# the evaluator
# =====================================================================================

class _R(NamedTuple):
    """An evaluated value and its node count."""

    v: V
    size: int


def _scalar(v: V) -> _R:
    return _R(v, value_size(v) if v.kind in ("str", "bytes") else 1)


def _container(kind: str, items: Sequence[_R]) -> _R:
    size = 1 + sum(r.size for r in items)
    _check_size(size)
    return _R(V(kind, tuple(r.v for r in items)), size)


def _truthy(v: V) -> bool:
    if v.kind == "none":
        return False
    if v.kind in ("bool", "int", "float", "str", "bytes"):
        return bool(v.val)
    if v.kind == "obj":           # a range is false when empty; iterators are always true
        return v.val[0] != "range" or len(range(*(b.val for b in v.val[1].val))) > 0
    if v.kind not in ("list", "tuple", "dict", "set", "frozenset"):
        return True               # a function value
    return len(v.val) > 0


def _plain(v: V) -> Any:
    """A scalar's Python object (only scalars are ever handed to Python operations)."""
    if v.kind == "none":
        return None
    if v.kind in ("bool", "int", "float", "str", "bytes"):
        return v.val
    raise NotLiteral(f"{v.kind} is not a scalar")


def _from_plain(x: Any) -> _R:
    t = type(x)
    if t is bool:
        return _scalar(V("bool", x))
    if t is int:
        return _scalar(V("int", _check_int(x)))
    if t is float:
        return _scalar(V("float", _check_float(x)))
    if t is str:
        _check_len(len(x), "str")
        return _scalar(V("str", x))
    if t is bytes:
        _check_len(len(x), "bytes")
        return _scalar(V("bytes", x))
    if x is None:
        return _scalar(V("none"))
    raise NotLiteral(f"result of type {t.__name__} is not plain data")


_BINOPS: dict[type, Callable[[Any, Any], Any]] = {
    ast.Add: operator.add, ast.Sub: operator.sub, ast.Mult: operator.mul, ast.Div: operator.truediv,
    ast.FloorDiv: operator.floordiv, ast.Mod: operator.mod, ast.Pow: operator.pow,
    ast.LShift: operator.lshift, ast.RShift: operator.rshift, ast.BitAnd: operator.and_,
    ast.BitOr: operator.or_, ast.BitXor: operator.xor,
}
_BITOPS = (ast.LShift, ast.RShift, ast.BitAnd, ast.BitOr, ast.BitXor)
_OP_TEXT = {ast.Add: "+", ast.Sub: "-", ast.Mult: "*", ast.Div: "/", ast.FloorDiv: "//", ast.Mod: "%",
            ast.Pow: "**", ast.LShift: "<<", ast.RShift: ">>", ast.BitAnd: "&", ast.BitOr: "|",
            ast.BitXor: "^", ast.MatMult: "@"}


def _precheck_int_op(op: ast.operator, a: Any, b: Any) -> None:
    """Refuse int operations whose result would certainly be too large, before computing them."""
    if type(a) not in (int, bool) or type(b) not in (int, bool):
        return
    limit = _max_int_bits()
    if isinstance(op, ast.Pow) and b > 0 and abs(a) > 1 and (abs(a).bit_length() - 1) * b > limit:
        raise NotLiteral(f"integer with more than {_digit_limit()} digits is too large")
    if isinstance(op, ast.Mult) and a and b and abs(a).bit_length() + abs(b).bit_length() - 2 > limit:
        raise NotLiteral(f"integer with more than {_digit_limit()} digits is too large")
    if isinstance(op, ast.LShift) and a and b > limit:
        raise NotLiteral(f"integer with more than {_digit_limit()} digits is too large")


def _numeric_binop(op: ast.operator, a: V, b: V) -> _R:
    x, y = a.val, b.val
    if isinstance(op, ast.Pow) and type(y) in (int, bool) and abs(y) > MAX_EXPONENT:
        raise NotLiteral(f"exponent {y} is larger than the {MAX_EXPONENT} limit")
    if isinstance(op, _BITOPS) and (a.kind == "float" or b.kind == "float"):
        raise NotLiteral(f"operator {_OP_TEXT[type(op)]} on a float")
    _precheck_int_op(op, x, y)
    try:
        result = _BINOPS[type(op)](x, y)
    except ZeroDivisionError:
        raise NotLiteral("division by zero") from None
    except OverflowError:
        raise NotLiteral("numeric overflow") from None
    except (ValueError, TypeError) as e:
        raise NotLiteral(f"operation fails in Python: {e}") from None
    if type(result) is complex:
        raise NotLiteral("complex result is not supported")
    return _from_plain(result)


class _Evaluator:
    def __init__(self, env: Mapping[str, V] | None) -> None:
        self.env = env
        self.mutable_names: set[str] = set()
        # comprehension steps of the whole expression: nested comprehensions share the budget
        # (`[[j for j in range(10**4)] for i in range(10**4)]` is 10**8 steps, not 10**4 twice)
        self.comprehension_steps = 0

    # -- driver ---------------------------------------------------------------------
    def guard(self, fn: Callable[[], Any]) -> Any:
        try:
            return fn()
        except RecursionError:
            raise NotLiteral("expression is nested too deeply") from None
        except MemoryError:
            raise NotLiteral("value is too large") from None

    def top(self, node: ast.expr) -> _R:
        r = self.guard(lambda: self.ev(node))
        if r.v.kind in ("obj", "list", "tuple", "dict") and _holds_lazy(r.v):
            raise NotLiteral("an iterator built by a library call is not a value here (only consumed "
                             "where it is built, by `list(..)` or a loop)")
        return r

    def ev(self, node: ast.expr) -> _R:
        method = getattr(self, "ev_" + type(node).__name__, None)
        if method is None:
            raise NotLiteral(f"{_describe(node)} is not a literal")
        return method(node)

    # -- leaves ---------------------------------------------------------------------
    def ev_Constant(self, node: ast.Constant) -> _R:
        x = node.value
        if type(x) in (bool, int, float, str, bytes) or x is None:
            return _from_plain(x)
        raise NotLiteral(f"constant {x!r} is not plain data")

    def ev_Name(self, node: ast.Name) -> _R:
        if self.env is None:
            raise NotLiteral(f"name `{node.id}` is not a literal")
        try:
            v = self.env[node.id]
        except KeyError:
            raise NotLiteral(f"name `{node.id}` is not bound to a literal") from None
        except NotLiteral:
            from specguard.python import concrete
            v = concrete.stdlib_value(self.env, node)    # `ascii_lowercase` from `string`
            if v is None:
                nested = getattr(self.env, "nested_function", None)   # `(add, 5)`: a builtin function value
                v = nested(node) if nested is not None else None
            if v is None:
                raise
        size, mutable = _env_info(v)
        if mutable:
            if node.id in self.mutable_names:
                raise NotLiteral(f"`{node.id}` is used twice, and both uses would share one mutable object")
            self.mutable_names.add(node.id)
        _check_size(size)
        return _R(v, size)

    def ev_Attribute(self, node: ast.Attribute) -> _R:
        """``self.x`` / ``cls.x``: an attribute a setup bound to an exact value is looked up in the
        environment under its dotted name (only names that hold one; a parse never makes such a name)."""
        d = dotted_name(node)
        if d is not None and d.split(".")[0] not in ("self", "cls"):
            from specguard.python import concrete
            v = concrete.stdlib_value(self.env, node)    # `string.digits`
            if v is not None:
                return _scalar(v)
        if d is None or d.split(".")[0] not in ("self", "cls") or self.env is None or d not in self.env:
            raise NotLiteral(f"{_describe(node)} is not a literal")
        v = self.env[d]
        size, mutable = _env_info(v)
        if mutable:
            raise NotLiteral(f"`{d}` holds a mutable value")
        _check_size(size)
        return _R(v, size)

    # -- comprehensions over exact values ---------------------------------------------------------
    def ev_ListComp(self, node: ast.ListComp) -> _R:
        return _container("list", self.comprehension(node.generators, lambda: [self.ev(node.elt)]))

    def ev_SetComp(self, node: ast.SetComp) -> _R:
        return self.make_set(self.comprehension(node.generators, lambda: [self.ev(node.elt)], False), "set")

    def ev_DictComp(self, node: ast.DictComp) -> _R:
        key = lambda: self.ev(node.key)     # noqa: E731 (Python evaluates the key first)
        return self.make_dict(self.comprehension(node.generators, lambda: [(key(), self.ev(node.value))]))

    def ev_GeneratorExp(self, node: ast.GeneratorExp) -> _R:
        """A generator expression as a value (an argument, #12.3): an input of its own, never equal
        to a list, an ``iter(...)`` or a generator written elsewhere.  A function can tell a
        generator from a list iterator (``type``, ``send``, ``gi_code``: the code's file and
        position), so the value is keyed by its site (file, position), its text, the value of
        its first iterable (what ``gi_frame`` holds) and the items it yields, all exact.  Only
        where every item is exact when built: the elements and conditions read no name but the
        comprehension's own and builtin calls (a generator reads its other names when it is
        iterated, which may be later), and the test reader marked the node with its file."""
        site = getattr(node, "sg_site", None)
        if site is None:
            raise NotLiteral("a generator expression is not a literal")
        targets = {n for g in node.generators for n in _comp_targets(g.target)}
        late = [node.elt, *(c for g in node.generators for c in g.ifs), *(g.iter for g in node.generators[1:])]
        calls = {id(n.func) for x in late for n in ast.walk(x) if isinstance(n, ast.Call)}
        for x in late:
            for n in ast.walk(x):
                if isinstance(n, ast.Name) and n.id not in targets and not (id(n) in calls and not self.shadowed(n.id)):
                    raise NotLiteral(f"a generator expression that reads `{n.id}` when it is iterated (a "
                                     "generator reads its names then, not when it is built)")
                if isinstance(n, (ast.Lambda, ast.NamedExpr, ast.Await, ast.Yield, ast.YieldFrom)):
                    raise NotLiteral("a generator expression with a lambda, `:=` or `await` inside")
        first = self.ev(node.generators[0].iter)
        items = self.comprehension(node.generators, lambda: [self.ev(node.elt)])
        where = f"{site}:{node.lineno}:{node.col_offset}:{node.end_lineno}:{node.end_col_offset}"
        payload = [_scalar(V("str", where)), _scalar(V("str", ast.unparse(node))), first, _container("list", items)]
        r = _container("tuple", payload)
        return _R(V("obj", ("gen", r.v)), r.size + 1)

    def comprehension(self, gens: list[ast.comprehension], produce: Callable[[], list[Any]],
                      ordered: bool = True) -> list[Any]:
        """Python's comprehension semantics over exact iterables: the generators nested left to
        right, each ``if`` filtering, the targets bound in the comprehension's own scope (names of
        the enclosing scope are not changed)."""
        outer = self.env
        local: dict[str, V] = {}
        out: list[Any] = []
        size = [1]

        def run(i: int) -> None:
            if i == len(gens):
                made = produce()
                # the result's size as it grows: each element is a new value (`{i: "a" * 10**7 for
                # i in range(1000)}` holds 10**10 characters), refused before all of it is built
                size[0] += sum(x.size if isinstance(x, _R) else sum(r.size for r in x) for x in made)
                _check_size(size[0])
                out.extend(made)
                return
            g = gens[i]
            if g.is_async:
                raise NotLiteral("an async comprehension is not a literal")
            self.env = outer if i == 0 else _Overlay(local, outer)   # the first iterable: enclosing scope
            items = self.iterate(g.iter, ordered)
            self.env = _Overlay(local, outer)
            targets = _comp_targets(g.target)
            for item in items:
                self.comprehension_steps += 1
                if self.comprehension_steps > MAX_COMPREHENSION_STEPS:
                    raise NotLiteral(f"comprehension of more than {MAX_COMPREHENSION_STEPS:,} steps")
                _bind_comp(g.target, item.v, local)
                self.mutable_names.difference_update(targets)   # a fresh binding each iteration
                if all(self.condition(c) for c in g.ifs):
                    run(i + 1)

        try:
            run(0)
        finally:
            self.env = outer
        for name in {n for g in gens for n in _comp_targets(g.target)}:
            self.mutable_names.discard(name)
        return out

    def condition(self, node: ast.expr) -> bool:
        """The truth of a comprehension's ``if`` (comparisons are evaluated there only)."""
        if isinstance(node, ast.Compare):
            return _truthy(self.compare(node).v)
        return _truthy(self.ev(node).v)

    def compare(self, node: ast.Compare) -> _R:
        """Comparisons of scalars (``i % 2 == 0``, ``x > 3``, ``c in "aeiou"``), with Python's operators."""
        left = _plain(self.ev(node.left).v)
        result = True
        for op, comp in zip(node.ops, node.comparators):
            right = _plain(self.ev(comp).v)
            fn = _COMPARE.get(type(op))
            if fn is None:
                raise NotLiteral(f"the `{type(op).__name__}` comparison is not evaluated")
            if isinstance(op, (ast.In, ast.NotIn)) and not (isinstance(left, str) and isinstance(right, str)):
                raise NotLiteral("`in` is evaluated between strings only")
            if isinstance(op, (ast.Lt, ast.LtE, ast.Gt, ast.GtE)) and not (
                    all(type(x) in (bool, int, float) for x in (left, right))
                    or all(type(x) is str for x in (left, right)) or all(type(x) is bytes for x in (left, right))):
                raise NotLiteral("ordering of values of different kinds")
            result = bool(fn(left, right))
            if not result:
                break
            left = right
        return _scalar(V("bool", result))

    def shadowed(self, name: str) -> bool:
        if self.env is None:
            return False
        return name in self.env

    # -- displays -------------------------------------------------------------------
    def elements(self, nodes: Iterable[ast.expr]) -> list[_R]:
        out: list[_R] = []
        for n in nodes:
            if isinstance(n, ast.Starred):
                out.extend(self.iterate(n.value))
            else:
                out.append(self.ev(n))
        return out

    def ev_List(self, node: ast.List) -> _R:
        return _container("list", self.elements(node.elts))

    def ev_Tuple(self, node: ast.Tuple) -> _R:
        return _container("tuple", self.elements(node.elts))

    def ev_Set(self, node: ast.Set) -> _R:
        return self.make_set(self.elements(node.elts), "set")

    def ev_Dict(self, node: ast.Dict) -> _R:
        pairs: list[tuple[_R, _R]] = []
        for k, v in zip(node.keys, node.values):
            if k is None:
                pairs.extend(self.dict_pairs(self.ev(v)))
            else:
                pairs.append((self.ev(k), self.ev(v)))
        return self.make_dict(pairs)

    def make_set(self, items: list[_R], kind: str) -> _R:
        try:
            v = make_set((r.v for r in items), kind)
        except TypeError as e:
            raise NotLiteral(str(e)) from None
        return self.resized(v)

    def make_dict(self, pairs: list[tuple[_R, _R]]) -> _R:
        try:
            v = make_dict((a.v, b.v) for a, b in pairs)
        except TypeError as e:
            raise NotLiteral(str(e)) from None
        return self.resized(v)

    @staticmethod
    def resized(v: V) -> _R:
        size = value_size(v)
        _check_size(size)
        return _R(v, size)

    @staticmethod
    def dict_pairs(d: _R) -> list[tuple[_R, _R]]:
        if d.v.kind != "dict":
            raise NotLiteral(f"`**` of a {d.v.kind}, not a dict")
        return [(_R(a, value_size(a)), _R(b, value_size(b))) for a, b in d.v.val]

    # -- operators ------------------------------------------------------------------
    def ev_UnaryOp(self, node: ast.UnaryOp) -> _R:
        r = self.ev(node.operand)
        if isinstance(node.op, ast.Not):
            return _scalar(V("bool", not _truthy(r.v)))
        if isinstance(node.op, ast.USub) and is_nan_object(r.v):     # `-math.nan`: a new NaN, sign flipped
            return _R(nan_object(_bits_float(nan_bits(r.v) ^ (1 << 63))), 2)
        if r.v.kind not in _NUM_KINDS or (isinstance(node.op, ast.Invert) and r.v.kind == "float"):
            raise NotLiteral(f"unary operator on a {r.v.kind}")
        x = r.v.val
        if isinstance(node.op, ast.USub):
            return _from_plain(-x)
        if isinstance(node.op, ast.UAdd):
            return _from_plain(+x)
        return _from_plain(~x)

    def ev_BinOp(self, node: ast.BinOp) -> _R:
        a, b = self.ev(node.left), self.ev(node.right)
        op = node.op
        if type(op) not in _BINOPS:
            raise NotLiteral(f"operator {_OP_TEXT.get(type(op), '?')} is not supported")
        if a.v.kind in _NUM_KINDS and b.v.kind in _NUM_KINDS:
            return _numeric_binop(op, a.v, b.v)
        if isinstance(op, ast.Add) and a.v.kind == b.v.kind and a.v.kind in _SEQ_KINDS:
            return self.concat(a, b)
        if isinstance(op, ast.Mult) and a.v.kind in _SEQ_KINDS and b.v.kind in ("int", "bool"):
            return self.repeat(a, b.v.val)
        if isinstance(op, ast.Mult) and b.v.kind in _SEQ_KINDS and a.v.kind in ("int", "bool"):
            return self.repeat(b, a.v.val)
        raise NotLiteral(f"operator {_OP_TEXT[type(op)]} on {a.v.kind} and {b.v.kind} is not supported")

    @staticmethod
    def concat(a: _R, b: _R) -> _R:
        kind = a.v.kind
        _check_len(len(a.v.val) + len(b.v.val), kind)
        if kind in ("str", "bytes"):
            return _scalar(V(kind, a.v.val + b.v.val))
        size = a.size + b.size - 1
        _check_size(size)
        return _R(V(kind, a.v.val + b.v.val), size)

    @staticmethod
    def repeat(seq: _R, n: int) -> _R:
        n = max(int(n), 0)
        kind = seq.v.kind
        if not seq.v.val:
            return seq
        _check_len(len(seq.v.val) * n, kind)
        if kind in ("str", "bytes"):
            return _scalar(V(kind, seq.v.val * n))
        if n > 1 and any(is_mutable(x) for x in seq.v.val):
            raise NotLiteral("repeating a sequence of mutable elements would share them (`[[]] * n`)")
        size = 1 + (seq.size - 1) * n
        _check_size(size)
        return _R(V(kind, seq.v.val * n), size)

    # -- subscripts -----------------------------------------------------------------
    def ev_Subscript(self, node: ast.Subscript) -> _R:
        base = self.ev(node.value)
        if isinstance(node.slice, ast.Slice):
            return self.slice(base, node.slice)
        key = self.ev(node.slice)
        if base.v.kind == "dict":
            return self.lookup(base.v, key.v)
        if base.v.kind not in _SEQ_KINDS:
            raise NotLiteral(f"cannot index a {base.v.kind}")
        if key.v.kind not in ("int", "bool"):
            raise NotLiteral(f"index of type {key.v.kind} is not an int")
        try:
            item = base.v.val[key.v.val]
        except IndexError:
            raise NotLiteral("index out of range") from None
        if base.v.kind == "str":
            return _scalar(V("str", item))
        if base.v.kind == "bytes":
            return _scalar(V("int", item))
        return _R(item, value_size(item))

    @staticmethod
    def lookup(d: V, key: V) -> _R:
        if not is_hashable(key):
            raise NotLiteral("unhashable dict key")
        want = sort_key(canon(key))
        for k, v in d.val:
            if sort_key(canon(k)) == want:
                return _R(v, value_size(v))
        raise NotLiteral("key not in dict")

    def slice(self, base: _R, s: ast.Slice) -> _R:
        if base.v.kind not in _SEQ_KINDS:
            raise NotLiteral(f"cannot slice a {base.v.kind}")
        bounds = []
        for part in (s.lower, s.upper, s.step):
            if part is None:
                bounds.append(None)
                continue
            r = self.ev(part)
            if r.v.kind not in ("int", "bool", "none"):
                raise NotLiteral("slice bound is not an int")
            bounds.append(_plain(r.v))
        try:
            items = base.v.val[slice(*bounds)]
        except ValueError as e:
            raise NotLiteral(str(e)) from None
        if base.v.kind in ("str", "bytes"):
            return _scalar(V(base.v.kind, items))
        return self.resized(V(base.v.kind, items))

    # -- f-strings ------------------------------------------------------------------
    def ev_JoinedStr(self, node: ast.JoinedStr) -> _R:
        parts: list[str] = []
        for p in node.values:
            if isinstance(p, ast.Constant) and isinstance(p.value, str):
                parts.append(p.value)
            elif isinstance(p, ast.FormattedValue):
                parts.append(self.formatted(p))
            else:
                raise NotLiteral("f-string part is not a literal")
        return _from_plain("".join(parts))

    def formatted(self, p: ast.FormattedValue) -> str:
        obj = to_python(self.ev(p.value).v)
        conv = {-1: None, 115: str, 114: repr, 97: ascii}.get(p.conversion)
        if conv is not None:
            obj = conv(obj)
        spec = "" if p.format_spec is None else self.ev(p.format_spec).v.val
        if any(len(d) > 6 for d in re.findall(r"\d+", spec)):
            raise NotLiteral("f-string format width or precision is too large")
        try:
            text = format(obj, spec)
        except (ValueError, TypeError) as e:
            raise NotLiteral(f"f-string format fails: {e}") from None
        _check_len(len(text), "str")
        return text

    # -- calls ----------------------------------------------------------------------
    def ev_Call(self, node: ast.Call) -> _R:
        name = self.callee(node)
        handler = _CALLS.get(name) if name is not None else None
        if handler is None and isinstance(node.func, ast.Name):
            held = getattr(self.env, "held_builtin", None)   # `D({1: 2})` with `D = dict`: the builtin itself
            b = held(node.func.id) if held is not None else None
            if b is not None and "." not in b:
                from specguard.python import concrete
                fn = _CALLS.get(b) or concrete.BUILTIN_CALLS.get(b)
                if fn is not None:
                    return fn(self, ast.copy_location(ast.Call(func=ast.Name(b, ast.Load()), args=node.args,
                                                               keywords=node.keywords), node))
        if handler is None:
            from specguard.python import concrete        # builtins and methods on exact values (#12.1)
            got = concrete.stdlib_call(self, node)
            if got is not None:
                return got
            if name is not None and name in concrete.BUILTIN_CALLS:
                return concrete.builtin_call(self, name, node)
            if isinstance(node.func, ast.Attribute) and not _names_module(node.func.value, self.env):
                return concrete.method_call(self, node)
            shown = dotted_name(node.func)
            if shown is None:
                try:
                    shown = ast.unparse(node.func)
                except (ValueError, RecursionError):
                    shown = "..."
                shown = shown if len(shown) <= 60 else shown[:57] + "..."
            raise NotLiteral(f"call of `{shown}` is not a literal")
        return handler(self, node)

    def callee(self, node: ast.Call) -> str | None:
        """The builtin a call names (None when the name is shadowed in env or not a plain name)."""
        if isinstance(node.func, ast.Name) and not self.shadowed(node.func.id):
            return node.func.id
        return None

    def only_args(self, node: ast.Call, most: int) -> list[ast.expr]:
        if node.keywords or len(node.args) > most or any(isinstance(a, ast.Starred) for a in node.args):
            raise NotLiteral(f"unsupported arguments to `{dotted_name(node.func)}`")
        return node.args

    def call_sequence(self, node: ast.Call) -> _R:
        kind = node.func.id  # list, tuple, set, frozenset
        args = self.only_args(node, 1)
        items = self.iterate(args[0], ordered=kind in ("list", "tuple")) if args else []
        if kind in ("set", "frozenset"):
            return self.make_set(items, kind)
        return _container(kind, items)

    def call_dict(self, node: ast.Call) -> _R:
        args = self.only_args_dict(node)
        pairs: list[tuple[_R, _R]] = []
        if args:
            pairs.extend(self.pairs_of(args[0]))
        for kw in node.keywords:
            if kw.arg is None:
                pairs.extend(self.dict_pairs(self.ev(kw.value)))
            else:
                pairs.append((_scalar(V("str", kw.arg)), self.ev(kw.value)))
        return self.make_dict(pairs)

    def only_args_dict(self, node: ast.Call) -> list[ast.expr]:
        if len(node.args) > 1 or any(isinstance(a, ast.Starred) for a in node.args):
            raise NotLiteral("unsupported arguments to `dict`")
        return node.args

    def pairs_of(self, node: ast.expr) -> list[tuple[_R, _R]]:
        """``dict(x)``'s pairs: a dict's items, or an iterable of 2-element lists/tuples."""
        if _is_iter_call(node):
            items = self.iterate(node)
        else:
            src = self.ev(node)
            if src.v.kind == "dict":
                return self.dict_pairs(src)
            items = self.elements_of(src)
        out = []
        for item in items:
            if item.v.kind not in ("list", "tuple") or len(item.v.val) != 2:
                raise NotLiteral("`dict(...)` element is not a pair")
            a, b = item.v.val
            out.append((_R(a, value_size(a)), _R(b, value_size(b))))
        return out

    def call_float(self, node: ast.Call) -> _R:
        return self._convert(node, float)

    def call_int(self, node: ast.Call) -> _R:
        return self._convert(node, int)

    def _convert(self, node: ast.Call, typ: type) -> _R:
        """``int(x)`` / ``float(x)`` of a str or number, with Python's own conversion."""
        name = typ.__name__
        args = self.only_args(node, 1)
        if not args:
            return _scalar(V(name, typ()))
        x = self.ev(args[0]).v
        if x.kind not in ("str", "int", "float", "bool"):
            raise NotLiteral(f"{name}() of a {x.kind}")
        try:
            result = typ(x.val)
        except (ValueError, OverflowError) as e:
            raise NotLiteral(f"{name}() fails: {e}") from None
        if typ is float and x.kind == "str" and math.isnan(result):
            return _R(nan_object(result), 2)       # `float('nan')`: a new NaN object (values.nan_object)
        return _from_plain(result)

    # -- iteration ------------------------------------------------------------------
    def iterate(self, node: ast.expr, ordered: bool = True) -> list[_R]:
        """Elements of an iterable expression (see :func:`eval_iterable`).  ``ordered``: the
        consumer sees their order (a set of 2+ elements is then refused: CPython iterates it in
        hash order, which the exact value does not keep)."""
        if isinstance(node, ast.Call):
            it = self.iter_call(node)
            if it is not None:
                return it
        if isinstance(node, ast.GeneratorExp):       # consumed at once by list()/tuple()/a loop
            return self.comprehension(node.generators, lambda: [self.ev(node.elt)], ordered)
        r = self.ev(node)
        if isinstance(node, ast.Call) and r.v.kind == "obj" and r.v.val[0] in ("iter", "lazy"):
            return self.elements_of(_R(r.v.val[1], r.size - 1), unordered=not ordered)    # made here, consumed here
        if ordered and r.v.kind in ("set", "frozenset") and len(r.v.val) > 1:
            raise NotLiteral("the iteration order of a set is CPython's hash order, which is not modelled")
        return self.elements_of(r, unordered=not ordered)

    @staticmethod
    def elements_of(r: _R, unordered: bool = False) -> list[_R]:
        v = r.v
        if v.kind in ("set", "frozenset") and len(v.val) > 1 and not unordered:
            # CPython iterates a set in hash-table order: str/bytes hashes vary per process
            # (PYTHONHASHSEED), and the table's order is not the display's order
            raise NotLiteral(f"the iteration order of a {v.kind} of {len(v.val)} elements is not determined "
                             "(hash order)")
        if v.kind == "str":
            return [_scalar(V("str", c)) for c in v.val]
        if v.kind == "bytes":
            return [_scalar(V("int", b)) for b in v.val]
        if v.kind == "dict":
            return [_R(a, value_size(a)) for a, _ in v.val]
        if v.kind in ("list", "tuple", "set", "frozenset"):
            return [_R(x, value_size(x)) for x in v.val]
        if v.kind == "obj" and v.val[0] == "range":
            r = range(*(b.val for b in v.val[1].val))
            if len(r) > MAX_RANGE:
                raise NotLiteral(f"range of {len(r):,} elements is longer than the {MAX_RANGE:,} limit")
            return [_scalar(V("int", i)) for i in r]
        raise NotLiteral(f"a {v.kind} is not iterable here")

    def iter_call(self, node: ast.Call) -> list[_R] | None:
        if isinstance(node.func, ast.Attribute) and node.func.attr in ("keys", "values", "items"):
            return self.dict_view(node)
        name = self.callee(node)
        if name == "range":
            return self.range_items(node)
        if name == "enumerate":
            return self.enumerate_items(node)
        if name == "zip":
            return self.zip_items(node)
        if name in ("map", "filter"):
            return self.map_items(node, name)
        if name == "reversed":
            arg = self.only_args(node, 1)
            if len(arg) != 1:
                raise NotLiteral("reversed() takes one argument")
            if not _is_iter_call(arg[0]):
                seq = self.ev(arg[0])
                if not (seq.v.kind in ("list", "tuple", "str", "bytes", "dict")
                        or seq.v.kind == "obj" and seq.v.val[0] == "range"):
                    raise NotLiteral(f"reversed() of a {seq.v.kind}")
                return list(reversed(self.elements_of(seq)))
            return list(reversed(self.iterate(arg[0])))
        return None

    def dict_view(self, node: ast.Call) -> list[_R]:
        assert isinstance(node.func, ast.Attribute)
        if node.args or node.keywords:
            raise NotLiteral(f"`.{node.func.attr}()` takes no arguments")
        d = self.ev(node.func.value)
        if d.v.kind != "dict":
            raise NotLiteral(f"`.{node.func.attr}()` of a {d.v.kind}")
        attr = node.func.attr
        if attr == "keys":
            return [_R(a, value_size(a)) for a, _ in d.v.val]
        if attr == "values":
            return [_R(b, value_size(b)) for _, b in d.v.val]
        return [_container("tuple", [_R(a, value_size(a)), _R(b, value_size(b))]) for a, b in d.v.val]

    def _range(self, node: ast.Call) -> range:
        bounds = [self.ev(a).v for a in self.only_args(node, 3)]
        if not bounds or any(b.kind not in ("int", "bool") for b in bounds):
            raise NotLiteral("range() arguments are not ints")
        try:
            return range(*(b.val for b in bounds))
        except ValueError as e:
            raise NotLiteral(str(e)) from None

    def range_items(self, node: ast.Call) -> list[_R]:
        r = self._range(node)
        if len(r) > MAX_RANGE:
            raise NotLiteral(f"range of {len(r):,} elements is longer than the {MAX_RANGE:,} limit")
        return [_scalar(V("int", i)) for i in r]

    def call_range(self, node: ast.Call) -> _R:
        """``range(...)`` as a value (an argument): its start, stop and step, exactly (a range is
        not a list: the function can tell them apart; equal ranges with other bounds too)."""
        r = self._range(node)
        ints = V("tuple", (V("int", r.start), V("int", r.stop), V("int", r.step)))
        return _R(V("obj", ("range", ints)), 5)

    def call_iter(self, node: ast.Call) -> _R:
        """``iter(x)`` of a literal list, tuple, str or range: a fresh iterator over it (an
        argument; consumed by the call it is passed to, so it counts as mutable)."""
        (arg,) = self.only_args(node, 1) or [None]
        if arg is None:
            raise NotLiteral("iter() needs an argument")
        r = self.ev(arg)
        if not (r.v.kind in ("list", "tuple", "str") or r.v.kind == "obj" and r.v.val[0] == "range"):
            raise NotLiteral(f"iter() of a {r.v.kind} is not modelled (only list, tuple, str and range)")
        return _R(V("obj", ("iter", r.v)), r.size + 1)

    def enumerate_items(self, node: ast.Call) -> list[_R]:
        if node.keywords or not 1 <= len(node.args) <= 2:
            raise NotLiteral("unsupported arguments to `enumerate`")
        start = 0
        if len(node.args) == 2:
            s = self.ev(node.args[1]).v
            if s.kind not in ("int", "bool"):
                raise NotLiteral("enumerate() start is not an int")
            start = int(s.val)
        items = self.iterate(node.args[0])
        return [_container("tuple", [_scalar(V("int", start + i)), x]) for i, x in enumerate(items)]

    def map_items(self, node: ast.Call, name: str) -> list[_R] | None:
        """``map(fn, *its)`` / ``filter(fn_or_None, it)`` consumed where built, ``fn`` a builtin this
        evaluator applies (``str``, ``len``, ``int``, ...), each application evaluated as the call
        ``fn(item)`` is; None (not read here) when ``map``/``filter`` may not be the builtins."""
        ok = getattr(self.env, "builtin_ok", None)
        if ok is None or not ok(name):
            return None
        if node.keywords or len(node.args) < 2 or (name == "filter" and len(node.args) != 2) \
                or any(isinstance(a, ast.Starred) for a in node.args):
            raise NotLiteral(f"unsupported arguments to `{name}`")
        fn = node.args[0]
        none = name == "filter" and isinstance(fn, ast.Constant) and fn.value is None
        if not none and not (isinstance(fn, ast.Name) and fn.id in _MAPPABLE and ok(fn.id)):
            raise NotLiteral(f"`{name}` of a function this evaluator does not apply (only builtins such as "
                             "`str`, `len`, `int`)")
        columns = [self.iterate(a) for a in node.args[1:]]
        out: list[_R] = []
        outer = self.env
        for row in zip(*columns):
            if none:
                if _truthy(row[0].v):
                    out.append(row[0])
                continue
            local = {f"_sg_item{i}": r.v for i, r in enumerate(row)}
            self.env = _Overlay(local, outer)
            try:
                got = self.ev(ast.Call(func=ast.Name(fn.id, ast.Load()), keywords=[],
                                       args=[ast.Name(n, ast.Load()) for n in local]))
            finally:
                self.env = outer
                self.mutable_names.difference_update(local)
            if name == "map":
                out.append(got)
            elif _truthy(got.v):
                out.append(row[0])
        return out

    def zip_items(self, node: ast.Call) -> list[_R]:
        if node.keywords or any(isinstance(a, ast.Starred) for a in node.args):
            raise NotLiteral("unsupported arguments to `zip`")
        columns = [self.iterate(a) for a in node.args]
        return [_container("tuple", list(row)) for row in zip(*columns)]


_CALLS: dict[str, Callable[[_Evaluator, ast.Call], _R]] = {
    "range": _Evaluator.call_range, "iter": _Evaluator.call_iter,
    "list": _Evaluator.call_sequence, "tuple": _Evaluator.call_sequence,
    "set": _Evaluator.call_sequence, "frozenset": _Evaluator.call_sequence,
    "dict": _Evaluator.call_dict, "float": _Evaluator.call_float, "int": _Evaluator.call_int,
}


_COMPARE: dict[type, Callable[[Any, Any], Any]] = {
    ast.Eq: operator.eq, ast.NotEq: operator.ne, ast.Lt: operator.lt, ast.LtE: operator.le,
    ast.Gt: operator.gt, ast.GtE: operator.ge, ast.In: lambda a, b: a in b, ast.NotIn: lambda a, b: a not in b,
}


class _Overlay(Mapping[str, V]):
    """A comprehension's scope: its own targets, then the enclosing names."""

    def __init__(self, local: dict[str, V], outer: Mapping[str, V] | None) -> None:
        self.local, self.outer = local, outer

    def __getitem__(self, name: str) -> V:
        if name in self.local:
            return self.local[name]
        if self.outer is None:
            raise KeyError(name)
        return self.outer[name]

    def __contains__(self, name: object) -> bool:
        return name in self.local or (self.outer is not None and name in self.outer)

    def stdlib_name(self, dotted: str) -> str | None:
        resolve = getattr(self.outer, "stdlib_name", None)
        return None if dotted.split(".")[0] in self.local or resolve is None else resolve(dotted)

    @property
    def assume(self):
        return getattr(self.outer, "assume", None)

    def builtin_ok(self, name: str) -> bool:
        """The enclosing scope's answer (see :func:`specguard.python.concrete.builtin_call`)."""
        ok = getattr(self.outer, "builtin_ok", None)
        return name not in self.local and ok is not None and ok(name)

    def __iter__(self):
        return iter(set(self.local) | set(self.outer or ()))

    def __len__(self) -> int:
        return len(set(self.local) | set(self.outer or ()))


def _comp_targets(t: ast.expr) -> list[str]:
    if isinstance(t, ast.Name):
        return [t.id]
    if isinstance(t, (ast.Tuple, ast.List)):
        return [n for e in t.elts for n in _comp_targets(e)]
    raise NotLiteral("a comprehension target other than names")


def _bind_comp(t: ast.expr, v: V, local: dict[str, V]) -> None:
    if isinstance(t, ast.Name):
        local[t.id] = v
        return
    assert isinstance(t, (ast.Tuple, ast.List))
    if any(isinstance(e, ast.Starred) for e in t.elts):
        raise NotLiteral("a starred comprehension target")
    if v.kind not in ("list", "tuple") or len(v.val) != len(t.elts):
        raise NotLiteral("a comprehension target that does not match the element")
    for e, x in zip(t.elts, v.val):
        _bind_comp(e, x, local)


# builtins ``map``/``filter`` apply (each application evaluated as the call is)
_MAPPABLE = frozenset({"len", "sorted", "min", "max", "sum", "any", "all", "abs", "round", "pow", "divmod", "str", "repr", "bool",
                       "chr", "ord", "hex", "oct", "bin", "list", "tuple", "set", "frozenset", "dict", "float", "int"})


def _is_iter_call(node: ast.expr) -> bool:
    return isinstance(node, ast.Call) and (
        (isinstance(node.func, ast.Name) and node.func.id in ("zip", "enumerate", "range", "reversed", "map", "filter"))
        or (isinstance(node.func, ast.Attribute) and node.func.attr in ("items", "keys", "values")))


def _holds_lazy(v: V) -> bool:
    if v.kind == "obj":
        return v.val[0] == "lazy" or _holds_lazy(v.val[1])
    if v.kind in ("list", "tuple", "set", "frozenset"):
        return any(_holds_lazy(x) for x in v.val if x.kind in ("obj", "list", "tuple", "dict"))
    if v.kind == "dict":
        return any(_holds_lazy(b) for _, b in v.val if b.kind in ("obj", "list", "tuple", "dict"))
    return False


def _names_module(node: ast.expr, env: Mapping[str, V] | None) -> bool:
    """A method call's receiver is a name with no exact value (a module, an object): the call is
    then reported as a call, not evaluated as a method of a value."""
    root = node
    while isinstance(root, ast.Attribute):
        root = root.value
    if not isinstance(root, ast.Name):
        return False
    if root.id in ("self", "cls") and isinstance(node, ast.Attribute):
        return False
    try:
        if env is None:
            return True
        env[root.id]
    except (KeyError, NotLiteral):
        return True
    return False


def dotted_name(node: ast.expr) -> str | None:
    """``a.b.c`` for a chain of names and attributes, else None."""
    parts = []
    while isinstance(node, ast.Attribute):
        parts.append(node.attr)
        node = node.value
    if not isinstance(node, ast.Name):
        return None
    parts.append(node.id)
    return ".".join(reversed(parts))


_DESCRIPTIONS = {
    "Compare": "a comparison", "BoolOp": "a boolean `and`/`or`", "IfExp": "a conditional expression",
    "Lambda": "a lambda", "ListComp": "a comprehension", "SetComp": "a comprehension",
    "DictComp": "a comprehension", "GeneratorExp": "a generator expression", "Await": "an `await`",
    "Attribute": "an attribute", "Starred": "a starred expression", "NamedExpr": "an assignment expression",
}


def _describe(node: ast.expr) -> str:
    name = type(node).__name__
    if name == "Attribute":
        return f"attribute `{dotted_name(node) or '...'}`"
    return _DESCRIPTIONS.get(name, f"expression ({name})")
