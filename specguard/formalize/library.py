"""Other functions of the library under test (#12.1, #12.2): ``assert mi.rstrip(xs, p) == [...]`` in
the tests of ``lstrip``, ``merge_with`` beside ``merge``, ``precisedelta`` beside ``naturaldelta``.

Such a call is read like a call of the function under test, as an input of its own: the model
stays ``impl : Val -> Outcome``, and a call of another function ``g`` with exact arguments is the
input ``Val.pair (Val.pair (Val.str "<library>") (Val.pair args kwargs)) (Val.str Q)`` where ``Q``
is g's resolved qualified name (``more_itertools.rstrip``).  No call of the function under test
(``pair (tuple ..) (str f)`` or ``pair (pair (tuple ..) (dict ..)) (str f)``) and no object
history (``pair (pair (str "<object>") ..) ..``) has that shape, so the function under test's own
clauses are unaffected and two tests about one call of ``g`` that expect different outcomes are a
kernel-checked conflict, under :func:`assumption` (stated in ``result.json``).

Which calls are such calls (anything else keeps its reason, ``call target g is not the function
under test``):

* the callee resolves exactly through the test module's imports and bindings, the way the function
  under test does (:func:`specguard.python.bindings.resolve_entry` / ``resolve_module``):
  ``from pkg import g [as h]``, ``import pkg as m; m.g``, ``from pkg import sub; sub.g``; never a
  name rebound in the test or the module, never a method of a local object, never a relative import;
* it belongs to the library under test: the same top-level package as every import of the function
  under test in the file (one package, or none is read);
* the task's test sources (every test file and ``conftest.py``) never rebind the name, assign
  attributes on it, patch it (``monkeypatch.setattr``, ``mock.patch``, ``setattr``), and write no
  namespace SpecGuard cannot follow (``globals()``, ``vars(module)``, ``exec``, ``sys.modules``, a
  computed ``setattr``), or call a function of the library that changes its state
  (``activate``, ``set_*``, ``reset``, ``register`` ...): then no call of any other function is read;
* its name says nothing of variation or state (random, sample, shuffle, time, now, date, uuid,
  counter, cache, i18n ...) and no part of it is CapWords (a class: its calls build objects that
  may keep state); the tests never read attributes off its results, use it in ``isinstance`` or
  subclass it (its results may be objects with their own ``==``);
* its arguments are exact values or function constants, as for the function under test
  (:meth:`specguard.formalize.tests._Walker.call_args`); a call whose result is discarded is still a
  call made for its effect (what follows it is not read).
"""

from __future__ import annotations

import ast
import re
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, Iterable

from specguard.python.bindings import resolve_entry, resolve_module
from specguard.python.literals import dotted_name

if TYPE_CHECKING:      # pragma: no cover
    from specguard.models import Call

MARKER = "<library>"

# words of a function's (or its module's) name that say its results may vary, or that it keeps or
# changes state: such functions are never modelled (whole words of a snake_case name, and stems
# anywhere in it)
_VARYING_WORDS = frozenset(
    "rand randint randrange choice choices now today day days date dates clock seed entropy secret token nonce "
    "environ env getenv cwd tmp temp tempfile file files open read write stdin stdout stderr print sleep counter "
    "cache cached memo memoize memoized once i18n locale lang config settings setting state global registry "
    "thread threads async socket request http url fetch download input log logger logging warn warning warnings "
    "path dir glob os sys id next_id".split())
_VARYING_STEMS = re.compile(r"random|shuffl|sampl|uuid|guid|time|clock|(?<!up)(?<!vali)date|day|counter|cache|"
                            r"memoi|environ|thread", re.I)


def _varying(part: str) -> bool:
    return bool(_VARYING_STEMS.search(part)) or any(w in _VARYING_WORDS for w in part.lower().split("_"))


# functions of the library whose call in the tests changes the library's state for later calls
_EFFECT = re.compile(r"^(?:activate|deactivate|reset|register|unregister|enable|disable|configure|install|"
                     r"uninstall|initialize|thousands_separator)(?:_|$)|_(?:reset|register|activate|deactivate)$",
                     re.I)
