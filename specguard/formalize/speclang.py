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

The file is parsed with :mod:`ast` (within size and nesting bounds) and *every* node of the
module is checked against the subset documented in ``docs/spec-language.md`` (top-level
statements, unused constants, annotations, defaults, decorators); anything outside it is a
:class:`SpecError` naming ``file:line`` with a fix.  The source text is never executed, by
CPython or otherwise: SpecGuard only evaluates the intermediate representation it built itself.

The checked program becomes an intermediate representation (``E*``/``S*`` classes below) with
two consumers that implement the same semantics:

* :meth:`SpecProgram.lean_spec`: one Lean term over ``lean/SpecGuard/Py.lean`` (the statement the
  kernel evaluates; continuation-passing style, locals as binders, loops as recursors);
* :class:`Mirror`: SpecGuard's own interpreter of the IR, used to decide what to prove and,
  beyond the kernel budget, as *execution* evidence; bounded in steps, wall time and memory
  (:class:`EvalBudget`), it can do no I/O by construction (its operations are the ``m_*``
  functions below, on plain data).

The test suite checks both against CPython running spec sources the tests wrote themselves
(``tests/spec_oracle.py``), with exact types (``True`` is not ``1``).

Semantics shared by both (see ``lean/SpecGuard/Py.lean``): values are compared by ``==``;
an *implicit* error (TypeError, IndexError, ...), running out of fuel, or a case outside the
subset means the spec says nothing at that input; an explicit ``raise Name(...)`` means the call
must raise.  Mutation is value semantics, made equal to CPython's reference semantics by the
ownership rules checked in :class:`_Ownership`.
"""

from __future__ import annotations

import ast
import os
import sys
import threading
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Callable, Iterable, Sequence

from specguard.python import values as vals
from specguard.errors import SpecError
from specguard.python.values import V

DEFAULT_FUEL = 100_000
# Mirror steps (operations weighted by the size of the data they walk, statements, loop
# iterations and calls) the kernel is asked to evaluate per input; beyond it, only SpecGuard's
# own evaluator (the mirror) computes the spec there (execution evidence).  Measured in benchmarks/spec_eval.py: a step costs the
# elaborator plus the kernel about 0.2-0.6 ms on 2 cores, so the budget is a few seconds.
DEFAULT_KERNEL_BUDGET = 10_000
# SpecGuard's own bounds on its evaluator (the mirror), wherever it runs (check --spec, verify
# --inputs, the spec agent's feedback): steps at one input, and steps, wall time and memory
# growth for all evaluations of one spec in one run (:class:`EvalBudget`).  A spec's FUEL is part
# of its semantics (the kernel evaluates it too); nothing in a spec raises these bounds.  They are
# charged what the mirror does (``Mirror``: its steps and walks, not the kernel's scans it does
# by indexing or hashing), a few microseconds a step (benchmarks/spec_eval.py); they were 1M and
# 6M before the mirror hashed dict / set lookups (issue 15: lcbhard_12, 56 ran out of them).
MIRROR_STEP_LIMIT = 2_000_000
EVAL_STEPS_TOTAL = 12_000_000
EVAL_SECONDS = 600.0     # a safety net only: under load the steps bound is what ends an evaluation
EVAL_MEMORY_MB = 512
MAX_DEPTH = 450          # nesting depth the mirror accepts (Py.DEPTH is 500)
MAX_BITS = 1 << 20       # integer size the mirror computes (larger: outside the subset)
MAX_LEN = 1 << 22        # str / list length the mirror builds

SPEC_FUNCTIONS = ("reference", "pre", "post", "raises")


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


def _plain_identifier(name: str) -> bool:
    """A name a spec may define or mention: no dunder (``__class__``, ``__import__`` ...)."""
    return name.isidentifier() and not name.startswith("__")


MAX_SOURCE = 1_000_000    # characters of a spec file
MAX_NODES = 100_000       # syntax-tree nodes of a spec
MAX_NESTING = 100         # syntax-tree depth of a spec (a real spec nests a few dozen levels)


def _parse_bounded(source: str, path: str) -> ast.Module:
    """``ast.parse`` of a spec within size and nesting bounds: a clean :class:`SpecError`, never
    a ``RecursionError`` / ``MemoryError`` (CPython's parser raises both on deep nesting)."""
    fix = "write the spec with shallower expressions (intermediate variables, helper functions)"
    if len(source) > MAX_SOURCE:
        raise _err(path, None, f"the spec is too large ({len(source)} characters; at most {MAX_SOURCE})")
    try:
        tree = ast.parse(source, filename=path)
    except SyntaxError as e:
        raise _err(path, e.lineno, f"not valid Python: {e.msg}") from None
    except (RecursionError, MemoryError):
        raise _err(path, None, "the spec is nested too deeply to be parsed", fix) from None
    except ValueError as e:     # e.g. null bytes
        raise _err(path, None, f"not valid Python: {e}") from None
    stack: list[tuple[ast.AST, int]] = [(tree, 0)]
    count = 0
    while stack:
        node, depth = stack.pop()
        count += 1
        if depth > MAX_NESTING:
            raise _err(path, node, f"the spec nests more than {MAX_NESTING} levels deep", fix)
        if count > MAX_NODES:
            raise _err(path, node, f"the spec has more than {MAX_NODES} syntax nodes",
                       "a spec is a short program; move large tables to the tests' inputs")
        stack.extend((c, depth + 1) for c in ast.iter_child_nodes(node))
    return tree


class _deep_stack:
    """A raised recursion limit for SpecGuard's own recursive passes over a checked spec (their
    depth is bounded by :data:`MAX_NESTING` and the mirror's limits); a ``RecursionError`` past
    it is caught by the caller."""

    LIMIT = 20_000

    def __enter__(self) -> None:
        self.old = sys.getrecursionlimit()
        sys.setrecursionlimit(max(self.old, self.LIMIT))

    def __exit__(self, *exc) -> None:
        sys.setrecursionlimit(self.old)


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
        tree = _parse_bounded(self.source, self.path)
        body = list(tree.body)
        if body and isinstance(body[0], ast.Expr) and isinstance(body[0].value, ast.Constant) \
                and isinstance(body[0].value.value, str):
            body = body[1:]
        for node in body:
            if isinstance(node, ast.FunctionDef):
                if node.name in self.functions:
                    raise self.err(node, f"function {node.name!r} is defined twice", "rename or remove one of them")
                self.functions[node.name] = node
            elif isinstance(node, (ast.Import, ast.ImportFrom)):
                self.check_import(node)
            elif isinstance(node, (ast.Assign, ast.AnnAssign)):
                targets = node.targets if isinstance(node, ast.Assign) else [node.target]
                if len(targets) != 1 or not isinstance(targets[0], ast.Name) or node.value is None:
                    raise self.err(node, "module-level assignments must be `NAME = expression`")
                if isinstance(node, ast.AnnAssign):
                    self.check_annotation(node.annotation)
                name = targets[0].id
                if name.startswith("__"):
                    raise self.err(node, f"the name {name!r} is reserved", "name constants without leading `__`")
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
        fns = [self.function(self.functions[n], self.index[n]) for n in order]
        self.check_constants()
        return fns

    def check_import(self, node: ast.Import | ast.ImportFrom) -> None:
        """``import typing`` / ``from typing import ...`` (each name; nothing else)."""
        mods = [node.module or ""] if isinstance(node, ast.ImportFrom) else [a.name for a in node.names]
        if isinstance(node, ast.ImportFrom) and node.level:
            mods = ["." * node.level + (node.module or "")]
        for mod in mods:
            if mod.split(".")[0] not in _ALLOWED_IMPORTS:
                raise self.err(node, f"import of {mod!r} is outside the spec language",
                               "a spec uses only builtins; `from typing import ...` is allowed")
        for a in node.names:
            for name in (a.name, a.asname):
                if name is not None and name != "*" and not _plain_identifier(name.split(".")[-1]):
                    raise self.err(node, f"the name {name!r} is outside the spec language")

    def check_constants(self) -> None:
        """Every module constant is checked against the subset, used or not (a spec is never
        executed, but nothing outside the language may hide in it)."""
        self.fn_name = "<module>"
        self.locals_set = set()
        for name, value in self.constants.items():
            self.scope = _Scope({})
            self.const_stack = [name]
            try:
                self.expr(value)
            finally:
                self.const_stack = []

    # -- functions --------------------------------------------------------------------
    def function(self, node: ast.FunctionDef, index: int) -> Fn:
        a = node.args
        if a.vararg or a.kwarg or a.kwonlyargs or a.posonlyargs:
            raise self.err(node, f"function {node.name!r}: only plain positional parameters are allowed")
        if node.decorator_list:
            raise self.err(node.decorator_list[0], f"function {node.name!r}: decorators are outside the spec language",
                           "remove the decorator")
        if getattr(node, "type_params", None):
            raise self.err(node, f"function {node.name!r}: type parameters are outside the spec language")
        if not _plain_identifier(node.name):
            raise self.err(node, f"the function name {node.name!r} is reserved", "name functions without leading `__`")
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
        self.hidden: list[str] = []
        body = node.body
        if body and isinstance(body[0], ast.Expr) and isinstance(body[0].value, ast.Constant) \
                and isinstance(body[0].value.value, str):
            body = body[1:]
        ir = self.block(body)
        local_names += self.hidden
        return Fn(name=node.name, index=index, params=[binders[p] for p in params],
                  locals=[binders[n] for n in local_names], pynames={b: n for n, b in binders.items()},
                  defaults=defaults, body=ir, line=node.lineno, annotations=[p.annotation for p in a.args])

    def check_annotation(self, ann: ast.expr, quoted: bool = False) -> None:
        """A type annotation: names of :data:`_TYPE_NAMES`, ``T[...]`` of them, ``A | B``,
        ``None``, ``...`` and (once) a quoted annotation; no attribute, call or other node."""
        hint = "use int, bool, str, None, list[...], tuple[...], dict[...], set[...]"
        if isinstance(ann, ast.Name):
            if ann.id not in _TYPE_NAMES:
                raise self.err(ann, f"type {ann.id!r} is outside the spec language", hint)
        elif isinstance(ann, ast.Constant):
            if isinstance(ann.value, str) and not quoted:
                try:
                    inner = ast.parse(ann.value.strip(), mode="eval").body
                except (SyntaxError, ValueError, RecursionError, MemoryError):
                    raise self.err(ann, "unsupported type annotation", hint) from None
                ast.increment_lineno(inner, ann.lineno - 1)
                self.check_annotation(inner, quoted=True)
            elif ann.value is not None and ann.value is not Ellipsis:
                raise self.err(ann, "unsupported type annotation", hint)
        elif isinstance(ann, ast.Subscript):
            if not isinstance(ann.value, ast.Name):
                raise self.err(ann, "unsupported type annotation", hint)
            self.check_annotation(ann.value, quoted)
            items = ann.slice.elts if isinstance(ann.slice, ast.Tuple) else [ann.slice]
            for x in items:
                self.check_annotation(x, quoted)
        elif isinstance(ann, ast.BinOp) and isinstance(ann.op, ast.BitOr):
            self.check_annotation(ann.left, quoted)
            self.check_annotation(ann.right, quoted)
        else:
            what = f"`.{ann.attr}`" if isinstance(ann, ast.Attribute) else f"`{type(ann).__name__}`"
            raise self.err(ann, f"{what} in a type annotation is outside the spec language", hint)

    # -- statements -----------------------------------------------------------------------
    def block(self, stmts: Sequence[ast.stmt]) -> list[S]:
        return [s for st in stmts for s in self.stmt(st)]

    def stmt(self, s: ast.stmt) -> list[S]:
        ln = s.lineno
        if isinstance(s, ast.Pass):
            return [SPass(line=ln)]
        if isinstance(s, ast.Return):
            if s.value is not None and self.is_pop(s.value):
                tmp = self.hidden_local(ln)
                return [self.mutation_call(s.value, tmp), SReturn(EVar(self.local(tmp), line=ln), line=ln)]
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
            name = exc.id if isinstance(exc, ast.Name) else \
                exc.func.id if isinstance(exc, ast.Call) and isinstance(exc.func, ast.Name) else None
            if name is not None and (not _plain_identifier(name) or name in self.functions or name in self.constants
                                     or self.scope.lookup(name) is not None):
                raise self.err(s, f"`raise {name}`: raise a named exception class such as ValueError",
                               "`raise ValueError(...)`")
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
            v = s.value
            if isinstance(v, ast.Call) and isinstance(v.func, ast.Attribute) and v.func.attr in _MUTATORS \
                    and len(v.args) == 1 and self.is_pop(v.args[0]) and not v.keywords:
                # `out.append(stack.pop())`: the pop is the first thing evaluated, so it can go first
                tmp = self.hidden_local(ln)
                first = self.mutation_call(v.args[0], tmp)
                v = ast.Call(func=v.func, args=[ast.Name(id=tmp.id, ctx=ast.Load(), lineno=ln, col_offset=0)],
                             keywords=[], lineno=ln, col_offset=0)
                return [first, self.mutation_call(v, None)]
            mut = self.mutation_call(s.value, None)
            if mut is not None:
                return [mut]
            return [SExpr(self.expr(s.value), line=ln)]
        if isinstance(s, ast.AnnAssign):
            self.check_annotation(s.annotation)
            if not isinstance(s.target, ast.Name):
                raise self.err(s, "annotated assignments must be `name: type = value`")
            if s.value is None:
                self.local(s.target)
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

    def hidden_local(self, line: int) -> ast.Name:
        """A fresh local (``x.pop()`` hoisted out of an expression)."""
        name = f"_pop{line}_{len(self.hidden)}"
        self.hidden.append(name)
        self.scope.frames[0][name] = f"v{len(self.scope.frames[0])}"
        self.locals_set.add(name)
        return ast.Name(id=name, ctx=ast.Store(), lineno=line, col_offset=0)

    @staticmethod
    def is_pop(e: ast.expr) -> bool:
        return isinstance(e, ast.Call) and isinstance(e.func, ast.Attribute) and e.func.attr == "pop"

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
            raise self.err(e, "lambda is allowed only as key= of sorted, min, max and list.sort",
                           "define a function with `def` at module level")
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
            if name == "pow" and len(args) == 3:
                return EOp("Py.powMod", [self.arg(a, False) for a in args], line=ln)
            if len(args) != arity:
                raise self.err(e, f"{name}() takes {arity} argument(s) here" +
                               (" (or 3: pow(base, exp, mod))" if name == "pow" else ""))
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
_ARITH_OPS = {"Py.add", "Py.sub", "Py.mul", "Py.floordiv", "Py.mod", "Py.pow", "Py.powMod", "Py.neg", "Py.pos", "Py.invert",
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
        self.final = False

    def err(self, line: int, msg: str, hint: str | None = None) -> SpecError:
        return _err(self.path, line, msg, hint)

    def name(self, v: str) -> str:
        return self.fn.pynames.get(v, v)

    # -- collection ----------------------------------------------------------------------
    def expr(self, e, ctx: str) -> None:
        if e is None:
            return
        if self.final and ctx in (_RETAIN, _USE, _ITER):
            ctx = _SAFE          # in `return`/`raise`: nothing of this function runs afterwards
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
            self.final = True
            self.expr(s.value, _SAFE)
            self.final = False
        elif isinstance(s, (SIf, SWhile, SAssert)):
            self.expr(s.cond, _SAFE)
        elif isinstance(s, SFor):
            self.expr(s.iter, _ITER)
            for n in _target_names(s.target):
                self.assigns.setdefault(n, []).append((None, s.line))
        elif isinstance(s, SRaise):
            self.final = True
            for a in s.args:
                self.expr(a, _USE)
            self.final = False
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


# =====================================================================================
# Lean emission: continuation-passing style over Py.lean
# =====================================================================================

def lean_lit(v: Any) -> str:
    from specguard.kernel.emit import NotModelled, lean_int, lean_str
    if v is None:
        return "Val.none"
    if v is True:
        return "(Val.bool Bool.true)"
    if v is False:
        return "(Val.bool Bool.false)"
    if type(v) is int:
        return f"(Val.int {lean_int(v)})"
    if type(v) is str:
        try:
            return f"(Val.str {lean_str(v)})"
        except NotModelled as e:
            raise SpecError(str(e)) from None
    raise TypeError(type(v))


def _lean_list(items: Sequence[str]) -> str:
    out = "List.nil"
    for x in reversed(items):
        out = f"(List.cons {x} {out})"
    return out


class _Emitter:
    def __init__(self, fuel: int) -> None:
        self.fuel = fuel
        self.n = 0

    def new(self, p: str) -> str:
        self.n += 1
        return f"{p}{self.n}"

    # -- state --------------------------------------------------------------------------
    def set_fn(self, fn: Fn) -> None:
        self.st = list(fn.locals)
        self.stt = "Val → " * len(self.st) + "Option Py.Res"

    def call_k(self, k: str) -> str:
        return k + "".join(" " + v for v in self.st)

    def lam_st(self, body: str) -> str:
        return f"(fun {' '.join(self.st)} => {body})" if self.st else f"({body})"

    def typed_lam_st(self, body: str) -> str:
        """``lam_st`` with typed binders and a typed body (fixes a combinator's state type)."""
        if not self.st:
            return f"({body} : Option Py.Res)"
        return f"(fun {' '.join(f'({v} : Val)' for v in self.st)} => ({body} : Option Py.Res))"

    # -- functions --------------------------------------------------------------------------
    def program(self, fns: Sequence[Fn]) -> str:
        terms = [self.function(f) for f in fns]
        return f"(Py.fix {self.fuel} (fun tbl => Py.table {_lean_list(terms)}))"

    def function(self, fn: Fn) -> str:
        self.set_fn(fn)
        body = self.block(fn.body, "(Py.ret Val.none)", None, None)
        extra = [v for v in fn.locals if v not in fn.params]
        if extra:
            body = f"((fun {' '.join(extra)} => {body}) {' '.join('Val.none' for _ in extra)})"
        inner = f"Py.argEnd a {body}"
        for p in reversed(fn.params):
            inner = f"Py.arg a (fun {p} a => {inner})"
        return f"(fun (a : List Val) => {inner})"

    # -- statements -------------------------------------------------------------------------
    def block(self, stmts: Sequence[S], tail: str, brk: str | None, cont: str | None) -> str:
        text = tail
        for s in reversed(stmts):
            text = self.stmt(s, text, brk, cont)
        return text

    @staticmethod
    def simple(text: str) -> bool:
        return len(text) <= 120 and "(fun" not in text and "Py.bind" not in text

    def join(self, rest: str, build: Callable[[str], str]) -> str:
        """``build(k)`` gets the text continuing with ``rest`` (bound once when it is large)."""
        if self.simple(rest):
            return build(rest)
        j = self.new("j")
        return f"((fun ({j} : {self.stt}) => {build(self.call_k(j))}) {self.lam_st(rest)})"

    def bind_target(self, t, src: str, body: str) -> str:
        """Bind ``src`` (an atom) to target ``t`` around ``body``."""
        if isinstance(t, TName):
            return f"((fun {t.name} => {body}) {src})"
        lv = self.new("l")
        names, nested = [], []
        for x in t.items:
            if isinstance(x, TName):
                names.append(x.name)
            else:
                tmp = self.new("c")
                names.append(tmp)
                nested.append((x, tmp))
        inner = body
        for x, tmp in reversed(nested):
            inner = self.bind_target(x, tmp, inner)
        inner = f"Py.argEnd {lv} ({inner})"
        for nm in reversed(names):
            inner = f"Py.arg {lv} (fun {nm} {lv} => {inner})"
        return f"(Py.unpack {src} {len(t.items)} (fun {lv} => {inner}))"

    def stmt(self, s: S, rest: str, brk: str | None, cont: str | None) -> str:
        if isinstance(s, SPass):
            return rest
        if isinstance(s, SReturn):
            return self.gen(s.value, lambda t: f"(Py.ret {t})")
        if isinstance(s, SBreak):
            return brk
        if isinstance(s, SContinue):
            return cont
        if isinstance(s, SRaise):
            return self.gens(s.args, lambda _ts: f'(Py.raiseE {lean_str_name(s.name)})')
        if isinstance(s, SExpr):
            return self.gen(s.value, lambda _t: rest, force=True)
        if isinstance(s, SAssert):
            bn = self.new("b")
            return self.gen(s.cond, lambda t: f"(Py.bindO (Py.truth {t}) (fun {bn} => cond {bn} ({rest}) Option.none))")
        if isinstance(s, SAssign):
            if isinstance(s.target, TName):
                return self.gen_bind(s.value, s.target.name, rest)
            return self.gen(s.value, lambda t: self.bind_target(s.target, t, rest))
        if isinstance(s, SAug):
            v = s.var
            if s.owned:
                fn = "Py.iadd" if s.fn == "Py.add" else s.fn
                return self.gen(s.value, lambda t: f"(Py.bindO ({fn} {v} {t}) (fun {v} => {rest}))")
            return self.gen(s.value, lambda t: f"(Py.bindO (Py.immutable {v}) (fun _ => "
                                               f"Py.bindO ({s.fn} {v} {t}) (fun {v} => {rest})))")
        if isinstance(s, SSetItem):
            v = s.var

            def after_value(tv: str) -> str:
                if len(s.path) == 1:
                    return self.gen(s.path[0], lambda ti: f"(Py.bindO (Py.setItem {v} {ti} {tv}) (fun {v} => {rest}))")
                r1, r2 = self.new("r"), self.new("r")
                return self.gen(s.path[0], lambda ti: f"(Py.bindO (Py.getItem {v} {ti}) (fun {r1} => " + self.gen(
                    s.path[1], lambda tj: f"Py.bindO (Py.setItem {r1} {tj} {tv}) (fun {r2} => "
                                          f"Py.bindO (Py.setItem {v} {ti} {r2}) (fun {v} => {rest}))") + "))")
            return self.gen(s.value, after_value)
        if isinstance(s, SAugItem):
            v = s.var
            o, n = self.new("o"), self.new("n")
            return self.gen(s.index, lambda ti: f"(Py.bindO (Py.getItem {v} {ti}) (fun {o} => Py.bindO (Py.immutable {o}) "
                                                f"(fun _ => " + self.gen(s.value, lambda tv: (
                                                    f"Py.bindO ({s.fn} {o} {tv}) (fun {n} => Py.bindO (Py.setItem {v} {ti} {n}) "
                                                    f"(fun {v} => {rest}))")) + ")))")
        if isinstance(s, SDelItem):
            v = s.var
            return self.gen(s.index, lambda ti: f"(Py.bindO (Py.delItem {v} {ti}) (fun {v} => {rest}))")
        if isinstance(s, SMut):
            v = s.var
            if s.pair:
                p = self.new("p")

                def after(ts: list[str]) -> str:
                    inner = rest if s.result is None else self.bind_target(s.result, f"(Prod.snd {p})", rest)
                    return f"(Py.bindO (Py.pop {v} {ts[0]}) (fun {p} => ((fun {v} => {inner}) (Prod.fst {p}))))"
                return self.gens(s.args, after)
            return self.gens(s.args, lambda ts: f"(Py.bindO ({' '.join([s.fn, v, *ts])}) (fun {v} => {rest}))")
        if isinstance(s, SSort):
            v = s.var
            return self.opt_atom(s.keyed.reverse, "(Val.bool Bool.false)", lambda rv: self.keys(
                s.keyed, v, lambda keys: f"(Py.bindO (Py.sortList {v} {keys} {rv}) (fun {v} => {rest}))"))
        if isinstance(s, SIf):
            def build(k: str) -> str:
                a = self.block(s.body, k, brk, cont)
                b = self.block(s.orelse, k, brk, cont)
                bn = self.new("b")
                return self.gen(s.cond, lambda t: f"(Py.bindO (Py.truth {t}) (fun {bn} => cond {bn} ({a}) ({b})))")
            return self.join(rest, build)
        if isinstance(s, SWhile):
            x, w, bn = self.new("x"), self.new("w"), self.new("b")
            body = self.block(s.body, self.call_k(w), self.call_k(x), self.call_k(w))
            step = self.gen(s.cond, lambda t: f"(Py.bindO (Py.truth {t}) (fun {bn} => cond {bn} ({body}) ({self.call_k(x)})))")
            params = " ".join(self.st)
            loop = (f"Py.loop {self.fuel} {self.typed_lam_st('Option.none')} "
                    f"(fun {w} => {self.lam_st(step)}){' ' + params if params else ''}")
            return f"((fun ({x} : {self.stt}) => {loop}) {self.lam_st(rest)})"
        if isinstance(s, SFor):
            x, nx, c, lv = self.new("x"), self.new("n"), self.new("c"), self.new("l")
            body = self.block(s.body, self.call_k(nx), self.call_k(x), self.call_k(nx))
            body = self.bind_target(s.target, c, body)
            params = " ".join(self.st)
            loop = (f"Py.forEach {lv} {self.typed_lam_st(self.call_k(x))} "
                    f"(fun {c} {nx} => {self.lam_st(body)}){' ' + params if params else ''}")
            return f"((fun ({x} : {self.stt}) => " + self.gen(
                s.iter, lambda t: f"(Py.bindO (Py.iter {t}) (fun {lv} => {loop}))") + f") {self.lam_st(rest)})"
        raise TypeError(type(s).__name__)

    # -- expressions -------------------------------------------------------------------------
    def gen_bind(self, e, name: str, rest: str) -> str:
        """Bind the value of ``e`` to binder ``name`` and continue with ``rest``."""
        if isinstance(e, EOp):
            return self.gens_args(e.args, lambda ts: f"(Py.bindO ({e.fn} {' '.join(ts)}) (fun {name} => {rest}))")
        if isinstance(e, ECall):
            return self.gens(e.args, lambda ts: f"(Py.bindE (tbl {e.index} {_lean_list(ts)}) (fun {name} => {rest}))")
        return self.gen(e, lambda t: f"((fun {name} => {rest}) {t})")

    def gens(self, es: Sequence[Any], k: Callable[[list[str]], str]) -> str:
        def go(i: int, acc: list[str]) -> str:
            if i == len(es):
                return k(acc)
            return self.gen(es[i], lambda t: go(i + 1, acc + [t]))
        return go(0, [])

    def gens_args(self, args: Sequence[Any], k: Callable[[list[str]], str]) -> str:
        def go(i: int, acc: list[str]) -> str:
            if i == len(args):
                return k(acc)
            a = args[i]
            if isinstance(a, ERaw):
                return go(i + 1, acc + [a.lean])
            if isinstance(a, EList):
                return self.gens(a.items, lambda ts: go(i + 1, acc + [_lean_list(ts)]))
            if isinstance(a, EOpt):
                if a.item is None:
                    return go(i + 1, acc + ["Option.none"])
                return self.gen(a.item, lambda t: go(i + 1, acc + [f"(Option.some {t})"]))
            return self.gen(a, lambda t: go(i + 1, acc + [t]))
        return go(0, [])

    def opt_atom(self, e, dflt: str, k: Callable[[str], str]) -> str:
        return k(dflt) if e is None else self.gen(e, k)

    def gen(self, e, k: Callable[[str], str], force: bool = False) -> str:
        """Text evaluating ``e`` then continuing with ``k(atom)``."""
        if isinstance(e, ELit):
            return k(lean_lit(e.value))
        if isinstance(e, EVar):
            return k(e.name)
        t = self.new("t")
        if isinstance(e, EOp):
            return self.gens_args(e.args, lambda ts: f"(Py.bindO ({e.fn} {' '.join(ts)}) (fun {t} => {k(t)}))")
        if isinstance(e, ECall):
            return self.gens(e.args, lambda ts: f"(Py.bindE (tbl {e.index} {_lean_list(ts)}) (fun {t} => {k(t)}))")
        if isinstance(e, EBool):
            j, bn = self.new("j"), self.new("b")

            def build(ta: str) -> str:
                rhs = self.gen(e.b, lambda tb: f"{j} {tb}")
                yes, no = (rhs, f"{j} {ta}") if e.is_and else (f"{j} {ta}", rhs)
                return f"(Py.bindO (Py.truth {ta}) (fun {bn} => cond {bn} ({yes}) ({no})))"
            return f"((fun ({j} : Val → Option Py.Res) => {self.gen(e.a, build)}) (fun {t} => {k(t)}))"
        if isinstance(e, EIf):
            j, bn = self.new("j"), self.new("b")
            inner = self.gen(e.cond, lambda tc: f"(Py.bindO (Py.truth {tc}) (fun {bn} => cond {bn} "
                                                f"({self.gen(e.a, lambda ta: f'{j} {ta}')}) "
                                                f"({self.gen(e.b, lambda tb: f'{j} {tb}')})))")
            return f"((fun ({j} : Val → Option Py.Res) => {inner}) (fun {t} => {k(t)}))"
        if isinstance(e, EChain):
            j = self.new("j")

            def step(i: int, left: str) -> str:
                fn, code = e.ops[i]
                call = fn if code is None else f"{fn} {code}"

                def with_right(right: str) -> str:
                    r = self.new("r")
                    if i == len(e.ops) - 1:
                        return f"(Py.bindO ({call} {left} {right}) (fun {r} => {j} {r}))"
                    bn = self.new("b")
                    return (f"(Py.bindO ({call} {left} {right}) (fun {r} => Py.bindO (Py.truth {r}) (fun {bn} => "
                            f"cond {bn} ({step(i + 1, right)}) ({j} {r}))))")
                return self.gen(e.operands[i + 1], with_right)
            inner = self.gen(e.operands[0], lambda t0: step(0, t0))
            return f"((fun ({j} : Val → Option Py.Res) => {inner}) (fun {t} => {k(t)}))"
        if isinstance(e, EComp):
            if e.kind == "dict":
                kx, vx = e.elt
                inner = lambda: self.gen(kx, lambda tk: self.gen(vx, lambda tv: f"(Py.ret (Val.one (Val.pair {tk} {tv})))"))
            else:
                inner = lambda: self.gen(e.elt, lambda tx: f"(Py.ret (Val.one {tx}))")
            seg = self.comp_gens(e.gens, inner, "(Py.ret Val.nil)", "Py.flatMap")
            sv = self.new("s")
            fn = {"list": "Py.listOfSeg", "set": "Py.setOfSeg", "dict": "Py.dictOfSeg"}[e.kind]
            return f"(Py.bindE {seg} (fun {sv} => Py.bindO ({fn} {sv}) (fun {t} => {k(t)})))"
        if isinstance(e, EAnyAll):
            want = "Bool.true" if e.want else "Bool.false"
            skip = f"(Py.ret (Val.bool {'Bool.false' if e.want else 'Bool.true'}))"
            body = self.comp_gens(e.gens, lambda: self.gen(e.elt, lambda tx: f"(Py.ret {tx})"), skip,
                                  f"Py.anyGen {want}")
            return f"(Py.bindE {body} (fun {t} => {k(t)}))"
        if isinstance(e, EKeyed):
            def finish(it: str) -> str:
                extra = e.reverse if e.kind == "sorted" else e.default
                return self.opt_atom(extra, "", lambda x: self.keys(e, it, lambda keys: self.after_keys(e, it, keys, x, t, k)))
            return self.gen(e.iterable, finish)
        raise TypeError(type(e).__name__)

    def after_keys(self, e: EKeyed, it: str, keys: str, x: str, t: str, k: Callable[[str], str]) -> str:
        """``x``: the atom of reverse= (sorted) or default= (min/max), "" when absent."""
        if e.kind == "sorted":
            rv = x or "(Val.bool Bool.false)"
            return f"(Py.bindO (Py.sorted {it} {keys} {rv}) (fun {t} => {k(t)}))"
        op = "0" if e.kind == "min" else "2"
        d = f"(Option.some {x})" if x else "Option.none"
        return f"(Py.bindO (Py.minmax {op} {it} {keys} {d}) (fun {t} => {k(t)}))"

    def keys(self, e: EKeyed, it: str, k: Callable[[str], str]) -> str:
        """The key list of ``e`` (``Val.none`` without a key function)."""
        if e.key is None:
            return k("Val.none")
        lv, sv = self.new("l"), self.new("s")
        fn = f"(fun {e.key.param} => {self.gen(e.key.body, lambda t: f'(Py.ret {t})')})"
        return f"(Py.bindO (Py.iter {it}) (fun {lv} => Py.bindE (Py.mapE {fn} {lv}) (fun {sv} => {k(f'(Py.keysOf {sv})')})))"

    def comp_gens(self, gens: Sequence[Gen], inner: Callable[[], str], skip: str, combinator: str) -> str:
        if not gens:
            return inner()
        g, rest = gens[0], gens[1:]

        def body() -> str:
            text = self.comp_gens(rest, inner, skip, combinator)
            for c in reversed(g.conds):
                bn = self.new("b")
                text = self.gen(c, lambda tc, text=text, bn=bn: f"(Py.bindO (Py.truth {tc}) (fun {bn} => cond {bn} ({text}) {skip}))")
            return text
        lv = self.new("l")
        if isinstance(g.target, TName):
            fn = f"(fun {g.target.name} => {body()})"
        else:
            c = self.new("c")
            fn = f"(fun {c} => {self.bind_target(g.target, c, body())})"
        return self.gen(g.iter, lambda ti: f"(Py.bindO (Py.iter {ti}) (fun {lv} => {combinator} {lv} {fn}))")


def lean_str_name(name: str) -> str:
    from specguard.kernel.emit import lean_str
    return lean_str(name)


# =====================================================================================
# the mirror: the same semantics, in Python (decides what SpecGuard asks the kernel)
# =====================================================================================

class Undefined(Exception):
    """The spec says nothing here: an implicit Python error, a case outside the subset, or fuel."""


class Unsure(Undefined):
    """The mirror refuses a case the kernel may still evaluate (a size or depth cap): nothing is
    claimed there, and no witness table relies on the spec saying nothing there."""


class _SpecRaise(Exception):
    def __init__(self, name: str) -> None:
        self.name = name


class TooLong(Exception):
    """The mirror's step limit was reached (nothing is claimed)."""


class BudgetExceeded(TooLong):
    """The evaluation budget of a spec (:class:`EvalBudget`) is spent (nothing is claimed)."""


def _rss() -> int | None:
    """This process's resident memory in bytes (Linux), else None."""
    try:
        with open("/proc/self/statm", "rb") as f:
            return int(f.read().split()[1]) * os.sysconf("SC_PAGE_SIZE")
    except (OSError, ValueError, IndexError):
        return None


class EvalBudget:
    """Bounds on all evaluations of one spec in one run: ``steps`` in total (deterministic, so a
    re-derivation by ``verify`` reaches the same outcomes), and as safety nets ``seconds`` of
    wall time and ``memory_mb`` of resident-memory growth.  Once spent, every further
    evaluation is ``unknown`` ("evaluation budget exceeded") at once."""

    def __init__(self, steps: int = EVAL_STEPS_TOTAL, seconds: float = EVAL_SECONDS,
                 memory_mb: int = EVAL_MEMORY_MB) -> None:
        self.steps = steps
        self.seconds = seconds
        self.memory = memory_mb * 1024 * 1024
        self.used = 0
        self.start: float | None = None
        self.rss0: int | None = None
        self.exceeded: str | None = None

    @property
    def left(self) -> int:
        return max(0, self.steps - self.used)

    def charge(self, n: int) -> None:
        if self.start is None:
            self.start, self.rss0 = time.monotonic(), _rss()
        self.used += n
        if self.exceeded is None:
            if self.used > self.steps:
                self.exceeded = f"evaluation budget exceeded ({self.steps} steps for this spec)"
            elif time.monotonic() - self.start > self.seconds:
                self.exceeded = f"evaluation budget exceeded ({self.seconds:g} s for this spec)"
            elif self.rss0 is not None and n:
                rss = _rss()
                if rss is not None and rss - self.rss0 > self.memory:
                    self.exceeded = f"evaluation budget exceeded ({self.memory >> 20} MB of memory for this spec)"
        if self.exceeded is not None:
            raise BudgetExceeded(self.exceeded)


_ACTIVE = threading.local()      # the Mirror evaluating in this thread (deep walks charge it)


def _charge(n: int) -> None:
    """Work of a walk over nested data (``==``, ``repr``, canonical forms ...), charged to the
    running evaluation: shared sub-lists make such walks exponential in the steps that built them."""
    m = getattr(_ACTIVE, "m", None)
    if m is not None:
        m.work += n
        if m.steps + m.work >= m.mark:
            m.checkpoint()


class Opaque:
    """A value outside the subset (float, bytes, frozenset ...): every operation on it fails."""

    __slots__ = ("kind",)

    def __init__(self, kind: str) -> None:
        self.kind = kind

    def __eq__(self, other):
        raise Undefined(f"{self.kind} value")

    def __hash__(self):
        raise Undefined(f"{self.kind} value")

    def __repr__(self) -> str:
        return f"<{self.kind}>"


_U = Undefined


def _num(x) -> int:
    t = type(x)
    if t is int:
        return x
    if t is bool:
        return int(x)
    raise _U("not a number")


def _in_subset(x) -> bool:
    return x is None or type(x) in (bool, int, str, list, tuple, dict, set)


def m_truth(x) -> bool:
    t = type(x)
    if t is bool:
        return x
    if t is int:
        return x != 0
    if x is None:
        return False
    if t in (str, list, tuple, dict, set):
        return len(x) > 0
    raise _U("truth of a value outside the subset")


def m_eq(a, b, d: int = 0) -> bool:
    if d > MAX_DEPTH:
        raise Unsure("nesting too deep")
    ta, tb = type(a), type(b)
    if ta is int and tb is int or ta is str and tb is str:
        return a == b
    if a is None and b is None:
        return True
    if ta in (int, bool) and tb in (int, bool):
        return int(a) == int(b)
    if ta is tb and ta in (list, tuple):
        if len(a) != len(b):
            return False
        _charge(len(a))
        for x, y in zip(a, b):
            if not m_eq(x, y, d + 1):
                return False
        return True
    if ta is dict and tb is dict:
        if len(a) != len(b):
            return False
        _charge(len(a) * len(b))
        for k, v in a.items():
            found = False
            for k2, v2 in b.items():
                if m_eq(k, k2, d + 1):
                    if not m_eq(v, v2, d + 1):
                        return False
                    found = True
                    break
            if not found:
                return False
        return True
    if ta is set and tb is set:
        if len(a) != len(b):
            return False
        _charge(len(a) * len(b))
        return all(any(m_eq(x, y, d + 1) for y in b) for x in a)
    if _in_subset(a) and _in_subset(b):
        return False
    raise _U("== on a value outside the subset")


def m_hashable(x, d: int = 0) -> bool:
    if d > MAX_DEPTH:
        raise Unsure("nesting too deep")
    if x is None or type(x) in (bool, int, str):
        return True
    if type(x) is tuple:
        _charge(len(x))
        return all(m_hashable(y, d + 1) for y in x)
    if type(x) in (list, dict, set):
        return False
    raise _U("hash of a value outside the subset")


def _need_hash(x) -> None:
    if not m_hashable(x):
        raise _U("unhashable")


def _nat_cmp(op: int, a, b) -> bool:
    return (a < b, a <= b, a > b, a >= b)[op]


def m_cmp(op: int, a, b, d: int = 0) -> bool:
    if d > MAX_DEPTH:
        raise Unsure("nesting too deep")
    ta, tb = type(a), type(b)
    if ta is str and tb is str:
        return _nat_cmp(op, a, b)
    if ta is tb and ta in (list, tuple):
        _charge(min(len(a), len(b)))
        for x, y in zip(a, b):
            if not m_eq(x, y, d + 1):
                return m_cmp(op, x, y, d + 1)
        return _nat_cmp(op, len(a), len(b))
    return _nat_cmp(op, _num(a), _num(b))


def _mk_int(i: int) -> int:
    b = i.bit_length()
    if b > MAX_BITS:
        raise Unsure("integer too large")
    if b > 4096:
        _charge(b >> 9)          # big integers cost memory and time in proportion to their size
    return i


def _copy_cost(n: int) -> None:
    """A container copied by CPython (a new dict / set / list value): charged in proportion to its size."""
    if n > 256:
        _charge(n >> 8)


def _quiet_hashable(x) -> bool:
    """``m_hashable`` without its exceptions (False where it would raise)."""
    try:
        return m_hashable(x)
    except Undefined:
        return False


def _cap_len(n: int) -> None:
    if n > MAX_LEN:
        raise Unsure("value too large")
    if n > 256:
        _charge(n >> 8)          # building (or copying) a sequence costs in proportion to its length


def m_add(a, b):
    ta, tb = type(a), type(b)
    if ta is int and tb is int:
        return _mk_int(a + b)
    if ta is str and tb is str or ta is list and tb is list or ta is tuple and tb is tuple:
        _cap_len(len(a) + len(b))
        return a + b
    return _mk_int(_num(a) + _num(b))


def _set_op(keep_left, add_right: bool, a: set, b: set) -> set:
    left = [x for x in a if keep_left(_has(b, x))]
    right = [y for y in b if not _has(a, y)] if add_right else []
    _copy_cost(len(a) + len(b))
    return set(left + right)


def m_sub(a, b):
    if type(a) is int and type(b) is int:
        return _mk_int(a - b)
    if type(a) is set and type(b) is set:
        return _set_op(lambda m: not m, False, a, b)
    return _mk_int(_num(a) - _num(b))


def _repeat(seq, n):
    n = max(n, 0)
    _cap_len(len(seq) * n)
    return seq * n


def m_mul(a, b):
    ta, tb = type(a), type(b)
    if ta is int and tb is int:
        return _mk_int(a * b)
    for seq_t in (str, list, tuple):
        if ta is seq_t:
            return _repeat(a, _num(b))
        if tb is seq_t:
            return _repeat(b, _num(a))
    return _mk_int(_num(a) * _num(b))


def m_floordiv(a, b):
    x, y = _num(a), _num(b)
    if y == 0:
        raise _U("division by zero")
    return x // y


def m_mod(a, b):
    x, y = _num(a), _num(b)
    if y == 0:
        raise _U("division by zero")
    return x % y


def m_pow(a, b):
    x, y = _num(a), _num(b)
    if y < 0:
        raise _U("negative exponent (a float)")
    if y > 1 and abs(x) > 1 and y * max(abs(x).bit_length(), 1) > MAX_BITS:
        raise Unsure("integer too large")
    return _mk_int(x ** y)


def m_pow_mod(a, b, c):
    x, y, z = _num(a), _num(b), _num(c)
    if y < 0:
        raise _U("negative exponent with a modulus (a modular inverse)")
    if z == 0:
        raise _U("pow() 3rd argument cannot be 0")
    if y.bit_length() > 4096:
        raise _U("exponent of more than 4096 bits")
    return _mk_int(pow(x, y, z))


def _bitop(f, g, a, b):
    if type(a) is bool and type(b) is bool:
        return g(a, b)
    return f(_num(a), _num(b))


def m_bitand(a, b):
    if type(a) is set and type(b) is set:
        return _set_op(lambda m: m, False, a, b)
    return _bitop(lambda x, y: x & y, lambda x, y: x and y, a, b)


def m_bitor(a, b):
    if type(a) is set and type(b) is set:
        return _set_op(lambda m: True, True, a, b)
    return _bitop(lambda x, y: x | y, lambda x, y: x or y, a, b)


def m_bitxor(a, b):
    if type(a) is set and type(b) is set:
        return _set_op(lambda m: not m, True, a, b)
    return _bitop(lambda x, y: x ^ y, lambda x, y: x != y, a, b)


def m_lshift(a, b):
    x, n = _num(a), _num(b)
    if n < 0:
        raise _U("negative shift")
    if n > MAX_BITS:
        raise Unsure("integer too large")
    return _mk_int(x << n)


def m_rshift(a, b):
    x, n = _num(a), _num(b)
    if n < 0:
        raise _U("negative shift")
    if n > MAX_BITS:
        raise Unsure("shift too large")
    return x >> n


# Dict keys and set elements are plain hashable values (``m_hashable``: None, bool, int, str and
# tuples of them, checked where every key is made), and on those CPython's ``==`` is ``m_eq`` and
# its hash agrees with it (``hash(True) == hash(1)``).  So once the looked-up value is checked
# hashable too, a lookup by CPython's hashing finds exactly the key the scan of ``Py.lean`` (and of
# the reference functions ``_scan_*`` below) finds, in O(1).  ``HASHED = False`` selects the
# reference scans (tests/test_spec_eval_speed.py compares both).
HASHED = True


def _scan_has(c, x) -> bool:
    """Reference: ``x`` is a key of dict / an element of set ``c`` (``Py.lean``'s scan)."""
    return any(m_eq(x, k) for k in c)


def _has(c, x) -> bool:
    """``x`` (already checked hashable) is a key of dict / an element of set ``c``."""
    return x in c if HASHED else _scan_has(c, x)


def m_contains(c, x) -> bool:
    t = type(c)
    if t in (list, tuple):
        return any(m_eq(x, y) for y in c)
    if t is str:
        if type(x) is not str:
            raise _U("in <str> needs a str")
        return x in c
    if t is dict or t is set:
        _need_hash(x)
        return _has(c, x)
    raise _U("in on a value outside the subset")


def m_is(a, b):
    if b is None:
        return a is None
    if type(b) is bool:
        return type(a) is bool and a == b
    raise _U("is")


def m_len(x) -> int:
    if type(x) in (str, list, tuple, dict, set):
        return len(x)
    raise _U("len of a value without length")


def m_iter(x) -> list:
    t = type(x)
    if t in (list, tuple):
        return list(x)
    if t is str:
        return list(x)
    if t is dict:
        return list(x.keys())
    raise _U("iteration over this value is outside the subset")


def _norm_idx(n: int, i: int) -> int:
    if 0 <= i < n:
        return i
    if i < 0 and -i <= n:
        return n + i
    raise _U("index out of range")


def m_getitem(a, i):
    t = type(a)
    if t in (list, tuple, str):
        return a[_norm_idx(len(a), _num(i))]
    if t is dict:
        _need_hash(i)
        if HASHED:
            if i in a:
                return a[i]
            raise _U("key not found")
        for k, v in a.items():
            if m_eq(i, k):
                return v
        raise _U("key not found")
    raise _U("subscript of a value outside the subset")


def _slice_bound(v):
    if v is None:
        return None
    return _num(v)


def m_slice(a, lo, hi, st):
    if type(a) not in (list, tuple, str):
        raise _U("slice of a value outside the subset")
    step = 1 if st is None else _num(st)
    if step == 0:
        raise _U("slice step 0")
    return a[_slice_bound(lo):_slice_bound(hi):step]


def m_setitem(a, i, v):
    if type(a) is list:
        j = _norm_idx(len(a), _num(i))
        _copy_cost(len(a))
        b = list(a)
        b[j] = v
        return b
    if type(a) is dict:
        return _dict_set(a, i, v)
    raise _U("item assignment on a value outside the subset")


def _dict_set(d: dict, k, v) -> dict:
    _need_hash(k)
    if HASHED:
        _copy_cost(len(d))
        out = dict(d)       # a new value; an existing equal key keeps its place and its object
        out[k] = v
        return out
    out = {}
    done = False
    for k2, v2 in d.items():
        if not done and m_eq(k, k2):
            out[k2] = v
            done = True
        else:
            out[k2] = v2
    if not done:
        out[k] = v
    return out


def m_delitem(a, i):
    if type(a) is list:
        j = _norm_idx(len(a), _num(i))
        return a[:j] + a[j + 1:]
    if type(a) is dict:
        _need_hash(i)
        if not _has(a, i):
            raise _U("key not found")
        if HASHED:
            _copy_cost(len(a))
            out = dict(a)
            del out[i]
            return out
        return {k: v for k, v in a.items() if not m_eq(i, k)}
    raise _U("del on a value outside the subset")


def _set_add(items: list, x) -> list:
    _need_hash(x)
    if any(m_eq(x, y) for y in items):
        return items
    return items + [x]


def m_mkset(items) -> set:
    if HASHED:
        out: set = set()
        for x in items:
            _need_hash(x)
            out.add(x)      # an element already there (by ==) stays: the first one is kept
        return out
    acc: list = []
    for x in items:
        acc = _set_add(acc, x)
    return set(acc)


def m_mkdict(pairs) -> dict:
    out: dict = {}
    if HASHED:
        for k, v in pairs:
            _need_hash(k)
            out[k] = v      # a later equal key updates the value, the first key object stays
        return out
    for k, v in pairs:
        out = _dict_set(out, k, v)
    return out


def m_range(args) -> list:
    xs = [_num(a) for a in args]
    if not 1 <= len(xs) <= 3:
        raise _U("range arity")
    if len(xs) == 3 and xs[2] == 0:
        raise _U("range step 0")
    r = range(*xs) if len(xs) > 1 else range(xs[0])
    _cap_len(len(r))
    return list(r)


def m_enumerate(v, start):
    s = _num(start)
    return [(s + i, x) for i, x in enumerate(m_iter(v))]


def m_zip(args):
    ls = [m_iter(a) for a in args]
    return [tuple(t) for t in zip(*ls)] if ls else []


def m_reversed(v):
    if type(v) is set:
        raise _U("reversed(set)")
    return list(reversed(m_iter(v)))


def m_iter_u(x) -> list:
    """Items including a set's, for order-insensitive builtins (see ``Py.iterU``)."""
    return list(x) if type(x) is set else m_iter(x)


def m_sum(v, start):
    if type(start) is str:
        raise _U("sum of strs")
    if type(v) is set:
        return _mk_int(_num(start) + sum(_num(x) for x in v))
    acc = start
    for x in m_iter(v):
        acc = m_add(acc, x)
    return acc


def m_abs(v):
    return abs(_num(v))


_NODEFAULT = object()


def m_minmax(op: int, v, keys, dflt):
    items = m_iter_u(v)
    if not items:
        if dflt is _NODEFAULT:
            raise _U("min/max of an empty sequence")
        return dflt
    if type(v) is set:
        if keys is not None:
            raise _U("min/max of a set with a key (ties depend on the set's order)")
        _uniform(items)
    ks = items if keys is None else _keys(keys, items)
    best_k, best = ks[0], items[0]
    for k, x in zip(ks[1:], items[1:]):
        if m_cmp(op, k, best_k):
            best_k, best = k, x
    return best


def _keys(keys, items) -> list:
    ks = m_iter(keys)
    if len(ks) != len(items):
        raise _U("key count")
    return ks


def _shape(v, d: int = 0):
    if d > MAX_DEPTH:
        raise Unsure("nesting too deep")
    t = type(v)
    if t in (int, bool):
        return "num"
    if t is str:
        return "str"
    if t in (list, tuple):
        _charge(len(v))
        return (t is list, tuple(_shape(x, d + 1) for x in v))
    raise _U("sort key outside the subset")


def _join_shape(a, b, d: int = 0):
    if d > MAX_DEPTH:
        raise Unsure("nesting too deep")
    if a == "any":
        return b
    if b == "any":
        return a
    if a in ("num", "str") or b in ("num", "str"):
        if a == b:
            return a
        raise _U("sort keys of different kinds")
    if a[0] != b[0]:
        raise _U("sort keys of different kinds")
    cols = []
    for i in range(max(len(a[1]), len(b[1]))):
        if i < len(a[1]) and i < len(b[1]):
            cols.append(_join_shape(a[1][i], b[1][i], d + 1))
        else:
            cols.append(a[1][i] if i < len(a[1]) else b[1][i])
    return (a[0], tuple(cols))


def _uniform(keys) -> None:
    s = "any"
    for k in keys:
        s = _join_shape(s, _shape(k))


def _py_key(k):
    """A Python sort key equivalent to ``m_cmp`` on uniform keys (bools as ints)."""
    if type(k) is bool:
        return int(k)
    if type(k) in (list, tuple):
        return tuple(_py_key(x) for x in k)
    return k


def m_sorted(v, keys, reverse):
    items = m_iter_u(v)
    r = m_truth(reverse)
    if type(v) is set and keys is not None:
        raise _U("sorted(set, key=...) (ties depend on the set's order)")
    ks = items if keys is None else _keys(keys, items)
    _uniform(ks)
    pairs = list(zip(ks, range(len(items)), items))
    pairs.sort(key=lambda p: _py_key(p[0]), reverse=r)
    return [p[2] for p in pairs]


def m_listof(v):
    return m_iter(v)


def m_tupleof(v):
    return tuple(m_iter(v))


def m_setof(v):
    if type(v) is set:
        return v
    return m_mkset(m_iter(v))


def m_dictof(v):
    if type(v) is dict:
        return v
    pairs = []
    for x in m_iter(v):
        p = m_iter(x)
        if len(p) != 2:
            raise _U("dict() item is not a pair")
        pairs.append((p[0], p[1]))
    return m_mkdict(pairs)


def _is_ascii(s: str) -> bool:
    return all(ord(c) < 128 for c in s)


def m_str_repr(s: str) -> str:
    if not _is_ascii(s):
        raise _U("repr of a non-ASCII str")
    return repr(s)


def m_int_str(i: int) -> str:
    try:
        return str(i)
    except ValueError:          # CPython 3.11: more than 4300 digits
        raise _U("int too large for str()") from None


def m_repr(v, d: int = 0) -> str:
    if d > MAX_DEPTH:
        raise Unsure("nesting too deep")
    t = type(v)
    if v is None:
        return "None"
    if t is bool:
        return "True" if v else "False"
    if t is int:
        return m_int_str(v)
    if t is str:
        return m_str_repr(v)
    if t in (list, tuple, dict):
        _charge(len(v))
    if t is list:
        return "[" + ", ".join(m_repr(x, d + 1) for x in v) + "]"
    if t is tuple:
        inner = ", ".join(m_repr(x, d + 1) for x in v)
        return "(" + inner + (",)" if len(v) == 1 else ")")
    if t is dict:
        return "{" + ", ".join(f"{m_repr(k, d + 1)}: {m_repr(x, d + 1)}" for k, x in v.items()) + "}"
    if t is set:
        if not v:
            return "set()"
        raise _U("str() of a non-empty set (its order)")
    raise _U("repr of a value outside the subset")


def m_strof(v):
    if type(v) is str:
        return v
    return m_repr(v)


def _ws(c: str) -> bool:
    if ord(c) >= 128:
        raise _U("non-ASCII whitespace test")
    return c in " \t\n\r\x0b\x0c\x1c\x1d\x1e\x1f"


def m_intof(v):
    if type(v) is str:
        s = list(v)
        while s and _ws(s[0]):
            s.pop(0)
        while s and _ws(s[-1]):
            s.pop()
        t = "".join(s)
        if not t or not _is_ascii(t):
            raise _U("int() of a non-numeric str")
        body = t[1:] if t[0] in "+-" else t
        if not body or not body[0].isdigit() or body.endswith("_") or "__" in body \
                or any(not (c.isdigit() or c == "_") for c in body):
            raise _U("int() of a non-numeric str")
        if sum(c.isdigit() for c in body) > 4300:
            raise _U("int() of more than 4300 digits")
        return int(t)
    return _num(v)


def m_ord(v):
    if type(v) is str and len(v) == 1:
        return ord(v)
    raise _U("ord")


def m_chr(v):
    i = _num(v)
    if 0 <= i <= 0x10FFFF and not 0xD800 <= i <= 0xDFFF:
        return chr(i)
    raise _U("chr")


def m_divmod(a, b):
    return (m_floordiv(a, b), m_mod(a, b))


def m_fstr(parts):
    return "".join(m_strof(p) for p in parts)


def _str(v) -> str:
    if type(v) is not str:
        raise _U("str method on a non-str")
    return v


def m_strip(which: int, s, chars):
    s = _str(s)
    if chars is None:
        test = _ws
    elif type(chars) is str:
        test = lambda c: c in chars  # noqa: E731
    else:
        raise _U("strip chars")
    i, j = 0, len(s)
    if which != 2:
        while i < j and test(s[i]):
            i += 1
    if which != 1:
        while j > i and test(s[j - 1]):
            j -= 1
    return s[i:j]


def m_split(s, sep):
    s = _str(s)
    if sep is None:
        if not _is_ascii(s):
            raise _U("split() of a non-ASCII str")
        return s.split()
    if type(sep) is not str or sep == "":
        raise _U("split separator")
    return s.split(sep)


def m_join(sep, items):
    sep = _str(sep)
    parts = m_iter(items)
    if any(type(p) is not str for p in parts):
        raise _U("join of non-strs")
    _cap_len(sum(len(p) for p in parts) + len(sep) * len(parts))
    return sep.join(parts)


def m_replace(s, old, new):
    s, old, new = _str(s), _str(old), _str(new)
    if old:
        _cap_len(len(s) + len(new) * (s.count(old)))
    else:
        _cap_len(len(s) + len(new) * (len(s) + 1))
    return s.replace(old, new)


def m_find(s, sub):
    return _str(s).find(_str(sub))


def m_count_any(s, x):
    if type(s) is str:
        return s.count(_str(x))
    if type(s) in (list, tuple):
        return sum(1 for y in s if m_eq(y, x))
    raise _U("count")


def m_index_any(s, x):
    if type(s) is str:
        i = s.find(_str(x))
        if i < 0:
            raise _U("index: not found")
        return i
    if type(s) in (list, tuple):
        for i, y in enumerate(s):
            if m_eq(y, x):
                return i
        raise _U("index: not found")
    raise _U("index")


def m_affix(suffix: bool, s, p):
    s = _str(s)
    ps = [_str(x) for x in p] if type(p) is tuple else [_str(p)]
    return any(s.endswith(q) if suffix else s.startswith(q) for q in ps)


def m_casemap(up: bool, s):
    s = _str(s)
    if not _is_ascii(s):
        raise _U("case mapping of a non-ASCII str")
    return s.upper() if up else s.lower()


def m_strtest(which: int, s):
    s = _str(s)
    if not _is_ascii(s):
        raise _U("str test on a non-ASCII str")
    return bool(s) and all((c.isdigit(), c.isalpha(), c.isalnum(), _ws(c))[which] for c in s)


def m_casetest(up: bool, s):
    s = _str(s)
    if not _is_ascii(s):
        raise _U("case test on a non-ASCII str")
    return s.isupper() if up else s.islower()


def m_dictget(d, k, dflt):
    if type(d) is not dict:
        raise _U("get on a non-dict")
    _need_hash(k)
    if HASHED:
        return d[k] if k in d else dflt
    for k2, v in d.items():
        if m_eq(k, k2):
            return v
    return dflt


def _dict(d) -> dict:
    if type(d) is not dict:
        raise _U("dict method on a non-dict")
    return d


def m_copy(x):
    if type(x) in (list, dict, set):
        return type(x)(x)
    raise _U("copy")


def m_immutable(v):
    if type(v) in (list, dict, set):
        raise _U("in-place operation on a value the function does not own")
    return v


# mutators: return the new container
def m_append(x, v):
    if type(x) is not list:
        raise _U("append on a non-list")
    _cap_len(len(x) + 1)
    return x + [v]


def m_extend(x, it):
    if type(x) is not list:
        raise _U("extend on a non-list")
    return x + m_iter(it)


def m_iadd(x, y):
    return m_extend(x, y) if type(x) is list else m_add(x, y)


def m_insert(x, i, v):
    if type(x) is not list:
        raise _U("insert on a non-list")
    k, n = _num(i), len(x)
    j = max(k + n, 0) if k < 0 else min(k, n)
    return x[:j] + [v] + x[j:]


def m_pop(x, i):
    if type(x) is not list:
        raise _U("pop on a non-list")
    k = -1 if i is None else _num(i)
    j = _norm_idx(len(x), k)
    return (x[:j] + x[j + 1:], x[j])


def m_remove(x, v):
    if type(x) is list:
        j = m_index_any(x, v)
        return x[:j] + x[j + 1:]
    if type(x) is set:
        if HASHED and _quiet_hashable(v):
            if v not in x:
                raise _U("remove: not found")
            _copy_cost(len(x))
            out = set(x)
            out.discard(v)
            return out
        if not any(m_eq(v, y) for y in x):
            raise _U("remove: not found")
        return {y for y in x if not m_eq(v, y)}
    raise _U("remove")


def m_discard(x, v):
    if type(x) is not set:
        raise _U("discard on a non-set")
    _need_hash(v)
    return m_remove(x, v) if _has(x, v) else x


def m_addelem(x, v):
    if type(x) is not set:
        raise _U("add on a non-set")
    if HASHED:
        _need_hash(v)
        if v in x:
            return x
        _copy_cost(len(x))
        out = set(x)
        out.add(v)
        return out
    return set(_set_add(list(x), v))


def m_sortlist(x, keys, reverse):
    if type(x) is not list:
        raise _U("sort on a non-list")
    return m_sorted(x, keys, reverse)


def m_reverselist(x):
    if type(x) is not list:
        raise _U("reverse on a non-list")
    return x[::-1]


def m_clear(x):
    if type(x) in (list, dict, set):
        return type(x)()
    raise _U("clear")


MIRROR_OPS: dict[str, Callable] = {
    "Py.add": m_add, "Py.sub": m_sub, "Py.mul": m_mul, "Py.floordiv": m_floordiv, "Py.mod": m_mod,
    "Py.pow": m_pow, "Py.powMod": m_pow_mod, "Py.bitand": m_bitand, "Py.bitor": m_bitor, "Py.bitxor": m_bitxor,
    "Py.lshift": m_lshift, "Py.rshift": m_rshift,
    "Py.neg": lambda a: -_num(a), "Py.pos": lambda a: _num(a), "Py.invert": lambda a: ~_num(a),
    "Py.notOp": lambda a: not m_truth(a),
    "Py.eqOp": lambda a, b: m_eq(a, b), "Py.neOp": lambda a, b: not m_eq(a, b),
    "Py.cmpOp": lambda op, a, b: m_cmp(op, a, b),
    "Py.inOp": lambda x, c: m_contains(c, x), "Py.notInOp": lambda x, c: not m_contains(c, x),
    "Py.isOp": m_is, "Py.isNotOp": lambda a, b: not m_is(a, b),
    "Py.getItem": m_getitem, "Py.slice": m_slice,
    "Py.lenV": m_len, "Py.absV": m_abs, "Py.boolV": m_truth, "Py.intOf": m_intof, "Py.strOf": m_strof,
    "Py.reprV": m_repr, "Py.ord": m_ord, "Py.chr": m_chr, "Py.divmod": m_divmod,
    "Py.listOf": m_listof, "Py.tupleOf": m_tupleof, "Py.setOf": m_setof, "Py.dictOf": m_dictof,
    "Py.reversed": m_reversed, "Py.sum": m_sum, "Py.anyB": lambda v: any(m_truth(x) for x in m_iter_u(v)),
    "Py.allB": lambda v: all(m_truth(x) for x in m_iter_u(v)),
    "Py.enumerate": m_enumerate, "Py.zip": m_zip, "Py.rangeV": m_range, "Py.fstr": m_fstr,
    "Py.listV": lambda items: list(items), "Py.tupleV": lambda items: tuple(items),
    "Py.mkSet": m_mkset, "Py.mkDict": lambda entries: m_mkdict(entries), "Py.entryV": lambda k, v: (k, v),
    "Py.caseMap": m_casemap, "Py.strip": m_strip, "Py.split": m_split, "Py.join": m_join,
    "Py.replace": m_replace, "Py.findM": m_find, "Py.countAny": m_count_any, "Py.indexAny": m_index_any,
    "Py.affix": m_affix, "Py.strTest": m_strtest, "Py.caseTest": m_casetest, "Py.dictGet": m_dictget,
    "Py.dictKeys": lambda d: list(_dict(d).keys()), "Py.dictValues": lambda d: list(_dict(d).values()),
    "Py.dictItems": lambda d: [(k, v) for k, v in _dict(d).items()], "Py.copy": m_copy,
    "Py.immutable": m_immutable,
    "Py.append": m_append, "Py.extend": m_extend, "Py.iadd": m_iadd, "Py.insert": m_insert,
    "Py.remove": m_remove, "Py.discard": m_discard, "Py.addElem": m_addelem, "Py.reverseList": m_reverselist,
    "Py.clear": m_clear,
}
# Lean functions taking a Bool/Nat code as their first argument
_CODED = {"(Py.caseMap Bool.false)": ("Py.caseMap", False), "(Py.caseMap Bool.true)": ("Py.caseMap", True),
          "(Py.strip 0)": ("Py.strip", 0), "(Py.strip 1)": ("Py.strip", 1), "(Py.strip 2)": ("Py.strip", 2),
          "(Py.affix Bool.false)": ("Py.affix", False), "(Py.affix Bool.true)": ("Py.affix", True),
          "(Py.strTest 0)": ("Py.strTest", 0), "(Py.strTest 1)": ("Py.strTest", 1),
          "(Py.strTest 2)": ("Py.strTest", 2), "(Py.strTest 3)": ("Py.strTest", 3),
          "(Py.caseTest Bool.true)": ("Py.caseTest", True), "(Py.caseTest Bool.false)": ("Py.caseTest", False)}


_MIRROR_FNS: dict[str, Callable] = {}
# operations the kernel does by a scan and the mirror by hashing when the container (the
# argument at this index) is a dict or a set (see ``HASHED``)
_HASHED_AT = {"Py.inOp": 1, "Py.notInOp": 1, "Py.getItem": 0, "Py.dictGet": 0}
_SCANNING_MUTATORS = frozenset({"Py.addElem", "Py.discard", "Py.remove"})
# operations the kernel does in time linear in its arguments' lengths (``_op_cost``) and the mirror
# in constant time: CPython's indexing of a list / tuple / str, ``len``, truth
_CONSTANT_TIME = frozenset({"Py.lenV", "Py.boolV", "Py.notOp"})


def _constant_time(fn: str, args: list) -> bool:
    """The mirror does operation ``fn`` on ``args`` in constant time (the kernel: a walk)."""
    if fn in _CONSTANT_TIME:
        return True
    if fn == "Py.getItem" and type(args[0]) in (list, tuple, str):
        return True
    c = _HASHED_AT.get(fn)
    return c is not None and HASHED and type(args[c]) in (dict, set)


def _mirror_fn(fn: str) -> Callable:
    f = _MIRROR_FNS.get(fn)
    if f is None:
        f = _MIRROR_FNS[fn] = _coded_fn(fn)
    return f


def _coded_fn(fn: str) -> Callable:
    if fn in _CODED:
        name, code = _CODED[fn]
        f = MIRROR_OPS[name]
        return lambda *a: f(code, *a)
    return MIRROR_OPS[fn]


def _size(x) -> int:
    return len(x) if type(x) in (list, tuple, str, dict, set) else 0


def _op_cost(fn: str, args: list) -> int:
    """Extra cost of an operation for the kernel: it walks the sequences it is given (the
    kernel's cost per step, measured in benchmarks/spec_eval.py, stays within a small range)."""
    n = 0
    for a in args:
        t = type(a)
        if t is list or t is str or t is tuple or t is dict or t is set:
            n += len(a)
    if n <= 4:
        return 0
    if fn in ("Py.sorted", "Py.sortList"):
        return n * max(1, n.bit_length()) // 2
    return n // 4


class _Flow(Exception):
    pass


class _Break(_Flow):
    pass


class _Continue(_Flow):
    pass


class _Return(_Flow):
    def __init__(self, value) -> None:
        self.value = value


class Mirror:
    """Evaluates the IR with the semantics of ``Py.lean`` (``Undefined`` for Lean's ``none``).

    ``steps`` counts what the kernel would evaluate (the kernel budget is measured in it);
    ``steps + work`` is what this evaluator does, charged to its bounds (``step_limit`` at one
    input and ``budget``, an :class:`EvalBudget` shared by the evaluations of one run): ``work``
    adds its walks over nested data (:func:`_charge`) and takes off the steps that model only
    the kernel's cost (:meth:`kernel_only`: a dict or set lookup is a scan for the kernel, a hash
    lookup here).  So a faster evaluation is charged less, never with a different value."""

    CHECK_EVERY = 1 << 14

    def __init__(self, fns: Sequence[Fn], fuel: int, step_limit: int = MIRROR_STEP_LIMIT,
                 budget: EvalBudget | None = None) -> None:
        self.fns = list(fns)
        self.fuel = fuel
        self.step_limit = step_limit
        self.budget = budget if budget is not None else EvalBudget()
        self.steps = 0
        self.work = 0
        self.charged = 0
        self.mark = 0
        self.checkpoint()

    def tick(self, n: int = 1) -> None:
        self.steps += n
        if self.steps + self.work >= self.mark:
            self.checkpoint()

    def kernel_only(self, n: int) -> None:
        """``n`` steps of the kernel this evaluator does not do (not charged to its bounds)."""
        self.steps += n
        self.work -= n

    def checkpoint(self) -> None:
        """Charge the budget with the work since the last checkpoint; raise past a bound."""
        done = self.steps + self.work
        n, self.charged = done - self.charged, done
        self.budget.charge(n)
        if done > self.step_limit:
            raise TooLong(f"more than {self.step_limit} evaluation steps at one input")
        self.mark = min(self.step_limit + 1, done + self.CHECK_EVERY, done + self.budget.left + 1)

    def settle(self) -> None:
        """Charge what is left (at the end of an evaluation)."""
        done = self.steps + self.work
        self.budget.used += done - self.charged
        self.charged = done

    def __enter__(self) -> "Mirror":
        self.saved = getattr(_ACTIVE, "m", None)
        _ACTIVE.m = self
        return self

    def __exit__(self, *exc) -> None:
        _ACTIVE.m = self.saved
        self.settle()

    # -- calls -----------------------------------------------------------------------------
    def call(self, index: int, args: Sequence, level: int | None = None):
        """Run function ``index``: its value, or ``_SpecRaise`` / ``Undefined``."""
        level = self.fuel if level is None else level
        if level <= 0:
            raise _U("out of fuel (call depth)")
        fn = self.fns[index]
        if len(args) != len(fn.params):
            raise _U("wrong number of arguments")
        self.tick()
        env = dict(zip(fn.params, args))
        saved = getattr(self, "level", None)
        self.level = level - 1
        try:
            self.block(fn.body, env)
        except _Return as r:
            return r.value
        finally:
            self.level = saved
        return None

    # -- statements ------------------------------------------------------------------------
    def block(self, stmts: Sequence[S], env: dict) -> None:
        for s in stmts:
            self.stmt(s, env)

    def bind(self, t, value, env: dict) -> None:
        if isinstance(t, TName):
            env[t.name] = value
            return
        items = m_iter(value)
        if len(items) != len(t.items):
            raise _U("unpacking: wrong number of values")
        for x, v in zip(t.items, items):
            self.bind(x, v, env)

    def stmt(self, s: S, env: dict) -> None:
        self.steps += 1                     # tick(), inlined (the interpreter's hottest path)
        if self.steps + self.work >= self.mark:
            self.checkpoint()
        _STMT[type(s)](self, s, env)

    def _pass(self, s: SPass, env: dict) -> None:
        return

    def _assign(self, s: SAssign, env: dict) -> None:
        t = s.target
        if type(t) is TName:
            env[t.name] = self.ev(s.value, env)
        else:
            self.bind(t, self.ev(s.value, env), env)

    def _expr(self, s: SExpr, env: dict) -> None:
        self.ev(s.value, env)

    def _return(self, s: SReturn, env: dict) -> None:
        raise _Return(self.ev(s.value, env))

    def _if(self, s: SIf, env: dict) -> None:
        if m_truth(self.ev(s.cond, env)):
            self.block(s.body, env)
        else:
            self.block(s.orelse, env)

    def _while(self, s: SWhile, env: dict) -> None:
        level = self.fuel
        while True:
            if level <= 0:
                raise _U("out of fuel (while loop)")
            level -= 1
            self.tick()
            if not m_truth(self.ev(s.cond, env)):
                break
            try:
                self.block(s.body, env)
            except _Break:
                break
            except _Continue:
                continue

    def _for(self, s: SFor, env: dict) -> None:
        for x in m_iter(self.ev(s.iter, env)):
            self.tick()
            self.bind(s.target, x, env)
            try:
                self.block(s.body, env)
            except _Break:
                break
            except _Continue:
                continue

    def _break(self, s: SBreak, env: dict) -> None:
        raise _Break()

    def _continue(self, s: SContinue, env: dict) -> None:
        raise _Continue()

    def _raise(self, s: SRaise, env: dict) -> None:
        for a in s.args:
            self.ev(a, env)
        raise _SpecRaise(s.name)

    def _assert(self, s: SAssert, env: dict) -> None:
        if not m_truth(self.ev(s.cond, env)):
            raise _U("assertion failed")

    def _aug(self, s: SAug, env: dict) -> None:
        v = self.ev(s.value, env)
        cur = env[s.var]
        if s.owned:
            f = m_iadd if s.fn == "Py.add" else MIRROR_OPS[s.fn]
        else:
            m_immutable(cur)
            f = MIRROR_OPS[s.fn]
        env[s.var] = f(cur, v)

    def _setitem(self, s: SSetItem, env: dict) -> None:
        v = self.ev(s.value, env)
        i = self.ev(s.path[0], env)
        if len(s.path) == 1:
            env[s.var] = m_setitem(env[s.var], i, v)
        else:
            row = m_getitem(env[s.var], i)
            j = self.ev(s.path[1], env)
            env[s.var] = m_setitem(env[s.var], i, m_setitem(row, j, v))

    def _augitem(self, s: SAugItem, env: dict) -> None:
        i = self.ev(s.index, env)
        old = m_immutable(m_getitem(env[s.var], i))
        v = self.ev(s.value, env)
        env[s.var] = m_setitem(env[s.var], i, MIRROR_OPS[s.fn](old, v))

    def _delitem(self, s: SDelItem, env: dict) -> None:
        env[s.var] = m_delitem(env[s.var], self.ev(s.index, env))

    def _mut(self, s: SMut, env: dict) -> None:
        args = [self.ev(a, env) for a in s.args]
        # ``seen.add(x)``, ``seen.discard(x)``, ``xs.remove(x)``: the kernel scans the container, as
        # for ``x in seen`` (``_op``); a hash lookup here (its copy is charged by the operation)
        if s.fn in _SCANNING_MUTATORS:
            n = _op_cost(s.fn, [env[s.var], *args])
            if n:
                if HASHED and type(env[s.var]) is set:
                    self.kernel_only(n)
                else:
                    self.tick(n)
        if s.pair:
            new, item = m_pop(env[s.var], args[0])
            env[s.var] = new
            if s.result is not None:
                self.bind(s.result, item, env)
        else:
            env[s.var] = MIRROR_OPS[s.fn](env[s.var], *args)

    def _sort(self, s: SSort, env: dict) -> None:
        rev = False if s.keyed.reverse is None else self.ev(s.keyed.reverse, env)
        env[s.var] = m_sortlist(env[s.var], self.keys(s.keyed, env[s.var], env), rev)

    # -- expressions -----------------------------------------------------------------------
    def arg(self, a, env: dict):
        t = type(a)
        if t is ERaw:
            return a.py
        if t is EList:
            return [self.ev(x, env) for x in a.items]
        if t is EOpt:
            return _NODEFAULT if a.item is None else self.ev(a.item, env)
        return self.ev(a, env)

    def ev(self, e, env: dict):
        t = type(e)
        if t is EVar:
            return env[e.name]
        if t is ELit:
            return e.value
        self.steps += 1                     # tick(), inlined
        if self.steps + self.work >= self.mark:
            self.checkpoint()
        return _EXPR[t](self, e, env)

    def _op(self, e: EOp, env: dict):
        args = [self.arg(a, env) for a in e.args]
        n = _op_cost(e.fn, args)
        if n:
            if _constant_time(e.fn, args):
                self.kernel_only(n)     # constant time here: an index, a length, a hash lookup
            else:
                self.tick(n)
        return _mirror_fn(e.fn)(*args)

    def _call(self, e: ECall, env: dict):
        args = [self.ev(a, env) for a in e.args]
        return self.call(e.index, args, self.level)

    def _bool(self, e: EBool, env: dict):
        a = self.ev(e.a, env)
        t = m_truth(a)
        if t == e.is_and:
            return self.ev(e.b, env)
        return a

    def _ifexp(self, e: EIf, env: dict):
        return self.ev(e.a, env) if m_truth(self.ev(e.cond, env)) else self.ev(e.b, env)

    def _chain(self, e: EChain, env: dict):
        left = self.ev(e.operands[0], env)
        r = None
        for (fn, code), right_e in zip(e.ops, e.operands[1:]):
            right = self.ev(right_e, env)
            f = MIRROR_OPS[fn]
            r = f(code, left, right) if code is not None else f(left, right)
            if not m_truth(r):
                return r
            left = right
        return r

    def _comp(self, e: EComp, env: dict):
        out: list = []
        self.comp(e.gens, 0, dict(env), out, e)
        if e.kind == "list":
            return out
        if e.kind == "set":
            return m_mkset(out)
        return m_mkdict(out)

    def _anyall(self, e: EAnyAll, env: dict):
        return self.anyall(e, e.gens, 0, dict(env))

    def _keyed(self, e: EKeyed, env: dict):
        it = self.ev(e.iterable, env)
        if e.kind == "sorted":
            rev = False if e.reverse is None else self.ev(e.reverse, env)
            return m_sorted(it, self.keys(e, it, env), rev)
        dflt = _NODEFAULT if e.default is None else self.ev(e.default, env)
        return m_minmax(0 if e.kind == "min" else 2, it, self.keys(e, it, env), dflt)

    def keys(self, e: EKeyed, it, env: dict):
        n = _size(it)
        self.tick(n * max(1, n.bit_length()) // 2 if e.kind in ("sorted", "sort") else n // 4)
        if e.key is None:
            return None
        items = m_iter(it)
        out = []
        for x in items:
            self.tick()
            out.append(self.ev(e.key.body, {**env, e.key.param: x}))
        return out

    def comp(self, gens, i: int, env: dict, out: list, e: EComp) -> None:
        if i == len(gens):
            if e.kind == "dict":
                k = self.ev(e.elt[0], env)
                out.append((k, self.ev(e.elt[1], env)))
            else:
                out.append(self.ev(e.elt, env))
            return
        g = gens[i]
        for x in m_iter(self.ev(g.iter, env)):
            self.tick()
            self.bind(g.target, x, env)
            if all(m_truth(self.ev(c, env)) for c in g.conds):
                self.comp(gens, i + 1, env, out, e)

    def anyall(self, e: EAnyAll, gens, i: int, env: dict) -> bool:
        if i == len(gens):
            return m_truth(self.ev(e.elt, env))
        g = gens[i]
        for x in m_iter(self.ev(g.iter, env)):
            self.tick()
            self.bind(g.target, x, env)
            ok = True
            for c in g.conds:
                if not m_truth(self.ev(c, env)):
                    ok = False
                    break
            if ok and self.anyall(e, gens, i + 1, env) == e.want:
                return e.want
        return not e.want


# the mirror's dispatch on the IR's node classes (each is a direct subclass of ``S`` / ``E``)
_STMT: dict[type, Callable] = {
    SPass: Mirror._pass, SAssign: Mirror._assign, SExpr: Mirror._expr, SReturn: Mirror._return,
    SIf: Mirror._if, SWhile: Mirror._while, SFor: Mirror._for, SBreak: Mirror._break,
    SContinue: Mirror._continue, SRaise: Mirror._raise, SAssert: Mirror._assert, SAug: Mirror._aug,
    SSetItem: Mirror._setitem, SAugItem: Mirror._augitem, SDelItem: Mirror._delitem, SMut: Mirror._mut,
    SSort: Mirror._sort,
}
_EXPR: dict[type, Callable] = {
    EOp: Mirror._op, ECall: Mirror._call, EBool: Mirror._bool, EIf: Mirror._ifexp, EChain: Mirror._chain,
    EComp: Mirror._comp, EAnyAll: Mirror._anyall, EKeyed: Mirror._keyed,
}


# =====================================================================================
# values: exact test inputs -> mirror values -> canonical classes
# =====================================================================================

def to_mirror(v: V):
    """The mirror value of an exact input (kinds outside the subset become :class:`Opaque`)."""
    k = v.kind
    if k == "none":
        return None
    if k in ("bool", "int", "str"):
        return v.val
    if k == "list":
        return [to_mirror(x) for x in v.val]
    if k == "tuple":
        return tuple(to_mirror(x) for x in v.val)
    if k in ("dict", "set"):
        try:
            if k == "dict":
                out = {}
                for a, b in v.val:
                    key = to_mirror(a)
                    _check_plain_key(key)
                    out[key] = to_mirror(b)
                return out
            elems = [to_mirror(x) for x in v.val]
            for x in elems:
                _check_plain_key(x)
            return set(elems)
        except (Undefined, TypeError):
            return Opaque(k)
    return Opaque(k)


def _has_opaque_container(x) -> bool:
    _charge(1)
    if isinstance(x, Opaque):
        return x.kind in ("dict", "set")
    if type(x) in (list, tuple):
        return any(_has_opaque_container(y) for y in x)
    if type(x) is dict:
        return any(_has_opaque_container(y) for y in x.values())
    return False


def _check_plain_key(x) -> None:
    if isinstance(x, Opaque) or not m_hashable(x):
        raise Undefined("key outside the subset")


def _sortable_key(x) -> None:
    """Lean's ``jrepr`` is defined on this key (ASCII strs, ints of at most 4300 digits)."""
    if type(x) is str:
        if not _is_ascii(x):
            raise Undefined("non-ASCII str in a dict key or set element")
    elif type(x) is int:
        m_int_str(x)
    elif type(x) in (tuple, list):
        _charge(len(x))
        for y in x:
            _sortable_key(y)
    elif type(x) is set:
        for y in x:
            _sortable_key(y)
    elif not (x is None or type(x) is bool):
        raise Undefined("key outside the subset")


def _plain(x, d: int = 0):
    if d > MAX_DEPTH:
        raise Unsure("nesting too deep")
    if isinstance(x, Opaque):
        raise Undefined(f"{x.kind} in the result")
    t = type(x)
    if t in (list, tuple, dict, set):
        _charge(len(x))
    if t in (list, tuple):
        for y in x:
            _plain(y, d + 1)
    elif t is dict:
        for k, y in x.items():
            _sortable_key(k)
            _plain(k, d + 1)
            _plain(y, d + 1)
    elif t is set:
        for y in x:
            _sortable_key(y)
            _plain(y, d + 1)
    elif not (x is None or t in (bool, int, str)):
        raise Undefined("value outside the subset")


MAX_RESULT_NODES = 200_000   # values in a result the mirror turns into a V


def _check_result_size(x) -> None:
    """A result with shared sub-lists (``xs = [xs, xs]`` in a loop) is exponentially larger than
    the steps that built it: count its nodes, up to a bound, before walking it recursively."""
    n, stack = 0, [x]
    while stack:
        y = stack.pop()
        n += 1
        if n > MAX_RESULT_NODES:
            raise Unsure(f"result too large (more than {MAX_RESULT_NODES} values)")
        t = type(y)
        if t in (list, tuple, set):
            stack.extend(y)
        elif t is dict:
            stack.extend(y.keys())
            stack.extend(y.values())
    _charge(n)


def m_canon(x) -> V:
    """The canonical class (``values.canon``) of a mirror value, where ``Py.canon`` is defined."""
    return vals.canon(m_exact(x))


def m_exact(x) -> V:
    """The exact value (``values.from_python``: bool stays bool) of a mirror value in the subset."""
    _check_result_size(x)
    _plain(x)
    return vals.from_python(x)


def _from_class(t: tuple, c: V):
    tag = t[0]
    if tag == "int" and c.kind == "int":
        return c.val
    if tag == "bool" and c.kind == "int" and c.val in (0, 1):
        return bool(c.val)
    if tag == "str" and c.kind == "str":
        return c.val
    if tag == "none" and c.kind == "none":
        return None
    if tag == "list" and c.kind == "list":
        return [_from_class(t[1], x) for x in c.val]
    if tag == "tupleOf" and c.kind == "tuple":
        return tuple(_from_class(t[1], x) for x in c.val)
    if tag == "tuple" and c.kind == "tuple" and len(c.val) == len(t[1]):
        return tuple(_from_class(a, x) for a, x in zip(t[1], c.val))
    if tag == "opt":
        return None if c.kind == "none" else _from_class(t[1], c)
    raise Undefined("result of another type")


def _json_safe(c: V) -> bool:
    if c.kind in ("none", "int", "str"):
        return True
    if c.kind == "list":
        return all(_json_safe(x) for x in c.val)
    if c.kind == "dict":
        return all(a.kind == "str" and _json_safe(b) for a, b in c.val)
    return False


def _has_tuple(t: tuple) -> bool:
    if t[0] in ("tupleOf", "tuple"):
        return True
    if t[0] in ("list", "opt"):
        return _has_tuple(t[1])
    return False


def _lean_pty(t: tuple) -> str:
    tag = t[0]
    if tag in ("int", "bool", "str", "none"):
        return f"Py.PTy.{tag}"
    if tag in ("list", "tupleOf", "opt"):
        return f"(Py.PTy.{tag} {_lean_pty(t[1])})"
    if tag == "tuple":
        out = "Py.PTy.nil"
        for x in reversed(t[1]):
            out = f"(Py.PTy.cons {_lean_pty(x)} {out})"
        return f"(Py.PTy.tuple {out})"
    raise TypeError(tag)


def _pty_of(ann: ast.expr, path: str) -> tuple:
    """The type of post's ``result`` (how a class is turned back into a value of that type)."""
    bad = _err(path, ann, "the type of post's result must be built from int, bool, str, None, list[...], "
                          "tuple[...] and Optional[...]",
               "dicts and sets have no single order; compare them through a reference instead")
    if isinstance(ann, ast.Constant) and isinstance(ann.value, str):
        try:
            ann = ast.parse(ann.value, mode="eval").body
        except SyntaxError:
            raise bad from None
    if isinstance(ann, ast.Constant) and ann.value is None or isinstance(ann, ast.Name) and ann.id == "None":
        return ("none",)
    if isinstance(ann, ast.Name) and ann.id in ("int", "bool", "str"):
        return (ann.id,)
    if isinstance(ann, ast.BinOp) and isinstance(ann.op, ast.BitOr):
        parts = [ann.left, ann.right]
        nones = [p for p in parts if isinstance(p, ast.Constant) and p.value is None
                 or isinstance(p, ast.Name) and p.id == "None"]
        if len(nones) == 1:
            other = parts[0] if parts[1] in nones else parts[1]
            return ("opt", _pty_of(other, path))
        raise bad
    if isinstance(ann, ast.Subscript) and isinstance(ann.value, ast.Name):
        head = ann.value.id
        sl = ann.slice
        if head in ("list", "List"):
            return ("list", _pty_of(sl, path))
        if head == "Optional":
            return ("opt", _pty_of(sl, path))
        if head in ("tuple", "Tuple"):
            elts = sl.elts if isinstance(sl, ast.Tuple) else [sl]
            if len(elts) == 2 and isinstance(elts[1], ast.Constant) and elts[1].value is Ellipsis:
                return ("tupleOf", _pty_of(elts[0], path))
            return ("tuple", [_pty_of(x, path) for x in elts])
        if head == "Union" and isinstance(sl, ast.Tuple) and len(sl.elts) == 2:
            return _pty_of(ast.BinOp(left=sl.elts[0], op=ast.BitOr(), right=sl.elts[1], lineno=ann.lineno,
                                     col_offset=0), path)
    raise bad


# =====================================================================================
# the program
# =====================================================================================

@dataclass(frozen=True)
class MirrorOut:
    """What the spec says at one input, as the mirror computes it.

    ``kind``: ``eq`` (returns a value of class ``value``), ``raises``, ``post`` (returns a value
    satisfying the postcondition), ``none`` (nothing is said: pre false, an implicit error, fuel,
    outside the subset) or ``unknown`` (the mirror gave up: its step limit)."""

    kind: str
    value: V | None = None
    args: tuple = ()
    steps: int = 0
    reason: str = ""
    sure: bool = True        # ``none``: the kernel certainly says nothing here either
    exact: V | None = None   # ``eq``: the value itself, with Python's types (``value`` is its class)


@dataclass(frozen=True)
class SpecItem:
    """A statement of a spec, for reports: where it is (``models.Loc``) and what it says."""

    id: str
    loc: Any
    text: str
    statement: str


@dataclass(frozen=True)
class Example:
    args: tuple
    expected: V
    line: int
    text: str


class SpecProgram:
    """A checked spec: its IR, its Lean term and its evaluators."""

    def __init__(self, source: str, path: str = "<spec>") -> None:
        self.source = source
        self.path = path
        self._lean_prog: str | None = None
        self._memo: dict = {}
        try:
            with _deep_stack():
                self._load()
                self.lean_prog()
        except (RecursionError, MemoryError):
            raise _err(path, None, "the spec is too large or nested too deeply for SpecGuard to compile",
                       "write the spec with shallower expressions and shorter literals") from None

    def _load(self) -> None:
        path = self.path
        p = _Parser(self.source, path)
        self.fns: list[Fn] = p.module()
        self.index = dict(p.index)
        self.fuel = p.fuel
        self.entry_override = p.entry
        self.raise_lines = dict(p.raise_lines)
        for fn in self.fns:
            _check_defined(fn, path)
            _Ownership(fn, path).check()
        self._check_signatures(p)
        self.examples = self._examples(p)

    # -- structure -------------------------------------------------------------------------
    def fn(self, name: str) -> Fn | None:
        i = self.index.get(name)
        return None if i is None else self.fns[i]

    def _check_signatures(self, p: _Parser) -> None:
        ref, post = self.fn("reference"), self.fn("post")
        if ref is not None:
            self.nparams = len(ref.params)
            self.defaults = [d.value for d in ref.defaults]
        else:
            self.nparams = len(post.params) - 1
            self.defaults = [d.value for d in post.defaults]
            if post.defaults and len(post.defaults) == len(post.params):
                raise _err(self.path, post.line, "post's result parameter cannot have a default")
        for name in ("pre", "raises"):
            f = self.fn(name)
            if f is not None and len(f.params) != self.nparams:
                raise _err(self.path, f.line, f"{name}() must take the same {self.nparams} parameter(s) as the "
                                              f"function under test")
        if post is not None:
            if len(post.params) != self.nparams + 1:
                raise _err(self.path, post.line, f"post() must take the {self.nparams} parameter(s) of the function "
                                                 f"and then the result")
            self.post_type = _pty_of(post.annotations[-1], self.path)
        else:
            self.post_type = ("int",)

    def _examples(self, p: _Parser) -> list[Example]:
        from specguard.python.literals import NotLiteral, eval_literal
        node = p.examples
        if node is None:
            return []
        if not isinstance(node, (ast.List, ast.Tuple)):
            raise _err(self.path, node, "EXAMPLES must be a list of `((args...), expected)` pairs")
        lines = self.source.splitlines()
        out = []
        for item in node.elts:
            if not (isinstance(item, ast.Tuple) and len(item.elts) == 2):
                raise _err(self.path, item, "each example must be `((args...), expected)`")
            a, b = item.elts
            try:
                if isinstance(a, ast.Tuple):
                    args = tuple(eval_literal(x) for x in a.elts)
                elif self.nparams == 1:
                    args = (eval_literal(a),)
                else:
                    raise _err(self.path, a, "the arguments of an example must be a tuple `(a, b, ...)`")
                expected = eval_literal(b)
                if any(vals.contains_nan(v) for v in (*args, expected)):
                    raise NotLiteral("NaN is not supported in a spec's examples (NaN objects are compared "
                                     "by identity)")
            except NotLiteral as e:
                raise _err(self.path, item, f"example is not a literal: {e.reason}",
                           "write examples with literal values: ((arg1, arg2), expected)") from None
            text = lines[item.lineno - 1].strip() if 0 < item.lineno <= len(lines) else ""
            out.append(Example(args, expected, item.lineno, text))
        return out

    # -- Lean ----------------------------------------------------------------------------------
    def lean_prog(self) -> str:
        if self._lean_prog is None:
            self._lean_prog = _Emitter(self.fuel).program(self.fns)
        return self._lean_prog

    def entry(self, default: str | None) -> str:
        e = self.entry_override or default
        if not e:
            raise SpecError("the task names no function under test; give --entry-point or `ENTRY = \"name\"` in the spec",
                            path=self.path)
        return e

    def lean_spec(self, entry: str, json: bool = False) -> str:
        """The Lean term of type ``Py.Spec`` for tests calling ``entry`` (``json``: a JSON-table
        task, whose tests compare JSON views of results)."""
        def opt(name: str) -> str:
            i = self.index.get(name)
            return "Option.none" if i is None else f"(Option.some {i})"
        defaults = _lean_list([lean_lit(d) for d in self.defaults])
        return (f"(Py.Spec.mk {self.lean_prog()} {lean_str_name(entry)} {self.nparams} {defaults} {opt('pre')} "
                f"{opt('raises')} {opt('reference')} {opt('post')} {_lean_pty(self.post_type)} "
                f"{'Bool.true' if json else 'Bool.false'})")

    # -- evaluation (mirror) --------------------------------------------------------------------
    def param_names(self) -> tuple[str, ...]:
        """The Python names of the specified function's parameters (``reference``'s, else ``post``'s
        without its result)."""
        ref, post = self.fn("reference"), self.fn("post")
        fn, n = (ref, len(ref.params)) if ref is not None else (post, len(post.params) - 1)
        return tuple(fn.pynames.get(b, b) for b in fn.params[:n])

    def bind(self, args: Sequence[V], kwargs: Sequence = ()) -> list | None:
        if kwargs:
            return None
        need = self.nparams - len(self.defaults)
        if not need <= len(args) <= self.nparams:
            return None
        return [to_mirror(a) for a in args] + list(self.defaults[len(args) - need:])

    def outcome(self, args: Sequence[V], kwargs: Sequence = (), step_limit: int = MIRROR_STEP_LIMIT,
                json: bool = False, budget: EvalBudget | None = None) -> MirrorOut:
        """What the spec says about a call with exact arguments ``args`` (see :class:`MirrorOut`);
        ``json`` as in :meth:`lean_spec`; ``budget`` shared by the evaluations of one run (by
        default a fresh one)."""
        out = self._outcome_any(args, kwargs, step_limit, budget if budget is not None else EvalBudget())
        if json and out.kind == "eq" and not _json_safe(out.value):
            return MirrorOut("none", steps=out.steps, reason="result has no faithful JSON view")
        if json and out.kind == "post" and _has_tuple(self.post_type):
            return MirrorOut("none", steps=out.steps, reason="postcondition on tuples in a JSON-table task")
        return out

    def _memo_hit(self, key, budget: EvalBudget):
        """A memoized evaluation (the mirror is deterministic): its result, its cost charged to
        ``budget`` as if it ran again (so a re-derivation spends what the first one spent, in
        a fraction of the time); None when not memoized."""
        hit = self._memo.get(key)
        if hit is None:
            return None
        if hit[0] is None and budget.left >= hit[1]:
            return None             # cut by the budget last time, with less of it left: run again
        budget.charge(hit[1])
        return hit

    def _outcome_any(self, args: Sequence[V], kwargs: Sequence, step_limit: int, budget: EvalBudget) -> MirrorOut:
        if budget.exceeded:
            return MirrorOut("unknown", reason=budget.exceeded)
        key = ("outcome", tuple(args), tuple(kwargs), step_limit)
        try:
            hit = self._memo_hit(key, budget)
        except TypeError:
            key, hit = None, None
        except BudgetExceeded as e:
            return MirrorOut("unknown", reason=str(e))
        if hit is not None:
            return hit[0]
        margs = self.bind(args, kwargs)
        if margs is None:
            return MirrorOut("none", reason="the call does not match the spec's parameters")
        m = Mirror(self.fns, self.fuel, step_limit, budget)
        try:
            with _deep_stack(), m:
                out = self._outcome(m, margs)
                if out.kind == "none" and out.sure and any(_has_opaque_container(a) for a in margs):
                    out = MirrorOut("none", steps=out.steps, reason=out.reason, sure=False)
        except BudgetExceeded as e:
            if key is not None:
                self._memo[key] = (None, m.charged)      # needs more than this
            return MirrorOut("unknown", steps=m.steps, reason=str(e))
        except TooLong as e:
            out = MirrorOut("unknown", steps=m.steps, reason=str(e))
        except RecursionError:
            out = MirrorOut("unknown", steps=m.steps, reason="recursion too deep for the mirror")
        except MemoryError:
            return MirrorOut("unknown", steps=m.steps, reason="out of memory in SpecGuard's evaluator")
        except Exception as e:      # a mirror defect must never become a claim
            out = MirrorOut("unknown", steps=m.steps, reason=f"SpecGuard's evaluator failed: {type(e).__name__}: {e}")
        if key is not None:
            self._memo[key] = (out, m.charged)
        return out

    def _outcome(self, m: Mirror, margs: list) -> MirrorOut:
        def run(name: str):
            return m.call(self.index[name], list(margs))
        try:
            if "pre" in self.index:
                try:
                    if not m_truth(run("pre")):
                        return MirrorOut("none", steps=m.steps, reason="pre() is false")
                except _SpecRaise:
                    return MirrorOut("none", steps=m.steps, reason="pre() raised")
            if "raises" in self.index:
                try:
                    r = run("raises")
                except _SpecRaise:
                    return MirrorOut("none", steps=m.steps, reason="raises() raised")
                if type(r) is str:
                    return MirrorOut("raises", steps=m.steps, reason=f"raises() says {r}")
                if r is not None:
                    return MirrorOut("none", steps=m.steps, reason="raises() returned neither a str nor None")
            if "reference" in self.index:
                try:
                    v = run("reference")
                except _SpecRaise as e:
                    return MirrorOut("raises", steps=m.steps, reason=f"reference() raises {e.name}")
                exact = m_exact(v)
                return MirrorOut("eq", value=vals.canon(exact), exact=exact, steps=m.steps)
            return MirrorOut("post", args=tuple(margs), steps=m.steps)
        except Unsure as e:
            return MirrorOut("none", steps=m.steps, reason=str(e), sure=False)
        except Undefined as e:
            return MirrorOut("none", steps=m.steps, reason=str(e))

    def post_holds(self, margs: Sequence, cls: V, step_limit: int = MIRROR_STEP_LIMIT,
                   budget: EvalBudget | None = None) -> bool:
        """``Py.postCheck``: the class ``cls`` of a result satisfies ``post`` (True when unknown)."""
        try:
            x = _from_class(self.post_type, cls)
        except Undefined:
            return False
        b = budget if budget is not None else EvalBudget()
        if b.exceeded:
            return True
        key = ("post", id(margs), cls, step_limit)
        try:
            hit = self._memo_hit(key, b)
        except BudgetExceeded:
            return True
        if hit is not None and hit[2] is margs:
            return hit[0]
        m = Mirror(self.fns, self.fuel, step_limit, b)
        try:
            with _deep_stack(), m:
                ok = m_truth(m.call(self.index["post"], [*margs, x]))
        except BudgetExceeded:
            return True
        except (Undefined, _SpecRaise, TooLong, RecursionError, MemoryError):
            ok = True
        self._memo[key] = (ok, m.charged, margs)
        return ok

    def run(self, name: str, args: Sequence[V], budget: EvalBudget | None = None) -> tuple[str, Any]:
        """Call one function of the spec: ``("ret", exact V)`` (Python's own types: ``True`` is a
        bool, not ``1``), ``("raise", name)`` or ``("none", why)``."""
        b = budget if budget is not None else EvalBudget()
        if b.exceeded:
            return "none", b.exceeded
        m = Mirror(self.fns, self.fuel, budget=b)
        try:
            with _deep_stack(), m:
                v = m.call(self.index[name], [to_mirror(a) for a in args])
                return "ret", m_exact(v)
        except _SpecRaise as e:
            return "raise", e.name
        except (Undefined, TooLong, RecursionError, MemoryError) as e:
            return "none", str(e) or type(e).__name__


def load_spec(path: str | Path) -> SpecProgram:
    """Read and check a spec file (raises :class:`SpecError`)."""
    p = Path(path)
    if not p.is_file():
        raise SpecError("the spec is not a regular file", path=str(path), hint="give the path of a .py file")
    try:
        with p.open("rb") as f:
            data = f.read(4 * MAX_SOURCE + 1)
        if len(data) > 4 * MAX_SOURCE:
            raise SpecError(f"the spec is too large (more than {MAX_SOURCE} characters)", path=str(path))
        text = data.decode("utf-8")
    except (OSError, UnicodeDecodeError) as e:
        raise SpecError(f"cannot read the spec: {e}", path=str(path)) from None
    return SpecProgram(text, str(path))


# =====================================================================================
# observations: an assertion's Python expression over the result of the function under test
# =====================================================================================
# ``sorted(f(x)) == [1, 2]`` becomes one predicate on the result's ``==``-class: the expression
# with the call replaced by a variable, compiled by the parser, emitter and mirror above (one
# semantics).  The class representative is not the Python value (``1``, ``1.0`` and ``True`` are
# one class; a dict's entries and a set's elements are sorted), so only operations that give
# ``==``-equal results on ``==``-equal plain data may touch a value derived from the result, with
# guards (``Py.ordered``, ``Py.fexact``, ``Py.sumExact`` in Py.lean) where they would not.

OBS_VAR = "result"
_OBS_BINDER = "obsr"

# operations that give ==-equal results on ==-equal arguments (as long as no argument is an int
# beyond 2**53 that could be a float, or an order-carrying dict/set: guarded below)
_OBS_PLAIN = {
    "Py.neg", "Py.pos", "Py.absV", "Py.invert", "Py.notOp", "Py.bitand", "Py.bitor", "Py.bitxor",
    "Py.lshift", "Py.rshift", "Py.eqOp", "Py.neOp", "Py.cmpOp", "Py.inOp", "Py.notInOp", "Py.getItem",
    "Py.slice", "Py.lenV", "Py.boolV", "Py.intOf", "Py.ord", "Py.chr", "Py.setOf", "Py.dictOf", "Py.anyB",
    "Py.allB", "Py.listV", "Py.tupleV", "Py.mkSet", "Py.mkDict", "Py.entryV", "Py.rangeV", "Py.split",
    "Py.replace", "Py.findM", "Py.countAny", "Py.indexAny", "Py.dictGet", "Py.copy",
    "(Py.caseMap Bool.false)", "(Py.caseMap Bool.true)", "(Py.strip 0)", "(Py.strip 1)", "(Py.strip 2)",
    "(Py.affix Bool.false)", "(Py.affix Bool.true)", "(Py.strTest 0)", "(Py.strTest 1)", "(Py.strTest 2)",
    "(Py.strTest 3)", "(Py.caseTest Bool.true)", "(Py.caseTest Bool.false)",
}
# float arithmetic on integral values is exact while the operands/result stay within 2**53
_OBS_ARITH = {"Py.add", "Py.sub", "Py.mul"}
_OBS_DIV = {"Py.floordiv", "Py.mod"}
# operations whose result shows the order of their (tainted) argument's items
_OBS_ORDERED = {"Py.listOf", "Py.tupleOf", "Py.reversed", "Py.enumerate", "Py.zip", "Py.join"}
# dict views (lists in insertion order): only under a consumer that ignores order
_OBS_VIEWS = {"Py.dictKeys", "Py.dictValues", "Py.dictItems"}
_OBS_INSENSITIVE = {"Py.setOf", "Py.lenV", "Py.anyB", "Py.allB", "Py.sum", "Py.sumExact"}
_OBS_WHY = {
    "Py.strOf": "`str()` of a value derived from the result (1, 1.0 and True print differently)",
    "Py.reprV": "`repr()` of a value derived from the result (1, 1.0 and True print differently)",
    "Py.fstr": "an f-string of a value derived from the result (1, 1.0 and True print differently)",
    "Py.pow": "`**` on a value derived from the result (float powers may round)",
    "Py.divmod": "`divmod()` on a value derived from the result",
    "Py.isOp": "`is` on a value derived from the result (identity: 1, 1.0 and True are ==-equal, "
               "not identical); only `is None` is supported",
    "Py.isNotOp": "`is not` on a value derived from the result (identity: 1, 1.0 and True are "
                  "==-equal, not identical); only `is not None` is supported",
}


class ObservationError(Exception):
    """An expression over the result that cannot be modelled (the reason); ``unsound``: it is in
    the spec language but applies an operation to the result that is not sound on its class."""

    def __init__(self, reason: str, unsound: bool = True) -> None:
        self.unsound = unsound
        super().__init__(reason)


@dataclass(frozen=True)
class Observation:
    """A compiled observation: ``text`` (Python, over :data:`OBS_VAR`), ``lean`` (a Lean
    ``Val → Bool``: ``Py.obsHolds`` of the expression), and the mirror of the same predicate."""

    text: str
    lean: str
    ir: Any = field(compare=False, hash=False, repr=False)

    def holds(self, cls: V) -> bool:
        """``Py.obsHolds``: the expression's truth on class representative ``cls``, True when it
        is undefined (an implicit Python error, outside the subset, beyond the budget)."""
        m = Mirror([], DEFAULT_FUEL, budget=EvalBudget())
        try:
            with _deep_stack(), m:
                return m_truth(m.ev(self.ir, {_OBS_BINDER: to_mirror(cls)}))
        except (Undefined, TooLong, RecursionError, MemoryError, _SpecRaise):
            return True


def _obs_vis(a, tainted: frozenset, parent_ok: bool):
    """Guard one operation argument; returns (new argument, tainted?)."""
    if isinstance(a, ERaw):
        return a, False
    if isinstance(a, EOpt):
        if a.item is None:
            return a, False
        x, t = _obs_guard(a.item, tainted, parent_ok)
        return EOpt(x), t
    if isinstance(a, EList):
        out, any_t = [], False
        for x in a.items:
            y, t = _obs_guard(x, tainted, parent_ok)
            out.append(y)
            any_t |= t
        return EList(out), any_t
    return _obs_guard(a, tainted, parent_ok)


def _ordered(e, tainted: bool):
    return EOp("Py.ordered", [e], line=getattr(e, "line", 0)) if tainted else e


def _obs_gens(gens, tainted: frozenset, guard: bool):
    out, any_t = [], False
    for g in gens:
        it, t = _obs_guard(g.iter, tainted, False)
        if t:
            it = _ordered(it, guard)
            any_t = True
            tainted = tainted | frozenset(_target_names(g.target))
        conds = []
        for c in g.conds:
            c2, ct = _obs_guard(c, tainted, False)
            conds.append(c2)
            any_t |= ct
        out.append(Gen(g.target, it, conds))
    return out, tainted, any_t


def _obs_guard(e, tainted: frozenset, parent_ok: bool = False):
    """``e`` with the guards an observation needs, and whether it derives from the result
    (``parent_ok``: its consumer ignores the order of its items).  Raises ObservationError."""
    if isinstance(e, ELit):
        return e, False
    if isinstance(e, EVar):
        return e, e.name in tainted
    ln = getattr(e, "line", 0)
    if isinstance(e, EOp):
        fn = e.fn
        insensitive = fn in _OBS_INSENSITIVE
        if fn in ("Py.inOp", "Py.notInOp"):
            x, tx = _obs_vis(e.args[0], tainted, False)
            c, tc = _obs_vis(e.args[1], tainted, True)
            args, t = [x, c], tx or tc
        elif fn in _OBS_ORDERED:        # guard each tainted iterable (zip: each list item)
            args, t = [], False
            for a in e.args:
                if isinstance(a, EList):
                    items = []
                    for x in a.items:
                        y, ty = _obs_guard(x, tainted)
                        items.append(_ordered(y, ty))
                        t |= ty
                    args.append(EList(items))
                else:
                    y, ty = _obs_vis(a, tainted, False)
                    args.append(_ordered(y, ty) if not isinstance(y, (ERaw, EOpt)) else y)
                    t |= ty
        else:
            pairs = [_obs_vis(a, tainted, insensitive) for a in e.args]
            args, t = [p[0] for p in pairs], any(p[1] for p in pairs)
        if not t:
            return EOp(fn, args, line=ln), False
        if fn in ("Py.isOp", "Py.isNotOp") and any(isinstance(a, ELit) and a.value is None for a in args):
            return EOp(fn, args, line=ln), True
        if fn in _OBS_PLAIN:
            return EOp(fn, args, line=ln), True
        if fn in _OBS_ARITH:
            return EOp("Py.fexact", [EOp(fn, args, line=ln)], line=ln), True
        if fn in _OBS_DIV:
            args = [EOp("Py.fexact", [a], line=ln) for a in args]
            return EOp("Py.fexact", [EOp(fn, args, line=ln)], line=ln), True
        if fn == "Py.sum":
            return EOp("Py.sumExact", args, line=ln), True
        if fn in _OBS_ORDERED:
            return EOp(fn, args, line=ln), True
        if fn in _OBS_VIEWS:
            if not parent_ok:
                raise ObservationError("`.keys()`/`.values()`/`.items()` of the result in insertion order "
                                       "(only under sorted/set/len/sum/min/max/any/all/`in`)")
            return EOp(fn, args, line=ln), True
        raise ObservationError(_OBS_WHY.get(fn, f"operation `{fn}` on a value derived from the result is not "
                                                "modelled"))
    if isinstance(e, EBool):
        a, ta = _obs_guard(e.a, tainted)
        b, tb = _obs_guard(e.b, tainted)
        return EBool(e.is_and, a, b, line=ln), ta or tb
    if isinstance(e, EIf):
        c, tc = _obs_guard(e.cond, tainted)
        a, ta = _obs_guard(e.a, tainted)
        b, tb = _obs_guard(e.b, tainted)
        return EIf(c, a, b, line=ln), tc or ta or tb
    if isinstance(e, EChain):
        ops = []
        outs, any_t = [], False
        for x in e.operands:
            y, t = _obs_guard(x, tainted)
            outs.append(y)
            any_t |= t
        if any_t:
            for fn, _ in e.ops:
                if fn in ("Py.isOp", "Py.isNotOp"):
                    raise ObservationError(_OBS_WHY[fn])
        ops = list(e.ops)
        return EChain(outs, ops, line=ln), any_t
    if isinstance(e, EComp):
        gens, inner, t = _obs_gens(e.gens, tainted, e.kind != "set")
        if e.kind == "dict":
            k, tk = _obs_guard(e.elt[0], inner)
            v, tv = _obs_guard(e.elt[1], inner)
            return EComp("dict", (k, v), gens, line=ln), t or tk or tv
        x, tx = _obs_guard(e.elt, inner)
        return EComp(e.kind, x, gens, line=ln), t or tx
    if isinstance(e, EAnyAll):
        gens, inner, t = _obs_gens(e.gens, tainted, False)
        x, tx = _obs_guard(e.elt, inner)
        return EAnyAll(e.want, x, gens, line=ln), t or tx
    if isinstance(e, EKeyed):
        it, t = _obs_guard(e.iterable, tainted, e.key is None)
        key = e.key
        if key is not None:
            body, tb = _obs_guard(key.body, tainted | frozenset([key.param]) if t else tainted)
            key = ELambda(key.param, body)
            if t:
                it = _ordered(it, True)     # ties between keys keep the items' order
            t = t or tb
        rev, tr = (None, False) if e.reverse is None else _obs_guard(e.reverse, tainted)
        dflt, td = (None, False) if e.default is None else _obs_guard(e.default, tainted)
        return EKeyed(e.kind, it, key, rev, dflt, line=ln), t or tr or td
    raise ObservationError(f"`{type(e).__name__}` in an observation is not modelled")


def compile_observation(expr: ast.expr, var: str = OBS_VAR) -> Observation:
    """Compile a Python expression whose only free name is ``var`` (the result of the function
    under test; every other operand a literal) into an :class:`Observation`.  Raises
    :class:`ObservationError` with the reason when it is outside the spec language or applies an
    operation to the result that is not sound on its ``==``-class."""
    p = _Parser("", "<observation>")
    p.scope = _Scope({var: _OBS_BINDER})
    try:
        with _deep_stack():
            ir = p.expr(expr)
    except SpecError as e:
        msg = str(e).split(": ", 1)[-1] if str(e).startswith("<observation>") else str(e)
        raise ObservationError(msg.split("\n")[0], unsound=False) from None
    except RecursionError:
        raise ObservationError("expression nested too deeply", unsound=False) from None
    ir, tainted = _obs_guard(ir, frozenset([_OBS_BINDER]))
    if not tainted:
        raise ObservationError("the expression does not use the result")
    term = _Emitter(DEFAULT_FUEL).gen(ir, lambda t: f"(Py.ret {t})")
    return Observation(ast.unparse(expr), f"(fun {_OBS_BINDER} => Py.obsHolds {term})", ir)


def observation_value(text: str) -> str:
    """The Lean ``Val → Option Res`` evaluating expression ``text`` over the result (the same
    compilation and guards as :func:`observation`, without ``Py.obsHolds``): the observed value
    itself, for ``Py.obsOut`` (:mod:`specguard.kernel.obstwins`)."""
    lean = observation(text).lean
    head = f"(fun {_OBS_BINDER} => Py.obsHolds "
    assert lean.startswith(head) and lean.endswith(")")
    return f"(fun {_OBS_BINDER} => {lean[len(head):-1]})"


_OBS_CACHE: dict[str, Observation] = {}


def observation(text: str) -> Observation:
    """:func:`compile_observation` of SpecGuard's own rendering ``text`` of an expression (the
    text is parsed with :mod:`ast`, never run); cached."""
    o = _OBS_CACHE.get(text)
    if o is None:
        try:
            node = ast.parse(text, mode="eval").body
        except SyntaxError as e:
            raise ObservationError(f"not an expression: {e.msg}", unsound=False) from None
        o = _OBS_CACHE[text] = compile_observation(node)
        if len(_OBS_CACHE) > 4096:
            _OBS_CACHE.clear()
    return o


def m_ordered(x):
    if type(x) in (dict, set) or isinstance(x, Opaque) and x.kind in ("dict", "set"):
        raise _U("the order of a dict or set derived from the result")
    return x


def m_fexact(x):
    if type(x) is int and abs(x) > 2 ** 53:
        raise _U("an int beyond 2**53 derived from the result (a float of it may round)")
    return x


def m_sum_exact(v, start):
    items = m_iter_u(v)
    if sum(abs(x) for x in [start, *items] if type(x) is int) > 2 ** 53:
        raise _U("a sum beyond 2**53 derived from the result (a float sum may round)")
    return m_sum(v, start)


MIRROR_OPS.update({"Py.ordered": m_ordered, "Py.fexact": m_fexact, "Py.sumExact": m_sum_exact})
