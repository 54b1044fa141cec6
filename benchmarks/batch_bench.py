"""Throughput, memory and resume overhead of ``specguard batch``.

    python -m benchmarks.batch_bench [--workers 1 2] [--data DIR] [--limit N] [--json] [--keep DIR]

Runs the real CLI (``python -m specguard batch``) over every LiveCodeBench run of the shared data:
conflicting.json and oneoff.json, each with ``--suite auto original`` (auto = the modified suite of
conflicting and the corrupted suite of oneoff), i.e. 95 x 2 + 97 x 2 = 384 task runs.  For each
worker count it measures, in a fresh batch folder: the wall time, the throughput (tasks per second),
the peak resident memory of the batch process tree (``ru_maxrss`` of the batch as returned by
``wait4``: the largest single process among it, its workers and their Lean runs) and the verdicts.
Then it reruns the last, completed batch to measure the resume overhead (every task skipped).
``resource.getrusage(RUSAGE_CHILDREN).ru_maxrss`` over all runs is printed too.
"""

from __future__ import annotations

import argparse
import json
import os
import resource
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent.parent
FILES = ("conflicting.json", "oneoff.json")


def default_data() -> Path:
    return HERE.parent / "shared" / "data" / "livecodebench"


def run_batch(data: Path, out: Path, workers: int, limit: int | None) -> dict:
    cmd = [sys.executable, "-m", "specguard", "batch", *(str(data / f) for f in FILES), "--suite", "auto",
           "original", "--out", str(out), "--workers", str(workers), "--json", "-q"]
    if limit:
        cmd += ["--limit", str(limit)]
    env = dict(os.environ, PYTHONPATH=str(HERE))
    t0 = time.monotonic()
    with tempfile.TemporaryFile() as so, tempfile.TemporaryFile() as se:
        p = subprocess.Popen(cmd, cwd=HERE, env=env, stdout=so, stderr=se)
        _, status, ru = os.wait4(p.pid, 0)
        p.returncode = os.waitstatus_to_exitcode(status)
        wall = time.monotonic() - t0
        so.seek(0)
        se.seek(0)
        stdout, stderr = so.read().decode(), se.read().decode()
    if p.returncode not in (0, 1, 2):
        raise SystemExit(f"batch failed (exit {p.returncode}):\n{stderr[-3000:]}")
    s = json.loads(stdout)
    return {"workers": workers, "tasks": s["tasks"], "done": s["done"], "skipped": s["skipped"],
            "errors": s["errors"], "verdicts": s["verdicts"], "wall_s": round(wall, 2),
            "tasks_per_s": round(s["done"] / wall, 3) if s["done"] else None,
            "s_per_task": round(wall / s["done"], 3) if s["done"] else None,
            "peak_rss_mb": round(ru.ru_maxrss / 1024, 1), "cpu_s": round(ru.ru_utime + ru.ru_stime, 1)}


def score(out: Path) -> dict | None:
    sys.path.insert(0, str(HERE))
    from specguard.outputs.report import load_batch, score as _score
    sc = _score(load_batch(out).rows)
    if sc is None:
        return None
    return {k: sc[k] for k in ("n", "conflicted", "clean", "detected", "certified", "false_negatives",
                               "false_positives", "certified_false_positives", "inconclusive", "errors")}


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--workers", type=int, nargs="+", default=[1, 2])
    ap.add_argument("--data", type=Path, default=default_data())
    ap.add_argument("--limit", type=int, default=None, help="only the first N tasks of each file")
    ap.add_argument("--keep", type=Path, help="keep the batch folders under this folder")
    ap.add_argument("--json", action="store_true")
    args = ap.parse_args(argv)
    if not all((args.data / f).is_file() for f in FILES):
        raise SystemExit(f"{args.data} lacks {' / '.join(FILES)}")
    base = args.keep or Path(tempfile.mkdtemp(prefix="specguard-batch-bench-"))
    base.mkdir(parents=True, exist_ok=True)
    report: dict = {"cpus": os.cpu_count(), "load_avg_before": os.getloadavg(), "runs": []}
    last = None
    try:
        for w in args.workers:
            out = base / f"w{w}"
            shutil.rmtree(out, ignore_errors=True)
            r = run_batch(args.data, out, w, args.limit)
            report["runs"].append(r)
            last = out
            if not args.json:
                print(f"workers={w}: {r['done']} tasks in {r['wall_s']} s = {r['tasks_per_s']} tasks/s "
                      f"({r['s_per_task']} s/task), peak RSS {r['peak_rss_mb']} MB, CPU {r['cpu_s']} s, "
                      f"verdicts {r['verdicts']}, errors {r['errors']}", flush=True)
        if last is not None:
            rr = run_batch(args.data, last, args.workers[-1], args.limit)
            report["resume"] = {"tasks": rr["tasks"], "skipped": rr["skipped"], "done": rr["done"],
                                "wall_s": rr["wall_s"], "peak_rss_mb": rr["peak_rss_mb"]}
            report["score"] = score(last)
            if not args.json:
                print(f"resume of the completed batch: {rr['skipped']}/{rr['tasks']} skipped, {rr['done']} redone, "
                      f"{rr['wall_s']} s")
                print(f"score: {report['score']}")
        report["children_maxrss_mb"] = round(resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss / 1024, 1)
        report["load_avg_after"] = os.getloadavg()
        if args.json:
            print(json.dumps(report, indent=2))
        else:
            print(f"getrusage(RUSAGE_CHILDREN).ru_maxrss: {report['children_maxrss_mb']} MB; "
                  f"load average before {report['load_avg_before'][0]:.1f}, after {report['load_avg_after'][0]:.1f} "
                  f"on {report['cpus']} CPUs")
    finally:
        if args.keep is None:
            shutil.rmtree(base, ignore_errors=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
