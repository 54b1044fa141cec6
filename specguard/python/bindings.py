"""Which binding a name denotes: a symbol table of one scope, in Python's binding semantics.

Test code is read, never run, so "which ``f`` does this call reach?" is answered here, in one place,
from the source alone: :class:`Symbols` lists every binding of every name of a module's top level
(or of a class body), in source order, with whether it surely runs, and the writes it cannot follow
(``globals()[...]``, ``exec``, ``setattr`` on a module, ``global`` rebinding from a function).
Two questions are answered from it:

* :meth:`Symbols.collected`: is this ``def``/``class`` statement the object pytest collects under its
  name?  Pytest collects a module after running it: only the final binding of a name counts (a test
  defined twice runs once, the second; ``test_x = None`` or ``del test_x`` removes it).
* :func:`resolve_entry`: do calls ``name(...)`` made by a test (which runs after the module has run)
  reach the function under test imported from one module?  Only a name bound by importing that
  function (``from m import f``, ``from m import f as g``, ``from m import *``) and never bound to
  anything else (assignment, ``def``, walrus, loop or ``with`` target, ``del``, an import of another
  name, ``global`` writes, dynamic writes) in a way that could reach the test.

Every answer that is not a plain yes carries a reason with the line.  When unsure, the answer is no.
This is the reusable core of the test reader's name resolution (cf. a compiler's binder).
"""

from __future__ import annotations

import ast
from dataclasses import dataclass, field
from typing import Iterable, Iterator

__all__ = ["Binding", "Entry", "Symbols", "resolve_entry", "resolve_module", "scope_bindings", "single_binding_problem"]

_FUNCS = (ast.FunctionDef, ast.AsyncFunctionDef)
_SCOPES = (ast.FunctionDef, ast.AsyncFunctionDef, ast.Lambda, ast.ClassDef)
# calls that may write names of a namespace the table cannot see
_DYNAMIC_CALLS = frozenset({"globals", "vars", "locals", "exec", "eval", "setattr", "delattr"})


@dataclass(frozen=True)
class Binding:
    """One binding of ``name`` in a scope."""

    name: str
    line: int
    kind: str             # import, from, star, def, class, assign, for, with, walrus, del, except, match, global
    conditional: bool     # it may or may not run (in a branch, loop, try, with body, an expression)
    module: str | None = None   # import / from / star: the module
    orig: str | None = None     # from: the imported name
    group: int | None = None    # the ``try`` statement it is in (import fallbacks)
    where: str = ""             # global: the function that writes the name

    def describe(self) -> str:
        if self.kind == "from":
            return f"`from {self.module} import {self.orig}" + \
                   (f" as {self.name}`" if self.orig != self.name else "`") + f" at line {self.line}"
        if self.kind == "star":
            return f"`from {self.module} import *` at line {self.line}"
        if self.kind == "import":
            return f"`import {self.module}` at line {self.line}"
        if self.kind == "global":
            return f"a `global {self.name}` write in `{self.where}` at line {self.line}"
        what = {"def": "a `def`", "class": "a `class`", "assign": "an assignment", "for": "a `for` target",
                "with": "a `with` target", "walrus": "an `:=` expression", "del": "a `del`",
                "except": "an `except ... as` name", "match": "a `match` capture"}.get(self.kind, self.kind)
        return f"{what} at line {self.line}"


