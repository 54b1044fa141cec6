"""The batch folder's files: the formats and pydantic models of ``results.jsonl`` rows and
``batch.json``, atomic writes, and loss-free reading, recovery and appending of rows.

Shared by :mod:`specguard.outputs.batch` (the writer) and :mod:`specguard.outputs.report` (a reader),
so neither imports the other."""

from __future__ import annotations

import os
from dataclasses import dataclass
from pathlib import Path
from typing import Literal, Sequence

from pydantic import BaseModel, ConfigDict, Field, ValidationError

from specguard import __version__
from specguard.errors import BatchError, SpecGuardError
from specguard.models import Loc
from specguard.outputs.results import Coverage, Evidence, InconclusiveKind, Verdict

ROW_FORMAT = "specguard-batch-row/1"
META_FORMAT = "specguard-batch/1"
RESULTS = "results.jsonl"
META = "batch.json"
BUNDLES = "bundles"
SARIF = "results.sarif"
LOCK = ".batch.lock"

MAX_LABEL_CHARS = 200
"""Labels longer than this (e.g. ImpossibleBench's ``original_test_patch``) stay out of the rows."""


# =====================================================================================
# models (everything written to disk; JSON Schemas via specguard.outputs.schemas)
# =====================================================================================

class _Frozen(BaseModel):
    model_config = ConfigDict(frozen=True, extra="forbid")


class TaskRef(_Frozen):
    """Where a task comes from: enough to load it again."""

    kind: Literal["task-dir", "lcb", "swebench"]
    path: str = Field(description="the input file or task folder, as given")
    id: str | None = Field(default=None, description="task_id (LiveCodeBench) or instance_id (SWE-bench)")
    suite: str | None = Field(default=None, description="LiveCodeBench test suite requested")
    pointer: str | None = Field(default=None, description="the record in the input file, e.g. 'tasks[3]' or 'line12'")

    def __str__(self) -> str:
        s = self.path
        if self.id is not None:
            s += f"#{self.id}"
        if self.suite is not None:
            s += f"@{self.suite}"
        return s


class ConflictItemRef(_Frozen):
    """One side of a conflict, located (full texts are in the bundle's ``result.json``)."""

    source: Literal["test", "description"]
    id: str
    loc: Loc
    statement: str


class BatchRow(_Frozen):
    """One line of ``results.jsonl``: the outcome of one task of a batch."""

    row_format: Literal["specguard-batch-row/1"] = ROW_FORMAT
    key: str = Field(description="unique within the batch; resuming skips keys already present")
    index: int = Field(description="position of the task in the input order")
    task_id: str
    input: TaskRef
    verdict: Verdict
    evidence: Evidence
    reason: str
    conflict_kind: str | None = None
    conflict_items: tuple[ConflictItemRef, ...] = ()
    tests: dict[str, int] = Field(default_factory=dict, description="test assertions per status")
    overspecified: int = Field(default=0, description="over-specified tests: left open with a witness that a "
                                                        "description clause about the same input allows "
                                                        "(TestReport.finding; 'not-covered' tests are not counted)")
    unsupported: int = Field(default=0, description="assertions or files not formalized")
    seconds: float = Field(description="wall-clock seconds of the task (load, check, bundle)")
    bundle: str | None = Field(default=None, description="bundle folder, relative to the batch folder")
    labels: dict[str, str] = Field(default_factory=dict, description="ground truth carried by the input")
    error: str | None = Field(default=None, description="set when the task crashed, timed out or could not be loaded")
    specguard_version: str = __version__
    lean_version: str | None = None
    lean_commit: str | None = None
    run: int = Field(description="which run of the batch (1 = first, 2 = first resume, ...) produced the row")
    finished_at: str = Field(description="UTC time the row was written, ISO 8601")
    cost_usd: float | None = Field(default=None, description="model cost of the task, when a model was used")
    coverage: Coverage | None = Field(default=None, description="what was read (the result's coverage), when known")
    inconclusive_kind: InconclusiveKind | None = Field(default=None, description="for an inconclusive verdict: why "
                                                                               "(the result's inconclusive_kind)")


class InputDigest(_Frozen):
    path: str = Field(description="as given")
    abs_path: str
    kind: Literal["task-dir", "tasks-dir", "lcb", "swebench"]
    sha256: str = Field(description="the file's bytes, or every file of the folder (paths and contents)")


class BatchOptions(_Frozen):
    suites: tuple[str, ...] = ("auto",)
    timeout: float = Field(description="seconds per Lean run")
    task_timeout: float = Field(description="seconds per task; the worker is killed past it")
    memory_mb: int
    limit: int | None = Field(default=None, description="only the first N tasks of each input")
    model: str | None = Field(default=None, description="the litellm model of the model path (--model), if any")
    samples: int = 1
    min_agree: int = 1
    judge: bool = True
    classify: bool = Field(default=True, description="false with --no-classify")
    spec: str | None = Field(default=None, description="--spec: the spec file used for every task, if any")
    spec_sha256: str | None = None
    spec_budget: int | None = Field(default=None, description="--spec-budget, if given")


class RunInfo(_Frozen):
    run: int
    started: str
    finished: str | None = None
    workers: int
    options: BatchOptions
    tasks: int = Field(description="tasks in the batch")
    skipped: int = Field(description="tasks already done when the run started")
    done: int = 0
    errors: int = 0
    seconds: float | None = None
    interrupted: bool | None = None


