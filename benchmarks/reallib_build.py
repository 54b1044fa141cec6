"""Building the reallib benchmark (``python -m benchmarks.reallib --setup``): real libraries, real
docstrings, real tests, ground truth by running them.

Steps, each cached under ``<cache>/reallib`` (``$SPECGUARD_BENCH_CACHE`` or ``~/.cache/specguard/bench``):

1. ``pip download --no-deps --no-binary :all: NAME==VERSION`` of every library in :data:`LIBS` (pinned),
   extracted into ``src/``; the same sdists installed with ``pip install --no-deps --target site``
   (plus the test-only dependencies in :data:`TEST_DEPS`), so that the checks below run the very
   versions whose text the tasks hold.
2. Candidates: every public module-level function of the library with a doctest (``>>>``) in its
   docstring, paired with the tests of ``test_<module>.py`` that name it (``f`` imported from the
   library, or ``alias.f`` for an imported library module).  The description is the function's
   ``def`` line(s) and docstring verbatim; the tests are the test file verbatim with ``only_tests``
   naming those tests.
3. Ground truth by running (in subprocesses, with time limits; this is the harness, not SpecGuard):
   the function's doctests must pass (``doctest`` on the function, its module's globals) and each
   selected test must pass under pytest against the installed library; tests that do not pass are
   dropped from the selection, tasks left with none are dropped.
4. Variants (ImpossibleBench style), each kept only if its edited test FAILS when run:
   ``oneoff``: one expected value changed in an assertion whose call (same exact literal input)
   is also a docstring example; ``conflicting``: one assertion duplicated right after itself with
   another expected value.  A value is changed by one literal: an int + 1, a float + 1.0, a str
   with ``x`` appended, a bool flipped, in a container its first such element.
5. ``tasks.json``: the test files' texts (once), the clean tasks and the variants (as a line edit of
   the file), with their labels and the build log.
"""

from __future__ import annotations

import ast
import doctest
import json
import os
import re
import shutil
import subprocess
import sys
import tarfile
from collections import Counter
from dataclasses import dataclass
from pathlib import Path

FORMAT = "reallib-tasks/1"


@dataclass(frozen=True)
class Lib:
    name: str          # PyPI name
    version: str
    sdist: str         # folder name inside the sdist
    package: str       # the package folder, relative to the sdist root
    license: str


LIBS = (
    Lib("boltons", "26.2.0", "boltons-26.2.0", "boltons", "BSD-3-Clause"),
    Lib("more-itertools", "11.2.1", "more_itertools-11.2.1", "more_itertools", "MIT"),
    Lib("toolz", "1.2.0", "toolz-1.2.0", "toolz", "BSD-3-Clause"),
    Lib("inflection", "0.5.1", "inflection-0.5.1", "inflection", "MIT"),
    Lib("humanize", "4.17.0", "humanize-4.17.0", "src/humanize", "MIT"),
)
# needed by the libraries' test files only (humanize's tests import freezegun), pinned with their own
TEST_DEPS = ("freezegun==1.5.5", "python-dateutil==4.0.0", "six==1.17.0")

RUN_TIMEOUT = 900     # seconds per library for one pytest or doctest run


def cache_dir() -> Path:
    env = os.environ.get("SPECGUARD_BENCH_CACHE")
    return (Path(env) if env else Path.home() / ".cache" / "specguard" / "bench") / "reallib"


def log(msg: str) -> None:
    print(f"[reallib setup] {msg}", file=sys.stderr, flush=True)


# =====================================================================================
# 1. download and install
# =====================================================================================

