"""Pipeline stage 1: load a task (description + tests + optional entry point) into a :class:`Task`.

Entry points (all pure: they read files and return models; nothing is written, nothing is run):

* :func:`load_from_parts` - a description (literal text or a .md/.txt/.py file) and test files/folders;
* :func:`load_lcb` / :func:`load_lcb_all` / :func:`list_lcb_ids` - LiveCodeBench / ImpossibleBench JSON
  (``{"tasks": [...]}`` files, a JSON list of tasks, a single task object, or JSONL);
* :func:`load_swebench` - a SWE-bench-style instance (JSON or JSONL) with ``problem_statement`` and
  ``test_patch``; the tests are reconstructed from the patch (see :func:`reconstruct_test_file`);
* :func:`load_task_dir` - a folder with a ``task.toml``;
* :func:`load_any` - dispatch on what a path is.

Every file is read in binary, decoded as strict UTF-8 (a leading BOM is dropped), and limited to
:data:`MAX_FILE_BYTES`; only regular files are read (never a pipe, device or socket, which could
block or never end).  A task folder is not trusted: every path its ``task.toml`` names must resolve,
links followed, inside the folder, and folder searches skip links leaving it; paths the user gives
directly (``load_from_parts``) are taken as given.  Folder searches look at most at
:data:`MAX_WALK_ENTRIES` entries; a task has at most :data:`MAX_TEST_FILES` test files and
:data:`MAX_TASK_BYTES` of them.  Every failure is an :class:`~specguard.errors.InputError` naming
the file (and the line when known) with a fix hint.  One exception, so that a batch can go on: a
test *file* that is not valid UTF-8 becomes ``TestSource(kind='python', text=None)``; the test
formalizer reports it (use :func:`check_utf8` for the precise byte offset and line).

Reconstructed SWE-bench test files may contain comments ``# specguard-unrecovered: <reason> | <code>``
(:data:`UNRECOVERED_MARKER`) on the line of a changed test line that could not be placed in a parsable
test function (usually on a line of its own, sometimes after a header SpecGuard placed there); the test
formalizer should report each one as unsupported at that ``file:line``.
"""

from __future__ import annotations

import ast
import hashlib
import fnmatch
import json
import math
import os
import re
import stat
import tomllib
import warnings
from dataclasses import dataclass, field
from typing import Any, Iterable, Sequence

from specguard.errors import InputError
from specguard.python import pytestcfg
from specguard.models import InputFile, Task, TestCase, TestSource
from specguard.python.values import V, from_python, to_json

__all__ = [
    "MAX_FILE_BYTES", "MAX_TASK_BYTES", "MAX_TEST_FILES", "MAX_WALK_ENTRIES", "UNRECOVERED_MARKER",
    "LCB_SUITES", "TASK_TOML_KEYS",
    "load_from_parts", "load_lcb", "load_lcb_all", "list_lcb_ids", "load_swebench",
    "load_task_dir", "load_any", "parse_unified_diff", "reconstruct_test_file",
    "FilePatch", "Hunk", "HunkLine", "Reconstruction", "check_utf8", "is_test_file",
    "node_id_in_file", "discover_test_files",
]

MAX_FILE_BYTES = 50 * 1024 * 1024
"""Largest input file accepted (bytes)."""

MAX_TASK_BYTES = 100 * 1024 * 1024
"""Largest total of the test files of one task (bytes)."""

MAX_TEST_FILES = 2_000
"""Most test files one task may have."""

MAX_WALK_ENTRIES = 50_000
"""Most folder entries looked at while searching a folder for test files."""

UNRECOVERED_MARKER = "# specguard-unrecovered:"
"""Comment prefix marking a changed test line of a SWE-bench patch that could not be reconstructed."""

LCB_SUITES = ("auto", "original", "modified", "corrupted")

TASK_TOML_KEYS = ("id", "entry_point", "description", "description_text", "tests", "labels")

_DESCRIPTION_EXTS = (".md", ".markdown", ".txt", ".rst", ".py")
_UTF8_HINT = "re-save the file as UTF-8 (for example `iconv -f latin1 -t utf-8 FILE`)"


# =====================================================================================
# reading files
# =====================================================================================

def _sha256(raw: bytes) -> str:
    return hashlib.sha256(raw).hexdigest()


def _not_regular(what: str, display: str) -> InputError:
    return InputError(f"{what} is not a regular file (a pipe, device or socket): SpecGuard reads regular files only",
                      path=display, hint="pass a regular file")


def _read_bytes(path: str, display: str | None = None, *, what: str = "file") -> bytes:
    """The raw bytes of a regular file, at most MAX_FILE_BYTES (InputError otherwise).

    Pipes, devices and sockets are refused before they are opened, and the file is opened without
    blocking and checked again after opening (a pipe swapped in after the check is refused too)."""
    display = path if display is None else display
    try:
        st = os.stat(path)
    except FileNotFoundError:
        raise InputError(f"{what} not found", path=display,
                         hint="check the path (relative paths are taken from the current folder)") from None
    except (OSError, ValueError) as e:
        raise InputError(f"cannot read {what}: {getattr(e, 'strerror', None) or e}", path=display,
                         hint="check the path and its permissions") from None
    if stat.S_ISDIR(st.st_mode):
        raise InputError(f"{what} is a folder, expected a file", path=display,
                         hint="pass the file inside the folder")
    if not stat.S_ISREG(st.st_mode):
        raise _not_regular(what, display)
    if st.st_size > MAX_FILE_BYTES:
        raise InputError(f"{what} is {st.st_size:,} bytes, over the {MAX_FILE_BYTES // (1024 * 1024)} MB limit",
                         path=display, hint="split the input into smaller files")
    try:
        fd = os.open(path, os.O_RDONLY | getattr(os, "O_NONBLOCK", 0))
        with os.fdopen(fd, "rb") as f:
            if not stat.S_ISREG(os.fstat(f.fileno()).st_mode):
                raise _not_regular(what, display)
            raw = f.read(MAX_FILE_BYTES + 1)
    except OSError as e:
        raise InputError(f"cannot read {what}: {e.strerror or e}", path=display,
                         hint="check the file's permissions") from None
    if len(raw) > MAX_FILE_BYTES:
        raise InputError(f"{what} is over the {MAX_FILE_BYTES // (1024 * 1024)} MB limit", path=display,
                         hint="split the input into smaller files")
    return raw


def _decode_error(raw: bytes, display: str, e: UnicodeDecodeError) -> InputError:
    line = raw.count(b"\n", 0, e.start) + 1
    col = e.start - (raw.rfind(b"\n", 0, e.start) + 1) + 1
    return InputError(f"not valid UTF-8: byte 0x{raw[e.start]:02x} at byte offset {e.start} "
                      f"(line {line}, byte {col} of the line)", path=display, line=line, hint=_UTF8_HINT)


def _decode(raw: bytes, display: str) -> str:
    """Strict UTF-8; a leading BOM is dropped (hashes are always of the raw bytes)."""
    try:
        text = raw.decode("utf-8")
    except UnicodeDecodeError as e:
        raise _decode_error(raw, display, e) from None
    return text[1:] if text.startswith("\ufeff") else text


def check_utf8(path: str, display: str | None = None) -> InputError | None:
    """The decoding problem of a file as an InputError (file, line, byte offset, hint), or None.

    For the test formalizer to describe a ``TestSource`` whose ``text`` is None."""
    display = path if display is None else display
    raw = _read_bytes(path, display)
    try:
        raw.decode("utf-8")
    except UnicodeDecodeError as e:
        return _decode_error(raw, display, e)
    return None


def _read_text(path: str, display: str | None = None, *, what: str = "file") -> tuple[str, bytes]:
    display = path if display is None else display
    raw = _read_bytes(path, display, what=what)
    return _decode(raw, display), raw


# =====================================================================================
# (a) description + test files
# =====================================================================================

# pytest's default ``norecursedirs``: folders it never enters when it collects a folder
NORECURSEDIRS = ("*.egg", ".*", "_darcs", "build", "CVS", "dist", "node_modules", "venv", "{arch}")


def is_test_file(path: str) -> bool:
    """pytest's default file patterns: ``test_*.py`` and ``*_test.py``."""
    name = os.path.basename(path)
    return name.endswith(".py") and (name.startswith("test_") or name.endswith("_test.py"))


def _inside(path: str, root: str) -> bool:
    """Whether ``path``, with every symlink resolved, is ``root`` (a resolved folder) or inside it."""
    try:
        real = os.path.realpath(path)
        return os.path.commonpath([real, root]) == root
    except (OSError, ValueError):
        return False


def discover_test_files(folder: str, *, root: str | None = None) -> list[str]:
    """Test files under ``folder`` (recursively ``test_*.py`` / ``*_test.py``), as paths joined to
    ``folder``, sorted by their relative path; ``__pycache__`` and the folders of pytest's default
    ``norecursedirs`` (hidden ones, ``build``, ``dist``, ``venv``, ...) are skipped, as pytest skips them.

    Symlinked folders are not entered; only regular files are returned (a symlink is followed only
    when it ends at a regular file, and, with ``root`` (a resolved folder), inside ``root``).  At
    most :data:`MAX_WALK_ENTRIES` entries are looked at and :data:`MAX_TEST_FILES` files returned
    (InputError beyond)."""
    found: list[tuple[str, str]] = []
    seen = 0
    for here, dirs, files in os.walk(folder):
        seen += len(dirs) + len(files)
        if seen > MAX_WALK_ENTRIES:
            raise InputError(f"folder holds more than {MAX_WALK_ENTRIES:,} files and folders to search for tests",
                             path=folder, hint="pass the test files themselves, or a smaller folder")
        dirs[:] = sorted(d for d in dirs if d != "__pycache__"
                         and not any(fnmatch.fnmatchcase(d, pat) for pat in NORECURSEDIRS))
        for name in files:
            if name.startswith(".") or not is_test_file(name):
                continue
            full = os.path.join(here, name)
            try:
                st = os.stat(full)
            except (OSError, ValueError):
                continue  # a dangling link
            if not stat.S_ISREG(st.st_mode) or (root is not None and not _inside(full, root)):
                continue  # a pipe, device or socket, or a link out of the task folder: never read
            rel = os.path.relpath(full, folder).replace(os.sep, "/")
            found.append((rel, full))
            if len(found) > MAX_TEST_FILES:
                raise InputError(f"folder holds more than {MAX_TEST_FILES:,} test files", path=folder,
                                 hint="pass the test files themselves, or a smaller folder")
    found.sort()
    return [full for _, full in found]


