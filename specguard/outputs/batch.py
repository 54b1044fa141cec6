"""``specguard batch``: screen a whole task set in parallel, resumably, without losing a row.

Inputs (one or more, mixed freely):

* a JSONL / JSON file of SWE-bench-style instances (``problem_statement`` + ``test_patch``;
  ImpossibleBench fields such as ``impossible_type`` become labels);
* a LiveCodeBench-style JSON file (every task, once per requested ``--suite``);
* a folder of task folders (each with a ``task.toml``; searched recursively, a task folder is not
  searched further), or a single task folder.

Output folder ``DIR``:

* ``DIR/results.jsonl`` - one :class:`BatchRow` per task (JSON Schema ``schemas/batch-row.schema.json``),
  in completion order; ``index`` gives the input order;
* ``DIR/bundles/<safe key>/`` - each task's bundle (:func:`specguard.outputs.bundle.write_bundle`);
* ``DIR/batch.json`` - :class:`BatchMeta`: the inputs (path, sha256), the options, one entry per run;
* ``DIR/results.sarif`` - the CI export (:mod:`specguard.outputs.report`), rewritten at the end of each run.

Loss-free and resumable (kill it at any moment, even with ``kill -9``, and run the same command again):

* the parent process is the only writer of ``results.jsonl``; it appends one complete line per
  finished task, then flushes and ``fsync``\\ s; workers only write their task's bundle (atomically);
* on start, existing rows are read; a truncated last line (a write cut short) is cut off the file;
  every key already present is skipped, so no task is redone and no row is duplicated;
* ``batch.json`` pins the inputs: a rerun over a different input (path or content) or with other
  suites is refused (``restart=True`` discards the earlier results);
* a task that raises, kills its worker, or runs past ``task_timeout`` (its worker and the worker's
  Lean processes are killed) becomes an *error row* (verdict ``inconclusive``, evidence ``none``,
  ``error`` set) and the batch goes on; ``retry_errors=True`` redoes those rows;
* workers die with the parent (``PR_SET_PDEATHSIG`` on Linux), so a killed batch leaves no worker
  writing into ``DIR``; an advisory lock refuses a second batch running on the same ``DIR``.

The library prints nothing: :func:`run_batch` reports progress through a callback, and
:class:`ProgressPrinter` is the display the CLI plugs in.
"""

from __future__ import annotations

import datetime as _dt
import hashlib
import os
import re
import stat
import sys
import time
import traceback
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Callable, Sequence, TextIO

from pydantic import ValidationError

from specguard import __version__
from specguard.errors import BatchError, SpecGuardError
from specguard.outputs.pool import Progress, run_pool
from specguard.outputs.report import write_sarif as _write_sarif
from specguard.outputs.results import Evidence, Result, Verdict
from specguard.outputs.rows import (BUNDLES, LOCK, MAX_LABEL_CHARS, META, RESULTS, SARIF, BatchMeta, BatchOptions,
                                    BatchRow, ConflictItemRef, InputDigest, Job, RowWriter, RunInfo, TaskRef,
                                    atomic_write, exit_code, read_rows, recover_rows, verdict_counts)


# =====================================================================================
# enumerating tasks
# =====================================================================================



def safe_name(key: str) -> str:
    """A folder name for ``key``: readable, and unique (a hash is added whenever characters were
    replaced or the key is long)."""
    safe = re.sub(r"[^A-Za-z0-9_.-]+", "_", key).strip(".") or "task"
    if safe == key and len(key) <= 80:
        return safe
    return f"{safe[:64]}-{hashlib.sha256(key.encode('utf-8')).hexdigest()[:10]}"


def _skip_dir(name: str) -> bool:
    return name.startswith(".") or name == "__pycache__"


def _task_dirs(root: Path, exclude: Path | None) -> list[Path]:
    found: list[Path] = []
    for cur, dirs, _files in os.walk(root):
        here = Path(cur)
        if exclude is not None and _same_or_inside(here, exclude):
            dirs[:] = []
            continue
        if (here / "task.toml").is_file():
            found.append(here)
            dirs[:] = []
            continue
        dirs[:] = sorted(d for d in dirs if not _skip_dir(d))
    return sorted(found, key=lambda p: p.relative_to(root).as_posix())