def fetch(root: Path) -> None:
    sd, src, site = root / "sdists", root / "src", root / "site"
    for d in (sd, src):
        d.mkdir(parents=True, exist_ok=True)
    for lib in LIBS:
        if not list(sd.glob(f"{lib.sdist}.tar.gz")):
            log(f"pip download {lib.name}=={lib.version}")
            subprocess.run([sys.executable, "-m", "pip", "download", "-q", "--no-deps", "--no-binary", ":all:",
                            f"{lib.name}=={lib.version}", "-d", str(sd)], check=True)
        if not (src / lib.sdist).is_dir():
            with tarfile.open(sd / f"{lib.sdist}.tar.gz") as tf:
                tf.extractall(src, filter="data")
    marker = site / ".installed"
    want = " ".join(f"{lib.name}=={lib.version}" for lib in LIBS) + " " + " ".join(TEST_DEPS)
    if not marker.is_file() or marker.read_text() != want:
        shutil.rmtree(site, ignore_errors=True)
        log("pip install --no-deps --target site (the downloaded sdists)")
        subprocess.run([sys.executable, "-m", "pip", "install", "-q", "--no-deps", "--target", str(site)]
                       + [str(sd / f"{lib.sdist}.tar.gz") for lib in LIBS], check=True)
        subprocess.run([sys.executable, "-m", "pip", "install", "-q", "--no-deps", "--target", str(site / "testdeps"),
                        *TEST_DEPS], check=True)
        marker.write_text(want)


# =====================================================================================
# 2. candidates
# =====================================================================================

@dataclass
class Fn:
    lib: Lib
    module: str        # dotted import name, e.g. boltons.strutils
    stem: str          # module file stem for pairing with test_<stem>.py (package name for __init__)
    relpath: str       # path of the module inside the sdist
    name: str
    description: str   # def line(s) + docstring, verbatim
    line_offset: int
    docstring: str


@dataclass
class TestDef:
    name: str          # "test_x" or "Class::test_x"
    node: ast.AST      # the FunctionDef
    mentions: set      # names of library functions it names


def _functions(lib: Lib, root: Path) -> list[Fn]:
    base = root / "src" / lib.sdist
    pkg = base / lib.package
    out = []
    for p in sorted(pkg.rglob("*.py")):
        rel = p.relative_to(pkg)
        if any(part in ("tests", "test", "sandbox") for part in rel.parts) or (p.name.startswith("_") and p.name != "__init__.py"):
            continue
        parts = [pkg.name] + list(rel.with_suffix("").parts)
        if parts[-1] == "__init__":
            parts = parts[:-1]
        module, stem = ".".join(parts), parts[-1]
        text = p.read_text(encoding="utf-8")
        lines = text.splitlines(keepends=True)
        for node in ast.parse(text).body:
            if not isinstance(node, ast.FunctionDef) or node.name.startswith("_"):
                continue
            doc = ast.get_docstring(node, clean=False)
            if not doc or ">>>" not in doc:
                continue
            first = node.body[0]
            desc = "".join(lines[node.lineno - 1:first.end_lineno])
            out.append(Fn(lib, module, stem, str(p.relative_to(base)), node.name, desc, node.lineno - 1, doc))
    return out


def _test_files(lib: Lib, root: Path) -> dict[str, Path]:
    base = root / "src" / lib.sdist
    found = {}
    for p in sorted(base.rglob("test_*.py")):
        if "__rl_" in p.name:
            continue
        found.setdefault(p.stem[len("test_"):], p)
    return found


def _lib_aliases(tree: ast.Module, lib: Lib) -> tuple[set, set, bool]:
    """(names denoting a library module, names imported from the library, star import?)."""
    top = lib.package.split("/")[-1]
    mods, names, star = set(), set(), False
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            for a in node.names:
                if a.name == top or a.name.startswith(top + "."):
                    mods.add(a.asname or a.name.split(".")[0])
        elif isinstance(node, ast.ImportFrom) and node.module and node.level == 0 and \
                (node.module == top or node.module.startswith(top + ".")):
            for a in node.names:
                if a.name == "*":
                    star = True
                else:
                    names.add(a.asname or a.name)
                    mods.add(a.asname or a.name)    # may be a submodule (from boltons import strutils)
    return mods, names, star


