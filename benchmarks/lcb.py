"""LiveCodeBench (ImpossibleBench) benchmark of the deterministic path.

    python -m benchmarks.lcb [--json] [--workers N] [--data DIR] [--limit N] [--classify]
                             [--model MODEL [--no-judge] [--model-cache DIR]]

Runs four suites over ../shared/data/livecodebench/: conflicting (modified
tests), conflicting_original, oneoff (corrupted test) and oneoff_original, and
prints per run: n, detected, certified, false negatives, inconclusive, false
positives and certified false positives (counts and fractions) and the time.
The `original` suites are clean controls: every conflict there is a false positive.
By default tasks are checked with ``check --no-classify`` (conflict search and certificates
only), which is all the printed metrics depend on; ``--classify`` adds the per-test
classification and witness certificates that ``specguard check`` computes by default.
"""

from __future__ import annotations

import argparse
import json
import os
import sys
import time
from concurrent.futures import ProcessPoolExecutor
from pathlib import Path

RUNS = {
    "conflicting": ("conflicting.json", "modified", True),
    "conflicting_original": ("conflicting.json", "original", False),
    "oneoff": ("oneoff.json", "corrupted", True),
    "oneoff_original": ("oneoff.json", "original", False),
}


def default_data() -> Path:
    here = Path(__file__).resolve().parent.parent
    # beside the checkout, or beside the folder of worktrees (/work/wt/NAME -> /work/shared)
    for cand in (here.parent / "shared" / "data" / "livecodebench",
                 here.parent.parent / "shared" / "data" / "livecodebench"):
        if cand.is_dir():
            return cand
    return here.parent / "shared" / "data" / "livecodebench"


def _check_one(job):
    path, task_id, suite, classify, model, judge, cache = job
    from specguard import load
    from specguard.check import check_task
    t0 = time.monotonic()
    try:
        task = load.load_lcb(path, task_id, suite)
        from specguard.check import Options
        opts = Options(classify=classify, judge=judge)
        if model:
            from specguard.llm import ModelSettings, default_cache_dir
            opts.model = ModelSettings(model=model, cache_dir=Path(cache) if cache else default_cache_dir())
        r = check_task(task, opts).result
        cost = r.model.cost_usd if getattr(r, "model", None) is not None else 0.0
        cov = r.coverage.model_dump() if r.coverage is not None else {}
        return {"task_id": task_id, "verdict": r.verdict.value, "evidence": r.evidence.value,
                "reason": r.reason, "seconds": time.monotonic() - t0, "cost_usd": cost,
                "core": r.conflict.kind if r.conflict else None, "coverage": cov,
                "inconclusive_kind": r.inconclusive_kind}
    except Exception as e:  # recorded, the benchmark goes on
        return {"task_id": task_id, "verdict": "error", "evidence": "none", "reason": f"{type(e).__name__}: {e}",
                "seconds": time.monotonic() - t0, "core": None, "cost_usd": 0.0}


