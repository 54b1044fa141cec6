"""SpecGuard's model of plain Python data, and of Python's ``==`` on it.

Two views of a value are used:

* the **exact** value (:class:`V`): what a test passes *into* the function under
  test.  Every distinction a function could observe is kept: ``1``, ``1.0`` and
  ``True`` differ, ``-0.0`` differs from ``0.0``, and the source order of dict
  and set literals is kept (a function can observe iteration order).
* the **class** of a value under Python's ``==`` (:func:`canon`): what a test
  can say about a *result*.  ``canon(x) == canon(y)`` holds exactly when
  ``x == y`` in CPython, for plain data without NaN.  Soundness of every
  certificate rests on the direction ``x == y  =>  canon(x) == canon(y)``; it is
  tested differentially against CPython in ``tests/test_values.py``.

The equality table implemented (CPython 3.11 semantics):

========================  ===========================================================
values                    ``==`` (and so the class)
========================  ===========================================================
bool / int / float        numeric value, compared exactly (``True == 1 == 1.0``,
                          ``2**53 + 1 != float(2**53 + 1)``, ``-0.0 == 0.0``)
NaN                       equal to nothing; a NaN *expected* value is unsupported
inf / -inf                equal to themselves only
str / bytes               same characters / same bytes; ``'a' != b'a'``
list / tuple              elementwise, same length; a list never equals a tuple
dict                      same keys (by ``==``) with equal values; order ignored
set / frozenset           same elements (by ``==``); ``{1} == frozenset({1})``
None                      only ``None``
========================  ===========================================================
"""

from __future__ import annotations

import math
import struct
from dataclasses import dataclass
from fractions import Fraction
from typing import Any, Iterable

KINDS = ("none", "bool", "int", "float", "str", "bytes", "list", "tuple", "dict", "set", "frozenset")
FUNCTION = "fn"
"""A function passed as an argument (``key=len``, a lambda, a function of the test module): ``val``
is ``(key, shown)``; equal keys only for the very same function object (issue 12, item 4).  Only
an input: never a result or an expected value, never inside a container."""
CLASS_KINDS = ("none", "int", "rat", "inf", "nan", "str", "bytes", "list", "tuple", "dict", "set")


def _float_bits(x: float) -> int:
    return struct.unpack("<Q", struct.pack("<d", x))[0]


@dataclass(frozen=True, slots=True, eq=False)
class V:
    """An exact plain Python value.

    ``val`` holds: ``None`` (none), a ``bool``/``int``/``float``/``str``/``bytes``
    scalar, a tuple of :class:`V` (list, tuple, set, frozenset, in source order)
    or a tuple of ``(V, V)`` pairs (dict, in source order).  For class values
    (see :func:`canon`) two more kinds appear: ``rat`` (``val=(num, den)``) and
    ``inf`` (``val=negative: bool``), and ``nan``.  Arguments may also be ``obj``
    (``val=(type name, V)``): ``range`` (payload the tuple of start, stop, step) and ``iter``
    (a fresh iterator over the payload, a list/tuple/str/range) and ``gen`` (a generator expression:
    the tuple of its site, its text, its first iterable's value and the list of its items) -- never
    results or expected values.
    """

    kind: str
    val: Any = None

    # -- construction -------------------------------------------------------
    @staticmethod
    def of(obj: Any) -> "V":
        """Build from a real Python object of plain data (raises TypeError otherwise)."""
        return from_python(obj)

    def __eq__(self, other: object) -> bool:
        """Exact equality (-0.0 and 0.0 differ, NaN equals itself): identity of *values*,
        not Python's ``==`` (use :func:`canon` for that)."""
        if not isinstance(other, V) or self.kind != other.kind:
            return False
        if self.kind == "float":
            return _float_bits(self.val) == _float_bits(other.val)
        return self.val == other.val

    def __hash__(self) -> int:
        if self.kind == "float":
            return hash((self.kind, _float_bits(self.val)))
        return hash((self.kind, self.val))

    def __repr__(self) -> str:  # pragma: no cover - debugging aid
        return f"V({py_repr(self)})"


