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

from specguard.formalize.aliasing import param_names as _params
from specguard.models import Call
from specguard.python.literals import is_mutable
from specguard.python.values import FUNCTION, V
from specguard.python.purity import BUILTIN_TYPES, PURE_BUILTINS, builtin_key, is_exception_class as _is_exception_class
from specguard.python.terms import snippet

__all__ = ["Session", "Result", "state_change", "PURE_IMPORTS", "SAFE_CALLS"]

# calls that run no code but the dunder methods of their (plain or session) arguments and change
# nothing but what the session's own output shows (``print`` writes stdout only: no ``file=``)
SAFE_CALLS = frozenset(PURE_BUILTINS - {"iter", "next"}) | {"print", "hash"}
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
    modules: dict[str, str] = field(default_factory=dict)     # name -> what a pure import bound it to
    opaque: set[str] = field(default_factory=set)             # names of new objects only the session holds
    displays: set[str] = field(default_factory=set)           # env names bound by a display of constants

    def qual(self, node: ast.expr) -> str | None:
        """The dotted name ``node`` denotes through the session's imports (``dt.timedelta`` after
        ``import datetime as dt``: ``datetime.timedelta``), else None."""
        if isinstance(node, ast.Name):
            return self.modules.get(node.id)
        if isinstance(node, ast.Attribute):
            base = self.qual(node.value)
            return f"{base}.{node.attr}" if base else None
        return None

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
            self.modules.pop(n, None)
            self.opaque.discard(n)
            self.displays.discard(n)
            r = self.results.get(n)
            if r is not None and r.invalid is None:
                r.invalid = why
        self.shadowed |= names

    def rebind(self, names: set[str]) -> None:
        """``names`` are bound anew (a literal, a function, an import): what they denoted before,
        a result of the function included, is gone."""
        self.forget(names, "rebound")
        for n in names:
            self.results.pop(n, None)

    def lose_values(self, names: set[str], why: str) -> None:
        """``names`` may have been changed in place (a method, passed to the function): their values
        are no longer known, but they still denote objects only the session holds."""
        if any(n in self.env and is_mutable(self.env[n]) or n not in self.env for n in names):
            # aliases are not tracked (`ys = xs`, `ys = [xs]`): any mutable value may be the changed object
            names = set(names) | {n for n, v in self.env.items() if is_mutable(v)}
        owned = {n for n in names if n in self.env or n in self.results or n in self.opaque}
        self.forget(names, why)
        self.opaque |= owned

    def literal_env(self) -> dict[str, V]:
        """Names with exact values: literals and function values."""
        return {**self.values, **self.env}

    def value_of_function(self, node: ast.expr, path: str, line: int) -> V | None:
        """The named constant ``node`` evaluates to when it is a function value: a pure builtin by
        name (the test side's key), a closed lambda (a new object per evaluation; its key names
        the docstring, so it is never the same object as any test's)."""
        if isinstance(node, ast.Name) and (node.id in PURE_BUILTINS or _is_exception_class(node.id)) \
                and self.builtin(node.id):
            key = builtin_key(node.id)
            return V(FUNCTION, (key, key[len("builtin:"):]))
        if isinstance(node, ast.Attribute) and isinstance(node.value, ast.Name) and node.value.id in BUILTIN_TYPES \
                and self.builtin(node.value.id) and not node.attr.startswith("_"):
            t = BUILTIN_TYPES[node.value.id]          # `str.lower`: the method object of a builtin type
            attr = t.__dict__.get(node.attr)
            if attr is not None and callable(getattr(t, node.attr)):
                name = f"{node.value.id}.{node.attr}"
                return V(FUNCTION, (f"builtin:{name}", name))
        if isinstance(node, ast.Name) and node.id in self.values:
            return self.values[node.id]
        q = self.qual(node) if isinstance(node, (ast.Name, ast.Attribute)) else None
        if q and q.split(".")[0] in _VALUE_MODULES and pure_function(q):
            return V(FUNCTION, (f"stdlib:{q}", q))     # `from operator import add`: that one object
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
        return all(x in bound or (x in PURE_BUILTINS and self.builtin(x)) for x in loads)

    def invalidate_results(self, names: set[str], why: str) -> None:
        for n in names:
            r = self.results.get(n)
            if r is not None and r.invalid is None:
                r.invalid = why


