"""Objects benchmark (issue 13): class-based tasks from real libraries, with planted conflicts and
clean traps.

    python -m benchmarks.objects --setup        # once: pip download the libraries' sdists
    python -m benchmarks.objects [--json] [--limit N] [--verbose]

Each task is one class of a real library: the description is the class as its source defines it
(its docstring and its methods' signatures and docstrings, bodies elided), the tests are a real
test file of the library (only the tests that build the class are selected) or, for a library that
ships no tests, the class's own doctest sessions replayed as a pytest file.  Every clean task is
checked by running its tests against the real library (the harness runs library code; SpecGuard
never does).  Variants, each confirmed failing (planted) or passing (traps) by running:

* planted ``dup``: one assertion of a test duplicated, in a copy of its test (the same history up to
  it), with another expected value (ImpossibleBench's "conflicting");
* planted ``changed``: a doctest session of the class replayed as a test with one expected value
  changed (the description shows the same history: ImpossibleBench's "one-off");
* clean traps, built from the same assertions: the object shared by two tests (module-level,
  ``setUpClass``, a module-scoped fixture) and an object changed through an alias, each with the
  value the observation really has in that test (computed by running), so reading the two
  observations as one input would certify a false conflict.

Printed: planted certified / total (target >= 80 %), certified false conflicts (clean tasks and
traps; must be 0), traps non-conflict, and what was read.  The sdists are cached in
``$SPECGUARD_BENCH_CACHE`` or ``~/.cache/specguard/bench`` (``objects/``); nothing is fetched when
the benchmark runs.
"""

from __future__ import annotations

import argparse
import ast
import copy
import doctest
import json
import os
import subprocess
import sys
import tarfile
import tempfile
import textwrap
import time
from dataclasses import dataclass, field
from pathlib import Path

SDISTS = {"boltons": "boltons==26.2.0", "sortedcontainers": "sortedcontainers==2.4.0"}

# (task id, library, module file, class, test file or None, entry name the tests use)
CLASSES = [
    ("boltons-LRU", "boltons", "boltons/cacheutils.py", "LRU", "tests/test_cacheutils.py", "LRU"),
    ("boltons-LRI", "boltons", "boltons/cacheutils.py", "LRI", "tests/test_cacheutils.py", "LRI"),
    ("boltons-ThresholdCounter", "boltons", "boltons/cacheutils.py", "ThresholdCounter",
     "tests/test_cacheutils.py", "ThresholdCounter"),
    ("boltons-OrderedMultiDict", "boltons", "boltons/dictutils.py", "OrderedMultiDict", "tests/test_dictutils.py",
     "OMD"),
    ("boltons-OneToOne", "boltons", "boltons/dictutils.py", "OneToOne", "tests/test_dictutils.py", "OneToOne"),
    ("boltons-ManyToMany", "boltons", "boltons/dictutils.py", "ManyToMany", "tests/test_dictutils.py", "ManyToMany"),
    ("boltons-IndexedSet", "boltons", "boltons/setutils.py", "IndexedSet", "tests/test_setutils.py", "IndexedSet"),
    ("boltons-BarrelList", "boltons", "boltons/listutils.py", "BarrelList", "tests/test_listutils.py", "BarrelList"),
    ("boltons-HeapPriorityQueue", "boltons", "boltons/queueutils.py", "HeapPriorityQueue", None, "HeapPriorityQueue"),
    ("sortedcontainers-SortedList", "sortedcontainers", "sortedcontainers/sortedlist.py", "SortedList", None,
     "SortedList"),
    ("sortedcontainers-SortedKeyList", "sortedcontainers", "sortedcontainers/sortedlist.py", "SortedKeyList", None,
     "SortedKeyList"),
    ("sortedcontainers-SortedDict", "sortedcontainers", "sortedcontainers/sorteddict.py", "SortedDict", None,
     "SortedDict"),
    ("sortedcontainers-SortedSet", "sortedcontainers", "sortedcontainers/sortedset.py", "SortedSet", None,
     "SortedSet"),
]
MAX_DUP = 4          # planted dup variants per task (the first readable-looking sites, in file order)
MAX_CHANGED = 4      # planted changed variants per task
MAX_TRAP_SITES = 1   # dup sites turned into traps per task