# verbs that change state when the call is made for its effect (its result discarded, a `with` item)
# (not inside a `with pytest.raises(...)`/`assertRaises` block, whose call is expected to fail)
_EFFECT_STATEMENT = re.compile(r"^(?:set|init|load|use|seed|start|stop)(?:_|$)", re.I)
# a call that patches: `setattr(...)`, `patch(...)`, or a method of a patching object
# (`monkeypatch.setattr`, `mock.patch.object`, `mocker.patch.dict`, `patch.multiple`)
_PATCHERS = frozenset({"patch", "monkeypatch", "mock", "mocker", "monkey", "unittest"})
_PATCH_CALLS = frozenset({"setattr", "delattr", "patch", "setitem", "delitem"})
_NAMESPACES = frozenset({"globals", "vars", "locals"})     # harmless unless they may reach a module
_DYNAMIC = frozenset({"exec", "eval", "compile", "__import__", "reload",
                      "import_module"})


def assumption(names: Iterable[str]) -> str:
    """The assumption the model needs for calls of other library functions (``result.json``)."""
    shown = ", ".join(f"`{n}`" for n in sorted(set(names)))
    return (f"Other functions of the library the tests call ({shown}) are deterministic functions of their "
            "arguments returning plain data, like the function under test: each is modelled as a function of its "
            "own (keyed by its resolved qualified name; two names of one function stay two functions), so "
            "assertions about one of its calls that expect different outcomes conflict.")


def listed_assumption(names: Iterable[str]) -> str:
    shown = ", ".join(f"`{n}`" for n in sorted(set(names)))
    return (f"Other library functions observed only through list(...) ({shown}) are modelled as list(g(...)), the "
            "list of the items their result gives when iterated (each clause about it is implied by the assertion).")


def through_list(demands: tuple) -> tuple[tuple, tuple[str, ...]]:
    """Each other library function whose every reading is through ``list(...)``/``tuple(...)``
    of a fresh call (or order-insensitive consumers) in the ``list ∘ g`` model
    (:func:`specguard.python.iterate.through_list`, applied to ``g`` alone); the notes."""
    from specguard.python import iterate
    notes: list[str] = []
    for qual in sorted({d.call.lib for d in demands if d.call.lib is not None}):
        view = iterate.through_list(demands, [], qual)
        if view is not None:
            demands = view.demands
            notes.append(f"`{qual}` (another function of the library) is {iterate.NOTE}")
    return demands, tuple(notes)


def has_result(call: "Call") -> bool:
    """Whether an argument of ``call`` is the result of another call (:func:`result_value`)."""
    from specguard.python.values import iter_children

    def has(v) -> bool:
        return (v.kind == "obj" and v.val[0] == "result") or any(has(x) for x in iter_children(v))
    return any(has(a) for a in call.args) or any(has(v) for _, v in call.kwargs)


def set_apart(tf: Any, why: str, which=None) -> Any:
    """``tf`` without the demands whose call satisfies ``which`` (default: the calls of other
    library functions), each unsupported with ``why``; an assertion statement left with no demand
    no longer counts as read."""
    from specguard.models import Unsupported
    which = which or is_library_call
    gone = [d for d in tf.demands if which(d.call)]
    if not gone:
        return tf
    kept = tuple(d for d in tf.demands if not which(d.call))
    left = {(d.loc.file, d.loc.line) for d in kept}
    lost = {(d.loc.file, d.loc.line) for d in gone} - left
    moved = tuple(Unsupported(loc=d.loc, text=d.text, reason=f"`{d.call.lib}` is another function of the "
                              f"library: {why}" if d.call.lib else f"`{d.call.source(60)}`: {why}") for d in gone)
    return tf.model_copy(update={"demands": kept, "unsupported": tf.unsupported + moved,
                                 "assertions_read": max(0, tf.assertions_read - len(lost))})


def lean_input(call: "Call") -> str:
    """The exact input of a call of another library function (see the module docstring)."""
    from specguard.kernel.emit import lean_str, lean_val
    from specguard.python.values import V
    args = lean_val(V("tuple", tuple(call.args)))
    kwargs = lean_val(V("dict", tuple((V("str", k), v) for k, v in call.kwargs)))
    return (f"(Val.pair (Val.pair (Val.str {lean_str(MARKER)}) (Val.pair {args} {kwargs})) "
            f"(Val.str {lean_str(call.lib or call.target)}))")