# =====================================================================================
# what a statement may change
# =====================================================================================

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
        self.loop_names: set[str] = set()
        self.fresh_locals: set[str] = set()   # locals of a session function only ever bound to new containers

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
            why = self.expr(st.iter, local) or self.names_known(st.iter, local or set())
            targets = {t.id for t in ast.walk(st.target) if isinstance(t, ast.Name)}
            self.loop_names |= targets            # the iterated values: what the iterable holds
            for s in st.body + st.orelse:
                why = why or self.stmt(s, local)
            return why or self.stores(st.target, local)
        if isinstance(st, ast.Delete):
            return self.stores_all(st.targets, local)
        if isinstance(st, (ast.Assign, ast.AugAssign, ast.AnnAssign)):
            value = st.value
            why = self.expr(value, local) if value is not None else None
            targets = st.targets if isinstance(st, ast.Assign) else [st.target]
            if isinstance(st, ast.AugAssign) and isinstance(st.target, ast.Name) and local is None \
                    and (st.target.id in self.sess.opaque or st.target.id in self.sess.env
                         and is_mutable(self.sess.env[st.target.id])):
                self.mutated.add(st.target.id)    # `ys += [2]` changes the list in place (and its aliases)
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

    def body(self, body: list[ast.stmt], args: ast.arguments, outer: set[str] | None = None) -> str | None:
        """A function body (it runs when the function is called, maybe by the function under test)."""
        local = _params(args) | (outer or set())
        for n in body:
            for m in ast.walk(n):
                if isinstance(m, ast.Name) and not isinstance(m.ctx, ast.Load):
                    local.add(m.id)
                elif isinstance(m, (ast.FunctionDef, ast.Lambda)):
                    local |= _params(m.args) | ({m.name} if isinstance(m, ast.FunctionDef) else set())
        self.fresh_locals |= _fresh_locals(body) - _params(args) - (outer or set())
        for s in body:
            why = self.stmt(s, local)
            if why:
                return why
        return None

    def local_change(self, root: str) -> None:
        """A method call on (or a write into) ``root``, a local of a session function, lambda or
        comprehension: unless it only ever holds a new container of that function, it may be an
        object of the session (a parameter, ``for x in [xs]``, an alias): recorded as a name
        outside the session's values, so every mutable value is forgotten (see
        :meth:`Session.lose_values`) and the function is not clean."""
        if root not in self.fresh_locals and not self.immutable(root):
            self.mutated.add(root)

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
                else:
                    self.local_change(root)
                return None
            return why or f"the write to `{snippet(t)}` (it may change an object the function uses)"
        return f"a store to `{snippet(t)}`"

    def exprs(self, nodes: list[ast.expr], local: set[str] | None) -> str | None:
        for n in nodes:
            why = self.expr(n, local)
            if why:
                return why
        return None

    def expr(self, node: ast.expr, local: set[str] | None) -> str | None:
        """The first thing in ``node`` that may change state; lambda bodies and comprehensions are
        walked in their own scope (their parameters and targets are locals)."""
        loc = set(local or ())
        in_function = local is not None
        todo: list[ast.AST] = [node]
        while todo:
            n = todo.pop()
            if isinstance(n, (ast.Yield, ast.YieldFrom, ast.Await)):
                return _BLOCKS[type(n)]
            if isinstance(n, ast.NamedExpr):
                return "an assignment expression (`:=`)"
            if isinstance(n, ast.Lambda):
                why = self.body([ast.Return(n.body)], n.args, outer=loc if in_function else None)
                if why:
                    return why
                todo.extend(n.args.defaults + [d for d in n.args.kw_defaults if d is not None])
                continue
            if isinstance(n, (ast.ListComp, ast.SetComp, ast.GeneratorExp, ast.DictComp)):
                targets = {t.id for g in n.generators for t in ast.walk(g.target) if isinstance(t, ast.Name)}
                inner = [n.elt] if not isinstance(n, ast.DictComp) else [n.key, n.value]
                inner += [x for g in n.generators for x in [g.iter, *g.ifs]]
                for x in inner:
                    why = self.expr(x, loc | targets) if in_function or targets else self.expr(x, None)
                    if why:
                        return why
                continue
            if isinstance(n, ast.Call):
                why = self.call(n, loc, in_function)
                if why:
                    return why
            todo.extend(ast.iter_child_nodes(n))
        return None

    def call(self, n: ast.Call, local: set[str], in_function: bool) -> str | None:
        why = self.callee(n, local, in_function)
        return why or self.arguments(n, local)

    def arguments(self, n: ast.Call, local: set[str]) -> str | None:
        """A name passed to a call may be called (a callback) or have its special methods run
        (``print(x)``, ``sorted(xs)``): it must be something whose code is known to change nothing.
        A bound method passed (``key=xs.append``) may change its object when called."""
        for a in list(n.args) + [k.value for k in n.keywords]:
            why = self.names_known(a, local) or self.bound_methods(a, local)
            if why:
                return why
        return None

    def bound_methods(self, a: ast.expr, local: set[str]) -> str | None:
        """``a`` is (or holds) an attribute of a non-module value: maybe a bound method passed as
        a callback, which may change its object when the callee calls it."""
        for x in ast.walk(a):
            if not isinstance(x, ast.Attribute) or not isinstance(x.ctx, ast.Load):
                continue
            if isinstance(x.value, ast.Name) and x.value.id in self.sess.modules:
                continue                          # a module's attribute: checked by names_known
            if isinstance(x.value, ast.Constant):
                continue                          # a method of an immutable constant
            root = _root(x)
            if root is not None and root in local:
                continue
            if root is not None and self.session_owned(root) and not self.immutable(root):
                self.mutated.add(root)            # the callee may call it: the value is no longer known
                continue
            if root is not None and self.immutable(root):
                continue
            return f"`{snippet(x)}` passed to a call (a bound method may change its object)"
        return None

    def names_known(self, a: ast.expr, local: set[str]) -> str | None:
        inner = {x.id for x in ast.walk(a) if isinstance(x, ast.Name) and not isinstance(x.ctx, ast.Load)}
        roots = set()
        for x in ast.walk(a):
            if isinstance(x, ast.Lambda):
                inner |= _params(x.args)
            if isinstance(x, ast.Attribute) and isinstance(x.value, ast.Name):
                q = self.sess.modules.get(x.value.id)
                if q and q.split(".")[0] in PURE_IMPORTS:
                    roots.add(x.value.id)         # `string.hexdigits`, `timezone.utc`: a value of a pure module
        for x in ast.walk(a):
            if isinstance(x, ast.Name) and isinstance(x.ctx, ast.Load) and x.id not in inner | roots \
                    and not self.known(x.id, local):
                return f"`{x.id}` passed to a call (its code may run and change what the function sees)"
        return None

    def known(self, name: str, local: set[str]) -> bool:
        s = self.sess
        if name in local or name in self.loop_names or name == s.target or name in s.env or name in s.results \
                or name in s.opaque \
                or name in s.functions or name in s.values:
            return True
        if name in s.modules:
            return pure_function(s.modules[name])
        return s.builtin(name) and (name in SAFE_CALLS or name in PURE_BUILTINS or _is_exception_class(name)
                                    or name in ("None", "True", "False", "NotImplemented", "Ellipsis"))

    def callee(self, n: ast.Call, local: set[str], in_function: bool) -> str | None:
        f, sess = n.func, self.sess
        if isinstance(f, ast.Name):
            if f.id == sess.target or f.id in sess.functions or f.id in local:
                return None                       # the function (no hidden state: an assumption), or ours
            if f.id in SAFE_CALLS and sess.builtin(f.id):
                if f.id == "print" and any(k.arg == "file" for k in n.keywords):
                    return "`print(..., file=...)` (it writes to an object the session holds)"
                return None
            if f.id in ("iter", "next") and sess.builtin(f.id) and n.args:
                return self.advance(n.args[0], local, in_function, f.id)
            if sess.builtin(f.id) and _is_exception_class(f.id):
                return None
            if pure_function(sess.qual(f)):
                return None
            return f"the call of `{f.id}` (unknown code may change what the function sees)"
        if isinstance(f, ast.Attribute):
            if pure_function(sess.qual(f)):
                return None
            recv = f.value
            if isinstance(recv, ast.Constant) and isinstance(recv.value, (str, bytes, int, float)):
                return None                       # a method of an immutable constant
            if isinstance(recv, ast.Call) and self.fresh(recv, local):
                return None                       # a method of a new object (it can change only that object)
            root = recv.id if isinstance(recv, ast.Name) else None
            if root is not None and (self.immutable(root) or root in local):
                self.local_change(root)
                return None
            if root is not None and not in_function and self.session_owned(root):
                self.mutated.add(root)            # a method of a value only the session holds
                return None
            return f"the call of `{snippet(f)}` (it may change an object the function uses)"
        return f"the call of `{snippet(f)}`"

    def advance(self, arg: ast.expr, local: set[str], in_function: bool, name: str) -> str | None:
        """``iter(x)`` / ``next(x)``: changes only ``x`` (when the session owns it)."""
        if isinstance(arg, ast.Name) and (arg.id in local or not in_function and self.session_owned(arg.id)):
            if arg.id not in local:
                self.mutated.add(arg.id)
            return None
        if name == "iter" and not isinstance(arg, ast.Name):
            return None                       # iter(<expression>): a new iterator over a new value
        return f"`{name}({snippet(arg)})` (it advances an iterator the session may share)"

    def session_owned(self, name: str) -> bool:
        s = self.sess
        return name in s.env or name in s.results or name in s.opaque

    def fresh(self, node: ast.Call, local: set[str]) -> bool:
        """A call whose result is a new object: a pure function or builtin of exact arguments."""
        f = node.func
        if isinstance(f, ast.Name) and f.id in local:
            return False
        if isinstance(f, ast.Name) and f.id in SAFE_CALLS and self.sess.builtin(f.id):
            return True
        return pure_function(self.sess.qual(f))


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