def cache_dir() -> Path:
    env = os.environ.get("SPECGUARD_BENCH_CACHE")
    return (Path(env) if env else Path.home() / ".cache" / "specguard" / "bench") / "objects"


def setup() -> Path:
    d = cache_dir()
    d.mkdir(parents=True, exist_ok=True)
    for spec in SDISTS.values():
        # pip builds the sdist's metadata in an isolated environment (its build backend, e.g. flit_core,
        # comes from the registry): --no-build-isolation failed on a fresh machine without that backend
        subprocess.run([sys.executable, "-m", "pip", "download", "-q", "--no-deps", "--no-binary", ":all:",
                        spec, "-d", str(d)], check=True)
    return d


def lib_root(lib: str) -> Path:
    d = cache_dir()
    name, version = SDISTS[lib].split("==")
    root = d / f"{name}-{version}"
    if not root.exists():
        archive = d / f"{name}-{version}.tar.gz"
        if not archive.exists():
            raise SystemExit(f"{archive} is missing: run `python -m benchmarks.objects --setup` first")
        with tarfile.open(archive) as t:
            t.extractall(d, filter="data")
    return root


# -- the description: the class with its docstrings, bodies elided -------------------------------------

def class_stub(source: str, cls: str) -> str:
    tree = ast.parse(source)
    node = next(n for n in tree.body if isinstance(n, ast.ClassDef) and n.name == cls)
    node = copy.deepcopy(node)
    node.decorator_list = []
    body: list[ast.stmt] = []
    for st in node.body:
        if isinstance(st, ast.Expr) and isinstance(st.value, ast.Constant) and isinstance(st.value.value, str):
            body.append(st)
        elif isinstance(st, (ast.FunctionDef, ast.AsyncFunctionDef)):
            doc = ast.get_docstring(st, clean=False)
            st.decorator_list = [d for d in st.decorator_list if isinstance(d, ast.Name)
                                 and d.id in ("property", "classmethod", "staticmethod")]
            st.body = ([ast.Expr(ast.Constant(doc))] if doc else []) + [ast.Expr(ast.Constant(...))]
            body.append(st)
    node.body = body or [ast.Pass()]
    node.bases = [b for b in node.bases if isinstance(b, ast.Name) and b.id in ("object",)]
    node.keywords = []
    return ast.unparse(ast.fix_missing_locations(ast.Module(body=[node], type_ignores=[]))) + "\n"


# -- tests ---------------------------------------------------------------------------------------------------

def _tests_building(tree: ast.Module, entry: str) -> list[str]:
    """Names (pytest's) of the tests that build ``entry`` (``x = Entry(...)`` anywhere in them)."""
    out = []

    def builds(fn) -> bool:
        return any(isinstance(n, ast.Call) and isinstance(n.func, ast.Name) and n.func.id == entry
                   for n in ast.walk(fn))
    for st in tree.body:
        if isinstance(st, ast.FunctionDef) and st.name.startswith("test") and builds(st):
            out.append(st.name)
        elif isinstance(st, ast.ClassDef) and st.name.startswith("Test"):
            for m in st.body:
                if isinstance(m, ast.FunctionDef) and m.name.startswith("test") and (builds(m) or builds(st)):
                    out.append(f"{st.name}::{m.name}")
    return out