@dataclass
class Symbols:
    """Bindings of one scope's names in source order; ``stars``: its ``import *``; ``dynamic``:
    writes it cannot follow, as (line, what, name or None when any name may be written)."""

    bindings: dict[str, list[Binding]] = field(default_factory=dict)
    stars: list[Binding] = field(default_factory=list)
    dynamic: list[tuple[int, str, str | None]] = field(default_factory=list)

    @classmethod
    def of_module(cls, tree: ast.Module) -> "Symbols":
        sym = cls()
        _Builder(sym).body(tree.body, False, None)
        sym._functions(tree)
        return sym

    @classmethod
    def of_class(cls, node: ast.ClassDef) -> "Symbols":
        sym = cls()
        _Builder(sym).body(node.body, False, None)
        return sym

    def add(self, b: Binding) -> None:
        (self.stars if b.kind == "star" else self.bindings.setdefault(b.name, [])).append(b)

    def of(self, name: str) -> list[Binding]:
        return self.bindings.get(name, [])

    def unknown_writes(self, name: str | None = None) -> tuple[int, str] | None:
        """The first dynamic write that may bind ``name`` (any name when None)."""
        for line, what, n in self.dynamic:
            if n is None or name is None or n == name:
                return line, what
        return None

    # -- collection ----------------------------------------------------------------------
    def collected(self, node: ast.stmt, name: str) -> str | None:
        """None when the ``def``/``class`` statement ``node`` (directly in this scope's body) is
        what ``name`` holds once the scope has run; else why not (pytest collects that only)."""
        dyn = self.unknown_writes(name)
        if dyn is not None:
            return f"`{name}` may be rebound by {dyn[1]} at line {dyn[0]}"
        later = [b for b in self.of(name) if _after(b, node)]
        if later:
            b = next((x for x in later if not x.conditional), later[0])
            verb = "may be rebound" if b.conditional else "is rebound"
            return f"`{name}` {verb} by {b.describe()}; pytest runs only the final binding of a name"
        stars = [s for s in self.stars if s.line > node.lineno]
        if stars:
            return f"`{name}` may be rebound by {stars[0].describe()}"
        return None

    # -- functions (and class bodies) writing module names through `global` ----------------------
    def _functions(self, tree: ast.Module) -> None:
        for fn in ast.walk(tree):     # functions, lambdas and class bodies (a class body runs at import)
            if not isinstance(fn, _FUNCS + (ast.Lambda, ast.ClassDef)):
                continue
            body = fn.body if isinstance(fn.body, list) else [fn.body]
            declared: set[str] = set()
            harmless = _harmless_dynamic_calls(body)
            for n in _walk_scope(body):
                if isinstance(n, ast.Global):
                    declared.update(n.names)
                if id(n) not in harmless:
                    _note_dynamic(self, n, in_function=True)
            if not declared:
                continue
            where = getattr(fn, "name", "<lambda>")
            for name, line in scope_bindings(body):
                if name in declared:
                    self.add(Binding(name, line, "global", True, where=where))


def _after(b: Binding, node: ast.stmt) -> bool:
    return b.line > node.lineno or (b.line == node.lineno and b.kind not in ("def", "class")) \
        or (b.kind == "global")


class _Builder:
    def __init__(self, sym: Symbols) -> None:
        self.sym = sym

    def body(self, stmts: Iterable[ast.stmt], cond: bool, group: int | None) -> None:
        for s in stmts:
            self.stmt(s, cond, group)

    def bind(self, node: ast.AST, kind: str, cond: bool, group: int | None) -> None:
        for name, line in _target_names(node):
            self.sym.add(Binding(name, line, kind, cond, group=group))

    def exprs(self, nodes: Iterable[ast.AST | None], group: int | None) -> None:
        for n in _walk_scope([x for x in nodes if x is not None]):
            if isinstance(n, ast.NamedExpr):
                self.bind(n.target, "walrus", True, group)
            _note_dynamic(self.sym, n, in_function=False)

    def stmt(self, s: ast.stmt, cond: bool, group: int | None) -> None:
        sym = self.sym
        if isinstance(s, ast.Import):
            for a in s.names:
                name = a.asname or a.name.split(".")[0]
                sym.add(Binding(name, s.lineno, "import", cond, module=a.name if a.asname else name, group=group))
        elif isinstance(s, ast.ImportFrom):
            module = "." * s.level + (s.module or "")
            for a in s.names:
                if a.name == "*":
                    sym.add(Binding("*", s.lineno, "star", cond, module=module, group=group))
                else:
                    sym.add(Binding(a.asname or a.name, s.lineno, "from", cond, module=module, orig=a.name,
                                    group=group))
        elif isinstance(s, (*_FUNCS, ast.ClassDef)):
            head: list[ast.AST] = list(s.decorator_list)
            if isinstance(s, ast.ClassDef):
                head += s.bases + [k.value for k in s.keywords]
            else:
                head += s.args.defaults + [d for d in s.args.kw_defaults if d is not None]
            self.exprs(head, group)
            sym.add(Binding(s.name, s.lineno, "class" if isinstance(s, ast.ClassDef) else "def", cond, group=group))
        elif isinstance(s, (ast.Assign, ast.AugAssign, ast.AnnAssign)):
            self.exprs([s.value], group)
            targets = s.targets if isinstance(s, ast.Assign) else [s.target]
            if isinstance(s, ast.AnnAssign) and s.value is None:
                targets = []
            for t in targets:
                self.bind(t, "assign", cond, group)
                self.exprs([t], group)
                _note_store(sym, t)
        elif isinstance(s, ast.Delete):
            for t in s.targets:
                self.bind(t, "del", cond, group)
                self.exprs([t], group)
                _note_store(sym, t)
        elif isinstance(s, (ast.For, ast.AsyncFor)):
            self.exprs([s.iter], group)
            self.bind(s.target, "for", True, group)
            self.body(s.body + s.orelse, True, group)
        elif isinstance(s, ast.While):
            self.exprs([s.test], group)
            self.body(s.body + s.orelse, True, group)
        elif isinstance(s, ast.If):
            self.exprs([s.test], group)
            self.body(s.body + s.orelse, True, group)
        elif isinstance(s, (ast.With, ast.AsyncWith)):
            for it in s.items:
                self.exprs([it.context_expr], group)
                if it.optional_vars is not None:
                    self.bind(it.optional_vars, "with", cond, group)
            self.body(s.body, True, group)
        elif isinstance(s, (ast.Try, getattr(ast, "TryStar", ast.Try))):
            g = id(s)
            self.body(s.body + s.orelse + s.finalbody, True, g)
            for h in s.handlers:
                if h.name:
                    sym.add(Binding(h.name, h.lineno, "except", True, group=g))
                self.body(h.body, True, g)
        elif isinstance(s, ast.Match):
            self.exprs([s.subject], group)
            for case in s.cases:
                for n in ast.walk(case.pattern):
                    name = getattr(n, "name", None) if isinstance(n, (ast.MatchAs, ast.MatchStar)) else \
                        getattr(n, "rest", None) if isinstance(n, ast.MatchMapping) else None
                    if name:
                        sym.add(Binding(name, case.pattern.lineno, "match", True, group=group))
                self.body(case.body, True, group)
        else:
            self.exprs([s], group)


