"""What runs before a test, as pytest and unittest run it: fixtures and setups (issue 12, item 1).

Used by :mod:`specguard.formalize.tests` (stage 2) when it runs a test: the values a test receives
from its fixtures and the attributes its ``setUp`` / ``setUpClass`` / class body give ``self``,
computed by the same symbolic walker that runs test bodies (test code is never executed).

Fixtures
    A test's parameter that is not parametrized names a fixture.  The definition that applies is
    pytest's: the closest scope wins -- the test's class (its own body, then the base classes of the
    file, then enclosing classes), the test module, then each ``conftest.py`` from the test file's
    folder up to the task folder.  A fixture requesting its own name gets the next definition out.
    Its body runs up to its ``return`` (or its single top-level ``yield``: what follows is teardown);
    its parameters are the fixtures it requests (one value per fixture per test, shared by all who
    request it, as pytest caches it); ``request.param`` is the current entry of ``params=[...]``
    (one run of the test per entry, the product over the fixtures reached).  The value becomes the
    parameter's binding when it is an exact value; a mutable one only when every run makes a new
    object (a function-scoped fixture whose value is built in its body, not a module-level value
    nor a ``params`` entry, which are shared between tests).
Soundness
    Every fixture that runs before the test -- requested, directly or through other fixtures,
    through ``usefixtures``, or autouse at any visible level -- is run by the walker: an early exit,
    a skip, a patch, a change of global state, a call made for its effect makes the test's
    assertions unsupported with the reason (they may change what the function under test sees).
    A name whose definition cannot be told (defined twice at one level, rebound, ``name=`` that is
    not a constant, stacked decorators, ``usefixtures`` of a name that is not a constant, a
    ``conftest.py`` that defines hooks or loads plugins) does the same.  A fixture found nowhere
    (pytest's own, a plugin's, a conftest outside the task folder) keeps an unknown value.
Setups
    ``setUp`` / ``setup_method`` (run afresh before each test) and ``setUpClass`` / ``setup_class``
    and class-body constants (shared by the tests of the class) bind ``self.NAME`` when they assign
    an immutable exact value (a mutable one could be changed by a test or the function under test
    without the walker seeing it).  They are used only when the test reads ``self`` in no other way
    than ``self.NAME`` and assertion calls (no ``self.x = ...``, no ``self.helper()``, ``self`` not
    passed on), and a shared one only when no other statement of the file stores that attribute
    and the file uses no ``setattr``/``delattr``.  What the setup runs is checked like a fixture.
"""

from __future__ import annotations

import ast
import copy
import itertools
import os
from dataclasses import dataclass, field, replace

from specguard.python import pytestcfg
from specguard.python.bindings import Symbols
from specguard.formalize.tests import (_INLINE_CMS, _RAISES_APIS, _TOO_DEEP, _Binding, _Ctx, _Row, _Scope,
                                       _TestDef, _Walker, _fixture_decorator, _fixture_names, _is_autouse,
                                       _literal, _mark_name, _module_bindings, _new_group, _opaque,
                                       _patch_in, _pytestmarks, _test_mro, _walk_all, _walk_all_local, _with_bases)
from specguard.python.literals import NotLiteral, eval_literal, is_mutable
from specguard.python.values import V

MAX_FIXTURE_RUNS = 10_000
"""Most runs of one test over the ``params`` of the fixtures it reaches (with its parametrize rows)."""
MAX_FIXTURE_DEPTH = 20
"""Deepest chain of fixtures requesting fixtures."""

_REQUEST_PARAM = "<request.param>"    # never a Python name: `request.param` is bound under it
_INSTANCE_SETUPS = ("setUp", "setup_method")
_CLASS_SETUPS = ("setUpClass", "setup_class")
_OTHER_SETUPS = ("asyncSetUp", "setup")


# =====================================================================================
# fixture definitions and where they are visible
# =====================================================================================

@dataclass
class _Fx:
    fn: ast.FunctionDef | ast.AsyncFunctionDef
    deco: ast.expr
    ctx: _Ctx
    level: int
    method: bool
    problem: str | None = None       # why its definition or value is not read

    @property
    def where(self) -> str:
        return f"`{self.fn.name}` ({self.ctx.file.path}:{self.fn.lineno})"


@dataclass
class _Level:
    what: str
    defs: dict[str, list[_Fx]] = field(default_factory=dict)
    autouse: list[str] = field(default_factory=list)
    unknown: str | None = None       # any name may be defined here (why)
    blocks: str | None = None        # a conftest that may change how every test under it runs (why)
    symbols: Symbols | None = None

    def elsewhere(self, name: str) -> bool:
        """``name`` may be a fixture this body gets from elsewhere (an import, ``import *``, an
        assignment, ``pytest_plugins``): pytest would find it here, so the search stops here."""
        sym = self.symbols
        if sym is None:
            return True
        return bool(sym.stars) or bool(sym.of("pytest_plugins")) or sym.unknown_writes(name) is not None \
            or any(b.kind not in ("def", "class") for b in sym.of(name))


