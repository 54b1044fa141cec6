"""Stage 4: emit Lean over SpecGuard's core theory.

Turns formalized tests (:class:`~specguard.models.Demand`) and description
claims (:class:`~specguard.models.Claim`) into *clauses* (:class:`Clause`) and
renders them as the Lean modules ``SGTask.Spec`` and ``SGTask.Tests``.

A clause is either ``eq`` (``impl K = Outcome.ret C``: the call at exact input
``K`` returns a value of ``==``-class ``C``) or ``pred`` (``Holds P (impl K)``
for a Bool-valued predicate ``P`` on outcomes, at one input or at every input).
Each clause is *implied* by the Python assertion or description statement it
comes from (weakenings are marked ``exact=False``), so an unsatisfiable set of
clauses means an unsatisfiable task.  Every predicate has a Python mirror
(:func:`eval_pred`) that must agree with its Lean definition in
``lean/SpecGuard/Value.lean``; the kernel has the last word either way.
"""

from __future__ import annotations

import re
import struct
from fractions import Fraction
from dataclasses import dataclass, field
from typing import Any, Sequence

from specguard.python import values as vals
from specguard.models import Call, Claim, ClaimKind, Demand, ExpectKind, Expect, TypeExpr
from specguard.python.values import V

NS = "SGTask"
HEADER = "prelude\nimport SpecGuard.Core\nimport SpecGuard.Value\nimport SpecGuard.Py\n"
MAX_MEMBERS = 2000


class NotModelled(Exception):
    """A demand or claim SpecGuard cannot express soundly (reported, never dropped)."""


# -- values -------------------------------------------------------------------------

def lean_int(i: int) -> str:
    return f"(Int.ofNat {i})" if i >= 0 else f"(Int.negSucc {-i - 1})"


def lean_str(s: str) -> str:
    out = ['"']
    for ch in s:
        o = ord(ch)
        if ch == "\\":
            out.append("\\\\")
        elif ch == '"':
            out.append('\\"')
        elif ch == "\n":
            out.append("\\n")
        elif ch == "\t":
            out.append("\\t")
        elif 0xD800 <= o <= 0xDFFF:
            raise NotModelled("string contains a lone surrogate, which Lean strings cannot hold")
        elif o < 0x20 or o == 0x7F:
            out.append(f"\\x{o:02x}")
        else:
            out.append(ch)
    out.append('"')
    return "".join(out)


def lean_bytes(b: bytes) -> str:
    return lean_str("".join(chr(x) for x in b))


def lean_seq(items: Sequence[str]) -> str:
    """Balanced ``nil``/``one``/``cat`` tree, split at the midpoint (deterministic, so equal
    sequences give identical trees)."""
    return balanced([f"(Val.one {x})" for x in items], "Val.nil", "(Val.cat {} {})")


def lean_val(v: V) -> str:
    """Lean term for an exact value or a class representative."""
    k = v.kind
    if k == "none":
        return "Val.none"
    if k == "bool":
        return "(Val.bool Bool.true)" if v.val else "(Val.bool Bool.false)"
    if k == "int":
        return f"(Val.int {lean_int(v.val)})"
    if k == "float":
        bits = struct.unpack("<Q", struct.pack("<d", v.val))[0]
        return f"(Val.float {bits})"
    if k == "rat":
        return f"(Val.rat {lean_int(v.val[0])} {v.val[1]})"
    if k == "inf":
        return "(Val.inf Bool.true)" if v.val else "(Val.inf Bool.false)"
    if k == "nan":
        return "Val.nan"
    if k == "str":
        return f"(Val.str {lean_str(v.val)})"
    if k == "bytes":
        return f"(Val.bytes {lean_bytes(v.val)})"
    if k in ("list", "tuple", "set", "frozenset"):
        return f"(Val.{k} {lean_seq([lean_val(x) for x in v.val])})"
    if k == "dict":
        return f"(Val.dict {lean_seq([f'(Val.pair {lean_val(a)} {lean_val(b)})' for a, b in v.val])})"
    if k == "obj":      # an argument no list/tuple/dict can be: a bare pair tagged with its type
        return f"(Val.pair (Val.str {lean_str(v.val[0])}) {lean_val(v.val[1])})"
    if k == vals.FUNCTION:
        return lean_function(v.val[0])
    raise TypeError(k)


def _one_identity(call: Call) -> None:
    """An input holding two fresh NaN objects is not one input: they may be one object or two, and
    a function can tell (`[x] == [x]` for one NaN object, not for two): see values.py."""
    if call.obj is not None:
        from specguard.formalize.objects import object_value
        held = object_value(call.obj)
    else:
        held = vals.V("tuple", (*call.args, *(v for _, v in call.kwargs)))
    if vals.fresh_nan_count(held) > 1:
        raise NotModelled("an input holding two NaN objects (one shared object or two distinct ones: Python's "
                          "`==` on containers, `in` and dict lookups tell them apart, the model does not)")


FUNCTION_TAG = "<function>"


def lean_function(key: str) -> str:
    """A function passed as an argument: ``pair (str "<function>") (str key)``, a shape no plain
    value has (pairs occur only as the entries of a dict's tree), equal terms only for equal keys."""
    return f"(Val.pair (Val.str {lean_str(FUNCTION_TAG)}) (Val.str {lean_str(key)}))"