# stdlib callables that change no state when called (they build new objects or compute values);
# a module in _PURE_MODULES: every public callable of it, but the ones in _IMPURE
_PURE_MODULES = frozenset({"math", "cmath", "itertools", "string", "statistics", "operator", "unicodedata",
                           "textwrap", "keyword", "fractions", "decimal", "binascii", "base64", "zlib", "hashlib",
                           "calendar", "heapq", "bisect", "json", "re", "copy", "os.path", "posixpath", "ntpath",
                           "datetime", "collections", "functools"})
_IMPURE = frozenset({"operator.setitem", "operator.delitem", "operator.iadd", "operator.isub", "operator.imul",
                     "operator.iconcat", "operator.ior", "operator.iand", "operator.ixor", "operator.ilshift",
                     "operator.irshift", "operator.imod", "operator.ipow", "operator.itruediv",
                     "operator.ifloordiv", "operator.imatmul", "heapq.heappush", "heapq.heappop",
                     "heapq.heapify", "heapq.heapreplace", "heapq.heappushpop", "bisect.insort",
                     "bisect.insort_left", "bisect.insort_right", "re.purge", "decimal.setcontext",
                     "decimal.getcontext", "decimal.localcontext", "functools.update_wrapper", "functools.wraps",
                     "functools.lru_cache", "functools.cache", "functools.singledispatch",
                     "functools.cached_property", "functools.total_ordering", "json.dump", "json.load",
                     "calendar.setfirstweekday", "os.path.exists", "os.path.isfile", "os.path.isdir"})