def _levels(ctx: _Ctx, test: _TestDef) -> list[_Level]:
    """The scopes whose fixtures the test sees, closest first."""
    out: list[_Level] = []
    for cls in reversed(test.classes):
        for k in _with_bases(cls, ctx):
            out.append(_level(ctx, k.body, f"class `{k.name}`", True, len(out), _class_symbols(ctx, k)))
            out[-1].blocks = _generates(k.body, f"class `{k.name}`")
    out.append(_level(ctx, ctx.file.tree.body, "the test module", False, len(out), ctx.symbols))
    out[-1].blocks = _generates(ctx.file.tree.body, "the test module")
    for conf in getattr(ctx, "conftests", ()):
        _prepare_conftest(conf)
        lvl = _level(conf, conf.file.tree.body, conf.file.path, False, len(out), conf.symbols)
        lvl.blocks = conf.__dict__.get("conftest_problem")
        if pytestcfg.is_config(conf.file.path):     # pytest.ini & co: whether it changes how this file runs
            lvl.blocks = _memo(conf, ("pytest config", ctx.file.path), lambda: pytestcfg.config_problem(
                conf.file.path, conf.file.source.text, ctx.file.path))
        out.append(lvl)
    return out


_DEFS = (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)


def _generates(body: list[ast.stmt], what: str) -> str | None:
    """Why the tests of a module or class body may get other arguments than their fixtures and
    marks say: the body binds ``pytest_generate_tests`` (pytest calls a test module's or class's
    own hook too, and its ``metafunc.parametrize`` overrides a fixture of the same name)."""
    for st in body:
        names = [st.name] if isinstance(st, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)) else \
            [a.asname or a.name for a in st.names] if isinstance(st, (ast.Import, ast.ImportFrom)) else \
            [t.id if isinstance(t, ast.Name) else t.name for t in ast.walk(st)
             if isinstance(t, ast.Name) and isinstance(t.ctx, ast.Store) or isinstance(t, _DEFS)]
        if "pytest_generate_tests" in names:
            return f"{what} binds `pytest_generate_tests` (line {st.lineno}): it may parametrize the test's arguments"
    return None


def _class_symbols(ctx: _Ctx, cls: ast.ClassDef) -> Symbols | None:
    def build() -> Symbols | None:
        try:
            return Symbols.of_class(cls)
        except RecursionError:
            return None
    return _memo(ctx, ("symbols", id(cls)), build)


def _memo(ctx: _Ctx, key: tuple, compute):
    """A per-file memo (every test of a class asks the same questions about it: linear, not quadratic)."""
    cache = ctx.__dict__.setdefault("_collection_memo", {})
    if key not in cache:
        cache[key] = compute()
    return cache[key]


def _level(ctx: _Ctx, body: list[ast.stmt], what: str, method: bool, index: int, symbols) -> _Level:
    """The fixtures a body defines (memoised per body and position: every test of a file asks)."""
    cache = ctx.__dict__.setdefault("_fixture_levels", {})
    key = (id(body), index)
    if key not in cache:
        cache[key] = _level_uncached(ctx, body, what, method, index, symbols)
    hit = cache[key]
    return _Level(hit.what, hit.defs, hit.autouse, hit.unknown, symbols=symbols)


def _level_uncached(ctx: _Ctx, body: list[ast.stmt], what: str, method: bool, index: int, symbols) -> _Level:
    lvl = _Level(what)
    for st in body:
        if not isinstance(st, (ast.FunctionDef, ast.AsyncFunctionDef)):
            continue
        d = _fixture_decorator(ctx, st)
        if d is None:
            continue
        names = _fixture_names(d, st)
        if "*" in names:
            lvl.unknown = f"the fixture `{st.name}` in {what} (line {st.lineno}) is registered under a name that " \
                          "is not a constant"
            continue
        problem = _TOO_DEEP if symbols is None else symbols.collected(st, st.name)
        if problem is None and len(st.decorator_list) > 1:
            problem = "it has other decorators besides the fixture's (pytest runs what they return)"
        fx = _Fx(st, d, ctx, index, method, problem)
        registered = names - {st.name} if len(names) > 1 else names     # `name=` replaces the function's name
        for n in registered:
            lvl.defs.setdefault(n, []).append(fx)
            if _is_autouse(d):
                lvl.autouse.append(n)
    return lvl


def _prepare_conftest(conf: _Ctx) -> None:
    """A conftest's module constants (once), and why its fixtures cannot be relied on, if so."""
    if conf.__dict__.get("conftest_ready"):
        return
    conf.conftest_ready = True
    if pytestcfg.is_config(conf.file.path):         # pytest.ini & co: no code; see _levels
        conf.conftest_problem = None
        return
    _module_bindings(conf, False, f"assertion at the top level of {conf.file.path} (not a test)")
    why = conf.module_block
    for st in conf.file.tree.body:
        names = [st.name] if isinstance(st, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)) else \
            [t.id for t in (st.targets if isinstance(st, ast.Assign) else [])
             if isinstance(t, ast.Name)] if isinstance(st, ast.Assign) else []
        hook = next((n for n in names if n.startswith("pytest_")), None)
        if hook is not None and why is None:
            why = f"{conf.file.path} defines `{hook}` (line {st.lineno}): a hook or plugin may change how tests run"
        ignore = next((n.id for n in ast.walk(st) if isinstance(n, ast.Name) and n.id in _COLLECT_IGNORE), None)
        if ignore is not None and why is None:
            why = (f"{conf.file.path} sets `{ignore}` (line {st.lineno}): pytest may not collect the test files "
                   "it names")
    conf.conftest_problem = why


# a conftest's module names that exclude test files from pytest's collection
_COLLECT_IGNORE = ("collect_ignore", "collect_ignore_glob")


