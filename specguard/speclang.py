"""SpecGuard's restricted-Python specification language (``specguard check --spec spec.py``).

A spec is a small, pure Python file that says what the function under test must do::

    def reference(nums: list[int], limit: int) -> int:     # the expected result
        return min(sum(nums), limit)

    def pre(nums: list[int], limit: int) -> bool:          # optional: where the spec applies
        return limit >= 0

    def post(nums: list[int], limit: int, result: int) -> bool:   # optional, relational
        return result <= limit

    def raises(nums: list[int], limit: int) -> str | None:  # optional: must raise
        return "ValueError" if limit < 0 else None

    EXAMPLES = [(([1, 2, 3], 10), 6)]                        # optional: the spec's own examples

The file is parsed with :mod:`ast` and checked against the subset documented in
``docs/spec-language.md``; anything outside it is a :class:`SpecError` naming ``file:line`` with
a fix.  It is never executed by SpecGuard, except by CPython in a sandboxed subprocess
(:func:`run_cpython`) when evaluating it in the kernel would be too slow (execution evidence).

The checked program becomes an intermediate representation (``E*``/``S*`` classes below) with
three consumers that implement the same semantics:

* :meth:`SpecProgram.lean_spec`: one Lean term over ``lean/SpecGuard/Py.lean`` (the statement the
  kernel evaluates; continuation-passing style, locals as binders, loops as recursors);
* :class:`Mirror`: a Python interpreter of the IR that SpecGuard uses to decide what to prove;
* :func:`run_cpython`: the original source run by CPython.

Semantics shared by all three (see ``lean/SpecGuard/Py.lean``): values are compared by ``==``;
an *implicit* error (TypeError, IndexError, ...), running out of fuel, or a case outside the
subset means the spec says nothing at that input; an explicit ``raise Name(...)`` means the call
must raise.  Mutation is value semantics, made equal to CPython's reference semantics by the
ownership rules checked in :class:`_Ownership`.
"""

from __future__ import annotations

import ast
import json
import os
import resource
import subprocess
import sys
import tempfile
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Callable, Iterable, Sequence

from . import values as vals
from .errors import InputError
from .values import V

DEFAULT_FUEL = 100_000
# Mirror steps (operations, statements, loop iterations and calls) the kernel is asked to evaluate
# per certificate; beyond it, evaluation falls back to CPython (execution evidence).  Measured in
# benchmarks/spec_eval.py: one step costs the elaborator plus the kernel about 0.2-1 ms.
DEFAULT_KERNEL_BUDGET = 20_000
# The mirror gives up (the spec says nothing it can certify) beyond this many steps.
MIRROR_STEP_LIMIT = 5_000_000
MAX_DEPTH = 450          # nesting depth the mirror accepts (Py.DEPTH is 500)
MAX_BITS = 1 << 20       # integer size the mirror computes (larger: outside the subset)
MAX_LEN = 1 << 22        # str / list length the mirror builds

SPEC_FUNCTIONS = ("reference", "pre", "post", "raises")


class SpecError(InputError):
    """Raised when a spec file is not in SpecGuard's specification language (or is not Python).

    The message names ``file:line`` and the construct; the hint says how to express it."""


# =====================================================================================
# intermediate representation
# =====================================================================================

@dataclass(eq=False)
class E:
    line: int = field(default=0, kw_only=True)


@dataclass(eq=False)
class ELit(E):
    value: Any                         # None, bool, int or str


@dataclass(eq=False)
class EVar(E):
    name: str                          # Lean binder name (v3, c7, ...)


@dataclass(eq=False)
class ERaw:
    """A non-``Val`` argument of an operation: Lean text and its Python value."""

    lean: str
    py: Any


@dataclass(eq=False)
class EList:
    """A Lean ``List Val`` argument built from expressions."""

    items: list


@dataclass(eq=False)
class EOpt:
    """A Lean ``Option Val`` argument (``None``: ``Option.none``)."""

    item: Any


@dataclass(eq=False)
class EOp(E):
    fn: str                            # a function of Py.lean returning ``Option Val``
    args: list                         # E | ERaw | EList | EOpt


@dataclass(eq=False)
class ECall(E):
    index: int                         # user function index
    args: list


@dataclass(eq=False)
class EBool(E):
    is_and: bool
    a: E
    b: E


@dataclass(eq=False)
class EIf(E):
    cond: E
    a: E
    b: E


@dataclass(eq=False)
class EChain(E):
    operands: list
    ops: list                          # (Py function, op code or None) pairs, see _CMPOPS


@dataclass(eq=False)
class TName:
    name: str


@dataclass(eq=False)
class TTuple:
    items: list


@dataclass(eq=False)
class Gen:
    target: Any                        # TName | TTuple
    iter: E
    conds: list


@dataclass(eq=False)
class EComp(E):
    kind: str                          # list | set | dict
    elt: Any                           # E, or (E, E) for dict
    gens: list


@dataclass(eq=False)
class EAnyAll(E):
    want: bool                         # True: any, False: all
    elt: E
    gens: list


@dataclass(eq=False)
class ELambda:
    param: str                         # binder
    body: E


@dataclass(eq=False)
class EKeyed(E):
    """``sorted``/``min``/``max`` with a key function (``key`` None: no key)."""

    kind: str                          # sorted | min | max | sort
    iterable: E
    key: Any                           # ELambda | None
    reverse: Any                       # E | None
    default: Any                       # E | None (min/max)


@dataclass(eq=False)
class S:
    line: int = field(default=0, kw_only=True)


@dataclass(eq=False)
class SAssign(S):
    target: Any
    value: E


@dataclass(eq=False)
class SAug(S):
    var: str
    fn: str
    value: E
    owned: bool = False


@dataclass(eq=False)
class SSetItem(S):
    var: str
    path: list
    value: E


@dataclass(eq=False)
class SAugItem(S):
    var: str
    index: E
    fn: str
    value: E


@dataclass(eq=False)
class SDelItem(S):
    var: str
    index: E


@dataclass(eq=False)
class SMut(S):
    """``var.method(args)``: ``fn`` returns the new container (``pop``: a pair)."""

    var: str
    fn: str
    args: list
    result: Any = None                 # target receiving pop's item
    pair: bool = False


@dataclass(eq=False)
class SSort(S):
    var: str
    keyed: EKeyed


@dataclass(eq=False)
class SExpr(S):
    value: E


@dataclass(eq=False)
class SIf(S):
    cond: E
    body: list
    orelse: list


@dataclass(eq=False)
class SWhile(S):
    cond: E
    body: list


@dataclass(eq=False)
class SFor(S):
    target: Any
    iter: E
    body: list


@dataclass(eq=False)
class SBreak(S):
    pass


@dataclass(eq=False)
class SContinue(S):
    pass


@dataclass(eq=False)
class SReturn(S):
    value: E


@dataclass(eq=False)
class SRaise(S):
    name: str
    args: list


@dataclass(eq=False)
class SAssert(S):
    cond: E


@dataclass(eq=False)
class SPass(S):
    pass


@dataclass(eq=False)
class Fn:
    name: str
    index: int
    params: list                       # binder names of the parameters
    locals: list                       # binder names of all locals (params first)
    pynames: dict                      # binder -> Python name
    defaults: list                     # ELit defaults of the last parameters
    body: list
    line: int
    annotations: list                  # ast annotations of the parameters


# =====================================================================================
# parsing and checking: Python ast -> IR
# =====================================================================================

_BINOPS = {ast.Add: "Py.add", ast.Sub: "Py.sub", ast.Mult: "Py.mul", ast.FloorDiv: "Py.floordiv",
           ast.Mod: "Py.mod", ast.Pow: "Py.pow", ast.BitAnd: "Py.bitand", ast.BitOr: "Py.bitor",
           ast.BitXor: "Py.bitxor", ast.LShift: "Py.lshift", ast.RShift: "Py.rshift"}
