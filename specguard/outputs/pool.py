"""The worker pool of ``specguard batch`` (the parent side and the worker loop): one process per
slot, results sent back over a pipe, per-task timeouts that kill the worker and its Lean
processes, workers that die with their parent."""

from __future__ import annotations

import os
import signal
import sys
import time
from collections import deque
from dataclasses import dataclass, field
from multiprocessing.connection import wait as _mp_wait
from typing import Any, Callable, Sequence

import multiprocessing as mp

from specguard.errors import BatchError
from specguard.outputs.rows import BatchRow, Job

def _die_with_parent() -> None:
    """Linux: this process gets SIGKILL when its parent dies (a killed batch leaves no worker)."""
    if not sys.platform.startswith("linux"):
        return
    try:
        import ctypes
        libc = ctypes.CDLL(None, use_errno=True)
        libc.prctl(1, int(signal.SIGKILL), 0, 0, 0)  # PR_SET_PDEATHSIG
    except (OSError, AttributeError):
        return


def _worker_main(conn, fn: Callable[[Job, Any], BatchRow], cfg: Any, parent: int) -> None:
    _die_with_parent()
    if os.getppid() != parent:  # the parent died before the death signal was armed
        os._exit(0)
    signal.signal(signal.SIGINT, signal.SIG_IGN)  # Ctrl-C is the parent's to handle
    while True:
        try:
            job = conn.recv()
        except (EOFError, OSError):
            os._exit(0)
        if job is None:
            os._exit(0)
        row = fn(job, cfg)
        try:
            conn.send(row.model_dump(mode="json"))
        except (BrokenPipeError, OSError):
            os._exit(0)


# =====================================================================================
# the worker pool (the parent side)
# =====================================================================================

def _descendants(pid: int) -> list[int]:
    """Every live descendant of ``pid`` (Linux /proc; empty elsewhere)."""
    children: dict[int, list[int]] = {}
    try:
        entries = os.listdir("/proc")
    except OSError:
        return []
    for e in entries:
        if not e.isdigit():
            continue
        try:
            with open(f"/proc/{e}/stat", "rb") as f:
                stat = f.read().decode("ascii", "replace")
            ppid = int(stat.rsplit(")", 1)[1].split()[1])
        except (OSError, ValueError, IndexError):
            continue
        children.setdefault(ppid, []).append(int(e))
    out: list[int] = []
    todo = [pid]
    while todo:
        p = todo.pop()
        for c in children.get(p, ()):
            out.append(c)
            todo.append(c)
    return out


def kill_tree(pid: int) -> None:
    """SIGKILL a worker and everything it started (Lean runs in its own session, so it is found
    through /proc and killed with its process group)."""
    try:
        os.kill(pid, signal.SIGSTOP)  # freeze it: it can start nothing new while we look
    except ProcessLookupError:
        return
    desc = _descendants(pid)
    try:
        os.kill(pid, signal.SIGKILL)
    except ProcessLookupError:
        pass
    own = os.getpgid(0)
    for d in desc:
        try:
            if os.getpgid(d) == d and d != own:
                os.killpg(d, signal.SIGKILL)
            else:
                os.kill(d, signal.SIGKILL)
        except (ProcessLookupError, PermissionError):
            pass


@dataclass
class _Slot:
    proc: Any
    conn: Any
    job: Job | None = None
    started: float = 0.0


@dataclass
class Progress:
    """What the progress display shows."""

    total: int
    skipped: int
    done: int = 0
    running: int = 0
    counts: dict[str, int] = field(default_factory=dict)   # verdict -> n (this batch, all runs)
    errors: int = 0
    elapsed: float = 0.0
    finished: bool = False
    last: BatchRow | None = None

    @property
    def completed(self) -> int:
        return self.skipped + self.done

    @property
    def eta(self) -> float | None:
        remaining = self.total - self.completed
        if remaining <= 0:
            return 0.0
        if self.done == 0 or self.elapsed <= 0:
            return None
        return self.elapsed / self.done * remaining