# modules whose functions are function values by name (what they return depends on their arguments only)
_VALUE_MODULES = frozenset({"operator", "math"})


def pure_function(q: str | None) -> bool:
    """Whether the dotted name ``q`` is a stdlib callable whose call changes no state."""
    if not q or q in _IMPURE or any(part.startswith("_") for part in q.split(".")):
        return False
    return any(q.startswith(m + ".") for m in _PURE_MODULES)


def record_import(stmt: ast.Import | ast.ImportFrom, sess: Session) -> set[str]:
    """The names an import binds, recorded with the dotted names they denote."""
    names = set()
    for a in stmt.names:
        if a.name == "*":
            continue
        if isinstance(stmt, ast.Import):
            name = a.asname or a.name.split(".")[0]
            sess.modules[name] = a.name if a.asname else a.name.split(".")[0]
        elif stmt.module and not stmt.level:
            name = a.asname or a.name
            sess.modules[name] = f"{stmt.module}.{a.name}"
        else:
            continue
        names.add(name)
    return names


def owned_expr(node: ast.expr, sess: Session) -> bool:
    """Every name ``node`` reads is the session's own (a literal, result, function, new object,
    import) or a builtin: its value is a new object or one of those."""
    local = {n.id for n in ast.walk(node) if isinstance(n, ast.Name) and not isinstance(n.ctx, ast.Load)}
    for n in ast.walk(node):
        if isinstance(n, ast.Lambda):
            local |= _params(n.args)
    for n in ast.walk(node):
        if isinstance(n, ast.Name) and isinstance(n.ctx, ast.Load) and n.id not in local:
            if not (n.id in sess.env or n.id in sess.results or n.id in sess.opaque or n.id in sess.functions
                    or n.id in sess.values or n.id in sess.modules or sess.builtin(n.id)):
                return False
    return True