def replay_tests(source: str, cls: str, module: str) -> str:
    """The class's doctest sessions (its docstring's and its methods') as pytest functions: each
    example a statement, an example with a literal output an assertion of it."""
    tree = ast.parse(source)
    node = next(n for n in tree.body if isinstance(n, ast.ClassDef) and n.name == cls)
    docs = [("class", ast.get_docstring(node, clean=True))]
    docs += [(m.name, ast.get_docstring(m, clean=True)) for m in node.body
             if isinstance(m, (ast.FunctionDef, ast.AsyncFunctionDef))]
    parser = doctest.DocTestParser()
    out = [f"import pytest\nfrom {module} import {cls}\n"]
    for name, doc in docs:
        if not doc or ">>>" not in doc:
            continue
        lines = []
        for ex in parser.get_examples(doc):
            src = ex.source.rstrip("\n")
            if ex.options or "..." in ex.want:
                break
            want = ex.want.strip()
            if want.startswith("Traceback"):
                lines.append(f"with pytest.raises(Exception):\n    {src}")
                continue
            try:
                src = ast.unparse(ast.parse(src, mode="eval").body)      # comments dropped
                is_expr = True
            except SyntaxError:
                is_expr = False
                try:
                    src = ast.unparse(ast.parse(src))
                except SyntaxError:
                    break
            value = None
            if want and is_expr:
                try:
                    value = ast.literal_eval(want)
                    lines.append(f"assert ({src}) == {want}")
                    continue
                except (ValueError, SyntaxError):
                    lines.append(f"repr({src})")      # doctest shows repr() of the value
                    continue
            lines.append(src)
        if any(line.startswith("assert") for line in lines):
            body = textwrap.indent("\n".join(lines), "    ")
            out.append(f"\ndef test_doc_{name.strip('_') or 'init'}():\n{body}\n")
    return "\n".join(out)


# -- running (the harness runs library code; SpecGuard never does) ----------------------------------------

def run_pytest(root: Path, test_text: str, select: list[str] | None = None, timeout: float = 120) -> dict[str, bool]:
    """Pass/fail per test name of ``test_text`` run with pytest against the library at ``root``."""
    with tempfile.TemporaryDirectory() as d:
        f = Path(d) / "test_bench_objects.py"
        f.write_text(test_text)
        report = Path(d) / "r.json"
        plugin = Path(d) / "bench_report.py"
        plugin.write_text(textwrap.dedent("""
            import json, os
            R = {}
            def pytest_runtest_logreport(report):
                if report.when == "call" or (report.when == "setup" and report.outcome != "passed"):
                    R[report.nodeid.split("::", 1)[1]] = report.outcome == "passed"
            def pytest_sessionfinish(session):
                json.dump(R, open(os.environ["BENCH_REPORT"], "w"))
        """))
        env = dict(os.environ, PYTHONPATH=f"{root}{os.pathsep}{d}", BENCH_REPORT=str(report))
        args = [sys.executable, "-m", "pytest", "-q", "-p", "bench_report", "-p", "no:cacheprovider", str(f)]
        if select:
            args += ["-k", " or ".join(s.split("::")[-1] for s in select)]
        subprocess.run(args, cwd=d, env=env, capture_output=True, text=True, timeout=timeout)
        try:
            return json.loads(report.read_text())
        except (OSError, ValueError):
            return {}


# -- variants ----------------------------------------------------------------------------------------------

@dataclass
class Site:
    """An assertion ``assert EXPR == LIT`` / ``self.assertEqual(EXPR, LIT)`` at the top level of a
    test body whose receiver is a local built from the class earlier in that body."""

    test: str                         # pytest name
    fn: ast.FunctionDef
    index: int                        # statement index in the body
    expr: ast.expr
    value: object
    recv: str
    build_index: int


def _changed(v):
    if isinstance(v, bool):
        return not v
    if isinstance(v, int):
        return v + 1
    if isinstance(v, str):
        return v + "x"
    if isinstance(v, float):
        return v + 1.5
    if isinstance(v, list):
        return v + [99]
    if isinstance(v, tuple):
        return v + (99,)
    if isinstance(v, dict):
        return {**v, "zz": 99}
    if isinstance(v, set):
        return v | {99}
    if v is None:
        return 0
    return None