def lean_input(call: Call) -> str:
    """The exact input of a call: ``pair (tuple args) (str target)`` (kwargs, in call order, as
    ``pair (pair args kwargs) target``).  Arguments come first so that different inputs differ
    early, which keeps the kernel's comparisons short."""
    _one_identity(call)
    if call.obj is not None:
        from specguard.formalize.objects import lean_object_input
        return lean_object_input(call.obj)
    if call.after is not None:    # what the call left in an argument
        from specguard.formalize.argstate import lean_input as lean_argument_input
        return lean_argument_input(call)
    if call.lib is not None:      # another function of the library under test
        from specguard.formalize.library import lean_input as lean_library_input
        return lean_library_input(call)
    args = vals.V("tuple", tuple(call.args))
    inner = lean_val(args)
    if call.kwargs:
        kw = vals.V("dict", tuple((vals.V("str", k), v) for k, v in call.kwargs))
        inner = f"(Val.pair {inner} {lean_val(kw)})"
    return f"(Val.pair {inner} (Val.str {lean_str(call.target)}))"


# -- the order of values (witness tables) -------------------------------------------------

_TERM_TOKEN = re.compile(r'\s*(?:(\()|(\))|("(?:[^"\\]|\\.)*")|(\d+)|([A-Za-z_][A-Za-z0-9_.]*))')
_ESCAPES = {"n": "\n", "t": "\t", "\\": "\\", '"': '"'}
# Val's constructors in declaration order (``Val.tag`` in Value.lean)
_TAGS = {name: i for i, name in enumerate(
    ("none", "bool", "int", "float", "rat", "inf", "nan", "str", "bytes", "nil", "one", "cat", "pair", "list",
     "tuple", "dict", "set", "frozenset"))}


def _lean_unescape(lit: str) -> str:
    out, i = [], 1
    while i < len(lit) - 1:
        c = lit[i]
        if c == "\\":
            n = lit[i + 1]
            if n == "x":
                out.append(chr(int(lit[i + 2:i + 4], 16)))
                i += 4
                continue
            out.append(_ESCAPES[n])
            i += 2
            continue
        out.append(c)
        i += 1
    return "".join(out)


def parse_term(text: str) -> tuple:
    """A term as :func:`lean_val` / :func:`lean_input` write it, as ``(head, args)`` trees
    (numbers as ints, string literals as ``("", text)``).  Raises ``ValueError`` on anything else."""
    toks: list = []
    pos, text = 0, text.strip()
    while pos < len(text):
        m = _TERM_TOKEN.match(text, pos)
        if m is None or m.end() == pos:
            raise ValueError(f"not an emitted term at {text[pos:pos + 20]!r}")
        pos = m.end()
        if m.group(1) or m.group(2):
            toks.append(m.group(1) or m.group(2))
        elif m.group(3):
            toks.append(("", _lean_unescape(m.group(3))))
        elif m.group(4):
            toks.append(int(m.group(4)))
        else:
            toks.append((m.group(5), ()))
    i = 0

    def term():
        nonlocal i
        t = toks[i]
        i += 1
        if t != "(":
            if t == ")":
                raise ValueError("unbalanced term")
            return t
        head = toks[i]
        i += 1
        args = []
        while toks[i] != ")":
            args.append(term())
        i += 1
        return (head[0], tuple(args))

    try:
        out = term()
    except (IndexError, TypeError) as e:
        raise ValueError("unbalanced term") from e
    if i != len(toks):
        raise ValueError("trailing tokens")
    return out


def _cmp(a, b) -> int:
    return (a > b) - (a < b)


def _int_of(t) -> int:
    head, (n,) = t
    return n if head == "Int.ofNat" else -n - 1


def order_terms(texts: Sequence[str]) -> list[int] | None:
    """Indices of ``texts`` (emitted terms) sorted by ``Val.order``; None when one cannot be read
    or two are not strictly ordered (equal terms)."""
    import functools
    try:
        trees = [parse_term(t) for t in texts]
        order = sorted(range(len(trees)), key=functools.cmp_to_key(lambda a, b: val_order(trees[a], trees[b])))
    except (ValueError, KeyError, RecursionError):
        return None
    if any(val_order(trees[a], trees[b]) != -1 for a, b in zip(order, order[1:])):
        return None
    return order


def val_order(a: tuple, b: tuple) -> int:
    """Python mirror of ``Val.order`` (Value.lean) on :func:`parse_term` trees: -1, 0 or 1."""
    ha, hb = a[0], b[0]
    ta, tb = _TAGS[ha.removeprefix("Val.")], _TAGS[hb.removeprefix("Val.")]
    if ta != tb:
        return _cmp(ta, tb)
    k = ha.removeprefix("Val.")
    xa, xb = a[1], b[1]
    if k in ("none", "nan", "nil"):
        return 0
    if k in ("bool", "inf"):
        return _cmp(xa[0][0] == "Bool.true", xb[0][0] == "Bool.true")
    if k == "int":
        return _cmp(_int_of(xa[0]), _int_of(xb[0]))
    if k == "float":
        return _cmp(xa[0], xb[0])
    if k == "rat":
        return _cmp(_int_of(xa[0]), _int_of(xb[0])) or _cmp(xa[1], xb[1])
    if k in ("str", "bytes"):
        return _cmp(xa[0][1], xb[0][1])          # code points, a prefix first: List.cmpChars
    if k in ("cat", "pair"):
        return val_order(xa[0], xb[0]) or val_order(xa[1], xb[1])
    return val_order(xa[0], xb[0])