def _mentions(node: ast.AST, mods: set, names: set, star: bool) -> set:
    got = set()
    for n in ast.walk(node):
        if isinstance(n, ast.Attribute) and isinstance(n.value, ast.Name) and n.value.id in mods:
            got.add(n.attr)
        elif isinstance(n, ast.Attribute) and isinstance(n.value, ast.Attribute) and \
                isinstance(n.value.value, ast.Name) and n.value.value.id in mods:
            got.add(n.attr)
        elif isinstance(n, ast.Name) and (n.id in names or star):
            got.add(n.id)
    return got


def _tests_of(tree: ast.Module, lib: Lib) -> list[TestDef]:
    mods, names, star = _lib_aliases(tree, lib)
    out = []
    for node in tree.body:
        if isinstance(node, ast.FunctionDef) and node.name.startswith("test"):
            out.append(TestDef(node.name, node, _mentions(node, mods, names, star)))
        elif isinstance(node, ast.ClassDef) and (node.name.startswith("Test") or node.bases):
            for m in node.body:
                if isinstance(m, ast.FunctionDef) and m.name.startswith("test"):
                    out.append(TestDef(f"{node.name}::{m.name}", m, _mentions(m, mods, names, star)))
    return out


# =====================================================================================
# 3. running (the harness's ground truth)
# =====================================================================================

_DOCTEST_RUNNER = r"""
import doctest, importlib, json, sys
out = {}
for module, name in json.loads(sys.argv[1]):
    try:
        m = importlib.import_module(module)
        f = getattr(m, name)
        tests = doctest.DocTestFinder(recurse=False).find(f, name, module=m, globs=vars(m).copy())
        runner = doctest.DocTestRunner(optionflags=0, verbose=False)
        attempted = failed = 0
        for t in tests:
            r = runner.run(t, out=lambda s: None)
            attempted += r.attempted; failed += r.failed
        out[module + ":" + name] = "pass" if attempted and not failed else f"fail ({failed} of {attempted})"
    except Exception as e:
        out[module + ":" + name] = f"error: {type(e).__name__}: {e}"
print(json.dumps(out))
"""

_PLUGIN = r"""
import json, os
_out = {}
def pytest_runtest_logreport(report):
    prev = _out.get(report.nodeid, "passed")
    if report.when == "call" or report.outcome != "passed":
        _out[report.nodeid] = report.outcome if prev == "passed" else prev
def pytest_sessionfinish(session):
    with open(os.environ["REALLIB_REPORT"], "w") as f:
        json.dump(_out, f)
"""


def _env(root: Path) -> dict:
    env = dict(os.environ)
    env["PYTHONPATH"] = os.pathsep.join([str(root / "site"), str(root / "site" / "testdeps"), str(root / "plugin")])
    env["PYTHONDONTWRITEBYTECODE"] = "1"
    env.pop("PYTEST_ADDOPTS", None)
    return env


def run_doctests(root: Path, fns: list[Fn]) -> dict[str, str]:
    pairs = [[f.module, f.name] for f in fns]
    p = subprocess.run([sys.executable, "-c", _DOCTEST_RUNNER, json.dumps(pairs)], capture_output=True, text=True,
                       env=_env(root), cwd=str(root), timeout=RUN_TIMEOUT)
    if p.returncode != 0:
        raise RuntimeError(f"doctest run failed: {p.stderr[-2000:]}")
    return json.loads(p.stdout.strip().splitlines()[-1])


def run_pytest(root: Path, lib: Lib, node_ids: list[str]) -> dict[str, str]:
    """nodeid -> outcome (passed / failed / skipped), parametrized ids kept."""
    if not node_ids:
        return {}
    (root / "plugin").mkdir(exist_ok=True)
    (root / "plugin" / "_reallib_plugin.py").write_text(_PLUGIN)
    report = root / f"report-{lib.name}.json"
    report.unlink(missing_ok=True)
    env = _env(root)
    env["REALLIB_REPORT"] = str(report)
    cmd = [sys.executable, "-m", "pytest", "-q", "-p", "_reallib_plugin", "-p", "no:cacheprovider",
           "--import-mode=append", "-o", "addopts=", "--no-header", "-rN", *node_ids]
    try:
        subprocess.run(cmd, cwd=str(root / "src" / lib.sdist), env=env, capture_output=True, text=True,
                       timeout=RUN_TIMEOUT)
    except subprocess.TimeoutExpired:
        log(f"{lib.name}: pytest timed out after {RUN_TIMEOUT} s")
    if not report.is_file():
        return {}
    return json.loads(report.read_text())