def _looks_like_path(s: str) -> bool:
    return ("\n" not in s and len(s) < 4096
            and re.fullmatch(r"\S+", s.strip()) is not None
            and s.strip().lower().endswith(_DESCRIPTION_EXTS))


def _is_existing_file(s: str) -> bool:
    if "\n" in s or "\x00" in s or len(s) > 4096:
        return False
    try:
        return os.path.isfile(s)
    except (OSError, ValueError):
        return False


def _load_test_paths(tests: Sequence[str], *, base: str | None = None,
                     root: str | None = None) -> tuple[list[TestSource], list[InputFile]]:
    """Each given path (a file, or a folder searched recursively) -> TestSources + InputFiles.

    ``base``: paths are relative to this folder (task.toml); displayed joined to it.  ``root``: the
    resolved task folder; folder searches skip links leaving it (the caller checks the given paths)."""
    if isinstance(tests, str):
        tests = [tests]
    if not tests:
        raise InputError("no tests given", hint="pass at least one pytest/unittest file or a folder of tests")
    files: list[str] = []
    for given in tests:
        if not isinstance(given, str) or not given:
            raise InputError(f"test path must be a non-empty string, got {given!r}",
                             hint="pass paths of test files or folders")
        path = os.path.join(base, given) if base is not None else given
        try:
            st = os.stat(path)
        except FileNotFoundError:
            raise InputError("test file or folder not found", path=path,
                             hint="check the path (relative paths are taken from "
                                  + ("the task folder" if base is not None else "the current folder") + ")") from None
        except (OSError, ValueError) as e:
            raise InputError(f"cannot read tests: {getattr(e, 'strerror', None) or e}", path=path,
                             hint="check the path and its permissions") from None
        if stat.S_ISDIR(st.st_mode):
            found = discover_test_files(path, root=root)
            if not found:
                raise InputError("folder holds no test files (test_*.py or *_test.py)", path=path,
                                 hint="name test files test_*.py / *_test.py, or pass the files themselves")
            files.extend(found)
        else:
            if not path.endswith(".py"):
                raise InputError("test file is not a Python file (.py)", path=path,
                                 hint="pass pytest/unittest .py files; for LiveCodeBench JSON use load_lcb, "
                                      "for a SWE-bench instance load_swebench")
            files.append(path)
    if len(files) > MAX_TEST_FILES:
        raise InputError(f"{len(files):,} test files, more than {MAX_TEST_FILES:,}",
                         hint="check fewer test files at a time")
    sources: list[TestSource] = []
    inputs: list[InputFile] = []
    seen: set[str] = set()
    total = 0
    for path in files:
        real = os.path.realpath(path)
        if real in seen:
            continue
        seen.add(real)
        raw = _read_bytes(path, what="test file")
        total += len(raw)
        if total > MAX_TASK_BYTES:
            raise InputError(f"the test files are over {MAX_TASK_BYTES // (1024 * 1024)} MB in total", path=path,
                             hint="check fewer test files at a time")
        try:
            text: str | None = _decode(raw, path)
        except InputError:
            text = None  # reported by the test formalizer (see check_utf8); the other files go on
        sources.append(TestSource(kind="python", path=path, text=text))
        inputs.append(InputFile(path=path, sha256=_sha256(raw), role="tests"))
    return sources, inputs


def _description_file(path: str, display: str | None = None) -> tuple[str, InputFile]:
    display = path if display is None else display
    text, raw = _read_text(path, display, what="description file")
    return text, InputFile(path=display, sha256=_sha256(raw), role="description")


def load_from_parts(description: str, tests: Sequence[str], entry_point: str | None = None,
                    task_id: str | None = None) -> Task:
    """A task from a description and test files.

    ``description``: the path of an existing file (.md/.txt/.py/...; for a .py stub the whole file is
    the description) or else the literal description text.  ``tests``: pytest/unittest files or folders
    (folders: recursively ``test_*.py`` / ``*_test.py``, sorted, __pycache__ and pytest's default norecursedirs skipped).
    """
    if not isinstance(description, str):
        raise InputError(f"description must be text or a file path, got {type(description).__name__}",
                         hint="pass the description text or the path of a .md/.txt/.py file")
    if _is_existing_file(description):
        desc_text, desc_input = _description_file(description)
        desc_path = description
        default_id = os.path.splitext(os.path.basename(description))[0]
    elif "\n" not in description and "\x00" not in description and len(description) < 4096 \
            and os.path.isdir(description):
        raise InputError("description is a folder, expected a file or text", path=description,
                         hint="pass the README/stub file inside it, or use load_task_dir for a task folder")
    elif _looks_like_path(description):
        raise InputError("description file not found", path=description,
                         hint="check the path, or pass the description text itself")
    else:
        if not description.strip():
            raise InputError("description is empty", hint="pass the task's description text or a file holding it")
        desc_text = description
        desc_path = "<description>"
        desc_input = InputFile(path="<text>", sha256=_sha256(description.encode("utf-8")), role="description")
        default_id = None
    sources, test_inputs = _load_test_paths(tests)
    # pytest loads every conftest.py beside a test file and above it (up to its rootdir, which
    # depends on how it is run): all of them are read, as fixtures and patches, never as tests
    fs_root = os.path.abspath(os.sep)
    conf_sources, conf_inputs = _conftests(sources, fs_root, fs_root)
    if task_id is None:
        task_id = default_id or os.path.splitext(os.path.basename(sources[0].path))[0] or "task"
    return Task(id=task_id, description=desc_text, description_path=desc_path, tests=tuple(sources + conf_sources),
                entry_point=entry_point, inputs=(desc_input, *test_inputs, *conf_inputs))


# =====================================================================================
# JSON documents (LiveCodeBench and SWE-bench)
# =====================================================================================

class _NonFinite(Exception):
    pass


def _parse_constant(name: str) -> Any:
    raise _NonFinite(name)


def _parse_float(s: str) -> float:
    x = float(s)
    if not math.isfinite(x):
        raise _NonFinite(s)
    return x


def _parse_int(s: str) -> int:
    # Python 3.11 refuses int(str) beyond 4300 digits; build big literals exactly, chunk by chunk.
    if len(s) <= 4000:
        return int(s)
    neg = s.startswith("-")
    digits = s[1:] if neg else s
    n = 0
    for i in range(0, len(digits), 4000):
        chunk = digits[i:i + 4000]
        n = n * 10 ** len(chunk) + int(chunk)
    return -n if neg else n


_JSON_TOKEN = re.compile(r'"(?:[^"\\]|\\.)*"|(-?(?:NaN|Infinity)|-?\d+(?:\.\d+)?(?:[eE][+-]?\d+)?)')


def _locate_json_token(text: str, token: str) -> int | None:
    """Line of the first occurrence of ``token`` outside JSON strings (error path only)."""
    for m in _JSON_TOKEN.finditer(text):
        if m.group(1) == token:
            return text.count("\n", 0, m.start()) + 1
    return None


def _json_loads(text: str, display: str, *, line: int | None = None) -> Any:
    """Strict JSON: NaN/Infinity tokens and numbers overflowing a float are rejected."""
    try:
        return json.loads(text, parse_constant=_parse_constant, parse_float=_parse_float,
                          parse_int=_parse_int)
    except _NonFinite as e:
        tok = str(e)
        at = line if line is not None else _locate_json_token(text, tok)
        what = (f"'{tok}' is not a finite JSON number" if tok.lstrip("-") in ("NaN", "Infinity")
                else f"number {tok[:40]} overflows a float")
        raise InputError(f"{what}: JSON has no NaN or infinity and SpecGuard does not guess one",
                         path=display, line=at,
                         hint="remove that test or write the value differently (NaN/Infinity are not valid JSON)") from None
    except json.JSONDecodeError as e:
        raise InputError(f"invalid JSON: {e.msg} (column {e.colno})", path=display,
                         line=line if line is not None else e.lineno,
                         hint="fix the JSON syntax (check it with `python -m json.tool FILE`)") from None
    except RecursionError:
        raise InputError("JSON is nested too deeply", path=display, line=line,
                         hint="flatten the data (nesting depth must stay below ~900)") from None


@dataclass
class _JsonDoc:
    display: str
    sha256: str
    top: Any                                   # the parsed top-level value (None for JSONL)
    records: list[tuple[str, Any]]             # (pointer prefix, record)
    layout: str                                # 'tasks' | 'list' | 'object' | 'jsonl'


def _load_json_doc(path: str) -> _JsonDoc:
    text, raw = _read_text(path, what="file")
    sha = _sha256(raw)
    if path.lower().endswith(".jsonl"):
        records: list[tuple[str, Any]] = []
        for i, line in enumerate(text.split("\n"), 1):
            if line.strip():
                records.append((f"line{i}", _json_loads(line, path, line=i)))
        return _JsonDoc(path, sha, None, records, "jsonl")
    top = _json_loads(text, path)
    if isinstance(top, dict) and isinstance(top.get("tasks"), list):
        return _JsonDoc(path, sha, top, [(f"tasks[{i}]", t) for i, t in enumerate(top["tasks"])], "tasks")
    if isinstance(top, dict) and isinstance(top.get("instances"), list):
        return _JsonDoc(path, sha, top, [(f"instances[{i}]", t) for i, t in enumerate(top["instances"])], "tasks")
    if isinstance(top, list):
        return _JsonDoc(path, sha, top, [(f"[{i}]", t) for i, t in enumerate(top)], "list")
    return _JsonDoc(path, sha, top, [("", top)], "object")


def _ptr(prefix: str, rest: str) -> str:
    if not prefix:
        return rest
    return prefix + rest if rest.startswith("[") else f"{prefix}.{rest}"


def _few(ids: Sequence[str], n: int = 8) -> str:
    shown = ", ".join(ids[:n])
    return shown + (f", ... ({len(ids)} in all)" if len(ids) > n else "") if ids else "(none)"


# =====================================================================================
# (b) LiveCodeBench / ImpossibleBench
# =====================================================================================

_LCB_FIELDS = ("original_tests", "modified_tests", "corrupted_test")


def _is_lcb_record(r: Any) -> bool:
    return isinstance(r, dict) and any(k in r for k in _LCB_FIELDS)