# -- predicates ------------------------------------------------------------------------

@dataclass(frozen=True)
class Pred:
    """A Bool-valued predicate on outcomes: ``mode`` returns / ifReturns / raises, and a
    value predicate ``vp`` (a tuple: ('eq', C), ('ne', C), ('truthy',), ('falsy',),
    ('cmp', op, C), ('mem', (C...)), ('notmem', (C...)), ('len', n), ('type', ty), ('any',),
    ('intIn', lo, hi), ('near', LO, HI): a number class in [LO, HI], LO and HI exact rationals)."""

    mode: str
    vp: tuple = ("any",)

    def lean(self) -> str:
        if self.mode == "raises":
            return "Outcome.raises"
        fn = "Outcome.returns" if self.mode == "returns" else "Outcome.ifReturns"
        return f"({fn} {lean_vpred(self.vp)})"


_OPS = {"<": 0, "<=": 1, ">": 2, ">=": 3}


def lean_vpred(vp: tuple) -> str:
    tag = vp[0]
    if tag == "any":
        return "(fun _ => Bool.true)"
    if tag == "eq":
        return f"(fun v => Val.beq v {lean_val(vp[1])})"
    if tag == "ne":
        return f"(fun v => Bool.not (Val.beq v {lean_val(vp[1])}))"
    if tag == "truthy":
        return "Val.truthy"
    if tag == "falsy":
        return "(fun v => Bool.not (Val.truthy v))"
    if tag == "cmp":
        return f"(fun v => Val.cmp {_OPS[vp[1]]} v {lean_val(vp[2])})"
    if tag in ("mem", "notmem"):
        lst = "List.nil"
        for c in reversed(vp[1]):
            lst = f"(List.cons {lean_val(c)} {lst})"
        inner = f"Val.memB v {lst}"
        return f"(fun v => {inner})" if tag == "mem" else f"(fun v => Bool.not ({inner}))"
    if tag == "len":
        return f"(fun v => Nat.beq (Val.len1 v) {vp[1] + 1})"
    if tag == "type":
        return f"(Ty.has {lean_ty(vp[1])})"
    if tag == "nottype":
        return f"(fun v => Bool.not (Ty.has {lean_ty(vp[1])} v))"
    if tag == "floatclass":
        test = "Val.isNan v" if vp[1] == "nan" else f"Val.memB v {_INF_CLASSES}"
        return f"(fun v => {test})" if vp[2] else f"(fun v => Bool.and (Ty.has Ty.float v) (Bool.not ({test})))"
    if tag == "intIn":
        lo = "Option.none" if vp[1] is None else f"(Option.some {lean_int(vp[1])})"
        hi = "Option.none" if vp[2] is None else f"(Option.some {lean_int(vp[2])})"
        return f"(Val.intIn {lo} {hi})"
    if tag == "obs":
        return vp[1].lean
    if tag == "near":
        return f"(fun v => Bool.and (Val.cmp 3 v {lean_val(vp[1])}) (Val.cmp 1 v {lean_val(vp[2])}))"
    raise TypeError(tag)


# Types as tuples: ('any',), ('int',), ('list', t), ('tupleOf', t), ('dict', k, v), ('set', t), ('union', a, b)
_SIMPLE_TY = {"any", "none", "int", "float", "bool", "str", "bytes"}


def lean_ty(t: tuple) -> str:
    tag = t[0]
    if tag in _SIMPLE_TY:
        return f"Ty.{tag}"
    if tag in ("list", "tupleOf", "set"):
        return f"(Ty.{tag} {lean_ty(t[1])})"
    if tag in ("dict", "union"):
        return f"(Ty.{tag} {lean_ty(t[1])} {lean_ty(t[2])})"
    raise TypeError(tag)


def ty_of_annotation(t: TypeExpr) -> tuple:
    """A Python annotation as a type predicate (unknown names: ``any``, a sound weakening)."""
    n = t.name.lower()
    a = t.args
    if n in ("int", "float", "bool", "str", "bytes"):
        return (n,)
    if n in ("none", "nonetype"):
        return ("none",)
    if n in ("list", "sequence") and n == "list":
        return ("list", ty_of_annotation(a[0]) if a else ("any",))
    if n == "tuple":
        if t.variadic and len(a) == 1:
            return ("tupleOf", ty_of_annotation(a[0]))
        return ("tupleOf", ("any",))
    if n == "dict":
        return ("dict", ty_of_annotation(a[0]) if a else ("any",), ty_of_annotation(a[1]) if len(a) > 1 else ("any",))
    if n in ("set", "frozenset"):
        return ("set", ty_of_annotation(a[0]) if a else ("any",))
    if n in ("optional",) and a:
        return ("union", ty_of_annotation(a[0]), ("none",))
    if n == "union" and a:
        out = ty_of_annotation(a[-1])
        for x in reversed(a[:-1]):
            out = ("union", ty_of_annotation(x), out)
        return out
    return ("any",)