def run_pool(jobs: Sequence[Job], fn: Callable[[Job, Any], BatchRow], cfg: Any, *, workers: int,
             task_timeout: float, on_row: Callable[[BatchRow], None],
             timeout_row: Callable[[Job, str, float], BatchRow],
             on_tick: Callable[[int], None] | None = None, tick: float = 0.5) -> None:
    """Run ``fn(job, cfg)`` for every job in ``workers`` forked processes, one job per process at a
    time; ``on_row`` receives each row in the parent as it arrives.  A job running past
    ``task_timeout`` has its worker (and the worker's children) killed; a worker that dies is
    replaced; both give ``timeout_row(job, message, seconds)``."""
    ctx = mp.get_context("fork" if "fork" in mp.get_all_start_methods() else "spawn")
    pending = deque(jobs)
    slots: list[_Slot] = []
    parent = os.getpid()

    def spawn() -> _Slot:
        a, b = ctx.Pipe(duplex=True)
        p = ctx.Process(target=_worker_main, args=(b, fn, cfg, parent), daemon=True)
        p.start()
        b.close()
        return _Slot(p, a)

    def retire(s: _Slot, kill: bool) -> None:
        if kill:
            kill_tree(s.proc.pid)
        try:
            s.conn.close()
        except OSError:
            pass
        s.proc.join(timeout=5)
        slots.remove(s)

    lost = 0

    def assign(s: _Slot) -> None:
        nonlocal lost
        job = pending.popleft()
        try:
            s.conn.send(job)
        except OSError:       # the idle worker died: replace it, the job goes back first in line
            pending.appendleft(job)
            retire(s, kill=True)
            lost += 1
            if lost > 5 + 3 * workers:
                raise BatchError(f"{lost} worker processes died before taking a task",
                                 hint="check the machine's free memory and process limits (ulimit -u)")
            return
        s.job, s.started = job, time.monotonic()

    try:
        while pending or any(s.job is not None for s in slots):
            # hand out work
            for s in list(slots):
                if s.job is None and pending:
                    assign(s)
            while pending and len(slots) < workers:
                s = spawn()
                slots.append(s)
                assign(s)
            busy = [s for s in slots if s.job is not None]
            if on_tick:
                on_tick(len(busy))
            if not busy:
                continue
            now = time.monotonic()
            wait_for = tick
            for s in busy:
                wait_for = min(wait_for, max(0.0, s.started + task_timeout - now))
            _mp_wait([s.conn for s in busy] + [s.proc.sentinel for s in busy], timeout=wait_for)
            for s in busy:
                job = s.job
                assert job is not None
                got = None
                dead = False
                try:
                    if s.conn.poll():
                        got = s.conn.recv()
                    else:
                        dead = not s.proc.is_alive()
                except (EOFError, OSError):
                    dead = True
                if got is not None:
                    s.job = None
                    on_row(BatchRow.model_validate(got))
                    continue
                elapsed = time.monotonic() - s.started
                if dead:
                    s.proc.join(timeout=5)
                    code = s.proc.exitcode
                    how = (f"killed by signal {signal.Signals(-code).name}" if code is not None and code < 0
                           else f"exit code {code}")
                    s.job = None
                    retire(s, kill=False)
                    on_row(timeout_row(job, f"WorkerDied: the worker process died ({how}) while checking "
                                            f"this task", elapsed))
                elif elapsed >= task_timeout:
                    s.job = None
                    retire(s, kill=True)
                    on_row(timeout_row(job, f"TaskTimeout: the task did not finish within the per-task limit "
                                            f"of {task_timeout:g} s; its worker was killed", elapsed))
    finally:
        for s in list(slots):
            if s.job is None and s.proc.is_alive():
                try:
                    s.conn.send(None)
                except OSError:
                    pass
        deadline = time.monotonic() + 2
        for s in list(slots):
            if s.job is not None:
                kill_tree(s.proc.pid)
            s.proc.join(timeout=max(0.0, deadline - time.monotonic()))
            if s.proc.is_alive():
                kill_tree(s.proc.pid)
                s.proc.join(timeout=2)
            try:
                s.conn.close()
            except OSError:
                pass