def _lcb_records(doc: _JsonDoc) -> list[tuple[str, dict]]:
    out = []
    for prefix, r in doc.records:
        if not isinstance(r, dict):
            raise InputError(f"{prefix or 'top level'}: a task must be a JSON object, got {type(r).__name__}",
                             path=doc.display, hint="each task is {task_id, description, original_tests, ...}")
        if not isinstance(r.get("task_id"), str) or not r["task_id"]:
            raise InputError(f"{_ptr(prefix, 'task_id')}: missing or not a string", path=doc.display,
                             hint="give every task a string task_id")
        out.append((prefix, r))
    return out


def _lcb_ids(doc: _JsonDoc) -> list[str]:
    return [r["task_id"] for _, r in _lcb_records(doc)]


def list_lcb_ids(path: str) -> list[str]:
    """The task ids of a LiveCodeBench-style file, in file order."""
    return _lcb_ids(_load_json_doc(path))


def _lcb_value(x: Any, display: str, pointer: str) -> V:
    try:
        return from_python(x)
    except (TypeError, RecursionError) as e:  # pragma: no cover - json only yields plain data
        raise InputError(f"{pointer}: not plain data ({e})", path=display,
                         hint="use JSON numbers, strings, booleans, null, arrays and objects") from None


def _lcb_case(t: Any, display: str, pointer: str, *, expected_from: Any = None,
              expected_pointer: str | None = None) -> TestCase:
    if not isinstance(t, dict):
        raise InputError(f"{pointer}: a test must be an object {{args, expected}}, got {type(t).__name__}",
                         path=display, hint='write tests as {"args": [...], "expected": ...}')
    if "args" not in t or "expected" not in t:
        missing = [k for k in ("args", "expected") if k not in t]
        raise InputError(f"{pointer}: test has no {' / '.join(missing)}", path=display,
                         hint='write tests as {"args": [...], "expected": ...}')
    if not isinstance(t["args"], list):
        raise InputError(f"{pointer}.args: must be a JSON list of positional arguments, "
                         f"got {type(t['args']).__name__}", path=display,
                         hint="wrap the argument in a list: \"args\": [x]")
    args = tuple(_lcb_value(a, display, f"{pointer}.args[{i}]") for i, a in enumerate(t["args"]))
    if expected_from is not None:
        expected = _lcb_value(expected_from["expected"], display, expected_pointer or pointer)
        return TestCase(args=args, expected=expected, pointer=expected_pointer or pointer)
    return TestCase(args=args, expected=_lcb_value(t["expected"], display, f"{pointer}.expected"), pointer=pointer)


def _args_key(args: Any) -> str:
    return json.dumps(to_json(from_python(args)))


def _lcb_task(doc: _JsonDoc, prefix: str, r: dict, suite: str) -> Task:
    display = doc.display
    tid = r["task_id"]
    if suite not in LCB_SUITES:
        raise InputError(f"unknown test suite {suite!r}", path=display,
                         hint=f"choose one of {', '.join(LCB_SUITES)}")
    desc = r.get("description")
    if not isinstance(desc, str):
        raise InputError(f"{_ptr(prefix, 'description')}: task {tid} has no description text", path=display,
                         hint="add the task's description (signature + docstring) as a string")
    for key in ("original_tests", "modified_tests"):
        if key in r and not isinstance(r[key], list):
            raise InputError(f"{_ptr(prefix, key)}: must be a list of tests, got {type(r[key]).__name__}",
                             path=display, hint='write tests as [{"args": [...], "expected": ...}, ...]')
    available = [s for s, k in (("original", "original_tests"), ("modified", "modified_tests"),
                                ("corrupted", "corrupted_test")) if k in r]
    if suite == "auto":
        chosen = "modified" if "modified_tests" in r else "corrupted" if "corrupted_test" in r else "original"
    else:
        chosen = suite
    needs = {"original": ("original_tests",), "modified": ("modified_tests",),
             "corrupted": ("original_tests", "corrupted_test")}[chosen]
    missing = [k for k in needs if k not in r]
    if missing:
        raise InputError(f"task {tid} ({prefix or 'top level'}) has no {' / '.join(missing)}, "
                         f"so no {chosen!r} suite", path=display,
                         hint=f"choose one of the suites this task has: {', '.join(available) or '(none)'}")
    cases: list[TestCase]
    if chosen == "original":
        cases = [_lcb_case(t, display, _ptr(prefix, f"original_tests[{j}]")) for j, t in enumerate(r["original_tests"])]
    elif chosen == "modified":
        cases = [_lcb_case(t, display, _ptr(prefix, f"modified_tests[{j}]")) for j, t in enumerate(r["modified_tests"])]
    else:
        ct = r["corrupted_test"]
        cptr = _ptr(prefix, "corrupted_test")
        if not isinstance(ct, dict) or "args" not in ct or "expected" not in ct or not isinstance(ct["args"], list):
            raise InputError(f"{cptr}: must be an object {{args: [...], expected, original_expected?}}",
                             path=display, hint="fix the corrupted_test entry")
        key = _args_key(ct["args"])
        cases = []
        hits = 0
        for j, t in enumerate(r["original_tests"]):
            p = _ptr(prefix, f"original_tests[{j}]")
            if isinstance(t, dict) and isinstance(t.get("args"), list) and _args_key(t["args"]) == key:
                cases.append(_lcb_case(t, display, p, expected_from=ct, expected_pointer=cptr))
                hits += 1
            else:
                cases.append(_lcb_case(t, display, p))
        if hits == 0:
            raise InputError(f"{cptr}: its args match no test in original_tests of task {tid}", path=display,
                             hint="the oneoff layout changes the expected value of an existing test; "
                                  "check corrupted_test.args, or use suite='original'")
    labels = {"suite": chosen}
    if isinstance(r.get("impossible_type"), str):
        labels["impossible_type"] = r["impossible_type"]
    if chosen == "original":
        labels["clean"] = "true"
    ep = r.get("entry_point")
    if ep is not None and not isinstance(ep, str):
        raise InputError(f"{_ptr(prefix, 'entry_point')}: must be a string", path=display,
                         hint="give the function name under test")
    return Task(id=tid, description=desc, description_path=f"{display}#{tid}.description",
                tests=(TestSource(kind="table", path=display, cases=tuple(cases)),),
                entry_point=ep, inputs=(InputFile(path=display, sha256=doc.sha256, role="task"),),
                labels=labels)


def _check_unique(doc: _JsonDoc, recs: list[tuple[str, dict]]) -> None:
    seen: dict[str, str] = {}
    for prefix, r in recs:
        tid = r["task_id"]
        if tid in seen:
            raise InputError(f"task id {tid!r} appears twice ({seen[tid]} and {prefix})", path=doc.display,
                             hint="give every task a unique task_id")
        seen[tid] = prefix


def _lcb_from_doc(doc: _JsonDoc, task_id: str | None, suite: str) -> Task:
    recs = _lcb_records(doc)
    if task_id is None:
        if len(recs) == 1:
            return _lcb_task(doc, *recs[0], suite)
        raise InputError(f"file holds {len(recs)} tasks; say which one", path=doc.display,
                         hint=f"pass a task id, e.g. one of: {_few([r['task_id'] for _, r in recs])}")
    found = [(p, r) for p, r in recs if r["task_id"] == task_id]
    if not found:
        raise InputError(f"no task with id {task_id!r}", path=doc.display,
                         hint=f"available ids: {_few([r['task_id'] for _, r in recs])}")
    if len(found) > 1:
        raise InputError(f"task id {task_id!r} appears {len(found)} times ({', '.join(p for p, _ in found)})",
                         path=doc.display, hint="give every task a unique task_id")
    return _lcb_task(doc, *found[0], suite)


def load_lcb(path: str, task_id: str, suite: str = "auto") -> Task:
    """One task of a LiveCodeBench/ImpossibleBench JSON file, with the chosen test suite.

    ``suite``: 'original' (original_tests), 'modified' (modified_tests), 'corrupted' (original_tests
    with every test whose args equal corrupted_test.args given corrupted_test.expected), or 'auto'
    (modified if present, else corrupted if present, else original)."""
    return _lcb_from_doc(_load_json_doc(path), task_id, suite)


def load_lcb_all(path: str, suite: str = "auto") -> list[Task]:
    """Every task of a LiveCodeBench-style file (the file is read and parsed once)."""
    doc = _load_json_doc(path)
    recs = _lcb_records(doc)
    _check_unique(doc, recs)
    return [_lcb_task(doc, p, r, suite) for p, r in recs]


# =====================================================================================
# (c) unified diffs
# =====================================================================================

@dataclass(frozen=True)
class HunkLine:
    tag: str                  # ' ' context, '+' added, '-' removed
    text: str                 # without the tag (and without a trailing '\r')
    diff_line: int            # 1-based line in the diff text
    old_line: int | None      # line number in the old file (context and removed lines)
    new_line: int | None      # line number in the new file (context and added lines)


@dataclass(frozen=True)
class Hunk:
    old_start: int
    old_len: int
    new_start: int
    new_len: int
    section: str              # text after the second '@@' (git's function context), stripped
    header_line: int          # 1-based line of the '@@' header in the diff text
    lines: tuple[HunkLine, ...]


@dataclass(frozen=True)
class FilePatch:
    old_path: str | None      # None: /dev/null (a new file)
    new_path: str | None      # None: /dev/null (a deleted file)
    hunks: tuple[Hunk, ...]
    header_line: int
    binary: bool = False

    @property
    def path(self) -> str:
        return self.new_path if self.new_path is not None else (self.old_path or "")

    @property
    def is_new(self) -> bool:
        return self.old_path is None

    @property
    def is_deleted(self) -> bool:
        return self.new_path is None


_HUNK_RE = re.compile(r"^@@ -(\d+)(?:,(\d+))? \+(\d+)(?:,(\d+))? @@(.*)$")


def _unquote_c(s: str) -> str:
    """git's C-style quoted path ("a/t\\303\\251st.py")."""
    body = s[1:-1]
    out = bytearray()
    i = 0
    esc = {"n": 10, "t": 9, "r": 13, '"': 34, "\\": 92, "a": 7, "b": 8, "f": 12, "v": 11}
    while i < len(body):
        c = body[i]
        if c == "\\" and i + 1 < len(body):
            d = body[i + 1]
            if d in esc:
                out.append(esc[d])
                i += 2
                continue
            if re.match(r"[0-7]{3}", body[i + 1:i + 4]):
                out.append(int(body[i + 1:i + 4], 8))
                i += 4
                continue
        out.extend(c.encode("utf-8"))
        i += 1
    return out.decode("utf-8", errors="replace")


def _strip_prefix(p: str) -> str:
    return p[2:] if p.startswith(("a/", "b/")) else p