_ISINSTANCE = {"int": ("int",), "float": ("float",), "bool": ("bool",), "str": ("str",), "bytes": ("bytes",),
               "list": ("list", ("any",)), "tuple": ("tupleOf", ("any",)), "dict": ("dict", ("any",), ("any",)),
               "set": ("set", ("any",)), "frozenset": ("set", ("any",)), "NoneType": ("none",),
               "type(None)": ("none",), "object": ("any",)}


_INF_CLASSES = "(List.cons (Val.inf Bool.false) (List.cons (Val.inf Bool.true) List.nil))"


def negated_type(types: tuple[str, ...], exact_type: bool) -> tuple | None:
    """``not isinstance(r, types)`` (``exact_type``: ``type(r) not in types``) on plain data, as a
    type of ``==``-classes whose *every* member passes the positive test, so that the negated test
    implies "the class is not of this type" (exact where a class has one Python type: None, str,
    bytes, list, tuple, dict; numbers and sets only when the types cover the whole class: ``1`` may
    be ``1``, ``1.0`` or ``True``, a set class a set or a frozenset); None when no class qualifies.
    ``isinstance(True, int)`` holds, so ``int`` covers ``bool`` unless ``exact_type``."""
    s = set(types) | ({"NoneType"} if "type(None)" in types else set())
    if not exact_type and "int" in s:
        s.add("bool")
    parts = [_ISINSTANCE[t] for t in ("str", "bytes", "list", "tuple", "dict", "NoneType") if t in s]
    if {"int", "bool", "float"} <= s:
        parts.append(("float",))      # Ty.float: every number class (int, non-integral, inf, nan)
    if {"set", "frozenset"} <= s:
        parts.append(("set", ("any",)))
    if not parts:
        return None
    ty = parts[-1]
    for t in reversed(parts[:-1]):
        ty = ("union", t, ty)
    return ty


# -- Python mirror of the Lean predicates ----------------------------------------------

def _cells(c: V) -> int:
    return len(c.val)


def _frac(c: V):
    from fractions import Fraction
    if c.kind == "int":
        return Fraction(c.val)
    if c.kind == "rat":
        return Fraction(c.val[0], c.val[1])
    return None


def _num_order(a: V, b: V) -> int:
    if a.kind == "inf" or b.kind == "inf":
        if a.kind == "inf" and b.kind == "inf":
            return 1 if a.val == b.val else (0 if a.val else 2)
        if a.kind == "inf" and b.kind in ("int", "rat"):
            return 0 if a.val else 2
        if b.kind == "inf" and a.kind in ("int", "rat"):
            return 2 if b.val else 0
        return 3
    fa, fb = _frac(a), _frac(b)
    if fa is None or fb is None:
        return 3
    return 0 if fa < fb else (1 if fa == fb else 2)


def ty_has(t: tuple, c: V) -> bool:
    tag = t[0]
    k = c.kind
    if tag == "any":
        return True
    if tag == "none":
        return k == "none"
    if tag == "int":
        return k == "int"
    if tag == "float":
        return k in ("int", "rat", "inf", "nan")
    if tag == "bool":
        return k == "int" and c.val in (0, 1)
    if tag in ("str", "bytes"):
        return k == tag
    if tag == "list":
        return k == "list" and all(ty_has(t[1], x) for x in c.val)
    if tag == "tupleOf":
        return k == "tuple" and all(ty_has(t[1], x) for x in c.val)
    if tag == "set":
        return k == "set" and all(ty_has(t[1], x) for x in c.val)
    if tag == "dict":
        return k == "dict" and all(ty_has(t[1], a) and ty_has(t[2], b) for a, b in c.val)
    if tag == "union":
        return ty_has(t[1], c) or ty_has(t[2], c)
    raise TypeError(tag)


def _len1(c: V) -> int:
    if c.kind in ("str", "bytes"):
        return len(c.val) + 1
    if c.kind in ("list", "tuple", "dict", "set"):
        return len(c.val) + 1
    return 0


def _truthy(c: V) -> bool:
    k = c.kind
    if k == "none":
        return False
    if k == "int":
        return c.val != 0
    if k in ("rat", "inf", "nan"):
        return True
    if k in ("str", "bytes", "list", "tuple", "dict", "set"):
        return len(c.val) > 0
    return False


def eval_vpred(vp: tuple, c: V) -> bool:
    tag = vp[0]
    if tag == "any":
        return True
    if tag == "eq":
        return c == vp[1]
    if tag == "ne":
        return c != vp[1]
    if tag == "truthy":
        return _truthy(c)
    if tag == "falsy":
        return not _truthy(c)
    if tag == "cmp":
        o = _num_order(c, vp[2])
        return {"<": o == 0, "<=": o in (0, 1), ">": o == 2, ">=": o in (1, 2)}[vp[1]]
    if tag == "mem":
        return c in vp[1]
    if tag == "notmem":
        return c not in vp[1]
    if tag == "len":
        return _len1(c) == vp[1] + 1
    if tag == "type":
        return ty_has(vp[1], c)
    if tag == "nottype":
        return not ty_has(vp[1], c)
    if tag == "floatclass":
        hit = c.kind == vp[1]
        return hit if vp[2] else ty_has(("float",), c) and not hit
    if tag == "intIn":
        return c.kind == "int" and (vp[1] is None or vp[1] <= c.val) and (vp[2] is None or c.val <= vp[2])
    if tag == "near":
        return _num_order(c, vp[1]) in (1, 2) and _num_order(c, vp[2]) in (0, 1)
    if tag == "obs":
        return vp[1].holds(c)
    raise TypeError(tag)


