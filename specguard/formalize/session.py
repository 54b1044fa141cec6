"""Doctest sessions: a docstring's examples are one Python session, read in order (issue 12, item 1).

:mod:`specguard.formalize.description` reads each ``>>>`` line; this module keeps what the session
has done so far, with Python's semantics:

* **bindings** ``xs = [1, 2]``: the exact value (``Session.env``), until rebound, or passed to the
  function or mutated (a mutable value);
* **results** ``r = f(x)``, ``a, b = f(x)``, ``(h,), t = f(x)``: later lines observing ``r`` (or a
  part) are observations of that one call: ``r`` is the term ``R`` (the result), the part ``b`` of
  ``a, b = f(x)`` the term ``list(R)[1]`` (unpacking iterates: this is what it binds whatever the
  result's type).  A result name is used once, unless it was shown as plain data (a literal
  output): an iterator is consumed by what reads it, so a second read may see something else.  A
  result name mentioned by a line that is not read as an observation (passed to a call, mutated,
  aliased, iterated by a loop) is no longer a term of the call;
* **functions** ``g = lambda x: ...``, ``def g(...)``, ``h = len``: a session function whose body
  can change nothing outside it keeps the session clean (see :func:`state_change`); one that is
  *closed* (it reads only its parameters, locals and pure builtins) is a named constant, one
  object per evaluation (:func:`function_value`, keys like the test side's);
* **state**: a statement that may change state the function (or a later argument) depends on ends
  the session's examples as requirements, with the reason and line: a call of anything but the
  function, a pure builtin or a session function with a clean body (unknown code may patch the
  function's module, change a locale, mutate a shared object), a method call on something that is
  not an immutable value or a session-owned value, an attribute or item write to anything else,
  an import of a module outside :data:`PURE_IMPORTS`, ``global``, ``with``, ``while``, ``try``,
  ``class``, decorators.
"""

from __future__ import annotations

import ast
import builtins
from dataclasses import dataclass, field

from specguard.formalize.tests import _PURE_BUILTINS
from specguard.models import Call
from specguard.python.literals import is_mutable
from specguard.python.values import FUNCTION, V

__all__ = ["Session", "Result", "state_change", "PURE_IMPORTS", "SAFE_CALLS"]

# calls that run no code but the dunder methods of their (plain or session) arguments and change
# nothing but what the session's own output shows (``print`` writes stdout only: no ``file=``)
SAFE_CALLS = frozenset(_PURE_BUILTINS - {"iter", "next"}) | {"print", "hash"}
# modules whose import runs no code that could change what the function under test sees
PURE_IMPORTS = frozenset({
    "itertools", "operator", "functools", "math", "cmath", "fractions", "decimal", "string", "re",
    "collections", "datetime", "typing", "statistics", "heapq", "bisect", "textwrap", "keyword", "numbers",
    "copy", "pprint", "json", "enum", "dataclasses", "abc", "types", "unicodedata", "array", "struct",
    "calendar", "zlib", "binascii", "base64", "hashlib", "io", "os", "posixpath", "ntpath", "sys",
    "__future__"})
_IMMUTABLE_KINDS = ("str", "bytes", "int", "bool", "float", "none")
_BLOCKS = {ast.Global: "`global`", ast.Nonlocal: "`nonlocal`", ast.With: "a `with` block",
           ast.AsyncWith: "a `with` block", ast.While: "a `while` loop", ast.Try: "a `try` block",
           ast.ClassDef: "a class definition", ast.AsyncFunctionDef: "an async function",
           ast.AsyncFor: "an async loop", ast.Match: "a `match` statement", ast.Await: "`await`",
           ast.Yield: "`yield`", ast.YieldFrom: "`yield`"}
if hasattr(ast, "TryStar"):
    _BLOCKS[ast.TryStar] = "a `try` block"