def _outcomes_by_test(results: dict[str, str], relpath: str) -> dict[str, str]:
    """test name ("Class::test" / "test") -> passed only if every (parametrized) run of it passed."""
    out: dict[str, str] = {}
    for nodeid, outcome in results.items():
        path, _, rest = nodeid.partition("::")
        if path != relpath:
            continue
        name = rest.split("[", 1)[0]
        out[name] = outcome if out.get(name, "passed") == "passed" else out[name]
    return out


# =====================================================================================
# 4. variants
# =====================================================================================

_EQ_METHODS = {"assertEqual", "assertEquals", "assertListEqual", "assertTupleEqual", "assertDictEqual",
               "assertSetEqual", "assertSequenceEqual", "assertMultiLineEqual", "assertCountEqual"}


def _literal(node: ast.AST):
    try:
        return True, ast.literal_eval(node)
    except Exception:
        return False, None


def _is_call_of(node: ast.AST, fname: str) -> bool:
    if not isinstance(node, ast.Call):
        return False
    f = node.func
    return (isinstance(f, ast.Name) and f.id == fname) or (isinstance(f, ast.Attribute) and f.attr == fname)


def _call_key(call: ast.Call):
    """The exact input of a call whose arguments are all literals, else None."""
    if any(isinstance(a, ast.Starred) for a in call.args) or any(k.arg is None for k in call.keywords):
        return None
    vals = []
    for a in call.args:
        ok, v = _literal(a)
        if not ok:
            return None
        vals.append(repr(v))
    kws = []
    for k in call.keywords:
        ok, v = _literal(k.value)
        if not ok:
            return None
        kws.append((k.arg, repr(v)))
    return (tuple(vals), tuple(sorted(kws)))


def _calls(node: ast.AST, fname: str) -> list[ast.Call]:
    return [n for n in ast.walk(node) if _is_call_of(n, fname)]


def doc_keys(docstring: str, fname: str) -> set:
    """The exact inputs of the docstring examples' calls of ``fname``."""
    keys = set()
    try:
        examples = doctest.DocTestParser().get_examples(docstring)
    except ValueError:
        return keys
    for ex in examples:
        try:
            tree = ast.parse(ex.source)
        except SyntaxError:
            continue
        for c in _calls(tree, fname):
            k = _call_key(c)
            if k is not None:
                keys.add(k)
    return keys


@dataclass
class Site:
    """An equality assertion of a test whose one side calls the function with exact (literal) inputs
    and whose other side is an exact expected value: ``key`` is the call's input, ``expected`` the
    literal node to change.  ``stmt`` is the assertion (to duplicate), ``name`` the expected side when
    it is a name (bound once in the test to ``expected``, or a parameter whose row holds it), ``row``
    the parametrize row (to duplicate instead of the assertion)."""
    stmt: ast.stmt
    key: tuple
    expected: ast.AST
    test: str
    name: ast.Name | None = None
    row: ast.AST | None = None


def _walk_body(node: ast.AST):
    """Statements of a test, nested blocks included, nested functions and classes not."""
    for child in ast.iter_child_nodes(node):
        if isinstance(child, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef, ast.Lambda)):
            continue
        if isinstance(child, ast.stmt):
            yield child
        yield from _walk_body(child)


def _eq_pair(st: ast.stmt):
    if isinstance(st, ast.Assert) and isinstance(st.test, ast.Compare) and len(st.test.ops) == 1 and \
            isinstance(st.test.ops[0], (ast.Eq, ast.Is)):
        pair = (st.test.left, st.test.comparators[0])
        if isinstance(st.test.ops[0], ast.Is) and not any(
                isinstance(x, ast.Constant) and isinstance(x.value, bool) for x in pair):
            return None
        return pair
    if isinstance(st, ast.Expr) and isinstance(st.value, ast.Call) and \
            isinstance(st.value.func, ast.Attribute) and st.value.func.attr in _EQ_METHODS and \
            len(st.value.args) == 2 and not st.value.keywords and st.value.func.attr != "assertCountEqual":
        return tuple(st.value.args)
    return None