@dataclass(frozen=True)
class Outcome:
    """A model outcome: returns class ``cls`` or raises ``exc``."""

    cls: V | None = None
    exc: str | None = None

    def lean(self) -> str:
        if self.exc is not None:
            return f"(Outcome.raise {lean_str(self.exc)})"
        assert self.cls is not None
        return f"(Outcome.ret {lean_val(self.cls)})"


def eval_pred(p: Pred, o: Outcome) -> bool:
    if p.mode == "raises":
        return o.exc is not None
    if o.exc is not None:
        return p.mode == "ifReturns"
    return eval_vpred(p.vp, o.cls)


# -- clauses ------------------------------------------------------------------------------

@dataclass
class Clause:
    """One conjunct of ``Spec`` (name ``D..``) or ``Tests`` (name ``T..``)."""

    name: str
    key: str | None                 # exact input (Lean term text), None = every input
    eq: V | None = None             # class the call returns
    pred: Pred | None = None
    exact: bool = True              # the clause says exactly what its source says
    source: Any = None              # the Demand or Claim
    input_id: str | None = None     # Call.key() (Python identity of the input)
    key_text: str | None = None     # the input as a Lean term (``key`` becomes its name)
    # A spec written in SpecGuard's specification language (``--spec``, specguard/formalize/speclang.py):
    # ``py`` is the Lean term of its ``Py.Spec``; the clause is ``∀ k, Py.Sat py k (impl k)``.
    py: str | None = None
    # An instance of such a clause at one input (``key``), as evaluated there (never rendered:
    # proofs instantiate the ``py`` clause): ``eq``, ``pred`` (raises), or a postcondition
    # (``check``, with ``post_args`` the Lean list of the arguments) -- see Py.lean.
    instance_of: "Clause | None" = None
    check: Any = None
    post_args: str | None = None
    candidates: tuple = ()          # outcomes worth trying in witnesses (postconditions)
    # An observation of several calls (``f(a) == f(b)``, specguard/kernel/multi.py): ``key`` is the
    # first call's input, ``more`` the later ones as ``[input_id, key, key_text]`` (named like ``key``)
    multi: Any = None
    more: list = field(default_factory=list)
    # One of two observations of the same expression of one call expecting different classes
    # (specguard/kernel/obstwins.py): ``(F, C)``, the clause is ``Py.obsOut F (impl key) = ret C``;
    # ``pred`` keeps the observation (undefined => true) for every Python-side use.
    twin: Any = None

    def keys(self) -> list[str]:
        """Every input the clause speaks about (names, once :func:`name_inputs` ran)."""
        return [self.key] + [m[1] for m in self.more]

    def input_ids(self) -> list[str]:
        return [self.input_id] + [m[0] for m in self.more]

    def lean_prop(self) -> str:
        if self.multi is not None:
            return f"Holds {self.multi.lean_pred(self.keys())} (impl {self.key})"
        if self.twin is not None:
            return f"Eq (Py.obsOut {self.twin[0]} (impl {self.key})) (Outcome.ret {lean_val(self.twin[1])})"
        if self.py is not None:
            return f"∀ k : Val, Py.Sat {self.py} k (impl k)"
        if self.eq is not None:
            return f"Eq (impl {self.key}) (Outcome.ret {lean_val(self.eq)})"
        assert self.pred is not None
        if self.key is None:
            return f"∀ k : Val, Holds {self.pred.lean()} (impl k)"
        return f"Holds {self.pred.lean()} (impl {self.key})"

    def holds(self, o: Outcome) -> bool:
        if self.multi is not None:
            raise TypeError("a clause of several calls holds or not on several outcomes (kernel/multi.py)")
        if self.check is not None:
            return self.check(o)
        if self.py is not None:
            raise TypeError("a spec clause holds or not per input: use its instances")
        if self.eq is not None:
            return o.exc is None and o.cls == self.eq
        return eval_pred(self.pred, o)


# -- the JSON view ---------------------------------------------------------------------------
# Tests given as JSON tables (LiveCodeBench style) cannot tell a tuple from a list, a dict's int
# key from its string form, and say nothing about how the harness compares floats.  For such
# tasks every clause (description and tests alike) speaks about the *JSON view* of the result:
# tuples become lists, dict keys their JSON strings; values with no faithful JSON form (sets,
# bytes, NaN, non-integral floats) are not modelled.  Equal Python values have equal views, so
# each viewed clause is implied by the original one and conflicts stay sound.

def json_view(c: V) -> V:
    k = c.kind
    if k in ("none", "int", "str", "inf"):
        return c
    if k in ("list", "tuple"):
        return V("list", tuple(json_view(x) for x in c.val))
    if k == "dict":
        pairs = []
        for a, b in c.val:
            if a.kind == "str":
                ka = a
            elif a.kind == "int":
                ka = V("str", str(a.val))
            elif a.kind == "none":
                ka = V("str", "null")
            else:
                raise NotModelled("a dict key with no JSON form")
            pairs.append((ka, json_view(b)))
        if len({p[0] for p in pairs}) != len(pairs):
            raise NotModelled("dict keys that collide in JSON")
        return vals.canon(V("dict", tuple(pairs)))
    if k == "rat":
        raise NotModelled("a non-integral float in a JSON-table task (how the harness compares floats is unknown)")
    raise NotModelled(f"a {k} value has no faithful JSON form")