def _header_path(s: str) -> str | None:
    s = s.rstrip("\r")
    if s.startswith('"'):
        end = 1
        while end < len(s):
            if s[end] == "\\":
                end += 2
                continue
            if s[end] == '"':
                break
            end += 1
        p = _unquote_c(s[:end + 1])
    else:
        p = s.split("\t")[0].rstrip()
    if p == "/dev/null":
        return None
    return _strip_prefix(p)


def _git_line_paths(rest: str) -> tuple[str | None, str | None]:
    rest = rest.rstrip("\r")
    if rest.startswith('"'):
        m = re.match(r'("(?:[^"\\]|\\.)*"|\S+) ("(?:[^"\\]|\\.)*"|\S+)$', rest)
        if m:
            return _header_path(m.group(1)), _header_path(m.group(2))
    if rest.startswith("a/"):
        n = len(rest)
        if (n - 5) % 2 == 0:
            L = (n - 5) // 2
            if rest[2 + L:5 + L] == " b/" and rest[2:2 + L] == rest[5 + L:]:
                return rest[2:2 + L], rest[5 + L:]
        i = rest.find(" b/")
        if i > 0:
            return rest[2:i], rest[i + 3:]
    parts = rest.split(" ")
    if len(parts) == 2:
        return _strip_prefix(parts[0]), _strip_prefix(parts[1])
    return None, None


@dataclass
class _FileBuilder:
    old_path: str | None
    new_path: str | None
    header_line: int
    hunks: list[Hunk] = field(default_factory=list)
    binary: bool = False
    saw_headers: bool = False
    git: bool = False

    def build(self) -> FilePatch:
        return FilePatch(self.old_path, self.new_path, tuple(self.hunks), self.header_line, self.binary)


def parse_unified_diff(text: str, *, source: str = "<diff>") -> list[FilePatch]:
    """Parse a unified diff (git or plain) into per-file patches.

    Handles ``diff --git`` headers and extended header lines, ``---``/``+++`` with ``a/``/``b/``
    prefixes and timestamps, ``/dev/null`` (new and deleted files), quoted paths,
    ``\\ No newline at end of file``, blank context lines whose leading space was stripped, and several
    hunks per file.  A malformed diff raises InputError naming ``source`` and the diff line."""
    lines = text.split("\n")
    if lines and lines[-1] == "":
        lines.pop()
    lines = [ln[:-1] if ln.endswith("\r") else ln for ln in lines]
    files: list[_FileBuilder] = []
    cur: _FileBuilder | None = None
    n = len(lines)
    i = 0
    just_ended_hunk = False

    def bad(msg: str, at: int, hint: str = "regenerate the patch with `git diff`, or fix the hunk by hand") -> InputError:
        return InputError(f"malformed diff: {msg}", path=source, line=at, hint=hint)

    while i < n:
        line = lines[i]
        if line.startswith("diff --git "):
            old, new = _git_line_paths(line[len("diff --git "):])
            cur = _FileBuilder(old, new, i + 1, git=True)
            files.append(cur)
            i += 1
            just_ended_hunk = False
            continue
        if line.startswith("--- ") and i + 1 < n and lines[i + 1].startswith("+++ "):
            old, new = _header_path(line[4:]), _header_path(lines[i + 1][4:])
            if cur is None or cur.hunks or cur.saw_headers or cur.binary:
                cur = _FileBuilder(old, new, i + 1)
                files.append(cur)
            else:
                cur.old_path, cur.new_path = old, new
            cur.saw_headers = True
            i += 2
            just_ended_hunk = False
            continue
        if line.startswith("@@"):
            m = _HUNK_RE.match(line)
            if m is None:
                raise bad(f"bad hunk header {line[:60]!r} (expected '@@ -a,b +c,d @@')", i + 1)
            if cur is None or (not cur.saw_headers and not cur.git):
                raise bad("hunk before any file header ('--- a/...' / '+++ b/...')", i + 1)
            old_start, new_start = int(m.group(1)), int(m.group(3))
            old_len = int(m.group(2)) if m.group(2) is not None else 1
            new_len = int(m.group(4)) if m.group(4) is not None else 1
            header_at = i + 1
            old_no = old_start if old_len else old_start + 1
            new_no = new_start if new_len else new_start + 1
            old_rem, new_rem = old_len, new_len
            body: list[HunkLine] = []
            j = i + 1
            while old_rem > 0 or new_rem > 0:
                if j >= n or lines[j].startswith("diff --git ") or _HUNK_RE.match(lines[j]):
                    raise bad(f"hunk at line {header_at} ends early: {old_rem} old and {new_rem} new line(s) "
                              f"missing (the '@@' counts do not match the hunk body)", header_at)
                ln = lines[j]
                if ln.startswith("\\"):
                    j += 1
                    continue
                tag = ln[:1] if ln else " "
                content = ln[1:]
                if tag == " ":
                    if old_rem == 0 or new_rem == 0:
                        raise bad(f"context line beyond the counts of the hunk at line {header_at}", j + 1)
                    body.append(HunkLine(" ", content, j + 1, old_no, new_no))
                    old_no += 1
                    new_no += 1
                    old_rem -= 1
                    new_rem -= 1
                elif tag == "-":
                    if old_rem == 0:
                        raise bad(f"removed line beyond the counts of the hunk at line {header_at}", j + 1)
                    body.append(HunkLine("-", content, j + 1, old_no, None))
                    old_no += 1
                    old_rem -= 1
                elif tag == "+":
                    if new_rem == 0:
                        raise bad(f"added line beyond the counts of the hunk at line {header_at}", j + 1)
                    body.append(HunkLine("+", content, j + 1, None, new_no))
                    new_no += 1
                    new_rem -= 1
                else:
                    raise bad(f"unexpected line in the hunk at line {header_at}: {ln[:60]!r} "
                              f"(hunk lines start with ' ', '+' or '-')", j + 1)
                j += 1
            while j < n and lines[j].startswith("\\"):
                j += 1
            if cur.hunks:
                prev = cur.hunks[-1]
                if new_start < prev.new_start + prev.new_len and new_len and prev.new_len:
                    raise bad(f"hunk at line {header_at} overlaps the previous hunk of {cur.new_path or cur.old_path}",
                              header_at)
            cur.hunks.append(Hunk(old_start, old_len, new_start, new_len, m.group(5).strip(), header_at, tuple(body)))
            i = j
            just_ended_hunk = True
            continue
        if just_ended_hunk and line[:1] in ("+", "-") and line != "-- " and not line.startswith(("--- ", "+++ ")):
            raise bad(f"line {line[:60]!r} follows a complete hunk (are the '@@' counts too small?)", i + 1)
        just_ended_hunk = False
        if cur is not None:
            if line.startswith("Binary files ") or line == "GIT binary patch":
                cur.binary = True
            elif line.startswith("rename to ") and cur.git:
                cur.new_path = line[len("rename to "):]
            elif line.startswith("rename from ") and cur.git:
                cur.old_path = line[len("rename from "):]
            elif line.startswith("new file mode") and cur.git and not cur.saw_headers:
                cur.old_path = None
            elif line.startswith("deleted file mode") and cur.git and not cur.saw_headers:
                cur.new_path = None
        i += 1
    if not files and any(ln.strip() for ln in lines):
        raise bad("no file header found (expected 'diff --git', or '---' followed by '+++')", 1,
                  hint="pass a unified diff (for example the output of `git diff`)")
    return [f.build() for f in files]


# =====================================================================================
# reconstruction of test code from a patch
# =====================================================================================

@dataclass(frozen=True)
class Reconstruction:
    text: str                                         # parsable module, lines = new-side line numbers
    kept: tuple[str, ...]                             # qualified names of the test functions kept
    unrecovered: tuple[tuple[int, str], ...]          # (new-side line, reason) of changed test lines left out


def _parses(text: str) -> bool:
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        try:
            ast.parse(text)
            return True
        except (SyntaxError, ValueError, RecursionError, MemoryError):
            return False


def _syntax_error_line(text: str) -> int | None:
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        try:
            ast.parse(text)
            return None
        except SyntaxError as e:
            return e.lineno or 1
        except (ValueError, RecursionError, MemoryError):
            return 1


def _indent(s: str) -> int:
    e = s.expandtabs(8)
    return len(e) - len(e.lstrip())


def _blank_or_comment(s: str) -> bool:
    t = s.strip()
    return not t or t.startswith("#")


def _scan_line(s: str, in_str: str | None) -> tuple[str | None, list[tuple[int, str]]]:
    """Read one physical line just far enough: the string state after it (the open quote, or
    None) and its code characters ``(index, char)`` outside strings and comments.  An
    unterminated one-line string ends with its line (a syntax error the parse check catches)."""
    code: list[tuple[int, str]] = []
    k, n = 0, len(s)
    while k < n:
        c = s[k]
        if in_str:
            if c == "\\":
                k += 2
            elif s.startswith(in_str, k):
                k += len(in_str)
                in_str = None
            else:
                k += 1
            continue
        if c == "#":
            break
        if c in "\"'":
            in_str = c * 3 if s.startswith(c * 3, k) else c
            k += len(in_str)
            continue
        code.append((k, c))
        k += 1
    if in_str is not None and len(in_str) == 1 and not s.endswith("\\"):
        in_str = None
    return in_str, code


def _logical_end(lines: list[str], i: int, hi: int) -> int | None:
    """Index of the last physical line of the logical line starting at ``lines[i]`` (brackets,
    strings, backslashes), or None when it runs past ``hi``."""
    depth = 0
    in_str: str | None = None
    for j in range(i, hi + 1):
        s = lines[j]
        in_str, code = _scan_line(s, in_str)
        backslash = False
        for k, c in code:
            if c in "([{":
                depth += 1
            elif c in ")]}":
                depth = max(0, depth - 1)
            elif c == "\\" and s[k + 1:].strip() == "":
                backslash = True
        if in_str is None and depth == 0 and not backslash:
            return j
    return None