@dataclass
class Result:
    """A name bound to (a part of) the result of one call of the function under test."""

    call: Call | None              # None: the call's arguments are not exact (``why``)
    why: str
    path: tuple[int, ...]          # unpacking indices: ``(1,)`` is ``list(R)[1]``
    line: int                      # the binding line (0-based): one evaluation of the call
    plain: bool = False            # shown as plain data: reading it does not consume it
    used: bool = False             # read once already (a second read may see a consumed iterator)
    invalid: str | None = None     # no longer a term of the call (the reason)

    def term(self, var: ast.expr) -> ast.expr:
        """The expression over the result ``var`` this name denotes."""
        node = var
        for i in self.path:
            node = ast.Subscript(ast.Call(ast.Name("list", ast.Load()), [node], []), ast.Constant(i), ast.Load())
        return node

    def usable(self) -> str | None:
        if self.invalid is not None:
            return self.invalid
        if self.call is None:
            return self.why
        if self.used and not self.plain:
            return "it was read before and may be an iterator (a second read may see it consumed)"
        return None


@dataclass
class Session:
    """What one doctest session has done so far (see the module docstring)."""

    target: str | None
    own: frozenset[str] = frozenset()     # top-level packages of the library the docstring belongs to
    env: dict[str, V] = field(default_factory=dict)
    results: dict[str, Result] = field(default_factory=dict)
    functions: set[str] = field(default_factory=set)          # names of session functions, clean bodies
    values: dict[str, V] = field(default_factory=dict)        # names bound to function values
    shadowed: set[str] = field(default_factory=set)           # names the session bound to anything
    changed: tuple[int, str] | None = None                    # first line that may change state, why
    lambdas: int = 0

    # -- names ---------------------------------------------------------------------------
    def builtin(self, name: str) -> bool:
        """``name`` still denotes Python's builtin in this session."""
        return name not in self.shadowed and name != self.target and hasattr(builtins, name)

    def forget(self, names: set[str], why: str) -> None:
        """``names`` are (re)bound or may be changed: drop what is known about them."""
        for n in names:
            self.env.pop(n, None)
            self.values.pop(n, None)
            self.functions.discard(n)
            r = self.results.get(n)
            if r is not None and r.invalid is None:
                r.invalid = why
        self.shadowed |= names

    def literal_env(self) -> dict[str, V]:
        """Names with exact values: literals and function values."""
        return {**self.values, **self.env}

    def value_of_function(self, node: ast.expr, path: str, line: int) -> V | None:
        """The named constant ``node`` evaluates to when it is a function value: a pure builtin by
        name (the test side's key), a closed lambda (a new object per evaluation; its key names
        the docstring, so it is never the same object as any test's)."""
        if isinstance(node, ast.Name) and node.id in _PURE_BUILTINS and self.builtin(node.id):
            return V(FUNCTION, (f"builtin:{node.id}", node.id))
        if isinstance(node, ast.Name) and node.id in self.values:
            return self.values[node.id]
        if isinstance(node, ast.Lambda) and self.closed(node.args, [node.body]):
            self.lambdas += 1
            return V(FUNCTION, (f"doctest-lambda:{path}:{line}:{node.col_offset}#{self.lambdas}",
                                f"<lambda at line {line}>"))
        return None

    def closed(self, args: ast.arguments, body: list[ast.AST]) -> bool:
        """The function reads nothing but its parameters, its locals and pure builtins (so what it
        returns cannot change between calls); no defaults, globals, yields, classes, decorators."""
        if args.defaults or any(d is not None for d in args.kw_defaults):
            return False
        bound = {a.arg for a in args.posonlyargs + args.args + args.kwonlyargs + [args.vararg, args.kwarg]
                 if a is not None}
        loads: set[str] = set()
        for node in body:
            for n in ast.walk(node):
                if isinstance(n, (ast.Global, ast.Nonlocal, ast.Yield, ast.YieldFrom, ast.Await, ast.ClassDef)):
                    return False
                if isinstance(n, (ast.FunctionDef, ast.AsyncFunctionDef, ast.Lambda)):
                    if getattr(n, "decorator_list", None):
                        return False
                    bound |= {a.arg for a in n.args.posonlyargs + n.args.args + n.args.kwonlyargs
                              + [n.args.vararg, n.args.kwarg] if a is not None}
                    if not isinstance(n, ast.Lambda):
                        bound.add(n.name)
                elif isinstance(n, ast.Name):
                    (loads if isinstance(n.ctx, ast.Load) else bound).add(n.id)
        return all(x in bound or (x in _PURE_BUILTINS and self.builtin(x)) for x in loads)

    def invalidate_results(self, names: set[str], why: str) -> None:
        for n in names:
            r = self.results.get(n)
            if r is not None and r.invalid is None:
                r.invalid = why