def applies_to(conftest_path: str, test_path: str) -> bool:
    """Whether pytest loads ``conftest_path`` for ``test_path``: it sits in the test file's folder or
    in a folder above it."""
    conf_dir = os.path.abspath(os.path.dirname(conftest_path) or ".")
    here = os.path.abspath(os.path.dirname(test_path) or ".")
    return here == conf_dir or here.startswith(conf_dir.rstrip(os.sep) + os.sep)


# =====================================================================================
# the runs of a test over its fixtures
# =====================================================================================

@dataclass
class FixtureRun:
    """One run of a test: the values of its fixture parameters, why its assertions do not count
    (None: they do), and whether fixture ``params`` multiplied the runs."""

    values: dict[str, _Binding]
    block: str | None
    fixture_params: bool = False


class _Resolver:
    def __init__(self, ctx: _Ctx, test: _TestDef, row: _Row) -> None:
        self.ctx = ctx
        self.test = test
        self.row = row
        self.levels = _levels(ctx, test)
        self.outer: str | None = None

    def find(self, name: str, start: int = 0) -> _Fx | str | None:
        """The definition of fixture ``name`` seen from level ``start`` (None: not in these files;
        a str: why it cannot be told)."""
        for lvl in self.levels[start:]:
            if lvl.unknown is not None:
                return lvl.unknown
            defs = lvl.defs.get(name)
            if defs:
                if len(defs) > 1:
                    return f"the fixture `{name}` is defined twice in {lvl.what} (lines {defs[0].fn.lineno} and " \
                           f"{defs[1].fn.lineno})"
                return defs[0]
            if lvl.elsewhere(name):
                return None       # its value is not known (as one found nowhere), and outer levels do not apply
        return None

    def requested(self) -> tuple[list[str], str | None]:
        """The names the test requests for their effect or value: its parameters (not parametrized),
        ``usefixtures`` names, and autouse fixtures of the visible levels."""
        t = self.test
        a = t.node.args
        params = [p.arg for p in (a.posonlyargs + a.args + a.kwonlyargs)[1 if t.method else 0:]]
        names = [p for p in params if p not in self.row.values]
        module_marks = self.ctx.__dict__.get("_module_marks")
        if module_marks is None:
            module_marks = self.ctx._module_marks = _pytestmarks(self.ctx.file.tree.body)
        marks = t.decorators + t.class_marks + module_marks
        for n in _walk_all(marks):
            if isinstance(n, ast.Call) and _mark_name(self.ctx, n).endswith("usefixtures"):
                for x in n.args:
                    if not (isinstance(x, ast.Constant) and isinstance(x.value, str)):
                        return names, f"`usefixtures` at line {n.lineno} names a fixture that is not a constant"
                    names.append(x.value)
        for lvl in self.levels:
            names.extend(lvl.autouse)
        return list(dict.fromkeys(names)), None

    def closure(self, names: list[str]) -> tuple[list[_Fx], str | None]:
        """Every fixture definition reached from ``names`` (static: what pytest sets up), or why
        one cannot be told."""
        out: dict[int, _Fx] = {}
        todo = [(n, 0, 0) for n in names]
        while todo:
            name, start, depth = todo.pop()
            if name in self.row.values or name == "request":
                continue
            fx = self.find(name, start)
            if isinstance(fx, str):
                return [], fx
            if fx is None or id(fx) in out:
                continue
            if depth > MAX_FIXTURE_DEPTH:
                return [], f"fixtures request each other more than {MAX_FIXTURE_DEPTH} deep"
            out[id(fx)] = fx
            for p in _fixture_params(fx):
                todo.append((p, fx.level + 1 if p == name else 0, depth + 1))
        return list(out.values()), None


def _fixture_params(fx: _Fx) -> list[str]:
    a = fx.fn.args
    return [p.arg for p in (a.posonlyargs + a.args + a.kwonlyargs)[1 if fx.method else 0:]]


def fixture_runs(ctx: _Ctx, test: _TestDef, row: _Row, outer: str | None = None) -> list[FixtureRun]:
    """The runs of ``test`` for one parametrize ``row``: one per combination of the ``params`` of
    the fixtures it reaches (one run when there are none).  ``outer``: why the test's assertions do
    not count anyway (then so do the fixtures' own)."""
    r = _Resolver(ctx, test, row)
    r.outer = outer
    names, why = r.requested()
    why = why or next((lvl.blocks for lvl in r.levels if lvl.blocks), None)
    if why is not None:
        return [FixtureRun({}, why)]
    reached, why = r.closure(names)
    if why is not None:
        return [FixtureRun({}, f"which fixture definition runs before the test is not known: {why}")]
    choices: list[tuple[_Fx, list[V]]] = []
    for fx in reached:
        node = _kw(fx.deco, "params")
        if node is None:
            continue
        try:
            v = eval_literal(node, fx.ctx.tables)
        except NotLiteral as e:
            return [FixtureRun({}, f"the `params` of the fixture {fx.where} are not literal: {e.reason}")]
        if v.kind not in ("list", "tuple"):
            return [FixtureRun({}, f"the `params` of the fixture {fx.where} are not a list or tuple")]
        choices.append((fx, list(v.val)))
    total = 1
    for _, vs in choices:
        total *= len(vs)
    if total > MAX_FIXTURE_RUNS:
        return [FixtureRun({}, f"the fixture params make more than {MAX_FIXTURE_RUNS} runs of the test")]
    if total == 0:
        return []          # an empty `params` list: pytest skips the test
    out = []
    for combo in itertools.product(*[range(len(vs)) for _, vs in choices]):
        chosen = {id(fx): vs[i] for (fx, vs), i in zip(choices, combo)}
        out.append(_Run(r, chosen).run(names, bool(choices)))
    return out