def _same_or_inside(p: Path, folder: Path) -> bool:
    try:
        p.resolve().relative_to(folder.resolve())
        return True
    except ValueError:
        return False


def _json_kind(path: Path) -> str:
    from specguard import load
    doc = load._load_json_doc(str(path))  # noqa: SLF001 - one parse, in the package
    sample = next((r for _, r in doc.records if isinstance(r, dict)), None)
    if isinstance(sample, dict) and "problem_statement" in sample:
        return "swebench"
    if isinstance(sample, dict) and any(k in sample for k in ("original_tests", "modified_tests", "corrupted_test")):
        return "lcb"
    if isinstance(doc.top, dict) and doc.top.get("tasks") == []:
        return "lcb"
    raise BatchError(f"{path}: JSON format not recognised",
                     hint="expected SWE-bench instances (problem_statement + test_patch) or LiveCodeBench "
                          "tasks ({tasks: [...]} with original_tests / modified_tests)")


def input_kind(path: str) -> str:
    """'tasks-dir', 'task-dir', 'lcb' or 'swebench' (BatchError when it is none of them)."""
    p = Path(path)
    if p.is_dir():
        return "task-dir" if (p / "task.toml").is_file() else "tasks-dir"
    if not p.exists():
        raise BatchError(f"input not found: {path}", hint="check the path")
    if p.suffix.lower() in (".json", ".jsonl"):
        return _json_kind(p)
    raise BatchError(f"{path}: not a batch input",
                     hint="pass a JSONL/JSON of SWE-bench instances, a LiveCodeBench JSON file, "
                          "or a folder of task folders (each with task.toml)")


def iter_swebench_ids(path: str) -> list[tuple[str, str | None]]:
    """``(record pointer, instance_id or None)`` for every record of a SWE-bench JSON/JSONL file."""
    from specguard import load
    doc = load._load_json_doc(path)  # noqa: SLF001
    return [(p, r.get("instance_id") if isinstance(r, dict) and isinstance(r.get("instance_id"), str) else None)
            for p, r in doc.records]


def _lcb_ids(path: str) -> list[tuple[str, str | None]]:
    from specguard import load
    doc = load._load_json_doc(path)  # noqa: SLF001
    return [(p, r.get("task_id") if isinstance(r, dict) and isinstance(r.get("task_id"), str) else None)
            for p, r in doc.records]


def _unique_stems(inputs: Sequence[str]) -> list[str]:
    out: list[str] = []
    for s in inputs:
        stem = Path(s.rstrip("/\\")).stem or "input"
        base, n = stem, 2
        while stem in out:
            stem, n = f"{base}-{n}", n + 1
        out.append(stem)
    return out


def enumerate_jobs(inputs: Sequence[str], suites: Sequence[str] = ("auto",), limit: int | None = None,
                   exclude: Path | None = None) -> list[Job]:
    """Every task of the inputs, in input order, each with a unique key.

    Keys: the task id (LiveCodeBench ``task_id``, SWE-bench ``instance_id``, or the task folder's path
    relative to the input folder); ``@suite`` is added when several suites are requested, and
    ``<input stem>/`` in front when several inputs are given.  A record without an id is keyed by its
    pointer (it becomes an error row).  ``limit``: the first N tasks of each input.  ``exclude``: a
    folder never searched for tasks (the batch's own output folder)."""
    suites = tuple(suites) or ("auto",)
    stems = _unique_stems(inputs)
    jobs: list[Job] = []
    seen: set[str] = set()

    def add(key: str, ref: TaskRef) -> None:
        k, n = key, 2
        while k in seen:
            k, n = f"{key}#{n}", n + 1
        seen.add(k)
        jobs.append(Job(k, len(jobs), ref))

    for given, stem in zip(inputs, stems):
        kind = input_kind(given)
        prefix = f"{stem}/" if len(inputs) > 1 else ""
        if kind == "task-dir":
            add(prefix + (Path(given).resolve().name or "task"), TaskRef(kind="task-dir", path=given))
        elif kind == "tasks-dir":
            dirs = _task_dirs(Path(given), exclude)[:limit]
            for d in dirs:
                rel = d.relative_to(given).as_posix()
                add(prefix + rel, TaskRef(kind="task-dir", path=str(d)))
        elif kind == "lcb":
            recs = _lcb_ids(given)[:limit]
            for suite in suites:
                for ptr, tid in recs:
                    key = (tid or ptr) + (f"@{suite}" if len(suites) > 1 else "")
                    add(prefix + key, TaskRef(kind="lcb", path=given, id=tid, suite=suite, pointer=ptr))
        else:
            for ptr, iid in iter_swebench_ids(given)[:limit]:
                add(prefix + (iid or ptr), TaskRef(kind="swebench", path=given, id=iid, pointer=ptr))
    return jobs