class BatchMeta(_Frozen):
    """``batch.json``: what the batch is over, so that a rerun continues the same batch."""

    format: Literal["specguard-batch/1"] = META_FORMAT
    specguard_version: str
    created: str
    cwd: str = Field(description="working folder of the first run: relative paths in rows are relative to it")
    inputs: tuple[InputDigest, ...]
    suites: tuple[str, ...]
    runs: tuple[RunInfo, ...] = ()


# =====================================================================================
# results.jsonl: reading, recovery, appending
# =====================================================================================

def _fsync_dir(d: Path) -> None:
    try:
        fd = os.open(d, os.O_RDONLY)
    except OSError:
        return
    try:
        os.fsync(fd)
    except OSError:
        pass
    finally:
        os.close(fd)


def atomic_write(path: Path, data: str | bytes) -> None:
    """Write ``path`` through a temporary file + fsync + rename (a reader never sees half a file)."""
    path = Path(path)
    if path.is_dir():
        raise SpecGuardError(f"{path}: is a folder, expected a file name",
                             hint=f"e.g. {path / ('report' + (path.suffix or '.md'))}")
    raw = data.encode("utf-8") if isinstance(data, str) else data
    tmp = path.with_name(f".{path.name}.tmp{os.getpid()}")
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        with open(tmp, "wb") as f:   # open() respects the umask: others read it as the user decides
            f.write(raw)
            f.flush()
            os.fsync(f.fileno())
        os.replace(tmp, path)
    except OSError as e:
        raise SpecGuardError(f"cannot write {path}: {e.strerror or e}", hint="choose a writable path") from e
    finally:
        try:
            tmp.unlink()
        except OSError:
            pass
    _fsync_dir(path.parent)


def _parse_rows(raw: bytes, display: str) -> tuple[list[BatchRow], int]:
    """Rows of complete lines, and the byte length of the valid prefix (a torn last line excluded)."""
    rows: list[BatchRow] = []
    end = raw.rfind(b"\n") + 1          # bytes after the last newline: an unfinished write
    pos = 0
    lines = raw[:end].split(b"\n")[:-1] if end else []
    for n, line in enumerate(lines, 1):
        nxt = pos + len(line) + 1
        if line.strip():
            try:
                rows.append(BatchRow.model_validate_json(line))
            except ValidationError as e:
                if n == len(lines):     # a damaged last line: cut it off too
                    return rows, pos
                first = e.errors()[0]
                raise BatchError(f"{display}:{n}: not a valid batch row ({first.get('msg')} at "
                                 f"{'.'.join(str(x) for x in first.get('loc', ()))})",
                                 hint="remove or fix that line, or rerun with --restart to start over") from None
        pos = nxt
    return rows, pos


def read_rows(out_dir: Path) -> list[BatchRow]:
    """The rows of a batch folder (read only; a torn last line is ignored; for a key written twice,
    the last row wins)."""
    p = Path(out_dir) / RESULTS
    if not p.is_file():
        return []
    rows, _ = _parse_rows(p.read_bytes(), str(p))
    by_key: dict[str, BatchRow] = {}
    for r in rows:
        by_key.pop(r.key, None)
        by_key[r.key] = r
    return list(by_key.values())


def recover_rows(out_dir: Path) -> list[BatchRow]:
    """Like :func:`read_rows`, and cut a torn last line off ``results.jsonl`` (so the next append
    starts on a line of its own)."""
    p = Path(out_dir) / RESULTS
    if not p.is_file():
        return []
    raw = p.read_bytes()
    rows, keep = _parse_rows(raw, str(p))
    if keep < len(raw):
        with open(p, "r+b") as f:
            f.truncate(keep)
            f.flush()
            os.fsync(f.fileno())
    return read_rows(out_dir)


class RowWriter:
    """Appends rows to ``results.jsonl``: one complete line per row, flushed and fsynced."""

    def __init__(self, path: Path) -> None:
        self.path = Path(path)
        new = not self.path.exists()
        self._f = open(self.path, "ab")
        if new:
            _fsync_dir(self.path.parent)

    def append(self, row: BatchRow) -> None:
        self._f.write(row.model_dump_json().encode("utf-8") + b"\n")
        self._f.flush()
        os.fsync(self._f.fileno())

    def close(self) -> None:
        self._f.close()


EXIT_TASK_ERROR = 3


def exit_code(rows: Sequence[BatchRow]) -> int:
    """1 when a task has a conflict; else 3 when a task could not be checked (an error row: the
    batch is incomplete); else 2 when a task is inconclusive; else 0 (also for no rows)."""
    checked = [r for r in rows if not r.error]
    if any(r.verdict.value == "conflict" for r in checked):
        return 1
    if len(checked) < len(rows):
        return EXIT_TASK_ERROR
    if not checked:
        return 0
    return max((r.verdict for r in checked), key=lambda v: v.rank).exit_code


def verdict_counts(rows: Sequence[BatchRow]) -> dict[str, int]:
    """Rows per verdict, error rows counted as "error" (not as the inconclusive verdict they carry)."""
    counts: dict[str, int] = {}
    for r in rows:
        k = "error" if r.error else r.verdict.value
        counts[k] = counts.get(k, 0) + 1
    return counts


@dataclass(frozen=True)
class Job:
    key: str
    index: int
    ref: TaskRef