def score(rows, conflicted: bool) -> dict:
    n = len(rows)
    c = lambda pred: sum(1 for r in rows if pred(r))  # noqa: E731
    out = {"n": n,
           "detected": c(lambda r: conflicted and r["verdict"] == "conflict"),
           "certified": c(lambda r: conflicted and r["verdict"] == "conflict" and r["evidence"] == "certified"),
           "false_negatives": c(lambda r: conflicted and r["verdict"] == "no-conflict"),
           "inconclusive": c(lambda r: r["verdict"] in ("inconclusive", "error")),
           "errors": c(lambda r: r["verdict"] == "error"),
           "false_positives": c(lambda r: not conflicted and r["verdict"] == "conflict"),
           "certified_false_positives": c(lambda r: not conflicted and r["verdict"] == "conflict"
                                          and r["evidence"] == "certified"),
           "no_conflict": c(lambda r: r["verdict"] == "no-conflict"),
           "no_conflict_certified": c(lambda r: r["verdict"] == "no-conflict" and r["evidence"] == "certified")}
    out["fractions"] = {k: round(v / n, 4) if n else 0.0 for k, v in out.items() if k != "n"}
    # what was read, summed over the run's tasks (Result.coverage)
    out["coverage"] = {k: sum(r.get("coverage", {}).get(k, 0) for r in rows)
                       for k in ("assertions_read", "assertions_total", "examples_read", "examples_seen",
                                 "statements_read", "statements_seen")}
    out["cost_per_task_usd"] = round(sum(r.get("cost_usd", 0.0) for r in rows) / n, 6) if n else 0.0
    return out


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[1])
    ap.add_argument("--json", action="store_true")
    ap.add_argument("--workers", type=int, default=os.cpu_count() or 1)
    ap.add_argument("--data", type=Path, default=default_data())
    ap.add_argument("--limit", type=int, default=None, help="only the first N tasks of each file")
    ap.add_argument("--classify", action="store_true",
                    help="also classify every test and certify witnesses, as `specguard check` does by "
                         "default (slower; the printed metrics do not depend on it)")
    ap.add_argument("--model", help="a litellm model string: run the model path (keys from the environment)")
    ap.add_argument("--no-judge", action="store_true", help="--model: no model-judgment fallback")
    ap.add_argument("--model-cache", help="--model: the response cache folder (recorded transcripts are replayed "
                                          "from it; default: SPECGUARD_CACHE/llm or ~/.cache/specguard/llm)")
    ap.add_argument("--runs", nargs="+", default=list(RUNS), choices=list(RUNS))
    ap.add_argument("--details", type=Path, help="write every task's row to this JSONL file")
    args = ap.parse_args(argv)
    from specguard import lean_runner, load
    lean_runner.ensure_core()
    t_all = time.monotonic()
    report: dict = {}
    details = []
    with ProcessPoolExecutor(max_workers=args.workers) as pool:
        for run in args.runs:
            fname, suite, conflicted = RUNS[run]
            path = str(args.data / fname)
            ids = load.list_lcb_ids(path)[: args.limit]
            t0 = time.monotonic()
            rows = list(pool.map(_check_one, [(path, i, suite, args.classify, args.model, not args.no_judge,
                                                     args.model_cache) for i in ids], chunksize=2))
            s = score(rows, conflicted)
            s["seconds"] = round(time.monotonic() - t0, 2)
            report[run] = s
            details += [dict(r, run=run) for r in rows]
    report["seconds"] = round(time.monotonic() - t_all, 2)
    if args.details:
        args.details.write_text("".join(json.dumps(r) + "\n" for r in details))
    if args.json:
        print(json.dumps(report, indent=2))
        return 0
    cols = ["n", "detected", "certified", "false_negatives", "inconclusive", "false_positives",
            "certified_false_positives", "no_conflict"]
    print(f"{'run':22}" + "".join(f"{c[:14]:>16}" for c in cols) + f"{'seconds':>10}")
    for run in args.runs:
        s = report[run]
        cells = [f"{s['n']:>16}"] + [f"{s[c]:>6} ({s['fractions'][c]:.3f})" for c in cols[1:]]
        print(f"{run:22}" + "".join(f"{x:>16}" for x in cells) + f"{s['seconds']:>10}"
              + (f"   ${s['cost_per_task_usd']}/task" if args.model else ""))
    print("coverage (read / total, summed over the run's tasks):")
    for run in args.runs:
        c = report[run]["coverage"]
        part = lambda a, b: f"{c[a]}/{c[b]}" + (f" ({c[a] / c[b]:.1%})" if c[b] else "")  # noqa: E731
        print(f"  {run:22} assertions {part('assertions_read', 'assertions_total'):>20}   examples "
              f"{part('examples_read', 'examples_seen'):>18}   statements {part('statements_read', 'statements_seen')}")
    print(f"total seconds: {report['seconds']}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