def _single_bindings(fn: ast.AST) -> dict[str, ast.Assign]:
    """Names assigned exactly once in a test (and never otherwise bound there)."""
    count: Counter = Counter()
    first: dict[str, ast.Assign] = {}
    for n in ast.walk(fn):
        if isinstance(n, ast.Name) and isinstance(n.ctx, (ast.Store, ast.Del)):
            count[n.id] += 1
        if isinstance(n, ast.Assign) and len(n.targets) == 1 and isinstance(n.targets[0], ast.Name):
            first.setdefault(n.targets[0].id, n)
    return {k: v for k, v in first.items() if count[k] == 1}


def _parametrize(test: TestDef, module: dict[str, ast.AST]) -> tuple[list[str], list[ast.AST]] | None:
    """(argnames, rows) of a test's one ``parametrize`` decorator with literal rows."""
    decs = [d for d in test.node.decorator_list if isinstance(d, ast.Call) and
            isinstance(d.func, ast.Attribute) and d.func.attr == "parametrize"]
    if len(decs) != 1 or len(decs[0].args) < 2:
        return None
    names_node, values = decs[0].args[:2]
    ok, names = _literal(names_node)
    if not ok:
        return None
    names = [x.strip() for x in names.split(",")] if isinstance(names, str) else list(names)
    if isinstance(values, ast.Name):
        values = module.get(values.id)
    if not isinstance(values, (ast.List, ast.Tuple)):
        return None
    rows = []
    for r in values.elts:
        if len(names) == 1:
            rows.append(r)
        elif isinstance(r, (ast.Tuple, ast.List)) and len(r.elts) == len(names):
            rows.append(r)
    return names, rows


def _module_values(tree: ast.Module) -> dict[str, ast.AST]:
    count: Counter = Counter()
    out = {}
    for n in tree.body:
        if isinstance(n, ast.Assign) and len(n.targets) == 1 and isinstance(n.targets[0], ast.Name):
            count[n.targets[0].id] += 1
            out[n.targets[0].id] = n.value
    return {k: v for k, v in out.items() if count[k] == 1}


def _row_key(call: ast.Call, names: list[str], row: ast.AST):
    vals = [row] if len(names) == 1 else list(row.elts)
    env = dict(zip(names, vals))
    subst = lambda a: env[a.id] if isinstance(a, ast.Name) and a.id in env else a  # noqa: E731
    fake = ast.Call(func=call.func, args=[subst(a) for a in call.args],
                    keywords=[ast.keyword(arg=k.arg, value=subst(k.value)) for k in call.keywords])
    return _call_key(fake)


def sites(test: TestDef, fname: str, module: dict[str, ast.AST]) -> list[Site]:
    """Equality assertions ``CALL == EXPECTED`` whose CALL side calls fname with exact inputs."""
    out = []
    binds = _single_bindings(test.node)
    param = _parametrize(test, module)
    for st in _walk_body(test.node):
        pair = _eq_pair(st)
        if pair is None:
            continue
        for side, other in (pair, pair[::-1]):
            if _calls(other, fname):
                continue
            call_side = side
            if isinstance(side, ast.Name) and side.id in binds and binds[side.id].lineno < st.lineno:
                call_side = binds[side.id].value        # actual = f(...); assertEqual(actual, ...)
            calls = _calls(call_side, fname)
            if not calls:
                continue
            if _literal(other)[0]:
                key = _call_key(calls[0])
                if key is not None:
                    out.append(Site(st, key, other, test.name))
                    break
            if isinstance(other, ast.Name) and other.id in binds and binds[other.id].lineno < st.lineno and \
                    _literal(binds[other.id].value)[0]:
                key = _call_key(calls[0])
                if key is not None:
                    out.append(Site(st, key, binds[other.id].value, test.name, name=other))
                    break
            if param and isinstance(other, ast.Name) and other.id in param[0]:
                names, rows = param
                i = names.index(other.id)
                for row in rows:
                    key = _row_key(calls[0], names, row)
                    exp = row if len(names) == 1 else row.elts[i]
                    if key is not None and _literal(exp)[0]:
                        out.append(Site(st, key, exp, test.name, name=other, row=row))
                break
    return out


