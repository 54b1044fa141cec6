"""Pipeline stage 2: formalize the tests.

Entry point: :func:`formalize_tests`.  Test code is parsed with :mod:`ast` only; it is never
imported or executed (literal values are computed by :mod:`specguard.python.literals`).  Each assertion
about the function under test becomes a :class:`~specguard.models.Demand` (a call with exact
literal arguments and an :class:`~specguard.models.Expect`); every other assertion becomes an
:class:`~specguard.models.Unsupported` with its ``file:line`` and a specific reason.  Files that do
not parse (or are not valid UTF-8) go to ``errors``; the other files are still processed.

Supported forms (``call`` is a call of the function under test with literal arguments, or a name
bound to the result of one, ``r = f(1)``, with no rebinding, mutation or other call since; ``v`` a
literal)
=================================================  ================================================
form                                               demand
=================================================  ================================================
``assert call == v`` / ``v == call``               ``eq v``
``assert call != v``                               ``ne v``
``assert call is [not] None/True/False``           ``is`` / ``is_not``
``assert call`` / ``assert not call``              ``truthy`` / ``falsy``
``assert call < v`` (``<= > >=``, either side)     ``cmp`` (operator flipped when ``call`` is right)
``assert call [not] in container``                 ``in`` / ``not_in`` (dict: keys; ``range(..)``,
                                                   ``d.keys()/values()/items()`` too)
``assert len(call) == n``                          ``len_eq n``
``assert isinstance(call, T)``                     ``isinstance`` (builtin type names, tuples)
``assert call == pytest.approx(v, rel=, abs=)``    ``approx`` (``None`` tolerance: pytest default)
``assert not (call == v)`` etc.                    negated ``== != is in`` (not ``< <= > >=``)
``assert a == b == c``, ``assert x and y``         one demand per comparison / conjunct
``self.assertEqual/NotEqual/Is/IsNot/In/NotIn``    as the matching ``assert`` (either order)
``self.assertTrue/False/IsNone/IsNotNone``         as ``assert x`` / ``not x`` / ``is [not] None``
``self.assertGreater[Equal]/Less[Equal]``          ``cmp``
``self.assertIsInstance``                          ``isinstance``
``self.assertAlmostEqual(a, b, places|delta)``     ``approx`` (``places``, default 7; or ``abs=delta``)
``self.assertListEqual`` (Tuple/Dict/Set/...)      ``eq`` (the type check they add is dropped)
``with pytest.raises(E): call``                    ``raises`` (``match=`` ignored: a weaker demand)
``with self.assertRaises[Regex](E): call``         ``raises``; body a single call (or ``x = call``)
``pytest.raises(E, f, *args)``                     ``raises`` (callable form; also a ``lambda: call``)
``self.assertRaises[Regex](E, [re,] f, *args)``    ``raises``
``assert math.isclose(call, v, rel_tol=, abs_tol=)``  ``approx`` (``isclose``: exact rational enclosure)
any other assertion over ONE call (the same call    ``obs``: the expression, call replaced by
may repeat): ``sorted(call) == v``, ``call[0] ==    ``result``, other operands by their literal
v``, ``x in call``, ``len(call) > 2``, ...          values (:mod:`specguard.python.terms`)
``r = list(call)`` / ``a, b = call`` then ``r``...  the term the name holds (:mod:`specguard.python.named`):
                                                   ``list(result) == v``; an unpacking is its items
                                                   plus Python's length check
``type(call) is T`` (``== T``, ``in (T1, T2)``)    ``isinstance`` (implied; ``is not``/``!=`` not)
``with pytest.raises(E): list(call)``              ``raises`` with ``iterated`` (the call, or the
                                                   iteration of its result, raises)
=================================================  ================================================

Observations are compiled by :func:`specguard.formalize.speclang.compile_observation` (the spec language's
semantics on the result's ``==``-class, with guards where the class representative is not the
Python value); operations outside it (``str()``, ``repr()``, ``is True``, ``**``, ...) are
unsupported with that reason.  Not supported (each reported with its reason): ``or``; two
different calls in one assertion; a call inside a comprehension; ``assertCountEqual`` except
against an exact value (:func:`specguard.python.terms.count_equal`), ``assertRegex``, ``assertWarns`` and other assertion methods and helpers (``numpy.testing``, mock
asserts); ``pytest.approx(nan_ok=True)``.

Exception classes are kept as written, dotted names reduced to their last part (``mod.MyError`` ->
``MyError``).  Values come from literals, from names bound to literals earlier in the test
(``x = ...``, tuple unpacking, ``x += 1``), from module-level constants, from
``@pytest.mark.parametrize`` rows (one independent run per row; ``pytest.param(...)`` rows; class
level decorators; stacked decorators as their cross product), and from unrolled ``for`` loops over
literal iterables (see :func:`specguard.python.literals.eval_iterable`; no ``break``/``continue``; at most
:data:`MAX_LOOP_ITERATIONS` iterations; names keep their exact values from iteration to iteration).
``with self.subTest(...)``, ``subtests.test(...)``, ``pytest.warns``, ``pytest.deprecated_call``
and ``warnings.catch_warnings()`` blocks are executed in line.

The function under test is ``entry_point``: calls ``f(...)``, ``mod.f(...)``, ``Cls.f(...)``,
``Cls().f(...)`` (a fresh object) and ``g(...)`` after ``from m import f as g`` (when ``g`` is the
file's only name for ``f``: two names could be the solution and a reference).  Which calls denote it
follows Python's binding and import semantics (:mod:`specguard.python.bindings`): a name counts only when
the file binds it by importing ``f`` itself (``from m import f [as g]``, ``from m import *``, an
import fallback in one ``try``) or not at all (a harness provides it), from one module (all test
files together), and never rebinds it anywhere a test could see (a later import of another name,
an assignment, ``def``, walrus, loop or ``with`` target, ``del``, a ``global`` write in a function,
``globals()``/``vars()``/``exec``/``setattr``, a store into ``m.f``); ``mod.f(...)`` only when ``mod``
is the module the name is imported from.  Tests are collected as pytest does: only the final
binding of a test function, method or class counts (one defined twice, set to ``None``, deleted,
rebound conditionally or dynamically, or under a decorator other than ``pytest.mark``/``unittest``
is not run, so its assertions are unsupported).  Without an
entry point it is inferred: the single most common name of the outermost call compared or tested
in assertions of the python sources (``x`` in ``f(x) == 1``, ``len(f(x))``, ``pytest.raises(E,
f)``), skipping builtins, pytest/unittest helpers and functions or classes defined in the test
file; a tie gives no entry point (every assertion is then unsupported with that reason).

Soundness rules (SpecGuard must never certify a conflict Python would not produce):

* never a guessed value: anything not literal is unsupported with the reason (``x`` bound by a
  call, in a branch, in a loop, a fixture not defined in the file or its conftest files, ...); 1, 1.0
  and True stay distinct values (fixtures, setups and functions passed as values: :mod:`specguard.python.collect`,
  :func:`function_value`);
* only unconditional assertions: inside ``if``/``while``/``try``/``match``, loops that cannot be
  unrolled, unknown ``with`` blocks (which may suppress failures) and nested functions, they are
  unsupported; so is everything after a possible early exit (``return``, ``raise``,
  ``pytest.skip/xfail/fail/importorskip``, ``self.skipTest/fail``, ``sys.exit``, also inside a
  branch), after a change of the environment (``monkeypatch``, ``mock.patch``, ``setattr``, a
  store into a module object or a global) and after a call made for its effect on anything but a
  local object (``random.seed(0)``, ``sol.set_mode(2)``; ``print``/``logging`` excepted);
* setups that may skip or patch: a module/class setup (``setUp``, ``setup_method``, ...), an
  autouse fixture or a fixture of the file that the test requests, containing a skip, exit,
  ``raise`` or a patch (``monkeypatch``, ``mock.patch``, ...), makes the test's assertions unsupported;
* skipped tests are not demands: tests marked skip/skipif/xfail (``pytest.mark``, ``unittest``,
  class decorators, ``pytestmark``, ``pytest.param(marks=...)``) are unsupported; so are tests in
  a module that may be skipped as a whole (module-level ``pytest.skip``/``importorskip``) unless
  the source lists ``only_tests`` (those are known to run), async and generator tests, tests
  decorated with a patch, and tests whose ``parametrize`` table is not literal;
* object identity: a function may mutate its arguments.  A name whose value contains a
  list/dict/set stops being a literal once it (or an alias) is passed to a call that may mutate
  it or has a method called on it; the expected value may not share a mutable object with the
  call's arguments (``assert f(x) == x``); one mutable object may not appear twice among a call's
  arguments; a result bound to a name (``r = f(1)``) is dropped after any further call (a
  function could keep and later change the object it returned).  Mutable module-level constants (shared by all tests) are literals only in
  assertions' expected positions and only if no statement of the file could mutate or share
  them; mutable parametrize values only when the table is written in line in the test's only
  ``parametrize`` decorator;
* the function under test must be a module-level function: a call through ``self``, a local or
  module-level object (which may keep state), or a name the test file rebinds is unsupported;
  except for a class under test, whose fresh objects (built in the test, its class's ``setUp``, a
  function-scoped fixture) are observed with their call histories (:mod:`specguard.formalize.objects`).

Assumptions (stated by every certificate): the implementation returns plain data and is
deterministic in its arguments (it does not depend on state the tests change in ways not seen
here: fixtures of plugins or of conftest files outside the task folder, command-line options).

Test names are pytest's (``Class::method``); ``only_tests`` entries may be pytest node ids
(``path::Class::test[id]``), Django/unittest ids (``test_x (pkg.mod.Class)``) or bare names.  A
parametrized row counts when its pytest id (computed as pytest does for literal values, explicit
``ids``/``id=`` included) is selected; when the id cannot be computed and only some ids of the test
are selected, the row is unsupported.  Assertions of tests that are not selected are skipped (not
reported), and so, when ``only_tests`` selects, are those of helpers no running code can reach
(:mod:`specguard.python.reach`); a selected name that matches no test is reported.  A test class
collects the ``test*`` methods it inherits from base classes of the file, in Python's MRO
(:mod:`specguard.python.inherit`), with its own attributes, setups, and the marks of all its bases.

Table sources (``TestSource(kind='table')``) give one ``eq`` demand per case.
"""

from __future__ import annotations

import ast
import bisect
import builtins
import contextlib
import gc
import itertools
import re
import unittest
from collections import Counter
from dataclasses import dataclass, field, replace
from typing import Any, Callable, Iterable, Iterator, Mapping, Sequence

from specguard.formalize import aliasing, library, objects
from specguard.formalize import speclang
from specguard.python import floatobs, concrete, iterate, loops, multiterm, named, raising, terms as observe
from specguard.python.bindings import (Symbols, attribute_write, resolve_entry, resolve_module,
                                       single_binding_problem)
from specguard.errors import SpecGuardError
from specguard.python.purity import BUILTIN_TYPES, PURE_BUILTINS, builtin_key, is_exception_class
from specguard.python.literals import (NotLiteral, dotted_name, eval_iterable, eval_literal, eval_literals,
                                       is_mutable)
from specguard.load import UNRECOVERED_MARKER, check_utf8
from specguard.models import Call, Demand, Expect, ExpectKind, Loc, TestFormalization, TestSource, Unsupported
from specguard.python.values import FUNCTION as vals_FUNCTION, V, contains_nan, contains_obj, short_repr

__all__ = ["collected_tests", "formalize_tests", "infer_entry_point"]

FLOAT_NOTE = ("float comparisons (`pytest.approx`, `math.isclose`, `assertAlmostEqual`, `abs(a - b) < eps`) are "
              "kept as exact rational enclosures of the results they accept: implied by the assertion, not "
              "equivalent to it (they support conflicts, never a proof that the tests are met)")

MAX_LOOP_ITERATIONS = 1000
"""Longest ``for`` loop unrolled."""
MAX_UNROLL = 10_000
"""Most iterations of nested unrolled loops (product) in one test."""
MAX_TEXT = 200
"""Longest ``text`` of a demand (characters)."""
MAX_HELPER_DEPTH = 8
"""Deepest chain of test-module helper calls executed (``check(candidate)`` calling ``_check(...)``
...); a deeper call (recursion) leaves the helper's assertions unsupported."""
MAX_HELPER_CALLS = 5_000
"""Most helper calls executed per test file (calls that fan out stay bounded)."""

_BUILTIN_NAMES = frozenset(dir(builtins))
_NEGATED_OPS = {ast.IsNot: ast.Is, ast.NotEq: ast.Eq, ast.NotIn: ast.In}
_TYPE_NAMES = frozenset({"int", "float", "str", "bytes", "bool", "list", "tuple", "dict", "set",
                         "frozenset", "NoneType", "object"})
# modules whose names the reader resolves without an import too (`pytest.raises`, `unittest.TestCase`)
_FRAMEWORK_ROOTS = frozenset({"pytest", "unittest", "builtins", "mock"})
# modules a test file must not patch (their functions decide what an assertion checks)
_PATCHED_ROOTS = ("pytest", "unittest", "builtins", "_pytest", "doctest")
# TestCase attributes a test class may set without changing what its assertions check
_TESTCASE_SAFE = frozenset({"setUp", "tearDown", "setUpClass", "tearDownClass", "asyncSetUp", "asyncTearDown",
                            "maxDiff", "longMessage", "__test__", "__doc__", "__module__", "__qualname__",
                            "__init_subclass__", "__dict__", "__weakref__"})
_TESTCASE_ATTRS = frozenset(a for a in dir(unittest.TestCase) + dir(unittest.IsolatedAsyncioTestCase)
                            if a not in _TESTCASE_SAFE)
_SKIP_MARKS = frozenset({"skip", "skipif", "xfail", "skipIf", "skipUnless", "expectedFailure"})
_QUIET_MODULES = frozenset({"logging", "logger", "log", "time", "gc", "pprint"})
_PATCH_PARTS = frozenset({"patch", "monkeypatch", "setattr", "delattr", "setenv", "delenv", "setitem",
                          "delitem", "syspath_prepend", "chdir", "override_settings", "modify_settings"})
_EXIT_CALLS = frozenset({"pytest.skip", "pytest.xfail", "pytest.fail", "pytest.exit", "pytest.importorskip",
                         "self.skipTest", "self.fail", "sys.exit", "os._exit", "exit", "quit"})
_INLINE_CMS = frozenset({"self.subTest", "subtests.test", "pytest.warns", "pytest.deprecated_call",
                         "warnings.catch_warnings", "self.assertWarns", "self.assertWarnsRegex",
                         "self.assertLogs", "self.assertNoLogs"})
_RAISES_APIS = frozenset({"pytest.raises", "self.assertRaises", "self.assertRaisesRegex"})
# builtins and test APIs that do not mutate their arguments (for the identity rules)
_SAFE_CALLS = frozenset({"len", "isinstance", "issubclass", "print", "repr", "str", "int", "float", "bool",
                         "sorted", "list", "tuple", "set", "frozenset", "dict", "abs", "min", "max", "sum",
                         "any", "all", "round", "type", "id", "hash", "range", "enumerate", "zip", "reversed",
                         "format", "ascii", "self.subTest", "subtests.test", "pytest.approx", "pytest.param",
                         "pytest.mark.parametrize"})
_SAFE_METHODS = frozenset({"count", "index", "copy", "get", "keys", "values", "items", "startswith",
                           "endswith", "isdisjoint", "issubset", "issuperset", "union", "intersection",
                           "difference", "symmetric_difference"})
# unittest assertion methods -> (kind, ast operator of the equivalent comparison)
_UNITTEST_ALIASES = {
    "assertEquals": "assertEqual", "failUnlessEqual": "assertEqual", "assertNotEquals": "assertNotEqual",
    "failIfEqual": "assertNotEqual", "assert_": "assertTrue", "failUnless": "assertTrue", "failIf": "assertFalse",
    "assertAlmostEquals": "assertAlmostEqual", "failUnlessAlmostEqual": "assertAlmostEqual",
    "failUnlessRaises": "assertRaises", "assertRaisesRegexp": "assertRaisesRegex",
    "assertListEqual": "assertEqual", "assertTupleEqual": "assertEqual", "assertDictEqual": "assertEqual",
    "assertSetEqual": "assertEqual", "assertMultiLineEqual": "assertEqual",
}
_UNITTEST_COMPARE: dict[str, type[ast.cmpop]] = {
    "assertEqual": ast.Eq, "assertNotEqual": ast.NotEq, "assertIs": ast.Is, "assertIsNot": ast.IsNot,
    "assertIn": ast.In, "assertNotIn": ast.NotIn, "assertGreater": ast.Gt, "assertGreaterEqual": ast.GtE,
    "assertLess": ast.Lt, "assertLessEqual": ast.LtE,
}
_FLIP: dict[type, type[ast.cmpop]] = {ast.Eq: ast.Eq, ast.NotEq: ast.NotEq, ast.Is: ast.Is, ast.IsNot: ast.IsNot,
                                      ast.Lt: ast.Gt, ast.Gt: ast.Lt, ast.LtE: ast.GtE, ast.GtE: ast.LtE}
_NEGATE: dict[type, type[ast.cmpop]] = {ast.Eq: ast.NotEq, ast.NotEq: ast.Eq, ast.Is: ast.IsNot,
                                        ast.IsNot: ast.Is, ast.In: ast.NotIn, ast.NotIn: ast.In}
_CMP_TEXT = {ast.Lt: "<", ast.LtE: "<=", ast.Gt: ">", ast.GtE: ">="}
_ANY_CALL = ""   # hazard marker: a call that may reach any object it was given before


# =====================================================================================
# entry points
# =====================================================================================

def formalize_tests(sources: Sequence[TestSource], entry_point: str | None) -> TestFormalization:
    """Formalize every assertion of ``sources`` about ``entry_point`` (inferred when None)."""
    with _gc_paused():
        files: list[_File | Unsupported] = [_read(s) for s in sources]
        parsed = [f for f in files if isinstance(f, _File)]
        target, why = (entry_point, "") if entry_point else infer_entry_point_of(parsed)
        out = _Out()
        ctxs = {id(f): _Ctx(f, target, why, out) for f in parsed if f.source.kind == "python"}
        for c in ctxs.values():
            c.other_texts = [s.text for s in sources if s is not c.file.source]
        _one_source_module(list(ctxs.values()))
        _no_module_writes(list(ctxs.values()))
        library.attach(list(ctxs.values()), given=bool(entry_point))   # other functions of the library under test
        conftests = _attach_conftests(list(ctxs.values()))
        for source, f in zip(sources, files):
            if source.kind == "table":
                _formalize_table(source, target, why, out)
            elif isinstance(f, Unsupported):
                out.errors.append(f)
            elif ctxs[id(f)] not in conftests:
                _formalize_file(f, target, why, out, ctxs[id(f)])
        for c in conftests:
            _finish_conftest(c)
        return out.result()


def is_conftest(path: str) -> bool:
    """A ``conftest.py``: read for the fixtures it defines (pytest never collects tests from it); or
    a pytest configuration file (``pytest.ini`` & co, :mod:`specguard.python.pytestcfg`), read for
    whether it changes pytest's collection."""
    from specguard.python import pytestcfg
    return path.replace("\\", "/").rsplit("/", 1)[-1] == "conftest.py" or pytestcfg.is_config(path)


def _attach_conftests(ctxs: Sequence["_Ctx"]) -> list["_Ctx"]:
    """Give each test file the conftest files pytest loads for it (closest folder first)."""
    from specguard.python.collect import applies_to
    confs = [c for c in ctxs if is_conftest(c.file.path)]
    for c in ctxs:
        if c not in confs:
            mine = [k for k in confs if applies_to(k.file.path, c.file.path)]
            c.conftests = sorted(mine, key=lambda k: -len(k.file.path.replace("\\", "/").split("/")))
    return confs


def _finish_conftest(ctx: "_Ctx") -> None:
    """A conftest's assertions are not tests: those no read test ran (in its fixtures) are
    reported; all are counted."""
    from specguard.python.collect import _prepare_conftest
    start = len(ctx.out.unsupported_)
    _prepare_conftest(ctx)
    f = ctx.file
    keys = f.nodes[ast.Assert] + [c for c in f.nodes[ast.Call] if ctx.is_assertion_call(c)]
    for key in keys:
        if id(key) not in ctx.handled:
            ctx.unsupported(key, "assertion in conftest.py outside a fixture that a read test runs")
    ctx.out.assertions_total += len(keys)
    ctx.out.assertions_read += sum(id(k) in ctx.read for k in keys)
    ctx.out.sort_unsupported_from(start)


def _one_source_module(ctxs: Sequence["_Ctx"]) -> None:
    """Test files that import the function under test from different modules test different
    functions (which module is under test is not known): none of them is read as the entry point."""
    modules = sorted({c.entry_module for c in ctxs if c.entry_module is not None})
    if len(modules) < 2:
        return
    why = f"the test files import `{ctxs[0].target}` from different modules ({', '.join(modules)}): " \
          "which one is under test is not known"
    for c in ctxs:
        c.target_problems = {n: why for n in c.target_names}
        c.source_conflict = why


def _no_module_writes(ctxs: Sequence["_Ctx"]) -> None:
    """A test file or conftest that may write the target's attribute on a module (``lib.f = ...``
    at its top level, ``setattr``, ``sys.modules``, a patch naming ``"lib.f"``) may change what every
    other file's ``from lib import f`` binds (pytest imports all test files before running any, in
    an order the reader does not follow): then no file's name is the function under test."""
    target = ctxs[0].target if ctxs else None
    if not target:
        return
    for c in ctxs:
        hit = None if c.symbols is None else attribute_write(c.symbols, c.file.tree, target)
        if hit is not None:
            why = f"{c.file.path}:{hit[0]} may change `{target}` for every test file ({hit[1]})"
            for other in ctxs:
                other.target_problems = {n: other.target_problems.get(n, why) for n in other.target_names}
                other.source_conflict = other.source_conflict or why
            return


@contextlib.contextmanager
def _gc_paused() -> Iterator[None]:
    """The analysis allocates many small, acyclic objects next to a large AST: cyclic garbage
    collection passes would only rescan them (they double the run time of big files)."""
    enabled = gc.isenabled()
    gc.disable()
    try:
        yield
    finally:
        if enabled:
            gc.enable()


def collected_tests(source: TestSource) -> list[ast.FunctionDef | ast.AsyncFunctionDef]:
    """The test functions and methods of a python source that pytest collects, as this module
    reads them (the final binding of each name, see :func:`_layout`); [] if it does not parse."""
    f = _read(source)
    if not isinstance(f, _File):
        return []
    with _gc_paused():
        return [t.node for t in _layout(f.tree, _Ctx(f, None, "", _Out())).tests]


def infer_entry_point(sources: Sequence[TestSource]) -> str | None:
    """The function under test as inferred from the python sources (see the module docstring)."""
    return infer_entry_point_of([f for f in (_read(s) for s in sources) if isinstance(f, _File)])[0]


# =====================================================================================
# output
# =====================================================================================

@dataclass
class _Pending:
    call: Call
    expect: Expect
    loc: Loc
    text: str
    test_name: str | None
    calls: tuple[Call, ...] = ()
    exposed: tuple[str, ...] = ()


@dataclass
class _Out:
    demands: list[_Pending] = field(default_factory=list)
    unsupported_: list[Unsupported] = field(default_factory=list)
    errors: list[Unsupported] = field(default_factory=list)
    notes: list[str] = field(default_factory=list)
    assumptions: list[str] = field(default_factory=list)
    assertions_total: int = 0
    assertions_read: int = 0
    _seen: set[tuple] = field(default_factory=set)

    def demand(self, p: _Pending) -> None:
        self.demands.append(p)

    def unsupported(self, u: Unsupported) -> None:
        """Record once per (location, reason): a loop or parametrized test repeats its assertions."""
        key = (u.loc.file, u.loc.line, u.loc.pointer, u.reason)
        if key not in self._seen:
            self._seen.add(key)
            self.unsupported_.append(u)

    def sort_unsupported_from(self, start: int) -> None:
        self.unsupported_[start:] = sorted(self.unsupported_[start:], key=lambda u: u.loc.line or 0)

    def result(self) -> TestFormalization:
        demands = tuple(Demand(id=f"T{i}", call=p.call, expect=p.expect, loc=p.loc, text=p.text,
                               test_name=p.test_name, calls=p.calls, exposed=p.exposed)
                        for i, p in enumerate(self.demands, 1))
        return TestFormalization(demands=demands, unsupported=tuple(self.unsupported_), errors=tuple(self.errors),
                                 notes=tuple(dict.fromkeys(self.notes)),
                                 assumptions=tuple(dict.fromkeys(self.assumptions)), assertions_total=self.assertions_total,
                                 assertions_read=self.assertions_read)


# =====================================================================================
# reading a source
# =====================================================================================

_INDEXED = (ast.Assert, ast.Call, ast.With, ast.Global, ast.Import, ast.ImportFrom, ast.Return, ast.Raise)


@dataclass
class _Facts:
    """Names bound in a function's own scope, and whether it is a generator."""

    names: set[str] = field(default_factory=set)
    generator: bool = False


class _File:
    """A parsed python source with the file-wide facts the analyses need, built in one walk:
    nodes by type, imports, lines of attribute/subscript stores, and per-function facts."""

    def __init__(self, source: TestSource, tree: ast.Module, lines: list[str]) -> None:
        self.source = source
        self.tree = tree
        self.lines = lines
        self.nodes: dict[type, list[ast.AST]] = {t: [] for t in _INDEXED}
        self.facts: dict[int, _Facts] = {}
        stores: list[int] = []
        stack: list[tuple[ast.AST, _Facts | None]] = [(tree, None)]
        while stack:
            n, owner = stack.pop()
            if isinstance(n, _INDEXED):
                self.nodes[type(n)].append(n)
            elif isinstance(n, ast.GeneratorExp):
                n.sg_site = source.path       # a generator's value names its file (literals.ev_GeneratorExp)
            elif isinstance(n, (ast.Attribute, ast.Subscript)) and not isinstance(n.ctx, ast.Load):
                stores.append(n.lineno)
            if owner is not None:
                _note_binding(n, owner)
            stack.extend(self._children(n, owner))
        self.store_lines = sorted(stores)
        self.imports = _import_map(self.nodes[ast.Import] + self.nodes[ast.ImportFrom])
        self.symbols = _symbols(tree)
        # names the module binds by something other than an import (`class pytest: ...`, `approx =
        # ...` after `from pytest import approx`): their qualified names are unknown
        sym = self.symbols
        self.shadowed: frozenset[str] | None = None if sym is None else frozenset(
            n for n, bs in sym.bindings.items() if any(b.kind not in ("import", "from") for b in bs))
        self.call_ids = {id(c) for c in self.nodes[ast.Call]}
        self.assertion_call_ids = {id(c) for c in self.nodes[ast.Call] if self._is_assertion_call(c)}

    def _children(self, n: ast.AST, owner: _Facts | None) -> Iterator[tuple[ast.AST, _Facts | None]]:
        """Children with the function scope they belong to (a def's body: its own scope)."""
        if isinstance(n, (ast.FunctionDef, ast.AsyncFunctionDef)):
            facts = self.facts[id(n)] = _Facts()
            for stmt in n.body:
                yield stmt, facts
            for child in (*n.decorator_list, n.args, n.returns):
                if child is not None:
                    yield child, owner
        elif isinstance(n, (ast.Lambda, ast.ClassDef)):
            for child in ast.iter_child_nodes(n):
                yield child, None
        else:
            for child in ast.iter_child_nodes(n):
                yield child, owner

    @property
    def path(self) -> str:
        return self.source.path

    def qual(self, node: ast.AST) -> str | None:
        """Dotted name with the root resolved through the file's imports (``pt.raises`` ->
        ``pytest.raises``); pytest look-alike modules count as pytest (``sympy.testing.pytest.raises``
        -> ``pytest.raises``)."""
        d = dotted_name(node)
        if d is None:
            return None
        root, _, rest = d.partition(".")
        if (root in self.imports or root in _FRAMEWORK_ROOTS) and (self.shadowed is None or root in self.shadowed):
            return f"<rebound>.{d}"                      # rebound in the module: not the import (its
            #                                               parts stay visible: `mock.patch` still patches)
        base = self.imports.get(root, root)
        q = f"{base}.{rest}" if rest else base
        at = q.find(".pytest.")
        return q[at + 1:] if at >= 0 else q

    def is_assertion_call(self, node: ast.AST) -> bool:
        """An assertion API call: ``self.assert*``, any ``assert*`` helper, ``pytest.raises``/``warns``."""
        if id(node) in self.call_ids:
            return id(node) in self.assertion_call_ids
        return isinstance(node, ast.Call) and self._is_assertion_call(node)

    def _is_assertion_call(self, node: ast.Call) -> bool:
        last = _last_part(node.func)
        if last is None:
            return False
        q = self.qual(node.func) or last
        if q.rsplit(".", 1)[-1] == "raises" or q in ("pytest.warns", "pytest.deprecated_call"):
            return True
        return last.startswith("assert") or (last in _UNITTEST_ALIASES and isinstance(node.func, ast.Attribute))