def find_sites(tree: ast.Module, entry: str, selected: list[str]) -> list[Site]:
    sites = []
    fns = []
    for st in tree.body:
        if isinstance(st, ast.FunctionDef):
            fns.append((st.name, st))
        elif isinstance(st, ast.ClassDef):
            fns += [(f"{st.name}::{m.name}", m) for m in st.body if isinstance(m, ast.FunctionDef)]
    for name, fn in fns:
        if name not in selected or fn.args.args and fn.args.args[0].arg != "self" or len(fn.args.args) > 1:
            continue
        built: dict[str, int] = {}
        for i, st in enumerate(fn.body):
            if isinstance(st, ast.Assign) and len(st.targets) == 1 and isinstance(st.targets[0], ast.Name) \
                    and isinstance(st.value, ast.Call) and isinstance(st.value.func, ast.Name) \
                    and st.value.func.id == entry:
                built[st.targets[0].id] = i
            pair = None
            if isinstance(st, ast.Assert) and isinstance(st.test, ast.Compare) and len(st.test.ops) == 1 \
                    and isinstance(st.test.ops[0], ast.Eq):
                pair = (st.test.left, st.test.comparators[0])
            elif isinstance(st, ast.Expr) and isinstance(st.value, ast.Call) and \
                    ast.unparse(st.value.func) == "self.assertEqual" and len(st.value.args) == 2:
                pair = tuple(st.value.args)
            if pair is None:
                continue
            try:
                value = ast.literal_eval(pair[1])
            except (ValueError, SyntaxError):
                continue
            recv = {n.id for n in ast.walk(pair[0]) if isinstance(n, ast.Name)} & set(built)
            if len(recv) == 1 and _changed(value) is not None:
                r = recv.pop()
                sites.append(Site(name, fn, i, pair[0], value, r, built[r]))
    return sites


def _fn_text(name: str, body: list[ast.stmt], method: bool = False) -> str:
    fn = ast.FunctionDef(name=name, args=ast.arguments(posonlyargs=[], args=[ast.arg("self")] if method else [],
                                                       kwonlyargs=[], kw_defaults=[], defaults=[]),
                         body=body or [ast.Pass()], decorator_list=[], returns=None, type_params=[])
    return ast.unparse(ast.fix_missing_locations(fn))


def _assert(expr: ast.expr, value) -> ast.stmt:
    return ast.parse(f"assert ({ast.unparse(expr)}) == {value!r}").body[0]


def dup_variant(test_text: str, site: Site, k: int) -> tuple[str, str]:
    body = copy.deepcopy(site.fn.body[:site.index]) + [_assert(site.expr, _changed(site.value))]
    method = "::" in site.test
    name = f"test_planted_dup_{k}"
    text = _fn_text(name, body, method)
    if method:      # a method of the same class: appended to it (its setUp, if any, runs too)
        cls = site.test.split("::")[0]
        return _append_to_class(test_text, cls, text), f"{cls}::{name}"
    return test_text + "\n\n" + text + "\n", name


def _append_to_class(test_text: str, cls: str, fn_text: str) -> str:
    tree = ast.parse(test_text)
    node = next(n for n in tree.body if isinstance(n, ast.ClassDef) and n.name == cls)
    lines = test_text.splitlines()
    end = node.end_lineno
    return "\n".join(lines[:end] + [textwrap.indent(fn_text, "    ")] + lines[end:]) + "\n"


PROBE = "__bench_probe__"


def _probe_values(root: Path, text: str) -> list | None:
    """Run ``text`` (its ``__bench_probe__(expr)`` calls record values) in file order, as pytest would."""
    with tempfile.TemporaryDirectory() as d:
        f = Path(d) / "test_probe.py"
        out = Path(d) / "values.json"
        f.write_text(f"import json as _json\n_VALUES = []\n\ndef {PROBE}(v):\n    _VALUES.append(repr(v))\n    return v\n\n"
                     + text + f"\n\ndef test_zz_dump():\n    _json.dump(_VALUES, open({str(out)!r}, 'w'))\n")
        env = dict(os.environ, PYTHONPATH=f"{root}{os.pathsep}{d}")
        subprocess.run([sys.executable, "-m", "pytest", "-q", "-p", "no:randomly", "-p", "no:cacheprovider", str(f)],
                       cwd=d, env=env, capture_output=True, text=True, timeout=120)
        try:
            reprs = json.loads(out.read_text())
            return [ast.literal_eval(r) for r in reprs]
        except (OSError, ValueError, SyntaxError):
            return None