_UNOPS = {ast.USub: "Py.neg", ast.UAdd: "Py.pos", ast.Not: "Py.notOp", ast.Invert: "Py.invert"}
_CMPOPS = {ast.Eq: ("Py.eqOp", None), ast.NotEq: ("Py.neOp", None), ast.Lt: ("Py.cmpOp", 0),
           ast.LtE: ("Py.cmpOp", 1), ast.Gt: ("Py.cmpOp", 2), ast.GtE: ("Py.cmpOp", 3),
           ast.In: ("Py.inOp", None), ast.NotIn: ("Py.notInOp", None), ast.Is: ("Py.isOp", None),
           ast.IsNot: ("Py.isNotOp", None)}

# builtins that take a fixed number of plain arguments: name -> (Py function, arity)
_SIMPLE_BUILTINS = {"len": ("Py.lenV", 1), "abs": ("Py.absV", 1), "bool": ("Py.boolV", 1),
                    "int": ("Py.intOf", 1), "str": ("Py.strOf", 1), "repr": ("Py.reprV", 1),
                    "ord": ("Py.ord", 1), "chr": ("Py.chr", 1), "divmod": ("Py.divmod", 2),
                    "pow": ("Py.pow", 2), "list": ("Py.listOf", 1), "tuple": ("Py.tupleOf", 1),
                    "set": ("Py.setOf", 1), "dict": ("Py.dictOf", 1), "reversed": ("Py.reversed", 1)}
# builtins whose single argument may be a generator expression (consumed eagerly)
_EAGER_CONSUMERS = {"sum", "min", "max", "sorted", "list", "tuple", "set", "dict", "any", "all"}
# non-mutating methods: name -> (Py function, min args, max args, defaults for missing args)
_METHODS = {
    "lower": ("(Py.caseMap Bool.false)", 0, 0), "upper": ("(Py.caseMap Bool.true)", 0, 0),
    "strip": ("(Py.strip 0)", 0, 1), "lstrip": ("(Py.strip 1)", 0, 1), "rstrip": ("(Py.strip 2)", 0, 1),
    "split": ("Py.split", 0, 1), "join": ("Py.join", 1, 1), "replace": ("Py.replace", 2, 2),
    "find": ("Py.findM", 1, 1), "count": ("Py.countAny", 1, 1), "index": ("Py.indexAny", 1, 1),
    "startswith": ("(Py.affix Bool.false)", 1, 1), "endswith": ("(Py.affix Bool.true)", 1, 1),
    "isdigit": ("(Py.strTest 0)", 0, 0), "isalpha": ("(Py.strTest 1)", 0, 0),
    "isalnum": ("(Py.strTest 2)", 0, 0), "isspace": ("(Py.strTest 3)", 0, 0),
    "isupper": ("(Py.caseTest Bool.true)", 0, 0), "islower": ("(Py.caseTest Bool.false)", 0, 0),
    "get": ("Py.dictGet", 1, 2), "keys": ("Py.dictKeys", 0, 0), "values": ("Py.dictValues", 0, 0),
    "items": ("Py.dictItems", 0, 0), "copy": ("Py.copy", 0, 0),
}
# mutating methods (statements on a variable the function owns): name -> (Py fn, min, max)
_MUTATORS = {"append": ("Py.append", 1, 1), "extend": ("Py.extend", 1, 1), "insert": ("Py.insert", 2, 2),
             "remove": ("Py.remove", 1, 1), "add": ("Py.addElem", 1, 1), "discard": ("Py.discard", 1, 1),
             "reverse": ("Py.reverseList", 0, 0), "clear": ("Py.clear", 0, 0)}
# operations whose result may be (part of) an argument, not a new object
_NON_FRESH_OPS = {"Py.getItem", "Py.dictGet", "Py.immutable"}
# operations that store their arguments in the value they build
_RETAINING_OPS = {"Py.listV", "Py.tupleV", "Py.mkSet", "Py.mkDict", "Py.entry"}
# live views: iterating them sees later changes of their argument
_LIVE_OPS = {"Py.reversed", "Py.enumerate", "Py.zip", "Py.dictKeys", "Py.dictValues", "Py.dictItems"}
_ALLOWED_IMPORTS = {"typing", "__future__"}
_TYPE_NAMES = {"int", "bool", "str", "None", "list", "tuple", "dict", "set", "List", "Tuple", "Dict", "Set",
               "Optional", "Union", "Any", "Sequence", "Iterable", "Mapping", "frozenset", "FrozenSet"}


def _err(path: str, node: ast.AST | int | None, msg: str, hint: str | None = None) -> SpecError:
    line = node if isinstance(node, int) else getattr(node, "lineno", None)
    return SpecError(msg, path=path, line=line, hint=hint)


def _lit_value(node: ast.AST) -> Any:
    """A constant default/literal: None, bool, int, str (negative ints allowed)."""
    if isinstance(node, ast.Constant) and (node.value is None or type(node.value) in (bool, int, str)):
        return node.value
    if isinstance(node, ast.UnaryOp) and isinstance(node.op, ast.USub) and isinstance(node.operand, ast.Constant) \
            and type(node.operand.value) is int:
        return -node.operand.value
    raise ValueError


class _Scope:
    """Binder names of one function: locals, and nested comprehension/lambda variables."""

    def __init__(self, names: dict[str, str]) -> None:
        self.frames: list[dict[str, str]] = [names]

    def lookup(self, name: str) -> str | None:
        for f in reversed(self.frames):
            if name in f:
                return f[name]
        return None