def _hash_input(path: str, kind: str, exclude: Path | None) -> str:
    h = hashlib.sha256()
    p = Path(path)
    if p.is_file():
        with open(p, "rb") as f:
            for chunk in iter(lambda: f.read(1 << 20), b""):
                h.update(chunk)
        return h.hexdigest()
    for cur, dirs, files in os.walk(p):
        here = Path(cur)
        if exclude is not None and _same_or_inside(here, exclude):
            dirs[:] = []
            continue
        dirs[:] = sorted(d for d in dirs if not _skip_dir(d))
        for name in sorted(files):
            if name.startswith(".") or name.endswith((".pyc", ".pyo")):
                continue
            fp = here / name
            try:  # a link is hashed by its target's name, never followed (it may lead to /dev/zero);
                st = fp.lstat()  # a pipe, device or socket is skipped (reading it could block forever)
                if stat.S_ISLNK(st.st_mode):
                    data = b"link:" + os.fsencode(os.readlink(fp))
                elif stat.S_ISREG(st.st_mode):
                    data = fp.read_bytes()
                else:
                    continue
            except OSError:
                continue
            h.update(fp.relative_to(p).as_posix().encode("utf-8") + b"\0")
            h.update(hashlib.sha256(data).digest())
    return h.hexdigest()


# =====================================================================================
# running one task (in a worker process)
# =====================================================================================

@dataclass(frozen=True)
class _WorkerConfig:
    out_dir: str
    timeout: float
    memory_mb: int
    run: int
    lean_version: str | None
    lean_commit: str | None
    model: Any = None          # llm.ModelSettings, or None: no model path
    samples: int = 1
    min_agree: int = 1
    judge: bool = True
    classify: bool = True
    spec: str | None = None    # --spec: a spec file applied to every task
    spec_budget: int | None = None
    context: tuple = ()        # --context: (name, text) files the spec agent may read


_DOC_CACHE: dict[str, Any] = {}


def _cached_doc(path: str):
    from specguard import load
    key = os.path.abspath(path)
    doc = _DOC_CACHE.get(key)
    if doc is None:
        doc = load._load_json_doc(path)  # noqa: SLF001 - parsed once per worker, not once per task
        _DOC_CACHE.clear()
        _DOC_CACHE[key] = doc
    return doc


def load_ref(ref: TaskRef):
    """Load the task a :class:`TaskRef` points to."""
    from specguard import load
    if ref.kind == "task-dir":
        return load.load_task_dir(ref.path)
    if ref.id is None:
        raise SpecGuardError(f"{ref.path}: record {ref.pointer} has no "
                             f"{'task_id' if ref.kind == 'lcb' else 'instance_id'}",
                             hint="give every record a unique id")
    doc = _cached_doc(ref.path)
    if ref.kind == "lcb":
        return load._lcb_from_doc(doc, ref.id, ref.suite or "auto")  # noqa: SLF001
    return load._swebench_from_doc(doc, ref.id)  # noqa: SLF001