def json_ty(t: tuple) -> tuple:
    tag = t[0]
    if tag in ("list", "tupleOf"):
        return ("list", json_ty(t[1]))
    if tag in ("set", "bytes"):
        return ("any",)
    if tag == "dict":
        return ("dict", ("any",), json_ty(t[2]))
    if tag == "union":
        return ("union", json_ty(t[1]), json_ty(t[2]))
    return t


def _class_of(v: V, json: bool) -> V:
    if vals.contains_nan(v):
        raise NotModelled("NaN in an expected value is not supported (NaN equals nothing, yet a container "
                          "holding the very same NaN object equals one holding it: identity is not modelled)")
    if vals.contains_obj(v):
        raise NotModelled("a range or iterator as an expected value (only as an argument)")
    c = vals.canon(v)
    return json_view(c) if json else c


def _ty(t: tuple, json: bool) -> tuple:
    return json_ty(t) if json else t


def clause_of_expect(name: str, call: Call, e: Expect, source: Any, json: bool = False) -> Clause:
    """The clause an expectation implies (``json``: in the JSON view, see :func:`json_view`)."""
    key = lean_input(call)
    k = e.kind
    mk = lambda **kw: Clause(name=name, key=key, source=source, input_id=call.key(), **kw)  # noqa: E731
    if k is ExpectKind.eq:
        if json and vals.canon(e.value).kind == "rat":
            return mk(pred=Pred("returns", ("type", ("float",))), exact=False)
        return mk(eq=_class_of(e.value, json))
    if k is ExpectKind.ne:
        return mk(pred=Pred("returns", ("ne", _class_of(e.value, json))))
    if k is ExpectKind.is_:
        if e.value.kind == "none":
            return mk(eq=V("none"))
        if e.value.kind == "bool":
            return mk(eq=V("int", int(e.value.val)), exact=False)
        raise NotModelled(f"`is` with a non-singleton value {vals.py_repr(e.value)}")
    if k is ExpectKind.is_not:
        if e.value.kind == "none":
            return mk(pred=Pred("returns", ("ne", V("none"))))
        return mk(pred=Pred("returns", ("any",)), exact=False)
    if k is ExpectKind.truthy:
        return mk(pred=Pred("returns", ("truthy",)))
    if k is ExpectKind.falsy:
        return mk(pred=Pred("returns", ("falsy",)))
    if k is ExpectKind.cmp:
        if e.value is None or e.value.kind not in ("int", "float", "bool") or vals.contains_nan(e.value):
            raise NotModelled("ordering comparison with a non-numeric value")
        return mk(pred=Pred("returns", ("cmp", e.op, vals.canon(e.value))))
    if k in (ExpectKind.in_, ExpectKind.not_in):
        if len(e.values) > MAX_MEMBERS:
            raise NotModelled(f"membership in a container of more than {MAX_MEMBERS} elements")
        cs = []
        for x in e.values:
            c = _class_of(x, json)
            if c not in cs:
                cs.append(c)
        return mk(pred=Pred("returns", ("mem" if k is ExpectKind.in_ else "notmem", tuple(cs))))
    if k is ExpectKind.len_eq:
        return mk(pred=Pred("returns", ("len", int(e.n))))
    if k is ExpectKind.isinstance:
        tys = []
        for t in e.types:
            if t not in _ISINSTANCE:
                raise NotModelled(f"isinstance with type {t!r}")
            tys.append(_ISINSTANCE[t])
        ty = tys[-1]
        for t in reversed(tys[:-1]):
            ty = ("union", t, ty)
        return mk(pred=Pred("returns", ("type", _ty(ty, json))), exact=False)
    if k in (ExpectKind.not_isinstance, ExpectKind.not_type):
        if json:        # the JSON view makes tuples lists: a negated type test would be stronger there
            raise NotModelled("a negated type test in a JSON-table task")
        ty = negated_type(e.types, k is ExpectKind.not_type)
        if ty is None:
            return mk(pred=Pred("returns", ("any",)), exact=False)    # says only: the call returns
        return mk(pred=Pred("returns", ("nottype", ty)), exact=False)
    if k in (ExpectKind.float_class, ExpectKind.not_float_class):
        # `math.isnan(r)` holds exactly of a float NaN (class nan), `math.isinf(r)` of +-inf; their
        # negations of a number (int, bool, float) outside that class (a non-number raises TypeError)
        if json or e.types not in (("nan",), ("inf",)):
            raise NotModelled("`math.isnan`/`math.isinf` in a JSON-table task" if json else "a float class test")
        return mk(pred=Pred("returns", ("floatclass", e.types[0], k is ExpectKind.float_class)), exact=False)
    if k is ExpectKind.raises:
        if e.iterated and not e.through_list:
            # `list(f(x))` raised: f raised, or returned plain data that list() cannot iterate
            return mk(pred=Pred("ifReturns", ("type", ("union", ("none",), ("float",)))), exact=False)
        return mk(pred=Pred("raises"), exact=False)
    if k is ExpectKind.approx:
        if e.value is not None and e.value.kind in ("int", "float", "bool"):
            if json:    # the JSON view has no fractions: only "returns a number" (a weakening)
                return mk(pred=Pred("returns", ("type", ("float",))), exact=False)
            lo, hi = approx_enclosure(e)
            return mk(pred=Pred("returns", ("near", vals._num_class(lo), vals._num_class(hi))), exact=False)
        # pytest compares containers elementwise: only "the call returns" is kept
        return mk(pred=Pred("returns", ("any",)), exact=False)
    if k is ExpectKind.obs:
        if json:
            raise NotModelled("an observation in a JSON-table task (its tests compare JSON views of results)")
        return mk(pred=Pred("returns", ("obs", observation_of(e))), exact=False)
    raise NotModelled(f"expectation {k.value}")