def from_python(obj: Any) -> V:
    """Exact value of a plain Python object.  Sets take Python's iteration order."""
    if obj is None:
        return V("none")
    t = type(obj)
    if t is bool:
        return V("bool", obj)
    if t is int:
        return V("int", obj)
    if t is float:
        return V("float", obj)
    if t is str:
        return V("str", obj)
    if t is bytes:
        return V("bytes", obj)
    if t is list:
        return V("list", tuple(from_python(x) for x in obj))
    if t is tuple:
        return V("tuple", tuple(from_python(x) for x in obj))
    if t is dict:
        return V("dict", tuple((from_python(k), from_python(v)) for k, v in obj.items()))
    if t is set:
        return V("set", tuple(from_python(x) for x in obj))
    if t is frozenset:
        return V("frozenset", tuple(from_python(x) for x in obj))
    raise TypeError(f"not plain Python data: {type(obj).__name__}")


def to_python(v: V) -> Any:
    """The real Python object (used as the equality oracle; never executes user code)."""
    k = v.kind
    if k in ("none",):
        return None
    if k in ("bool", "int", "float", "str", "bytes"):
        return v.val
    if k == "list":
        return [to_python(x) for x in v.val]
    if k == "tuple":
        return tuple(to_python(x) for x in v.val)
    if k == "dict":
        return {to_python(a): to_python(b) for a, b in v.val}
    if k == "set":
        return {to_python(x) for x in v.val}
    if k == "frozenset":
        return frozenset(to_python(x) for x in v.val)
    raise TypeError(f"not an exact value kind: {k}")


def contains_obj(v: V) -> bool:
    """Whether ``v`` holds a range or iterator argument value (``obj``)."""
    if v.kind == "obj":
        return True
    return any(contains_obj(x) for x in iter_children(v))


def contains_nan(v: V) -> bool:
    """Whether ``v`` holds a NaN (a float NaN, or a NaN argument object, see :func:`nan_object`)."""
    if v.kind == "float":
        return math.isnan(v.val)
    if v.kind == "obj":
        return v.val[0] == NAN_OBJ
    if v.kind in ("list", "tuple", "set", "frozenset"):
        return any(contains_nan(x) for x in v.val)
    if v.kind == "dict":
        return any(contains_nan(a) or contains_nan(b) for a, b in v.val)
    return False


def is_hashable(v: V) -> bool:
    if v.kind in ("list", "dict", "set", "obj"):
        return False
    if v.kind in ("tuple", "frozenset"):
        return all(is_hashable(x) for x in v.val)
    return True


# -- classes under == -------------------------------------------------------

def _num_class(q: Fraction) -> V:
    if q.denominator == 1:
        return V("int", int(q))
    return V("rat", (q.numerator, q.denominator))


def canon(v: V) -> V:
    """The canonical representative of ``v``'s class under Python's ``==``."""
    k = v.kind
    if k == "none":
        return v
    if k == "bool":
        return V("int", int(v.val))
    if k == "int":
        return v
    if k == "float":
        x = v.val
        if math.isnan(x):
            return V("nan")
        if math.isinf(x):
            return V("inf", x < 0)
        return _num_class(Fraction(x))
    if k in ("str", "bytes"):
        return v
    if k in ("list", "tuple"):
        return V(k, tuple(canon(x) for x in v.val))
    if k == "dict":
        # Later duplicates of an equal key overwrite the value but keep the first key's slot.
        entries: dict[str, tuple[V, V]] = {}
        for a, b in v.val:
            ca = canon(a)
            key = sort_key(ca)
            entries[key] = (ca, canon(b))
        return V("dict", tuple(entries[key] for key in sorted(entries)))
    if k in ("set", "frozenset"):
        elems = {sort_key(c): c for c in (canon(x) for x in v.val)}
        return V("set", tuple(elems[key] for key in sorted(elems)))
    if k in ("rat", "inf", "nan", FUNCTION):
        return v                      # a function equals only itself (`==` is identity)
    if k == "obj":
        raise TypeError(f"a {v.val[0]} object has no ==-class in the model (arguments only)")
    raise TypeError(f"unknown value kind: {k}")


def sort_key(c: V) -> str:
    """A deterministic total order key (used to sort canonical dict keys and set elements)."""
    return repr(to_json(c))


# -- JSON encoding (exact, lossless) ------------------------------------------