def _now() -> str:
    return _dt.datetime.now(_dt.timezone.utc).isoformat(timespec="milliseconds").replace("+00:00", "Z")


def _short_labels(labels: dict[str, str]) -> dict[str, str]:
    return {k: v for k, v in labels.items() if isinstance(v, str) and len(v) <= MAX_LABEL_CHARS}


def row_from_result(job: Job, r: Result, *, seconds: float, bundle: str | None, run: int) -> BatchRow:
    counts: dict[str, int] = {}
    for t in r.tests:
        counts[t.status] = counts.get(t.status, 0) + 1
    items = tuple(ConflictItemRef(source=i.source, id=i.id, loc=i.loc, statement=i.statement)
                  for i in (r.conflict.items if r.conflict else ()))
    return BatchRow(key=job.key, index=job.index, task_id=r.task_id, input=job.ref, verdict=r.verdict,
                    evidence=r.evidence, reason=r.reason, conflict_kind=r.conflict.kind if r.conflict else None,
                    conflict_items=items, tests=counts,
                    overspecified=sum(1 for t in r.tests if t.finding == "over-specified"),
                    unsupported=len(r.unsupported), seconds=round(seconds, 4), bundle=bundle,
                    labels=_short_labels(r.labels), specguard_version=r.specguard_version,
                    lean_version=r.runtime.version if r.runtime else None,
                    lean_commit=r.runtime.commit if r.runtime else None, run=run, finished_at=_now(),
                    cost_usd=r.model.cost_usd if r.model else None, coverage=r.coverage,
                    inconclusive_kind=r.inconclusive_kind)


def error_row(job: Job, error: str, *, seconds: float, run: int, lean_version: str | None = None,
              lean_commit: str | None = None, task_id: str | None = None,
              labels: dict[str, str] | None = None) -> BatchRow:
    """The row of a task that could not be checked (crash, timeout, unreadable input)."""
    first = error.strip().splitlines()[0] if error.strip() else "unknown error"
    return BatchRow(key=job.key, index=job.index, task_id=task_id or job.ref.id or job.key, input=job.ref,
                    verdict=Verdict.inconclusive, evidence=Evidence.none, reason=f"error: {first}",
                    seconds=round(seconds, 4), labels=_short_labels(labels or {}), error=error,
                    lean_version=lean_version, lean_commit=lean_commit, run=run, finished_at=_now())


def _ref_labels(ref: TaskRef) -> dict[str, str]:
    """Labels known without loading the task (so that error rows still score)."""
    if ref.kind == "lcb":
        try:
            doc = _cached_doc(ref.path)
            rec = next((r for p, r in doc.records if p == ref.pointer), None)
        except Exception:  # noqa: BLE001 - best effort for an error row
            rec = None
        out: dict[str, str] = {}
        if ref.suite and ref.suite != "auto":
            out["suite"] = ref.suite
        if isinstance(rec, dict) and isinstance(rec.get("impossible_type"), str):
            out["impossible_type"] = rec["impossible_type"]
        if ref.suite == "original":
            out["clean"] = "true"
        return out
    return {}


def run_job(job: Job, cfg: _WorkerConfig) -> BatchRow:
    """Load, check and bundle one task; every failure becomes an error row."""
    from specguard.outputs.bundle import with_spec, write_bundle
    from specguard.check import Options, check_task
    t0 = time.monotonic()
    task = None
    try:
        task = load_ref(job.ref)
        from specguard.load import require_readable_tests
        require_readable_tests(task)   # an error row, as `check` exits 3
        opts = Options(timeout=cfg.timeout, memory_mb=cfg.memory_mb, model=cfg.model, samples=cfg.samples,
                       min_agree=cfg.min_agree, judge=cfg.judge, classify=cfg.classify, context=cfg.context)
        if cfg.spec is not None:
            from specguard.formalize import speclang
            opts.spec = speclang.load_spec(cfg.spec)
            task = with_spec(task, cfg.spec)
            if cfg.spec_budget:
                opts.spec_budget = cfg.spec_budget
        b = check_task(task, opts)
        rel = f"{BUNDLES}/{safe_name(job.key)}"
        write_bundle(Path(cfg.out_dir) / rel, task, b)
        return row_from_result(job, b.result, seconds=time.monotonic() - t0, bundle=rel, run=cfg.run)
    except Exception as e:  # noqa: BLE001 - recorded as an error row; the batch goes on
        if isinstance(e, SpecGuardError):
            msg = f"{type(e).__name__}: {e}"
        else:
            tb = traceback.format_exc().strip().splitlines()
            msg = f"{type(e).__name__}: {e}\n" + "\n".join(tb[-6:])
        labels = dict(task.labels) if task is not None else _ref_labels(job.ref)
        return error_row(job, msg, seconds=time.monotonic() - t0, run=cfg.run, lean_version=cfg.lean_version,
                         lean_commit=cfg.lean_commit, task_id=task.id if task is not None else None, labels=labels)