def _target_names(t: ast.AST) -> Iterator[tuple[str, int]]:
    if isinstance(t, ast.Name):
        yield t.id, t.lineno
    elif isinstance(t, (ast.Tuple, ast.List)):
        for e in t.elts:
            yield from _target_names(e)
    elif isinstance(t, ast.Starred):
        yield from _target_names(t.value)


def _walk_scope(nodes: Iterable[ast.AST]) -> Iterator[ast.AST]:
    """Every node of ``nodes`` in their own scope (nested functions, lambdas and classes are
    yielded but not entered; their decorators and defaults are)."""
    stack = list(nodes)
    while stack:
        n = stack.pop()
        yield n
        if isinstance(n, _SCOPES):
            stack.extend(getattr(n, "decorator_list", []))
            if isinstance(n, ast.ClassDef):
                stack.extend(n.bases)
            elif isinstance(n, (*_FUNCS, ast.Lambda)):
                stack.extend(n.args.defaults + [d for d in n.args.kw_defaults if d is not None])
        else:
            stack.extend(ast.iter_child_nodes(n))


def scope_bindings(body: Iterable[ast.AST]) -> Iterator[tuple[str, int]]:
    """(name, line) of every name a function body binds in its own scope."""
    for n in _walk_scope(body):
        if isinstance(n, ast.Name) and isinstance(n.ctx, (ast.Store, ast.Del)):
            yield n.id, n.lineno
        elif isinstance(n, (*_FUNCS, ast.ClassDef)):
            yield n.name, n.lineno
        elif isinstance(n, (ast.Import, ast.ImportFrom)):
            for a in n.names:
                if a.name != "*":
                    yield (a.asname or a.name).split(".")[0], n.lineno
        elif isinstance(n, ast.ExceptHandler) and n.name:
            yield n.name, n.lineno


# names through which exec'd source could reach the test module's namespace
_REACHING_NAMES = _DYNAMIC_CALLS | {"sys", "builtins", "__builtins__", "__import__", "getattr", "importlib",
                                    "inspect", "gc", "types"}