class _Run:
    """One setup of a test's fixtures: each definition evaluated once (pytest caches a fixture's
    value per test), in the order requested."""

    def __init__(self, r: _Resolver, chosen: dict[int, V]) -> None:
        self.r = r
        self.chosen = chosen
        self.memo: dict[int, _Binding] = {}
        self.block: str | None = None
        self.active: set[int] = set()

    def run(self, names: list[str], multiplied: bool) -> FixtureRun:
        a = self.r.test.node.args
        params = {p.arg for p in (a.posonlyargs + a.args + a.kwonlyargs)[1 if self.r.test.method else 0:]}
        values = {}
        for n in names:
            b = self.value(n, 0)
            if n in params and b is not None:
                values[n] = b
        return FixtureRun(values, self.block, multiplied)

    def value(self, name: str, start: int) -> _Binding | None:
        if name in self.r.row.values:
            return self.r.row.values[name]
        if name == "request":
            return _opaque("pytest's `request` object", "fixture")
        fx = self.r.find(name, start)
        if fx is None or isinstance(fx, str):
            return None                       # not defined in these files: pytest's or a plugin's
        hit = self.memo.get(id(fx))
        if hit is not None:
            return hit
        if id(fx) in self.active:
            self.stop(f"the fixture {fx.where} requests itself")
            return _opaque("a fixture that requests itself", "fixture")
        self.active.add(id(fx))
        try:
            b = self.evaluate(fx, name)
        finally:
            self.active.discard(id(fx))
        self.memo[id(fx)] = b
        return b

    def stop(self, why: str) -> None:
        self.block = self.block or why

    def evaluate(self, fx: _Fx, name: str) -> _Binding:
        why_not = f"the value of the fixture {fx.where}"
        if fx.problem is not None:
            self.stop(f"which definition of the fixture `{name}` runs is not known: {fx.problem}")
            return _opaque(f"{why_not} is not known ({fx.problem})", "fixture")
        if isinstance(fx.fn, ast.AsyncFunctionDef):
            self.stop(f"the fixture {fx.where} is async (it needs a plugin to run)")
            return _opaque(f"{why_not}: an async fixture", "fixture")
        patch = _patch_in(fx.ctx, fx.fn)
        if patch is not None:
            self.stop(f"the fixture {fx.where}, which runs before the test, changes the environment ({patch}): "
                      "it may rebind what the test calls")
        params: dict[str, _Binding] = {}
        for p in _fixture_params(fx):
            b = self.value(p, fx.level + 1 if p == name else 0)
            params[p] = b if b is not None else _opaque(f"the fixture `{p}` (its value is computed by pytest)", "fixture")
        body, split, problem = _split_body(fx)
        if problem is not None and split != len(body):
            self.stop(f"the fixture {fx.where} is not read: {problem}")
            return _opaque(f"{why_not} is not read ({problem})", "fixture")
        shared = _shared_scope(fx.deco)
        body, value_node, uses_request = _with_request_param(body, split)
        facts = fx.ctx.file.facts.get(id(fx.fn))
        local = frozenset(facts.names if facts is not None else ()) | frozenset(params) | {_REQUEST_PARAM}
        scope = _Scope(fx.ctx.module, local)
        if fx.method:
            scope.bind(_first_param(fx.fn) or "self", _opaque("the test object", "self"))
        for p, b in params.items():
            scope.bind(p, replace(b, origin="param", fn=None))
        if id(fx) in self.chosen:
            v = self.chosen[id(fx)]
            scope.bind(_REQUEST_PARAM, _opaque("a `params` entry shared between tests", "param") if is_mutable(v)
                       else replace(_opaque("", "param"), value=v, why="", mutable=False))
        elif uses_request:
            self.stop(f"the fixture {fx.where} reads `request.param` but has no `params`")
        if uses_request is None:
            self.stop(f"the fixture {fx.where} uses `request` for more than `request.param`")
        walker = _Walker(fx.ctx, scope, "test", self.r.test.name, self.r.outer)
        fx.ctx.__dict__.setdefault("fixture_copies", []).append(body)    # keep copied nodes (ids stay unique)
        walker.run(body[:split])
        changed = [p for p, pb in params.items() if pb.mutable and pb.value is not None
                   and (scope.locals.get(p) is None or scope.locals[p].value is None)]
        if changed:          # the value the test (or another fixture) gets from `p` may not be what it was
            self.stop(f"the fixture {fx.where} may change the value of `{changed[0]}` it receives")
        if walker.block is not None and walker.block != self.r.outer:
            self.stop(f"the fixture {fx.where}, which runs before the test, may change what the test sees: "
                      f"{walker.block}")
        if problem is not None:
            return _opaque(f"{why_not} is not read ({problem})", "fixture")
        if value_node is None:
            return replace(_opaque("", "param"), value=V("none"), why="", mutable=False, groups=frozenset())
        b = walker.evaluate_rhs(value_node, value_node.lineno)
        if b.origin == "entry" or b.result is not None:
            return _opaque(f"{why_not} is the function under test or one of its results (not read)", "fixture")
        if b.value is None:
            return replace(b, why=f"{why_not}: {b.why}", origin="param", fn=None)
        if is_mutable(b.value) and (shared or walker.shares_module_value(value_node)):
            what = "a fixture not scoped to one test" if shared else "a module-level value"
            return _shared_opaque(b, f"{why_not} is a mutable object shared between tests ({what})")
        return replace(b, origin="param", fn=None, groups=b.groups | _new_group())