# =====================================================================================
# the batch
# =====================================================================================

@dataclass
class BatchSummary:
    out_dir: Path
    total: int
    skipped: int
    done: int
    counts: dict[str, int]              # verdict -> n over every row of the batch
    evidence: dict[str, int]            # "verdict/evidence" -> n
    errors: int
    seconds: float
    rows: list[BatchRow]
    run: int
    sarif: Path | None = None

    @property
    def exit_code(self) -> int:
        """See :func:`exit_code`: conflict 1 > error 3 > inconclusive 2 > no conflict 0."""
        return exit_code(self.rows)

    def to_json(self) -> dict:
        return {"out": str(self.out_dir), "tasks": self.total, "skipped": self.skipped, "done": self.done,
                "run": self.run, "verdicts": self.counts, "verdict_evidence": self.evidence,
                "errors": self.errors, "seconds": round(self.seconds, 3),
                "results": str(self.out_dir / RESULTS), "sarif": str(self.sarif) if self.sarif else None,
                "exit_code": self.exit_code}



class _DirLock:
    """An advisory lock on the batch folder (released by the OS when the process dies)."""

    def __init__(self, out_dir: Path) -> None:
        self.path = out_dir / LOCK
        self._fd: int | None = None

    def __enter__(self) -> "_DirLock":
        import fcntl
        while True:
            fd = os.open(self.path, os.O_RDWR | os.O_CREAT, 0o644)
            try:
                fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
            except OSError:
                try:
                    other = os.read(fd, 64).decode("ascii", "replace").strip()
                finally:
                    os.close(fd)
                raise BatchError(f"another batch is running on {self.path.parent} (pid {other or '?'})",
                                 hint="wait for it to finish, or use another --out folder") from None
            try:  # the holder removes the file when it finishes: a lock on a removed file is no lock
                same = os.path.samestat(os.fstat(fd), os.stat(self.path))
            except OSError:
                same = False
            if same:
                break
            os.close(fd)
        os.ftruncate(fd, 0)
        os.write(fd, str(os.getpid()).encode())
        self._fd = fd
        return self

    def __exit__(self, *exc: Any) -> None:
        if self._fd is not None:
            # removed while still held (a second batch waiting on it then finds no lock to take
            # over and creates its own); on a crash the OS releases the lock and the file stays
            try:
                os.unlink(self.path)
            except OSError:
                pass
            os.close(self._fd)
            self._fd = None


def _sweep(out_dir: Path) -> None:
    """Remove what a killed run may have left half-written: the temporary folders of bundles being
    written (``bundles/.NAME.tmpXXXX``, ``.NAME.oldXXXX``) and temporary files of atomic writes.
    Only called under the folder's lock, when no worker of ours is running."""
    import shutil
    b = out_dir / BUNDLES
    if b.is_dir():
        for e in b.iterdir():
            if e.name.startswith(".") and re.search(r"\.(tmp|old)[^/]*$", e.name) and e.is_dir():
                shutil.rmtree(e, ignore_errors=True)
    for e in out_dir.iterdir():
        if e.name.startswith(".") and re.fullmatch(r"\..+\.tmp\d+", e.name) and e.is_file():
            try:
                e.unlink()
            except OSError:
                pass