def _harmless_dynamic_calls(body: list[ast.stmt]) -> set[int]:
    """Calls in a function body that read or write no binding of the test module:
    ``vars(x)`` as a statement of its own (its result, ``x.__dict__``, is discarded), and
    ``exec(<string literal>, ns)`` with a namespace of its own (a dict display, or a local name only
    ever bound to one) whose
    source has no import (but ``from __future__``), no ``global``/``nonlocal``, no dunder attribute
    and no name that reaches a module (``sys``, ``builtins``, ``globals``, ``getattr``...)."""
    out: set[int] = set()
    fresh: dict[str, bool] = {}          # a local name only ever bound to a new dict
    for n in _walk_scope(body):
        if isinstance(n, ast.Assign):
            new = isinstance(n.value, ast.Dict) or (isinstance(n.value, ast.Call) and _is_name(n.value.func, "dict")
                                                    and not n.value.args and not n.value.keywords)
            for t in n.targets:
                if isinstance(t, ast.Name):
                    fresh[t.id] = fresh.get(t.id, True) and new
        elif isinstance(n, (ast.AugAssign, ast.AnnAssign, ast.NamedExpr, ast.For, ast.With, ast.Global,
                            ast.Nonlocal, ast.Delete)):
            for t in ast.walk(n):
                if isinstance(t, ast.Name) and isinstance(t.ctx, (ast.Store, ast.Del)):
                    fresh[t.id] = False
            if isinstance(n, (ast.Global, ast.Nonlocal)):
                fresh.update({name: False for name in n.names})
    for n in _walk_scope(body):
        if isinstance(n, ast.Expr) and isinstance(n.value, ast.Call) and _is_name(n.value.func, "vars") \
                and len(n.value.args) == 1 and not n.value.keywords:
            out.add(id(n.value))
        elif isinstance(n, ast.Call) and _is_name(n.func, "exec") and len(n.args) == 2 and not n.keywords \
                and isinstance(n.args[0], ast.Constant) and isinstance(n.args[0].value, str) \
                and (isinstance(n.args[1], ast.Dict) or (isinstance(n.args[1], ast.Name) and fresh.get(n.args[1].id)))\
                and _self_contained_source(n.args[0].value):
            out.add(id(n))
    return out


def _self_contained_source(src: str) -> bool:
    try:
        tree = ast.parse(src)
    except (SyntaxError, ValueError, RecursionError, MemoryError):
        return False
    for m in ast.walk(tree):
        if isinstance(m, (ast.Import, ast.Global, ast.Nonlocal)):
            return False
        if isinstance(m, ast.ImportFrom) and m.module != "__future__":
            return False
        if isinstance(m, ast.Name) and m.id in _REACHING_NAMES:
            return False
        if isinstance(m, ast.Attribute) and m.attr.startswith("__"):
            return False
    return True


def _note_store(sym: Symbols, t: ast.AST) -> None:
    """A store into ``globals()[...]``, ``vars()[...]``, ``sys.modules[...]``, ``X.__dict__[...]``."""
    if isinstance(t, (ast.Tuple, ast.List)):
        for e in t.elts:
            _note_store(sym, e)
        return
    if isinstance(t, ast.Starred):
        return _note_store(sym, t.value)
    if isinstance(t, (ast.Subscript, ast.Attribute)):
        base = t.value
        if isinstance(base, ast.Call) and isinstance(base.func, ast.Name) and base.func.id in _DYNAMIC_CALLS:
            sym.dynamic.append((t.lineno, f"a store into `{base.func.id}()`", None))
        elif isinstance(t, ast.Subscript) and _namespace(base):
            sym.dynamic.append((t.lineno, f"a store into `{_show(base)}`", None))