def _shared_opaque(b: _Binding, why: str) -> _Binding:
    return replace(b, value=None, why=why, origin="param", fn=None, mutable=True)


def _kw(d: ast.expr, name: str) -> ast.expr | None:
    if not isinstance(d, ast.Call):
        return None
    return next((k.value for k in d.keywords if k.arg == name), None)


def _shared_scope(d: ast.expr) -> bool:
    scope = _kw(d, "scope")
    return scope is not None and not (isinstance(scope, ast.Constant) and scope.value == "function")


def _split_body(fx: _Fx) -> tuple[list[ast.stmt], int, str | None]:
    """(body, index of the statement that gives the value, problem): the value statement is the
    first top-level ``return`` (or the body's end), or a generator's single top-level ``yield``."""
    body = fx.fn.body
    facts = fx.ctx.file.facts.get(id(fx.fn))
    if facts is not None and facts.generator:
        yields = [n for n in _walk_all_local(body) if isinstance(n, (ast.Yield, ast.YieldFrom))]
        at = next((i for i, s in enumerate(body) if isinstance(s, ast.Expr) and isinstance(s.value, ast.Yield)), None)
        if len(yields) != 1 or at is None:    # run whole (for what it does), its value unknown
            return body, len(body), "a generator fixture that does not `yield` once, at the top level of its body"
        return body, at, None
    at = next((i for i, s in enumerate(body) if isinstance(s, ast.Return)), len(body))
    if any(isinstance(n, ast.Return) for s in body[:at] for n in _walk_all_local([s])):
        return body, at, "it may return early (a `return` inside a block)"
    return body, at, None


def _with_request_param(body: list[ast.stmt], split: int) -> tuple[list[ast.stmt], ast.expr | None, bool | None]:
    """The body with ``request.param`` read as a name, the expression giving the value, and whether
    ``request`` is used (None: for more than ``request.param``)."""
    names = [n for s in body for n in ast.walk(s) if isinstance(n, ast.Name) and n.id == "request"]
    if names:
        body = [copy.deepcopy(s) for s in body]
        params = _RequestParam()
        body = [params.visit(s) for s in body]
        left = [n for s in body for n in ast.walk(s) if isinstance(n, ast.Name) and n.id == "request"]
        uses: bool | None = None if left else True
    else:
        uses = False
    value = None
    if split < len(body):
        s = body[split]
        value = s.value.value if isinstance(s, ast.Expr) and isinstance(s.value, ast.Yield) else \
            s.value if isinstance(s, ast.Return) else None
    return body, value, uses


class _RequestParam(ast.NodeTransformer):
    def visit_Attribute(self, node: ast.Attribute) -> ast.AST:
        if isinstance(node.value, ast.Name) and node.value.id == "request" and node.attr == "param" \
                and isinstance(node.ctx, ast.Load):
            return ast.copy_location(ast.Name(id=_REQUEST_PARAM, ctx=ast.Load()), node)
        return self.generic_visit(node)


# =====================================================================================
# setUp / setUpClass: attributes of the test object
# =====================================================================================

def setup_attributes(ctx: _Ctx, test: _TestDef, outer: str | None = None) -> tuple[dict[str, _Binding], str | None]:
    """``self.NAME`` bindings a test method sees from its class's setups and body constants, and why
    the test is blocked by what a setup runs (None: it is not)."""
    if not test.method or not test.classes:
        return {}, None
    cls = test.classes[-1]
    mro = _memo(ctx, ("mro", id(cls)), lambda: _test_mro(cls, ctx))
    chain = mro if mro is not None else _memo(ctx, ("chain", id(cls)), lambda: list(_with_bases(cls, ctx)))
    owner = _first_param(test.node)
    block: str | None = None
    unknown = "the test has no `self` parameter" if owner is None else \
        _self_only_read(ctx, test.node.body, owner, chain)
    if unknown is None and mro is None and len({id(k) for k in chain}) < len(chain):
        unknown = "the class's MRO is not known (a base class is reached twice)"
    if unknown is None and _memo(ctx, ("other", id(cls)), lambda: any(_setup_fn(chain, (n,))[0] is not None
                                                                         for n in _OTHER_SETUPS)):
        unknown = "the class has an `asyncSetUp` or `setup` method (not read)"
    if unknown is None and _memo(ctx, ("fixture-sets", id(cls)), lambda: _fixture_sets_attributes(ctx, chain)):
        unknown = "a fixture method of the class sets attributes of the test object"
    if unknown is None and any("__getattribute__" in _class_body_binds(st) for k in chain for st in k.body):
        unknown = "the class defines `__getattribute__` (reading an attribute of the test object runs it)"
    attrs = dict(_memo(ctx, ("constants", id(cls)), lambda: _class_constants(ctx, chain)))
    for names, key in ((_CLASS_SETUPS, "cls"), (_INSTANCE_SETUPS, "self")):
        fn, why = _memo(ctx, ("setup", id(cls), names), lambda: _setup_fn(chain, names))
        if fn is None:
            continue
        values, assigned, block_here = _run_setup(ctx, test, fn, outer)
        block = block or block_here
        if why is not None or assigned is None:
            unknown = unknown or (f"`{fn.name}` is not read ({why})" if why else
                                  f"`{fn.name}` does more than assign values to attributes")
            continue
        for name in assigned:                     # what the setup assigns hides what was there
            attrs.pop(name, None)
        for name, b in values.items():
            if key == "cls" and b.value is not None and not _never_stored_elsewhere(ctx, name, fn):
                b = _opaque(f"set by `{fn.name}` and shared by the class's tests, but stored elsewhere in the file "
                            "too (state carried between tests)", "param")
            attrs[name] = b
    if unknown is not None:
        read = {n.attr for s in test.node.body for n in ast.walk(s) if isinstance(n, ast.Attribute)
                and isinstance(n.value, ast.Name) and n.value.id == owner and isinstance(n.ctx, ast.Load)}
        return {f"self.{n}": _opaque(f"set up before the test, but not read: {unknown}", "param")
                for n in sorted(read)}, block
    # `self.__x` is mangled with the name of the class whose body the code is in (`_Mixin__x` in a
    # method inherited from `Mixin`, `_Sub__x` in `Sub`'s body): which binding it reads is not followed
    return {f"self.{name}": b for name, b in attrs.items() if not _mangled(name)}, block