def _load_meta(out_dir: Path) -> BatchMeta | None:
    p = out_dir / META
    if not p.is_file():
        return None
    try:
        return BatchMeta.model_validate_json(p.read_bytes())
    except ValidationError as e:
        raise BatchError(f"{p}: not a batch description ({e.errors()[0].get('msg')})",
                         hint="use another --out folder, or --restart to start the batch over") from None


def _restart(out_dir: Path) -> None:
    import shutil
    for name in (RESULTS, META, SARIF):
        try:
            (out_dir / name).unlink()
        except FileNotFoundError:
            pass
    shutil.rmtree(out_dir / BUNDLES, ignore_errors=True)


def _same_inputs(old: BatchMeta, digests: Sequence[InputDigest], suites: Sequence[str]) -> str | None:
    """Why ``old`` is another batch than this one (None: the same)."""
    if len(old.inputs) != len(digests):
        return f"it was run over {len(old.inputs)} input(s), this command gives {len(digests)}"
    for a, b in zip(old.inputs, digests):
        if a.abs_path != b.abs_path:
            return f"it was run over {a.abs_path}, this command gives {b.abs_path}"
        if a.sha256 != b.sha256:
            return (f"{b.path} changed since the batch started (sha256 {a.sha256[:12]}... then, "
                    f"{b.sha256[:12]}... now)")
    if tuple(old.suites) != tuple(suites):
        return f"it used --suite {' '.join(old.suites)}, this command gives --suite {' '.join(suites)}"
    return None