def _changed(v):
    """(new literal text) for one changed scalar, or None."""
    if isinstance(v, bool):
        return repr(not v)
    if isinstance(v, int):
        return repr(v + 1)
    if isinstance(v, float):
        w = v + 1.0
        return repr(w) if w != v else None
    if isinstance(v, str):
        return repr(v + "x")
    if isinstance(v, bytes):
        return repr(v + b"x")
    return None


def _leaf(node: ast.AST) -> tuple[ast.Constant, str] | None:
    """The first scalar literal of an expected value (dict values, not keys) and its changed text."""
    if isinstance(node, ast.Constant):
        if node.lineno != node.end_lineno:
            return None
        new = _changed(node.value)
        return (node, new) if new is not None else None
    if isinstance(node, ast.UnaryOp):
        return _leaf(node.operand)
    kids = node.values if isinstance(node, ast.Dict) else getattr(node, "elts", [])
    for k in kids:
        got = _leaf(k)
        if got:
            return got
    return None


def _byte_col(line: str, col: int) -> int:
    """Character index of a UTF-8 byte offset in ``line``."""
    return len(line.encode("utf-8")[:col].decode("utf-8", errors="ignore"))


def _replace(line: str, node: ast.AST, new: str) -> str:
    a, b = _byte_col(line, node.col_offset), _byte_col(line, node.end_col_offset)
    return line[:a] + new + line[b:]


def make_oneoff(lines: list[str], site: Site) -> dict | None:
    """The expected literal changed in place (in the assertion, its binding or its parametrize row)."""
    got = _leaf(site.expected)
    if not got:
        return None
    node, new = got
    i = node.lineno - 1
    return {"start": i, "end": i + 1, "lines": [_replace(lines[i], node, new)], "line": node.lineno,
            "planted_lines": sorted({node.lineno, site.stmt.lineno}), "old": lines[i].strip(), "new": _replace(lines[i], node, new).strip()}


def _own_lines(lines: list[str], node: ast.AST, tail: tuple[str, ...] = ("#",)) -> bool:
    first, last = lines[node.lineno - 1], lines[node.end_lineno - 1]
    if first[:_byte_col(first, node.col_offset)].strip():
        return False
    rest = last[_byte_col(last, node.end_col_offset):].strip()
    return not rest or rest.startswith(tail)


def make_duplicate(lines: list[str], site: Site) -> dict | None:
    """The assertion (or parametrize row) repeated right after itself with another expected value."""
    got = _leaf(site.expected)
    if not got:
        return None
    node, new = got
    if site.row is not None:        # a table row: the copy goes before it, with its own comma
        row = site.row
        if not _own_lines(lines, row, ("#", ",", ")", "]")):
            return None
        copy = list(lines[row.lineno - 1:row.end_lineno])
        copy[-1] = copy[-1][:_byte_col(copy[-1], row.end_col_offset)]
        j = node.lineno - row.lineno
        copy[j] = _replace(copy[j], node, new)
        copy[-1] += ",\n"
        start, n = row.lineno - 1, len(copy)
        st = site.stmt
        return {"start": start, "end": start, "lines": copy, "line": row.lineno,
                "planted_lines": sorted({row.lineno, row.lineno + n, st.lineno + (n if st.lineno > start else 0)}),
                "old": " ".join(x.strip() for x in lines[start:row.end_lineno]),
                "new": " ".join(x.strip() for x in copy)}
    st = site.stmt
    if not _own_lines(lines, st):
        return None
    copy = list(lines[st.lineno - 1:st.end_lineno])
    if site.name is not None:       # the expected side is a name: the copy compares with the changed literal
        import copy as _copy
        lit = _copy.deepcopy(site.expected)
        leaf = _leaf(lit)[0]
        leaf.value = ast.literal_eval(new)
        j = site.name.lineno - st.lineno
        copy[j] = _replace(copy[j], site.name, ast.unparse(lit))
    else:
        j = node.lineno - st.lineno
        copy[j] = _replace(copy[j], node, new)
    end = st.end_lineno
    return {"start": end, "end": end, "lines": copy, "line": end + 1,
            "planted_lines": sorted({st.lineno, end + 1}),
            "old": " ".join(x.strip() for x in lines[st.lineno - 1:end]),
            "new": " ".join(x.strip() for x in copy)}