def observation_of(e: Expect):
    """The compiled observation of an ``obs`` expectation (:func:`specguard.formalize.speclang.observation`):
    a predicate implied by the assertion (undefined => true), so the clause is a weakening."""
    from specguard.formalize import speclang
    if e.expr is None:
        raise NotModelled("an observation without an expression")
    try:
        return speclang.observation(e.expr)
    except speclang.ObservationError as err:
        raise NotModelled(f"observation `{e.expr}`: {err}") from None


_EPS = Fraction(1, 2 ** 52)


def _float_above(t: Fraction) -> Fraction:
    """A float strictly greater than ``t`` (exact value), not much greater."""
    import math
    f = float(t)
    while math.isfinite(f) and Fraction(f) <= t:
        f = math.nextafter(f, math.inf)
    if not math.isfinite(f):
        raise NotModelled("an `approx` tolerance beyond the float range")
    return Fraction(f)


def approx_enclosure(e: Expect) -> tuple[Fraction, Fraction]:
    """Exact rational bounds ``[lo, hi]`` that every result passing ``e`` (``== pytest.approx(b,
    rel, abs)`` or ``assertAlmostEqual(r, b, places|delta)``) lies in, for a number ``b``.

    Both checks compare a float-rounded ``|b - r|`` with a tolerance ``T``: pytest's
    ``max(rel * |b|, abs)`` (defaults rel=1e-6, abs=1e-12; ``abs`` alone when only it is given),
    computed here with the same IEEE operations; ``delta``; or, for ``places``, ``round(d, places)
    == 0``, which implies ``d <= 10**-places / 2``.  The rounded difference is at most ``T`` only
    if the exact difference of the (float-converted) operands is below ``U``, the next float above
    ``T``, and converting an int operand moves it by at most ``2**-53`` of its size, so
    ``|b - r| <= (U + |b| 2**-52)(1 + 2**-52)``.  The enclosure is implied by the assertion (never
    the converse): the clause is a weakening (``exact=False``), sound for conflicts and
    contradictions, never taken as entailed."""
    import math
    b = e.value.val
    if isinstance(b, bool):
        b = int(b)
    if isinstance(b, float) and not math.isfinite(b):
        raise NotModelled("`approx` of an infinite or NaN value")
    if e.isclose:
        return isclose_enclosure(b, 1e-09 if e.rel is None else e.rel, 0.0 if e.abs is None else e.abs)
    try:
        if e.places is not None:
            if abs(e.places) > 340:
                raise NotModelled(f"`assertAlmostEqual` with places={e.places}")
            t = Fraction(1, 2) * Fraction(10) ** (-e.places)
        elif e.abs is not None and e.rel is None:
            t = Fraction(e.abs)
        else:
            rel = 1e-6 if e.rel is None else e.rel
            ab = 1e-12 if e.abs is None else e.abs
            tol = max(rel * abs(b), ab)
            if not math.isfinite(tol):
                raise NotModelled("an `approx` tolerance beyond the float range")
            t = Fraction(tol)
    except OverflowError:
        raise NotModelled("an `approx` value beyond the float range") from None
    fb = Fraction(b)
    r = (_float_above(t) + abs(fb) * _EPS) * (1 + _EPS)
    return fb - r, fb + r


def isclose_enclosure(b: int | float, rel: float, abs_tol: float) -> tuple[Fraction, Fraction]:
    """Exact bounds on every ``a`` with ``math.isclose(a, b, rel_tol=rel, abs_tol=abs_tol)``.

    CPython: ``a == b``, or (both finite) ``fabs(b - a) <= fabs(rel * b)`` or ``<= fabs(rel * a)``
    or ``<= abs_tol``, in doubles (int arguments converted first).  With ``e = 2**-52`` bounding
    each rounding and ``D`` the exact distance of the converted operands: ``D <= (1 + e) fl(D)``,
    ``fl(rel |x|) <= rel |x| (1 + e)`` and ``|a| <= |b| + D``, so with ``k = rel (1 + e)**2 < 1``,
    ``D <= T = max(k |b| / (1 - k), (1 + e) abs_tol)``; converting int operands moves each by at
    most ``2**-53`` of its size, covered by ``(|b| + T) 2**-51``.  A weakening (implied by the
    assertion, never its converse): the clause is ``exact=False``."""
    import math
    if not (math.isfinite(rel) and math.isfinite(abs_tol)) or rel < 0 or abs_tol < 0:
        raise NotModelled("`math.isclose` with a negative or non-finite tolerance (it raises ValueError)")
    try:
        fb = Fraction(float(b))
    except OverflowError:
        raise NotModelled("`math.isclose` of an int beyond the float range") from None
    k = Fraction(rel) * (1 + _EPS) ** 2
    if k >= Fraction(1, 2):
        raise NotModelled("`math.isclose` with rel_tol >= 1/2 (no useful enclosure)")
    t = max(k * abs(fb) / (1 - k), (1 + _EPS) * Fraction(abs_tol))
    r = t + (abs(fb) + t) * Fraction(1, 2 ** 51)
    fb = Fraction(b)
    return fb - r - abs(fb) * _EPS, fb + r + abs(fb) * _EPS