def _mangled(name: str) -> bool:
    return name.startswith("__") and not name.endswith("__")


def _fixture_sets_attributes(ctx: _Ctx, chain: list[ast.ClassDef]) -> bool:
    """A fixture method of the class stores attributes of the test object (it runs before the test)."""
    for k in chain:
        for st in k.body:
            if isinstance(st, (ast.FunctionDef, ast.AsyncFunctionDef)) and _fixture_decorator(ctx, st) is not None:
                owner = _first_param(st)
                if owner is not None and _self_only_read(ctx, st.body, owner, []) is not None:
                    return True
    return False


def _first_param(fn: ast.FunctionDef | ast.AsyncFunctionDef) -> str | None:
    a = fn.args.posonlyargs + fn.args.args
    return a[0].arg if a else None


def _setup_fn(chain: list[ast.ClassDef], names: tuple[str, ...]) -> tuple[ast.FunctionDef | None, str | None]:
    """The setup method that runs (first in the chain), and why its attributes are not read."""
    definers = [(k, st) for k in chain for st in k.body
                if isinstance(st, (ast.FunctionDef, ast.AsyncFunctionDef)) and st.name in names]
    if not definers:
        return None, None
    k, fn = definers[0]
    rebinds = [st for st in k.body if st is not fn and fn.name in _class_body_binds(st)]
    if rebinds:                                  # a later binding in the class body replaces it
        return fn, f"`{fn.name}` is bound more than once in class `{k.name}` (line {rebinds[-1].lineno})"
    if isinstance(fn, ast.AsyncFunctionDef):
        return None, "async setup"
    if len({st.name for _, st in definers}) > 1:
        return fn, "several setup methods are defined"
    if len(definers) > 1 and (k is not chain[0] or _calls_super(fn)):
        return fn, "setups of several classes run (through `super()`)"
    return fn, None


def _class_body_binds(st: ast.stmt) -> set[str]:
    """The names a class-body statement binds (definitions, assignments, imports, ...)."""
    if isinstance(st, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
        return {st.name}
    if isinstance(st, (ast.Import, ast.ImportFrom)):
        return {(a.asname or a.name).split(".")[0] for a in st.names}
    return {n.id for n in ast.walk(st) if isinstance(n, ast.Name) and not isinstance(n.ctx, ast.Load)} | \
        {n.name for n in ast.walk(st) if isinstance(n, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef))}


def _calls_super(fn: ast.AST) -> bool:
    return any(isinstance(n, ast.Call) and isinstance(n.func, ast.Name) and n.func.id == "super" for n in ast.walk(fn))


def _run_setup(ctx: _Ctx, test: _TestDef, fn: ast.FunctionDef, outer: str | None
               ) -> tuple[dict[str, _Binding], set[str] | None, str | None]:
    """Run a setup's body with the walker: the exact immutable values it assigns to ``self.NAME``
    (``cls.NAME``), every attribute name it assigns (None: it may set any), and why what it runs
    blocks the test."""
    owner = _first_param(fn)
    facts = ctx.file.facts.get(id(fn))
    scope = _Scope(ctx.module, frozenset(facts.names if facts is not None else ()))
    if owner is not None:
        scope.bind(owner, _opaque("the test object", "self"))
    walker = _SetupWalker(ctx, scope, "test", test.name, outer)
    walker.owner = owner
    walker.run(fn.body)
    block = None
    changed = walker.block is not None and walker.block != outer
    if changed and walker.exit is None:
        block = f"`{fn.name}`, which runs before the test, may change what the test sees: {walker.block}"
    if owner is None or changed or _self_only_read(ctx, fn.body, owner, [], stores=True) is not None:
        return {}, None, block
    values: dict[str, _Binding] = {}
    assigned: set[str] = set()
    for k, b in scope.locals.items():
        if k.startswith(f"{owner}."):
            name = k.split(".", 1)[1]
            assigned.add(name)
            if b.value is not None and not is_mutable(b.value):
                values[name] = replace(b, origin="param", fn=None)
            elif b.value is not None:
                values[name] = _opaque(f"set by `{fn.name}` to a mutable value (what may change it is not "
                                       "tracked)", "param")
            else:
                values[name] = _opaque(f"set by `{fn.name}`: {b.why}", "param")
    return values, assigned, block