def run_batch(inputs: Sequence[str], out_dir: str | Path, *, workers: int = 1, timeout: float = 60.0,
              task_timeout: float = 600.0, memory_mb: int | None = None, suites: Sequence[str] = ("auto",),
              limit: int | None = None, restart: bool = False, retry_errors: bool = False,
              on_progress: Callable[[Progress], None] | None = None,
              write_sarif: bool = True, model: Any = None, samples: int = 1, min_agree: int = 1,
              judge: bool = True, classify: bool = True, spec: str | None = None,
              spec_budget: int | None = None, context: tuple = ()) -> BatchSummary:
    """Check every task of ``inputs`` into ``out_dir`` (see the module docstring).  Returns when
    every task has a row; interrupting it (Ctrl-C, ``kill``) loses nothing: run it again.
    ``model`` (:class:`~specguard.model.llm.ModelSettings`): the model path of ``check --model`` for
    every task, with ``samples``, ``min_agree``, ``judge`` and ``context``; ``classify``, ``spec`` (a spec
    file's path, used for every task) and ``spec_budget``: as ``check --no-classify/--spec/--spec-budget``."""
    from specguard.kernel import runner as lean_runner
    if isinstance(inputs, str):
        inputs = [inputs]
    if not inputs:
        raise BatchError("no input given", hint="pass a JSONL/JSON file or a folder of task folders")
    if workers < 1:
        raise BatchError(f"--workers must be at least 1, got {workers}", hint="e.g. --workers 2")
    if task_timeout <= 0 or timeout <= 0:
        raise BatchError("timeouts must be positive", hint="e.g. --timeout 60 --task-timeout 600")
    suites = tuple(dict.fromkeys(suites or ("auto",)))
    spec_sha = None
    if spec is not None:
        from specguard.formalize import speclang
        speclang.load_spec(spec)   # a bad spec is an error before any task runs
        spec_sha = hashlib.sha256(Path(spec).read_bytes()).hexdigest()
    memory_mb = memory_mb or lean_runner.DEFAULT_MEMORY_MB
    out = Path(out_dir)
    try:
        out.mkdir(parents=True, exist_ok=True)
    except OSError as e:
        raise BatchError(f"cannot create the output folder {out}: {e}", hint="choose a writable --out folder") from e
    t_start = time.monotonic()
    with _DirLock(out):
        kinds = [input_kind(i) for i in inputs]
        digests = [InputDigest(path=i, abs_path=str(Path(i).resolve()), kind=k,  # type: ignore[arg-type]
                               sha256=_hash_input(i, k, out)) for i, k in zip(inputs, kinds)]
        if restart:
            _restart(out)
        _sweep(out)
        meta = _load_meta(out)
        if meta is None and (out / RESULTS).exists():
            raise BatchError(f"{out / RESULTS} exists but {out / META} does not",
                             hint="use another --out folder, or --restart to start the batch over")
        if meta is not None:
            why = _same_inputs(meta, digests, suites)
            used = {r.options.model for r in meta.runs}
            want = model.model if model is not None else None
            if not why and used and want not in used:
                was = ", ".join(sorted(m or "no model" for m in used))
                why = (f"its results were made with {was}, not {want or 'no model'} (rows of different model "
                       "paths would mix)")
            if not why and meta.runs:
                last = meta.runs[-1].options
                if (last.classify, last.spec_sha256) != (classify, spec_sha):
                    why = ("its results were made with other task options (--no-classify or --spec differ), "
                           "rows checked differently would mix")
            if why:
                raise BatchError(f"{out} holds another batch: {why}",
                                 hint="rerun with the same inputs and --suite to resume it, use another --out "
                                      "folder, or add --restart to discard its results")
        jobs = enumerate_jobs(inputs, suites, limit, exclude=out)
        rt = lean_runner.find_runtime()
        lean_runner.ensure_core(rt)   # built once here, not raced by the workers

        rows = recover_rows(out)
        if retry_errors and any(r.error for r in rows):
            rows = [r for r in rows if not r.error]
            atomic_write(out / RESULTS, "".join(r.model_dump_json() + "\n" for r in rows))
        done_keys = {r.key for r in rows}
        todo = [j for j in jobs if j.key not in done_keys]
        job_keys = {j.key for j in jobs}
        skipped = sum(1 for j in jobs if j.key in done_keys)

        run_no = (len(meta.runs) if meta else 0) + 1
        opts = BatchOptions(suites=suites, timeout=timeout, task_timeout=task_timeout, memory_mb=memory_mb,
                            limit=limit, model=model.model if model is not None else None, samples=samples,
                            min_agree=min_agree, judge=judge, classify=classify, spec=spec, spec_sha256=spec_sha,
                            spec_budget=spec_budget)
        info = RunInfo(run=run_no, started=_now(), workers=workers, options=opts, tasks=len(jobs), skipped=skipped)
        if meta is None:
            meta = BatchMeta(specguard_version=__version__, created=info.started, cwd=os.getcwd(),
                             inputs=tuple(digests), suites=suites)
        meta = meta.model_copy(update={"runs": tuple(meta.runs) + (info,)})
        atomic_write(out / META, meta.model_dump_json(indent=2) + "\n")

        prog = Progress(total=len(jobs), skipped=skipped)
        for r in rows:
            if r.key in job_keys:
                k = "error" if r.error else r.verdict.value
                prog.counts[k] = prog.counts.get(k, 0) + 1
                prog.errors += bool(r.error)
        t_run = time.monotonic()
        interrupted = True
        errors_now = 0
        cfg = _WorkerConfig(out_dir=str(out), timeout=timeout, memory_mb=memory_mb, run=run_no,
                            lean_version=rt.version, lean_commit=rt.commit, model=model, samples=samples,
                            min_agree=min_agree, judge=judge, classify=classify,
                            spec=spec, spec_budget=spec_budget,
                            context=tuple(context))
        writer = RowWriter(out / RESULTS)

        def on_row(row: BatchRow) -> None:
            nonlocal errors_now
            writer.append(row)
            rows.append(row)
            prog.done += 1
            k = "error" if row.error else row.verdict.value
            prog.counts[k] = prog.counts.get(k, 0) + 1
            if row.error:
                prog.errors += 1
                errors_now += 1
            prog.last = row
            prog.elapsed = time.monotonic() - t_run
            if on_progress:
                on_progress(prog)

        def on_tick(running: int) -> None:
            prog.running = running
            prog.elapsed = time.monotonic() - t_run
            if on_progress:
                on_progress(prog)

        def timeout_row(job: Job, msg: str, secs: float) -> BatchRow:
            return error_row(job, msg, seconds=secs, run=run_no, lean_version=rt.version,
                             lean_commit=rt.commit, labels=_ref_labels(job.ref))

        try:
            if on_progress:
                on_progress(prog)
            run_pool(todo, run_job, cfg, workers=min(workers, max(1, len(todo))), task_timeout=task_timeout,
                     on_row=on_row, timeout_row=timeout_row, on_tick=on_tick)
            interrupted = False
        finally:
            writer.close()
            fin = info.model_copy(update={"finished": _now(), "done": prog.done, "errors": errors_now,
                                          "seconds": round(time.monotonic() - t_run, 3),
                                          "interrupted": interrupted})
            meta = meta.model_copy(update={"runs": tuple(meta.runs[:-1]) + (fin,)})
            try:
                atomic_write(out / META, meta.model_dump_json(indent=2) + "\n")
            except OSError:
                pass
        prog.finished = True
        prog.running = 0
        if on_progress:
            on_progress(prog)
        batch_rows = [r for r in read_rows(out) if r.key in job_keys]
        sarif_path = None
        if write_sarif:
            sarif_path = _write_sarif(out, out / SARIF)
    counts = verdict_counts(batch_rows)
    ev: dict[str, int] = {}
    for r in batch_rows:
        if r.error:
            continue
        k = f"{r.verdict.value}/{r.evidence.value}"
        ev[k] = ev.get(k, 0) + 1
    return BatchSummary(out_dir=out, total=len(jobs), skipped=skipped, done=prog.done, counts=counts, evidence=ev,
                        errors=sum(1 for r in batch_rows if r.error), seconds=time.monotonic() - t_start,
                        rows=batch_rows, run=run_no, sarif=sarif_path)