def trap_variants(root: Path, header: str, site: Site) -> list[tuple[str, str]]:
    """Clean traps from one site: (kind, test file text), each passing when run."""
    prefix = copy.deepcopy(site.fn.body[:site.index])
    build = prefix[site.build_index]
    rest = [s for j, s in enumerate(prefix) if j != site.build_index]
    expr = ast.unparse(site.expr)
    probe = lambda: ast.parse(f"assert {PROBE}({expr}) is not None or True").body[0]  # noqa: E731
    src = lambda stmts: "\n".join("    " + line for s in stmts for line in ast.unparse(s).splitlines())  # noqa: E731
    kinds = {
        "module-level": f"{ast.unparse(build)}\n\ndef test_a():\n{src(rest + [probe()])}\n\n"
                        f"def test_b():\n{src(rest + [probe()])}\n",
        "module-fixture": f"@pytest.fixture(scope='module')\ndef shared():\n    {ast.unparse(build.value)}\n"
                          f"    return {ast.unparse(build.value)}\n\n"
                          f"def test_a(shared):\n    {site.recv} = shared\n{src(rest + [probe()])}\n\n"
                          f"def test_b(shared):\n    {site.recv} = shared\n{src(rest + [probe()])}\n",
        "setUpClass": f"class TestShared(unittest.TestCase):\n    @classmethod\n    def setUpClass(cls):\n"
                      f"        cls.obj = {ast.unparse(build.value)}\n\n"
                      f"    def test_a(self):\n        {site.recv} = self.obj\n{textwrap.indent(src(rest + [probe()]), '    ')}\n\n"
                      f"    def test_b(self):\n        {site.recv} = self.obj\n{textwrap.indent(src(rest + [probe()]), '    ')}\n",
        "alias": f"def test_a():\n{src([build] + rest + [probe()])}\n\n"
                 f"def test_b():\n{src([build])}\n    alias = {site.recv}\n"
                 f"{src([ast.parse(ast.unparse(s).replace(site.recv + '.', 'alias.', 1)).body[0] for s in rest[:1]])}\n"
                 f"{src(rest + [probe()])}\n",
    }
    head = header + "\nimport pytest\nimport unittest\n\n"
    parts = {kind: _rename(body, kind) for kind, body in kinds.items()}
    values = _probe_values(root, head + "\n\n".join(parts.values()))
    if not values or len(values) != 2 * len(parts):
        return []
    finals = {}
    for n, (kind, body) in enumerate(parts.items()):
        for v in values[2 * n: 2 * n + 2]:
            body = body.replace(f"assert {PROBE}({expr}) is not None or True", f"assert ({expr}) == {v!r}", 1)
        finals[kind] = body
    res = run_pytest(root, head + "\n\n".join(finals.values()))
    return [(kind, head + body) for kind, body in finals.items()
            if res and all(ok for name, ok in res.items() if kind.replace("-", "_") in name)]


def _rename(body: str, kind: str) -> str:
    """Distinct names per trap kind, so the kinds can run in one file."""
    k = kind.replace("-", "_")
    return body.replace("def test_a", f"def test_{k}_a").replace("def test_b", f"def test_{k}_b") \
        .replace("class TestShared", f"class TestShared_{k}").replace("def shared(", f"def shared_{k}(") \
        .replace("(shared)", f"(shared_{k})").replace("= shared\n", f"= shared_{k}\n")


# -- the benchmark ----------------------------------------------------------------------------------------

@dataclass
class Case:
    id: str
    kind: str                 # clean | dup | changed | trap:<kind>
    entry: str
    desc: str
    tests: str
    only: tuple[str, ...] = ()
    planted: bool = False
    note: str = ""
    result: dict = field(default_factory=dict)