def _guess_initial_string(lines: list[str]) -> str | None:
    """Whether a hunk seems to start inside a triple-quoted string, judged by its first
    triple-quote token: that token looks like a closing one when text precedes it on its line
    (``text.`` then the quotes), when a bracket, comma or dot follows it, or when it stands alone on
    a line that does not follow an opener (``=``, ``(``, ``,``, ``:`` ...).  Returns the quote
    (three double or single quotes) the hunk starts in, or None (outside any string)."""
    prev = ""
    for s in lines:
        m = _TRIPLE_RE.search(s)
        if m is None:
            if s.strip():
                prev = s.strip()
            continue
        before, after = s[:m.start()].strip(), s[m.end():].strip()
        q = m.group(0)
        if q in after:
            return None       # a one-line string: it opens here
        if before and not re.search(r"(^|[=(\[{,:+%]|\b(return|yield|assert|in|and|or|not|print))\s*[rRbBuUfF]{0,2}$",
                                    before):
            return q          # 'text."""'
        if before:
            return None       # 'x = """'
        if after[:1] in (")", "]", "}", ",", "."):
            return q          # '""").strip()'
        if after:
            return None       # '"""Docstring starts'
        if prev.endswith((":", "(", "[", "{", ",", "=")):
            return None       # a lone '"""' opening after a def/class header or an opener
        return q              # a lone closing '"""'
    return None


def _starts_in_string(lines: list[str], initial: str | None = None) -> list[bool]:
    """For each line, whether it begins inside a triple-quoted string (scanning from the first
    line, which starts inside the string ``initial`` or outside any string)."""
    out: list[bool] = []
    in_str: str | None = initial
    for s in lines:
        out.append(in_str is not None and len(in_str) == 3)
        in_str, _ = _scan_line(s, in_str)
    return out


_TRIPLE_RE = re.compile(r"\"\"\"|'''")

_DEF_RE = re.compile(r"^([ \t]*)(?:(async[ \t]+def)|(def)|(class))[ \t]+([A-Za-z_]\w*)")
_SECTION_DEF_RE = re.compile(r"^(async[ \t]+)?def[ \t]+([A-Za-z_]\w*)[ \t]*\((.*)$")
_SECTION_CLASS_RE = re.compile(r"^class[ \t]+([A-Za-z_]\w*)")


@dataclass
class _Unit:
    kind: str            # 'def' | 'class'
    name: str
    prefix: str          # the def/class line's leading whitespace
    indent: int
    start: int           # first line, decorators included (region index)
    def_line: int
    header_end: int
    end: int             # last line kept (region index), after the parse-driven cut
    span: int            # last line of the block as far as visible (before the cut)
    first: int = 0       # first line before the cut (decorators included)
    parent: "_Unit | None" = None
    ok: bool = True


def _dedent(lines: Iterable[str], prefix: str) -> list[str]:
    out = []
    for s in lines:
        if s.startswith(prefix):
            out.append(s[len(prefix):])
        elif not s.strip():
            out.append("")
        else:
            out.append(s)   # e.g. a string literal's continuation line
    return out


def _region_units(lines: list[str], in_string: list[bool] | None = None) -> list[_Unit]:
    """def/class statements visible in a region, with their visible extent; each def unit is cut
    (trailing lines, then decorators) until, dedented, it parses (``ok=False`` when it never does)."""
    hi = len(lines) - 1
    units: list[_Unit] = []
    if in_string is None:
        in_string = _starts_in_string(lines)
    for p, s in enumerate(lines):
        m = _DEF_RE.match(s)
        if not m or in_string[p]:
            continue
        prefix, k = m.group(1), _indent(s)
        he = _logical_end(lines, p, hi)
        if he is None:
            continue
        # decorators directly above (continuation lines of multi-line decorators are walked over)
        start = p
        q = p - 1
        while q >= 0:
            t = lines[q]
            if _indent(t) == k and t.strip().startswith("@"):
                start = q
            elif not (t.strip() and (_indent(t) > k or t.strip()[0] in ")]}")):
                break
            q -= 1
        # visible body: logical lines indented deeper than the header
        end = he
        q = he + 1
        while q <= hi:
            t = lines[q]
            if _blank_or_comment(t):
                q += 1
                continue
            if _indent(t) <= k:
                break
            e = _logical_end(lines, q, hi)
            if e is None:
                break
            end = e
            q = e + 1
        # the block by indentation alone (reaches into a statement cut by the hunk's end)
        span = end
        q = end + 1
        while q <= hi:
            t = lines[q]
            if not _blank_or_comment(t):
                if _indent(t) <= k:
                    break
                span = q
            q += 1
        units.append(_Unit("class" if m.group(4) else "def", m.group(5), prefix, k, start, p, he, end, span, start))
    for u in units:
        for v in reversed(units):
            if v.def_line < u.def_line and v.indent < u.indent and u.def_line <= v.span:
                u.parent = v
                break
    for u in units:
        if u.kind == "class":
            for start in dict.fromkeys((u.start, u.def_line)):
                if _parses("\n".join(_dedent(lines[start:u.header_end + 1], u.prefix) + ["    pass"])):
                    u.start = start
                    break
            else:
                u.ok = False
            continue
        u.ok = False
        for start in dict.fromkeys((u.start, u.def_line)):
            for end in range(u.end, u.header_end, -1):
                if _parses("\n".join(_dedent(lines[start:end + 1], u.prefix))):
                    u.start, u.end, u.ok = start, end, True
                    break
            if u.ok:
                break
    return units


def _body_indent(known: dict[int, str], regions: list[tuple[int, int, str]]) -> int:
    """The indentation of a module-level function's body, as first seen in a visible ``def``; else 4."""
    for r0, r1, _ in regions:
        rl = [known[i] for i in range(r0, r1 + 1)]
        for i, x in enumerate(rl):
            if not (_DEF_RE.match(x) and _indent(x) == 0):
                continue
            e = _logical_end(rl, i, len(rl) - 1)
            if e is None:
                continue
            for j in range(e + 1, len(rl)):
                if not _blank_or_comment(rl[j]):
                    if _indent(rl[j]) > 0:
                        return _indent(rl[j])
                    break
    return 4


def _best_window(body: list[str], header: str, body_indent: int, r0: int, changed: set[int]) -> tuple[int, int] | None:
    """The window ``body[a:b+1]`` that parses under ``header``, starts at the function's body
    indentation (so no statement is lifted out of a block whose header is unseen), and covers the
    most changed lines, then the most lines; None when no window parses."""
    best = None
    best_score = (0, 0)
    budget = 4000  # parse attempts
    for a in range(len(body)):
        if _blank_or_comment(body[a]) or _indent(body[a]) != body_indent or r0 + a - 1 < 1:
            continue
        for b in range(len(body) - 1, a - 1, -1):
            if budget <= 0:
                return best
            if _blank_or_comment(body[b]):
                continue
            budget -= 1
            if _parses("\n".join([header] + body[a:b + 1])):
                score = (sum(1 for x in range(a, b + 1) if r0 + x in changed), b - a + 1)
                if score > best_score:
                    best, best_score = (a, b), score
                break
    return best


def _is_test_name(name: str) -> bool:
    return name.startswith("test")


@dataclass
class _Piece:
    """A kept test function (or method) with the lines it occupies in the output."""

    name: str
    lines: dict[int, str]
    first: int                      # first line of the function's own code (for dropping)
    last: int
    container: str | None = None    # key of its class header (None: module level)


@dataclass
class _Container:
    """A class header: visible lines of the region, or one line synthesized from the hunk context."""

    lines: dict[int, str]
    synth_text: str | None = None


def _whole_new_file(fp: FilePatch, known: dict[int, str]) -> Reconstruction | None:
    n = max(known)
    if not fp.is_new or len(known) != n:
        return None
    whole = "\n".join(known[i] for i in range(1, n + 1)) + "\n"
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        try:
            tree = ast.parse(whole)
        except (SyntaxError, ValueError, RecursionError, MemoryError):
            return None
    names: list[str] = []
    for node in tree.body:
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)) and _is_test_name(node.name):
            names.append(node.name)
        elif isinstance(node, ast.ClassDef):
            names.extend(f"{node.name}.{b.name}" for b in node.body
                         if isinstance(b, (ast.FunctionDef, ast.AsyncFunctionDef)) and _is_test_name(b.name))
    return Reconstruction(whole, tuple(names), ())