def to_json(v: V) -> Any:
    """Tagged JSON: ``["int", "5"]``, ``["float", "0x1.8p+0"]``, ``["list", [...]]``."""
    k = v.kind
    if k in ("none", "nan"):
        return [k]
    if k == "bool" or k == "inf":
        return [k, bool(v.val)]
    if k == "int":
        return [k, str(v.val)]
    if k == "float":
        return [k, v.val.hex() if math.isfinite(v.val) else repr(v.val)]
    if k == "rat":
        return [k, str(v.val[0]), str(v.val[1])]
    if k == "str":
        return [k, v.val]
    if k == "bytes":
        return [k, v.val.hex()]
    if k in ("list", "tuple", "set", "frozenset"):
        return [k, [to_json(x) for x in v.val]]
    if k == "dict":
        return [k, [[to_json(a), to_json(b)] for a, b in v.val]]
    if k == "obj":
        return [k, v.val[0], to_json(v.val[1])]
    if k == FUNCTION:
        return [k, v.val[0], v.val[1]]
    raise TypeError(f"unknown value kind: {k}")


def from_json(j: Any) -> V:
    k = j[0]
    if k in ("none", "nan"):
        return V(k)
    if k in ("bool", "inf"):
        return V(k, bool(j[1]))
    if k == "int":
        return V(k, int(j[1]))
    if k == "float":
        s = j[1]
        return V(k, float.fromhex(s) if s not in ("inf", "-inf", "nan") else float(s))
    if k == "rat":
        return V(k, (int(j[1]), int(j[2])))
    if k == "str":
        return V(k, str(j[1]))
    if k == "bytes":
        return V(k, bytes.fromhex(j[1]))
    if k in ("list", "tuple", "set", "frozenset"):
        return V(k, tuple(from_json(x) for x in j[1]))
    if k == "dict":
        return V(k, tuple((from_json(a), from_json(b)) for a, b in j[1]))
    if k == "obj" and j[1] in OBJ_KINDS:
        return V(k, (j[1], from_json(j[2])))
    if k == FUNCTION:
        if len(j) != 3 or not isinstance(j[1], str) or not isinstance(j[2], str):
            raise ValueError("a function value is [\"fn\", key, shown] with two strings")
        return V(k, (j[1], j[2]))
    raise ValueError(f"unknown value tag: {k!r}")


OBJ_KINDS = ("range", "iter", "gen", "result", "nan")


# -- NaN arguments ---------------------------------------------------------------------------
# NaN is equal to nothing, yet Python's container comparisons, `in`, `count`, `index` and dict
# lookups test identity first: `[x] == [x]` and `x in [x]` hold for one NaN object, not for two
# equal-looking ones (`{math.nan: 1}.get(math.nan)` is 1, `.get(float('nan'))` is None).  So a NaN
# argument is not a float value but an object of known identity (issue 12, item 1):
#   * ``math.nan`` (payload ``str "math.nan"``): the one module constant, the same object for
#     the tests, the doctests and the library (a function may hold it and test `x is math.nan`);
#   * a fresh NaN (payload ``int bits``, its IEEE-754 bit pattern): made where the test makes it
#     (``float('nan')``, ``-x``), an object no function under test can know (functions are
#     stateless: ``assumptions.py``).
# Two fresh NaNs in one input could be one object or two, which a function can tell apart, so
# an input holding more than one is refused (:func:`fresh_nan_count`, checked where the input
# is emitted).  NaN objects are arguments only: never an expected value, never hashed, ordered
# or computed with (every such operation is refused, as for ranges and iterators).
NAN_OBJ = "nan"
MATH_NAN = "math.nan"


def nan_object(x: float | None = None) -> V:
    """``math.nan`` (``x`` None) or a fresh NaN with the bit pattern of ``x``."""
    if x is None:
        return V("obj", (NAN_OBJ, V("str", MATH_NAN)))
    if not math.isnan(x):
        raise ValueError("not a NaN")
    return V("obj", (NAN_OBJ, V("int", _float_bits(x))))


def is_nan_object(v: V) -> bool:
    return v.kind == "obj" and v.val[0] == NAN_OBJ


def nan_bits(v: V) -> int:
    """The bit pattern of a NaN object (``math.nan``'s is CPython's, the quiet positive NaN)."""
    p = v.val[1]
    return _float_bits(math.nan) if p.kind == "str" else int(p.val)


def fresh_nan_count(v: V) -> int:
    """How many fresh (not ``math.nan``) NaN objects ``v`` holds."""
    if is_nan_object(v):
        return int(v.val[1].kind != "str")
    return sum(fresh_nan_count(x) for x in iter_children(v))


# -- human display --------------------------------------------------------------