def _class_constants(ctx: _Ctx, chain: list[ast.ClassDef]) -> dict[str, _Binding]:
    """Immutable exact values the class bodies bind once (a derived class's binding hides a base's)."""
    out: dict[str, _Binding] = {}
    for k in reversed(chain):
        sym = _class_symbols(ctx, k)
        if sym is None:
            return {}
        for name in sym.bindings:
            out.pop(name, None)
        for st in k.body:
            if isinstance(st, ast.Assign) and len(st.targets) == 1 and isinstance(st.targets[0], (ast.Tuple, ast.List)):
                _unpacked_constants(ctx, st, sym, out)      # `x, y = 2, 4`
                continue
            if not (isinstance(st, ast.Assign) and len(st.targets) == 1 and isinstance(st.targets[0], ast.Name)):
                continue
            name = st.targets[0].id
            if len(sym.of(name)) != 1 or sym.of(name)[0].conditional or sym.unknown_writes(name):
                continue
            try:
                v = eval_literal(st.value, ctx.tables)
            except NotLiteral:
                fn = _builtin_constant(ctx, st.value, sym)
                if fn is not None and _never_stored_elsewhere(ctx, name, None):
                    out[name] = _Binding(why=f"a builtin function (class constant at line {st.lineno})",
                                         origin="lambda", fn=fn, groups=_new_group())
                continue
            if not is_mutable(v) and _never_stored_elsewhere(ctx, name, None):
                out[name] = _literal(v, _new_group(), "param")
            elif v.kind == "dict" and not any(is_mutable(x) for _, x in v.val) \
                    and _never_stored_elsewhere(ctx, name, None) and _only_unpacked(ctx, name):
                # `kw = {}`: one dict shared by the class's tests, but only ever unpacked (`**kw`
                # gives the callee a new dict): nothing can change it
                out[name] = _Binding(value=v, why=f"a dict only unpacked with `**` (class constant at line "
                                                  f"{st.lineno})", groups=_new_group(), mutable=True,
                                     origin="unpacked")
    return out


def _unpacked_constants(ctx: _Ctx, st: ast.Assign, sym, out: dict[str, _Binding]) -> None:
    """``x, y = 2, 4`` in a class body: each plain name bound once to its immutable element
    (Python unpacks a tuple or list of that length item by item; anything else is not read)."""
    target = st.targets[0]
    assert isinstance(target, (ast.Tuple, ast.List))
    if not all(isinstance(e, ast.Name) for e in target.elts):
        return
    names = [e.id for e in target.elts]
    if len(set(names)) != len(names):
        return                                   # `x, x = 1, 2`: the last store wins; not followed
    try:
        v = eval_literal(st.value, ctx.tables)
    except NotLiteral:
        return
    if v.kind not in ("tuple", "list") or len(v.val) != len(names):
        return
    for name, x in zip(names, v.val):
        if len(sym.of(name)) != 1 or sym.of(name)[0].conditional or sym.unknown_writes(name):
            continue
        if not is_mutable(x) and _never_stored_elsewhere(ctx, name, None):
            out[name] = _literal(x, _new_group(), "param")


def _only_unpacked(ctx: _Ctx, attr: str) -> bool:
    """Every read of an attribute ``attr`` in the file (of any object) is ``f(**self.attr)``, or
    binds a local name (``kw = self.attr``, ``D, kw = self.D, self.attr``) assigned once in its
    function and read only as ``f(**kw)``; the class bodies never read the name itself, and the
    file never reaches attributes dynamically (``getattr``, ``vars``, ``__dict__``)."""
    tree = ctx.file.tree
    parents: dict[int, ast.AST] = {}
    for n in ast.walk(tree):
        for c in ast.iter_child_nodes(n):
            parents[id(c)] = n
    if any(isinstance(n, ast.Name) and n.id in ("getattr", "vars", "globals", "locals", "eval", "exec")
           or isinstance(n, ast.Attribute) and n.attr in ("__dict__", "__getattribute__")
           for n in ast.walk(tree)):
        return False
    for k in ast.walk(tree):
        if isinstance(k, ast.ClassDef) and any(isinstance(n, ast.Name) and n.id == attr and isinstance(n.ctx, ast.Load)
                                               for st in k.body if not isinstance(st, (ast.FunctionDef, ast.AsyncFunctionDef))
                                               for n in ast.walk(st)):
            return False

    def unpacked(e: ast.AST) -> bool:
        p = parents.get(id(e))
        return isinstance(p, ast.keyword) and p.arg is None and p.value is e and isinstance(parents.get(id(p)), ast.Call)

    def function_of(n: ast.AST) -> ast.AST | None:
        while id(n) in parents:
            n = parents[id(n)]
            if isinstance(n, (ast.FunctionDef, ast.AsyncFunctionDef, ast.Lambda)):
                return n
        return None

    for n in ast.walk(tree):
        if not (isinstance(n, ast.Attribute) and n.attr == attr):
            continue
        if not isinstance(n.ctx, ast.Load):
            return False
        if unpacked(n):
            continue
        p = parents.get(id(n))
        target: ast.AST | None = None
        if isinstance(p, ast.Assign) and p.value is n and len(p.targets) == 1:
            target = p.targets[0]
        elif isinstance(p, ast.Tuple) and isinstance(parents.get(id(p)), ast.Assign):
            a = parents[id(p)]
            t = a.targets[0] if len(a.targets) == 1 else None
            if a.value is p and isinstance(t, ast.Tuple) and len(t.elts) == len(p.elts):
                target = t.elts[p.elts.index(n)]
        fn = function_of(n)
        if not isinstance(target, ast.Name) or not isinstance(fn, (ast.FunctionDef, ast.AsyncFunctionDef)):
            return False
        for m in ast.walk(fn):
            if isinstance(m, ast.Name) and m.id == target.id and m is not target:
                if isinstance(m.ctx, ast.Load) and unpacked(m):
                    continue
                return False
            if isinstance(m, (ast.Global, ast.Nonlocal)) and target.id in m.names:
                return False
            if isinstance(m, ast.arg) and m.arg == target.id:
                return False
    return True