def reconstruct_test_file(fp: FilePatch) -> Reconstruction:
    """A parsable module holding the test functions/methods a patch adds or changes, each at its
    new-side line numbers (every other line is blank), so ``file:line`` in reports is the real file's.

    Heuristic (only the hunks are known, not the original file):

    1. A new file (``--- /dev/null``) that parses is kept whole.
    2. Otherwise each hunk's new side (context + added lines) is a visible region.  Whether the
       region starts inside a triple-quoted string is guessed from its first triple-quote token
       (:func:`_guess_initial_string`); ``def``/``class`` lines inside strings are ignored.  Every other
       ``def``/``class`` line starts a unit: the decorators just above, the header (to the end of its
       logical line) and the visible body (the following logical lines indented deeper).  A def unit
       is cut back line by line from its end (then without its decorators) until, dedented, it
       parses: this drops a statement cut in half by the end of the hunk.
    3. Kept: ``test*`` functions and methods whose unit holds an added line or a removal.  A method's
       class header is taken from the region when visible, else from the hunk's function context
       (``@@ ... @@ class X(TestCase):``, git's last unindented line above the hunk) and put on the
       free line just above the class's first kept method.  When a hunk starts inside a module-level
       ``def test...`` named by the hunk context, that header is put on a free line above the longest
       parsable window of the visible body that starts at the function's body indentation (so no
       statement is lifted out of an ``if``/``for``/``with`` whose header is not visible); not when
       triple quotes make the start ambiguous.  Top-level ``import`` statements are kept as well.
    4. Every changed line is accounted for: kept in a test, or known to be non-test code (module
       level statements, class attributes, helpers, fixtures, ``setUp``: left out without a note), or
       else reported as a comment ``# specguard-unrecovered: <reason> | <original code>`` on its own
       line (for instance a line inside a method whose ``def`` is above the hunk: its test is unknown).
    5. The assembled module is parsed; a piece that still breaks it is dropped (and reported as in 4).

    Known limits: decorators above the first line of a hunk are not seen (a ``def`` at the very top of
    a hunk may have lost, say, a ``skip`` or ``xfail``); a hunk that starts inside a string literal
    can be mistaken for code when the string holds no triple-quote token in the hunk.
    """
    known: dict[int, str] = {}
    changed: set[int] = set()
    removals: list[tuple[int | None, int | None]] = []
    regions: list[tuple[int, int, str]] = []  # (first line, last line, hunk context)
    for h in fp.hunks:
        prev_new: int | None = None
        pending = False
        first = last = None
        for hl in h.lines:
            if hl.tag == "-":
                pending = True
                continue
            assert hl.new_line is not None
            known[hl.new_line] = hl.text
            if hl.tag == "+":
                changed.add(hl.new_line)
            if pending:
                removals.append((prev_new, hl.new_line))
                pending = False
            prev_new = hl.new_line
            first = hl.new_line if first is None else first
            last = hl.new_line
        if pending:
            removals.append((prev_new, None))
        if first is not None and last is not None:
            if regions and regions[-1][1] + 1 == first:
                regions[-1] = (regions[-1][0], last, regions[-1][2])
            else:
                regions.append((first, last, h.section))
    if not known:
        return Reconstruction("", (), ())
    whole = _whole_new_file(fp, known)
    if whole is not None:
        return whole
    n_lines = max(known)

    # indentation of a module-level function's body in this file (seen in a visible def; else 4)
    body_indent = _body_indent(known, regions)

    pieces: list[_Piece] = []
    containers: dict[str, _Container] = {}
    imports: list[dict[int, str]] = []
    unrecovered: dict[int, str] = {}
    claimed: set[int] = set()   # changed lines kept in a piece, or deliberately left out as non-test code

    def touched(a: int, b: int) -> bool:
        return (any(a <= ln <= b for ln in changed)
                or any(p is not None and q is not None and a <= p and q <= b for p, q in removals))

    def note(a: int, b: int, why: str) -> None:
        for ln in range(a, b + 1):
            if ln in changed and ln not in claimed and not _blank_or_comment(known.get(ln, "")):
                unrecovered.setdefault(ln, why)

    def claim(a: int, b: int) -> None:
        claimed.update(range(a, b + 1))

    for r0, r1, section in regions:
        lines = [known[i] for i in range(r0, r1 + 1)]
        hi = len(lines) - 1
        initial = _guess_initial_string(lines)
        in_string = _starts_in_string(lines, initial)
        units = _region_units(lines, in_string)

        # module-level statements (imports are kept; the rest is not test code)
        q = 0
        while q <= hi:
            s = lines[q]
            if (in_string[q] or _blank_or_comment(s) or _indent(s) != 0 or _DEF_RE.match(s)
                    or s.lstrip().startswith("@")):
                q += 1
                continue
            e = _logical_end(lines, q, hi)
            if e is None:  # runs past the hunk (an unclosed bracket or string): unknown ground
                q += 1
                continue
            claim(r0 + q, r0 + e)
            if re.match(r"(import|from)\s", s) and _parses("\n".join(lines[q:e + 1])):
                imports.append({r0 + x: lines[x] for x in range(q, e + 1)})
            q = e + 1

        # the region's head: lines that belong to code starting above the hunk
        head = hi + 1
        for idx, s in enumerate(lines):
            if in_string[idx] or _blank_or_comment(s):
                continue
            if _indent(s) == 0 or _DEF_RE.match(s) or s.strip().startswith("@"):
                head = idx
                break
        if units:
            head = min(head, min(u.first for u in units))
        if head > 0 and touched(r0, r0 + head - 1):
            sm = _SECTION_DEF_RE.match(section)
            cm = _SECTION_CLASS_RE.match(section)
            method_ctx = sm is not None and sm.group(3).lstrip().startswith(("self", "cls"))
            fn = sm.group(2) if sm else ""
            if sm and not method_ctx and not _is_test_name(fn):
                claim(r0, r0 + head - 1)  # a change inside a module-level helper: not test code
            elif sm and not method_ctx and (initial or any(_TRIPLE_RE.search(x) for x in lines[:head])):
                note(r0, r0 + head - 1, f"the diff hunk may start inside a multi-line string (in {fn})")
            elif sm and not method_ctx:
                header = section.rstrip()
                if not _parses(header + "\n    pass"):
                    header = f"{sm.group(1) or ''}def {fn}(*args, **kwargs):"
                best = _best_window(lines[:head], header, body_indent, r0, changed)
                if best is not None:
                    a, b = best
                    plines = {r0 + a - 1: header, **{r0 + x: lines[x] for x in range(a, b + 1)}}
                    pieces.append(_Piece(fn, plines, r0 + a, r0 + b))
                    claim(r0 + a, r0 + b)
                    note(r0, r0 + head - 1, f"partial statement, or a statement in a block whose header is "
                                            f"above the diff hunk (in {fn})")
                else:
                    note(r0, r0 + head - 1, f"could not cut the visible part of {fn} to parsable code")
            else:
                where = (f"inside a method of class {cm.group(1)}" if cm
                         else f"inside method {fn}" if sm else "inside code")
                note(r0, r0 + head - 1, f"{where} whose start is above the diff hunk, so the test it "
                                        "belongs to is not known")

        # visible functions and methods
        for u in units:
            a0, a1 = r0 + u.first, r0 + u.span
            if u.kind == "class":
                # class-level statements (not inside a method) are not test code
                inner = [r0 + x for v in units if v.parent is u and v.kind == "def" for x in range(v.first, v.span + 1)]
                claimed.update(set(range(a0, a1 + 1)) - set(inner))
                continue
            if u.parent is not None and u.parent.kind == "def":
                continue  # nested in a function: that function decides
            if not _is_test_name(u.name):
                claim(a0, a1)  # a helper, fixture or setUp: not test code
                continue
            if not touched(a0, a1):
                continue
            if not u.ok:
                note(a0, a1, f"could not cut the visible part of {u.name} to parsable code")
                continue
            note(a0, r0 + u.start - 1, f"decorator of {u.name} cut by the diff hunk")
            note(r0 + u.end + 1, a1, f"partial statement at the edge of the diff hunk (in {u.name})")
            plines = {r0 + x: lines[x] for x in range(u.start, u.end + 1)}
            chain: list[_Unit] = []
            v = u.parent
            while v is not None:
                chain.append(v)
                v = v.parent
            chain.reverse()
            if any(c.kind != "class" or not c.ok for c in chain):
                note(a0, a1, f"test {u.name} is nested in code that could not be recovered")
                continue
            top = chain[0].indent if chain else u.indent
            if top == 0:
                if chain:
                    key = "\n".join(lines[c.def_line].strip() for c in chain)
                    clines = {r0 + x: lines[x] for c in chain for x in range(c.start, c.header_end + 1)}
                    cont = containers.get(key)
                    if cont is None or cont.synth_text is not None:
                        containers[key] = _Container(clines)
                    qual = ".".join([c.name for c in chain] + [u.name])
                    pieces.append(_Piece(qual, plines, r0 + u.start, r0 + u.end, key))
                else:
                    pieces.append(_Piece(u.name, plines, r0 + u.start, r0 + u.end))
                claim(r0 + u.start, r0 + u.end)
                continue
            cm = _SECTION_CLASS_RE.match(section)
            if chain or cm is None:
                note(a0, a1, f"the class of {u.name} is above the diff hunk and not named by the hunk context")
                continue
            header = section.rstrip()
            if not _parses(header + "\n    pass"):
                header = f"class {cm.group(1)}:"
            key = section.strip()
            containers.setdefault(key, _Container({}, header))
            pieces.append(_Piece(f"{cm.group(1)}.{u.name}", plines, r0 + u.start, r0 + u.end, key))
            claim(r0 + u.start, r0 + u.end)

        # safety net: a changed line neither kept, nor reported, nor known to be non-test code
        note(r0, r1, "could not tell which test this changed line belongs to")

    def assemble(active: list[_Piece]) -> tuple[dict[int, str], list[_Piece]]:
        out: dict[int, str] = {}
        placed: list[_Piece] = []
        for pc in sorted(active, key=lambda pc: pc.first):
            if any(ln in out for ln in pc.lines):
                continue
            out.update(pc.lines)
            placed.append(pc)
        for key, cont in containers.items():
            members = [pc for pc in placed if pc.container == key]
            if not members:
                continue
            if cont.synth_text is not None:
                hline = min(min(pc.lines) for pc in members) - 1
                if hline >= 1 and hline not in out:
                    out[hline] = cont.synth_text
                    continue
            elif all(out.get(ln, s) == s for ln, s in cont.lines.items()):
                out.update(cont.lines)
                continue
            for pc in members:
                placed.remove(pc)
                for ln in pc.lines:
                    out.pop(ln, None)
        for imp in imports:
            if not any(ln in out for ln in imp):
                out.update(imp)
        return out, placed

    active = list(pieces)
    dropped: list[_Piece] = []
    while True:
        out, placed = assemble(active)
        dropped.extend(pc for pc in active if pc not in placed)
        active = placed
        bad = _syntax_error_line(_render(out, {}, n_lines))
        if bad is None:
            break
        culprit = next((pc for pc in active if min(pc.lines) - 1 <= bad <= pc.last), None)
        if culprit is None:
            culprit = next((pc for pc in reversed(active) if min(pc.lines) <= bad), active[-1] if active else None)
        if culprit is None:  # pragma: no cover - only imports left, and they parse one by one
            imports.clear()
            continue
        active.remove(culprit)
        dropped.append(culprit)
    for pc in dropped:
        claimed.difference_update(pc.lines)
        note(pc.first, pc.last, f"test {pc.name} could not be reassembled into a parsable module")
    text = _render(out, unrecovered, n_lines, known)
    kept = tuple(pc.name for pc in sorted(active, key=lambda pc: pc.first))
    return Reconstruction(text, kept, tuple(sorted(unrecovered.items())))


def _render(out: dict[int, str], unrecovered: dict[int, str], n_lines: int,
            known: dict[int, str] | None = None) -> str:
    """The module text: ``out`` lines at their numbers, blank elsewhere, marker comments for
    ``unrecovered`` lines (``# specguard-unrecovered: <reason> | <original code>``)."""
    rows = [""] * (n_lines + 1)
    for ln, s in out.items():
        if 1 <= ln <= n_lines:
            rows[ln] = s
    for ln, why in unrecovered.items():
        if not (1 <= ln <= n_lines):
            continue
        note = f"{UNRECOVERED_MARKER} {why}"
        code = known.get(ln, "").strip() if known else ""
        if code:
            note += f" | {code}"
        if rows[ln].strip():
            rows[ln] = f"{rows[ln]}  {note}"
        else:
            rows[ln] = note
    body = rows[1:]
    while body and not body[-1].strip():
        body.pop()
    return "\n".join(body) + "\n" if body else ""


# =====================================================================================
# (c) SWE-bench instances
# =====================================================================================

MAX_SKIPPED_NOTES = 200   # skipped tests listed per instance (the rest counted in one more note)
_SWE_CONSUMED = ("instance_id", "problem_statement", "test_patch", "FAIL_TO_PASS", "PASS_TO_PASS")
_SWE_LABELS = ("impossible_type", "original_test_patch", "repo", "base_commit", "version",
               "environment_setup_commit")