def py_repr(v: V) -> str:
    """Python-like source text for a value (for reports)."""
    k = v.kind
    if k == "none":
        return "None"
    if k in ("bool", "int", "str", "bytes"):
        return repr(v.val)
    if k == "float":
        x = v.val
        if math.isnan(x):
            return "float('nan')"
        if math.isinf(x):
            return "float('-inf')" if x < 0 else "float('inf')"
        return repr(x)
    if k == "rat":
        return f"{v.val[0]}/{v.val[1]}"
    if k == "inf":
        return "-inf" if v.val else "inf"
    if k == "nan":
        return "nan"
    if k == "list":
        return "[" + ", ".join(py_repr(x) for x in v.val) + "]"
    if k == "tuple":
        inner = ", ".join(py_repr(x) for x in v.val)
        return f"({inner},)" if len(v.val) == 1 else f"({inner})"
    if k == "dict":
        return "{" + ", ".join(f"{py_repr(a)}: {py_repr(b)}" for a, b in v.val) + "}"
    if k in ("set", "frozenset"):
        if not v.val:
            return "set()" if k == "set" else "frozenset()"
        inner = "{" + ", ".join(py_repr(x) for x in v.val) + "}"
        return inner if k == "set" else f"frozenset({inner})"
    if k == "obj":
        name, payload = v.val
        if name == "range":
            return "range(" + ", ".join(py_repr(x) for x in payload.val) + ")"
        if name == "gen":         # a generator expression (literals.ev_GeneratorExp): (site, its text, ...)
            return payload.val[1].val
        if name == "result":      # the result of a fresh call (formalize/library.py): (its source, its input)
            return payload.val[0].val
        if name == NAN_OBJ:
            if payload.kind == "str":
                return payload.val
            bits = int(payload.val)
            sign = "-" if bits >> 63 else ""
            if bits & ~(1 << 63) == _float_bits(math.nan):
                return f"float('{sign}nan')"
            return f"{sign}NaN(0x{bits & ~(1 << 63):x})"
        return f"{name}({py_repr(payload)})"
    if k == FUNCTION:
        return v.val[1]
    raise TypeError(k)


def short_repr(v: V, limit: int = 80) -> str:
    s = py_repr(v)
    return s if len(s) <= limit else s[: limit - 3] + "..."


TEXT_PER_NODE = 8
"""Characters (bytes) of a str (bytes) counted as one node by :func:`value_size`."""


def value_size(v: V) -> int:
    """Number of nodes (a guard against huge literals), a str or bytes counting one node per
    :data:`TEXT_PER_NODE` characters besides its own: a value's size bounds the Lean text it is
    written as, also when one long string is shared by many elements (``["a" * 10**6] * 10**6``
    is 10**6 nodes holding 10**12 characters)."""
    if v.kind in ("str", "bytes"):
        return 1 + len(v.val) // TEXT_PER_NODE
    if v.kind in ("list", "tuple", "set", "frozenset"):
        return 1 + sum(value_size(x) for x in v.val)
    if v.kind == "dict":
        return 1 + sum(value_size(a) + value_size(b) for a, b in v.val)
    if v.kind == "obj":
        return 1 + value_size(v.val[1])
    return 1


def iter_children(v: V) -> Iterable[V]:
    if v.kind in ("list", "tuple", "set", "frozenset"):
        yield from v.val
    elif v.kind == "dict":
        for a, b in v.val:
            yield a
            yield b
    elif v.kind == "obj":
        yield v.val[1]


def make_dict(pairs: Iterable[tuple[V, V]]) -> V:
    """A dict literal's value, as CPython builds it: for keys equal under ``==`` the
    first key's object and position are kept and the last value wins."""
    order: list[str] = []
    keys: dict[str, V] = {}
    vals: dict[str, V] = {}
    for a, b in pairs:
        if not is_hashable(a):
            raise TypeError(f"unhashable dict key: {py_repr(a)}")
        ck = sort_key(canon(a))
        if ck not in keys:
            order.append(ck)
            keys[ck] = a
        vals[ck] = b
    return V("dict", tuple((keys[c], vals[c]) for c in order))


def make_set(elems: Iterable[V], kind: str = "set") -> V:
    """A set literal's value: the first of equal elements is kept, in source order."""
    seen: dict[str, V] = {}
    for e in elems:
        if not is_hashable(e):
            raise TypeError(f"unhashable set element: {py_repr(e)}")
        seen.setdefault(sort_key(canon(e)), e)
    return V(kind, tuple(seen.values()))