def _builtin_constant(ctx: _Ctx, node: ast.expr, sym) -> V | None:
    """``D = dict`` in a class body: the builtin function ``dict`` (a named constant, as
    :func:`specguard.formalize.tests.function_value` keys it) when neither the file nor the class
    body can rebind that name."""
    from specguard.python.purity import PURE_BUILTINS
    from specguard.python import concrete
    from specguard.python.values import FUNCTION
    if not (isinstance(node, ast.Name) and node.id in PURE_BUILTINS and node.id in concrete.free_builtins_of(ctx)
            and not sym.of(node.id)):
        return None
    return V(FUNCTION, (f"builtin:{node.id}", node.id))


def _never_stored_elsewhere(ctx: _Ctx, attr: str, where: ast.AST | None) -> bool:
    """No statement of the file outside ``where`` stores or deletes an attribute ``attr`` (of any
    object), and the file never calls ``setattr``/``delattr`` or touches ``__dict__``."""
    cache = ctx.__dict__.setdefault("_attr_stores", None)
    if cache is None:
        stores: dict[str, list[ast.AST]] = {}
        dynamic = False
        for n in ast.walk(ctx.file.tree):
            if isinstance(n, ast.Attribute):
                if not isinstance(n.ctx, ast.Load):
                    stores.setdefault(n.attr, []).append(n)
                if n.attr in ("__dict__", "__setattr__", "__delattr__"):
                    dynamic = True
            elif isinstance(n, ast.Name) and n.id in ("setattr", "delattr", "vars"):
                dynamic = True
        cache = ctx._attr_stores = (stores, dynamic)
    stores, dynamic = cache
    if dynamic:
        return False
    inside = {id(n) for n in ast.walk(where)} if where is not None else set()
    return all(id(n) in inside for n in stores.get(attr, []))


def _self_only_read(ctx: _Ctx, body: list[ast.stmt], owner: str, chain: list[ast.ClassDef],
                    stores: bool = False) -> str | None:
    """Why ``owner`` (``self``) is used in ``body`` other than by reading ``owner.NAME`` (an
    attribute that is no method of the class) and calling assertion methods (``stores``: a setup,
    whose top-level ``owner.NAME = ...`` assignments are allowed too)."""
    methods = _memo(ctx, ("methods", tuple(id(k) for k in chain)), lambda: {
        st.name for k in chain for st in k.body if isinstance(st, (ast.FunctionDef, ast.AsyncFunctionDef))})
    allowed_stores: set[int] = set()
    if stores:
        for st in body:
            targets = st.targets if isinstance(st, ast.Assign) else [st.target] if isinstance(st, ast.AnnAssign) else []
            # `self.x, self.y = 3, 9`: the elements of an unpacking (no `*`), assigned in order
            targets = [e for t in targets for e in (t.elts if isinstance(t, (ast.Tuple, ast.List)) and not any(
                isinstance(x, ast.Starred) for x in t.elts) else [t])]
            allowed_stores.update(id(t) for t in targets if isinstance(t, ast.Attribute)
                                  and isinstance(t.value, ast.Name) and t.value.id == owner)
    parent: dict[int, ast.AST] = {}
    for s in body:
        for n in ast.walk(s):
            for c in ast.iter_child_nodes(n):
                parent[id(c)] = n
    for s in body:
        for n in ast.walk(s):
            if not (isinstance(n, ast.Name) and n.id == owner):
                continue
            p = parent.get(id(n))
            if not isinstance(p, ast.Attribute) or p.value is not n:
                return f"`{owner}` is used as a value at line {n.lineno}"
            if not isinstance(p.ctx, ast.Load):
                if id(p) in allowed_stores:
                    continue
                return f"`{owner}.{p.attr}` is changed at line {n.lineno}"
            g = parent.get(id(p))
            if isinstance(g, ast.Call) and g.func is p:
                q = ctx.qual(p) or ""
                if ctx.is_assertion_call(g) or q in _INLINE_CMS or q in _RAISES_APIS:
                    continue
                return f"`{owner}.{p.attr}(...)` is called at line {n.lineno}"
            if p.attr in methods:
                return f"the method `{owner}.{p.attr}` is used at line {n.lineno}"
    return None


class _SetupWalker(_Walker):
    """The walker over a setup's body: ``self.NAME = value`` binds ``self.NAME``."""

    owner: str | None = None

    def bind_target(self, target: ast.expr, b: _Binding, line: int) -> None:
        if isinstance(target, ast.Attribute) and isinstance(target.value, ast.Name) and target.value.id == self.owner:
            self.scope.bind(f"{self.owner}.{target.attr}", b)
            return
        super().bind_target(target, b, line)