def _note_dynamic(sym: Symbols, n: ast.AST, *, in_function: bool) -> None:
    """Writes the table cannot follow: ``globals()``, ``vars()``, ``locals()`` (at module level),
    ``exec``/``eval``, ``setattr``/``delattr``, ``sys.modules``, ``__dict__`` and ``__builtins__``."""
    if isinstance(n, ast.Call) and isinstance(n.func, ast.Name) and n.func.id in _DYNAMIC_CALLS:
        name = n.func.id
        if in_function and name in ("locals", "vars") and not n.args:
            return                      # a function's own locals
        if in_function and name in ("setattr", "delattr") and n.args and not _module_like(n.args[0]):
            return                      # an attribute of an object (the test's own business)
        if name in ("setattr", "delattr") and len(n.args) > 1 and isinstance(n.args[1], ast.Constant) \
                and isinstance(n.args[1].value, str):
            # the attribute, and the object it is set on (`setattr(test_a, "__test__", False)`)
            sym.dynamic.append((n.lineno, f"`{name}(...)`", n.args[1].value))
            if isinstance(n.args[0], ast.Name):
                sym.dynamic.append((n.lineno, f"`{name}(...)`", n.args[0].id))
        else:
            sym.dynamic.append((n.lineno, f"`{name}(...)`", None))
    elif isinstance(n, ast.Subscript) and isinstance(n.ctx, (ast.Store, ast.Del)) and _namespace(n.value):
        sym.dynamic.append((n.lineno, f"a store into `{_show(n.value)}`", None))
    elif isinstance(n, ast.Call) and isinstance(n.func, ast.Attribute) and _namespace(n.func.value) \
            and n.func.attr in ("update", "setdefault", "pop", "popitem", "clear", "__setitem__", "__delitem__"):
        sym.dynamic.append((n.lineno, f"`{_show(n.func)}(...)`", None))
    elif isinstance(n, ast.Attribute) and n.attr == "__builtins__":
        sym.dynamic.append((n.lineno, "`__builtins__`", None))
    elif isinstance(n, ast.Name) and n.id == "__builtins__":
        sym.dynamic.append((n.lineno, "`__builtins__`", None))
    elif isinstance(n, ast.Attribute) and isinstance(n.ctx, (ast.Store, ast.Del)) and isinstance(n.value, ast.Name) \
            and not (in_function and n.value.id in ("self", "cls")):
        # `m.f = ...` changes `m.f`; `test_a.__test__ = False` or `test_a.pytestmark = ...` changes
        # whether and how pytest runs `test_a`: both names count as written
        what = f"a store into `{n.value.id}.{n.attr}`"
        sym.dynamic.append((n.lineno, what, n.attr))
        sym.dynamic.append((n.lineno, what, n.value.id))


def _is_name(n: ast.AST, name: str) -> bool:
    return isinstance(n, ast.Name) and n.id == name


def _namespace(n: ast.AST) -> bool:
    """``sys.modules`` or ``X.__dict__``: a mapping whose writes bind names (reading it is harmless)."""
    return isinstance(n, ast.Attribute) and ((n.attr == "modules" and _is_name(n.value, "sys"))
                                             or n.attr == "__dict__")


def _show(n: ast.AST) -> str:
    try:
        return ast.unparse(n)[:40]
    except RecursionError:
        return "..."


def _module_like(n: ast.AST) -> bool:
    """An expression that may be a module or a class of the file (not a local object)."""
    if isinstance(n, ast.Name):
        return n.id not in ("self", "cls", "obj")
    return isinstance(n, (ast.Attribute, ast.Subscript, ast.Call))


# -- the function under test ---------------------------------------------------------------------

@dataclass(frozen=True)
class Entry:
    """How calls ``name(...)`` from a test resolve: ``module`` (None: the name is bound by nothing
    in the file, as when a harness provides it), or ``problem`` why they may not reach the
    function under test."""

    module: str | None = None
    problem: str | None = None


def resolve_entry(sym: Symbols, name: str, target: str) -> Entry:
    """Whether calls ``name(...)`` in a test reach ``target`` as imported from one module."""
    dyn = sym.unknown_writes(name)
    if dyn is not None:
        return Entry(problem=f"`{name}` may be rebound by {dyn[1]} at line {dyn[0]}")
    binds = sym.of(name)
    gw = next((b for b in binds if b.kind == "global"), None)
    if gw is not None:
        return Entry(problem=f"`{name}` may be rebound by {gw.describe()}")
    final = next((b for b in reversed(binds) if not b.conditional), None)
    live = ([final] if final else []) + [b for b in binds if b.conditional and (final is None or b.line > final.line)]
    stars = [s for s in sym.stars if final is None or s.line > final.line]
    for b in live:
        if b.kind != "from":
            return Entry(problem=f"`{name}` is bound by {b.describe()}, not by an import of `{target}`")
        if b.orig != target:
            return Entry(problem=f"`{name}` is `{b.orig}` imported from `{b.module}` ({b.describe()}), "
                                 f"not the function under test `{target}`")
    sources = live + stars
    # every module the file imports the name from, earlier imports included (which of them is the
    # module under test is not known, so two of them make the name ambiguous), and the star imports
    # that could rebind it after its final binding
    imported = [b for b in binds if b.kind == "from"] + stars
    modules = {b.module for b in imported}
    if len(modules) > 1 and not _fallbacks(imported):
        shown = " and ".join(b.describe() for b in imported[:2])
        return Entry(problem=f"`{name}` may come from more than one module ({shown})")
    if final is None and live and not _fallbacks(live):
        return Entry(problem=f"`{name}` is bound only conditionally ({live[0].describe()})")
    if not sources:
        return Entry(module=None)
    return Entry(module=sources[-1].module)