def clause_of_demand(d: Demand, json: bool = False) -> Clause:
    if d.calls or d.exposed:
        from specguard.kernel import multi
        return multi.clause(d, json)
    return clause_of_expect(d.id, d.call, d.expect, d, json)


def clause_of_claim(c: Claim, json: bool = False) -> Clause:
    if c.kind is ClaimKind.example:
        return clause_of_expect(c.id, c.call, c.expect, c, json)
    if c.kind is ClaimKind.return_type:
        ty = _ty(ty_of_annotation(c.type), json)
        if ty == ("any",):
            raise NotModelled(f"return type {c.type.source()} does not constrain plain values")
        return Clause(name=c.id, key=None, pred=Pred("ifReturns", ("type", ty)), exact=False, source=c)
    if c.kind is ClaimKind.result_range:
        if c.lo is None and c.hi is None:
            raise NotModelled("empty range")
        return Clause(name=c.id, key=None, pred=Pred("ifReturns", ("intIn", c.lo, c.hi)), exact=False, source=c)
    raise NotModelled(f"claim kind {c.kind}")


# -- modules ---------------------------------------------------------------------------------

def balanced(parts: Sequence[str], empty: str, node: str) -> str:
    """``parts`` as a balanced binary tree (depth log n, so Lean never recurses deeply):
    ``empty`` for none, the part itself for one, else ``node.format(left, right)``."""
    if not parts:
        return empty
    if len(parts) == 1:
        return parts[0]
    mid = len(parts) // 2
    return node.format(balanced(parts[:mid], empty, node), balanced(parts[mid:], empty, node))


def conj(parts: Sequence[str]) -> str:
    """Balanced conjunction; :func:`projection` extracts its parts."""
    return balanced(parts, "True", "And ({}) ({})")


def projection(i: int, n: int, h: str) -> str:
    """Proof term extracting conjunct ``i`` of a :func:`conj` of ``n`` parts from ``h``."""
    if n == 1:
        return h
    mid = n // 2
    if i < mid:
        return projection(i, mid, f"(And.left {h})")
    return projection(i - mid, n - mid, f"(And.right {h})")


def _comment(text: str) -> str:
    return text.replace("-/", "- /").replace("/-", "/ -").replace("\n", " ")[:200]


def name_inputs(clauses: Sequence[Clause], prefix: str) -> None:
    """Give every distinct input a Lean name (``SK0``, ``TK3``...): the module defines each
    input once, clauses and proofs refer to it by name (no term is elaborated twice)."""
    names: dict[str, str] = {}
    for c in clauses:
        if c.key is None:
            continue
        if c.key_text is None:
            c.key_text = c.key
        if c.input_id not in names:
            names[c.input_id] = f"{prefix}{len(names)}"
        c.key = names[c.input_id]
        for m in c.more:
            if m[2] is None:
                m[2] = m[1]
            if m[0] not in names:
                names[m[0]] = f"{prefix}{len(names)}"
            m[1] = names[m[0]]


def render_module(kind: str, clauses: Sequence[Clause], describe) -> str:
    """``kind`` is ``Spec`` or ``Tests``; inputs must have been named by :func:`name_inputs`."""
    lines = [HEADER + "noncomputable section", f"namespace {NS}", "open SpecGuard", ""]
    seen: set[str] = set()
    for c in clauses:
        if c.key is not None and c.key not in seen and c.key_text is not None:
            seen.add(c.key)
            lines.append(f"noncomputable def {c.key} : Val := {c.key_text}")
        for _, key, text in c.more:
            if key not in seen and text is not None:
                seen.add(key)
                lines.append(f"noncomputable def {key} : Val := {text}")
    for c in clauses:
        lines.append(f"/-- {_comment(describe(c))} -/")
        lines.append(f"def {c.name} (impl : Val → Outcome) : Prop := {c.lean_prop()}")
    names = [f"{c.name} impl" for c in clauses]
    lines.append("")
    lines.append(f"def {kind} (impl : Val → Outcome) : Prop := {conj(names)}")
    lines.append(f"end {NS}")
    return "\n".join(lines) + "\n"


def render_claim(claims: dict[str, str]) -> str:
    """``claims`` maps claim names to their Lean propositions."""
    lines = [HEADER + f"import {NS}.Spec\nimport {NS}.Tests", "noncomputable section", f"namespace {NS}",
             "open SpecGuard", ""]
    for name, prop in claims.items():
        lines.append(f"def {name} : Prop := {prop}")
    lines.append(f"end {NS}")
    return "\n".join(lines) + "\n"