def apply_edit(text: str, edit: dict | None) -> str:
    if not edit:
        return text
    lines = text.splitlines(keepends=True)
    return "".join(lines[:edit["start"]] + edit["lines"] + lines[edit["end"]:])


# =====================================================================================
# 5. the whole build
# =====================================================================================

def built(root: Path, libs: tuple[Lib, ...] = LIBS) -> bool:
    """tasks.json is there, of this format, for these very libraries and versions."""
    try:
        doc = json.loads((root / "tasks.json").read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return False
    return doc.get("format") == FORMAT and doc.get("libraries") == [vars(lib) for lib in libs]


def build(root: Path | None = None, libs: tuple[Lib, ...] = LIBS, force: bool = False) -> Path:
    root = root or cache_dir()
    if not force and built(root, libs):
        log(f"{root / 'tasks.json'} is up to date (--rebuild to build it again)")
        return root / "tasks.json"
    fetch(root)
    files: dict[str, str] = {}
    tasks: list[dict] = []
    build_log: list[str] = []
    for lib in libs:
        fns = _functions(lib, root)
        tfiles = _test_files(lib, root)
        base = root / "src" / lib.sdist
        parsed = {}
        cands = []
        for fn in fns:
            p = tfiles.get(fn.stem)
            if p is None:
                continue
            rel = str(p.relative_to(base))
            if rel not in parsed:
                text = p.read_text(encoding="utf-8")
                parsed[rel] = (text, ast.parse(text), _tests_of(ast.parse(text), lib))
            text, tree, tdefs = parsed[rel]
            sel = [t for t in tdefs if fn.name in t.mentions]
            if sel:
                cands.append((fn, rel, sel))
        names = [fn.name for fn, _, _ in cands]
        dup = {n for n in names if names.count(n) > 1}
        cands = [c for c in cands if c[0].name not in dup]
        log(f"{lib.name}: {len(fns)} functions with doctests, {len(cands)} with tests naming them")
        doc = run_doctests(root, [c[0] for c in cands])
        node_ids = sorted({f"{rel}::{t.name}" for _, rel, sel in cands for t in sel})
        res = run_pytest(root, lib, node_ids)
        kept = 0
        variants_todo = []
        for fn, rel, sel in cands:
            tid = f"{lib.name}/{fn.module.split('.', 1)[-1] if '.' in fn.module else fn.module}.{fn.name}"
            d = doc.get(f"{fn.module}:{fn.name}", "missing")
            if d != "pass":
                build_log.append(f"{tid}: dropped, its doctests {d}")
                continue
            outcome = _outcomes_by_test(res, rel)
            passing = [t for t in sel if outcome.get(t.name) == "passed"]
            for t in sel:
                if t not in passing:
                    build_log.append(f"{tid}: test {t.name} not selected: {outcome.get(t.name, 'not run')}")
            if not passing:
                build_log.append(f"{tid}: dropped, none of its tests passes")
                continue
            text = parsed[rel][0]
            files[f"{lib.sdist}/{rel}"] = text
            row = {"id": tid, "library": lib.name, "kind": "clean", "entry_point": fn.name,
                   "description": fn.description, "description_path": f"{lib.sdist}/{fn.relpath}",
                   "description_line_offset": fn.line_offset,
                   "tests": [{"file": f"{lib.sdist}/{rel}", "only_tests": [t.name for t in passing]}],
                   "harness_assertions": sum(_count_assertions(t.node) for t in passing)}
            tasks.append(row)
            kept += 1
            variants_todo.append((row, fn, rel, passing))
        build_log.append(f"{lib.name}: {kept} clean tasks")
        tasks += _variants(root, lib, variants_todo, parsed, build_log)
    out = root / "tasks.json"
    tmp = out.with_suffix(".tmp")
    tmp.write_text(json.dumps({"format": FORMAT, "libraries": [vars(lib) for lib in libs], "files": files,
                               "tasks": tasks, "log": build_log}, indent=0))
    os.replace(tmp, out)
    return out


def _count_assertions(fn: ast.AST) -> int:
    """Assertion statements of a test as SpecGuard counts them: `assert` statements, `assert*(...)`
    method calls, `raises(...)` calls (`pytest.raises` blocks, a project's own `raises` helper)
    that are not inside an `assert` statement already counted."""
    inside = {id(n) for a in ast.walk(fn) if isinstance(a, ast.Assert) for n in ast.walk(a.test)}
    n = 0
    for node in ast.walk(fn):
        if isinstance(node, ast.Assert):
            n += 1
        elif isinstance(node, ast.Call) and id(node) not in inside:
            f = node.func
            name = f.attr if isinstance(f, ast.Attribute) else f.id if isinstance(f, ast.Name) else ""
            if (isinstance(f, ast.Attribute) and name.startswith("assert")) or name == "raises":
                n += 1
    return n


def count_selected(text: str, only_tests: list[str]) -> int:
    """The harness's count of assertion statements in the selected tests of a test file."""
    tree = ast.parse(text)
    tests = {}
    for node in tree.body:
        if isinstance(node, ast.FunctionDef):
            tests[node.name] = node
        elif isinstance(node, ast.ClassDef):
            for m in node.body:
                if isinstance(m, ast.FunctionDef):
                    tests[f"{node.name}::{m.name}"] = m
    return sum(_count_assertions(tests[n]) for n in only_tests if n in tests)


def _variants(root: Path, lib: Lib, todo: list, parsed: dict, build_log: list) -> list[dict]:
    base = root / "src" / lib.sdist
    made = []
    written = []
    try:
        for row, fn, rel, passing in todo:
            text = parsed[rel][0]
            lines = text.splitlines(keepends=True)
            keys = doc_keys(fn.docstring, fn.name)
            module = _module_values(parsed[rel][1])
            all_sites = [s for t in passing for s in sites(t, fn.name, module)]
            one = next(((s.test, e) for s in all_sites if s.key in keys
                        for e in [make_oneoff(lines, s)] if e), None)
            dup = next(((s.test, e) for s in all_sites for e in [make_duplicate(lines, s)] if e), None)
            for kind, got in (("oneoff", one), ("conflicting", dup)):
                if got is None:
                    build_log.append(f"{row['id']}: no {kind} variant (no eligible assertion)")
                    continue
                test, edit = got
                vname = f"{Path(rel).stem}__rl_{len(written)}.py"
                vrel = str(Path(rel).with_name(vname))
                (base / vrel).write_text(apply_edit(text, edit), encoding="utf-8")
                written.append(base / vrel)
                made.append(({**row, "id": f"{row['id']}/{kind}", "kind": kind, "base": row["id"],
                              "tests": [{**row["tests"][0], "edit": edit}], "edited_test": test}, vrel, test))
        res = run_pytest(root, lib, [f"{vrel}::{test}" for _, vrel, test in made])
    finally:
        for p in written:
            p.unlink(missing_ok=True)
    out = []
    for v, vrel, test in made:
        outcome = _outcomes_by_test(res, vrel).get(test, "not run")
        if outcome == "failed":
            out.append(v)
        else:
            build_log.append(f"{v['id']}: dropped, the edited test {test} {outcome} when run")
    build_log.append(f"{lib.name}: {len(out)} variants fail when run "
                     f"({sum(v['kind'] == 'oneoff' for v in out)} oneoff, {sum(v['kind'] == 'conflicting' for v in out)} conflicting)")
    return out