# =====================================================================================
# what a statement may change
# =====================================================================================

def _params(args: ast.arguments) -> set[str]:
    return {a.arg for a in args.posonlyargs + args.args + args.kwonlyargs + [args.vararg, args.kwarg] if a is not None}


def _root(node: ast.expr) -> str | None:
    while isinstance(node, (ast.Attribute, ast.Subscript)):
        node = node.value
    return node.id if isinstance(node, ast.Name) else None


class _Checker:
    """Walks one statement: the first thing that may change state (a reason), and the session
    names it may mutate (``mutated``: their values are forgotten, nothing else changes)."""

    def __init__(self, sess: Session) -> None:
        self.sess = sess
        self.mutated: set[str] = set()

    def owned(self, name: str, local: set[str]) -> bool:
        """A value only the session holds: a name bound to a literal or to a result (its
        mutation changes nothing the function sees), or a local of a session function."""
        return name in local or name in self.sess.env or name in self.sess.results

    def immutable(self, name: str) -> bool:
        v = self.sess.env.get(name)
        return v is not None and v.kind in _IMMUTABLE_KINDS

    def stmt(self, st: ast.stmt, local: set[str] | None = None) -> str | None:
        for kind, what in _BLOCKS.items():
            if isinstance(st, kind):
                return what
        if isinstance(st, (ast.Import, ast.ImportFrom)):
            return None if local is None else "an import inside a function"
        if isinstance(st, ast.FunctionDef):
            if st.decorator_list:
                return f"the decorated definition of `{st.name}` (a decorator runs code)"
            why = self.exprs(st.args.defaults + [d for d in st.args.kw_defaults if d is not None], local)
            return why or self.body(st.body, st.args)
        if isinstance(st, ast.For):
            why = self.expr(st.iter, local)
            for s in st.body + st.orelse:
                why = why or self.stmt(s, local)
            return why or self.stores(st.target, local)
        if isinstance(st, ast.Delete):
            return self.stores_all(st.targets, local)
        if isinstance(st, (ast.Assign, ast.AugAssign, ast.AnnAssign)):
            value = st.value
            why = self.expr(value, local) if value is not None else None
            targets = st.targets if isinstance(st, ast.Assign) else [st.target]
            return why or self.stores_all(targets, local)
        if isinstance(st, (ast.Expr, ast.Return)):
            return self.expr(st.value, local) if st.value is not None else None
        if isinstance(st, ast.If):
            why = self.expr(st.test, local)
            for s in st.body + st.orelse:
                why = why or self.stmt(s, local)
            return why
        if isinstance(st, (ast.Pass, ast.Break, ast.Continue)):
            return None
        if isinstance(st, ast.Raise):
            return self.exprs([x for x in (st.exc, st.cause) if x is not None], local)
        if isinstance(st, ast.Assert):
            return self.exprs([x for x in (st.test, st.msg) if x is not None], local)
        return f"a `{type(st).__name__}` statement"

    def body(self, body: list[ast.stmt], args: ast.arguments) -> str | None:
        """A function body (it runs when the function is called, maybe by the function under test)."""
        local = _params(args)
        for n in body:
            for m in ast.walk(n):
                if isinstance(m, ast.Name) and not isinstance(m.ctx, ast.Load):
                    local.add(m.id)
                elif isinstance(m, (ast.FunctionDef, ast.Lambda)):
                    local |= _params(m.args) | ({m.name} if isinstance(m, ast.FunctionDef) else set())
        for s in body:
            why = self.stmt(s, local)
            if why:
                return why
        return None

    def stores_all(self, targets: list[ast.expr], local: set[str] | None) -> str | None:
        for t in targets:
            why = self.stores(t, local)
            if why:
                return why
        return None

    def stores(self, t: ast.expr, local: set[str] | None) -> str | None:
        if isinstance(t, ast.Name):
            return None
        if isinstance(t, (ast.Tuple, ast.List)):
            return self.stores_all(list(t.elts), local)
        if isinstance(t, ast.Starred):
            return self.stores(t.value, local)
        if isinstance(t, (ast.Attribute, ast.Subscript)):
            why = self.expr(t.slice, local) if isinstance(t, ast.Subscript) else None
            root = _root(t)
            if why is None and root is not None and self.owned(root, local or set()):
                if local is None or root not in local:
                    self.mutated.add(root)
                return None
            return why or f"the write to `{_short(t)}` (it may change an object the function uses)"
        return f"a store to `{_short(t)}`"

    def exprs(self, nodes: list[ast.expr], local: set[str] | None) -> str | None:
        for n in nodes:
            why = self.expr(n, local)
            if why:
                return why
        return None

    def expr(self, node: ast.expr, local: set[str] | None) -> str | None:
        loc = local or set()
        for n in ast.walk(node):
            if isinstance(n, (ast.Yield, ast.YieldFrom, ast.Await)):
                return _BLOCKS[type(n)]
            if isinstance(n, ast.NamedExpr):
                return "an assignment expression (`:=`)"
            if isinstance(n, ast.Lambda):
                why = self.body([ast.Return(n.body)], n.args)
                if why:
                    return why
            if isinstance(n, ast.Call):
                why = self.call(n, loc, local is not None)
                if why:
                    return why
        return None

    def call(self, n: ast.Call, local: set[str], in_function: bool) -> str | None:
        f, sess = n.func, self.sess
        if isinstance(f, ast.Name):
            if f.id == sess.target or f.id in sess.functions or f.id in local:
                return None                       # the function (no hidden state: an assumption), or ours
            if f.id in SAFE_CALLS and sess.builtin(f.id):
                if f.id == "print" and any(k.arg == "file" for k in n.keywords):
                    return "`print(..., file=...)` (it writes to an object the session holds)"
                return None
            return f"the call of `{f.id}` (unknown code may change what the function sees)"
        if isinstance(f, ast.Attribute):
            recv = f.value
            if isinstance(recv, ast.Constant) and isinstance(recv.value, (str, bytes, int, float)):
                return None                       # a method of an immutable constant
            root = recv.id if isinstance(recv, ast.Name) else None
            if root is not None and (self.immutable(root) or root in local):
                return None
            if root is not None and not in_function and (root in sess.env or root in sess.results):
                self.mutated.add(root)            # a method of a value only the session holds
                return None
            return f"the call of `{_short(f)}` (it may change an object the function uses)"
        return f"the call of `{_short(f)}`"