def is_library_call(call: "Call | None") -> bool:
    return call is not None and call.lib is not None


@dataclass
class Library:
    """What the task's test sources allow: the library's package, the names never modelled."""

    package: str | None = None
    why_none: str = ""                                    # package None: why
    tainted: dict[str, str] = field(default_factory=dict)   # name -> why `m.name` may not be the function
    rebound: dict[str, str] = field(default_factory=dict)   # name -> why the bare name may not be the import
    objects: dict[str, str] = field(default_factory=dict)   # name -> why its results may be objects
    cache: dict[tuple, str | None] = field(default_factory=dict)


def attach(ctxs: list[Any], given: bool = True) -> None:
    """Give every file context (:class:`specguard.formalize.tests._Ctx`) of one task its
    :class:`Library` (the scans cover every test source of the task, conftests included);
    ``given``: the entry point was given (an inferred one is a guess: nothing else is read)."""
    trees = [(c.file.path, c.file.tree, c.file.source.text) for c in ctxs]
    tainted, rebound, every = _taint(trees)
    objs = _object_results(trees)
    packages = {p for c in ctxs if (p := _package(c)) is not None}
    for c in ctxs:
        lib = Library(tainted=tainted, rebound=rebound, objects=objs)
        mine = _package(c)
        if not given:
            lib.why_none = "the function under test was inferred from the tests"
        elif every is not None:
            lib.why_none = every
        elif mine is None:
            lib.why_none = "the file does not import the function under test from a package"
        elif len(packages) > 1:
            lib.why_none = f"the test files import the function under test from different packages ({sorted(packages)})"
        else:
            lib.package = mine
            effect = _state_changes(trees, mine)
            if effect is not None:
                lib.package, lib.why_none = None, effect
        c.library = lib


def _package(ctx: Any) -> str | None:
    """The one top-level package the file imports the function under test from (``from pkg.mod
    import f``, ``import pkg as m; m.f``), or None."""
    if ctx.symbols is None or not ctx.target or ctx.source_conflict is not None:
        return None
    cached = ctx.__dict__.get("_library_package", False)
    if cached is not False:
        return cached
    out = _cached(f"package:{ctx.target}:{ctx.entry_module}", ctx.file.path, ctx.file.source.text,
                  lambda: _package_scan(ctx))
    ctx._library_package = out
    return out


def _package_scan(ctx: Any) -> str | None:
    modules: set[str] = set()
    if ctx.entry_module is not None:
        modules.add(ctx.entry_module)
    for n in ast.walk(ctx.file.tree):
        if isinstance(n, ast.ImportFrom) and any(a.name == ctx.target for a in n.names):
            modules.add("." * n.level + (n.module or ""))     # also inside a test: `from m import f`
        if isinstance(n, ast.Attribute) and n.attr == ctx.target and isinstance(n.ctx, ast.Load):
            d = dotted_name(n.value)
            if d is not None:
                root, _, rest = d.partition(".")
                e = resolve_module(ctx.symbols, root, n.attr)
                if not e.problem and e.module:
                    modules.add(f"{e.module}.{rest}" if rest else e.module)
    pkgs = {m.split(".")[0] for m in modules}
    out = next(iter(pkgs)) if len(pkgs) == 1 and all(m and not m.startswith(".") for m in modules) else None
    return None if out in ("builtins", "__main__", "") else out


def _last(node: ast.AST) -> str | None:
    if isinstance(node, ast.Name):
        return node.id
    if isinstance(node, ast.Attribute):
        return node.attr
    return None


def _names_of(node: ast.AST) -> Iterable[str]:
    for m in ast.walk(node):
        if isinstance(m, ast.Name):
            yield m.id
        elif isinstance(m, ast.Attribute):
            yield m.attr
        elif isinstance(m, ast.Constant) and isinstance(m.value, str):
            yield from (p for p in re.split(r"[.:]", m.value) if p)