_NEW_CONTAINERS = (ast.List, ast.Dict, ast.Set, ast.ListComp, ast.DictComp, ast.SetComp)


def _fresh_locals(body: list[ast.stmt]) -> set[str]:
    """Names every binding of which in ``body`` is a plain ``name = <display or comprehension>``:
    each holds a new container of the function, no object it was given."""
    fresh: set[str] = set()
    other: set[str] = set()
    for n in ast.walk(ast.Module(body=body, type_ignores=[])):
        if isinstance(n, ast.Assign) and len(n.targets) == 1 and isinstance(n.targets[0], ast.Name) \
                and isinstance(n.value, _NEW_CONTAINERS):
            fresh.add(n.targets[0].id)
            continue
        if isinstance(n, ast.Assign):
            targets = n.targets
        elif isinstance(n, (ast.AugAssign, ast.AnnAssign, ast.For, ast.comprehension, ast.NamedExpr)):
            targets = [n.target]
        elif isinstance(n, ast.withitem) and n.optional_vars is not None:
            targets = [n.optional_vars]
        else:
            targets = []
        other |= {x.id for t in targets for x in ast.walk(t) if isinstance(x, ast.Name)}
    return fresh - other


def clean_function(fn: ast.FunctionDef, sess: Session) -> bool:
    """A session ``def`` whose defaults and body change nothing outside it when run."""
    c = _Checker(sess)
    return c.stmt(fn) is None and not c.mutated


def clean_lambda(fn: ast.Lambda, sess: Session) -> bool:
    c = _Checker(sess)
    return c.expr(fn, None) is None and not c.mutated




def mutable_names(node: ast.AST, sess: Session) -> set[str]:
    """Session names holding mutable values that ``node`` mentions."""
    return {n.id for n in ast.walk(node) if isinstance(n, ast.Name) and n.id in sess.env and is_mutable(sess.env[n.id])}