def attribute_write(sym: Symbols, tree: ast.Module, attr: str) -> tuple[int, str] | None:
    """The first statement of a file that may change the attribute ``attr`` of a module for every
    file of the test run (a store ``m.attr = ...``/``del m.attr``, ``setattr(m, "attr", ...)``, a
    ``sys.modules`` write, a patch naming ``"pkg.m.attr"``): one test file imported before another
    changes what the other's ``from m import attr`` binds, and what its ``m.attr(...)`` calls."""
    for line, what, n in sym.dynamic:
        if n == attr or (n is None and "sys.modules" in what):
            return line, what
    for n in ast.walk(tree):
        if isinstance(n, ast.Call) and _patch_like(n.func) and any(
                isinstance(a, ast.Constant) and isinstance(a.value, str)
                and (a.value == attr or a.value.endswith("." + attr)) for a in n.args):
            return n.lineno, f"`{_show(n.func)}(...)` naming `{attr}`"
    return None


def _patch_like(func: ast.AST) -> bool:
    """``mock.patch``, ``patch.object``, ``monkeypatch.setattr``, ``mocker.patch.multiple``, ..."""
    parts = []
    while isinstance(func, ast.Attribute):
        parts.append(func.attr)
        func = func.value
    if isinstance(func, ast.Name):
        parts.append(func.id)
    return any("patch" in p or p in ("setattr", "delattr") for p in parts)


def _fallbacks(bs: list[Binding]) -> bool:
    """Imports in one ``try`` statement (``try: from a import f`` / ``except ImportError: from b
    import f``): whichever runs, the name is the function under test from a module that exists."""
    groups = {b.group for b in bs}
    return len(groups) == 1 and None not in groups and all(b.kind in ("from", "star") for b in bs)


def resolve_module(sym: Symbols, root: str, attr: str) -> Entry:
    """Which module the name ``root`` holds (``import m``, ``import pkg.m as m``, ``from pkg import
    m``), for calls ``root.attr(...)``; a problem when it may hold anything else."""
    dyn = sym.unknown_writes(root) or sym.unknown_writes(attr)
    if dyn is not None:
        return Entry(problem=f"`{root}` may be rebound by {dyn[1]} at line {dyn[0]}")
    binds = sym.of(root)
    final = next((b for b in reversed(binds) if not b.conditional), None)
    live = ([final] if final else []) + [b for b in binds if b.conditional and (final is None or b.line > final.line)]
    if not live:
        return Entry(problem=f"`{root}` is not bound by an import in this file")
    for b in live:
        if b.kind not in ("import", "from"):
            return Entry(problem=f"`{root}` is bound by {b.describe()}, not by an import")
    mods = {b.module if b.kind == "import" else f"{b.module}.{b.orig}" for b in live}
    if len(mods) > 1 and not _fallbacks(live):
        return Entry(problem=f"`{root}` may be more than one module")
    b = live[-1]
    return Entry(module=b.module if b.kind == "import" else f"{b.module}.{b.orig}")


# -- names the test module binds once: helpers and aliases --------------------------------------

def single_binding_problem(sym: Symbols, name: str) -> str | None:
    """None when ``name`` is bound exactly once in the scope, unconditionally, with no ``global``
    write from a function, no dynamic write and no ``import *`` that could rebind it: then every
    use of the name after that statement, at any later time, sees that binding (a test-module
    helper ``def check(candidate)`` or an alias ``g = f``); else why not, with the line."""
    dyn = sym.unknown_writes(name)
    if dyn is not None:
        return f"`{name}` may be rebound by {dyn[1]} at line {dyn[0]}"
    binds = sym.of(name)
    if not binds:
        return f"`{name}` is not bound in this file"
    if len(binds) > 1:
        return f"`{name}` is bound more than once ({binds[0].describe()}, {binds[1].describe()})"
    b = binds[0]
    if b.conditional:
        return f"`{name}` is bound only conditionally ({b.describe()})"
    if b.kind == "global":
        return f"`{name}` may be rebound by {b.describe()}"
    stars = [s for s in sym.stars if s.line > b.line]
    if stars:
        return f"`{name}` may be rebound by {stars[0].describe()}"
    return None