def is_swebench_test_file(path: str) -> bool:
    """Test files of a patch: ``test_*.py``, ``*_test.py``, and Django's ``tests.py``/``test.py``."""
    name = path.rsplit("/", 1)[-1]
    return is_test_file(name) or name in ("tests.py", "test.py")


def _same_path(a: str, b: str) -> bool:
    a = a.replace("\\", "/").removeprefix("./")
    b = b.replace("\\", "/").removeprefix("./")
    return a == b or a.endswith("/" + b) or b.endswith("/" + a)


def node_id_in_file(node_id: str, file_path: str, file_text: str = "") -> bool:
    """Whether a FAIL_TO_PASS/PASS_TO_PASS entry names a test of ``file_path``.

    Forms: pytest ``path::Class::test[param]``; Django ``test_x (app.tests.Class)`` or
    ``test_x (app.tests.Class.test_x)``; a bare name ``test_x`` (sympy), matched when ``file_text``
    defines it."""
    nid = node_id.strip()
    if "::" in nid:
        return _same_path(nid.split("::", 1)[0], file_path)
    m = re.fullmatch(r"(\w+)\s+\(([\w.]+)\)", nid)
    if m:
        name, parts = m.group(1), m.group(2).split(".")
        mod = file_path[:-3] if file_path.endswith(".py") else file_path
        mod = mod.replace("/", ".")
        cands = [".".join(parts[:-1])]
        if len(parts) > 2 and parts[-1] == name:
            cands.append(".".join(parts[:-2]))
        return any(c and (mod == c or mod.endswith("." + c)) for c in cands)
    name = re.sub(r"\[.*\]$", "", nid).strip()
    if not re.fullmatch(r"\w+", name):
        return False
    return re.search(rf"^[ \t]*(?:async[ \t]+)?def[ \t]+{re.escape(name)}\b", file_text, re.M) is not None


def _node_list(r: dict, key: str, display: str, pointer: str) -> list[str]:
    v = r.get(key)
    if v is None:
        return []
    if isinstance(v, str):
        v = _json_loads(v, display) if v.strip() else []
    if not isinstance(v, list) or not all(isinstance(x, str) for x in v):
        raise InputError(f"{_ptr(pointer, key)}: must be a list of test ids (or a JSON string of one)",
                         path=display, hint='e.g. ["tests/test_x.py::test_y"]')
    return v


def _swe_id(r: Any) -> str | None:
    return r.get("instance_id") if isinstance(r, dict) and isinstance(r.get("instance_id"), str) else None


def _test_defs(text: str) -> list[tuple[int, str]]:
    """(line, pytest name) of the test functions a module defines at top level or in ``Test*`` /
    ``*Test*`` classes (parsed only); [] when it does not parse."""
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            tree = ast.parse(text)
    except (SyntaxError, ValueError, RecursionError, MemoryError):
        return []
    out: list[tuple[int, str]] = []

    def walk(body, prefix: str) -> None:
        for n in body:
            if isinstance(n, (ast.FunctionDef, ast.AsyncFunctionDef)) and n.name.startswith("test"):
                out.append((n.lineno, prefix + n.name))
            elif isinstance(n, ast.ClassDef) and "test" in n.name.lower():
                walk(n.body, f"{prefix}{n.name}::")
    walk(tree.body, "")
    return out


def _selected(name: str, path: str, node_ids: Sequence[str]) -> bool:
    """Whether the test ``name`` (pytest's ``Class::test`` or ``test``) of ``path`` is one of the
    FAIL_TO_PASS/PASS_TO_PASS ids (the test formalizer's own reading of those ids)."""
    from specguard.formalize.tests import (_same_file, _selectors)  # noqa: PLC0415 - formalize_tests imports this module
    bare = name.rsplit("::", 1)[-1]
    return any(_same_file(path, sel.path) and (sel.name == name or sel.name == bare)
               for sel in _selectors(node_ids))


def _swebench_skipped(fp: "FilePatch", why: str) -> str:
    return f"{fp.path}: {why}: not read (skipped)"


def _swebench_from_doc(doc: _JsonDoc, instance_id: str | None) -> Task:
    display = doc.display
    recs = [(p, r) for p, r in doc.records]
    ids = [_swe_id(r) or "?" for _, r in recs]
    if instance_id is None:
        if len(recs) != 1:
            raise InputError(f"file holds {len(recs)} instances; say which one", path=display,
                             hint=f"pass instance_id, e.g. one of: {_few(ids)}")
        prefix, r = recs[0]
    else:
        found = [(p, r) for p, r in recs if _swe_id(r) == instance_id]
        if not found:
            raise InputError(f"no instance with id {instance_id!r}", path=display,
                             hint=f"available ids: {_few(ids)}")
        if len(found) > 1:
            raise InputError(f"instance id {instance_id!r} appears {len(found)} times", path=display,
                             hint="keep one record per instance_id")
        prefix, r = found[0]
    if not isinstance(r, dict):
        raise InputError(f"{prefix or 'top level'}: an instance must be a JSON object", path=display,
                         hint="each instance is {instance_id, problem_statement, test_patch, ...}")
    iid = _swe_id(r) or instance_id or os.path.splitext(os.path.basename(display))[0]
    for key in ("problem_statement", "test_patch"):
        if not isinstance(r.get(key), str):
            raise InputError(f"{_ptr(prefix, key)}: instance {iid} has no {key} text", path=display,
                             hint=f"add the {key} field (a string)")
    node_ids = list(dict.fromkeys(_node_list(r, "FAIL_TO_PASS", display, prefix)
                                  + _node_list(r, "PASS_TO_PASS", display, prefix)))
    patches = parse_unified_diff(r["test_patch"], source=f"{display}#{iid}.test_patch")
    sources: list[TestSource] = []
    # every test of the patch is read or listed here (file:line), never dropped silently
    skipped: list[str] = []
    not_listed = "not among the instance's FAIL_TO_PASS/PASS_TO_PASS tests (not known to pass on the " \
                 "reference solution)"
    for fp in patches:
        if fp.is_deleted:
            if is_swebench_test_file(fp.path):
                skipped.append(_swebench_skipped(fp, "a test file the patch deletes"))
            continue
        if fp.binary:
            skipped.append(_swebench_skipped(fp, "a binary file of the test patch"))
            continue
        if not is_swebench_test_file(fp.path):
            if fp.path.endswith(".py"):
                skipped.append(_swebench_skipped(fp, "a Python file of the test patch that is not a test file "
                                                     "(test_*.py, *_test.py, tests.py, test.py)"))
            continue
        rec = reconstruct_test_file(fp)
        # the file's visible code, and the hunk contexts (git names the enclosing def there)
        known = "\n".join([hl.text for h in fp.hunks for hl in h.lines if hl.tag != "-"]
                          + [h.section for h in fp.hunks])
        only = tuple(n for n in node_ids if node_id_in_file(n, fp.path, known))
        if node_ids and not only:
            # the instance names the tests that count, and none of them is in this file: its
            # other tests are not known to pass on the reference solution, so none counts
            defs = _test_defs(rec.text)
            if defs:
                skipped.extend(f"{fp.path}:{ln}: test {name} is {not_listed}: not read (skipped)"
                               for ln, name in defs)
            else:
                skipped.append(_swebench_skipped(fp, f"a test file of the patch with none of the tests {not_listed}"))
            continue
        if only:
            skipped.extend(f"{fp.path}:{ln}: test {name} is {not_listed}: not read (skipped)"
                           for ln, name in _test_defs(rec.text) if not _selected(name, fp.path, only))
        sources.append(TestSource(kind="python", path=fp.path, text=rec.text, only_tests=only))
    labels = {k: (r[k] if isinstance(r[k], str) else json.dumps(r[k]))
              for k in _SWE_LABELS if k in r and r[k] is not None}
    return Task(id=iid, description=r["problem_statement"], description_is_report=True,
                description_path=f"{display}#{iid}.problem_statement",
                tests=tuple(sources), entry_point=None,
                inputs=(InputFile(path=display, sha256=doc.sha256, role="instance"),), labels=labels,
                notes=tuple(skipped[:MAX_SKIPPED_NOTES])
                + ((f"... and {len(skipped) - MAX_SKIPPED_NOTES} more skipped test(s) of the patch",)
                   if len(skipped) > MAX_SKIPPED_NOTES else ()))


def load_swebench(path: str, instance_id: str | None = None) -> Task:
    """A SWE-bench-style instance (JSON object, JSON list, or JSONL): the description is
    ``problem_statement``; the tests are the test files of ``test_patch``, reconstructed (see
    :func:`reconstruct_test_file`) with ``only_tests`` = the FAIL_TO_PASS + PASS_TO_PASS ids of
    that file.  ImpossibleBench fields (``impossible_type``, ``original_test_patch``) go to labels."""
    return _swebench_from_doc(_load_json_doc(path), instance_id)


def require_readable_tests(task: Task) -> None:
    """Raise an InputError (exit 3) when no test file of ``task`` can be read at all: every one
    undecodable or a syntax error.  Then there is nothing to check, and an 'inconclusive' would
    hide the input error.  (Files are parsed only, never compiled or run.)"""
    py = [t for t in task.tests if t.kind == "python"]
    if not py or len(py) != len(task.tests):
        return
    why = []
    for t in py:
        if t.text is None:
            why.append(f"{t.path}: not UTF-8 text")
            continue
        try:
            with warnings.catch_warnings():
                warnings.simplefilter("ignore")
                ast.parse(t.text, filename=t.path)
        except SyntaxError as e:
            why.append(f"{t.path}:{e.lineno or 1}: syntax error: {e.msg}")
        except (ValueError, RecursionError, MemoryError) as e:
            why.append(f"{t.path}: cannot be parsed: {type(e).__name__}")
        else:
            return
    raise InputError("no test file can be read: " + "; ".join(why[:5]) + (" ..." if len(why) > 5 else ""),
                     hint="fix the files (they must be UTF-8 Python that parses), or pass other tests")


# =====================================================================================
# (d) task folders
# =====================================================================================

def _toml_key_line(text: str, key: str) -> int | None:
    pat = re.compile(rf"^[ \t]*(?:{re.escape(key)}|\"{re.escape(key)}\"|'{re.escape(key)}')[ \t]*(?:=|\.)"
                     rf"|^[ \t]*\[+[ \t]*{re.escape(key)}[ \t]*[\].]", re.M)
    m = pat.search(text)
    return text.count("\n", 0, m.start()) + 1 if m else None