class _Parser:
    """Checks a spec module and builds the IR of its functions."""

    def __init__(self, source: str, path: str) -> None:
        self.source = source
        self.path = path
        self.fresh = 0
        self.functions: dict[str, ast.FunctionDef] = {}
        self.index: dict[str, int] = {}
        self.constants: dict[str, ast.expr] = {}
        self.examples: ast.expr | None = None
        self.fuel = DEFAULT_FUEL
        self.entry: str | None = None
        self.raise_lines: dict[int, str] = {}
        self.const_stack: list[str] = []

    def err(self, node, msg: str, hint: str | None = None) -> SpecError:
        return _err(self.path, node, msg, hint)

    def new(self, prefix: str) -> str:
        self.fresh += 1
        return f"{prefix}{self.fresh}"

    # -- module ---------------------------------------------------------------------
    def module(self) -> list[Fn]:
        try:
            tree = ast.parse(self.source, filename=self.path)
        except SyntaxError as e:
            raise _err(self.path, e.lineno, f"not valid Python: {e.msg}") from None
        body = list(tree.body)
        if body and isinstance(body[0], ast.Expr) and isinstance(body[0].value, ast.Constant) \
                and isinstance(body[0].value.value, str):
            body = body[1:]
        for node in body:
            if isinstance(node, ast.FunctionDef):
                if node.name in self.functions:
                    raise self.err(node, f"function {node.name!r} is defined twice")
                self.functions[node.name] = node
            elif isinstance(node, (ast.Import, ast.ImportFrom)):
                mod = node.module if isinstance(node, ast.ImportFrom) else node.names[0].name
                if (mod or "").split(".")[0] not in _ALLOWED_IMPORTS:
                    raise self.err(node, f"import of {mod!r} is outside the spec language",
                                   "a spec uses only builtins; `from typing import ...` is allowed")
            elif isinstance(node, (ast.Assign, ast.AnnAssign)):
                targets = node.targets if isinstance(node, ast.Assign) else [node.target]
                if len(targets) != 1 or not isinstance(targets[0], ast.Name) or node.value is None:
                    raise self.err(node, "module-level assignments must be `NAME = expression`")
                name = targets[0].id
                if name == "EXAMPLES":
                    self.examples = node.value
                elif name == "FUEL":
                    try:
                        fuel = _lit_value(node.value)
                    except ValueError:
                        fuel = None
                    if type(fuel) is not int or not 1 <= fuel <= 10**9:
                        raise self.err(node, "FUEL must be an integer literal between 1 and 10**9")
                    self.fuel = fuel
                elif name == "ENTRY":
                    if not (isinstance(node.value, ast.Constant) and isinstance(node.value.value, str)):
                        raise self.err(node, "ENTRY must be a string literal (the name tests call)")
                    self.entry = node.value.value
                else:
                    if name in self.constants:
                        raise self.err(node, f"constant {name!r} is assigned twice")
                    self.constants[name] = node.value
            elif isinstance(node, ast.ClassDef):
                raise self.err(node, "classes are outside the spec language",
                               "write functions over ints, strs, lists, tuples, dicts and sets")
            else:
                raise self.err(node, f"`{type(node).__name__}` at module level is outside the spec language",
                               "a spec holds functions, constants, EXAMPLES, FUEL and ENTRY only")
        for name in self.constants:
            if name in self.functions:
                raise self.err(self.constants[name], f"{name!r} is both a constant and a function")
        if not ({"reference", "post"} & set(self.functions)):
            raise _err(self.path, 1, "a spec needs `def reference(...)` or `def post(..., result)`",
                       "define the expected result (reference) or a postcondition (post)")
        order = [n for n in SPEC_FUNCTIONS if n in self.functions] + \
                [n for n in self.functions if n not in SPEC_FUNCTIONS]
        self.index = {n: i for i, n in enumerate(order)}
        return [self.function(self.functions[n], self.index[n]) for n in order]

    # -- functions --------------------------------------------------------------------
    def function(self, node: ast.FunctionDef, index: int) -> Fn:
        a = node.args
        if a.vararg or a.kwarg or a.kwonlyargs or a.posonlyargs:
            raise self.err(node, f"function {node.name!r}: only plain positional parameters are allowed")
        if node.decorator_list:
            raise self.err(node, f"function {node.name!r}: decorators are outside the spec language")
        if node.returns is None:
            raise self.err(node, f"function {node.name!r} needs a return type annotation",
                           "e.g. `-> int`, `-> list[int]`, `-> bool`")
        for p in a.args:
            if p.annotation is None:
                raise self.err(p, f"parameter {p.arg!r} of {node.name!r} needs a type annotation",
                               "e.g. `xs: list[int]`")
            self.check_annotation(p.annotation)
        self.check_annotation(node.returns)
        defaults = []
        for d in a.defaults:
            try:
                defaults.append(ELit(_lit_value(d), line=d.lineno))
            except ValueError:
                raise self.err(d, "default values must be None, bool, int or str literals") from None
        params = [p.arg for p in a.args]
        if len(set(params)) != len(params):
            raise self.err(node, "repeated parameter name")
        assigned = _assigned_names(node.body)
        for g in ast.walk(node):
            if isinstance(g, (ast.Global, ast.Nonlocal)):
                raise self.err(g, "`global`/`nonlocal` are outside the spec language")
        local_names = params + sorted(n for n in assigned if n not in params)
        binders = {n: f"v{i}" for i, n in enumerate(local_names)}
        self.scope = _Scope(binders)
        self.fn_name = node.name
        self.locals_set = set(local_names)
        body = node.body
        if body and isinstance(body[0], ast.Expr) and isinstance(body[0].value, ast.Constant) \
                and isinstance(body[0].value.value, str):
            body = body[1:]
        ir = self.block(body)
        return Fn(name=node.name, index=index, params=[binders[p] for p in params],
                  locals=[binders[n] for n in local_names], pynames={b: n for n, b in binders.items()},
                  defaults=defaults, body=ir, line=node.lineno, annotations=[p.annotation for p in a.args])

    def check_annotation(self, ann: ast.expr) -> None:
        for n in ast.walk(ann):
            if isinstance(n, ast.Name) and n.id not in _TYPE_NAMES:
                raise self.err(n, f"type {n.id!r} is outside the spec language",
                               "use int, bool, str, None, list[...], tuple[...], dict[...], set[...]")
            if isinstance(n, ast.Constant) and n.value not in (None, Ellipsis) and not isinstance(n.value, str):
                raise self.err(n, "unsupported type annotation")

    # -- statements -----------------------------------------------------------------------
    def block(self, stmts: Sequence[ast.stmt]) -> list[S]:
        return [s for st in stmts for s in self.stmt(st)]

    def stmt(self, s: ast.stmt) -> list[S]:
        ln = s.lineno
        if isinstance(s, ast.Pass):
            return [SPass(line=ln)]
        if isinstance(s, ast.Return):
            return [SReturn(self.expr(s.value) if s.value is not None else ELit(None, line=ln), line=ln)]
        if isinstance(s, ast.Break):
            return [SBreak(line=ln)]
        if isinstance(s, ast.Continue):
            return [SContinue(line=ln)]
        if isinstance(s, ast.If):
            return [SIf(self.expr(s.test), self.block(s.body), self.block(s.orelse), line=ln)]
        if isinstance(s, ast.While):
            if s.orelse:
                raise self.err(s, "`while ... else` is outside the spec language")
            return [SWhile(self.expr(s.test), self.block(s.body), line=ln)]
        if isinstance(s, ast.For):
            if s.orelse:
                raise self.err(s, "`for ... else` is outside the spec language")
            it = self.iterable(s.iter)
            return [SFor(self.target(s.target), it, self.block(s.body), line=ln)]
        if isinstance(s, ast.Raise):
            if s.cause is not None:
                raise self.err(s, "`raise ... from ...` is outside the spec language")
            exc = s.exc
            if isinstance(exc, ast.Name):
                self.raise_lines[ln] = exc.id
                return [SRaise(exc.id, [], line=ln)]
            if isinstance(exc, ast.Call) and isinstance(exc.func, ast.Name) and not exc.keywords:
                self.raise_lines[ln] = exc.func.id
                return [SRaise(exc.func.id, [self.expr(x) for x in exc.args], line=ln)]
            raise self.err(s, "raise a named exception: `raise ValueError(...)`")
        if isinstance(s, ast.Assert):
            return [SAssert(self.expr(s.test), line=ln)]
        if isinstance(s, ast.Expr):
            if isinstance(s.value, ast.Constant) and isinstance(s.value.value, str):
                return []
            mut = self.mutation_call(s.value, None)
            if mut is not None:
                return [mut]
            return [SExpr(self.expr(s.value), line=ln)]
        if isinstance(s, ast.AnnAssign):
            if s.value is None:
                return []
            return self.assign([s.target], s.value, ln)
        if isinstance(s, ast.Assign):
            return self.assign(s.targets, s.value, ln)
        if isinstance(s, ast.AugAssign):
            op = _BINOPS.get(type(s.op))
            if op is None:
                raise self.err(s, f"operator `{type(s.op).__name__}=` is outside the spec language",
                               "`/` gives a float; use `//`")
            if isinstance(s.target, ast.Name):
                var = self.local(s.target)
                return [SAug(var, op, self.expr(s.value), line=ln)]
            if isinstance(s.target, ast.Subscript) and isinstance(s.target.value, ast.Name) \
                    and not isinstance(s.target.slice, ast.Slice):
                var = self.local(s.target.value)
                return [SAugItem(var, self.expr(s.target.slice), op, self.expr(s.value), line=ln)]
            raise self.err(s, "augmented assignment to this target is outside the spec language",
                           "use `name op= value` or `name[index] op= value`")
        if isinstance(s, ast.Delete):
            out = []
            for t in s.targets:
                if isinstance(t, ast.Subscript) and isinstance(t.value, ast.Name) and not isinstance(t.slice, ast.Slice):
                    out.append(SDelItem(self.local(t.value), self.expr(t.slice), line=ln))
                else:
                    raise self.err(s, "only `del name[index]` is supported")
            return out
        if isinstance(s, (ast.FunctionDef, ast.AsyncFunctionDef, ast.Lambda)):
            raise self.err(s, "nested functions are outside the spec language", "define helpers at module level")
        raise self.err(s, f"`{type(s).__name__}` statements are outside the spec language",
                       "see docs/spec-language.md for the supported statements")

    def local(self, node: ast.Name) -> str:
        b = self.scope.frames[0].get(node.id)
        if b is None:
            raise self.err(node, f"{node.id!r} is not a local variable of {self.fn_name!r}")
        return b

    def assign(self, targets: list[ast.expr], value: ast.expr, ln: int) -> list[S]:
        if len(targets) == 1:
            t = targets[0]
            mut = self.mutation_call(value, t)
            if mut is not None:
                return [mut]
            if isinstance(t, ast.Subscript):
                path = []
                cur: ast.expr = t
                while isinstance(cur, ast.Subscript):
                    if isinstance(cur.slice, ast.Slice):
                        raise self.err(t, "assignment to a slice is outside the spec language")
                    path.append(cur.slice)
                    cur = cur.value
                if not isinstance(cur, ast.Name) or len(path) > 2:
                    raise self.err(t, "item assignment must be `name[i] = v` or `name[i][j] = v`")
                v = self.expr(value)
                return [SSetItem(self.local(cur), [self.expr(p) for p in reversed(path)], v, line=ln)]
            return [SAssign(self.target(t), self.expr(value), line=ln)]
        if any(not isinstance(t, ast.Name) for t in targets):
            raise self.err(ln, "chained assignment is allowed to plain names only")
        tmp = self.expr(value)
        out: list[S] = [SAssign(TName(self.local(targets[0])), tmp, line=ln)]
        for t in targets[1:]:
            out.append(SAssign(TName(self.local(t)), EVar(self.local(targets[0]), line=ln), line=ln))
        return out

    def target(self, t: ast.expr):
        if isinstance(t, ast.Name):
            b = self.scope.lookup(t.id)
            if b is None:
                raise self.err(t, f"cannot assign to {t.id!r} here")
            return TName(b)
        if isinstance(t, (ast.Tuple, ast.List)):
            if any(isinstance(x, ast.Starred) for x in t.elts):
                raise self.err(t, "starred unpacking is outside the spec language")
            return TTuple([self.target(x) for x in t.elts])
        raise self.err(t, "assignment targets must be names or tuples of names")

    def mutation_call(self, value: ast.expr, target: ast.expr | None) -> S | None:
        """``x.append(e)``, ``x.sort(...)``, ``y = x.pop()`` ... on a local ``x``."""
        if not (isinstance(value, ast.Call) and isinstance(value.func, ast.Attribute)):
            return None
        meth = value.func.attr
        if meth not in _MUTATORS and meth not in ("pop", "sort"):
            return None
        recv = value.func.value
        if not isinstance(recv, ast.Name) or recv.id not in self.locals_set:
            raise self.err(value, f"`.{meth}()` changes its receiver; call it on a local variable",
                           "copy first: `ys = list(xs)`, then `ys." + meth + "(...)`")
        var = self.local(recv)
        ln = value.lineno
        if meth == "sort":
            if value.args:
                raise self.err(value, "`.sort()` takes only key= and reverse=")
            keyed = self.keyed("sort", EVar(var, line=ln), value.keywords, value)
            if target is not None:
                raise self.err(value, "`.sort()` returns None; sort then use the list")
            return SSort(var, keyed, line=ln)
        if value.keywords:
            raise self.err(value, f"`.{meth}()` takes no keyword arguments here")
        args = [self.expr(a) for a in value.args]
        if meth == "pop":
            if len(args) > 1:
                raise self.err(value, "`.pop()` takes at most one argument (an index)")
            res = self.target(target) if target is not None else None
            return SMut(var, "Py.pop", [args[0] if args else ELit(None, line=ln)], result=res, pair=True, line=ln)
        fn, lo, hi = _MUTATORS[meth]
        if not lo <= len(args) <= hi:
            raise self.err(value, f"`.{meth}()` takes {lo if lo == hi else f'{lo} to {hi}'} argument(s)")
        if target is not None:
            raise self.err(value, f"`.{meth}()` returns None; call it as a statement")
        return SMut(var, fn, args, line=ln)

    # -- expressions -------------------------------------------------------------------------
    def expr(self, e: ast.expr) -> E:
        ln = getattr(e, "lineno", 0)
        if isinstance(e, ast.Constant):
            if e.value is None or type(e.value) in (bool, int, str):
                return ELit(e.value, line=ln)
            what = type(e.value).__name__
            raise self.err(e, f"{what} constants are outside the spec language",
                           "floats are not supported; use ints (e.g. scaled) or fractions as pairs")
        if isinstance(e, ast.Name):
            b = self.scope.lookup(e.id)
            if b is not None:
                return EVar(b, line=ln)
            if e.id in self.constants:
                if e.id in self.const_stack:
                    raise self.err(e, f"constant {e.id!r} refers to itself")
                self.const_stack.append(e.id)
                saved = self.scope
                self.scope = _Scope({})
                try:
                    return self.expr(self.constants[e.id])
                finally:
                    self.scope = saved
                    self.const_stack.pop()
            if e.id in self.functions:
                raise self.err(e, f"function {e.id!r} used as a value", "call it, or pass it as key=")
            raise self.err(e, f"name {e.id!r} is not defined in the spec",
                           "define it as a local, a module constant or a function")
        if isinstance(e, ast.BinOp):
            op = _BINOPS.get(type(e.op))
            if op is None:
                raise self.err(e, f"operator `{type(e.op).__name__}` is outside the spec language",
                               "`/` gives a float; use `//` (floor division)")
            return EOp(op, [self.expr(e.left), self.expr(e.right)], line=ln)
        if isinstance(e, ast.UnaryOp):
            return EOp(_UNOPS[type(e.op)], [self.expr(e.operand)], line=ln)
        if isinstance(e, ast.BoolOp):
            vs = [self.expr(v) for v in e.values]
            out = vs[-1]
            for v in reversed(vs[:-1]):
                out = EBool(isinstance(e.op, ast.And), v, out, line=ln)
            return out
        if isinstance(e, ast.Compare):
            operands = [self.expr(e.left)]
            ops = []
            for op, right in zip(e.ops, e.comparators):
                if isinstance(op, (ast.Is, ast.IsNot)) and not (
                        isinstance(right, ast.Constant) and (right.value is None or type(right.value) is bool)):
                    raise self.err(e, "`is` / `is not` compare with None, True or False only", "use `==`")
                ops.append(_CMPOPS[type(op)])
                operands.append(self.expr(right))
            if len(ops) == 1:
                return _cmp_op(ops[0], operands[0], operands[1], ln)
            return EChain(operands, ops, line=ln)
        if isinstance(e, ast.IfExp):
            return EIf(self.expr(e.test), self.expr(e.body), self.expr(e.orelse), line=ln)
        if isinstance(e, (ast.List, ast.Tuple, ast.Set)):
            if any(isinstance(x, ast.Starred) for x in e.elts):
                raise self.err(e, "starred items are outside the spec language")
            items = EList([self.expr(x) for x in e.elts])
            fn = {ast.List: "Py.listV", ast.Tuple: "Py.tupleV", ast.Set: "Py.mkSet"}[type(e)]
            return EOp(fn, [items], line=ln)
        if isinstance(e, ast.Dict):
            if any(k is None for k in e.keys):
                raise self.err(e, "`**` in a dict display is outside the spec language")
            entries = [EOp("Py.entryV", [self.expr(k), self.expr(v)], line=ln) for k, v in zip(e.keys, e.values)]
            return EOp("Py.mkDict", [EList(entries)], line=ln)
        if isinstance(e, ast.Subscript):
            base = self.expr(e.value)
            if isinstance(e.slice, ast.Slice):
                sl = e.slice
                parts = [self.expr(p) if p is not None else ELit(None, line=ln) for p in (sl.lower, sl.upper, sl.step)]
                return EOp("Py.slice", [base, *parts], line=ln)
            return EOp("Py.getItem", [base, self.expr(e.slice)], line=ln)
        if isinstance(e, ast.Call):
            return self.call(e)
        if isinstance(e, ast.ListComp):
            return EComp("list", *self.comp(e.generators, lambda: self.expr(e.elt)), line=ln)
        if isinstance(e, ast.SetComp):
            return EComp("set", *self.comp(e.generators, lambda: self.expr(e.elt)), line=ln)
        if isinstance(e, ast.DictComp):
            return EComp("dict", *self.comp(e.generators, lambda: (self.expr(e.key), self.expr(e.value))), line=ln)
        if isinstance(e, ast.GeneratorExp):
            raise self.err(e, "a generator expression is allowed only as the argument of sum, min, max, sorted, "
                              "list, tuple, set, dict, any, all or str.join",
                           "use a list comprehension `[...]`")
        if isinstance(e, ast.JoinedStr):
            parts = []
            for v in e.values:
                if isinstance(v, ast.Constant):
                    parts.append(ELit(v.value, line=ln))
                elif isinstance(v, ast.FormattedValue):
                    if v.format_spec is not None:
                        raise self.err(e, "format specs in f-strings (`{x:...}`) are outside the spec language",
                                       "build the text with str() and string methods")
                    inner = self.expr(v.value)
                    if v.conversion == ord("r"):
                        inner = EOp("Py.reprV", [inner], line=ln)
                    elif v.conversion not in (-1, ord("s")):
                        raise self.err(e, "only !r and !s conversions are supported in f-strings")
                    parts.append(inner)
            return EOp("Py.fstr", [EList(parts)], line=ln)
        if isinstance(e, ast.Attribute):
            raise self.err(e, f"attribute `.{e.attr}` is outside the spec language", "call a supported method")
        if isinstance(e, ast.Lambda):
            raise self.err(e, "lambda is allowed only as key= of sorted, min, max and list.sort")
        if isinstance(e, ast.NamedExpr):
            raise self.err(e, "`:=` is outside the spec language")
        raise self.err(e, f"`{type(e).__name__}` expressions are outside the spec language")

    def comp(self, gens: list[ast.comprehension], elt: Callable[[], Any]) -> tuple[Any, list[Gen]]:
        out: list[Gen] = []
        pushed = 0
        try:
            for g in gens:
                if g.is_async:
                    raise self.err(g.iter, "async comprehensions are outside the spec language")
                it = self.iterable(g.iter)
                frame: dict[str, str] = {}
                self.scope.frames.append(frame)
                pushed += 1
                tgt = self.comp_target(g.target, frame)
                conds = [self.expr(c) for c in g.ifs]
                out.append(Gen(tgt, it, conds))
            value = elt()
        finally:
            for _ in range(pushed):
                self.scope.frames.pop()
        return value, out

    def comp_target(self, t: ast.expr, frame: dict[str, str]):
        if isinstance(t, ast.Name):
            frame[t.id] = self.new("c")
            return TName(frame[t.id])
        if isinstance(t, (ast.Tuple, ast.List)) and not any(isinstance(x, ast.Starred) for x in t.elts):
            return TTuple([self.comp_target(x, frame) for x in t.elts])
        raise self.err(t, "comprehension targets must be names or tuples of names")

    def iterable(self, node: ast.expr) -> E:
        """An expression iterated by a for loop or a comprehension (``range`` allowed)."""
        return self.expr_or_range(node)

    def expr_or_range(self, node: ast.expr) -> E:
        if isinstance(node, ast.Call) and isinstance(node.func, ast.Name) and node.func.id == "range" \
                and self.scope.lookup("range") is None:
            if node.keywords or not 1 <= len(node.args) <= 3:
                raise self.err(node, "range() takes 1 to 3 positional arguments")
            return EOp("Py.rangeV", [EList([self.expr(a) for a in node.args])], line=node.lineno)
        return self.expr(node)

    def arg(self, node: ast.expr, eager: bool) -> E:
        """A builtin's argument: ``range(...)`` and (for eager consumers) generator expressions."""
        if isinstance(node, ast.GeneratorExp):
            if not eager:
                raise self.err(node, "a generator expression is allowed only as the argument of sum, min, max, "
                                     "sorted, list, tuple, set, dict, any, all or str.join",
                               "use a list comprehension `[...]`")
            return EComp("list", *self.comp(node.generators, lambda: self.expr(node.elt)), line=node.lineno)
        return self.expr_or_range(node)

    def call(self, e: ast.Call) -> E:
        ln = e.lineno
        f = e.func
        if any(isinstance(a, ast.Starred) for a in e.args) or any(k.arg is None for k in e.keywords):
            raise self.err(e, "`*args` / `**kwargs` in calls are outside the spec language")
        if isinstance(f, ast.Attribute):
            meth = f.attr
            if meth in _MUTATORS or meth in ("pop", "sort"):
                raise self.err(e, f"`.{meth}()` changes its receiver; use it as a statement on a local variable",
                               f"e.g. `xs.{meth}(...)` on its own line")
            if meth == "join" and len(e.args) == 1 and not e.keywords:
                return EOp("Py.join", [self.expr(f.value), self.arg(e.args[0], True)], line=ln)
            if meth not in _METHODS:
                raise self.err(e, f"method `.{meth}()` is outside the spec language",
                               "see docs/spec-language.md for the supported methods")
            if e.keywords:
                raise self.err(e, f"`.{meth}()` takes no keyword arguments here")
            fn, lo, hi = _METHODS[meth]
            if not lo <= len(e.args) <= hi:
                raise self.err(e, f"`.{meth}()` takes {lo if lo == hi else f'{lo} to {hi}'} argument(s) here")
            args = [self.expr(a) for a in e.args]
            if meth in ("strip", "lstrip", "rstrip", "split") and not args:
                args = [ELit(None, line=ln)]
            if meth == "get" and len(args) == 1:
                args.append(ELit(None, line=ln))
            return EOp(fn, [self.expr(f.value), *args], line=ln)
        if not isinstance(f, ast.Name):
            raise self.err(e, "only functions and methods can be called")
        name = f.id
        if self.scope.lookup(name) is not None:
            raise self.err(e, f"{name!r} is a variable, not a function")
        if name in self.functions:
            if e.keywords:
                raise self.err(e, f"call {name!r} with positional arguments")
            target = self.functions[name]
            n = len(target.args.args)
            nd = len(target.args.defaults)
            if not n - nd <= len(e.args) <= n:
                raise self.err(e, f"{name!r} takes {n} argument(s), {len(e.args)} given")
            args = [self.expr(a) for a in e.args]
            for d in target.args.defaults[len(e.args) - (n - nd):]:
                args.append(ELit(_lit_value(d), line=ln))
            return ECall(self.index[name], args, line=ln)
        kw = {k.arg: k.value for k in e.keywords}
        args = e.args
        if name in _SIMPLE_BUILTINS:
            fn, arity = _SIMPLE_BUILTINS[name]
            if kw:
                raise self.err(e, f"{name}() takes no keyword arguments here")
            if name in ("list", "tuple", "set", "dict") and not args:
                return EOp({"list": "Py.listV", "tuple": "Py.tupleV", "set": "Py.mkSet", "dict": "Py.mkDict"}[name],
                           [EList([])], line=ln)
            if name == "str" and not args:
                return ELit("", line=ln)
            if name == "int" and len(args) == 2:
                raise self.err(e, "int() with a base is outside the spec language")
            if len(args) != arity:
                raise self.err(e, f"{name}() takes {arity} argument(s) here")
            return EOp(fn, [self.arg(a, name in _EAGER_CONSUMERS) for a in args], line=ln)
        if name == "range":
            raise self.err(e, "range() is allowed in `for` loops, comprehensions and as the argument of list, "
                              "tuple, set, sorted, sum, min, max, any, all, len, reversed, enumerate, zip and `in`",
                           "use list(range(...)) to make a list")
        if name in ("sum", "any", "all"):
            if name != "sum" and kw or name == "sum" and set(kw) - {"start"}:
                raise self.err(e, f"{name}() keyword arguments are not supported here")
            if not 1 <= len(args) <= (2 if name == "sum" else 1):
                raise self.err(e, f"wrong number of arguments to {name}()")
            if name in ("any", "all") and isinstance(args[0], ast.GeneratorExp):
                g = args[0]
                elt, gens = self.comp(g.generators, lambda: self.expr(g.elt))
                return EAnyAll(name == "any", elt, gens, line=ln)
            it = self.arg(args[0], True)
            if name == "sum":
                start = self.expr(args[1]) if len(args) > 1 else (self.expr(kw["start"]) if "start" in kw else ELit(0, line=ln))
                return EOp("Py.sum", [it, start], line=ln)
            return EOp("Py.anyB" if name == "any" else "Py.allB", [it], line=ln)
        if name in ("min", "max", "sorted"):
            allowed = {"key", "default"} if name != "sorted" else {"key", "reverse"}
            if set(kw) - allowed:
                raise self.err(e, f"{name}() takes only {', '.join(sorted(allowed))} as keywords")
            if not args:
                raise self.err(e, f"{name}() needs an argument")
            if len(args) == 1:
                it = self.arg(args[0], True)
            else:
                if name == "sorted":
                    raise self.err(e, "sorted() takes one positional argument")
                if "default" in kw:
                    raise self.err(e, f"{name}() with several arguments takes no default=")
                it = EOp("Py.tupleV", [EList([self.expr(a) for a in args])], line=ln)
            return self.keyed(name, it, e.keywords, e)
        if name == "enumerate":
            if not 1 <= len(args) + len(kw) <= 2 or set(kw) - {"start"}:
                raise self.err(e, "enumerate(iterable, start=0)")
            start = self.expr(args[1]) if len(args) > 1 else (self.expr(kw["start"]) if kw else ELit(0, line=ln))
            return EOp("Py.enumerate", [self.arg(args[0], False), start], line=ln)
        if name == "zip":
            if kw:
                raise self.err(e, "zip() keyword arguments are outside the spec language")
            return EOp("Py.zip", [EList([self.arg(a, False) for a in args])], line=ln)
        if name in ("isinstance", "type", "print", "input", "open", "eval", "exec", "getattr", "setattr",
                    "hash", "id", "iter", "next", "map", "filter", "float", "round", "format", "vars", "globals"):
            raise self.err(e, f"{name}() is outside the spec language",
                           "see docs/spec-language.md for the supported builtins")
        raise self.err(e, f"{name!r} is not a function of the spec or a supported builtin")

    def keyed(self, kind: str, it: E, keywords: list[ast.keyword], node: ast.AST) -> EKeyed:
        key = rev = dflt = None
        for k in keywords:
            if k.arg == "key":
                key = self.key_fn(k.value)
            elif k.arg == "reverse" and kind in ("sorted", "sort"):
                rev = self.expr(k.value)
            elif k.arg == "default" and kind in ("min", "max"):
                dflt = self.expr(k.value)
            else:
                raise self.err(node, f"unsupported keyword {k.arg!r}")
        return EKeyed(kind, it, key, rev, dflt, line=getattr(node, "lineno", 0))

    def key_fn(self, v: ast.expr) -> ELambda | None:
        if isinstance(v, ast.Constant) and v.value is None:
            return None
        if isinstance(v, ast.Lambda):
            a = v.args
            if a.vararg or a.kwarg or a.kwonlyargs or a.posonlyargs or a.defaults or len(a.args) != 1:
                raise self.err(v, "key= lambdas take exactly one parameter")
            b = self.new("c")
            self.scope.frames.append({a.args[0].arg: b})
            try:
                return ELambda(b, self.expr(v.body))
            finally:
                self.scope.frames.pop()
        if isinstance(v, ast.Name):
            b = self.new("c")
            if v.id in self.functions:
                return ELambda(b, ECall(self.index[v.id], [EVar(b, line=v.lineno)], line=v.lineno))
            if v.id in _SIMPLE_BUILTINS and _SIMPLE_BUILTINS[v.id][1] == 1:
                return ELambda(b, EOp(_SIMPLE_BUILTINS[v.id][0], [EVar(b, line=v.lineno)], line=v.lineno))
        if isinstance(v, ast.Attribute) and isinstance(v.value, ast.Name) and v.value.id == "str" \
                and v.attr in ("lower", "upper"):
            b = self.new("c")
            return ELambda(b, EOp(_METHODS[v.attr][0], [EVar(b, line=v.lineno)], line=v.lineno))
        raise self.err(v, "key= must be a lambda, a function of the spec, or len/abs/str/int/str.lower")