def _note_binding(n: ast.AST, facts: _Facts) -> None:
    if isinstance(n, ast.Name) and isinstance(n.ctx, (ast.Store, ast.Del)):
        facts.names.add(n.id)
    elif isinstance(n, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
        facts.names.add(n.name)
    elif isinstance(n, (ast.Import, ast.ImportFrom)):
        facts.names.update((a.asname or a.name).split(".")[0] for a in n.names if a.name != "*")
    elif isinstance(n, ast.ExceptHandler) and n.name:
        facts.names.add(n.name)
    elif isinstance(n, (ast.MatchAs, ast.MatchStar)) and n.name:
        facts.names.add(n.name)
    elif isinstance(n, ast.MatchMapping) and n.rest:
        facts.names.add(n.rest)
    elif isinstance(n, (ast.Yield, ast.YieldFrom)):
        facts.generator = True


def _read(source: TestSource) -> _File | Unsupported:
    """Parse a python source (tables need no parsing: an empty module stands in)."""
    if source.kind == "table" or is_conftest(source.path) and not source.path.endswith(".py"):
        return _File(source, ast.Module(body=[], type_ignores=[]), [])    # a table; a pytest.ini: no code
    text = source.text
    if text is None:
        return _utf8_error(source.path)
    try:
        text.encode("utf-8")
    except UnicodeEncodeError as e:
        line = text.count("\n", 0, e.start) + 1
        return Unsupported(loc=Loc(file=source.path, line=line),
                           reason="file is not valid UTF-8 (undecodable bytes in the text)")
    text = text[1:] if text.startswith("\ufeff") else text
    try:
        tree = ast.parse(text, filename=source.path)
    except SyntaxError as e:
        return Unsupported(loc=Loc(file=source.path, line=e.lineno), reason=f"syntax error: {e.msg}",
                           text=(e.text or "").strip()[:MAX_TEXT])
    except (ValueError, RecursionError, MemoryError) as e:
        return Unsupported(loc=Loc(file=source.path), reason=f"cannot parse: {e or type(e).__name__}")
    return _File(source, tree, text.splitlines())


def _utf8_error(path: str) -> Unsupported:
    """The loader gives ``text=None`` for a file that is not UTF-8; ask it where the bad byte is."""
    try:
        err = check_utf8(path)
    except SpecGuardError:
        err = None
    if err is None:
        return Unsupported(loc=Loc(file=path), reason="file is not valid UTF-8")
    message = err.args[0].split("\n")[0]
    prefix = f"{path}:{err.line}: " if err.line is not None else f"{path}: "
    return Unsupported(loc=Loc(file=path, line=err.line), reason=message.removeprefix(prefix))


def _unrecovered_lines(f: _File) -> Iterator[Unsupported]:
    """Lines the SWE-bench loader marked as not reconstructable (``# specguard-unrecovered: ...``)."""
    for i, line in enumerate(f.lines, 1):
        at = line.find(UNRECOVERED_MARKER)
        if at >= 0:
            why, _, code = line[at + len(UNRECOVERED_MARKER):].partition(" | ")
            yield Unsupported(loc=Loc(file=f.path, line=i), text=code.strip()[:MAX_TEXT],
                              reason=f"test line could not be reconstructed from the patch: {why.strip()}")


# =====================================================================================
# small AST helpers
# =====================================================================================



def _root_name(node: ast.AST) -> str | None:
    while isinstance(node, (ast.Attribute, ast.Subscript)):
        node = node.value
    return node.id if isinstance(node, ast.Name) else None


def _last_part(node: ast.AST) -> str | None:
    if isinstance(node, ast.Attribute):
        return node.attr
    if isinstance(node, ast.Name):
        return node.id
    return None


def _src(node: ast.AST, limit: int = 60) -> str:
    try:
        s = ast.unparse(node)
    except RecursionError:
        return "<deeply nested expression>"
    return s if len(s) <= limit else s[: limit - 3] + "..."


_SCOPES = (ast.FunctionDef, ast.AsyncFunctionDef, ast.Lambda, ast.ClassDef)


def _walk_local(node: ast.AST) -> Iterator[ast.AST]:
    """ast.walk that yields nested functions, lambdas and classes but does not enter them."""
    stack = [node]
    while stack:
        n = stack.pop()
        yield n
        if n is node or not isinstance(n, _SCOPES):
            stack.extend(ast.iter_child_nodes(n))


def _walk_all(nodes: Iterable[ast.AST]) -> Iterator[ast.AST]:
    for n in nodes:
        yield from ast.walk(n)


_names_in = aliasing.names_in


def _stored_names(nodes: Iterable[ast.AST]) -> set[str]:
    """Names bound anywhere in ``nodes`` (this scope): assignments, loop targets, imports, defs."""
    facts = _Facts()
    for n in _walk_all_local(nodes):
        _note_binding(n, facts)
    return facts.names


def _walk_all_local(nodes: Iterable[ast.AST]) -> Iterator[ast.AST]:
    for n in nodes:
        yield from _walk_local(n)


# =====================================================================================
# file context: imports, qualified names, assertion nodes
# =====================================================================================

class _Ctx:
    """Per-file facts shared by every test of the file."""

    def __init__(self, f: _File, target: str | None, target_why: str, out: _Out) -> None:
        self.file = f
        self.out = out
        self.target = target
        self.target_why = target_why
        self.imports = f.imports
        self.target_names = self._target_names()
        self.symbols = f.symbols
        self.target_problems, self.entry_module = self._resolve_targets()
        self.source_conflict: str | None = None
        self.handled: set[int] = set()
        self.read: set[int] = set()        # assertion nodes that gave a demand (or surely pass)
        self.helper_problems: dict[int, str] = {}   # helper def -> why a call of it was not executed
        self.helper_calls = 0                       # helper calls executed (MAX_HELPER_CALLS)
        self.skipped: set[int] = set()     # assertion nodes of tests that are not selected
        self.run_bodies: list[list[ast.stmt]] = []      # bodies of the tests run, and of those not selected
        self.unrun_bodies: list[list[ast.stmt]] = []
        self.other_texts: list[str] = []                # the other files of the task (they may import a helper)
        self._texts: dict[int, str] = {}
        self._keys: dict[int, list[ast.AST]] = {}      # tree nodes only (ids stay valid)
        self._stored: dict[int, set[str]] = {}
        self._reported: set[tuple[int, str]] = set()
        self.module: dict[str, _Binding] = {}
        self.tables = _Scope({})
        self.module_block: str | None = None
        self.event_lines = self._event_lines()
        self.library: Any = None     # other functions of the library under test (formalize/library.py)

    def _event_lines(self) -> list[int]:
        """Lines of nodes that may exit early or change the environment (to skip walking the
        statements that have none)."""
        f = self.file
        lines = [n.lineno for n in f.nodes[ast.Return] + f.nodes[ast.Raise]] + f.store_lines
        for c in f.nodes[ast.Call]:
            q = self.qual(c.func) or ""
            if q in _EXIT_CALLS or _PATCH_PARTS.intersection(q.split(".")):
                lines.append(c.lineno)
        return sorted(lines)

    def has_event(self, node: ast.AST) -> bool:
        i = bisect.bisect_left(self.event_lines, node.lineno)
        return i < len(self.event_lines) and self.event_lines[i] <= (node.end_lineno or node.lineno)

    def _target_names(self) -> frozenset[str]:
        """The target's name, and ``g`` of ``from m import f as g`` when the file imports ``f``
        under that one name only (two names could be the solution and a reference)."""
        if not self.target:
            return frozenset()
        aliases = [a for a, q in self.imports.items() if q.rsplit(".", 1)[-1] == self.target and a != self.target]
        if len(aliases) == 1 and self.target not in self.imports:
            return frozenset((self.target, aliases[0]))
        return frozenset((self.target,))

    def _resolve_targets(self) -> tuple[dict[str, str], str | None]:
        """Why calls of each name of the target do not reach the function under test (Python's
        binding and import semantics, :mod:`specguard.python.bindings`), and the module it comes from."""
        if self.symbols is None:
            return {n: _TOO_DEEP for n in self.target_names}, None
        entries = {n: resolve_entry(self.symbols, n, self.target) for n in self.target_names}
        problems = {n: e.problem for n, e in entries.items() if e.problem}
        aliases = sorted(n for n in self.target_names if n != self.target)
        if aliases and not self.symbols.of(self.target) and not self.symbols.stars:
            problems.setdefault(self.target, f"`{self.target}` is not bound in this file (it imports "
                                             f"`{self.target}` as `{aliases[0]}`)")
        modules = sorted({e.module for e in entries.values() if e.module is not None and not e.problem})
        if len(modules) > 1:
            why = f"the file imports `{self.target}` from two modules ({', '.join(modules)})"
            problems = {n: problems.get(n, why) for n in self.target_names}
        return problems, modules[0] if len(modules) == 1 else None

    def attribute_problem(self, owner: str, attr: str) -> str | None:
        """Why ``owner.attr(...)`` (``owner`` a dotted name whose root is a module-level import)
        may not be the function under test: the root may be rebound, or the file also imports the
        target by name from another module (``pkg.a.f`` and ``f`` of ``from pkg.b import f``)."""
        if self.symbols is None:
            return _TOO_DEEP
        if self.source_conflict is not None:
            return self.source_conflict
        root, _, rest = owner.partition(".")
        e = resolve_module(self.symbols, root, attr)
        if e.problem:
            return e.problem
        full = f"{e.module}.{rest}" if rest else e.module
        if self.entry_module is not None and full != self.entry_module:
            return f"`{owner}.{attr}` is from `{full}`, while the file's `{self.target}` is imported from " \
                   f"`{self.entry_module}`: two different functions may share the name"
        return None

    def import_problem(self, stmt: ast.Import | ast.ImportFrom, name: str) -> str | None:
        """Why an import in a test that binds a name of the target does not bind the function under test."""
        for a in stmt.names:
            if (a.asname or a.name).split(".")[0] != name:
                continue
            if isinstance(stmt, ast.Import) or a.name != self.target:
                return f"`{name}` is bound at line {stmt.lineno} by an import of `{a.name}`, not of `{self.target}`"
            module = "." * stmt.level + (stmt.module or "")
            if self.entry_module is not None and module != self.entry_module:
                return f"`{name}` is imported at line {stmt.lineno} from `{module}`, while the file imports " \
                       f"`{self.target}` from `{self.entry_module}`"
        return None

    # -- names ----------------------------------------------------------------------
    def qual(self, node: ast.AST) -> str | None:
        return self.file.qual(node)

    def is_assertion_call(self, node: ast.AST) -> bool:
        return self.file.is_assertion_call(node)

    def assertion_keys(self, nodes: Iterable[ast.AST]) -> list[ast.AST]:
        """Every assertion inside ``nodes``: ``assert`` statements and assertion API calls."""
        return [key for node in nodes for key in self._keys_in(node)]

    def _keys_in(self, node: ast.AST) -> list[ast.AST]:
        hit = self._keys.get(id(node))
        if hit is None:
            hit = self._keys[id(node)] = [n for n in ast.walk(node)
                                          if isinstance(n, ast.Assert) or self.is_assertion_call(n)]
        return hit

    def stored_names(self, stmt: ast.stmt) -> set[str]:
        """Names ``stmt`` binds in the current scope (memoised: unrolled loops ask again)."""
        hit = self._stored.get(id(stmt))
        if hit is None:
            hit = self._stored[id(stmt)] = _stored_names([stmt])
        return hit

    # -- text and locations ---------------------------------------------------------
    def text(self, node: ast.AST) -> str:
        hit = self._texts.get(id(node))
        if hit is not None:
            return hit
        a, b = node.lineno, getattr(node, "end_lineno", None) or node.lineno
        s = " ".join(line.strip() for line in self.file.lines[a - 1:b] if line.strip())
        s = s if len(s) <= MAX_TEXT else s[: MAX_TEXT - 3] + "..."
        self._texts[id(node)] = s
        return s

    def loc(self, node: ast.AST) -> Loc:
        return Loc(file=self.file.path, line=node.lineno)

    def unsupported(self, node: ast.AST, reason: str) -> None:
        self.handled.add(id(node))
        if (id(node), reason) not in self._reported:   # loops and parametrized rows repeat assertions
            self._reported.add((id(node), reason))
            self.out.unsupported(Unsupported(loc=self.loc(node), reason=reason, text=self.text(node)))

    def unsupported_inside(self, nodes: Iterable[ast.AST], reason: str) -> None:
        for key in self.assertion_keys(nodes):
            self.unsupported(key, reason)

    def skip_inside(self, nodes: Iterable[ast.AST]) -> None:
        """Assertions that do not count (tests that are not selected)."""
        keys = [id(k) for k in self.assertion_keys(nodes)]
        self.handled.update(keys)
        self.skipped.update(keys)

    def mark_read(self, stmt: ast.AST) -> None:
        """``stmt`` (an assertion, or the statement holding an assertion call) was formalized."""
        self.read.add(id(stmt))
        if isinstance(stmt, (ast.Expr, ast.Assign, ast.AnnAssign)) and stmt.value is not None:
            self.read.add(id(stmt.value))
        elif isinstance(stmt, ast.With):
            self.read.update(id(i.context_expr) for i in stmt.items)


def _real_pytest(file, func: ast.expr) -> bool:
    """``func`` is ``pytest.<name>`` of the module ``pytest`` itself (``import pytest``), not a
    look-alike module's function of that name."""
    d = dotted_name(func)
    return d is not None and d.count(".") == 1 and file.imports.get(d.split(".")[0]) == "pytest"


def _symbols(tree: ast.Module) -> Symbols | None:
    """The module's symbol table (None: nested too deeply to build)."""
    try:
        return Symbols.of_module(tree)
    except RecursionError:
        return None


def _import_map(imports: list[ast.AST]) -> dict[str, str]:
    out: dict[str, str] = {}
    for n in imports:
        if isinstance(n, ast.Import):
            for a in n.names:
                if a.asname:
                    out[a.asname] = a.name
                else:
                    root = a.name.split(".")[0]
                    out[root] = root
        elif isinstance(n, ast.ImportFrom) and n.module:
            for a in n.names:
                if a.name != "*":
                    out[a.asname or a.name] = f"{n.module}.{a.name}"
    return out


# =====================================================================================
# bindings and scopes
# =====================================================================================

_GROUPS = itertools.count(1)


def _new_group() -> frozenset[int]:
    return frozenset((next(_GROUPS),))


@dataclass(frozen=True, slots=True)
class _Binding:
    """What a name holds at a program point.

    ``value`` is the literal value (None: not a literal, ``why`` says why); ``groups`` identify the
    objects it may share with other names (aliasing); ``mutable``: it holds (or may hold) a
    list/dict/set; ``result``: it holds the result of a call of the function under test (the Call,
    or why that call cannot be formalized); ``origin``: how it was bound (assign, import, def,
    class, param, fixture, loop, self)."""

    value: V | None = None
    why: str = ""
    groups: frozenset[int] = frozenset()
    mutable: bool = False
    result: Call | str | None = None
    origin: str = "assign"
    fn: Any = None      # origin "def" at module level: the FunctionDef (a helper that may be executed)
    term: Any = None    # with ``result``: the named.Term the name holds over it (None: the result itself)
    # a result (the Call) the name still holds, read only as immutable plain data: a later call ran
    # since it was bound (that call could change a mutable result it reaches; see Walker.observe_held)
    held: Call | None = None

    def invalid(self, why: str, held: Call | None = None) -> "_Binding":
        return replace(self, value=None, why=why, result=None, fn=None, term=None, held=held,
                       origin="assign" if self.origin == "entry" else self.origin)


def _literal(value: V, groups: frozenset[int], origin: str = "assign") -> _Binding:
    return _Binding(value=value, groups=groups, mutable=is_mutable(value), origin=origin)


def _element(value: V, groups: frozenset[int], origin: str) -> _Binding:
    """A loop item or an unpacked part: a builtin function value (``for key in (abs, len)``,
    :meth:`_Scope.nested_function`) is bound as a function (``key=key`` passes it, ``key(x)`` calls
    the builtin), like ``D = dict``; anything else is a literal."""
    if value.kind == vals_FUNCTION:
        return _Binding(why=f"a function value ({value.val[1]})", origin="lambda", fn=value, groups=groups)
    return _literal(value, groups, origin)


def _opaque(why: str, origin: str = "assign") -> _Binding:
    return _Binding(why=why, origin=origin, groups=_new_group(), mutable=True)


class _Scope(Mapping[str, V]):
    """Names visible in a test: its locals, then the module's bindings.  ``__getitem__`` raises
    :class:`NotLiteral` with the reason for a name without a literal value."""

    def __init__(self, module: dict[str, _Binding], local_names: frozenset[str] = frozenset()) -> None:
        self.module = module
        self.local_names = local_names
        self.locals: dict[str, _Binding] = {}
        self.tracked: set[str] = set()        # locals holding a mutable literal or a result (see bind)

    def binding(self, name: str) -> _Binding | None:
        b = self.locals.get(name)
        if b is not None:
            return b
        if name in self.local_names:
            return _Binding(why="not yet assigned at this point of the test", origin="unbound")
        return self.module.get(name)

    def is_local(self, name: str) -> bool:
        return name in self.locals or name in self.local_names

    def __getitem__(self, name: str) -> V:
        b = self.binding(name)
        if b is None:
            raise NotLiteral(f"`{name}` is not a literal (not bound in this file)")
        if b.value is None:
            raise NotLiteral(f"`{name}` is not a literal ({b.why})")
        return b.value

    def __contains__(self, name: object) -> bool:
        return isinstance(name, str) and self.binding(name) is not None

    def __iter__(self) -> Iterator[str]:
        return iter(set(self.module) | set(self.locals) | set(self.local_names))

    def __len__(self) -> int:
        return len(set(self.module) | set(self.locals) | set(self.local_names))

    def bind(self, name: str, b: _Binding) -> None:
        self.locals[name] = b
        if b.mutable and (b.value is not None or b.result is not None or b.held is not None):
            self.tracked.add(name)
        else:
            self.tracked.discard(name)

    def all_bindings(self) -> Iterator[tuple[str, _Binding]]:
        yield from self.locals.items()

    free_builtins: frozenset[str] = frozenset()   # set by _Walker (concrete.unshadowed_builtins)
    stdlib: Mapping[str, str] = {}                 # set by _Walker (concrete.stdlib_names_of)
    assume: Any = None                             # set by _Walker: states an assumption of the reading

    def stdlib_name(self, dotted: str) -> str | None:
        """The stdlib function or constant ``dotted`` surely denotes here (its root imported once)."""
        root, _, rest = dotted.partition(".")
        b = self.binding(root)
        if root not in self.stdlib or self.is_local(root) or b is None or b.origin != "import":
            return None
        return self.stdlib[root] + ("." + rest if rest else "")

    walker: Any = None                             # set by _Walker.argument_values (nested_function)

    def nested_function(self, node: ast.Name) -> V | None:
        """While a call's arguments are evaluated: a builtin or stdlib function named inside a
        container (``(add, 5)``), as :func:`function_value` keys it; only builtins, whose
        attributes cannot be set, so the one object stands for its name wherever it is."""
        if self.walker is None:
            return None
        v = function_value(self.walker, node)
        return v if v is not None and str(v.val[0]).startswith("builtin:") else None

    def held_builtin(self, name: str) -> str | None:
        """The builtin function a name holds as a value (``D = dict``, ``D = self.D``), or None."""
        b = self.binding(name)
        if b is None or b.origin != "lambda" or not isinstance(b.fn, V) or not isinstance(b.fn.val, tuple):
            return None
        key = b.fn.val[0]
        return key[len("builtin:"):] if isinstance(key, str) and key.startswith("builtin:") else None

    def builtin_ok(self, name: str) -> bool:
        """``name`` surely denotes the builtin here (see :func:`specguard.python.concrete.builtin_call`)."""
        return name in self.free_builtins and self.binding(name) is None


# =====================================================================================
# the subject of an assertion: the call of the function under test
# =====================================================================================

@dataclass(frozen=True)
class _Subject:
    """One side of an assertion.  ``involves``: it mentions the function under test; then
    ``call`` is the formalized call (or ``error`` why not), ``length``: wrapped in ``len()``,
    ``groups``: objects the call's arguments (or the bound result) may share."""

    involves: bool
    call: Call | None = None
    error: str | None = None
    length: bool = False
    groups: frozenset[int] = frozenset()


_NOT_INVOLVED = _Subject(False)


class _Obs(Exception):
    """Internal: not an observation; ``specific``: the reason is about the observation itself
    (reported instead of the direct reading's)."""

    def __init__(self, reason: str, specific: bool) -> None:
        self.reason, self.specific = reason, specific
        super().__init__(reason)


class _MultiCall(_Obs):
    """Internal: the expression reads several different calls (:meth:`_Walker.observe_multi`)."""


class _Unsup(Exception):
    """Internal: an assertion cannot be formalized (carries the reason)."""

    def __init__(self, reason: str) -> None:
        self.reason = reason
        super().__init__(reason)


# =====================================================================================
# the statement walker (one run of one test, or a module's top level)
# =====================================================================================

class _Walker:
    """Walks statements in order, tracking which names hold literals, and formalizes assertions.

    ``mode='test'``: a test body (assertions become demands); ``mode='module'``: a module's top
    level (assertions are unsupported; bindings become the module constants)."""

    def __init__(self, ctx: _Ctx, scope: _Scope, mode: str, test_name: str | None = None,
                 block: str | None = None) -> None:
        self.ctx = ctx
        self.scope = scope
        self.mode = mode
        self.test_name = test_name
        self.block = block
        self.exit: str | None = None
        self.unroll = 1
        self.depth = 0          # helper calls being executed around this walker
        self.returned: str | None = None   # a helper's body ended by `return` (what follows is unreachable)
        self.local_defs: dict[int, tuple[_Binding, ast.FunctionDef]] = {}   # functions defined in the test body
        self.objects = objects.Tracker(self)   # fresh objects of the class under test and their histories
        self.captured: set[str] = set()       # names functions defined in the test reach (aliasing.captured_names)
        scope.free_builtins = concrete.free_builtins_of(ctx)
        scope.stdlib = concrete.stdlib_names_of(ctx)
        scope.assume = ctx.out.assumptions.append     # a stdlib reading's stated assumption (`os.path`)

    # -- emission -------------------------------------------------------------------
    def demand(self, stmt: ast.AST, call: Call, expect: Expect, calls: tuple[Call, ...] = (),
               exposed: tuple[str, ...] = ()) -> None:
        if self.block is not None:
            return self.ctx.unsupported(stmt, self.block)
        self.ctx.mark_read(stmt)
        self.ctx.out.demand(_Pending(call=call, expect=expect, loc=self.ctx.loc(stmt),
                                     text=self.ctx.text(stmt), test_name=self.test_name, calls=calls,
                                     exposed=exposed))

    def unsupported(self, stmt: ast.AST, reason: str) -> None:
        self.ctx.unsupported(stmt, self.block or reason)

    # -- statements -----------------------------------------------------------------
    def run(self, body: Sequence[ast.stmt]) -> None:
        for stmt in body:
            self.stmt(stmt)

    def stmt(self, stmt: ast.stmt) -> None:
        self.objects.before(stmt)
        if hasattr(stmt, "body"):
            self.bind_walrus(stmt)      # `if (b := l): b.append(2)`: the body runs after the header binds
        handler = getattr(self, "stmt_" + type(stmt).__name__, None)
        if handler is None:
            self.opaque(stmt, f"the `{type(stmt).__name__.lower()}` statement at line {stmt.lineno}")
        else:
            handler(stmt)
        self.objects.after(stmt)
        self.bind_walrus(stmt)

    def bind_walrus(self, stmt: ast.stmt) -> None:
        """`:=` binds in this scope wherever it stands in the statement (in a comprehension too),
        to no value that may be anything the statement mentions."""
        for n in _walk_local(stmt):
            if isinstance(n, ast.NamedExpr) and isinstance(n.target, ast.Name):
                self.scope.bind(n.target.id, self.opaque_alias(f"assigned by `:=` at line {n.lineno}", stmt))

    def stmt_Pass(self, stmt: ast.Pass) -> None:
        pass

    def stmt_Assert(self, stmt: ast.Assert) -> None:
        self.ctx.handled.add(id(stmt))
        if isinstance(stmt.test, ast.Constant) and stmt.test.value and self.block is None:
            self.ctx.mark_read(stmt)          # `assert True, "msg"`: passes whatever the function does
        elif self.raises_helper(stmt.test) == "value":
            self.helper_raises(stmt, stmt.test)
        else:
            self.assert_expr(stmt, stmt.test)
        self.after(stmt)

    def stmt_Expr(self, stmt: ast.Expr) -> None:
        asserts = self.ctx.is_assertion_call(stmt.value)
        if self.raises_helper(stmt.value) == "statement":
            self.helper_raises(stmt, stmt.value)
            return self.after(stmt)
        if asserts:
            self.assertion_call(stmt, stmt.value)
        elif isinstance(stmt.value, ast.Call) and self.helper_of(stmt.value) is not None:
            return self.call_helper(stmt, stmt.value)
        self.after(stmt)
        if self.block is None and not asserts:
            self.block = self.side_effect(stmt.value)

    def side_effect(self, value: ast.expr) -> str | None:
        """A call whose result is discarded is made for its effect; when it is not on a local
        object, it may change state the function under test depends on (``sol.set_mode(2)``,
        ``random.seed(0)``, ``setup_db()``)."""
        if not isinstance(value, ast.Call) or self.safe_call(value) or (
                self.is_target_call(value) and self.other_function(value) is None):
            return None     # another library function called for its effect: it may change what follows
        root = _root_name(value.func)
        q = self.ctx.qual(value.func) or ""
        if root is None or root in ("self", "cls") or q.split(".")[0] in _QUIET_MODULES:
            return None
        held = self.scope.binding(root)
        module_object = self.mode == "module" and (held is None or held.origin in ("import", "other-import"))
        if self.scope.is_local(root) and not isinstance(value.func, ast.Name) and not module_object:
            return None
        if self.objects.closure_effect(value):
            return None             # a function of the test reaching only the test's own names
        return f"follows a call made for its effect, which may change what `{self.ctx.target}` sees " \
               f"(`{_src(value.func, 40)}` at line {value.lineno})"

    def stmt_Assign(self, stmt: ast.Assign | ast.AnnAssign) -> None:
        value = stmt.value
        targets = stmt.targets if isinstance(stmt, ast.Assign) else [stmt.target]
        if value is None:
            return
        if self.ctx.is_assertion_call(value):
            self.assertion_call(stmt, value)
        if self.parallel_assign(stmt, targets, value):
            return
        new = self.evaluate_rhs(value, stmt.lineno)
        self.after(stmt)
        got = getattr(self, "returned_value", None)
        if got is not None and got[0] == id(stmt) and got[1] is not None:   # `x = d.setdefault(k, v)`
            new = _literal(got[1], _new_group())
        for t in targets:
            self.bind_target(t, new, stmt.lineno)

    stmt_AnnAssign = stmt_Assign

    def unpacked_plain_dict(self, child: ast.AST) -> bool:
        """``**kw`` with ``kw`` a name holding an exact dict of immutable values (``*xs``: a list or
        tuple of immutable items): Python passes a new dict (a new tuple of arguments), so the
        callee reaches no object of the test."""
        if isinstance(child, ast.Starred) and isinstance(child.value, ast.Name):
            b = self.scope.binding(child.value.id)     # `f(*xs)`: a new tuple of xs's immutable items
            return b is not None and b.value is not None and b.value.kind in ("list", "tuple") \
                and not any(is_mutable(x) for x in b.value.val)
        if not (isinstance(child, ast.keyword) and child.arg is None and isinstance(child.value, ast.Name)):
            return False
        b = self.scope.binding(child.value.id)
        return b is not None and b.value is not None and b.value.kind == "dict" \
            and not any(is_mutable(x) for _, x in b.value.val)

    def unpacked_attribute(self, node: ast.expr) -> bool:
        d = dotted_name(node) if isinstance(node, ast.Attribute) else None
        b = self.scope.binding(d) if d is not None else None
        return b is not None and b.origin == "unpacked"

    def parallel_assign(self, stmt: ast.stmt, targets: list[ast.expr], value: ast.expr) -> bool:
        """``D, kw = self.D, self.kw``: Python builds the tuple (each item evaluated in order), then
        binds the names to its items, so each name holds what its item held: read item by item
        when every item is a name, an attribute or a lambda (nothing that can run code) and the
        targets are plain distinct names.  False: not such a statement (read as before)."""
        if len(targets) != 1 or not isinstance(value, (ast.Tuple, ast.List)):
            return False
        t = targets[0]
        if not isinstance(t, (ast.Tuple, ast.List)) or len(t.elts) != len(value.elts) \
                or not all(isinstance(x, ast.Name) for x in t.elts) \
                or len({x.id for x in t.elts}) != len(t.elts) \
                or not all(isinstance(e, (ast.Name, ast.Attribute, ast.Lambda, ast.Constant)) for e in value.elts):
            return False
        if not any(held_function(self, e) is not None or self.unpacked_attribute(e)
                   for e in value.elts if isinstance(e, (ast.Name, ast.Attribute))):
            return False        # nothing gained over the tuple's own reading
        parts = [self.evaluate_rhs(e, stmt.lineno) for e in value.elts]      # what `x = item` binds
        self.after(stmt)
        for x, b in zip(t.elts, parts):
            self.bind_target(x, b, stmt.lineno)
        return True

    def stmt_AugAssign(self, stmt: ast.AugAssign) -> None:
        t = stmt.target
        new: _Binding | None = None
        if isinstance(t, ast.Name):
            old = self.scope.binding(t.id)
            if old is not None and old.value is not None and not old.mutable:
                new = self.evaluate_rhs(ast.BinOp(left=t, op=stmt.op, right=stmt.value), stmt.lineno)
        self.after(stmt)
        if isinstance(t, ast.Name) and getattr(self, "mutated", None) != id(stmt):
            self.bind_target(t, new or self.opaque_alias(f"changed in place at line {stmt.lineno}", stmt), stmt.lineno)

    def stmt_Delete(self, stmt: ast.Delete) -> None:
        self.after(stmt)
        for t in stmt.targets:
            if isinstance(t, ast.Name):
                self.scope.bind(t.id, _opaque(f"deleted at line {stmt.lineno}"))

    def stmt_Import(self, stmt: ast.Import | ast.ImportFrom) -> None:
        for a in stmt.names:
            if a.name == "*":
                self.star_import(stmt)
                continue
            name = (a.asname or a.name).split(".")[0]
            why = self.ctx.import_problem(stmt, name) if name in self.ctx.target_names else None
            b = _opaque(why or f"imported at line {stmt.lineno}", "other-import" if why else "import")
            if not why and isinstance(stmt, ast.ImportFrom) and not stmt.level:
                b = replace(b, fn=f"{stmt.module}.{a.name}")     # what it names (functions as values)
            self.scope.bind(name, b)

    stmt_ImportFrom = stmt_Import

    def star_import(self, stmt: ast.stmt) -> None:
        for name, b in list(self.scope.all_bindings()):
            self.scope.bind(name, b.invalid(f"may be rebound by the `import *` at line {stmt.lineno}"))

    def stmt_FunctionDef(self, stmt: ast.FunctionDef | ast.AsyncFunctionDef | ast.ClassDef) -> None:
        kind, what = ("class", "class") if isinstance(stmt, ast.ClassDef) else ("def", "function")
        if self.mode == "test":
            self.ctx.unsupported_inside(stmt.body, f"assertion is in the nested {what} `{stmt.name}`, "
                                                   "not directly in the test")
        b = _opaque(f"a {what} defined at line {stmt.lineno}", kind)
        if self.mode != "module":
            self.captured |= aliasing.captured_names(stmt)    # what it may change whenever it runs
        if self.mode == "module" and isinstance(stmt, ast.FunctionDef):
            b = replace(b, fn=stmt)
        elif isinstance(stmt, ast.FunctionDef):
            self.local_defs[id(b)] = (b, stmt)      # while the name holds this very binding
        self.scope.bind(stmt.name, b)

    stmt_AsyncFunctionDef = stmt_FunctionDef
    stmt_ClassDef = stmt_FunctionDef

    def stmt_Return(self, stmt: ast.Return | ast.Raise) -> None:
        if isinstance(stmt, ast.Return) and self.depth and self.returned is None:
            # a helper's `return` (reached unconditionally: in a branch it is opaque): nothing after it
            # in the helper runs, at any nesting (an unrolled loop's next statements and iterations
            # too); the caller goes on (see call_helper)
            self.returned = f"unreachable: after the `return` at line {stmt.lineno}"
            self.block = self.block or self.returned
            return
        self.after(stmt)

    stmt_Raise = stmt_Return

    def stmt_Global(self, stmt: ast.Global | ast.Nonlocal) -> None:
        for name in stmt.names:
            self.scope.bind(name, _opaque(f"declared global at line {stmt.lineno}"))
        if self.mode == "test":
            self.block = self.block or f"follows a `global` declaration at line {stmt.lineno} (global state may change)"

    stmt_Nonlocal = stmt_Global

    def stmt_If(self, stmt: ast.If) -> None:
        if self.mode == "module" and _is_main_guard(stmt.test):
            self.ctx.unsupported_inside(stmt.body + stmt.orelse, "assertion inside `if __name__ == '__main__'`")
            return
        self.opaque(stmt, f"the `if` at line {stmt.lineno}", "its execution is conditional")

    def stmt_While(self, stmt: ast.While) -> None:
        self.opaque(stmt, f"the `while` loop at line {stmt.lineno}", "its execution is conditional")

    def stmt_Try(self, stmt: ast.stmt) -> None:
        idiom = _raises_idiom(stmt, lambda name: _builtin_unshadowed(self, name)) if isinstance(stmt, ast.Try) else None
        if idiom is not None:
            return self.raises_try(stmt, *idiom)
        self.opaque(stmt, f"the `try` at line {stmt.lineno}", "an exception handler may catch the failure")

    def raises_try(self, stmt: ast.Try, exc: ast.expr, body: ast.stmt, fail: ast.stmt) -> None:
        """``try: s.pop() / except KeyError: pass / else: assert False``: exactly ``with
        pytest.raises(KeyError): s.pop()`` (the exception or a subclass passes, another one
        propagates, none fails), read as that block; ``fail`` is the assertion it counts as."""
        cm = ast.copy_location(ast.Call(func=ast.Name("pytest.raises", ast.Load()), args=[exc], keywords=[]), stmt)
        w = ast.copy_location(ast.With(items=[ast.withitem(context_expr=cm)], body=[body]), stmt)
        w.end_lineno = stmt.end_lineno
        ast.fix_missing_locations(w)
        self.objects.before(w, raises=True)
        before = len(self.ctx.out.demands)
        self.raises_with(w, cm, "pytest.raises")
        self.ctx.handled.add(id(fail))
        if len(self.ctx.out.demands) > before:
            self.ctx.mark_read(fail)
        self.after(w)
        self.objects.after(w)

    stmt_TryStar = stmt_Try

    def stmt_Match(self, stmt: ast.stmt) -> None:
        self.opaque(stmt, f"the `match` at line {stmt.lineno}", "its execution is conditional")

    def stmt_AsyncFor(self, stmt: ast.stmt) -> None:
        self.opaque(stmt, f"the `async for` at line {stmt.lineno}")

    def stmt_AsyncWith(self, stmt: ast.stmt) -> None:
        self.opaque(stmt, f"the `async with` at line {stmt.lineno}")

    # -- opaque compound statements -------------------------------------------------
    def opaque(self, stmt: ast.stmt, where: str, why: str = "") -> None:
        """A statement whose effect is not tracked: assertions inside are unsupported, names it
        assigns lose their values, and what follows a possible early exit inside is blocked."""
        self.objects.opaque(stmt, where)
        self.ctx.unsupported_inside([stmt], self.block or f"inside {where}" + (f" ({why})" if why else ""))
        self.after(stmt)
        for name in self.ctx.stored_names(stmt):
            self.scope.bind(name, self.opaque_alias(f"assigned in {where}", stmt))

    # -- after each statement: exits, patches, mutation ---------------------------------
    def after(self, stmt: ast.AST) -> None:
        """Bookkeeping after a statement: early exits and environment changes block what follows;
        mutated objects lose their values."""
        if self.block is None and self.ctx.has_event(stmt):
            self.block = self.exit_or_change(stmt)
        states: dict[str, Call] = {}
        if not self.concrete_mutation(stmt):
            states = self.apply_hazards(stmt)
        self.named_consumed(stmt, keep=set(states))

    def concrete_mutation(self, stmt: ast.AST) -> bool:
        """A known in-place change of a local list/dict/set with an exact value (``l.append(1)``,
        ``d[k] = v``, ``l += [2]``; :func:`specguard.python.concrete.mutation`): the name gets its
        new exact value, every other name that may share the object loses its value."""
        got = concrete.mutation(stmt, self.scope, self.mode, self.tracking())
        if got is None:
            return False
        name, new = got
        b = self.scope.locals[name]
        self.returned_value = (id(stmt), concrete.returned_value(stmt, b.value, self.scope))
        self.invalidate(lambda ob: ob.mutable and bool(ob.groups & b.groups),
                        f"may have been mutated at line {stmt.lineno}")
        self.scope.bind(name, replace(b, value=new, mutable=True))   # `a = b = [1]`: one binding, two names
        self.mutated = id(stmt)
        return True

    def exit_or_change(self, stmt: ast.AST) -> str | None:
        """Why what follows ``stmt`` is blocked: a possible early exit anywhere in it, or (in a
        test) a patch or a change of global state, which may change what the function sees."""
        for n in _walk_local(stmt):
            self.exit = _exit_phrase(self.ctx, n)
            if self.exit is not None:
                return f"follows a possible early exit ({self.exit})"
            change = self.env_change(n)
            if change is not None:
                return change
        return None

    def env_change(self, n: ast.AST) -> str | None:
        if isinstance(n, ast.Call):
            q = self.ctx.qual(n.func) or ""
            if _PATCH_PARTS.intersection(q.split(".")):
                return f"follows a change of the environment (`{q}` at line {n.lineno})"
        elif isinstance(n, (ast.Attribute, ast.Subscript)) and isinstance(n.ctx, (ast.Store, ast.Del)):
            root = _root_name(n)
            b = self.scope.binding(root) if root else None
            local = bool(root) and self.scope.is_local(root) and not (
                self.mode == "module" and (b is None or b.origin in ("import", "other-import")))
            if root not in ("self", "cls") and not local:
                return f"follows a change of global state (`{_src(n)}` at line {n.lineno})"
        return None

    def tracking(self) -> bool:
        """Whether any local holds a mutable literal or a result (else identity does not matter)."""
        return bool(self.scope.tracked)       # kept by _Scope.bind, the only writer of locals during a walk

    def apply_hazards(self, node: ast.AST) -> dict[str, Call]:
        """Names that a statement may mutate (or share with a callee) lose their values, with
        every name that may share an object with them; the objects it may change may now hold
        anything it mentions (:func:`specguard.formalize.aliasing.join_receivers`).  Returns the
        names that now hold what the call of the function under test left in them (argstate.py)."""
        if not self.tracking() and not any(b.mutable for b in self.scope.locals.values()):
            return {}       # no local may hold (or later receive) an object: nothing to drop or join
        hazards = self.hazards(node)
        passed = self.passed_to_target(node) if self.tracking() else set()
        states = self.argument_states(node, passed)
        for name, line in hazards if self.tracking() else ():
            if name == _ANY_CALL:
                self.later_call(f"may have been changed by the call at line {line}")
                continue
            b = self.scope.binding(name)
            if b is not None and b.mutable and self.scope.is_local(name):
                why = f"may have been mutated at line {line}" if name not in passed else \
                    f"may have been mutated by the call of `{self.ctx.target}` at line {line}, which was given " \
                    f"`{name}` (a call is observed by what it returns or raises, not by what it leaves in " \
                    f"an argument)"
                self.invalidate(lambda ob: ob.mutable and bool(ob.groups & b.groups), why)
                if name in states:     # what the call left in it: an input of its own (argstate.py)
                    self.scope.bind(name, _Binding(why=f"the state of `{name}` after the call of "
                                                       f"`{self.ctx.target}` at line {line}",
                                                   result=states[name], groups=b.groups, mutable=True,
                                                   origin="result"))
        aliasing.join_receivers(self.scope, node, hazards, _ANY_CALL, self.objects.is_sentinel)
        return {n: c for n, c in states.items() if (b := self.scope.binding(n)) is not None and b.result == c}

    def argument_states(self, stmt: ast.AST, passed: set[str]) -> dict[str, Call]:
        """Names whose state after the call of the function under test that ``stmt`` is (``f(l)``,
        ``r = f(l)``) the test may read as an input of its own (:mod:`specguard.formalize.argstate`):
        plain local names of a test holding an exact list, dict or set, handed as they are to
        that one exact call."""
        if self.mode != "test" or not passed:
            return {}
        call = self.asserted_call(stmt.test) if isinstance(stmt, ast.Assert) else \
            self.unittest_asserted_call(stmt) if isinstance(stmt, ast.Expr) and self.ctx.is_assertion_call(stmt.value) \
            else stmt.value if isinstance(stmt, (ast.Expr, ast.Assign)) else None
        if isinstance(stmt, ast.Assign) and not (len(stmt.targets) == 1 and isinstance(stmt.targets[0], ast.Name)
                                                 and stmt.targets[0].id not in passed):
            return {}
        if not isinstance(call, ast.Call) or not self.is_target_call(call) or self.other_function(call) is not None \
                or (self.objects.active() and self.objects.observes(call)) \
                or any(isinstance(n, ast.Call) for a in [*call.args, *(k.value for k in call.keywords)] for n in ast.walk(a)):
            return {}
        subject = self.call_subject(call)
        if subject.call is None or library.has_result(subject.call):
            return {}         # only exact arguments: a result passed on is not a value of the input
        out: dict[str, Call] = {}
        for i, a in enumerate(call.args):
            if isinstance(a, ast.Starred):
                break                  # positions after a `*` argument are not known from the text
            self._argument_state(a, str(i), subject.call, out)
        for k in call.keywords:
            if k.arg is not None:
                self._argument_state(k.value, k.arg, subject.call, out)
        return out

    def asserted_call(self, test: ast.expr) -> ast.Call | None:
        """The one call of the function under test that ``assert test`` surely makes and whose
        result it only compares (``f(l) is None``, ``f(l) == v``, ``len(f(l)) == 2``, ``not f(l)``):
        nothing else in the statement runs code that could reach the argument (the other side
        holds no call), and the result is not iterated (a generator's body would run), so what
        the argument holds after the statement is what the call left in it.  (The message of an
        ``assert`` runs only when it fails.)"""
        e = test.operand if isinstance(test, ast.UnaryOp) and isinstance(test.op, ast.Not) else test
        if isinstance(e, ast.Compare):
            if len(e.ops) != 1 or not isinstance(e.ops[0], (ast.Eq, ast.NotEq, ast.Is, ast.IsNot)):
                return None
            sides = [e.left, e.comparators[0]]
        else:
            sides = [e]
        found: list[ast.Call] = []
        for side in sides:
            got = self.compared_call(side)
            if got is not None:
                found.append(got)
            elif not self.inert(side):
                return None
        return found[0] if len(found) == 1 else None

    def compared_call(self, node: ast.expr) -> ast.Call | None:
        """``f(...)``, ``len(f(...))`` or ``type(f(...))`` (neither iterates the result): the call of
        the function under test, else None."""
        if (self.is_builtin_call(node, "len") or self.is_builtin_call(node, "type")) \
                and len(node.args) == 1 and not node.keywords:
            node = node.args[0]
        return node if isinstance(node, ast.Call) and self.is_target_call(node) else None

    def unittest_asserted_call(self, stmt: ast.Expr) -> ast.Call | None:
        """:meth:`asserted_call` of ``self.assertIsNone(f(l))``, ``self.assertEqual(f(l), v)``...
        (unittest's own: a class redefining them is not read), every other argument, the message
        too (unittest evaluates it first), running no code."""
        call = stmt.value
        if any(self.compared_call(a) is None and not self.inert(a)
               for a in [*call.args, *(k.value for k in call.keywords)]):
            return None
        try:
            expr = self.loop_body_assertion(stmt)
        except loops.NotLoopAssertion:
            return None
        return self.asserted_call(expr) if expr is not None else None

    def inert(self, node: ast.expr) -> bool:
        """Whether evaluating ``node`` surely runs no code of the test or the library: constants,
        displays and operators over them and over local names holding exact values (no call, no
        attribute or item of an object, which may run a property or ``__getitem__``)."""
        for n in ast.walk(node):
            if isinstance(n, ast.Name):
                b = self.scope.binding(n.id)
                if not (self.scope.is_local(n.id) and b is not None and b.value is not None):
                    return False
            elif not isinstance(n, (ast.Constant, ast.List, ast.Tuple, ast.Dict, ast.Set, ast.Load, ast.UnaryOp,
                                    ast.BinOp, ast.unaryop, ast.operator)):
                return False
        return True

    def _argument_state(self, a: ast.expr, which: str, call: Call, out: dict[str, Call]) -> None:
        if not isinstance(a, ast.Name) or not self.scope.is_local(a.id) or a.id in out:
            return
        b = self.scope.binding(a.id)
        if b is None or b.value is None or b.value.kind not in ("list", "dict", "set") or b.origin != "assign":
            return
        out[a.id] = call.model_copy(update={"after": which})

    def passed_to_target(self, node: ast.AST) -> set[str]:
        """Names ``node`` hands, as they are, to a call of the function under test (``f(l)``,
        ``f(*l)``, ``f(x=l)``): what that call leaves in them is not an observation of the model."""
        out: set[str] = set()
        for n in ast.walk(node):
            if isinstance(n, ast.Call) and self.is_target_call(n) and self.other_function(n) is None:
                for a in [*n.args, *(k.value for k in n.keywords)]:
                    a = a.value if isinstance(a, ast.Starred) else a
                    if isinstance(a, ast.Name):
                        out.add(a.id)
        return out

    def later_call(self, why: str) -> None:
        """A call that may reach (and change) any result a name holds ran: every such name loses
        its result; one holding the raw result of a call (not a term over it) in a test keeps it
        as ``held``, read only where it is immutable plain data (:meth:`observe_held`), which no
        call can change.  A later change through the name itself, or through anything sharing an
        object with it, or a statement iterating it, drops ``held`` too (:meth:`invalidate`)."""
        for name, b in list(self.scope.all_bindings()):
            if b.result is None:
                continue
            keep = b.result if self.mode == "test" and isinstance(b.result, Call) and b.result.obj is None \
                and b.result.after is None \
                and "." not in name and (b.term is None or (b.term.expr == observe.OBS_VAR and not b.term.guards)) \
                else None
            self.scope.bind(name, b.invalid(why, held=keep))

    def opaque_alias(self, why: str, stmt: ast.AST) -> _Binding:
        """A name bound or changed by ``stmt`` in a way not modelled: no value; it may reach
        anything the statement mentions (an alias: ``if (b := l)``, ``c += [l]``)."""
        return _Binding(why=why, groups=_new_group() | self.groups_of(stmt), mutable=True)

    def invalidate(self, which: Callable[[_Binding], bool], why: str) -> None:
        for name, b in list(self.scope.all_bindings()):
            if b.value is None and b.result is None and b.fn is None and b.term is None and b.held is None and b.why:
                continue        # nothing left to drop: it keeps the first reason
            if which(b):
                self.scope.bind(name, b.invalid(why))

    def hazards(self, node: ast.AST) -> list[tuple[str, int]]:
        """(name, line) of each name whose object ``node`` may mutate or hand to a callee, and
        (_ANY_CALL, line) for each call that may mutate anything it can reach (such as a result
        of the function under test that it kept)."""
        out: list[tuple[str, int]] = []
        for lam in aliasing.lambdas_in(node):
            self.captured |= aliasing.captured_names(lam)
        self._hazards(node, False, out)
        return aliasing.widen_inner(node, out)

    def _hazards(self, node: ast.AST, exposed: bool, out: list[tuple[str, int]]) -> None:
        if not exposed and isinstance(node, (ast.Call, ast.ListComp, ast.SetComp, ast.DictComp)) \
                and self.exact_effectless(node):
            return      # `expected = 'a,b'.split(',')`: computed exactly, nothing the test holds changes
        if isinstance(node, ast.Name):
            if exposed or isinstance(node.ctx, ast.Del):
                out.append((node.id, node.lineno))
            return
        if isinstance(node, (ast.Attribute, ast.Subscript)) and isinstance(node.ctx, (ast.Store, ast.Del)):
            root = _root_name(node)
            if root:
                out.append((root, node.lineno))
        if isinstance(node, ast.AugAssign) and isinstance(node.target, ast.Name):
            out.append((node.target.id, node.lineno))
        if isinstance(node, ast.Call):
            func = node.func
            if isinstance(func, ast.Attribute) and func.attr not in _SAFE_METHODS and not self.safe_call(node):
                root = _root_name(func.value)
                if root:
                    out.append((root, node.lineno))
            self._hazards(func, exposed, out)
            if not self.safe_call(node):
                out.append((_ANY_CALL, node.lineno))
            if self.may_run_closure(node):
                # it may run a function of the test, which may change any name that function reaches
                out.extend((n, node.lineno) for n in sorted(self.captured))
            inner = exposed or not self.safe_call(node)
            for child in itertools.chain(node.args, node.keywords):
                if inner and concrete.immutable_item(child, self.scope):
                    continue        # `f(xs[i])` with an int there: the callee gets no object of `xs`
                if inner and self.unpacked_plain_dict(child):
                    continue        # `f(**kw)`: the callee gets a new dict of kw's immutable values
                self._hazards(child, inner, out)
            return
        for child in ast.iter_child_nodes(node):
            self._hazards(child, exposed, out)

    def exact_effectless(self, node: ast.expr) -> bool:
        """``node`` is computed by the exact evaluator (pure operations on exact values: builtins,
        the whitelisted methods of str/list/dict..., pure stdlib functions, comprehensions) and reads
        no iterator (which Python would advance), no result of the function under test and no
        object: evaluating it changes nothing the test holds (``expected = 'a,b'.split(',')``,
        ``tuple(map(str, range(5)))``, ``[comb(n, k) for k in range(n + 1)]``).  Only where its
        value is not handed on (the caller: not an argument of a call that may keep or mutate it,
        as ``d.get(k)`` is the very object inside ``d``)."""
        inner = _comprehension_names(node)
        for n in ast.walk(node):
            if isinstance(n, (ast.NamedExpr, ast.Lambda, ast.GeneratorExp, ast.Yield, ast.YieldFrom, ast.Await)):
                return False
            if self.is_target_call(n) or self.result_name(n) is not None:
                return False
            if isinstance(n, ast.Name):
                if self.objects.holds(n) is not None:
                    return False
                b = self.scope.binding(n.id)
                if b is None or b.origin in ("lambda", "import"):
                    continue
                if b.value is not None and _holds_iterator(b.value) or b.value is None and n.id not in inner:
                    return False
        before, self.scope.walker = self.scope.walker, self
        try:
            eval_literal(node, self.scope)
        except (NotLiteral, RecursionError):
            return False
        finally:
            self.scope.walker = before
        return True

    def may_run_closure(self, node: ast.Call) -> bool:
        """Whether the call may run a function or class defined in the test (or a lambda): an
        unknown callee, or a known one (``sorted(xs, key=k)``, a test-module helper) given a
        value that is no literal, which may be such a function.  Only names that may hold a
        mutable object now count (an int a lambda reads cannot be changed by running it)."""
        if not any((b := self.scope.binding(n)) is None or b.mutable for n in self.captured):
            return False
        if not self.safe_call(node):
            return True
        for a in [*node.args, *(k.value for k in node.keywords)]:
            for n in ast.walk(a):
                if isinstance(n, ast.Lambda):
                    return True
                if isinstance(n, ast.Name) and self.scope.is_local(n.id):
                    b = self.scope.binding(n.id)
                    if b is None or b.value is None:
                        return True
        return False

    def safe_call(self, node: ast.Call) -> bool:
        if isinstance(node.func, ast.Name) and self.scope.is_local(node.func.id):
            held = self.scope.held_builtin(node.func.id)      # `D({1: 2})` with `D = dict`
            return held is not None and "." not in held and _is_safe_qual(held)
        return _is_safe_qual(self.ctx.qual(node.func) or "") or self.pure_stdlib_call(node)

    def pure_stdlib_call(self, node: ast.Call) -> bool:
        """A call of a pure function of the standard library that the evaluator knows
        (:data:`specguard.python.concrete.STDLIB_CALLS`: ``itertools.permutations``, ``math.comb``,
        the name bound once by its import) whose arguments reach no result of the function under
        test: it changes nothing the test holds (``expected = sorted(set(permutations(xs)))``
        after ``actual = list(f(xs))``)."""
        d = dotted_name(node.func)
        q = self.scope.stdlib_name(d) if d is not None else None
        if q is None or q not in concrete.STDLIB_CALLS:
            return False
        for a in [*node.args, *(k.value for k in node.keywords)]:
            for n in ast.walk(a):
                if self.result_name(n) is not None or self.is_target_call(n) \
                        or (isinstance(n, ast.Name) and self.objects.holds(n) is not None):
                    return False
                if isinstance(n, ast.Name) and isinstance(n.ctx, ast.Load):
                    b = self.scope.binding(n.id)       # an iterator it would advance (`islice(it, 2)`)
                    if b is not None and (b.value is None and b.origin not in ("lambda", "import")
                                          or b.value is not None and _holds_iterator(b.value)):
                        return False
        return True

    # -- assignments ----------------------------------------------------------------
    def evaluate_rhs(self, value: ast.expr, line: int) -> _Binding:
        """What a name assigned ``value`` holds: a literal, the result of the function under
        test, or nothing (with the reason)."""
        if self.denotes_entry(value):
            return _Binding(why=f"the function under test (bound at line {line})", origin="entry",
                            groups=_new_group())
        if isinstance(value, ast.Lambda) and (fv := function_value(self, value)) is not None:
            return _Binding(why=f"a lambda (bound at line {line}), a function value", origin="lambda", fn=fv,
                            groups=_new_group())
        if isinstance(value, ast.Attribute) and (d := dotted_name(value)) is not None \
                and d.split(".")[0] == "self" and (b := self.scope.binding(d)) is not None \
                and b.origin == "unpacked" and b.value is not None:
            # `kw = self.kw` of a class dict that the file only ever unpacks (`**kw`: a new dict
            # for the callee; see collect._only_unpacked): its value, which nothing changes
            return _Binding(value=b.value, why=f"`{d}` (bound at line {line}), only unpacked", groups=_new_group(),
                            mutable=True, origin="unpacked")
        if isinstance(value, (ast.Name, ast.Attribute)):
            held = held_function(self, value)     # `D = dict`, `D = self.D`: the same function object
            if held is not None:
                return _Binding(why=f"a function value (bound at line {line})", origin="lambda", fn=held,
                                groups=_new_group())
        if self.is_target_call(value):
            s = self.call_subject(value)
            result = s.call if s.call is not None else (s.error or "not formalized")
            return _Binding(why=f"bound at line {line} to the result of `{self.ctx.target}`", result=result,
                            groups=_new_group() | s.groups, mutable=True, origin="result")
        named_b = self.named_term(value, line)        # a term over one result (specguard/python/named.py)
        if named_b is not None:
            return named_b
        try:
            v = eval_literal(value, self.scope)
        except NotLiteral as e:
            why = f"bound at line {line} by a call" if isinstance(value, ast.Call) else \
                f"bound at line {line} to a non-literal value: {e.reason}"
            return _Binding(why=why, groups=_new_group() | self.groups_of(value), mutable=True)
        if v.kind in ("list", "tuple", "set", "frozenset") and concrete.fresh_iterable(value, self.scope) \
                and not any(is_mutable(x) for x in v.val):
            return _literal(v, _new_group())   # a new container of immutable items: it shares no object
        return _literal(v, _new_group() | self.groups_of(value))

    def groups_of(self, node: ast.AST) -> frozenset[int]:
        """Objects the value of ``node`` may share with names (the names it mentions), kept even
        while no name holds a literal: an alias made then may reach a literal stored later."""
        groups: set[int] = set()
        for name in _names_in(node):
            b = self.scope.binding(name)
            if b is not None and b.mutable:
                groups |= b.groups
        return frozenset(groups)

    def bind_target(self, target: ast.expr, b: _Binding, line: int) -> None:
        if isinstance(target, ast.Name):
            self.scope.bind(target.id, b)
        elif isinstance(target, (ast.Tuple, ast.List)):
            parts = self.unpack(target, b, line)
            for t, pb in zip(target.elts, parts):
                self.bind_target(t.value if isinstance(t, ast.Starred) else t, pb, line)

    def unpack(self, target: ast.Tuple | ast.List, b: _Binding, line: int) -> list[_Binding]:
        n = len(target.elts)
        v = b.value
        parts = self.named_unpack(target, b, line) if b.result is not None else None
        if parts is not None:
            return parts
        if any(isinstance(t, ast.Starred) for t in target.elts):
            why = f"bound at line {line} by a starred unpacking"
        elif b.result is not None:
            why = f"bound at line {line} by unpacking the result of `{self.ctx.target}`"
        elif v is None:
            why = b.why
        elif v.kind not in ("list", "tuple") or len(v.val) != n:
            why = f"bound at line {line} by an unpacking that does not match the value"
        else:
            return [_element(x, b.groups, "assign") for x in v.val]
        return [_Binding(why=why, groups=b.groups, mutable=True)] * n

    # -- with -----------------------------------------------------------------------
    def stmt_With(self, stmt: ast.With) -> None:
        cms = [item.context_expr for item in stmt.items]
        quals = [self.ctx.qual(c.func) if isinstance(c, ast.Call) else None for c in cms]
        if len(cms) == 1 and quals[0] in _RAISES_APIS:
            self.raises_with(stmt, cms[0], quals[0])
            self.after(stmt)
            self.bind_with_targets(stmt)
        elif all(q in _INLINE_CMS for q in quals):
            for c, q in zip(cms, quals):
                if self.ctx.is_assertion_call(c):
                    self.ctx.handled.add(id(c))
                    self.unsupported(stmt, f"`{q}` assertions are not supported")
            self.bind_with_targets(stmt)
            self.run(stmt.body)
        else:
            what = ", ".join(_src(c, 40) for c in cms)
            self.opaque(stmt, f"`with {what}` at line {stmt.lineno}",
                        "the context manager may suppress failures or change behaviour")

    def bind_with_targets(self, stmt: ast.With) -> None:
        for item in stmt.items:
            if item.optional_vars is not None:
                self.bind_target(item.optional_vars, self.opaque_alias(f"bound by `with` at line {stmt.lineno}",
                                                                       item.context_expr),
                                 stmt.lineno)

    # -- for ------------------------------------------------------------------------
    def stmt_For(self, stmt: ast.For) -> None:
        reason = self.unroll_problem(stmt)
        elements: list[V] = []
        if reason is None:
            self.scope.walker = self          # builtin functions inside the iterable: `(abs, len)`
            try:
                elements = eval_iterable(stmt.iter, self.scope)
            except NotLiteral as e:
                reason = f"its iterable is not a literal: {e.reason}"
            finally:
                self.scope.walker = None
            if reason is not None and self.involves(stmt.iter):   # a loop over a term: one assertion
                return self.loop_over_term(stmt)
        if reason is None and len(elements) > MAX_LOOP_ITERATIONS:
            reason = f"it has {len(elements)} iterations (limit {MAX_LOOP_ITERATIONS})"
        if reason is None and self.unroll * max(len(elements), 1) > MAX_UNROLL:
            reason = f"nested loops with more than {MAX_UNROLL} iterations"
        if reason is not None:
            return self.opaque(stmt, f"the loop at line {stmt.lineno}", reason)
        self.unrolled(stmt, elements)

    def loop_over_term(self, stmt: ast.For) -> None:
        """``for T in I`` over the result of the function under test, read as the one assertion
        ``all(<body's assertions> for T in I)`` (specguard/python/loops.py)."""
        where = f"the loop at line {stmt.lineno}"
        try:
            reading = loops.read(stmt, self.loop_body_assertion,
                                 lambda f: self.ctx.qual(f) in ("self.subTest", "subtests.test"))
            self.observe(stmt, reading.expr)
        except loops.NotLoopAssertion as e:
            return self.opaque(stmt, where, f"over a result of `{self.ctx.target}`: {e.reason}")
        except (_Obs, _Unsup) as e:
            return self.opaque(stmt, where, f"read as one assertion over its items: {e.reason}")
        if id(stmt) in self.ctx.read:
            for k in reading.keys:
                self.ctx.mark_read(k)
            self.ctx.handled.update(id(k) for k in self.ctx.assertion_keys([stmt]))
        else:                                  # blocked by an earlier statement (demand() said why)
            self.ctx.unsupported_inside([stmt], self.block or f"inside {where}")
        self.after(stmt)
        for name in self.ctx.stored_names(stmt):
            self.scope.bind(name, _opaque(f"assigned in {where} (its last item, or unbound)"))

    def loop_body_assertion(self, stmt: ast.stmt) -> ast.expr | None:
        """What a statement of a loop body asserts (``assert E``, ``self.assertEqual(a, b)``...), as
        one expression whose truth is the assertion's; None: not an assertion."""
        if isinstance(stmt, ast.Assert):
            return stmt.test
        if not (isinstance(stmt, ast.Expr) and self.ctx.is_assertion_call(stmt.value)):
            return None
        call = stmt.value
        q = self.ctx.qual(call.func) or ""
        method = _UNITTEST_ALIASES.get(_last_part(call.func) or "", _last_part(call.func) or "")
        if not q.startswith("self.") or any(isinstance(a, ast.Starred) for a in call.args) \
                or any(k.arg is None for k in call.keywords):
            raise loops.NotLoopAssertion(f"the assertion `{_src(call.func, 30)}` at line {stmt.lineno}")
        args = self.unittest_args(call)
        if method in _UNITTEST_COMPARE and len(args) >= 2:
            return ast.Compare(left=args[0], ops=[_UNITTEST_COMPARE[method]()], comparators=[args[1]])
        if method in ("assertTrue", "assertFalse") and args:
            return args[0] if method == "assertTrue" else ast.UnaryOp(ast.Not(), args[0])
        if method in ("assertIsNone", "assertIsNotNone") and args:
            op = ast.Is() if method == "assertIsNone" else ast.IsNot()
            return ast.Compare(left=args[0], ops=[op], comparators=[ast.Constant(None)])
        raise loops.NotLoopAssertion(f"`{method}` at line {stmt.lineno} in its body is not read in a loop")

    def unroll_problem(self, stmt: ast.For) -> str | None:
        if self.mode == "module":
            return "a module-level loop"
        body = stmt.body + stmt.orelse
        for n in _walk_all_local(stmt.body):
            if isinstance(n, (ast.Break, ast.Continue)):
                return f"it has a `{type(n).__name__.lower()}` at line {n.lineno}"
        if concrete.fresh_iterable(stmt.iter, self.scope):
            return None     # evaluated once into a new object: the body cannot change which items it
            #                 iterates; an item sharing an object the body may change: unrolled()
        iter_names = {n for n in _names_in(stmt.iter) if (b := self.scope.binding(n)) is not None and b.mutable}
        used = iter_names & {n.id for n in _walk_all_local(body) if isinstance(n, ast.Name)}
        if used:
            return f"its body uses its iterable `{sorted(used)[0]}`"
        iter_groups = self.groups_of(stmt.iter)
        targets = _stored_names([stmt.target])
        for name, _ in self.hazards(ast.Module(body=body, type_ignores=[])):
            b = self.scope.binding(name)
            if name not in targets and b is not None and b.groups & iter_groups:
                return f"its body may change its iterable (through `{name}`)"
        return None

    def item_sources(self, stmt: ast.For, n: int) -> list[ast.expr]:
        """The expression each of the ``n`` items of a loop comes from: its element of a list or
        tuple display (``for n, e in [(1, [xs]), (2, [[5]])]``: only the first item reaches ``xs``),
        else the whole iterable."""
        it = stmt.iter
        if isinstance(it, (ast.List, ast.Tuple)) and len(it.elts) == n \
                and not any(isinstance(e, ast.Starred) for e in it.elts):
            return list(it.elts)
        return [it] * n

    def unrolled(self, stmt: ast.For, elements: list[V]) -> None:
        shared = self.shares_module_value(stmt.iter)
        base_groups = self.groups_of(stmt.iter)
        sources = self.item_sources(stmt, len(elements))
        # a fresh iterable's items were evaluated before the first iteration: an item holding an
        # object of a name (`[iterable]`) is still that value while the name's binding is the one the
        # loop started with (a change through any alias invalidates every binding sharing the object)
        watch = [{n: b for n in _names_in(src) if (b := self.scope.binding(n)) is not None and b.mutable}
                 for src in sources]
        item_groups = [self.groups_of(src) if src is not stmt.iter else base_groups for src in sources]
        self.unroll *= max(len(elements), 1)
        try:
            for i, v in enumerate(elements):
                groups = item_groups[i]
                stale = next((n for n, b in watch[i].items() if self.scope.binding(n) is not b), None)
                if shared and is_mutable(v):
                    b = _Binding(why=f"an element of a module-level mutable value (loop at line {stmt.lineno}); "
                                     "tests share it", groups=base_groups, mutable=True)
                elif stale is not None and is_mutable(v):
                    why = (f"an item of the loop at line {stmt.lineno} holding an object of `{stale}`, which an "
                           "earlier iteration may have changed")
                    b = _Binding(why=why, groups=groups | _new_group(), mutable=True)
                    t = stmt.target
                    if isinstance(t, ast.Tuple) and v.kind in ("list", "tuple") and len(t.elts) == len(v.val) \
                            and all(isinstance(e, ast.Name) for e in t.elts):
                        # `for n, e in [(1, [xs]), ...]`: the immutable parts are still exact
                        for e, x in zip(t.elts, v.val):
                            self.scope.bind(e.id, _element(x, b.groups, "loop") if not is_mutable(x)
                                            else _Binding(why=why, groups=b.groups, mutable=True))
                        self.run(stmt.body)
                        continue
                else:
                    b = _element(v, _new_group() | groups, "loop")
                    parts = self.display_parts(stmt.target, sources[i], v) if sources[i] is not stmt.iter else None
                    if parts is not None:
                        # `for it, expected in [([0], []), ...]`: each part its own object
                        for e, x, g in zip(stmt.target.elts, v.val, parts):
                            self.scope.bind(e.id, _element(x, g, "loop"))
                        self.run(stmt.body)
                        continue
                self.bind_target(stmt.target, b, stmt.lineno)
                self.run(stmt.body)
        finally:
            self.unroll //= max(len(elements), 1)
        self.run(stmt.orelse)

    def display_parts(self, target: ast.expr, src: ast.expr, v: V) -> list[frozenset[int]] | None:
        """``a, b = (x, [1])`` unpacked from a tuple or list display: Python evaluates each item
        of the display to its own object (a display builds a new list/dict/set every time; only
        immutable constants may be shared), so each target may share objects only with the names
        its own item mentions: per target, a new group and the groups of those names.  None: not
        such an unpacking (plain distinct names, a display of as many items, no starred item, no
        call, attribute, subscript, walrus, lambda or comprehension in it, an exact value of that
        length)."""
        if not (isinstance(target, (ast.Tuple, ast.List)) and isinstance(src, (ast.Tuple, ast.List))
                and len(target.elts) == len(src.elts) and all(isinstance(e, ast.Name) for e in target.elts)
                and len({e.id for e in target.elts}) == len(target.elts)
                and v.kind in ("list", "tuple") and len(v.val) == len(src.elts)):
            return None
        allowed = (ast.Constant, ast.List, ast.Tuple, ast.Set, ast.Dict, ast.Name, ast.Load, ast.UnaryOp,
                   ast.BinOp, ast.operator, ast.unaryop)
        if not all(isinstance(n, allowed) for n in ast.walk(src)):
            return None
        return [_new_group() | self.groups_of(e) for e in src.elts]

    def shares_module_value(self, node: ast.AST) -> bool:
        return any(not self.scope.is_local(n) and (b := self.scope.binding(n)) is not None and b.mutable
                   for n in _names_in(node))

    # =================================================================================
    # assertions
    # =================================================================================
    def assertion_call(self, stmt: ast.stmt, call: ast.Call) -> None:
        self.ctx.handled.add(id(call))
        try:
            self.formalize_call(stmt, call)
        except _Unsup as u:
            self.unsupported(stmt, u.reason)

    def formalize_call(self, stmt: ast.stmt, call: ast.Call) -> None:
        q = self.ctx.qual(call.func) or ""
        method = _UNITTEST_ALIASES.get(_last_part(call.func) or "", _last_part(call.func) or "")
        if q == "pytest.raises" or (q.startswith("self.") and method in ("assertRaises", "assertRaisesRegex")):
            return self.raises_callable(stmt, call, "assertRaisesRegex" if method == "assertRaisesRegex" else q)
        if not q.startswith("self."):
            raise _Unsup(f"assertion helper `{q or _src(call.func)}` is not supported")
        if any(isinstance(a, ast.Starred) for a in call.args) or any(k.arg is None for k in call.keywords):
            raise _Unsup("assertion arguments use `*`/`**`")
        args = self.unittest_args(call)
        if method in _UNITTEST_COMPARE:
            need(len(args) >= 2, f"`{method}` needs two arguments")
            node = ast.Compare(left=args[0], ops=[_UNITTEST_COMPARE[method]()], comparators=[args[1]])
            return self.assert_expr(stmt, node)
        if method in ("assertTrue", "assertFalse"):
            need(len(args) >= 1, f"`{method}` needs an argument")
            return self.assert_expr(stmt, args[0], negate=method == "assertFalse")
        if method in ("assertIsNone", "assertIsNotNone"):
            need(len(args) >= 1, f"`{method}` needs an argument")
            op = ast.Is() if method == "assertIsNone" else ast.IsNot()
            return self.assert_expr(stmt, ast.Compare(left=args[0], ops=[op], comparators=[ast.Constant(None)]))
        if method in ("assertIsInstance", "assertNotIsInstance"):
            need(len(args) >= 2, f"`{method}` needs two arguments")
            return self.isinstance_(stmt, args[0], args[1], method == "assertNotIsInstance")
        if method == "assertAlmostEqual":
            return self.almost_equal(stmt, call, args)
        if method == "assertCountEqual":
            need(len(args) >= 2, f"`{method}` needs two arguments")
            try:
                want = eval_literal(args[1], self.scope)
            except NotLiteral as e:
                raise _Unsup(f"`assertCountEqual` against {_what(args[1], e)}") from None
            try:
                return self.assert_expr(stmt, observe.count_equal(args[0], args[1], want))
            except observe.NotObservation as e:
                raise _Unsup(f"`assertCountEqual`: {e.reason}") from None
        raise _Unsup(f"`{method}` is not supported")

    @staticmethod
    def unittest_args(call: ast.Call) -> list[ast.expr]:
        """Positional arguments, with ``first=``/``second=``/``expr=``/... keywords put in place."""
        args = list(call.args)
        kw = {k.arg: k.value for k in call.keywords}
        for group in (("first", "expr", "obj", "member"), ("second", "cls", "container")):
            given = [kw[name] for name in group if name in kw]
            if given and len(args) == (0 if group[0] == "first" else 1):
                args.append(given[0])
        return args

    # -- boolean structure -----------------------------------------------------------
    def assert_expr(self, stmt: ast.AST, expr: ast.expr, negate: bool = False) -> None:
        try:
            self.assert_expr_parts(stmt, expr, negate)
        except _Unsup as u:
            self.unsupported(stmt, u.reason)

    def observe_held(self, stmt: ast.AST, node: ast.expr) -> bool:
        """``r = f(x)``, a later call, then ``assert r == 5``: the later call may have changed the
        object ``r`` holds if it is mutable (a function may keep what it returned and change it
        on its next call, or hand it to any other code), never if it is immutable plain data (an
        int, a str, a tuple of those...).  The assertion is then one guarded observation of the
        call (:func:`specguard.python.multiterm.compile_multi` with one call guarded by value):
        if the result's class is immutable plain data, the expression holds on it.  Only names
        whose binding kept the result as ``held`` (:meth:`later_call`), all of one call, with no
        other call of the function under test or live result in the assertion, and literals that
        share no object with the call's arguments.  False: not read this way (the caller keeps
        its reason)."""
        if self.mode != "test" or self.block is not None or self.involves(node):
            return False
        held = {n.id: b for n in ast.walk(node) if isinstance(n, ast.Name)
                and (b := self.scope.binding(n.id)) is not None and b.held is not None and self.scope.is_local(n.id)}
        if not held or len({b.held.key() for b in held.values()}) != 1:
            return False
        call = next(iter(held.values())).held
        groups = frozenset().union(*(b.groups for b in held.values()))
        try:
            built = observe.build(node, is_call=lambda n: isinstance(n, ast.Name) and n.id in held,
                                  literal=lambda n: eval_literal(n, self.scope),
                                  builtin=lambda name: name not in self.scope, check=False)
        except observe.NotObservation:
            return False
        if not built.calls or any(self.groups_of(n) & groups for n in built.literals):
            return False
        uses = named.consumed(stmt, set(held))
        if sum(len(u) for u in uses.values()) > 1:
            return False        # iterating the value twice: an iterator's second reading sees fewer items
        try:
            multiterm.compile_multi(built.text, 1, ("value",))
        except speclang.ObservationError:
            return False
        self.demand(stmt, call, Expect(kind=ExpectKind.obs, expr=built.text, bound_result=True),
                    exposed=("value",))
        return True

    def assert_expr_parts(self, stmt: ast.AST, expr: ast.expr, negate: bool) -> None:
        if isinstance(expr, ast.BoolOp):
            if isinstance(expr.op, ast.And) != negate:   # a and b / not (a or b): every part holds
                for part in expr.values:
                    self.assert_expr(stmt, part, negate)
                    self.apply_hazards(part)
                return
            raise _Unsup("`or` in an assertion (either part may hold)" if not negate
                         else "`not (a and b)` in an assertion (either part may fail)")
        if isinstance(expr, ast.UnaryOp) and isinstance(expr.op, ast.Not):
            return self.assert_expr_parts(stmt, expr.operand, not negate)
        if isinstance(expr, ast.Compare):
            return self.compare_chain(stmt, expr, negate)
        if self.is_isclose(expr):
            need(not negate, "`not math.isclose(...)` is not supported")
            return self.isclose(stmt, expr)
        if isinstance(expr, ast.Call) and self.ctx.qual(expr.func) in ("math.isnan", "math.isinf") \
                and len(expr.args) == 1 and not expr.keywords and self.involves(expr.args[0]):
            s = self.target_subject(expr.args[0])        # `math.isnan(f(x))`: the class nan (exact)
            need(not s.length, "`math.isnan(len(...))` is not supported")
            assert s.call is not None
            kind = ExpectKind.not_float_class if negate else ExpectKind.float_class
            return self.demand(stmt, s.call, Expect(kind=kind, types=(self.ctx.qual(expr.func)[len("math.is"):],)))
        try:
            if self.is_builtin_call(expr, "isinstance"):
                need(len(expr.args) == 2 and not expr.keywords, "`isinstance` needs two arguments")
                return self.isinstance_(stmt, expr.args[0], expr.args[1], negate)
            return self.truth(stmt, expr, negate)
        except _Unsup as u:
            self.observe_or(stmt, ast.UnaryOp(op=ast.Not(), operand=expr) if negate else expr, u)

    # -- floats ------------------------------------------------------------------------
    def is_isclose(self, node: ast.expr) -> bool:
        return isinstance(node, ast.Call) and self.ctx.qual(node.func) == "math.isclose"

    def isclose(self, stmt: ast.AST, call: ast.Call) -> None:
        """``math.isclose(call, v, rel_tol=, abs_tol=)`` (either order): an exact rational
        enclosure of the results it accepts (:func:`specguard.kernel.emit.isclose_enclosure`)."""
        need(len(call.args) == 2 and not any(isinstance(a, ast.Starred) for a in call.args)
             and all(k.arg in ("rel_tol", "abs_tol") for k in call.keywords),
             "`math.isclose` takes two values and rel_tol=/abs_tol= here")
        a, b = call.args
        sa, sb = self.subject(a), self.subject(b)
        need(not (sa.involves and sb.involves), f"assertion compares two calls of `{self.ctx.target}`")
        s, other = (sa, b) if sa.involves else (sb, a)
        if not s.involves:
            raise _Unsup(self.no_target(a, b))
        if s.error:
            raise _Unsup(s.error)
        need(not s.length and s.call is not None, "`math.isclose` of a transformed result is not supported")
        v = self.expected(other, s)
        need(v.kind in ("int", "float") and not contains_nan(v), "`math.isclose` with a non-numeric value")
        kw = {k.arg: k.value for k in call.keywords}
        rel = self.tolerance(kw.get("rel_tol"), "rel_tol")
        abs_ = self.tolerance(kw.get("abs_tol"), "abs_tol")
        self.float_note()
        self.demand(stmt, s.call, Expect(kind=ExpectKind.approx, value=v, rel=rel, abs=abs_, isclose=True))

    def float_note(self) -> None:
        self.ctx.out.notes.append(FLOAT_NOTE)

    # -- observations (specguard/python/terms.py) ---------------------------------------------
    def observe_or(self, stmt: ast.AST, node: ast.expr, why: _Unsup) -> None:
        """``node`` as an observation of one call; when it is none, the direct reading's reason
        ``why`` (unless the observation's own reason says more: an unsound operation)."""
        try:
            self.observe(stmt, node)
        except _Obs as o:
            if self.observe_held(stmt, node):
                return
            generic = why.reason.startswith(f"the result of `{self.ctx.target}` is transformed")
            raise _Unsup(o.reason if o.specific or generic else why.reason) from None

    def observe(self, stmt: ast.AST, node: ast.expr) -> None:
        if not self.involves(node):
            raise _Obs(self.no_target(node), False)
        try:
            call, text, guards, bound = self.observed(stmt, node)
        except _MultiCall:
            return self.observe_multi(stmt, node)
        except _Obs as e:
            if e.reason != observe.FLOAT_REASON:
                raise
            # `list(f(x)) == [5.0, 3.75]`: kept only in the form the list(f(...)) model reads as an
            # exact `==` (iterate.float_list_eq); dropped later unless that model applies
            call, text, guards, bound = self.observed(stmt, node, floats=True)
            if guards or bound or not iterate.float_list_eq(text):
                raise
            return self.demand(stmt, call, Expect(kind=ExpectKind.obs, expr=text, bound_result=bound))
        text = " and ".join([*guards, f"({text})"]) if guards else text
        try:
            observe.compiles(text)
        except observe.NotObservation as e:
            raise _Obs(e.reason, e.unsound) from None
        self.demand(stmt, call, Expect(kind=ExpectKind.obs, expr=text, bound_result=bound))

    def observed(self, stmt: ast.AST | None, node: ast.expr,
                 floats: bool = False) -> tuple[Call, str, tuple[str, ...], bool]:
        """``node`` as an expression over the result of one call: (the call, the text, the guards
        the bindings of the names it reads established, whether it reads a name bound earlier);
        a name holding a term (:mod:`specguard.python.named`) stands for its term.  Raises _Obs."""
        try:
            built = observe.build(node, is_call=lambda n: self.is_target_call(n) or self.result_name(n) is not None
                                  or self.held_name(n) is not None,
                                  literal=lambda n: eval_literal(n, self.scope),
                                  builtin=lambda name: name not in self.scope, term_of=self.term_node,
                                  check=False, floats=floats)
        except observe.NotObservation as e:
            raise _Obs(e.reason, e.unsound) from None
        helds = [h for n in built.calls if (h := self.held_name(n)) is not None]
        if helds:       # a result held across a later call: only a guarded reading (observe_multi, observe_held)
            keys = {h.held.key() for h in helds} | {self.subject(n, terms=True).call.key() for n in built.calls
                                                     if self.held_name(n) is None
                                                     and self.subject(n, terms=True).call is not None}
            if len(keys) > 1:
                raise _MultiCall("a held result with another call", False)
            raise _Obs(f"`{_src(node, 40)}` reads a result held across a later call", False)
        subjects = [self.subject(n, terms=True) for n in built.calls]
        for s in subjects:
            if s.error:
                raise _Obs(s.error, False)
        if len({s.call.key() for s in subjects}) != 1:
            raise _MultiCall(f"the assertion uses different calls of `{self.ctx.target}` (an observation reads one)",
                             False)
        s = subjects[0]
        fresh = [n for n in built.calls if isinstance(n, ast.Call)]
        if len(fresh) > 1 and s.groups or fresh and len(fresh) < len(built.calls) and s.groups:
            raise _Obs(f"the same call of `{self.ctx.target}` is made twice with a mutable argument (the first "
                       f"call may change it)", False)
        for n in built.literals:
            if self.groups_of(n) & s.groups:
                raise _Obs(f"`{_src(n, 40)}` may share a mutable object with the arguments of `{self.ctx.target}` "
                           f"(which may mutate them)", False)
        held = {n.id: b for n in built.calls if isinstance(n, ast.Name) and (b := self.result_name(n)) is not None}
        names = list(held.values())
        uses = named.consumed(stmt, set(held)) if stmt is not None and held else {}
        uses = {n: u for n, u in uses.items() if not (all(u) and held[n].term is not None
                                                      and named.fresh(held[n].term.expr))}
        if sum(len(u) for u in uses.values()) > 1:
            raise _Obs(f"the assertion iterates `{sorted(uses)[0]}` (bound to a result of `{self.ctx.target}`) "
                       f"more than once (an iterator's second reading sees fewer items)", False)
        guards = tuple(dict.fromkeys(g for b in names if b.term is not None for g in b.term.guards))
        bound = any(b.term is None or b.term.from_name for b in names)
        return s.call, built.text, guards, bound

    def observe_multi(self, stmt: ast.AST, node: ast.expr) -> None:
        """``node`` reads several different calls (``f(a) == f(b)``): one demand over all of
        them (:mod:`specguard.python.multiterm`).  Only fresh calls of plain functions, each
        evaluated unconditionally, with arguments that share no mutable object."""
        why = multiterm.conditional_problem(node, self.is_target_call, self.ctx.target)
        if why is not None:
            raise _Obs(why, True)
        subjects: dict[int, _Subject] = {}
        order: list[str] = []

        def var_of(n: ast.AST) -> str:
            h = self.held_name(n)
            if h is not None:       # read after a later call: guarded by value (multiterm.exposure of a name)
                subjects[id(n)] = _Subject(True, call=h.held, groups=h.groups)
                k = h.held.key()
                if k not in order:
                    order.append(k)
                return multiterm.var(order.index(k))
            b = self.result_name(n)
            if b is not None and (isinstance(b.result, str) or not _raw(b)):
                raise _MultiCall(f"`{_src(n, 30)}` ({b.why}) in an assertion of several calls: "
                                 + (b.result if isinstance(b.result, str) else "a term over a result"), True)
            if not isinstance(n, ast.Call) and b is None:
                raise _MultiCall(f"`{_src(n, 30)}` in an assertion of several calls is not a call of "
                                 f"`{self.ctx.target}` or a name holding its result", True)
            s = self.call_subject(n) if isinstance(n, ast.Call) else _Subject(True, call=b.result, groups=b.groups)
            if s.error or s.call is None:
                raise _MultiCall(s.error or "not a call", True)
            subjects[id(n)] = s
            k = s.call.key()
            if k not in order:
                order.append(k)
            return multiterm.var(order.index(k))
        try:
            built = observe.build(node, is_call=lambda n: self.is_target_call(n) or self.result_name(n) is not None
                                  or self.held_name(n) is not None,
                                  literal=lambda n: eval_literal(n, self.scope),
                                  builtin=lambda name: name not in self.scope, check=False, var_of=var_of)
        except observe.NotObservation as e:
            raise _Obs(e.reason, e.unsound) from None
        except _MultiCall as m:
            raise _Obs(m.reason, m.specific) from None
        calls = {s.call.key(): s for s in subjects.values()}
        held = {n.id for n in built.calls if isinstance(n, ast.Name)}
        fresh = [n for n in built.calls if isinstance(n, ast.Call)]
        for k, s in calls.items():
            same = [n for n in built.calls if subjects[id(n)].call.key() == k]
            if len(same) > 1 and s.groups and any(isinstance(n, ast.Call) for n in same):
                raise _Obs(f"the same call of `{self.ctx.target}` is made twice with a mutable argument (the first "
                           f"call may change it)", True)
        uses = named.consumed(stmt, held) if held else {}
        if any(len(u) > 1 for u in uses.values()):
            raise _Obs(f"the assertion iterates `{sorted(uses)[0]}` (bound to a result of `{self.ctx.target}`) "
                       f"more than once (an iterator's second reading sees fewer items)", True)
        del fresh
        if any(s.call.obj is not None for s in calls.values()):
            raise _Obs(f"several observations of objects in one assertion", True)
        groups = [s.groups for s in subjects.values()]
        if any(a & b for a, b in itertools.combinations(groups, 2)):
            raise _Obs(f"calls of `{self.ctx.target}` in one assertion share a mutable argument (the first call "
                       f"may change it)", True)
        mine = frozenset().union(*groups)
        for n in built.literals:
            if self.groups_of(n) & mine:
                raise _Obs(f"`{_src(n, 40)}` may share a mutable object with the arguments of `{self.ctx.target}` "
                           f"(which may mutate them)", True)
        index = [order.index(subjects[id(n)].call.key()) for n in built.calls]
        exposed = multiterm.exposure(node, built.calls, index)
        try:
            multiterm.compile_multi(built.text, len(order), exposed)
        except speclang.ObservationError as e:
            raise _Obs(str(e), e.unsound) from None
        first, *rest = (calls[k].call for k in order)
        self.demand(stmt, first, Expect(kind=ExpectKind.obs, expr=built.text, bound_result=bool(held)),
                    calls=tuple(rest), exposed=exposed)

    def iterated_call(self, node: ast.expr) -> ast.Call | None:
        """``list(f(x))`` / ``tuple(f(x))`` (the builtins, one argument): the call ``f(x)``."""
        if any(self.is_builtin_call(node, b) for b in ("list", "tuple")) and len(node.args) == 1 \
                and not node.keywords and self.is_target_call(node.args[0]) \
                and not (self.objects.active() and self.objects.observes(node)):
            return node.args[0]
        return None

    # -- names bound to terms over a result (specguard/python/named.py) ----------------------
    def term_node(self, node: ast.AST) -> ast.expr | None:
        b = self.result_name(node)
        return b.term.node() if b is not None and b.term is not None else None

    def named_term(self, value: ast.expr, line: int) -> _Binding | None:
        """``name = <Python operations on one result>``: the binding holding that term (None: the
        value is not one; the caller binds it as before)."""
        if isinstance(value, ast.Name):
            b = self.result_name(value)       # `s = r`: the same object (an alias: same groups)
            if b is None or not isinstance(b.result, Call):
                return None
            return replace(b, term=b.term or named.Term(observe.OBS_VAR, from_name=True))
        if not self.involves(value):
            return None
        try:
            call, text, guards, bound = self.observed(value, value)
            observe.compiles(text)
        except (_Obs, observe.NotObservation):
            # a term over a call that is not formalized: the name holds that reason (not "a call")
            errors = (self.call_subject(n).error for n in ast.walk(value) if isinstance(n, ast.Call)
                      and self.is_target_call(n) and not (self.objects.active() and self.objects.observes(n)))
            error = next((e for e in errors if e), None)
            if error is None:
                return None
            return _Binding(why=f"bound at line {line} to `{_src(value, 40)}`", result=error,
                            groups=_new_group() | self.groups_of(value), mutable=True, origin="result")
        if named.may_be_iterator(text) is not None:
            return None
        return _Binding(why=f"bound at line {line} to `{_src(value, 40)}` of a result of `{self.ctx.target}`",
                        result=call, term=named.Term(text, guards, from_name=bound), groups=_new_group() | self.groups_of(value),
                        mutable=True, origin="result")

    def named_unpack(self, target: ast.Tuple | ast.List, b: _Binding, line: int) -> list[_Binding] | None:
        """``a, b = <result or term>``: Python's unpacking, one term per target (named.unpack)."""
        if not isinstance(b.result, Call):
            return None
        parts = named.unpack(b.term or named.Term(observe.OBS_VAR), target)
        if parts is None:
            return None
        why = f"bound at line {line} by unpacking a result of `{self.ctx.target}`"
        return [replace(b, why=why, term=t) for t in parts]

    def named_consumed(self, stmt: ast.AST, keep: set[str] = frozenset()) -> None:
        """A statement that may iterate a value reached from a name holding a result (an iterator,
        perhaps, or one holding iterators) leaves it consumed: the name and every name that may
        share it (aliases, items of the same result; not new containers built from it) are
        dropped, a later reading could see fewer items.  ``keep``: names this statement's call
        just filled with what it left in them (a list, dict or set the test built, not an
        iterator it read)."""
        if not self.tracking():
            return
        held = {n: b for n in self.scope.tracked if n not in keep
                and ((b := self.scope.locals[n]).result is not None or b.held is not None)}
        if not held:
            return
        for name, uses in named.consumed(stmt, set(held)).items():
            b = held[name]
            if all(uses) and b.term is not None and named.fresh(b.term.expr):
                continue            # `list(actual)` of `actual = list(f(x))`: a list, not consumed
            groups = b.groups
            self.invalidate(lambda ob: ob is b or ((ob.result is not None or ob.held is not None)
                                                   and bool(ob.groups & groups)
                                                   and not (ob.term is not None and named.fresh(ob.term.expr))),
                            f"may have been consumed at line {getattr(stmt, 'lineno', '?')} (an iterator is "
                            f"read once)")

    def compare_chain(self, stmt: ast.AST, expr: ast.Compare, negate: bool) -> None:
        if len(expr.ops) == 1 and self.objects.active():
            o = self.objects.compared(expr)      # `x in s`, `s == v`: an observation of s
            if isinstance(o, str):
                raise _Unsup(o)
            if o is not None:
                holds = (not isinstance(expr.ops[0], ast.NotIn)) != negate
                return self.demand(stmt, o, Expect(kind=ExpectKind.truthy if holds else ExpectKind.falsy))
        if negate and len(expr.ops) > 1:
            raise _Unsup("`not` of a chained comparison (either part may fail)")
        operands = [expr.left, *expr.comparators]
        for left, op, right in zip(operands, expr.ops, operands[1:]):
            try:
                self.compare(stmt, left, op, right, negate)
            except _Unsup as u:
                self.unsupported(stmt, u.reason)

    # -- comparisons ----------------------------------------------------------------
    def compare(self, stmt: ast.AST, left: ast.expr, op: ast.cmpop, right: ast.expr, negate: bool) -> None:
        parts = None if negate else self.objects.displays(left, op, right)
        if parts is not None:       # `(s.pop(), s.pop()) == (2, 1)`: each observation (objects.Tracker.displays)
            for a, b in parts:
                if not self.involves(a) and not self.involves(b) and _equal_literals(a, b, self.scope):
                    continue        # `(s.pop(), 5) == (1, 5)`: the 5s say nothing about the object
                self.compare(stmt, a, ast.Eq(), b, False)
            return
        typed, negated = observe.type_test(left, op, right), negate    # `type(r) is T`: isinstance
        if typed is None:       # `type(r) is not T`, `!=`, `not in`: the negated test
            typed = observe.type_test(left, _NEGATED_OPS[type(op)](), right) if type(op) in _NEGATED_OPS else None
            negated = not negate
        if typed is not None and self.is_builtin_call(typed[0], "type") and self.involves(typed[0]):
            return self.isinstance_(stmt, typed[0].args[0], typed[1], negated, exact=True)
        try:
            return self.compare_direct(stmt, left, op, right, negate)
        except _Unsup as u:
            node: ast.expr = ast.Compare(left=left, ops=[op], comparators=[right])
            self.observe_or(stmt, ast.UnaryOp(op=ast.Not(), operand=node) if negate else node, u)

    def compare_direct(self, stmt: ast.AST, left: ast.expr, op: ast.cmpop, right: ast.expr, negate: bool) -> None:
        if not negate and self.abs_difference(stmt, left, op, right):
            return
        if not negate and self.float_arithmetic(stmt, left, op, right):
            return
        ls, rs = self.subject(left), self.subject(right)
        if ls.involves and rs.involves:
            raise _Unsup(f"assertion compares two calls of `{self.ctx.target}`")
        if not ls.involves and not rs.involves:
            raise _Unsup(self.no_target(left, right))
        if rs.involves:
            if isinstance(op, (ast.In, ast.NotIn)):
                raise _Unsup(f"membership test in the result of `{self.ctx.target}` (`x in f(...)`) is not supported")
            ls, left, right, op = rs, right, left, _FLIP[type(op)]()
        if negate:
            flipped = _NEGATE.get(type(op))
            if flipped is None:
                raise _Unsup("`not` of an ordering comparison is not supported (NaN makes it differ "
                             "from the opposite comparison)")
            op = flipped()
        if ls.error:
            raise _Unsup(ls.error)
        assert ls.call is not None
        if self.is_approx(right):
            need(isinstance(op, ast.Eq) and not ls.length, "`pytest.approx` is supported only as `call == approx(v)`")
            self.float_note()
            return self.demand(stmt, ls.call, self.approx_expect(right))
        if isinstance(op, (ast.In, ast.NotIn)) and _is_iterable_call(right):
            value = self.iterable(right, ls)
        else:
            value = self.expected(right, ls)
        self.demand(stmt, ls.call, self.compare_expect(ls, op, value))

    def abs_difference(self, stmt: ast.AST, left: ast.expr, op: ast.cmpop, right: ast.expr) -> bool:
        """``abs(call - v) < eps`` (``<=``; ``v - call``; ``eps > abs(...)``): the result is a number
        within ``eps`` of ``v``.  Kept as ``approx(v, abs=eps)``, whose enclosure (exact rationals,
        :func:`specguard.kernel.emit.approx_enclosure`) every passing result lies in: a weaker statement."""
        if isinstance(op, (ast.Gt, ast.GtE)):
            left, right = right, left
        elif not isinstance(op, (ast.Lt, ast.LtE)):
            return False
        if not (self.is_builtin_call(left, "abs") and len(left.args) == 1 and not left.keywords
                and isinstance(left.args[0], ast.BinOp) and isinstance(left.args[0].op, ast.Sub)):
            return False
        a, b = left.args[0].left, left.args[0].right
        sa, sb = self.subject(a), self.subject(b)
        if sa.involves == sb.involves:
            return False
        s, other = (sa, b) if sa.involves else (sb, a)
        if s.error or s.call is None or s.length:
            return False
        v = self.expected(other, s)
        need(v.kind in ("int", "float") and not contains_nan(v), "`abs(call - v)` with a non-numeric `v`")
        eps = self.tolerance(right, "tolerance")
        need(eps is not None, "`abs(call - v) < eps` without a tolerance")
        self.float_note()
        self.demand(stmt, s.call, Expect(kind=ExpectKind.approx, value=v, abs=eps))
        return True

    def float_arithmetic(self, stmt: ast.AST, left: ast.expr, op: ast.cmpop, right: ast.expr) -> bool:
        """``f(x) * 2 == 3.0``, ``f(x) / 3 == c``, ``0.5 + f(x) == 2`` (either side): ``f(x) == v``,
        or ``f(x) in (v1, .., vn)`` when rounding makes several numbers pass: exactly the classes of
        the results that pass (:mod:`specguard.python.floatobs`); refused with the reason otherwise."""
        if not isinstance(op, ast.Eq):
            return False
        for a, b in ((left, right), (right, left)):
            if not isinstance(a, ast.BinOp) or self.involves(b):
                continue
            for r_node, k_node, result_left in ((a.left, a.right, True), (a.right, a.left, False)):
                if self.involves(k_node):
                    continue
                s = self.subject(r_node)
                if not s.involves or s.error or s.call is None or s.length:
                    continue
                try:
                    k, c = eval_literal(k_node, self.scope), eval_literal(b, self.scope)
                except NotLiteral:
                    return False
                if not floatobs.applies(a.op, k, c):
                    return False
                self.expected(k_node, s), self.expected(b, s)      # no object shared with the call
                try:
                    vs = floatobs.preimage(a.op, result_left, k, c)
                except floatobs.Refused as e:
                    raise _Unsup(f"`{_src(a, 40)} == {_src(b, 30)}`: {e.reason}") from None
                self.demand(stmt, s.call, Expect(kind=ExpectKind.eq, value=vs[0]) if len(vs) == 1
                            else Expect(kind=ExpectKind.in_, values=vs))
                return True
        return False

    def compare_expect(self, s: _Subject, op: ast.cmpop, v: V) -> Expect:
        if s.length:
            need(isinstance(op, ast.Eq), "only `len(call) == n` is supported for lengths")
            need(v.kind == "int", f"`len(...)` compared with a {v.kind}")
            return Expect(kind=ExpectKind.len_eq, n=v.val)
        if isinstance(op, ast.Eq):
            return Expect(kind=ExpectKind.eq, value=v)
        if isinstance(op, ast.NotEq):
            return Expect(kind=ExpectKind.ne, value=v)
        if isinstance(op, (ast.Is, ast.IsNot)):
            need(v.kind in ("none", "bool"), f"`is` compares identity; only None, True and False are "
                                              f"supported, not {short_repr(v, 40)}")
            return Expect(kind=ExpectKind.is_ if isinstance(op, ast.Is) else ExpectKind.is_not, value=v)
        if isinstance(op, (ast.In, ast.NotIn)):
            kind = ExpectKind.in_ if isinstance(op, ast.In) else ExpectKind.not_in
            return Expect(kind=kind, values=self.members(v))
        need(v.kind in ("int", "float", "bool"), f"ordering comparison with a non-numeric value ({v.kind})")
        return Expect(kind=ExpectKind.cmp, op=_CMP_TEXT[type(op)], value=v)

    @staticmethod
    def members(v: V) -> tuple[V, ...]:
        if v.kind in ("list", "tuple", "set", "frozenset"):
            return v.val
        if v.kind == "dict":
            return tuple(k for k, _ in v.val)
        if v.kind in ("str", "bytes"):
            raise _Unsup(f"`in` a {v.kind} is a substring test, not supported")
        raise _Unsup(f"`in` a {v.kind} is not a membership test")

    def expected(self, node: ast.expr, s: _Subject) -> V:
        """The literal on the other side; it must not share a mutable object with the call."""
        if isinstance(node, ast.Call) and self.ctx.qual(node.func) not in ("list", "tuple", "set", "frozenset",
                                                                             "dict", "float", "int") \
                and concrete.stdlib_name(self.scope, node.func) is None:      # `join('a', 'b')`: evaluated
            raise _Unsup(f"assertion compares two calls (`{self.ctx.target}` and `{_src(node.func, 40)}`)")
        try:
            v = eval_literal(node, self.scope)
        except NotLiteral as e:
            raise _Unsup(f"expected value {_what(node, e)}") from None
        if contains_nan(v):
            raise _Unsup(f"expected value `{_src(node, 40)}` holds a NaN (equal to nothing, yet a container holding "
                         "the very same NaN object equals one holding it: not modelled)")
        if v.kind == "obj" or contains_obj(v):
            raise _Unsup(f"expected value `{_src(node, 40)}` is a range or iterator object (read only as an argument)")
        shared = self.groups_of(node) & s.groups
        if shared:
            raise _Unsup(f"expected value `{_src(node, 40)}` may share a mutable object with the arguments "
                         f"of `{self.ctx.target}` (which may mutate them)")
        return v

    def iterable(self, node: ast.expr, s: _Subject) -> V:
        """``x in range(..)`` / ``d.keys()``: membership by ``==`` in the elements."""
        try:
            items = eval_iterable(node, self.scope)
        except NotLiteral as e:
            raise _Unsup(f"container {_what(node, e)}") from None
        need(not (self.groups_of(node) & s.groups), f"container `{_src(node, 40)}` may share a mutable object "
                                                    f"with the arguments of `{self.ctx.target}`")
        return V("tuple", tuple(items))

    def truth(self, stmt: ast.AST, expr: ast.expr, negate: bool) -> None:
        s = self.target_subject(expr)
        need(not s.length, "truthiness of `len(...)` is not supported")
        assert s.call is not None
        self.demand(stmt, s.call, Expect(kind=ExpectKind.falsy if negate else ExpectKind.truthy))

    def isinstance_(self, stmt: ast.AST, obj: ast.expr, types: ast.expr, negate: bool, exact: bool = False) -> None:
        """``isinstance(call, T)``; ``negate``: ``not isinstance`` (``exact``: ``type(call) is not T``),
        read as the class test every member of the class passes (kernel/emit.negated_type)."""
        s = self.target_subject(obj)
        need(not s.length, "`isinstance(len(...), T)` is not supported")
        assert s.call is not None
        kind = (ExpectKind.not_type if exact else ExpectKind.not_isinstance) if negate else ExpectKind.isinstance
        names = tuple(self.type_names(types))
        from specguard.kernel.emit import negated_type
        need(not negate or negated_type(names, exact) is not None,
             (f"`type(r) is not {'/'.join(names)}`" if exact else f"`not isinstance(r, {'/'.join(names)})`") +
             " says nothing about the "
             "result's ==-class (`1`, `1.0` and `True` are one class; a set class holds sets and frozensets)")
        self.demand(stmt, s.call, Expect(kind=kind, types=names))

    def type_names(self, node: ast.expr) -> Iterator[str]:
        if isinstance(node, ast.Tuple):
            for elt in node.elts:
                yield from self.type_names(elt)
            return
        if isinstance(node, ast.Call) and dotted_name(node.func) == "type" and len(node.args) == 1 \
                and isinstance(node.args[0], ast.Constant) and node.args[0].value is None:
            yield "type(None)"
            return
        if isinstance(node, ast.Name) and node.id in _TYPE_NAMES and node.id not in self.scope:
            yield node.id
            return
        if isinstance(node, ast.Call) and self.is_builtin_call(node, "type") and len(node.args) == 1 \
                and not node.keywords and isinstance(node.args[0], (ast.Constant, ast.List, ast.Tuple, ast.Dict)):
            try:            # `type([])`, `type('')`: the type of an exact value
                v = eval_literal(node.args[0], self.scope)
            except NotLiteral:
                v = None
            name = {"none": "NoneType"}.get(v.kind, v.kind) if v is not None else None
            if name in _TYPE_NAMES:
                yield name
                return
        raise _Unsup(f"isinstance with type `{_src(node, 40)}` (only builtin type names are supported)")

    def almost_equal(self, stmt: ast.AST, call: ast.Call, args: list[ast.expr]) -> None:
        need(len(args) >= 2, "`assertAlmostEqual` needs two arguments")
        places_node = args[2] if len(args) > 2 else _keyword(call, "places")
        delta_node = args[4] if len(args) > 4 else _keyword(call, "delta")
        places = self.places(places_node)
        delta = self.tolerance(delta_node, "delta")
        need(places is None or delta is None, "`assertAlmostEqual` with both places and delta")
        ls, rs = self.subject(args[0]), self.subject(args[1])
        need(not (ls.involves and rs.involves), f"assertion compares two calls of `{self.ctx.target}`")
        if not ls.involves:
            ls, args = rs, [args[1], args[0]]
        if not ls.involves:
            raise _Unsup(self.no_target(args[0], args[1]))
        if ls.error:
            raise _Unsup(ls.error)
        need(not ls.length and ls.call is not None, "`assertAlmostEqual` on `len(...)` is not supported")
        v = self.expected(args[1], ls)
        need(v.kind in ("int", "float", "bool"), "`assertAlmostEqual` with a non-numeric value")
        if delta is not None:
            expect = Expect(kind=ExpectKind.approx, value=v, abs=delta)
        else:
            expect = Expect(kind=ExpectKind.approx, value=v, places=7 if places is None else places)
        self.float_note()
        self.demand(stmt, ls.call, expect)

    def tolerance(self, node: ast.expr | None, what: str) -> float | None:
        """A tolerance (``rel``, ``abs``, ``delta``): None, or a non-negative number that a float
        represents exactly."""
        v = self.literal(node, f"`{what}`") if node is not None else V("none")
        if v.kind == "none":
            return None
        need(v.kind in ("int", "float") and float(v.val) == v.val and v.val >= 0,
             f"`{what}` must be a non-negative number exactly representable as a float")
        return float(v.val)

    def places(self, node: ast.expr | None) -> int | None:
        v = self.literal(node, "`places`") if node is not None else V("none")
        if v.kind == "none":
            return None
        need(v.kind == "int", "`places` must be an int")
        return v.val

    # -- pytest.approx ----------------------------------------------------------------
    def is_approx(self, node: ast.expr) -> bool:
        return isinstance(node, ast.Call) and self.ctx.qual(node.func) == "pytest.approx"

    def approx_expect(self, node: ast.Call) -> Expect:
        params = ("expected", "rel", "abs", "nan_ok")
        need(len(node.args) <= 4 and not any(isinstance(a, ast.Starred) for a in node.args),
             "unsupported arguments to `pytest.approx`")
        given = dict(zip(params, node.args))
        for kw in node.keywords:
            need(kw.arg in params and kw.arg not in given, f"unsupported argument `{kw.arg}` to `pytest.approx`")
            given[kw.arg] = kw.value
        need("expected" in given, "`pytest.approx` needs a value")
        if "nan_ok" in given:
            nan_ok = self.literal(given["nan_ok"], "`nan_ok`")
            need(nan_ok.kind == "bool" and not nan_ok.val, "`pytest.approx(nan_ok=True)` is not supported")
        value = self.literal(given["expected"], "approx value")
        rel = self.tolerance(given.get("rel"), "rel")
        abs_ = self.tolerance(given.get("abs"), "abs")
        return Expect(kind=ExpectKind.approx, value=value, rel=rel, abs=abs_)

    def literal(self, node: ast.expr, what: str) -> V:
        try:
            return eval_literal(node, self.scope)
        except NotLiteral as e:
            raise _Unsup(f"{what} {_what(node, e)}") from None

    # -- raises -----------------------------------------------------------------------
    def raises_with(self, stmt: ast.With, cm: ast.Call, api: str) -> None:
        self.ctx.handled.add(id(cm))
        try:
            exc = self.exc_names(cm, api)
            allowed = ("match", "msg") if api == "pytest.raises" else ("msg",)
            need(all(kw.arg in allowed for kw in cm.keywords if kw.arg != "expected_exception"),
                 f"unsupported arguments to `{api}`")
            need(len(cm.args) <= (2 if api.endswith("Regex") else 1),
                 f"`with {api}(...)` with extra arguments")
            call, rest = self.raising_body(stmt, api, cm)
            iterated = self.iterated_call(call)     # `list(f(x))`: f raises, or iterating its result does
            s = self.target_subject(iterated if iterated is not None else call)
            need(not s.length and s.call is not None and self.is_target_call(iterated or call),
                 f"the body of `{api}` does not call `{self.ctx.target}` directly")
            self.demand(stmt, s.call, Expect(kind=ExpectKind.raises, exc=exc, iterated=iterated is not None))
            for r in rest:          # `assert False` after the call: part of the block's reading
                for key in self.ctx.assertion_keys([r]):
                    self.ctx.mark_read(key)
                    self.ctx.handled.add(id(key))
        except _Unsup as u:
            self.unsupported(stmt, u.reason)
            rest = []
        self.ctx.unsupported_inside([b for b in stmt.body if not any(b is r for r in rest)],
                                    f"assertion inside the `{api}` block at line {stmt.lineno}")

    def raising_body(self, stmt: ast.With, api: str, cm: ast.Call) -> tuple[ast.expr, list[ast.stmt]]:
        """The call the block of ``with pytest.raises(E):`` consists of, and the statements after it.

        The block passes when it raises an exception matching E.  Statements after the call run
        only when the call returned; they are accepted when none of them can raise anything
        matching E (:meth:`never_matches`): then the block passes exactly when the call raises E
        (if the call returns, the block fails, by these statements or by "did not raise")."""
        body = stmt.body
        b = body[0] if body else None
        call: ast.expr | None = None
        if isinstance(b, ast.Expr):
            call = b.value
        elif isinstance(b, ast.Assign) and all(isinstance(t, ast.Name) for t in b.targets):
            call = b.value          # storing into a plain name cannot raise
        elif isinstance(b, (ast.Assign, ast.AnnAssign)) and b.value is not None and len(body) == 1:
            call = b.value
        if call is None:
            raise _Unsup(f"the block of `{api}` is not a single call (an earlier statement could raise)")
        rest = list(body[1:])
        if rest and not isinstance(call, ast.Call):
            raise _Unsup(f"the block of `{api}` is not a single call (an earlier statement could raise)")
        if rest:
            why = self.never_matches(rest, cm)
            if why is not None:
                raise _Unsup(f"the block of `{api}` has statements after the call that may raise the expected "
                             f"exception too ({why}): the block passes then, even if the call returns")
        return call, rest

    _NEVER_MATCHED_BY = frozenset({"AssertionError", "Exception", "BaseException"})

    def never_matches(self, rest: list[ast.stmt], cm: ast.Call) -> str | None:
        """None when no statement of ``rest`` can raise an exception that the expected classes of
        ``cm`` match, else why not.  Accepted: ``pass``, ``assert <falsy constant>[, <constant>]``
        and ``raise AssertionError[(<constants>)]`` (AssertionError, or nothing under ``-O``),
        ``pytest.fail(<constants>)`` (pytest's ``Failed``, a BaseException only), when every expected
        class is a builtin exception name (not rebound) that is not AssertionError, Exception or
        BaseException (the only classes matching AssertionError or Failed)."""
        import builtins
        node = cm.args[0] if cm.args else _keyword(cm, "expected_exception")
        for n in (node.elts if isinstance(node, ast.Tuple) else [node]):
            if not (isinstance(n, ast.Name) and n.id not in self.scope and n.id not in self._NEVER_MATCHED_BY
                    and isinstance(getattr(builtins, n.id, None), type)
                    and issubclass(getattr(builtins, n.id), BaseException)):
                return (f"the expected `{_src(n, 30)}` is not a builtin exception class other than AssertionError, "
                        f"Exception and BaseException (it may match what the statements raise)")
        consts = lambda args: all(isinstance(a, ast.Constant) for a in args)       # noqa: E731
        for st in rest:
            if isinstance(st, ast.Pass):
                continue
            if isinstance(st, ast.Assert) and isinstance(st.test, ast.Constant) and not st.test.value \
                    and (st.msg is None or isinstance(st.msg, ast.Constant)):
                continue
            if isinstance(st, ast.Raise) and st.cause is None and st.exc is not None:
                e = st.exc
                if isinstance(e, ast.Call) and not e.keywords and consts(e.args):
                    e = e.func
                if isinstance(e, ast.Name) and e.id == "AssertionError" and e.id not in self.scope:
                    continue
            if isinstance(st, ast.Expr) and isinstance(st.value, ast.Call) \
                    and self.ctx.qual(st.value.func) == "pytest.fail" and _real_pytest(self.ctx.file, st.value.func) \
                    and consts(st.value.args) \
                    and all(k.arg in ("reason", "msg", "pytrace") and isinstance(k.value, ast.Constant)
                            for k in st.value.keywords):
                continue
            return f"`{_src(st, 40)}` at line {st.lineno}"
        return None

    def raises_callable(self, stmt: ast.AST, call: ast.Call, api: str) -> None:
        """``pytest.raises(E, f, *args, **kwargs)`` / ``self.assertRaises(E, f, *args)``."""
        at = 2 if api == "assertRaisesRegex" else 1
        need(not any(isinstance(a, ast.Starred) for a in call.args[: at + 1]), "unsupported `*` arguments")
        if len(call.args) <= at:
            raise _Unsup(f"`{_src(call.func)}(...)` without a callable outside a `with`")
        exc = self.exc_names(call, api)
        func = call.args[at]
        body = self.returned_expression(func)
        if isinstance(func, ast.Lambda) or body is not None:
            what = "lambda" if isinstance(func, ast.Lambda) else "function"
            need(not any((func.args if isinstance(func, ast.Lambda) else body[1].args).__dict__[k]
                         for k in ("posonlyargs", "args", "vararg", "kwonlyargs", "kwarg")),
                 f"the {what} passed to the raises assertion takes arguments")
            # called with arguments it does not take, it raises TypeError before reaching its body
            need(len(call.args) == at + 1 and not call.keywords,
                 f"the {what} passed to the raises assertion is called with arguments")
            target = func.body if isinstance(func, ast.Lambda) else body[0]
        else:
            target = ast.Call(func=func, args=list(call.args[at + 1:]), keywords=list(call.keywords))
        iterated = self.iterated_call(target)
        if iterated is not None:
            s = self.target_subject(iterated)
            assert s.call is not None
            return self.demand(stmt, s.call, Expect(kind=ExpectKind.raises, exc=exc, iterated=True))
        if not self.is_target_call(target):
            raise _Unsup(f"the callable passed to `{_src(call.func)}` is not `{self.ctx.target or '?'}`"
                         + ("" if self.ctx.target else f" ({self.ctx.target_why})"))
        s = self.call_subject(target)
        if s.error:
            raise _Unsup(s.error)
        assert s.call is not None
        self.demand(stmt, s.call, Expect(kind=ExpectKind.raises, exc=exc))

    def returned_expression(self, func: ast.expr) -> tuple[ast.expr, ast.FunctionDef] | None:
        """``f`` naming a function the test body defined as ``def f(): return EXPR`` or ``def f():
        EXPR`` (a docstring allowed; no decorator, no default, nothing else in its body), still bound to that ``def``:
        calling it evaluates EXPR in the test's scope as it is now, as a lambda would."""
        if not isinstance(func, ast.Name):
            return None
        b = self.scope.binding(func.id)
        hit = self.local_defs.get(id(b)) if b is not None else None
        if hit is None or hit[0] is not b:
            return None
        fn = hit[1]
        body = fn.body[1:] if fn.body and isinstance(fn.body[0], ast.Expr) and isinstance(fn.body[0].value, ast.Constant) \
            and isinstance(fn.body[0].value.value, str) else fn.body
        if fn.decorator_list or fn.args.defaults or fn.args.kw_defaults or fn.returns is not None \
                or len(body) != 1 or not isinstance(body[0], (ast.Return, ast.Expr)) or body[0].value is None:
            return None     # `def f(): EXPR` raises exactly when EXPR does (what a raises assertion asks)
        if any(isinstance(n, (ast.NamedExpr, ast.Yield, ast.YieldFrom, ast.Await)) for n in ast.walk(body[0].value)):
            return None
        return body[0].value, fn

    def raises_helper(self, node: ast.expr) -> str | None:
        """``raises(E, g)`` calling an assertion helper of the raising kind
        (:mod:`specguard.python.raising`): ``"value"`` (true when ``g()`` raises E), ``"statement"``
        (fails unless it does); None: not such a call."""
        if not (isinstance(node, ast.Call) and isinstance(node.func, ast.Name) and len(node.args) == 2
                and not node.keywords and not any(isinstance(a, ast.Starred) for a in node.args)):
            return None
        name = node.func.id
        b = self.scope.binding(name)
        if b is None or self.scope.is_local(name) or self.module_name_problem(name) is not None:
            return None
        if b.origin == "def" and b.fn is not None:
            return raising.helper_form(b.fn)
        q = self.ctx.file.imports.get(name)
        if b.origin == "import" and q is not None and raising.importable(q):
            return "value"
        return None

    def helper_raises(self, stmt: ast.stmt, call: ast.Call) -> None:
        """``assert raises(E, lambda: f(x))`` (or ``assert_raises(E, f)`` as a statement): the
        ``raises`` demand of ``pytest.raises(E, ...)``; an imported helper's reading is stated as
        an assumption."""
        self.ctx.handled.add(id(call))
        name = call.func.id
        b = self.scope.binding(name)
        try:
            self.raises_callable(stmt, call, "pytest.raises")
        except _Unsup as u:
            return self.unsupported(stmt, u.reason)
        if id(stmt) in self.ctx.read:
            self.ctx.read.add(id(call))
            if b is not None and b.origin == "import":
                self.ctx.out.assumptions.append(raising.imported_assumption(name, self.ctx.file.imports[name]))

    def exc_names(self, call: ast.Call, api: str) -> tuple[str, ...]:
        node = call.args[0] if call.args else _keyword(call, "expected_exception")
        if node is None:
            raise _Unsup(f"`{api}` without an exception class")
        names = tuple(self.exc_name(n) for n in (node.elts if isinstance(node, ast.Tuple) else [node]))
        need(len(names) > 0, "empty tuple of exception classes")
        return names

    def exc_name(self, node: ast.expr) -> str:
        last = _last_part(node)
        if last is None or dotted_name(node) is None:
            raise _Unsup(f"exception class `{_src(node, 40)}` is not a name")
        root = _root_name(node)
        if root is not None and self.scope.is_local(root):
            raise _Unsup(f"exception class `{_src(node, 40)}` is a local variable")
        return last

    # -- the function under test --------------------------------------------------------
    def is_builtin_call(self, node: ast.AST, name: str) -> bool:
        return (isinstance(node, ast.Call) and isinstance(node.func, ast.Name) and node.func.id == name
                and name not in self.scope)

    def is_target_call(self, node: ast.AST) -> bool:
        if self.objects.active() and self.objects.observes(node):
            return True
        if not isinstance(node, ast.Call) or not self.ctx.target:
            return False
        f = node.func
        if isinstance(f, ast.Name):
            if f.id in self.ctx.target_names:
                return True
            b = self.scope.binding(f.id)
            if b is not None and b.origin == "entry":
                return True
        elif isinstance(f, ast.Attribute) and f.attr == self.ctx.target:
            return True
        return self.other_function(node) is not None

    def other_function(self, node: ast.AST) -> str | None:
        """The qualified name of the other function of the library under test that the call
        ``node`` calls, modelled as a function of its own (:mod:`specguard.formalize.library`)."""
        if not isinstance(node, ast.Call) or self.ctx.is_assertion_call(node):
            return None
        return library.resolve(self, node.func)

    def held_name(self, node: ast.AST) -> _Binding | None:
        """A local name of a test still holding a result across a later call (``_Binding.held``)."""
        if isinstance(node, ast.Name) and self.mode == "test" and self.scope.is_local(node.id):
            b = self.scope.binding(node.id)
            if b is not None and b.held is not None:
                return b
        return None

    def result_name(self, node: ast.AST) -> _Binding | None:
        if isinstance(node, ast.Name):
            b = self.scope.binding(node.id)
            if b is not None and b.result is not None:
                return b
        return None

    def involves(self, node: ast.AST) -> bool:
        return any(self.is_target_call(n) or self.result_name(n) is not None for n in ast.walk(node))

    def target_subject(self, node: ast.expr) -> _Subject:
        """:meth:`subject` of ``node``, which must involve the function under test without error."""
        s = self.subject(node)
        if not s.involves:
            raise _Unsup(self.no_target(node))
        if s.error:
            raise _Unsup(s.error)
        return s

    def subject(self, node: ast.expr, terms: bool = False) -> _Subject:
        if self.objects.active():
            o = self.objects.observation(node)
            if o is not None:
                return _Subject(True, error=o) if isinstance(o, str) else _Subject(True, call=o)
        if self.is_builtin_call(node, "len") and len(node.args) == 1 and not node.keywords:
            inner = self.subject(node.args[0])
            if not inner.involves or inner.error:
                return inner
            if inner.length:
                return _Subject(True, error="`len(len(...))` is not supported")
            return replace(inner, length=True)
        if self.is_target_call(node):
            return self.call_subject(node)
        b = self.result_name(node)
        if b is not None:
            if isinstance(b.result, str):
                return _Subject(True, error=f"`{node.id}` ({b.why}): {b.result}", groups=b.groups)
            if not terms and not _raw(b):         # a term over the result: read as an observation
                return _Subject(True, error=f"the result of `{self.ctx.target}` is transformed before the "
                                            f"comparison (`{node.id}` is `{_src(b.term.node(), 50)}`)")
            return _Subject(True, call=b.result, groups=b.groups)
        if self.involves(node):
            return _Subject(True, error=f"the result of `{self.ctx.target}` is transformed before the "
                                        f"comparison (`{_src(node, 50)}`)")
        return _NOT_INVOLVED

    def call_subject(self, node: ast.Call) -> _Subject:
        o = self.objects.observation(node) if self.objects.active() else None
        if o is not None:
            return _Subject(True, error=o) if isinstance(o, str) else _Subject(True, call=o)
        other = self.other_function(node)
        why = self.receiver_problem(node.func) if other is None else None
        if why is not None:
            return _Subject(True, error=why)
        try:
            args, kwargs, groups = self.call_args(node, results=True)
        except _Unsup as u:
            return _Subject(True, error=u.reason)
        call = Call(target=other or self.ctx.target, args=tuple(args), kwargs=tuple(kwargs), lib=other)
        return _Subject(True, call=call, groups=groups)

    def call_args(self, node: ast.Call, results: bool = False) -> tuple[list[V], list[tuple[str, V]], frozenset[int]]:
        """Exact argument values; one mutable object may not be passed twice.  ``results``: an
        argument may be the result of a fresh call of the function under test or of another
        library function (``take(5, iterate(g, 1))``: :func:`specguard.formalize.library.result_value`)."""
        exprs = [a.value if isinstance(a, ast.Starred) else a for a in node.args] + [k.value for k in node.keywords]
        try:
            values = self.argument_values(exprs, results)
        except NotLiteral as e:
            bad = self.first_bad_arg([x for x in exprs if function_value(self, x) is None])
            raise _Unsup(f"argument {_what(bad, e)}" if bad is not None else f"arguments are not literals: {e.reason}") from None
        # an argument whose exact value holds no list/dict/set shares no object (`f(l[0], len(l))`)
        groups = [self.groups_of(e) if is_mutable(v) or v.kind == vals_FUNCTION else frozenset()
                  for e, v in zip(exprs, values)]
        if any(a & b for a, b in itertools.combinations(groups, 2)):
            raise _Unsup(f"two arguments of `{self.ctx.target}` may share one mutable object")
        args: list[V] = []
        for a, v in zip(node.args, values):
            if isinstance(a, ast.Starred):
                need(v.kind in ("list", "tuple"), f"`*` argument is a {v.kind}, not a list or tuple")
                args.extend(v.val)
            else:
                args.append(v)
        kwargs: list[tuple[str, V]] = []
        for k, v in zip(node.keywords, values[len(node.args):]):
            if k.arg is not None:
                kwargs.append((k.arg, v))
                continue
            need(v.kind == "dict" and all(key.kind == "str" for key, _ in v.val), "`**` argument is not a dict of str keys")
            kwargs.extend((key.val, val) for key, val in v.val)
        names = [k for k, _ in kwargs]
        need(len(names) == len(set(names)), "keyword argument given twice")
        return args, kwargs, frozenset().union(*groups) if groups else frozenset()

    def argument_values(self, exprs: list[ast.expr], results: bool = False) -> list[V]:
        """The exact values of a call's arguments: functions passed as values (``key=len``, a
        lambda, a function of the test module) are named constants (:func:`function_value`)."""
        fns = {i: v for i, e in enumerate(exprs) if (v := function_value(self, e)) is not None}
        if results:
            fns.update({i: v for i, e in enumerate(exprs) if i not in fns
                        and (v := library.result_value(self, e) or self.state_value(e)) is not None})
        self.scope.walker = self          # builtin functions inside containers: `(add, 5)`
        try:
            if not fns:
                return eval_literals(exprs, self.scope)
            rest = iter(eval_literals([e for i, e in enumerate(exprs) if i not in fns], self.scope))
            return [fns[i] if i in fns else next(rest) for i in range(len(exprs))]
        finally:
            self.scope.walker = None

    def state_value(self, node: ast.expr) -> V | None:
        """A local name holding what a call of the function under test left in it (argstate.py),
        passed on to a call: the value ``obj("result", (source, input))`` of
        :func:`specguard.formalize.library.result_value`, equal only to the state left by the very
        same call (under the assumption of :data:`specguard.formalize.argstate.ASSUMPTION`)."""
        if not isinstance(node, ast.Name) or not self.scope.is_local(node.id):
            return None
        b = self.scope.binding(node.id)
        if b is None or not isinstance(b.result, Call) or b.result.after is None:
            return None
        return library.result_of(b.result)

    def first_bad_arg(self, exprs: list[ast.expr]) -> ast.expr | None:
        for e in exprs:
            try:
                eval_literal(e, self.scope)
            except NotLiteral:
                return e
        return None

    def receiver_problem(self, func: ast.expr) -> str | None:
        """Why a call of the target name is not a call of the module function under test."""
        target = self.ctx.target
        if isinstance(func, ast.Name):
            local = self.scope.locals.get(func.id)
            if local is not None and local.origin == "entry":
                return self.module_name_problem(func.id) if self.mode == "module" else None
            held = self.scope.binding(func.id)
            if local is None and not self.scope.is_local(func.id) and held is not None and held.origin == "entry":
                return self.module_name_problem(func.id)       # a module-level alias `g = f`
            if local is not None and local.origin == "other-import":
                return local.why
            if self.scope.is_local(func.id) and (local is None or local.origin != "import"):
                return f"`{func.id}` is rebound in this test, so the call is not of the function under test"
            if local is not None and self.mode != "module":
                return None
            return self.ctx.target_problems.get(func.id)
        assert isinstance(func, ast.Attribute)
        owner = func.value
        shown = _src(func, 40)
        if isinstance(owner, ast.Call):
            if owner.args or owner.keywords:
                return f"call target `{shown}` is a method of an object built with arguments (it may keep state)"
            owner = owner.func
        root = _root_name(owner)
        if root is None or dotted_name(owner) is None:
            return f"call target `{shown}` is not a module-level function `{target}`"
        if root in ("self", "cls"):
            return f"call target `{shown}` is a method of the test object (it may keep state between calls)"
        b = self.scope.binding(root)
        module_import = self.mode == "module" and b is not None and b.origin == "import"
        if self.scope.is_local(root) and not module_import:
            return f"call target `{shown}` is a method of the local object `{root}` (it may keep state between calls)"
        if b is not None and b.origin in ("class", "def"):
            return f"call target `{shown}` is defined in the test file ({b.why}), not the function under test"
        if b is not None and b.origin != "import":
            return f"call target `{shown}` is a method of the module-level object `{root}` (it may keep state)"
        if b is not None and (module_import or not self.scope.is_local(root)):
            return self.ctx.attribute_problem(dotted_name(owner) or root, func.attr)
        return None

    # -- names bound to the function under test, and test-module helpers ------------------
    def module_name_problem(self, name: str) -> str | None:
        """Why a module-level name (a helper ``def``, an alias ``g = f``) may not hold, when it is
        used, the object its one binding gave it (:func:`specguard.python.bindings.single_binding_problem`)."""
        if self.ctx.symbols is None:
            return _TOO_DEEP
        return single_binding_problem(self.ctx.symbols, name)

    def denotes_entry(self, node: ast.expr) -> bool:
        """``node`` (a name or ``mod.f``, not a call) surely evaluates to the function under test."""
        if not self.ctx.target:
            return False
        if isinstance(node, ast.Name):
            b = self.scope.binding(node.id)
            if node.id not in self.ctx.target_names and (b is None or b.origin != "entry"):
                return False
        elif not (isinstance(node, ast.Attribute) and node.attr == self.ctx.target):
            return False
        return self.receiver_problem(node) is None

    def helper_of(self, call: ast.Call) -> ast.FunctionDef | None:
        """The module-level function of the test file that ``call`` calls, if any."""
        if not isinstance(call.func, ast.Name) or self.is_target_call(call):
            return None
        b = self.scope.binding(call.func.id)
        return b.fn if b is not None and b.origin == "def" else None

    def call_helper(self, stmt: ast.stmt, call: ast.Call) -> None:
        """Execute a call of a test-module function: its body runs with its parameters bound to
        the call's arguments (the function under test passed as an argument stays the function
        under test), so its assertions are demands of this test, once per call."""
        fn = self.helper_of(call)
        assert fn is not None
        name = call.func.id if isinstance(call.func, ast.Name) else fn.name
        why = self.helper_problem(name, fn)
        params: dict[str, _Binding] = {}
        for lam in aliasing.lambdas_in(call):
            self.captured |= aliasing.captured_names(lam)
        if why is None and self.may_run_closure(call):
            why = "it is given a value that may be a function defined in the test, which may change what the test holds"
        if why is None:
            try:
                params = self.helper_params(call, fn)
            except _Unsup as u:
                why = u.reason
        if why is not None:      # not executed: a call made for its effect, as before
            self.ctx.helper_problems.setdefault(id(fn), why)
            if self.ctx.helper_calls >= MAX_HELPER_CALLS:
                self.ctx.out.notes.append(f"{self.ctx.file.path}: helper calls stopped after {MAX_HELPER_CALLS} "
                                          "(what later calls assert is not read)")
            self.after(stmt)
            if self.block is None and self.side_effect(call) is not None:
                self.block = f"follows the call of `{name}` at line {call.lineno}, which is not executed ({why})"
            return
        self.ctx.helper_calls += 1
        facts = self.ctx.file.facts[id(fn)]
        module = self.scope.module
        if self.mode == "module":     # called while the module runs: its names as bound so far; a mutable
            # value may be changed by any call the helper makes (the escape analysis of module constants,
            # done for tests after the module has run, does not cover this point)
            module = {n: b.invalid(f"a module-level mutable value, which the calls of `{fn.name}` may change")
                      if b.mutable and b.value is not None else b for n, b in self.scope.locals.items()}
        scope = _Scope(module, frozenset(facts.names) | frozenset(params))
        for p, b in params.items():
            scope.bind(p, b)
        sub = _Walker(self.ctx, scope, "test", self.test_name, self.block)
        sub.depth, sub.unroll = self.depth + 1, self.unroll
        for i, s in enumerate(fn.body):
            if sub.returned is not None:
                self.ctx.unsupported_inside(fn.body[i:], sub.returned)
                break
            sub.stmt(s)
        self.after(stmt)              # the call may mutate what it was given
        if sub.block is not None and sub.block not in (self.block, sub.returned):
            self.block = sub.block    # an exit, a patch or an effect inside the helper
        self.exit = self.exit or sub.exit

    def helper_problem(self, name: str, fn: ast.FunctionDef) -> str | None:
        if self.depth >= MAX_HELPER_DEPTH:
            return f"helper calls nested deeper than {MAX_HELPER_DEPTH} (recursion?)"
        if self.ctx.helper_calls >= MAX_HELPER_CALLS:
            return f"more than {MAX_HELPER_CALLS} helper calls executed in this file"
        if fn.decorator_list:
            return f"`{name}` is decorated (the call runs what the decorator returns)"
        facts = self.ctx.file.facts.get(id(fn))
        if facts is None or facts.generator:
            return f"`{name}` is a generator function (calling it does not run its body)"
        if fn.args.vararg or fn.args.kwarg:
            return f"`{name}` takes `*args`/`**kwargs`"
        if any(isinstance(n, (ast.Global, ast.Nonlocal, ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef,
                              ast.Lambda, ast.Yield, ast.YieldFrom)) for n in _walk_all_local(fn.body)):
            return f"`{name}` declares globals or defines functions (not executed)"
        return self.module_name_problem(name)

    def helper_params(self, call: ast.Call, fn: ast.FunctionDef) -> dict[str, _Binding]:
        """Python's binding of the call's arguments to the helper's parameters (positional, then
        keywords, then defaults, which are evaluated once: mutable defaults are not literals)."""
        a = fn.args
        positional = [p.arg for p in a.posonlyargs + a.args]
        if any(isinstance(x, ast.Starred) for x in call.args) or any(k.arg is None for k in call.keywords):
            raise _Unsup("the call uses `*`/`**` arguments")
        if len(call.args) > len(positional):
            raise _Unsup("the call gives too many positional arguments")
        given: dict[str, ast.expr] = dict(zip(positional, call.args))
        allowed = set(p.arg for p in a.args + a.kwonlyargs) | set(positional[len(call.args):])
        for k in call.keywords:
            if k.arg in given or k.arg not in allowed or k.arg in {p.arg for p in a.posonlyargs}:
                raise _Unsup(f"keyword argument `{k.arg}` does not bind a parameter exactly once")
            given[k.arg] = k.value
        defaults = dict(zip(positional[len(positional) - len(a.defaults):], a.defaults))
        defaults.update({p.arg: d for p, d in zip(a.kwonlyargs, a.kw_defaults) if d is not None})
        out: dict[str, _Binding] = {}
        for p in positional + [p.arg for p in a.kwonlyargs]:
            if p in given:
                out[p] = self.argument_binding(given[p], call.lineno)
            elif p in defaults:
                try:
                    v = eval_literal(defaults[p], _Scope(self.scope.module if self.mode != "module"
                                                         else self.scope.locals))
                except NotLiteral as e:
                    raise _Unsup(f"the default of `{p}` is not a literal: {e.reason}") from None
                out[p] = _opaque(f"a mutable default of `{fn.name}` (shared between calls)", "param") \
                    if is_mutable(v) else _literal(v, _new_group(), "param")
            else:
                raise _Unsup(f"parameter `{p}` is not given")
        return out

    def argument_binding(self, node: ast.expr, line: int) -> _Binding:
        """What a parameter holds when the argument is ``node``: the same binding for a name
        (aliasing kept), else the value as an assignment would bind it."""
        if self.denotes_entry(node):
            return _Binding(why=f"the function under test (passed at line {line})", origin="entry",
                            groups=_new_group())
        if isinstance(node, ast.Name):
            b = self.scope.binding(node.id)
            if b is not None:     # the same object; never an import or def the parameter could pass for
                return replace(b, origin="param", fn=None)
        return self.evaluate_rhs(node, line)

    def no_target(self, *nodes: ast.expr) -> str:
        """Why an assertion has no call of the function under test (naming what it has instead)."""
        target = self.ctx.target
        if not target:
            return f"no function under test: {self.ctx.target_why}"
        for n in _walk_all(nodes):
            if isinstance(n, ast.Call) and not self.ctx.is_assertion_call(n):
                name = _src(n.func, 40)
                if name not in _BUILTIN_NAMES:
                    return f"call target `{name}` is not the function under test `{target}`"
        for n in _walk_all(nodes):
            b = self.scope.binding(n.id) if isinstance(n, ast.Name) else None
            if b is not None and b.value is None and b.origin == "result":
                return f"`{n.id}` held a result of `{target}` but {b.why}"
            if b is not None and b.value is None and b.origin in ("assign", "loop", "unbound"):
                return f"assertion does not call `{target}` (`{n.id}` is not its result: {b.why})"
        return f"assertion does not call the function under test `{target}`"


# -- functions as values (issue 12, item 4) ------------------------------------------------------

def _stdlib_functions() -> frozenset[str]:
    """Functions of ``operator`` and ``math`` (builtin functions: no state, the same object in
    every import), by their qualified names."""
    import math
    import operator
    return frozenset(f"{m.__name__}.{n}" for m in (operator, math) for n in dir(m)
                     if not n.startswith("_") and type(getattr(m, n)) is type(len))


_STDLIB_FUNCTIONS = _stdlib_functions()


def _builtin_unshadowed(w: "_Walker", name: str) -> bool:
    """``name`` surely denotes the builtin: nothing in the file or the test binds it."""
    sym = w.ctx.symbols
    return (w.scope.binding(name) is None and sym is not None and not sym.of(name) and not sym.stars
            and sym.unknown_writes(name) is None)


def _equal_literals(a: ast.expr, b: ast.expr, scope: Mapping[str, V]) -> bool:
    """Both exact values, equal (the same value class: ``==`` between them is True)."""
    try:
        return eval_literal(a, scope) == eval_literal(b, scope)
    except NotLiteral:
        return False


def function_value(w: "_Walker", node: ast.expr) -> V | None:
    """The named constant a function passed as an argument is (None: ``node`` is not one), keyed so
    that equal keys mean the very same function object: a pure builtin by its name (``len``,
    ``str.lower``), a function of the test module by its one binding (file, name, line), a lambda by
    each evaluation of its expression (a new object every time).  A lambda or function is used
    only when closed and plain (it reads nothing but its parameters, its locals and pure builtins;
    no defaults, decorators, globals or yields): otherwise what it returns could change between
    calls and one key could have two outcomes."""
    path = w.ctx.file.path
    if isinstance(node, ast.Name):
        if (node.id in PURE_BUILTINS or is_exception_class(node.id)) and _builtin_unshadowed(w, node.id):
            key = builtin_key(node.id)                # `IOError` is `OSError`: one object, one key
            return V(vals_FUNCTION, (key, key[len("builtin:"):]))
        b = w.scope.binding(node.id)
        if b is not None and b.origin == "lambda" and isinstance(b.fn, V):
            # one evaluation of a lambda, bound to a name: the same object wherever the binding reaches
            if w.scope.locals.get(node.id) is b or w.module_name_problem(node.id) is None:
                return b.fn
            return None
        if b is not None and b.origin == "import" and isinstance(b.fn, str) and b.fn in _STDLIB_FUNCTIONS \
                and (w.scope.locals.get(node.id) is b or w.module_name_problem(node.id) is None):
            return V(vals_FUNCTION, (f"builtin:{b.fn}", node.id))   # `from operator import neg`
        fn = b.fn if b is not None and b.origin == "def" else None
        if fn is None or w.module_name_problem(node.id) is not None or fn.decorator_list \
                or not _closed_function(w, fn.args, fn.body):
            return None
        return V(vals_FUNCTION, (f"def:{path}:{fn.name}:{fn.lineno}", fn.name))
    if isinstance(node, ast.Attribute) and isinstance(node.value, ast.Name) and node.value.id in BUILTIN_TYPES \
            and _builtin_unshadowed(w, node.value.id):
        t = BUILTIN_TYPES[node.value.id]
        attr = getattr(t, node.attr, None)
        if attr is None or node.attr.startswith("_") or not callable(attr) or getattr(t, node.attr) is not attr:
            return None
        name = f"{node.value.id}.{node.attr}"
        return V(vals_FUNCTION, (f"builtin:{name}", name))
    if isinstance(node, ast.Lambda) and _closed_function(w, node.args, [node.body]):
        n = w.ctx.__dict__.get("_lambda_evaluations", 0) + 1
        w.ctx._lambda_evaluations = n
        return V(vals_FUNCTION, (f"lambda:{path}:{node.lineno}:{node.col_offset}#{n}",
                                 f"<lambda at line {node.lineno}>"))
    return None


def held_function(w: "_Walker", node: ast.expr) -> V | None:
    """The function value a name or ``self.X`` holds (:func:`function_value` of a name; a class
    constant ``D = dict`` read as ``self.D``), None when it holds none."""
    if isinstance(node, ast.Attribute):
        d = dotted_name(node)
        b = w.scope.binding(d) if d is not None and d.split(".")[0] in ("self", "cls") else None
        return b.fn if b is not None and b.origin == "lambda" and isinstance(b.fn, V) else None
    if isinstance(node, ast.Name) and not w.denotes_entry(node):
        return function_value(w, node)
    return None


def _closed_function(w: "_Walker", args: ast.arguments, body: list[ast.AST]) -> bool:
    if args.defaults or any(d is not None for d in args.kw_defaults):
        return False
    bound = {a.arg for a in args.posonlyargs + args.args + args.kwonlyargs + [args.vararg, args.kwarg] if a is not None}
    loads: set[str] = set()
    for n in _walk_all(body):
        if isinstance(n, (ast.Global, ast.Nonlocal, ast.Yield, ast.YieldFrom, ast.Await, ast.ClassDef)):
            return False
        if isinstance(n, (ast.FunctionDef, ast.AsyncFunctionDef)) and n.decorator_list:
            return False
        if isinstance(n, ast.arg):
            bound.add(n.arg)
        elif isinstance(n, (ast.FunctionDef, ast.AsyncFunctionDef)):
            bound.add(n.name)
        elif isinstance(n, ast.Name):
            (loads if isinstance(n.ctx, ast.Load) else bound).add(n.id)
    return all(x in bound or (x in PURE_BUILTINS and _builtin_unshadowed(w, x)) for x in loads)


def _comprehension_names(node: ast.AST) -> set[str]:
    """The names the comprehensions inside ``node`` bind (their own variables)."""
    return {x.id for c in ast.walk(node) if isinstance(c, ast.comprehension)
            for x in ast.walk(c.target) if isinstance(x, ast.Name)}


def _holds_iterator(v: V) -> bool:
    """``v`` is or contains an iterator (consumed by whatever iterates it); a range is not one."""
    if v.kind == "obj":
        return v.val[0] != "range"
    if v.kind in ("list", "tuple", "set", "frozenset"):
        return any(_holds_iterator(x) for x in v.val)
    if v.kind == "dict":
        return any(_holds_iterator(a) or _holds_iterator(b) for a, b in v.val)
    return False


def _is_safe_qual(q: str) -> bool:
    """A call that does not mutate (or keep) its arguments: some builtins and test APIs
    (``self.assertRaises(E, f, x)`` calls ``f``, so it is not one)."""
    return q in _SAFE_CALLS or (q.startswith("self.assert") and "Raises" not in q)


def _raw(b: _Binding) -> bool:
    """The binding holds a result itself (not a term over it, :mod:`specguard.python.named`)."""
    return b.term is None or b.term.expr == observe.OBS_VAR


def need(cond: bool, reason: str) -> None:
    if not cond:
        raise _Unsup(reason)


def _is_iterable_call(node: ast.expr) -> bool:
    return isinstance(node, ast.Call) and (
        (isinstance(node.func, ast.Name) and node.func.id == "range")
        or (isinstance(node.func, ast.Attribute) and node.func.attr in ("keys", "values", "items")))


def _keyword(call: ast.Call, name: str) -> ast.expr | None:
    return next((k.value for k in call.keywords if k.arg == name), None)


def _what(node: ast.expr, e: NotLiteral) -> str:
    """``argument {this}``: "`x` is not a literal (bound at line 4 by a call)" for a name,
    "`x + 1` is not a literal: <reason>" otherwise."""
    if isinstance(node, ast.Name) and e.reason.startswith(f"`{node.id}` "):
        return e.reason
    return f"`{_src(node, 40)}` is not a literal: {e.reason}"


def _raises_idiom(stmt: ast.Try, builtin: Callable[[str], bool]) -> tuple[ast.expr, ast.stmt, ast.stmt] | None:
    """(exception, the one statement tried, the failing statement) of ``try: X / except E: pass /
    else: <fail>``, or of ``try: X; <fail> / except E: pass`` when ``E`` is a builtin exception that
    does not catch ``AssertionError`` (``<fail>``: ``assert False``, ``self.fail(...)``,
    ``pytest.fail(...)``, ``raise AssertionError...``); None otherwise.  ``builtin(name)``: the
    name surely denotes the builtin there (``KeyError = Exception`` in the file would catch the
    failure)."""
    if stmt.finalbody or len(stmt.handlers) != 1:
        return None
    h = stmt.handlers[0]
    if h.type is None or h.name is not None or not all(isinstance(b, ast.Pass) for b in h.body):
        return None
    if stmt.orelse:
        if len(stmt.orelse) != 1 or len(stmt.body) != 1 or not _fails(stmt.orelse[0], builtin):
            return None
        return h.type, stmt.body[0], stmt.orelse[0]
    if len(stmt.body) != 2 or not _fails(stmt.body[1], builtin):
        return None
    names = h.type.elts if isinstance(h.type, ast.Tuple) else [h.type]
    for n in names:
        cls = getattr(builtins, n.id, None) if isinstance(n, ast.Name) and builtin(n.id) else None
        if not (isinstance(cls, type) and issubclass(cls, BaseException) and not issubclass(AssertionError, cls)):
            return None
    return h.type, stmt.body[0], stmt.body[1]


def _fails(st: ast.stmt, builtin: Callable[[str], bool]) -> bool:
    """A statement that surely fails the test (an `AssertionError`, or pytest's failure)."""
    if isinstance(st, ast.Assert):
        return isinstance(st.test, ast.Constant) and not st.test.value
    if isinstance(st, ast.Raise) and st.exc is not None and st.cause is None:
        e = st.exc.func if isinstance(st.exc, ast.Call) else st.exc
        return isinstance(e, ast.Name) and e.id == "AssertionError" and builtin("AssertionError")
    if isinstance(st, ast.Expr) and isinstance(st.value, ast.Call):
        return _src(st.value.func) in ("self.fail", "pytest.fail")
    return False


def _is_main_guard(test: ast.expr) -> bool:
    return (isinstance(test, ast.Compare) and isinstance(test.left, ast.Name) and test.left.id == "__name__"
            and len(test.comparators) == 1 and isinstance(test.comparators[0], ast.Constant)
            and test.comparators[0].value == "__main__")


# =====================================================================================
# the module: constants, tests, helpers
# =====================================================================================

@dataclass
class _TestDef:
    node: ast.FunctionDef | ast.AsyncFunctionDef
    name: str                    # pytest's name within the file: "test_x" or "TestA::test_x"
    decorators: list[ast.expr]   # in the order pytest applies them: the function's bottom-up, then
                                 # each enclosing class's bottom-up (inner class first)
    class_marks: list[ast.expr]  # `pytestmark = ...` of enclosing classes
    method: bool
    classes: list[ast.ClassDef] = field(default_factory=list)   # enclosing classes, outer to inner


@dataclass
class _Layout:
    tests: list[_TestDef] = field(default_factory=list)
    helpers: list[tuple[ast.AST, str]] = field(default_factory=list)   # (node, why its asserts do not count)


def _layout(tree: ast.Module, ctx: _Ctx) -> _Layout:
    """Which functions pytest/unittest collect as tests, and which are helpers."""
    lay = _Layout()
    test_classes: set[str] = set()
    for stmt in tree.body:
        gone = _not_collected(ctx, ctx.symbols, stmt)
        if gone is not None:
            lay.helpers.append((stmt, gone))
        elif isinstance(stmt, (ast.FunctionDef, ast.AsyncFunctionDef)):
            if stmt.name.startswith("test") and not _is_fixture(stmt, ctx):
                lay.tests.append(_TestDef(stmt, stmt.name, stmt.decorator_list[::-1], [], False))
            else:
                lay.helpers.append((stmt, f"assertion is in `{stmt.name}`, which is not a test "
                                          "(pytest collects test* functions and Test* classes)"))
        elif isinstance(stmt, ast.ClassDef):
            _layout_class(stmt, "", [], [], ctx, lay, test_classes)
    return lay


def _layout_class(cls: ast.ClassDef, prefix: str, decorators: list[ast.expr], marks: list[ast.expr],
                  ctx: _Ctx, lay: _Layout, test_classes: set[str], outer: tuple[ast.ClassDef, ...] = ()) -> None:
    name = prefix + cls.name
    shown = name.replace("::", ".")
    if not _is_test_class(cls, ctx, test_classes):
        lay.helpers.append((cls, f"assertion is in class `{shown}`, which is not a test class (pytest collects "
                                 "Test* classes and unittest.TestCase subclasses)"))
        return
    odd = _class_problem(cls, ctx)
    if odd is not None:
        lay.helpers.append((cls, f"assertion is in class `{shown}`, which pytest may not collect as written: {odd}"))
        return
    test_classes.add(cls.name)
    chain = _test_mro(cls, ctx)
    bases = chain[1:] if chain is not None else [k for k in _with_bases(cls, ctx) if k is not cls]
    # a base class's decorators and `pytestmark` apply to the tests of its subclasses (pytest reads
    # marks along the MRO; `unittest.skip` sets an inherited attribute)
    decs = cls.decorator_list[::-1] + [d for k in bases for d in k.decorator_list[::-1]] + decorators
    marks = _pytestmarks(cls.body) + [m for k in bases for m in _pytestmarks(k.body)] + marks
    try:
        symbols: Symbols | None = Symbols.of_class(cls)
    except RecursionError:
        symbols = None
    for stmt in cls.body:
        gone = _not_collected(ctx, symbols, stmt, f"{shown}.")
        if gone is not None:
            lay.helpers.append((stmt, gone))
        elif isinstance(stmt, (ast.FunctionDef, ast.AsyncFunctionDef)):
            if stmt.name.startswith("test") and not _is_fixture(stmt, ctx):
                lay.tests.append(_TestDef(stmt, f"{name}::{stmt.name}", stmt.decorator_list[::-1] + decs, marks, True,
                                          [*outer, cls]))
            else:
                lay.helpers.append((stmt, f"assertion is in `{shown}.{stmt.name}`, which is not a test method"))
        elif isinstance(stmt, ast.ClassDef):
            _layout_class(stmt, f"{name}::", decs, marks, ctx, lay, test_classes, (*outer, cls))
        else:
            lay.helpers.append((stmt, f"assertion in the body of class `{shown}`"))
    _layout_inherited(cls, chain, name, decs, marks, ctx, lay, outer)


def _test_mro(cls: ast.ClassDef, ctx: _Ctx) -> list[ast.ClassDef] | None:
    """The classes of the file in a test class's MRO (None: not known)."""
    from specguard.python import inherit

    def external(b: ast.expr) -> bool:
        q = ctx.qual(b) or ""
        return q.endswith("TestCase") or q == "object"
    return inherit.mro(cls, lambda b: _local_class(ctx, b), external)


def _layout_inherited(cls: ast.ClassDef, chain: list[ast.ClassDef] | None, name: str, decs: list[ast.expr],
                      marks: list[ast.expr], ctx: _Ctx, lay: _Layout, outer: tuple[ast.ClassDef, ...]) -> None:
    """The ``test*`` methods ``cls`` inherits from base classes of the file, collected under its
    name (``Sub::test_x``) and run with its attributes and setups (:mod:`specguard.python.inherit`)."""
    from specguard.python import inherit
    from specguard.python.collect import _class_symbols
    if chain is None or len(chain) < 2:
        return
    found = inherit.inherited_tests(chain, lambda k: _class_symbols(ctx, k))
    for fn, k in found or ():
        gone = _not_collected(ctx, _class_symbols(ctx, k), fn, f"{k.name}.")
        if gone is None and not _is_fixture(fn, ctx):
            lay.tests.append(_TestDef(fn, f"{name}::{fn.name}", fn.decorator_list[::-1] + decs, marks, True,
                                      [*outer, cls]))


def _not_collected(ctx: _Ctx, symbols: Symbols | None, stmt: ast.stmt, prefix: str = "") -> str | None:
    """Why the ``def``/``class`` statement ``stmt`` is not what pytest collects under its name
    (pytest collects a module, or a class, after running it: only a name's final binding counts)."""
    if not isinstance(stmt, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
        return None
    if symbols is None or ctx.symbols is None:
        return _TOO_DEEP
    why = symbols.collected(stmt, stmt.name)
    if why is None and prefix:
        dyn = ctx.symbols.unknown_writes(stmt.name)      # `setattr(TestA, "test_x", None)`, `TestA.test_x = ...`
        why = f"`{stmt.name}` may be rebound by {dyn[1]} at line {dyn[0]}" if dyn else None
    if why is None:
        return None
    return f"assertion is in `{prefix}{stmt.name}` (line {stmt.lineno}), which pytest does not run: {why}"


def _pytestmarks(body: list[ast.stmt]) -> list[ast.expr]:
    return [s.value for s in body if isinstance(s, ast.Assign)
            and any(isinstance(t, ast.Name) and t.id == "pytestmark" for t in s.targets)]


def _is_test_class(cls: ast.ClassDef, ctx: _Ctx, test_classes: set[str]) -> bool:
    for s in cls.body:
        if isinstance(s, ast.Assign) and any(isinstance(t, ast.Name) and t.id == "__test__" for t in s.targets):
            if isinstance(s.value, ast.Constant) and not s.value.value:
                return False
    for base in cls.bases:
        q = ctx.qual(base) or ""
        if q.endswith("TestCase") or q in test_classes:
            return True
    has_init = any(isinstance(s, ast.FunctionDef) and s.name == "__init__" for s in cls.body)
    return cls.name.startswith("Test") and not has_init


def _class_problem(cls: ast.ClassDef, ctx: _Ctx, seen: frozenset[str] = frozenset()) -> str | None:
    """Why a test class may not be collected (or run) as its own body says: a metaclass or class
    keywords; ``__test__`` that is not a constant; ``__init__``/``__new__`` (pytest skips such a
    class unless it is a ``TestCase``) or ``__test__`` in a base class of the file; a base class
    defined elsewhere (other than a ``TestCase``), which may set any of these or add tests."""
    if cls.keywords:
        return f"class `{cls.name}` has a metaclass or class keywords"
    if len(seen) > 20:
        return f"class `{cls.name}` has more than 20 levels of base classes in the file"
    if not seen and _derives_testcase(cls, ctx):
        why = _testcase_override(cls, ctx)
        if why is not None:
            return why
    for st in cls.body:
        targets = st.targets if isinstance(st, ast.Assign) else [st.target] if isinstance(st, (ast.AnnAssign, ast.AugAssign)) else []
        if any(isinstance(t, ast.Name) and t.id == "__test__" for t in targets) and \
                not (isinstance(st.value, ast.Constant) and st.value.value is True and seen == frozenset()):
            return f"`{cls.name}.__test__` is set at line {st.lineno}"
    unittest_like = False
    for base in cls.bases:
        q = ctx.qual(base) or ""
        if q.endswith("TestCase") or q == "object":
            unittest_like = unittest_like or q.endswith("TestCase")
            continue
        local = _local_class(ctx, base)
        if local is None or local.name in seen:
            return f"its base `{_src(base, 40)}` is defined elsewhere (it may set `__test__`, `__init__` or tests)"
        why = _class_problem(local, ctx, seen | {cls.name})
        if why is not None:
            return why
        unittest_like = unittest_like or _derives_testcase(local, ctx)
    if not unittest_like and not _derives_testcase(cls, ctx):
        ctors = ("__init__", "__new__") if seen else ("__new__",)     # its own `__init__`: _is_test_class
        ctor = next((st for st in cls.body if isinstance(st, (ast.FunctionDef, ast.AsyncFunctionDef))
                     and st.name in ctors), None)
        if ctor is not None:
            return f"`{cls.name}` defines `{ctor.name}` (line {ctor.lineno}; pytest does not collect such a class)"
    return None


def _testcase_override(cls: ast.ClassDef, ctx: _Ctx) -> str | None:
    """A ``TestCase`` class (or a base class of the file) that redefines what its assertions run:
    an attribute of ``unittest.TestCase`` other than the setups (``assertEqual``, ``fail``,
    ``_baseAssertEqual``, ``run``, ``failureException`` ...), or a call of
    ``addTypeEqualityFunc``: ``self.assertEqual(...)`` is then not unittest's."""
    for k in _with_bases(cls, ctx):
        for st in k.body:
            names = [st.name] if isinstance(st, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)) else \
                [n.id for n in _walk_all(st.targets if isinstance(st, ast.Assign) else [st.target])
                 if isinstance(n, ast.Name)] if isinstance(st, (ast.Assign, ast.AnnAssign, ast.AugAssign)) else []
            hit = next((n for n in names if n in _TESTCASE_ATTRS), None)
            if hit is not None:
                return f"`{k.name}` redefines `{hit}` of unittest.TestCase (line {st.lineno}): its assertions " \
                       "may not check what unittest's do"
        for n in ast.walk(k):
            if isinstance(n, ast.Attribute) and n.attr in ("addTypeEqualityFunc", "_type_equality_funcs"):
                return f"`{k.name}` changes how assertEqual compares (`{n.attr}` at line {n.lineno})"
    return None


def _framework_patch(ctx: _Ctx) -> str | None:
    """A write into pytest, unittest or builtins anywhere in the file (``unittest.TestCase.assertEqual
    = ...``, ``setattr(unittest.TestCase, ...)``, ``builtins.len = ...``): what an assertion checks is
    then unknown."""
    for n in ast.walk(ctx.file.tree):
        target = None
        if isinstance(n, (ast.Attribute, ast.Subscript)) and not isinstance(n.ctx, ast.Load):
            target = n.value
        elif isinstance(n, ast.Call) and _last_part(n.func) in ("setattr", "delattr") and n.args:
            target = n.args[0]
        if target is None:
            continue
        root = _root_name(target)
        mod = ctx.file.imports.get(root or "", root or "")
        if mod.split(".")[0] in _PATCHED_ROOTS:
            return f"the file patches `{mod}` at line {n.lineno}"
    return None


def _local_class(ctx: _Ctx, base: ast.expr) -> ast.ClassDef | None:
    """The class of the file a base expression names: a module-level class bound once, by its
    ``class`` statement only."""
    if not isinstance(base, ast.Name) or ctx.symbols is None:
        return None
    cache = ctx.__dict__.setdefault("_local_class_cache", {})
    if base.id not in cache:
        cache[base.id] = _find_local_class(ctx, base)
    return cache[base.id]


def _find_local_class(ctx: _Ctx, base: ast.Name) -> ast.ClassDef | None:
    binds = ctx.symbols.of(base.id)
    if len(binds) != 1 or binds[0].kind != "class" or binds[0].conditional or ctx.symbols.unknown_writes(base.id):
        return None
    return next((st for st in ctx.file.tree.body if isinstance(st, ast.ClassDef) and st.name == base.id), None)


def _with_bases(cls: ast.ClassDef, ctx: _Ctx, depth: int = 0) -> Iterator[ast.ClassDef]:
    """The class and its base classes defined in the file (their setups run too)."""
    yield cls
    for base in cls.bases:
        local = _local_class(ctx, base)
        if local is not None and depth < 20:
            yield from _with_bases(local, ctx, depth + 1)


def _derives_testcase(cls: ast.ClassDef, ctx: _Ctx, depth: int = 0) -> bool:
    cache = ctx.__dict__.setdefault("_derives_cache", {})
    key = (id(cls), depth)
    if key not in cache:
        cache[key] = _derives_testcase_uncached(cls, ctx, depth)
    return cache[key]


def _derives_testcase_uncached(cls: ast.ClassDef, ctx: _Ctx, depth: int) -> bool:
    for base in cls.bases:
        if (ctx.qual(base) or "").endswith("TestCase"):
            return True
        local = _local_class(ctx, base)
        if local is not None and depth < 20 and _derives_testcase(local, ctx, depth + 1):
            return True
    return False


def _is_fixture(fn: ast.FunctionDef | ast.AsyncFunctionDef, ctx: _Ctx) -> bool:
    return _fixture_decorator(ctx, fn) is not None


def _mark_name(ctx: _Ctx, d: ast.expr) -> str:
    """The qualified name of a decorator or mark (``pytest.mark.skipif`` for ``@pytest.mark.skipif(...)``)."""
    return ctx.qual(d.func if isinstance(d, ast.Call) else d) or ""


def _is_parametrize(ctx: _Ctx, d: ast.expr) -> bool:
    return isinstance(d, ast.Call) and _mark_name(ctx, d).endswith("mark.parametrize")


def _has_skip_mark(ctx: _Ctx, nodes: Iterable[ast.AST]) -> bool:
    """Whether the marks ``nodes`` (decorators, ``pytestmark`` values, a ``pytest.param``'s ``marks=``)
    may skip or xfail the test.  A mark's name is resolved through the file's imports (``from
    unittest import expectedFailure as ef``; ``@ef``); a mark that is not written out as
    ``pytest.mark.NAME`` or ``unittest.NAME`` (a variable such as ``XF = pytest.mark.xfail``, a call's
    result) has an unknown value, so it may be one."""
    if any(isinstance(n, (ast.Attribute, ast.Name)) and _last_part(n) in _SKIP_MARKS for n in _walk_all(nodes)):
        return True
    return any(_mark_may_skip(ctx, n) for n in nodes)


def _mark_may_skip(ctx: _Ctx, node: ast.AST) -> bool:
    if isinstance(node, (ast.List, ast.Tuple)):
        return any(_mark_may_skip(ctx, e) for e in node.elts)
    q = ctx.qual(node.func if isinstance(node, ast.Call) else node)
    if q is None:
        return True
    parts = q.split(".")
    if _SKIP_MARKS.intersection(parts):
        return True
    return not ((parts[:2] == ["pytest", "mark"] and len(parts) > 2) or (parts[0] == "unittest" and len(parts) > 1))


# -- module constants ---------------------------------------------------------------

def _module_bindings(ctx: _Ctx, selected: bool, block: str | None = None) -> None:
    """Run the module's top level: its constants, whether it may be skipped, whether it rebinds
    the function under test, its assertions (demands unless ``block`` says why not); mutable
    constants that may be mutated or shared lose their values."""
    scope = _Scope({})
    walker = _Walker(ctx, scope, "module", block=block)
    body = ctx.file.tree.body
    _guarded(ctx, [s for s in body if not isinstance(s, _SCOPES)], lambda: walker.run(body))
    ctx.tables = _Scope(dict(scope.locals))   # parametrize tables are read at collection time
    ctx.tables.free_builtins, ctx.tables.stdlib = scope.free_builtins, scope.stdlib   # `math.inf` in a table
    ctx.tables.assume = scope.assume
    constants = {n: b.value for n, b in scope.locals.items() if b.value is not None and b.mutable}
    try:
        escapes = _escaping_uses(ctx, constants)
    except RecursionError:
        escapes = {name: 1 for name in constants}
    for name, line in escapes.items():
        scope.locals[name] = scope.locals[name].invalid(
            f"a module-level mutable value, also used at line {line} where it may be mutated or shared between tests")
    for name, b in list(scope.locals.items()):      # one object for every test, which any test may change
        if b.result is not None:
            scope.locals[name] = b.invalid("is a module-level result, shared between the tests (one of them may "
                                           "change it before another reads it)")
    for n in ctx.file.nodes[ast.Global]:
        for name in getattr(n, "names", ()):
            if name in scope.locals:
                scope.locals[name] = scope.locals[name].invalid(f"declared global at line {n.lineno}")
    ctx.module = scope.locals
    if walker.exit is not None and not selected:
        ctx.module_block = f"the module may be skipped or stop early ({walker.exit})"
    if ctx.module_block is None:
        ctx.module_block = _framework_patch(ctx)


def _escaping_uses(ctx: _Ctx, constants: dict[str, V]) -> dict[str, int]:
    """For mutable module constants: the first use that may mutate or share the object.  Uses that
    do not: in an assertion outside any call that could mutate it; and, when the constant's
    elements are immutable, as a ``for`` iterable or a parametrize table."""
    found: dict[str, int] = {}
    if not constants:
        return found
    iterable_ok = {n for n, v in constants.items() if not _elements_mutable(v)}

    def escape(name: str, line: int) -> None:
        found.setdefault(name, line)

    def visit(node: ast.AST, inert: bool, exposed: bool, iterated: bool = False) -> None:
        if isinstance(node, ast.Name):
            if node.id in constants and (exposed or not (inert or (iterated and node.id in iterable_ok))):
                escape(node.id, node.lineno)
            return
        if isinstance(node, (ast.Lambda, ast.ListComp, ast.SetComp, ast.DictComp, ast.GeneratorExp)):
            inert = exposed = True
        elif isinstance(node, ast.Call):
            q = ctx.qual(node.func) or ""
            func = node.func
            if isinstance(func, ast.Attribute) and isinstance(func.value, ast.Name) \
                    and func.value.id in constants and func.attr not in _SAFE_METHODS:
                escape(func.value.id, node.lineno)
            if q.endswith("mark.parametrize") and len(node.args) >= 2:
                visit(node.args[1], False, exposed, True)
                return
            visit(func, inert, exposed, iterated)
            for child in itertools.chain(node.args, node.keywords):
                visit(child, inert, exposed or not _is_safe_qual(q), iterated)
            return
        elif isinstance(node, ast.Assert) or (isinstance(node, ast.Expr) and ctx.is_assertion_call(node.value)):
            inert = True
        elif isinstance(node, ast.For):
            visit(node.iter, False, exposed, True)
            for child in node.body + node.orelse:
                visit(child, False, exposed)
            return
        elif isinstance(node, ast.stmt):
            inert = False
        for child in ast.iter_child_nodes(node):
            visit(child, inert, exposed, iterated)

    for stmt in ctx.file.tree.body:
        if not _defines_constant(stmt, constants):
            visit(stmt, False, False)
    return found


def _elements_mutable(v: V) -> bool:
    if v.kind == "dict":
        return any(is_mutable(a) or is_mutable(b) for a, b in v.val)
    return v.kind not in ("list", "tuple", "set", "frozenset") or any(is_mutable(x) for x in v.val)


def _defines_constant(stmt: ast.stmt, constants: Mapping[str, V]) -> bool:
    """``NAME = <expression without constants>`` at module level: a definition, not a use."""
    if isinstance(stmt, ast.Assign):
        targets, value = stmt.targets, stmt.value
    elif isinstance(stmt, ast.AnnAssign) and stmt.value is not None:
        targets, value = [stmt.target], stmt.value
    else:
        return False
    return all(isinstance(t, ast.Name) for t in targets) and not _names_in(value) & set(constants)


# =====================================================================================
# parametrize
# =====================================================================================

_AUTO: Any = object()   # "no explicit id: pytest generates it"


@dataclass
class _Row:
    values: dict[str, _Binding]
    skip: bool = False
    pid: str | None = ""            # pytest id ("" when not parametrized; None when unknown)


@dataclass
class _RowSpec:
    items: list[ast.expr] | V       # the row's nodes (written in line) or its value (a constant table)
    marks: ast.expr | None = None
    pid: Any = _AUTO                # explicit id (str), unknown (None) or _AUTO


def _param_rows(ctx: _Ctx, test: _TestDef) -> list[_Row] | str:
    """The runs of a test: one per parametrize combination (or one run), or why not known."""
    decs = [d for d in test.decorators if _is_parametrize(ctx, d)]
    tables: list[list[_Row]] = []
    for d in decs:
        rows = _parametrize(ctx, d, shared=len(decs) > 1)
        if isinstance(rows, str):
            return rows
        tables.append(rows)
    runs = 1
    for rows in tables:
        runs *= max(len(rows), 1)
        if runs > MAX_UNROLL:
            return f"the stacked parametrize decorators make more than {MAX_UNROLL} runs of the test"
    out: list[_Row] = []
    for combo in itertools.product(*tables):
        values: dict[str, _Binding] = {}
        for r in combo:
            twice = set(r.values) & set(values)
            if twice:
                return f"argument `{sorted(twice)[0]}` is parametrized twice"
            values.update(r.values)
        pids = [r.pid for r in combo]
        pid = None if any(p is None for p in pids) else "-".join(p for p in pids if p is not None)
        out.append(_Row(values, any(r.skip for r in combo), pid))
    return out


def _parametrize(ctx: _Ctx, d: ast.Call, shared: bool) -> list[_Row] | str:
    line = d.lineno
    kw = {k.arg: k.value for k in d.keywords if k.arg}
    names_node = d.args[0] if d.args else kw.get("argnames")
    table = d.args[1] if len(d.args) > 1 else kw.get("argvalues")
    if names_node is None or table is None:
        return f"the parametrize decorator at line {line} has no table"
    indirect = kw.get("indirect")
    if indirect is not None and not (isinstance(indirect, ast.Constant) and indirect.value is False):
        return f"the parametrize decorator at line {line} passes values through fixtures (`indirect=`)"
    scope = ctx.tables
    try:
        names = _argnames(eval_literal(names_node, scope))
    except NotLiteral as e:
        return f"the parametrize argument names at line {line} are not literal: {e.reason}"
    if names is None:
        return f"the parametrize argument names at line {line} are not strings"
    specs = _table_rows(table, scope, line)
    if isinstance(specs, str):
        return specs
    ids = _explicit_ids(kw.get("ids"), scope, len(specs))
    inline = isinstance(table, (ast.List, ast.Tuple)) and not shared
    rows: list[_Row] = []
    for i, spec in enumerate(specs):
        row = _row(names, spec.items, scope, line, inline, i)
        if isinstance(row, str):
            return row
        row.skip = spec.marks is not None and _has_skip_mark(ctx, [spec.marks])
        pid = spec.pid if spec.pid is not _AUTO else ids[i]
        row.pid = pid if pid is not _AUTO else _auto_id(names, row, i)
        rows.append(row)
    _disambiguate(rows)
    return rows


def _argnames(v: V) -> list[str] | None:
    if v.kind == "str":
        return [s.strip() for s in v.val.split(",") if s.strip()]
    if v.kind in ("list", "tuple") and all(x.kind == "str" for x in v.val):
        return [x.val for x in v.val]
    return None


def _table_rows(table: ast.expr, scope: _Scope, line: int) -> list[_RowSpec] | str:
    """The rows of a parametrize table: AST nodes (written in line) or values (a constant)."""
    if isinstance(table, (ast.List, ast.Tuple)):
        if any(isinstance(e, ast.Starred) for e in table.elts):
            return f"the parametrize table at line {line} uses `*`"
        return [_param_call(e) or _RowSpec([e]) for e in table.elts]
    try:
        v = eval_literal(table, scope)
    except NotLiteral as e:
        return f"the parametrize table at line {line} is not a literal: {e.reason}"
    if v.kind not in ("list", "tuple"):
        return f"the parametrize table at line {line} is a {v.kind}, not a list or tuple"
    return [_RowSpec(x) for x in v.val]


def _param_call(elt: ast.expr) -> _RowSpec | None:
    """``pytest.param(*values, marks=..., id=...)``."""
    if not (isinstance(elt, ast.Call) and _last_part(elt.func) == "param"):
        return None
    kw = {k.arg: k.value for k in elt.keywords}
    pid: Any = _AUTO
    if "id" in kw:
        node = kw["id"]
        pid = node.value if isinstance(node, ast.Constant) and isinstance(node.value, str) else None
    return _RowSpec(list(elt.args), kw.get("marks"), pid)


def _row(names: list[str], items: list[ast.expr] | V, scope: _Scope, line: int, inline: bool,
         index: int) -> _Row | str:
    mismatch = f"row {index} of the parametrize table at line {line} does not match its {len(names)} names"
    if isinstance(items, V):
        values = [items] if len(names) == 1 else _split_value(items, len(names))
        if values is None:
            return mismatch
        return _Row({n: _param_binding(v, False, line) for n, v in zip(names, values)})
    nodes = items
    if len(nodes) == 1 and len(names) > 1:
        node = nodes[0]
        if not isinstance(node, (ast.Tuple, ast.List)) or any(isinstance(e, ast.Starred) for e in node.elts):
            try:
                value = eval_literal(node, scope)
            except NotLiteral as e:
                return f"row {index} of the parametrize table at line {line} is not a literal: {e.reason}"
            return _row(names, value, scope, line, inline, index)
        nodes = list(node.elts)
    if len(nodes) != len(names):
        return mismatch
    row: dict[str, _Binding] = {}
    for name, node in zip(names, nodes):
        try:
            v = eval_literal(node, scope)
        except NotLiteral as e:
            row[name] = _opaque(f"parametrized at line {line} with a non-literal value: {e.reason}", "param")
            continue
        row[name] = _param_binding(v, inline and not (_names_in(node) - set(scope.stdlib)), line)   # `[math.nan]`
    return _Row(row)


def _split_value(v: V, n: int) -> list[V] | None:
    return list(v.val) if v.kind in ("list", "tuple") and len(v.val) == n else None


def _param_binding(v: V, fresh: bool, line: int) -> _Binding:
    """A parameter's value; a mutable one only when each run gets its own object (``fresh``)."""
    if is_mutable(v) and not fresh:
        return _Binding(why=f"parametrized at line {line} with a mutable object shared between test runs",
                        groups=_new_group(), mutable=True, origin="param")
    return _literal(v, _new_group(), "param")


def _explicit_ids(node: ast.expr | None, scope: _Scope, n: int) -> list[Any]:
    """Per row: the ``ids=[...]`` string, _AUTO (no ids, or a None entry) or None (unknown)."""
    if node is None:
        return [_AUTO] * n
    try:
        v = eval_literal(node, scope)
    except NotLiteral:
        return [None] * n
    if v.kind not in ("list", "tuple") or len(v.val) < n:
        return [None] * n
    return [x.val if x.kind == "str" else _AUTO if x.kind == "none" else None for x in v.val[:n]]


def _auto_id(names: list[str], row: _Row, index: int) -> str | None:
    parts = []
    for name in names:
        b = row.values[name]
        if b.value is None:
            return None
        parts.append(_idval(b.value, name, index))
    return "-".join(parts)


def _idval(v: V, argname: str, index: int) -> str:
    """pytest's id of one parameter value (``_idval_from_value``), or ``argname + index``."""
    if v.kind == "str":
        return _printable(v.val.encode("unicode_escape").decode("ascii"))
    if v.kind == "bytes":
        return _printable(v.val.decode("ascii", "backslashreplace"))
    if v.kind in ("none", "bool", "int", "float"):
        return str(v.val)
    return f"{argname}{index}"


_NON_PRINTABLE = {i: f"\\x{i:02x}" for i in range(128) if i not in range(32, 127)}
_NON_PRINTABLE.update({ord("\t"): "\\t", ord("\r"): "\\r", ord("\n"): "\\n"})


def _printable(s: str) -> str:
    return s.translate(_NON_PRINTABLE)


def _disambiguate(rows: list[_Row]) -> None:
    """pytest suffixes duplicate ids (differently across versions): treat them as unknown."""
    counts = Counter(r.pid for r in rows if r.pid is not None)
    for r in rows:
        if r.pid is not None and counts[r.pid] > 1:
            r.pid = None


# =====================================================================================
# test selection (only_tests)
# =====================================================================================

@dataclass
class _Selector:
    text: str
    name: str                       # "Class::test" or "test"
    bracket: str | None             # parametrized id, if given
    path: str | None
    matched: bool = False


def _selectors(only: Sequence[str]) -> list[_Selector]:
    out = []
    for text in only:
        s = text.strip()
        m = re.fullmatch(r"(\w+)\s+\(([\w.]+)\)(.*)", s)
        if m:   # Django / unittest: "test_x (pkg.module.Class)" or "... (pkg.module.Class.test_x)"
            method, parts = m.group(1), m.group(2).split(".")
            if parts[-1] == method:
                parts = parts[:-1]
            module = "/".join(parts[:-1]) + ".py" if len(parts) > 1 else None
            out.append(_Selector(text, f"{parts[-1]}::{method}", None, module))
            continue
        base, bracket = s, None
        if "[" in s and s.endswith("]"):
            base, bracket = s[: s.index("[")], s[s.index("[") + 1:-1]
        parts = base.split("::")
        path = parts.pop(0) if parts[0].endswith(".py") or "/" in parts[0] else None
        out.append(_Selector(text, "::".join(parts), bracket, path))
    return out


def _same_file(source_path: str, sel_path: str | None) -> bool:
    if sel_path is None:
        return True
    a = source_path.replace("\\", "/").removeprefix("./")
    b = sel_path.replace("\\", "/").removeprefix("./")
    return a == b or a.endswith("/" + b) or b.endswith("/" + a)


class _Selection:
    """Which tests (and parametrized rows) of a file count."""

    def __init__(self, f: _File, tests: list[_TestDef]) -> None:
        self.active = bool(f.source.only_tests)
        self.selectors = [s for s in _selectors(f.source.only_tests) if _same_file(f.path, s.path)]
        bare = Counter(t.name.rsplit("::", 1)[-1] for t in tests)
        self.unique_bare = {n for n, c in bare.items() if c == 1}

    def matches(self, test: _TestDef) -> list[_Selector]:
        bare = test.name.rsplit("::", 1)[-1]
        hits = [s for s in self.selectors
                if s.name == test.name or (s.name == bare and bare in self.unique_bare)]
        for s in hits:
            s.matched = True
        return hits

    def rows(self, test: _TestDef, rows: list[_Row]) -> list[tuple[_Row, str | None]]:
        """(row, block reason) of the rows that count."""
        if not self.active:
            return [(r, None) for r in rows]
        hits = self.matches(test)
        if not hits:
            return []
        if any(s.bracket is None for s in hits) or all(r.pid == "" for r in rows):
            return [(r, None) for r in rows]
        wanted = {s.bracket for s in hits}
        unknown = ("cannot tell whether this parametrized case is among the selected tests "
                   "(its pytest id is not known)")
        return [(r, None if r.pid is not None else unknown) for r in rows if r.pid is None or r.pid in wanted]

    def unmatched(self) -> list[_Selector]:
        return [s for s in self.selectors if not s.matched]


# =====================================================================================
# running the tests of a file
# =====================================================================================

def _formalize_file(f: _File, target: str | None, why: str, out: _Out, ctx: _Ctx | None = None) -> None:
    start = len(out.unsupported_)
    ctx = ctx or _Ctx(f, target, why, out)
    for u in _unrecovered_lines(f):
        out.unsupported(u)
    lay = _layout(f.tree, ctx)
    selection = _Selection(f, lay.tests)
    imported = not selection.active or any(selection.matches(t) for t in lay.tests)
    _module_bindings(ctx, selection.active, None if imported else
                     "module-level assertion of a file none of whose tests is selected (only_tests): "
                     "pytest may not import it")
    for test in lay.tests:
        _run_test(ctx, test, selection)
    ran = {id(k) for body in ctx.run_bodies for k in ctx.assertion_keys(body)}   # an inherited body runs in several tests
    for body in ctx.unrun_bodies:
        ctx.skip_inside([k for k in ctx.assertion_keys(body) if id(k) not in ran])
    if selection.active:
        _skip_unreachable(ctx, lay, ran)
    harness = _implicit_check(ctx, lay)
    if harness is not None:
        _run_harness(ctx, harness)
    for node, reason in lay.helpers:      # after the runs: a helper's assertions executed by a call count
        why = ctx.helper_problems.get(id(node))
        reason = f"{reason}; a call of it is not executed: {why}" if why else reason
        for key in ctx.assertion_keys([node]):
            if id(key) not in ctx.handled:
                ctx.unsupported(key, reason)
    for s in selection.unmatched():
        out.unsupported(Unsupported(loc=Loc(file=f.path), reason=f"selected test `{s.text}` was not found in this file"))
    keys = f.nodes[ast.Assert] + [c for c in f.nodes[ast.Call] if ctx.is_assertion_call(c)]
    for key in keys:
        if id(key) not in ctx.handled:
            ctx.unsupported(key, "assertion in a position that is not formalized (inside an expression)")
    counted = [k for k in keys if id(k) not in ctx.skipped]
    out.assertions_total += len(counted)
    out.assertions_read += sum(id(k) in ctx.read for k in counted)
    out.sort_unsupported_from(start)


def _skip_unreachable(ctx: _Ctx, lay: _Layout, ran: set[int]) -> None:
    """Assertions of helpers that no selected test, setup or module code can reach do not count
    (:mod:`specguard.python.reach`)."""
    from specguard.python import reach
    run = {id(b) for b in ctx.run_bodies}
    dead = [b for b in ctx.unrun_bodies if id(b) not in run]
    chains = {id(t.classes[-1]): t.classes[-1] for t in lay.tests if t.classes}
    mros = [m for k in chains.values() for m in [_test_mro(k, ctx)] if m is not None]
    for fn in reach.unreachable_helpers(ctx.file.tree, [t.node for t in lay.tests], dead, mros,
                                        lambda fn: _is_fixture(fn, ctx), ctx.other_texts):
        ctx.skip_inside([k for k in ctx.assertion_keys(fn.body) if id(k) not in ran and id(k) not in ctx.handled])


HARNESS_NOTE = ("the test module defines `check(candidate)` and never calls it: read as the HumanEval harness "
                "runs it, `check({entry})` (assumed: the harness appends that call)")


def _implicit_check(ctx: _Ctx, lay: _Layout) -> ast.FunctionDef | None:
    """HumanEval's test format: a module-level ``def check(candidate)`` that the module never
    calls nor mentions (the harness appends ``check(entry_point)``), in a file with no tests."""
    if not ctx.target or lay.tests:
        return None
    fns = [s for s in ctx.file.tree.body if isinstance(s, ast.FunctionDef) and s.name == "check"]
    if len(fns) != 1:
        return None
    a = fns[0].args
    if [p.arg for p in a.posonlyargs + a.args] != ["candidate"] or a.defaults or a.kwonlyargs:
        return None
    if any(isinstance(n, ast.Name) and n.id == "check" for n in ast.walk(ctx.file.tree)):
        return None
    return fns[0]


def _run_harness(ctx: _Ctx, fn: ast.FunctionDef) -> None:
    """Run ``check(<entry point>)`` after the module, as the harness does."""
    at = {"lineno": fn.lineno, "col_offset": 0, "end_lineno": fn.lineno, "end_col_offset": 0}
    call = ast.Call(func=ast.Name(id="check", ctx=ast.Load(), **at),
                    args=[ast.Name(id=ctx.target or "", ctx=ast.Load(), **at)], keywords=[], **at)
    stmt = ast.Expr(value=call, **at)
    walker = _Walker(ctx, _Scope(ctx.module), "test", "check", ctx.module_block)
    _guarded(ctx, fn.body, lambda: walker.call_helper(stmt, call))
    ctx.out.notes.append(HARNESS_NOTE.format(entry=ctx.target))


def _run_test(ctx: _Ctx, test: _TestDef, selection: _Selection) -> None:
    rows = _param_rows(ctx, test)
    if isinstance(rows, str) or not rows:
        why = f"the test's parametrization is not understood: {rows}" if rows else \
            "the parametrize table is empty (the test is skipped)"
        rows_to_run = [(r, why) for r, _ in selection.rows(test, [_Row({})])]
    else:
        rows_to_run = selection.rows(test, rows)
    if not rows_to_run:
        ctx.unrun_bodies.append(test.node.body)     # skipped after every test ran (a body may be inherited)
        return
    ctx.run_bodies.append(test.node.body)
    facts = ctx.file.facts[id(test.node)]
    local_names = frozenset(facts.names)
    block = _test_block(ctx, test, facts.generator)
    bracketed = selection.active and any(s.bracket is not None for s in selection.matches(test))
    for row, row_block in rows_to_run:
        reason = block or row_block or ("test is marked skip/xfail" if row.skip else None)
        for values, run_block in _setup_runs(ctx, test, row, reason, bracketed):
            scope = _Scope(ctx.module, local_names)
            for name, b in _parameters(test, row).items():
                scope.bind(name, values.get(name, b) if name not in row.values else b)
            for name, b in values.items():
                if name.startswith("self."):
                    scope.bind(name, b)
            walker = _Walker(ctx, scope, "test", test.name, reason or run_block)
            objects.seed(walker, test)          # objects built by setUp / function-scoped fixtures
            _guarded(ctx, test.node.body, lambda w=walker: w.run(test.node.body))


def _setup_runs(ctx: _Ctx, test: _TestDef, row: _Row, reason: str | None,
                bracketed: bool) -> list[tuple[dict[str, _Binding], str | None]]:
    """The runs of one row over what is set up before the test (:mod:`specguard.python.collect`): the
    bindings of its fixture parameters and ``self.NAME`` attributes, and why a run's assertions do
    not count."""
    from specguard.python import collect as fixtures
    out: list[tuple[dict[str, _Binding], str | None]] = []
    try:
        runs = fixtures.fixture_runs(ctx, test, row, reason)
        attrs, setup_block = fixtures.setup_attributes(ctx, test, reason)
    except RecursionError:
        return [({}, _TOO_DEEP)]
    if not runs:
        return [({}, "a fixture's `params` list is empty (pytest skips the test)")]
    for run in runs:
        why = run.block or setup_block
        if why is None and bracketed and run.fixture_params:
            why = "cannot tell whether this case of the fixture params is among the selected tests"
        out.append(({**run.values, **attrs}, why))
    return out


_TOO_DEEP = "the code is nested too deeply to be analysed"


def _guarded(ctx: _Ctx, nodes: list[ast.stmt], run: Callable[[], None]) -> None:
    """Run an analysis; code nested deeper than Python's recursion limit makes every assertion in
    ``nodes`` unsupported instead (demands already made stay: they are sound)."""
    try:
        run()
    except RecursionError:
        ctx.unsupported_inside(nodes, _TOO_DEEP)


def _parameters(test: _TestDef, row: _Row) -> dict[str, _Binding]:
    args = test.node.args
    out: dict[str, _Binding] = {}
    for i, a in enumerate(args.posonlyargs + args.args + args.kwonlyargs):
        if i == 0 and test.method:
            out[a.arg] = _opaque("the test object", "self")
        elif a.arg in row.values:
            out[a.arg] = row.values[a.arg]
        else:
            out[a.arg] = _opaque("a fixture (its value is computed by pytest)", "fixture")
    return out


def _test_block(ctx: _Ctx, test: _TestDef, generator: bool) -> str | None:
    """Why none of a test's assertions count, if so."""
    fn = test.node
    module_marks = ctx.__dict__.get("_module_marks")
    if module_marks is None:
        module_marks = ctx._module_marks = _pytestmarks(ctx.file.tree.body)
    marks = [d for d in test.decorators if not _is_parametrize(ctx, d)] + test.class_marks + module_marks
    for d in test.decorators:
        q = _mark_name(ctx, d)
        if _PATCH_PARTS.intersection(q.split(".")) or "mock" in q.split("."):
            return f"test is decorated with `{q}`, which changes the environment"
        if not q.startswith(("pytest.mark.", "unittest.")):
            return f"test is decorated with `{q or _src(d, 40)}`, which may replace or wrap it (pytest runs " \
                   "what the decorator returns)"
    if _has_skip_mark(ctx, marks):
        return "test is marked skip/xfail"
    if any(_is_parametrize(ctx, m) for m in _walk_all(test.class_marks + module_marks)):
        return "test is parametrized through `pytestmark` (not supported)"
    if isinstance(fn, ast.AsyncFunctionDef):
        return "async test (it needs a plugin to run; not formalized)"
    if generator:
        return "test function is a generator (pytest does not run it as a test)"
    return _setup_exit(ctx, test, marks) or ctx.module_block


_MODULE_SETUPS = frozenset({"setUpModule", "setup_module", "setup_function", "setup"})
_CLASS_SETUPS = frozenset({"setUp", "asyncSetUp", "setUpClass", "setup_method", "setup_class", "setup"})


def _setup_exit(ctx: _Ctx, test: _TestDef, marks: Sequence[ast.expr] = ()) -> str | None:
    """A setup function or fixture that runs before the test and may skip it (or stop it):
    module/class setups, autouse fixtures, and fixtures of the file the test requests (as a
    parameter, through ``pytest.mark.usefixtures``, or through another fixture that requests it)."""
    scopes = [(_setups_of(ctx, ctx.file.tree.body, _MODULE_SETUPS), _MODULE_SETUPS)] + \
        [(_setups_of(ctx, c.body, _CLASS_SETUPS), _CLASS_SETUPS) for c in test.classes for c in _with_bases(c, ctx)]
    params = _requested_fixtures(ctx, test, marks, [fn for body, _ in scopes for fn, _ in body])
    for body, setups in scopes:
        for fn, fixture in body:
            runs = fn.name in setups if fixture is None else \
                (params is None or bool(_fixture_names(fixture, fn) & params) or _is_autouse(fixture))
            why = _exit_in(ctx, fn) if runs else None
            if why is not None:
                return f"`{fn.name}`, which runs before the test, may skip or stop it ({why})"
            why = _patch_in(ctx, fn) if runs else None
            if why is not None:
                return f"`{fn.name}`, which runs before the test, changes the environment ({why}): it may " \
                       "rebind what the test calls"
    return None


def _setups_of(ctx: _Ctx, body: list[ast.stmt], setups: frozenset[str]) -> list[tuple[ast.FunctionDef, ast.expr | None]]:
    """The functions of ``body`` that may run before a test (setups by name, fixtures) with their
    fixture decorator; memoised per body (every test of a file asks: linear, not quadratic)."""
    cache = ctx.__dict__.setdefault("_setups_cache", {})
    hit = cache.get(id(body))
    if hit is None:
        hit = cache[id(body)] = [(fn, d) for fn in body if isinstance(fn, (ast.FunctionDef, ast.AsyncFunctionDef))
                                 for d in [_fixture_decorator(ctx, fn)] if d is not None or fn.name in setups]
    return hit


def _fixture_names(d: ast.expr, fn: ast.FunctionDef | ast.AsyncFunctionDef) -> set[str]:
    """The names a fixture is requested by: its function's, and ``name=`` (any name when that is not
    a constant)."""
    name = _keyword(d, "name") if isinstance(d, ast.Call) else None
    if name is None:
        return {fn.name}
    if isinstance(name, ast.Constant) and isinstance(name.value, str):
        return {fn.name, name.value}
    return {"*"}


def _requested_fixtures(ctx: _Ctx, test: _TestDef, marks: Sequence[ast.expr],
                        stmts: Sequence[ast.stmt]) -> set[str] | None:
    """The fixture names a test requests, directly or through the fixtures of the file it requests
    (None: any of them, e.g. ``usefixtures`` of a name that is not a constant)."""
    req = {a.arg for a in test.node.args.posonlyargs + test.node.args.args + test.node.args.kwonlyargs}
    for n in _walk_all(marks):
        if isinstance(n, ast.Call) and _mark_name(ctx, n).endswith("usefixtures"):
            for a in n.args:
                if not (isinstance(a, ast.Constant) and isinstance(a.value, str)):
                    return None
                req.add(a.value)
    fixtures = [(names, fn) for fn in stmts if isinstance(fn, (ast.FunctionDef, ast.AsyncFunctionDef))
                for d in [_fixture_decorator(ctx, fn)] if d is not None for names in [_fixture_names(d, fn)]]
    if not fixtures:
        return req
    if any("*" in names for names, _ in fixtures):
        return None
    grown = True
    while grown:
        grown = False
        for names, fn in fixtures:
            if names & req:
                more = {a.arg for a in fn.args.posonlyargs + fn.args.args + fn.args.kwonlyargs} - req
                if more:
                    req |= more
                    grown = True
    return req


def _patch_in(ctx: _Ctx, fn: ast.FunctionDef | ast.AsyncFunctionDef) -> str | None:
    """A patch in a setup function or fixture (``monkeypatch.setattr``, ``mock.patch``, ...)."""
    for n in _walk_all_local(fn.body):
        if isinstance(n, ast.Call):
            q = ctx.qual(n.func) or ""
            if _PATCH_PARTS.intersection(q.split(".")):
                return f"`{q}` at line {n.lineno}"
    return None


def _fixture_decorator(ctx: _Ctx, fn: ast.FunctionDef | ast.AsyncFunctionDef) -> ast.expr | None:
    return next((d for d in fn.decorator_list if _mark_name(ctx, d).endswith("fixture")), None)


def _is_autouse(d: ast.expr) -> bool:
    autouse = _keyword(d, "autouse") if isinstance(d, ast.Call) else None
    return autouse is not None and not (isinstance(autouse, ast.Constant) and not autouse.value)


def _exit_in(ctx: _Ctx, fn: ast.FunctionDef | ast.AsyncFunctionDef) -> str | None:
    """A skip, exit or raise in a setup function (its ``return`` only ends the setup)."""
    return next((p for n in _walk_all_local(fn.body) if not isinstance(n, ast.Return)
                 and (p := _exit_phrase(ctx, n)) is not None), None)


def _exit_phrase(ctx: _Ctx, n: ast.AST) -> str | None:
    """"`return` at line 4" when ``n`` may end the code early: ``return``, ``raise``, or a skip /
    xfail / fail / exit call."""
    if isinstance(n, (ast.Return, ast.Raise)):
        return f"`{type(n).__name__.lower()}` at line {n.lineno}"
    if isinstance(n, ast.Call):
        q = ctx.qual(n.func)
        if q in _EXIT_CALLS:
            return f"`{q}` at line {n.lineno}"
    return None


# =====================================================================================
# inferring the function under test
# =====================================================================================

_HELPER_CALLS = frozenset({"pytest.approx", "pytest.raises", "pytest.param", "approx"})


def infer_entry_point_of(files: Sequence[_File]) -> tuple[str | None, str]:
    """(name, "") or (None, why): the single most common function called in assertions."""
    counts: Counter[str] = Counter()
    for f in files:
        try:
            counts.update(list(_candidates(f)))
        except RecursionError:   # absurdly nested assertions: they will be unsupported anyway
            continue
    if not counts:
        return None, "no function call found in any assertion; give the entry point"
    top = max(counts.values())
    best = sorted(name for name, n in counts.items() if n == top)
    if len(best) > 1:
        names = " and ".join(f"`{n}`" for n in best)
        return None, f"cannot infer the function under test: {names} are called equally often in assertions; " \
                     "give the entry point"
    return best[0], ""


def _candidates(f: _File) -> Iterator[str]:
    """Names of the functions whose results the file's assertions test (one per use)."""
    ctx = _Ctx(f, None, "", _Out())
    defined = {s.name for s in f.tree.body if isinstance(s, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef))}
    # a parameter of a function of the file (`check(candidate)`) holds what its caller passes
    defined |= {p.arg for n in ast.walk(f.tree) if isinstance(n, (ast.FunctionDef, ast.AsyncFunctionDef, ast.Lambda))
                for p in n.args.posonlyargs + n.args.args + n.args.kwonlyargs}

    def called(func: ast.expr) -> Iterator[str]:
        local = _last_part(func)
        name = (ctx.qual(func) or local or "").rsplit(".", 1)[-1]
        if local and local not in defined and name not in _BUILTIN_NAMES and not name.startswith("assert"):
            yield name

    def outer_call(node: ast.AST) -> Iterator[str]:
        if isinstance(node, (ast.BoolOp, ast.Compare, ast.UnaryOp)):
            for child in ast.iter_child_nodes(node):
                yield from outer_call(child)
        elif isinstance(node, ast.Call):
            q = ctx.qual(node.func) or ""
            if q in _BUILTIN_NAMES or q in _HELPER_CALLS or ctx.is_assertion_call(node):
                for a in node.args:
                    yield from outer_call(a)
            else:
                yield from called(node.func)

    for n in f.nodes[ast.Assert]:
        yield from outer_call(n.test)   # type: ignore[attr-defined]
    for n in f.nodes[ast.Call]:
        if not ctx.is_assertion_call(n):
            continue
        assert isinstance(n, ast.Call)
        if (ctx.qual(n.func) or "") == "pytest.raises" or (_last_part(n.func) or "").startswith("assertRaises"):
            at = 2 if (_last_part(n.func) or "").startswith("assertRaisesRegex") else 1
            func = n.args[at] if len(n.args) > at else None
            if isinstance(func, ast.Lambda):
                func = func.body.func if isinstance(func.body, ast.Call) else None
            if func is not None:
                yield from called(func)
        else:
            for a in n.args:
                yield from outer_call(a)
    for w in f.nodes[ast.With]:
        assert isinstance(w, ast.With)
        if len(w.body) == 1 and any(ctx.is_assertion_call(i.context_expr) for i in w.items):
            value = getattr(w.body[0], "value", None)
            if isinstance(value, ast.Call):
                yield from called(value.func)


# =====================================================================================
# table sources
# =====================================================================================

def _formalize_table(source: TestSource, target: str | None, why: str, out: _Out) -> None:
    for case in source.cases:
        loc = Loc(file=source.path, pointer=case.pointer)
        if not target:
            out.unsupported(Unsupported(loc=loc, reason=f"table tests need an entry point: {why}"))
            continue
        call = Call(target=target, args=case.args)
        text = f"{call.source()} == {short_repr(case.expected)}"
        if contains_nan(case.expected):
            out.unsupported(Unsupported(loc=loc, reason="expected value contains NaN (NaN equals nothing)", text=text))
            continue
        out.demand(_Pending(call=call, expect=Expect(kind=ExpectKind.eq, value=case.expected), loc=loc,
                            text=text[:MAX_TEXT], test_name=None))
        out.assertions_read += 1
    out.assertions_total += len(source.cases)