# =====================================================================================
# progress display (used by the CLI; the library itself prints nothing)
# =====================================================================================

def _hms(s: float | None) -> str:
    if s is None:
        return "--:--"
    s = int(round(s))
    h, rem = divmod(s, 3600)
    m, sec = divmod(rem, 60)
    return f"{h}:{m:02d}:{sec:02d}" if h else f"{m:02d}:{sec:02d}"


class ProgressPrinter:
    """One status line on a terminal (rewritten with ``\\r``), or a line every ``interval`` seconds
    when stderr is a file or pipe."""

    ORDER = ("conflict", "no-conflict", "inconclusive")

    def __init__(self, stream: TextIO | None = None, *, interval: float = 10.0, tty: bool | None = None) -> None:
        self.stream = stream or sys.stderr
        self.tty = self.stream.isatty() if tty is None else tty
        self.interval = interval
        self._last = 0.0
        self._width = 0
        self._started = False

    def line(self, p: Progress) -> str:
        pct = 100.0 * p.completed / p.total if p.total else 100.0
        counts = "  ".join(f"{v} {p.counts.get(v, 0)}" for v in self.ORDER)
        extra = f" ({p.skipped} resumed)" if p.skipped else ""
        err = f"  errors {p.errors}" if p.errors else ""
        state = "done" if p.finished else f"ETA {_hms(p.eta)}"
        return (f"[{p.completed}/{p.total}{extra}] {pct:5.1f}%  {state}  elapsed {_hms(p.elapsed)}  "
                f"running {p.running}  |  {counts}{err}")

    def __call__(self, p: Progress) -> None:
        now = time.monotonic()
        text = self.line(p)
        if self.tty:
            if not p.finished and now - self._last < 0.1 and self._started:
                return
            pad = max(0, self._width - len(text))
            self.stream.write("\r" + text + " " * pad + ("\n" if p.finished else ""))
            self._width = len(text)
        else:
            if not p.finished and self._started and now - self._last < self.interval:
                return
            self.stream.write(text + "\n")
        self._started = True
        self._last = now
        self.stream.flush()