def _cmp_op(op: tuple, a: E, b: E, line: int) -> E:
    fn, code = op
    if code is None:
        return EOp(fn, [a, b], line=line)
    return EOp(fn, [ERaw(str(code), code), a, b], line=line)


_BUILTIN_NAMES = set(_SIMPLE_BUILTINS) | {"range", "sum", "any", "all", "min", "max", "sorted", "enumerate", "zip"}


def _assigned_names(body: Sequence[ast.stmt]) -> set[str]:
    """Names a function body binds (Python's rule for locals), outside comprehensions/lambdas."""
    out: set[str] = set()

    def targets(t: ast.expr) -> None:
        if isinstance(t, ast.Name):
            out.add(t.id)
        elif isinstance(t, (ast.Tuple, ast.List)):
            for x in t.elts:
                targets(x.value if isinstance(x, ast.Starred) else x)

    def walk(stmts: Sequence[ast.stmt]) -> None:
        for s in stmts:
            if isinstance(s, ast.Assign):
                for t in s.targets:
                    targets(t)
            elif isinstance(s, (ast.AugAssign, ast.AnnAssign)):
                targets(s.target)
            elif isinstance(s, ast.For):
                targets(s.target)
            if isinstance(s, (ast.If, ast.While, ast.For)):
                walk(s.body)
                walk(s.orelse)
            elif isinstance(s, (ast.With, ast.Try)):
                walk(s.body)
    walk(body)
    return out