def build_cases(limit: int | None = None, verbose: bool = False) -> tuple[list[Case], list[str]]:
    cases: list[Case] = []
    log: list[str] = []
    for tid, lib, modfile, cls, testfile, entry in CLASSES[:limit]:
        root = lib_root(lib)
        source = (root / modfile).read_text()
        module = modfile[:-3].replace("/", ".")
        desc = class_stub(source, cls)
        if entry != cls:
            desc += f"\n\n{entry} = {cls}\n"
        if testfile:
            tests = (root / testfile).read_text()
            selected = _tests_building(ast.parse(tests), entry)
        else:
            tests = replay_tests(source, cls, module)
            selected = _tests_building(ast.parse(tests), entry)
        ran = run_pytest(root, tests, selected)
        passing = [t for t in selected if ran.get(t)]
        log.append(f"{tid}: {len(passing)}/{len(selected)} selected tests pass against the real library")
        if not passing:
            continue
        cases.append(Case(tid, "clean", entry, desc, tests, tuple(passing)))
        tree = ast.parse(tests)
        sites = [s for s in find_sites(tree, entry, passing)]
        cands = [(s, *dup_variant(tests, s, i)) for i, s in enumerate(sites[:2 * MAX_DUP])]
        together = tests
        for i, s in enumerate(sites[:2 * MAX_DUP]):
            together = dup_variant(together, s, i)[0]
        res = run_pytest(root, together, [name for _, _, name in cands]) if cands else {}
        k = 0
        for s, text, name in cands:
            if k < MAX_DUP and res.get(name) is False:
                cases.append(Case(f"{tid}/dup{k}", "dup", entry, desc, text, tuple(passing) + (name,), True,
                                  f"{s.test} line {s.fn.body[s.index].lineno}"))
                k += 1
        # changed: a doctest session replayed with one value changed (the description shows it)
        replay = replay_tests(source, cls, module)
        rtree = ast.parse(replay)
        rsel = _tests_building(rtree, entry)
        rran = run_pytest(root, replay, rsel) if rsel else {}
        rsites = find_sites(rtree, entry, [t for t in rsel if rran.get(t)])
        rhead = replay.split("\ndef ", 1)[0]
        cands = [(s, f"test_planted_changed_{i}",
                  _fn_text(f"test_planted_changed_{i}", copy.deepcopy(s.fn.body[:s.index])
                           + [_assert(s.expr, _changed(s.value))]))
                 for i, s in enumerate(rsites[:2 * MAX_CHANGED])]
        res = run_pytest(root, rhead + "\n\n" + "\n\n".join(t for _, _, t in cands) + "\n",
                         [n for _, n, _ in cands]) if cands else {}
        j = 0
        for s, name, fn_text in cands:
            if j < MAX_CHANGED and res.get(name) is False:
                cases.append(Case(f"{tid}/changed{j}", "changed", entry, desc, rhead + "\n\n" + fn_text + "\n",
                                  (name,), True, f"doctest of {s.test} line {s.fn.body[s.index].lineno}"))
                j += 1
        header = tests.split("\ndef ", 1)[0].split("\nclass ", 1)[0] if testfile else replay.split("\ndef ", 1)[0]
        for s in (sites or rsites)[:MAX_TRAP_SITES]:
            for kind, text in trap_variants(root, header, s):
                cases.append(Case(f"{tid}/trap-{kind}-{s.fn.name}", f"trap:{kind}", entry, desc, text))
        if verbose:
            print(log[-1], f"sites {len(sites)} replay sites {len(rsites)}", file=sys.stderr)
    return cases, log