def state_change(stmt: ast.stmt, sess: Session) -> tuple[str | None, set[str]]:
    """Why ``stmt`` may change state that later examples depend on (None: it cannot), and the
    session names whose values it may mutate (forgotten by the caller)."""
    if isinstance(stmt, (ast.Import, ast.ImportFrom)):
        mod = stmt.module if isinstance(stmt, ast.ImportFrom) else None
        names = [mod] if isinstance(stmt, ast.ImportFrom) else [a.name for a in stmt.names]
        if isinstance(stmt, ast.ImportFrom) and (stmt.level or mod is None):
            return "a relative import (it may run code of the library)", set()
        if isinstance(stmt, ast.ImportFrom) and sess.target and \
                all(a.name == sess.target for a in stmt.names):
            return None, set()                    # imports the function itself
        for m in names:
            if m.split(".")[0] not in PURE_IMPORTS | sess.own:
                return f"the import of `{m}` (importing a module may run its code)", set()
        return None, set()
    c = _Checker(sess)
    why = c.stmt(stmt)
    return why, c.mutated


def clean_function(fn: ast.FunctionDef, sess: Session) -> bool:
    """A session ``def`` whose defaults and body change nothing outside it when run."""
    c = _Checker(sess)
    return c.stmt(fn) is None and not c.mutated


def clean_lambda(fn: ast.Lambda, sess: Session) -> bool:
    c = _Checker(sess)
    return c.expr(fn, None) is None and not c.mutated


def _short(node: ast.AST, limit: int = 40) -> str:
    try:
        s = ast.unparse(node)
    except Exception:       # noqa: BLE001 - only for a message
        s = type(node).__name__
    return s if len(s) <= limit else s[: limit - 3] + "..."


def mutable_names(node: ast.AST, sess: Session) -> set[str]:
    """Session names holding mutable values that ``node`` mentions."""
    return {n.id for n in ast.walk(node) if isinstance(n, ast.Name) and n.id in sess.env and is_mutable(sess.env[n.id])}