# =====================================================================================
# static checks on the IR: definite assignment, ownership
# =====================================================================================

def _walk_e(e, f: Callable[[Any], None]) -> None:
    """Apply ``f`` to ``e`` and every sub-expression (including comprehension parts)."""
    if e is None:
        return
    f(e)
    if isinstance(e, EOp) or isinstance(e, ECall):
        for a in e.args:
            _walk_arg(a, f)
    elif isinstance(e, EBool):
        _walk_e(e.a, f)
        _walk_e(e.b, f)
    elif isinstance(e, EIf):
        _walk_e(e.cond, f)
        _walk_e(e.a, f)
        _walk_e(e.b, f)
    elif isinstance(e, EChain):
        for o in e.operands:
            _walk_e(o, f)
    elif isinstance(e, (EComp, EAnyAll)):
        for g in e.gens:
            _walk_e(g.iter, f)
            for c in g.conds:
                _walk_e(c, f)
        elts = e.elt if isinstance(e.elt, tuple) else (e.elt,)
        for x in elts:
            _walk_e(x, f)
    elif isinstance(e, EKeyed):
        _walk_e(e.iterable, f)
        if e.key is not None:
            _walk_e(e.key.body, f)
        _walk_e(e.reverse, f)
        _walk_e(e.default, f)