def run_case(c: Case) -> dict:
    from specguard.check import Options, check_task
    from specguard.models import Task, TestSource
    task = Task(id=c.id, description=c.desc, description_path=f"{c.entry}.py", entry_point=c.entry,
                tests=(TestSource(kind="python", path="test_case.py", text=c.tests, only_tests=c.only),))
    t0 = time.time()
    b = check_task(task, Options(classify=False))
    r = b.result
    cov = r.coverage
    return {"verdict": r.verdict.value, "evidence": r.evidence.value, "seconds": round(time.time() - t0, 2),
            "reason": r.reason[:300], "conflict_kind": r.conflict.kind if r.conflict else None,
            "read": (cov.assertions_read, cov.assertions_total) if cov else None,
            "examples": (cov.examples_read, cov.examples_seen) if cov else None,
            "object_demands": sum(1 for t in r.tests if "s = " in t.statement)}


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--setup", action="store_true")
    ap.add_argument("--json", action="store_true")
    ap.add_argument("--limit", type=int)
    ap.add_argument("--verbose", action="store_true")
    ap.add_argument("--dump", metavar="DIR", help="also write every case as DIR/<id>.json (the smoke test's format)")
    ap.add_argument("--cases", metavar="DIR", help="check the cases a --dump wrote (already confirmed by running) "
                                                   "instead of building them")
    a = ap.parse_args(argv)
    if a.setup:
        print(setup())
        return 0
    t0 = time.time()
    if a.cases:
        cases, log = [], [f"cases read from {a.cases}"]
        for f in sorted(Path(a.cases).glob("*.json")):
            d = json.loads(f.read_text())
            cases.append(Case(d["id"], d["kind"], d["entry"], d["description"], d["tests"], tuple(d["only_tests"]),
                              d["planted"], d.get("note", "")))
    else:
        cases, log = build_cases(a.limit, a.verbose)
    built = time.time() - t0
    if a.dump:
        Path(a.dump).mkdir(parents=True, exist_ok=True)
        for c in cases:
            (Path(a.dump) / (c.id.replace("/", "__") + ".json")).write_text(json.dumps(
                {"id": c.id, "kind": c.kind, "entry": c.entry, "description": c.desc, "tests": c.tests,
                 "only_tests": list(c.only), "planted": c.planted, "note": c.note}, indent=1) + "\n")
    for c in cases:
        c.result = run_case(c)
        if a.verbose:
            print(c.id, c.kind, c.result["verdict"], c.result["evidence"], c.result["reason"][:120], file=sys.stderr)
    cert = lambda c: c.result["verdict"] == "conflict" and c.result["evidence"] == "certified"  # noqa: E731
    planted = [c for c in cases if c.planted]
    clean = [c for c in cases if c.kind == "clean"]
    traps = [c for c in cases if c.kind.startswith("trap")]
    summary = {
        "tasks": len(clean),
        "planted": len(planted), "planted_certified": sum(map(cert, planted)),
        "planted_by_kind": {k: [sum(cert(c) for c in planted if c.kind == k), sum(1 for c in planted if c.kind == k)]
                            for k in ("dup", "changed")},
        "false_conflicts_certified": sum(map(cert, clean + traps)),
        "traps": len(traps), "traps_non_conflict": sum(1 for c in traps if c.result["verdict"] != "conflict"),
        "assertions_read": [sum(c.result["read"][0] for c in clean if c.result["read"]),
                            sum(c.result["read"][1] for c in clean if c.result["read"])],
        "examples_read": [sum(c.result["examples"][0] for c in clean if c.result["examples"]),
                          sum(c.result["examples"][1] for c in clean if c.result["examples"])],
        "build_seconds": round(built, 1), "check_seconds": round(sum(c.result["seconds"] for c in cases), 1),
    }
    if a.json:
        print(json.dumps({"summary": summary, "log": log,
                          "cases": [{"id": c.id, "kind": c.kind, "note": c.note, **c.result} for c in cases]}, indent=1))
        return 0
    for line in log:
        print(line)
    print()
    print(f"{'case':58} {'kind':22} verdict")
    for c in cases:
        print(f"{c.id[:58]:58} {c.kind:22} {c.result['verdict']}/{c.result['evidence']}")
    p, pc = summary["planted"], summary["planted_certified"]
    print(f"\nclean tasks: {summary['tasks']}; assertion statements read {summary['assertions_read'][0]}/"
          f"{summary['assertions_read'][1]}; description examples read {summary['examples_read'][0]}/"
          f"{summary['examples_read'][1]}")
    print(f"planted certified: {pc}/{p} ({100 * pc / max(p, 1):.0f} %)  by kind: {summary['planted_by_kind']}")
    print(f"certified false conflicts (clean tasks and traps): {summary['false_conflicts_certified']}")
    print(f"traps non-conflict: {summary['traps_non_conflict']}/{summary['traps']}")
    print(f"time: building {summary['build_seconds']} s, checking {summary['check_seconds']} s")
    return 0


if __name__ == "__main__":
    sys.exit(main())