def _conftests(sources: Sequence[TestSource], folder: str, root: str) -> tuple[list[TestSource], list[InputFile]]:
    """The ``conftest.py`` files pytest loads for the test files of a task folder: the one beside
    each test file and those above it, up to the task folder itself (never outside it; only regular
    files whose links stay inside).  They are read as the fixtures they define, never as tests; so
    are pytest's configuration files there with a pytest section (``pytest.ini`` & co,
    :mod:`specguard.python.pytestcfg`), read for whether they change pytest's collection."""
    seen = {os.path.realpath(s.path) for s in sources}
    top = os.path.normpath(folder)
    found: list[str] = []
    for s in sources:
        here = os.path.normpath(os.path.dirname(s.path))
        while True:
            for name in ("conftest.py", *pytestcfg.SECTIONS):
                cand = os.path.join(here, name)
                if _inside(here, root) and cand not in found and os.path.realpath(cand) not in seen:
                    try:
                        regular = stat.S_ISREG(os.stat(cand).st_mode)
                    except (OSError, ValueError):
                        regular = False
                    if regular and _inside(cand, root):
                        found.append(cand)
                        seen.add(os.path.realpath(cand))
            up = os.path.normpath(os.path.dirname(here) or ".")
            if here == top or up == here or not _inside(up, root):
                break
            here = up
    out: list[TestSource] = []
    inputs: list[InputFile] = []
    for cand in sorted(found):
        raw = _read_bytes(cand, what="conftest file")
        try:
            text: str | None = _decode(raw, cand)
        except InputError:
            text = None
        if pytestcfg.is_config(cand) and not _config_matters(cand, text, sources):
            continue          # nothing pytest reads from it changes how these tests run: not an input
        out.append(TestSource(kind="python", path=cand, text=text))
        inputs.append(InputFile(path=cand, sha256=_sha256(raw), role="tests"))
    return out, inputs


def _config_matters(cand: str, text: str | None, sources: Sequence[TestSource]) -> bool:
    """Whether the pytest configuration file ``cand`` changes how one of the test files below it is
    collected or run (:func:`specguard.python.pytestcfg.config_problem`): then it is read with the
    tests (which it makes unread) and is an input; a repository's usual settings are neither."""
    here = os.path.abspath(os.path.dirname(cand) or ".")
    below = [s for s in sources if os.path.abspath(s.path).startswith(here.rstrip(os.sep) + os.sep)]
    return text is not None and any(pytestcfg.config_problem(cand, text, s.path) for s in below)


def load_task_dir(path: str) -> Task:
    """A task folder holding ``task.toml``::

        id = "my-task"              # optional, default: the folder's name
        entry_point = "f"           # optional
        description = "README.md"   # a file in the folder (or inline: description_text = "...")
        tests = ["tests/test_f.py"] # files or folders, relative to the folder
        [labels]                    # optional ground truth, e.g. impossible_type = "conflicting"

    The folder is untrusted: ``task.toml``, the description and every test path must resolve (links
    followed) inside it, or an InputError names the key and its line."""
    if not os.path.isdir(path):
        if os.path.exists(path):
            raise InputError("not a folder", path=path, hint="pass the folder that holds task.toml")
        raise InputError("task folder not found", path=path, hint="check the path")
    toml_path = os.path.join(path, "task.toml")
    if not os.path.lexists(toml_path):
        raise InputError("folder has no task.toml", path=path,
                         hint='add a task.toml: description = "README.md" and tests = ["tests"]')
    root = os.path.realpath(path)
    if not _inside(toml_path, root):
        raise InputError("task.toml is a link to a file outside the task folder", path=toml_path,
                         hint="a task folder's files must be inside it; copy the file in")
    text, raw = _read_text(toml_path, what="task file")
    try:
        data = tomllib.loads(text)
    except tomllib.TOMLDecodeError as e:
        msg = str(e)
        m = re.search(r"\(at line (\d+), column (\d+)\)", msg)
        line = int(m.group(1)) if m else (text.count("\n") + 1 if "end of document" in msg else None)
        msg = re.sub(r"\s*\(at (?:line \d+, column \d+|end of document)\)", "", msg)
        raise InputError(f"TOML syntax error: {msg}", path=toml_path, line=line,
                         hint="fix the TOML syntax (strings need quotes, lists use [ ... ])") from None
    except RecursionError:
        raise InputError("TOML nested too deeply (arrays or inline tables inside each other)", path=toml_path,
                         hint="a task.toml needs a few levels of nesting at most") from None

    def err(msg: str, key: str, hint: str) -> InputError:
        return InputError(msg, path=toml_path, line=_toml_key_line(text, key), hint=hint)

    for key in data:
        if key not in TASK_TOML_KEYS:
            raise err(f"unknown key {key!r}", key, f"valid keys: {', '.join(TASK_TOML_KEYS)}")
    for key in ("id", "entry_point", "description", "description_text"):
        if key in data and (not isinstance(data[key], str) or not data[key].strip()):
            raise err(f"{key!r} must be a non-empty string", key, f'write {key} = "..."')
    if "description" in data and "description_text" in data:
        raise err("give either 'description' (a file) or 'description_text' (inline), not both",
                  "description_text", "remove one of the two keys")
    if "description" not in data and "description_text" not in data:
        raise InputError("no description", path=toml_path,
                         hint='add description = "README.md" (a file in the folder) or description_text = "..."')
    tests = data.get("tests")
    if tests is None:
        raise InputError("no tests", path=toml_path, hint='add tests = ["tests"] (files or folders in the task folder)')
    if isinstance(tests, str):
        tests = [tests]
    if not isinstance(tests, list) or not tests or not all(isinstance(t, str) and t for t in tests):
        raise err("'tests' must be a non-empty list of paths", "tests", 'write tests = ["tests/test_f.py"]')
    # every path task.toml names is read only if it resolves (links followed) inside the task folder
    for key, names in (("description", [data["description"]] if "description" in data else []), ("tests", tests)):
        for given in names:
            if "\x00" in given:
                raise err(f"{key!r} path {given!r} contains a NUL character", key, "write a plain relative path")
            if not _inside(os.path.join(path, given), root):
                raise err(f"{key!r} names {given!r}, which is outside the task folder {path}", key,
                          "task.toml may only name files and folders inside its own folder (a relative path, "
                          "no `..` or absolute path leaving it, no link out of it); pass other files on the "
                          "command line: specguard check --description FILE --tests FILE")
    labels: dict[str, str] = {}
    if "labels" in data:
        if not isinstance(data["labels"], dict):
            raise err("'labels' must be a table", "labels", 'write [labels] then key = "value" lines')
        for k, v in data["labels"].items():
            if isinstance(v, bool):
                labels[k] = "true" if v else "false"
            elif isinstance(v, (str, int)):
                labels[k] = str(v)
            else:
                raise err(f"label {k!r} must be a string, integer or boolean", "labels", f'write {k} = "..."')

    inputs = [InputFile(path=toml_path, sha256=_sha256(raw), role="task")]
    if "description" in data:
        desc_display = os.path.join(path, data["description"])
        desc_text, desc_input = _description_file(desc_display)
        inputs.append(desc_input)
        desc_path, offset = desc_display, 0
    else:
        desc_text = data["description_text"]
        desc_path = toml_path
        offset = 0
        kl = _toml_key_line(text, "description_text")
        if kl is not None:
            after = text.split("\n")[kl - 1].split("=", 1)[1].lstrip()
            multiline_newline = after.startswith(('"""', "'''")) and not after[3:].strip()
            offset = kl if multiline_newline else kl - 1
        inputs.append(InputFile(path=f"{toml_path}#description_text",
                                sha256=_sha256(desc_text.encode("utf-8")), role="description"))
    sources, test_inputs = _load_test_paths(tests, base=path, root=root)
    conf_sources, conf_inputs = _conftests(sources, path, root)
    sources += conf_sources
    inputs.extend(test_inputs + conf_inputs)
    task_id = data.get("id") or os.path.basename(os.path.normpath(os.path.abspath(path)))
    return Task(id=task_id, description=desc_text, description_path=desc_path, description_line_offset=offset,
                tests=tuple(sources), entry_point=data.get("entry_point"), inputs=tuple(inputs), labels=labels)


# =====================================================================================
# (e) dispatch
# =====================================================================================

def load_any(path: str, **kw: Any) -> Task:
    """Load whatever ``path`` is: a task folder (``task.toml``), a ``task.toml`` file, or a JSON/JSONL
    file of LiveCodeBench tasks (``tasks`` / ``original_tests`` ...) or SWE-bench instances
    (``problem_statement``).  Keywords: ``task_id`` and ``suite`` (LiveCodeBench), ``instance_id``
    (SWE-bench; ``task_id`` is accepted too)."""
    allowed = {"task_id", "suite", "instance_id"}
    unknown = set(kw) - allowed
    if unknown:
        raise TypeError(f"load_any() got unexpected keyword(s) {', '.join(sorted(unknown))}; "
                        f"accepted: {', '.join(sorted(allowed))}")
    if os.path.isdir(path):
        if os.path.exists(os.path.join(path, "task.toml")):
            return load_task_dir(path)
        raise InputError("folder is not a task folder (no task.toml)", path=path,
                         hint='add a task.toml, or pass the description and tests separately')
    if not os.path.exists(path):
        raise InputError("input not found", path=path, hint="check the path")
    low = path.lower()
    if os.path.basename(low) == "task.toml":
        return load_task_dir(os.path.dirname(path) or ".")
    if low.endswith((".json", ".jsonl")):
        doc = _load_json_doc(path)
        sample = next((r for _, r in doc.records), None)
        if isinstance(sample, dict) and "problem_statement" in sample:
            return _swebench_from_doc(doc, kw.get("instance_id") or kw.get("task_id"))
        if _is_lcb_record(sample) or (isinstance(doc.top, dict) and doc.top.get("tasks") == []):
            return _lcb_from_doc(doc, kw.get("task_id"), kw.get("suite", "auto"))
        raise InputError("JSON format not recognised", path=path,
                         hint="expected LiveCodeBench tasks ({tasks: [...]} with original_tests/modified_tests) "
                              "or a SWE-bench instance (problem_statement + test_patch)")
    raise InputError("input format not recognised", path=path,
                     hint="pass a task folder with task.toml, a LiveCodeBench/SWE-bench .json/.jsonl file, "
                          "or a description and test files separately (load_from_parts / --description --tests)")