def _walk_arg(a, f) -> None:
    if isinstance(a, EList):
        for x in a.items:
            _walk_e(x, f)
    elif isinstance(a, EOpt):
        _walk_e(a.item, f)
    elif isinstance(a, E):
        _walk_e(a, f)


def _stmt_exprs(s: S) -> list:
    if isinstance(s, SAssign):
        return [s.value]
    if isinstance(s, (SAug, SExpr, SReturn)):
        return [s.value]
    if isinstance(s, SSetItem):
        return [s.value, *s.path]
    if isinstance(s, SAugItem):
        return [s.index, s.value]
    if isinstance(s, SDelItem):
        return [s.index]
    if isinstance(s, SMut):
        return list(s.args)
    if isinstance(s, SSort):
        return [s.keyed]
    if isinstance(s, (SIf, SWhile, SAssert)):
        return [s.cond]
    if isinstance(s, SFor):
        return [s.iter]
    if isinstance(s, SRaise):
        return list(s.args)
    return []


def _sub_blocks(s: S) -> list:
    if isinstance(s, SIf):
        return [s.body, s.orelse]
    if isinstance(s, (SWhile, SFor)):
        return [s.body]
    return []


def _all_stmts(stmts: Sequence[S]) -> Iterable[S]:
    for s in stmts:
        yield s
        for b in _sub_blocks(s):
            yield from _all_stmts(b)


def _target_names(t) -> list[str]:
    if t is None:
        return []
    if isinstance(t, TName):
        return [t.name]
    return [n for x in t.items for n in _target_names(x)]