def _taint(trees: list[tuple[str, ast.Module, str]]) -> tuple[dict[str, str], dict[str, str], str | None]:
    """(names whose attribute form may be changed: ``m.g = ...``, an attribute or item assigned
    on ``g``, a patch naming it; names rebound as names: assignments, ``def``, ``global``; why
    no name at all can be trusted: a write SpecGuard cannot follow into a module's namespace)."""
    tainted: dict[str, str] = {}
    rebound: dict[str, str] = {}
    every: str | None = None
    for path, tree, text in trees:
        t, r, e = _cached("taint", path, text, lambda: _taint_scan(path, tree))
        for k, v in t.items():
            tainted.setdefault(k, v)
        for k, v in r.items():
            rebound.setdefault(k, v)
        every = every or e
    return tainted, rebound, every


# (what, path, source text) -> the scan's result: a file shared by many tasks is scanned once per process
_SCANS: dict[tuple, Any] = {}


def _cached(what: str, path: str, text: str, fn):
    key = (what, path, text)
    if key not in _SCANS:
        if len(_SCANS) > 64:
            _SCANS.clear()
        _SCANS[key] = fn()
    return _SCANS[key]


def _taint_scan(path: str, tree: ast.Module) -> tuple[dict[str, str], dict[str, str], str | None]:
    out: dict[str, str] = {}
    rebound: dict[str, str] = {}
    every: str | None = None
    modnames = {(a.asname or a.name).split(".")[0] for n in ast.walk(tree)
                if isinstance(n, (ast.Import, ast.ImportFrom)) for a in n.names}

    def put(name: str, why: str) -> None:
        out.setdefault(name, why)

    def reaches_module(node: ast.AST | None) -> bool:
        """``node`` may be a module (a name some import binds, or an attribute of one)."""
        while isinstance(node, (ast.Attribute, ast.Subscript)):
            node = node.value
        return not isinstance(node, ast.Name) or node.id in modnames
    for n in ast.walk(tree):
        line = getattr(n, "lineno", "?")
        where = f"{path}:{line}"
        if isinstance(n, (ast.Attribute, ast.Subscript)) and isinstance(n.ctx, (ast.Store, ast.Del)):
            if isinstance(n, ast.Attribute):
                put(n.attr, f"`.{n.attr}` is assigned at {where}")
            for name in _names_of(n.value):
                put(name, f"an attribute or item of `{name}` is assigned at {where}")
        elif isinstance(n, ast.Name) and isinstance(n.ctx, (ast.Store, ast.Del)):
            rebound.setdefault(n.id, f"`{n.id}` is rebound at {where}")
        elif isinstance(n, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
            rebound.setdefault(n.name, f"`{n.name}` is defined at {where}")
        elif isinstance(n, (ast.Global, ast.Nonlocal)):
            for name in n.names:
                rebound.setdefault(name, f"`{name}` is declared global at {where}")
        elif isinstance(n, ast.Call):
            parts = (dotted_name(n.func) or "").split(".")
            last = _last(n.func) or ""
            if last in _NAMESPACES and (not n.args or any(reaches_module(a) for a in n.args)):
                every = every or f"`{last}(...)` at {where} may reach a module's names"
            elif last in _DYNAMIC or "modules" in parts[:-1]:
                every = every or f"`{last}(...)` at {where} may change any name"
            if (len(parts) == 1 and last in _PATCH_CALLS) or _PATCHERS.intersection(parts[:-1]) \
                    or last.startswith(("patch", "mock")):
                args = list(n.args) + [k.value for k in n.keywords]
                if last in ("setattr", "delattr") and len(n.args) >= 2 and not (
                        isinstance(n.args[1], ast.Constant) or (len(n.args) == 2 and isinstance(n.args[0], ast.Constant))):
                    every = every or f"`{last}(...)` with a computed name at {where}"
                for a in args:
                    for name in _names_of(a):
                        put(name, f"`{name}` may be patched at {where}")
        elif isinstance(n, ast.Name) and n.id in ("__builtins__", "__dict__"):
            every = every or f"`{n.id}` at {where}"
        elif isinstance(n, ast.Attribute) and n.attr == "__dict__" and reaches_module(n.value):
            every = every or f"`__dict__` of a module at {where}"
    return out, rebound, every


_PLAIN = None


def _plain_attrs() -> frozenset[str]:
    global _PLAIN
    if _PLAIN is None:
        from specguard.formalize.assumptions import _PLAIN_ATTRS
        _PLAIN = _PLAIN_ATTRS
    return _PLAIN


def _object_results(trees: list[tuple[str, ast.Module, str]]) -> dict[str, str]:
    """Names whose results the tests treat as objects (an attribute read off a result, a name
    bound to one, ``isinstance(x, g)``, ``class C(g)``): name -> why."""
    out: dict[str, str] = {}
    for path, tree, text in trees:
        for k, v in _cached("objects", path, text, lambda: _object_scan(path, tree)).items():
            out.setdefault(k, v)
    return out


def _object_scan(path: str, tree: ast.Module) -> dict[str, str]:
    plain = _plain_attrs()
    out: dict[str, str] = {}
    held: dict[str, str] = {}       # a name bound to a call of `g` -> g
    for n in ast.walk(tree):
        if isinstance(n, ast.Assign) and isinstance(n.value, ast.Call) and (g := _last(n.value.func)):
            for t in n.targets:
                if isinstance(t, ast.Name):
                    held[t.id] = g
        elif isinstance(n, ast.withitem) and isinstance(n.context_expr, ast.Call) \
                and (g := _last(n.context_expr.func)):
            out.setdefault(g, f"a result of `{g}` is used as a context manager at {path}:{n.context_expr.lineno}")
    for n in ast.walk(tree):
        where = f"{path}:{getattr(n, 'lineno', '?')}"
        if isinstance(n, ast.Attribute) and n.attr not in plain:
            v = n.value
            if isinstance(v, ast.Call) and (g := _last(v.func)):
                out.setdefault(g, f"the tests read `.{n.attr}` off a result of `{g}` ({where})")
            elif isinstance(v, ast.Name) and v.id in held:
                out.setdefault(held[v.id], f"the tests read `.{n.attr}` off a result of `{held[v.id]}` ({where})")
        elif isinstance(n, ast.Call) and isinstance(n.func, ast.Name) and n.func.id in ("isinstance", "issubclass") \
                and len(n.args) == 2:
            for e in (n.args[1].elts if isinstance(n.args[1], ast.Tuple) else [n.args[1]]):
                if (g := _last(e)) is not None:
                    out.setdefault(g, f"the tests use `{g}` as a class ({where})")
        elif isinstance(n, ast.ClassDef):
            for b in n.bases:
                if (g := _last(b)) is not None:
                    out.setdefault(g, f"the tests subclass `{g}` ({where})")
    return out


def _state_changes(trees: list[tuple[str, ast.Module, str]], package: str) -> str | None:
    """A call in the test sources of a function of ``package`` that changes the library's state
    (``humanize.i18n.activate("fr")``): why no other function of it is modelled, or None."""
    for path, tree, text in trees:
        why = _cached(f"state:{package}", path, text, lambda: _state_scan(path, tree, package))
        if why is not None:
            return why
    return None


def _state_scan(path: str, tree: ast.Module, package: str) -> str | None:
    imports: dict[str, str] = {}
    for n in ast.walk(tree):
        if isinstance(n, ast.Import):
            for a in n.names:
                imports[a.asname or a.name.split(".")[0]] = a.name if a.asname else a.name.split(".")[0]
        elif isinstance(n, ast.ImportFrom) and n.module and not n.level:
            for a in n.names:
                imports[a.asname or a.name] = f"{n.module}.{a.name}"
    def raises(w: ast.AST) -> bool:
        return any(isinstance(i.context_expr, ast.Call) and (_last(i.context_expr.func) or "").lower().endswith(
            ("raises", "raisesregex", "raisesregexp", "warns")) for i in w.items)
    expected_to_fail = {id(st.value) for w in ast.walk(tree) if isinstance(w, (ast.With, ast.AsyncWith)) and raises(w)
                        for st in w.body if isinstance(st, ast.Expr)}
    for_effect = {id(n.value) for n in ast.walk(tree) if isinstance(n, ast.Expr)} - expected_to_fail | \
        {id(i.context_expr) for n in ast.walk(tree) if isinstance(n, (ast.With, ast.AsyncWith)) for i in n.items}
    for n in ast.walk(tree):
        if not isinstance(n, ast.Call):
            continue
        d = dotted_name(n.func)
        if d is None:
            continue
        root, _, rest = d.partition(".")
        q = imports.get(root)
        if q is None:
            continue
        full = f"{q}.{rest}" if rest else q
        inner = full.split(".")[1:]
        if full.split(".")[0] == package and (any(_EFFECT.search(p) for p in inner) or (
                id(n) in for_effect and any(_EFFECT_STATEMENT.search(p) for p in inner))):
            return f"the tests call `{d}` at {path}:{n.lineno}, which may change the library's state for later calls"
    return None


def result_value(w: Any, node: ast.expr) -> Any:
    """``node``, an argument of a call of another library function, as the result of a fresh call
    (of the function under test or another library function) with exact arguments: the value
    ``obj("result", (source, input))``, equal only to the result of the very same input (under the
    determinism assumption each call at that input gives an equal fresh result; the Lean value
    ``pair (str "result") ..`` is no plain argument's); None when it is not one.  Never for
    objects of the class under test (their observations are events of a history)."""
    if not isinstance(node, ast.Call) or w.objects.active() or not w.is_target_call(node):
        return None
    s = w.call_subject(node)
    if s.error or s.call is None or s.length or s.call.obj is not None:
        return None
    return result_of(s.call)


def result_of(call: "Call") -> Any:
    """The value ``obj("result", (source, input))`` standing for what ``call`` gives (its result,
    or the state it left in an argument, ``specguard.formalize.argstate``): equal only to the
    value of the very same input."""
    from specguard.python.values import V
    return V("obj", ("result", V("tuple", (V("str", call.source(80)), V("str", call.key())))))


def resolve(w: Any, func: ast.expr) -> str | None:
    """The qualified name of the other function of the library under test that ``func`` (the
    callee of a call in walker ``w``) surely denotes there and that is modelled, else None."""
    ctx = w.ctx
    lib: Library | None = getattr(ctx, "library", None)
    if lib is None or lib.package is None or ctx.symbols is None:
        return None
    scope = w.scope
    if isinstance(func, ast.Name):
        name = func.id
        if name in ctx.target_names:
            return None
        b = scope.binding(name)
        if b is None or b.origin != "import" or not isinstance(b.fn, str):
            return None
        qual = b.fn
        orig = qual.rsplit(".", 1)[-1]
        if scope.locals.get(name) is not b:      # the module's binding, seen by a test after the module ran
            if scope.is_local(name):
                return None
            key = ("name", name, orig)
            if key not in lib.cache:
                e = resolve_entry(ctx.symbols, name, orig)
                lib.cache[key] = None if e.problem or e.module is None else f"{e.module}.{orig}"
            if lib.cache[key] != qual:
                return None
        names = bare = [name, orig]
    elif isinstance(func, ast.Attribute):
        d = dotted_name(func)
        if d is None or func.attr == ctx.target:
            return None
        parts = d.split(".")
        root = parts[0]
        b = scope.binding(root)
        if b is None or b.origin != "import":
            return None
        module_import = w.mode == "module"
        if scope.is_local(root) and not module_import:
            return None
        key = ("attr", root, func.attr)
        if key not in lib.cache:
            e = resolve_module(ctx.symbols, root, func.attr)
            lib.cache[key] = None if e.problem or not e.module else e.module
        module = lib.cache[key]
        if module is None:
            return None
        qual = ".".join([module, *parts[1:]])
        names, bare = parts, parts[:1]     # `g = m.g` in a test rebinds a name, not `m.g`
        orig = func.attr
    else:
        return None
    return qual if _modelled(lib, qual, names, orig, ctx.target, bare) else None


def _modelled(lib: Library, qual: str, names: list[str], orig: str, target: str, bare: list[str]) -> bool:
    parts = qual.split(".")
    if parts[0] != lib.package or qual.startswith(".") or orig == target or len(parts) < 2:
        return False
    inner = parts[1:]
    if any(p[:1].isupper() or p.startswith("_") for p in inner):
        return False      # a class (its calls build objects) or a private name
    if any(_varying(p) or _EFFECT.search(p) for p in inner):
        return False
    return not any(n in lib.tainted or n in lib.objects for n in set(names) | {orig}) \
        and not any(n in lib.rebound for n in bare)