def _check_defined(fn: Fn, path: str) -> None:
    """Reject reads of a local that may be unassigned (CPython's UnboundLocalError)."""
    local = set(fn.locals)

    def expr(e, d: frozenset) -> None:
        def f(x):
            if isinstance(x, EVar) and x.name in local and x.name not in d:
                raise _err(path, x.line, f"variable {fn.pynames[x.name]!r} may be used before it is assigned",
                           "assign it on every path before this line (e.g. initialise it before the loop)")
        _walk_e(e, f)

    def block(stmts: Sequence[S], d: frozenset) -> frozenset | None:
        for s in stmts:
            d = stmt(s, d)
            if d is None:
                return None
        return d

    def need(var: str, s: S, d: frozenset) -> None:
        if var not in d:
            raise _err(path, s.line, f"variable {fn.pynames[var]!r} may be used before it is assigned",
                       "assign it on every path before this line")

    def stmt(s: S, d: frozenset) -> frozenset | None:
        for e in _stmt_exprs(s):
            expr(e, d)
        if isinstance(s, SAssign):
            return d | set(_target_names(s.target))
        if isinstance(s, (SAug, SSetItem, SAugItem, SDelItem, SSort)):
            need(s.var, s, d)
            return d
        if isinstance(s, SMut):
            need(s.var, s, d)
            return d | set(_target_names(s.result))
        if isinstance(s, SIf):
            a = block(s.body, d)
            b = block(s.orelse, d)
            if a is None:
                return b
            if b is None:
                return a
            return a & b
        if isinstance(s, SWhile):
            block(s.body, d)
            return d
        if isinstance(s, SFor):
            block(s.body, d | set(_target_names(s.target)))
            return d
        if isinstance(s, (SBreak, SContinue, SReturn, SRaise)):
            return None
        return d

    block(fn.body, frozenset(fn.params))


# expression contexts for the ownership analysis
_RETAIN, _USE, _ITER, _SUB, _SAFE = "retain", "use", "iter", "sub", "safe"
_SAFE_OPS = {"Py.lenV", "Py.eqOp", "Py.neOp", "Py.cmpOp", "Py.boolV", "Py.notOp", "Py.isOp", "Py.isNotOp"}
_ITER_OPS = {"Py.listOf", "Py.tupleOf", "Py.setOf", "Py.dictOf", "Py.reversed", "Py.enumerate", "Py.zip",
             "Py.sum", "Py.anyB", "Py.allB", "Py.join", "Py.dictKeys", "Py.dictValues", "Py.dictItems",
             "Py.copy", "Py.slice", "Py.add", "Py.mul", "Py.iter"}
_SCALAR_OPS = {"Py.lenV", "Py.absV", "Py.boolV", "Py.intOf", "Py.strOf", "Py.reprV", "Py.ord", "Py.chr", "Py.eqOp",
               "Py.neOp", "Py.cmpOp", "Py.inOp", "Py.notInOp", "Py.isOp", "Py.isNotOp", "Py.notOp", "Py.fstr",
               "Py.caseMap", "Py.strip", "Py.replace", "Py.findM", "Py.countAny", "Py.indexAny", "Py.affix",
               "Py.strTest", "Py.caseTest", "Py.join"}
_ARITH_OPS = {"Py.add", "Py.sub", "Py.mul", "Py.floordiv", "Py.mod", "Py.pow", "Py.neg", "Py.pos", "Py.invert",
              "Py.bitand", "Py.bitor", "Py.bitxor", "Py.lshift", "Py.rshift"}


def _fresh(e) -> bool:
    """``e`` evaluates to a new object (or an immutable one): nothing else refers to it."""
    if isinstance(e, (ELit, EComp, EAnyAll, EChain)):
        return True
    if isinstance(e, EVar) or isinstance(e, ECall):
        return False
    if isinstance(e, EOp):
        if e.fn in _NON_FRESH_OPS:
            return False
        if e.fn == "Py.sum":
            return _fresh(e.args[1])
        return True
    if isinstance(e, EBool):
        return _fresh(e.a) and _fresh(e.b)
    if isinstance(e, EIf):
        return _fresh(e.a) and _fresh(e.b)
    if isinstance(e, EKeyed):
        return e.kind == "sorted"
    return False


def _scalar(e) -> bool:
    """``e`` evaluates to an int, bool, str or None (or fails)."""
    if isinstance(e, (ELit, EChain, EAnyAll)):
        return True
    if isinstance(e, EOp):
        if e.fn in _SCALAR_OPS:
            return True
        if e.fn in _ARITH_OPS:
            return all(_scalar(a) for a in e.args if isinstance(a, E))
    return False


def _rows_fresh(e) -> bool:
    """``e`` builds a container whose items are new objects or immutables (rows of a table)."""
    if isinstance(e, EOp):
        if e.fn in ("Py.listV", "Py.tupleV"):
            return all(_fresh(x) for x in e.args[0].items)
        if e.fn == "Py.mkDict":
            return all(_fresh(x.args[1]) for x in e.args[0].items)
        if e.fn == "Py.mul":
            seqs = [a for a in e.args if isinstance(a, EOp) and a.fn in ("Py.listV", "Py.tupleV")]
            return bool(seqs) and all(_scalar(x) for x in seqs[0].args[0].items)
        if e.fn == "Py.rangeV" or (e.fn == "Py.listOf" and isinstance(e.args[0], EOp) and e.args[0].fn == "Py.rangeV"):
            return True
    if isinstance(e, EComp):
        elts = e.elt if isinstance(e.elt, tuple) else (e.elt,)
        return all(_fresh(x) for x in elts)
    return False


class _Ownership:
    """Decides which variables a function may change in place, and rejects the rest.

    Python mutates objects that several names may share; the compiled spec rebinds the variable
    to a changed copy instead.  The two agree when the changed object is referred to by that
    variable only: the variable is a local (not a parameter, not a loop target) that is always
    assigned a new object, is never stored anywhere (in a container, another variable, a call's
    argument), and is not changed while a loop iterates over it.  ``x[i][j] = v`` (a table)
    additionally needs rows that are new objects and are never shared."""

    def __init__(self, fn: Fn, path: str) -> None:
        self.fn = fn
        self.path = path
        self.loads: dict[str, list[tuple[str, int]]] = {}       # var -> [(context, line)]
        self.row_loads: dict[str, list[tuple[str, int]]] = {}   # var -> loads of var[i]
        self.assigns: dict[str, list[tuple[Any, int]]] = {}     # var -> [(value E or None=alias, line)]
        self.mutations: dict[str, list[tuple[S, bool]]] = {}   # var -> [(stmt, requires ownership)]

    def err(self, line: int, msg: str, hint: str | None = None) -> SpecError:
        return _err(self.path, line, msg, hint)

    def name(self, v: str) -> str:
        return self.fn.pynames.get(v, v)

    # -- collection ----------------------------------------------------------------------
    def expr(self, e, ctx: str) -> None:
        if e is None:
            return
        if isinstance(e, EVar):
            self.loads.setdefault(e.name, []).append((ctx, e.line))
        elif isinstance(e, EOp):
            if e.fn == "Py.getItem" and isinstance(e.args[0], EVar):
                self.row_loads.setdefault(e.args[0].name, []).append((ctx, e.line))
            for i, a in enumerate(e.args):
                self.arg(e.fn, i, a, ctx)
        elif isinstance(e, ECall):
            for a in e.args:
                self.expr(a, _RETAIN)
        elif isinstance(e, EBool):
            self.expr(e.a, ctx if ctx != _USE else _USE)
            self.expr(e.b, ctx)
        elif isinstance(e, EIf):
            self.expr(e.cond, _SAFE)
            self.expr(e.a, ctx)
            self.expr(e.b, ctx)
        elif isinstance(e, EChain):
            for o in e.operands:
                self.expr(o, _SAFE)
        elif isinstance(e, (EComp, EAnyAll)):
            for g in e.gens:
                self.expr(g.iter, _ITER)
                for c in g.conds:
                    self.expr(c, _SAFE)
            elts = e.elt if isinstance(e.elt, tuple) else (e.elt,)
            for x in elts:
                self.expr(x, _RETAIN if isinstance(e, EComp) else _SAFE)
        elif isinstance(e, EKeyed):
            self.expr(e.iterable, _ITER)
            if e.key is not None:
                self.expr(e.key.body, _USE)
            self.expr(e.reverse, _SAFE)
            self.expr(e.default, _RETAIN)

    def arg(self, fn: str, i: int, a, ctx: str) -> None:
        if isinstance(a, ERaw):
            return
        if isinstance(a, EList):
            for x in a.items:
                self.expr(x, _RETAIN if fn in _RETAINING_OPS else (_ITER if fn in _ITER_OPS else _USE))
            return
        if isinstance(a, EOpt):
            self.expr(a.item, _RETAIN)
            return
        if fn in _RETAINING_OPS or fn == "Py.entryV":
            c = _RETAIN
        elif fn == "Py.getItem":
            c = _SUB if i == 0 else _USE
        elif fn in ("Py.inOp", "Py.notInOp"):
            c = _SAFE if i == 1 else _USE
        elif fn == "Py.dictGet":
            c = _RETAIN if i == 2 else _USE
        elif fn == "Py.sum":
            c = _ITER if i == 0 else _RETAIN
        elif fn in _SAFE_OPS:
            c = _SAFE
        elif fn in _ITER_OPS:
            c = _ITER
        else:
            c = _USE
        self.expr(a, c)

    def block(self, stmts: Sequence[S]) -> None:
        for s in stmts:
            self.stmt(s)

    def mut(self, var: str, s: S, required: bool = True) -> None:
        self.mutations.setdefault(var, []).append((s, required))

    def stmt(self, s: S) -> None:
        if isinstance(s, SAssign):
            if isinstance(s.target, TName):
                self.assigns.setdefault(s.target.name, []).append((s.value, s.line))
                self.expr(s.value, _RETAIN)
            else:
                for n in _target_names(s.target):
                    self.assigns.setdefault(n, []).append((None, s.line))
                self.expr(s.value, _ITER)
        elif isinstance(s, SAug):
            self.mut(s.var, s, required=False)
            self.expr(s.value, _USE)
        elif isinstance(s, SSetItem):
            self.mut(s.var, s)
            for p in s.path:
                self.expr(p, _USE)
            self.expr(s.value, _RETAIN)
        elif isinstance(s, SAugItem):
            self.mut(s.var, s)
            self.expr(s.index, _USE)
            self.expr(s.value, _USE)
        elif isinstance(s, SDelItem):
            self.mut(s.var, s)
            self.expr(s.index, _USE)
        elif isinstance(s, SMut):
            self.mut(s.var, s)
            for i, a in enumerate(s.args):
                retains = s.fn in ("Py.append",) or (s.fn == "Py.insert" and i == 1)
                self.expr(a, _RETAIN if retains else (_ITER if s.fn == "Py.extend" else _USE))
            for n in _target_names(s.result):
                self.assigns.setdefault(n, []).append((None, s.line))
        elif isinstance(s, SSort):
            self.mut(s.var, s)
            if s.keyed.key is not None:
                self.expr(s.keyed.key.body, _USE)
            self.expr(s.keyed.reverse, _SAFE)
        elif isinstance(s, SExpr):
            self.expr(s.value, _USE)
        elif isinstance(s, SReturn):
            self.expr(s.value, _SAFE)
        elif isinstance(s, (SIf, SWhile, SAssert)):
            self.expr(s.cond, _SAFE)
        elif isinstance(s, SFor):
            self.expr(s.iter, _ITER)
            for n in _target_names(s.target):
                self.assigns.setdefault(n, []).append((None, s.line))
        elif isinstance(s, SRaise):
            for a in s.args:
                self.expr(a, _USE)
        for b in _sub_blocks(s):
            self.block(b)

    # -- decisions -----------------------------------------------------------------------------
    def owned_problem(self, var: str) -> tuple[int, str, str] | None:
        """Why ``var`` may not be changed in place: (line, message, hint), or None."""
        nm = self.name(var)
        copy_hint = f"work on a copy: `{nm}2 = list({nm})` (or `dict(...)`, `set(...)`) and change that"
        if var in self.fn.params:
            return self.fn.line, f"parameter {nm!r} is changed in place", copy_hint
        for value, line in self.assigns.get(var, []):
            if value is None:
                return line, f"{nm!r} is bound to an item of another value (loop target or unpacking) " \
                             f"and is changed in place", copy_hint
            if not _fresh(value):
                return line, f"{nm!r} is assigned a value that other names may share, and is changed in place", \
                    f"assign a new object, e.g. `{nm} = list(...)` or a copy `x[:]`"
        for ctx, line in self.loads.get(var, []):
            if ctx == _RETAIN:
                return line, f"{nm!r} is changed in place and also stored here (in a container, another " \
                             f"variable or a call's argument), so both would change", \
                    f"store a copy instead: `list({nm})` / `{nm}[:]`"
        return None

    def check(self) -> None:
        self.block(self.fn.body)
        deep = {s.var for s in _all_stmts(self.fn.body) if isinstance(s, SSetItem) and len(s.path) > 1}
        owned: set[str] = set()
        for var, muts in self.mutations.items():
            prob = self.owned_problem(var)
            required = [s for s, req in muts if req]
            if prob is None:
                owned.add(var)
            elif required:
                line, msg, hint = prob
                raise self.err(required[0].line, f"{msg} (line {line})", hint)
        for s in _all_stmts(self.fn.body):
            if isinstance(s, SAug):
                s.owned = s.var in owned
        for var in deep:
            self.check_table(var)
        self.check_loops(self.fn.body, owned)

    def check_table(self, var: str) -> None:
        nm = self.name(var)
        for value, line in self.assigns.get(var, []):
            if value is not None and not _rows_fresh(value):
                raise self.err(line, f"{nm!r} is changed with `{nm}[i][j] = ...`, so its rows must be new objects",
                               f"build it with a comprehension, e.g. `{nm} = [[0] * m for _ in range(n)]`")
        for s in _all_stmts(self.fn.body):
            bad = None
            if isinstance(s, SSetItem) and s.var == var and len(s.path) == 1 and not _fresh(s.value):
                bad = "stores a row other names may share"
            elif isinstance(s, SMut) and s.var == var and s.fn in ("Py.append", "Py.insert") and not _fresh(s.args[-1]):
                bad = "stores a row other names may share"
            elif isinstance(s, SMut) and s.var == var and s.fn == "Py.extend":
                bad = "shares the rows of another list"
            elif isinstance(s, SAug) and s.var == var:
                bad = "shares the rows of another list"
            elif isinstance(s, SMut) and s.var == var and s.pair:
                bad = "takes a row out of the table"
            if bad:
                raise self.err(s.line, f"this {bad} with {nm!r}, whose rows are changed in place",
                               f"store new rows (`{nm}.append([...])`, `{nm}[i] = {nm}[i][:]`)")
        for ctx, line in self.loads.get(var, []):
            if ctx not in (_SUB, _SAFE):
                raise self.err(line, f"{nm!r} holds rows that are changed in place (`{nm}[i][j] = ...`); "
                                     f"read it only as {nm}[i][j], {nm}[i], len({nm}) or compare it",
                               f"copy a row with `{nm}[i][:]` / `list({nm}[i])`")
        for ctx, line in self.row_loads.get(var, []):
            if ctx == _RETAIN:
                raise self.err(line, f"`{nm}[...]` is a row that is changed in place; storing it shares it",
                               f"store a copy: `{nm}[i][:]`")

    def check_loops(self, stmts: Sequence[S], owned: set[str]) -> None:
        for s in stmts:
            if isinstance(s, SFor):
                live = _live_vars(s.iter)
                for inner in _all_stmts(s.body):
                    var = getattr(inner, "var", None)
                    is_mut = isinstance(inner, (SSetItem, SAugItem, SDelItem, SMut, SSort)) or \
                        (isinstance(inner, SAug) and inner.owned)
                    if is_mut and var in live:
                        raise self.err(inner.line, f"{self.name(var)!r} is changed while the loop at line {s.line} "
                                                   f"iterates over it", f"iterate over a copy: `list({self.name(var)})`")
            for b in _sub_blocks(s):
                self.check_loops(b, owned)


def _live_vars(e) -> set[str]:
    """Variables whose later changes a loop over ``e`` would see (CPython iterates live)."""
    if isinstance(e, EVar):
        return {e.name}
    if isinstance(e, EOp) and (e.fn in _LIVE_OPS or e.fn == "Py.getItem"):
        out: set[str] = set()
        for a in e.args[:1] if e.fn == "Py.getItem" else e.args:
            if isinstance(a, EList):
                for x in a.items:
                    out |= _live_vars(x)
            elif isinstance(a, E):
                out |= _live_vars(a)
        return out
    return set()
