"""LiveCodeBench (ImpossibleBench) benchmark of the deterministic path.

    python -m benchmarks.lcb [--json] [--workers N] [--data DIR] [--limit N] [--ids ID...] [--classify]
                             [--split conflicting|oneoff [--originals]] [--runs RUN...]
                             [--model MODEL [--replay FILE] [--samples K] [--min-agree N] [--rounds R]
                              [--no-judge] [--model-cache DIR] [--model-timeout SECONDS]]

Runs four suites over ../shared/data/livecodebench/: conflicting (modified
tests), conflicting_original, oneoff (corrupted test) and oneoff_original, and
prints per run: n, detected, certified, false negatives, inconclusive, false
positives and certified false positives (counts and fractions) and the time.
The `original` suites are clean controls: every conflict there is a false positive.
With ``--model`` every task's line is printed as it finishes (verdict, evidence, seconds, cost,
prompts asked, the model path's miss cause), and the table adds the model-path counts.
``--replay FILE`` answers every prompt from a recorded transcript (never the network).
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
    path, task_id, suite, classify, m = job
    from specguard import load
    from specguard.check import check_task
    t0 = time.monotonic()
    try:
        task = load.load_lcb(path, task_id, suite)
        from specguard.check import Options
        opts = Options(classify=classify, judge=bool(m and m["judge"]))
        if m:
            from specguard.model.llm import ModelSettings, default_cache_dir
            cache = None if m["replay"] and not m["ask"] else (Path(m["cache"]) if m["cache"] else default_cache_dir())
            opts.model = ModelSettings(model=m["model"], cache_dir=cache, timeout=m["timeout"],
                                       replay=Path(m["replay"]) if m["replay"] else None, replay_then_ask=m["ask"],
                                       max_task_cost_usd=m["max_cost"], max_task_tokens=m["max_tokens"])
            opts.samples, opts.min_agree, opts.rounds = m["samples"], m["min_agree"], m["rounds"]
        r = check_task(task, opts).result
        mr = getattr(r, "model", None)
        cost = mr.cost_usd if mr is not None else 0.0
        cov = r.coverage.model_dump() if r.coverage is not None else {}
        row = {"task_id": task_id, "verdict": r.verdict.value, "evidence": r.evidence.value,
               "reason": r.reason, "seconds": time.monotonic() - t0, "cost_usd": cost,
               "core": r.conflict.kind if r.conflict else None, "coverage": cov,
               "inconclusive_kind": r.inconclusive_kind}
        if mr is not None:
            bad = _corrupted_test(path, task_id) if suite == "corrupted" else None
            if bad is not None:
                # the benchmark knows which test is wrong: did a spec contradict it?
                row["corrupted_test"] = bad
                if mr.miss_cause and _cause_kind(mr.miss_cause) == "spec agrees with every test":
                    row["corrupted_miss"] = "spec agrees with the corrupted value"
            row["model"] = {"prompts": mr.prompts, "calls": mr.calls, "cached_calls": mr.cached_calls,
                            "replayed_calls": mr.replayed_calls, "tokens": mr.prompt_tokens + mr.completion_tokens,
                            "agree": mr.agree, "miss_cause": mr.miss_cause, "agreement": mr.agreement,
                            "stopped": mr.stopped, "judgment": mr.judgment.verdict if mr.judgment else None,
                            "specs": [{"sample": s.sample, "rounds": s.rounds, "counted": s.counted,
                                       "refuted": list(s.refuted), "agreed": s.agreed, "unknown": s.unknown,
                                       "suspect": s.suspect, "conflict_test": s.conflict_test,
                                       "miss_cause": s.miss_cause} for s in mr.specs]}
        return row
    except Exception as e:  # recorded, the benchmark goes on
        return {"task_id": task_id, "verdict": "error", "evidence": "none", "reason": f"{type(e).__name__}: {e}",
                "seconds": time.monotonic() - t0, "core": None, "cost_usd": 0.0}


_DOCS: dict = {}


def _corrupted_test(path: str, task_id: str) -> str | None:
    """The id (``T<i>``, the case's position) of a oneoff task's corrupted test, or None."""
    if path not in _DOCS:
        _DOCS[path] = {t.get("task_id"): t for t in json.loads(Path(path).read_text()).get("tasks", [])}
    t = _DOCS[path].get(task_id) or {}
    bad = t.get("corrupted_test")
    if not isinstance(bad, dict):
        return None
    for i, case in enumerate(t.get("original_tests") or [], start=1):
        if isinstance(case, dict) and case.get("args") == bad.get("args"):
            return f"T{i}"
    return None


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
           "no_conflict_certified": c(lambda r: r["verdict"] == "no-conflict" and r["evidence"] == "certified"),
           "no_conflict_model_agreement": c(lambda r: r["verdict"] == "no-conflict"
                                            and r["evidence"] == "model-spec-agreement"),
           "model_path": c(lambda r: "model" in r),
           "execution": c(lambda r: r["verdict"] == "conflict" and r["evidence"] == "execution")}
    out["fractions"] = {k: round(v / n, 4) if n else 0.0 for k, v in out.items() if k != "n"}
    # what was read, summed over the run's tasks (Result.coverage)
    out["coverage"] = {k: sum(r.get("coverage", {}).get(k, 0) for r in rows)
                       for k in ("assertions_read", "assertions_total", "examples_read", "examples_seen",
                                 "statements_read", "statements_seen")}
    out["cost_per_task_usd"] = round(sum(r.get("cost_usd", 0.0) for r in rows) / n, 6) if n else 0.0
    m = [r["model"] for r in rows if "model" in r]
    if m:
        out["model_prompts"] = sum(x["prompts"] for x in m)
        out["model_seconds"] = round(sum(r["seconds"] for r in rows if "model" in r), 2)
        causes: dict[str, int] = {}
        for r in rows:
            if "model" in r and r["model"]["miss_cause"]:
                key = r.get("corrupted_miss") or _cause_kind(r["model"]["miss_cause"])
                causes[key] = causes.get(key, 0) + 1
        out["miss_causes"] = causes
    return out


_CAUSES = ("not in the recording", "spec suspect", "fewer than min-agree", "execution tier", "kernel budget",
           "evaluation budget", "no usable spec", "spec agrees with every test", "the spec says nothing", "stopped early",
           "the kernel rejected")


def _cause_kind(cause: str) -> str:
    """The miss cause's kind (the first known phrase in it), for the summary counts."""
    hits = [(cause.find(c), c) for c in _CAUSES if c in cause]
    return min(hits)[1] if hits else cause.split(":")[0][:60]


def _task_line(run: str, r: dict) -> str:
    m = r.get("model")
    line = (f"  {run:20} {r['task_id']:14} {r['verdict']:12} {r['evidence']:20} {r['seconds']:7.1f}s "
            f"${r.get('cost_usd', 0.0):.4f}")
    if m:
        line += f"  {m['prompts']} prompt(s)" + (f" ({m['cached_calls']} cached)" if m["cached_calls"] else "")
        if r.get("corrupted_miss"):
            line += f"  [{r['corrupted_test']}: {r['corrupted_miss']}]"
        if m["miss_cause"]:
            line += f"  miss: {m['miss_cause'][:160]}"
        elif m["agreement"]:
            line += f"  {m['agreement']}"
    return line


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
    ap.add_argument("--replay", help="--model: answer from this recorded transcript (exchanges.jsonl), never the "
                                     "network; unmatched prompts are misses 'not in the recording'")
    ap.add_argument("--replay-then-ask", action="store_true",
                    help="--replay: ask --model (through the response cache) what the recording lacks, instead "
                         "of a miss (extends a recording: then `python -m benchmarks.record QUEUE OUT`)")
    ap.add_argument("--samples", type=int, default=3, help="--model: independent specs per task (default 3)")
    ap.add_argument("--min-agree", type=int, default=None,
                    help="--model: counted specs needed (default 2, or 1 with --samples 1)")
    ap.add_argument("--rounds", type=int, default=3, help="--model: feedback rounds per sample (default 3)")
    ap.add_argument("--model-timeout", type=float, default=120.0, help="--model: seconds per model call")
    ap.add_argument("--max-task-cost", type=float, default=2.0, help="--model: dollars per task (0: no cap)")
    ap.add_argument("--max-task-tokens", type=int, default=200_000, help="--model: tokens per task (0: no cap)")
    ap.add_argument("--split", choices=["conflicting", "oneoff"],
                    help="only this split's run (its modified/corrupted suite; with --originals its clean suite)")
    ap.add_argument("--originals", action="store_true", help="with --split: the original (clean) suite")
    ap.add_argument("--ids", nargs="+", help="only these task ids")
    ap.add_argument("--no-judge", action="store_true", help="--model: no model-judgment fallback")
    ap.add_argument("--model-cache", help="--model: the response cache folder (recorded transcripts are replayed "
                                          "from it; default: SPECGUARD_CACHE/llm or ~/.cache/specguard/llm)")
    ap.add_argument("--runs", nargs="+", default=list(RUNS), choices=list(RUNS))
    ap.add_argument("--details", type=Path, help="write every task's row to this JSONL file")
    args = ap.parse_args(argv)
    if args.split:
        args.runs = [args.split + ("_original" if args.originals else "")]
    elif args.originals:
        ap.error("--originals needs --split")
    if args.replay_then_ask and not (args.replay and args.model):
        ap.error("--replay-then-ask needs --replay FILE and --model MODEL (the model asked what the recording lacks)")
    if args.replay and not args.model:
        args.model = "replay"
    m = None
    if args.model:
        need = args.min_agree if args.min_agree is not None else min(2, args.samples)
        if args.samples < 1 or not 1 <= need <= args.samples or args.rounds < 1:
            ap.error("need --samples >= 1, 1 <= --min-agree <= --samples and --rounds >= 1")
        if args.replay:
            from specguard.model.llm import recording
            recording(args.replay)
        m = {"model": args.model, "replay": args.replay, "ask": args.replay_then_ask, "cache": args.model_cache,
             "judge": not args.no_judge,
             "samples": args.samples, "min_agree": need, "rounds": args.rounds, "timeout": args.model_timeout,
             "max_cost": args.max_task_cost or None, "max_tokens": args.max_task_tokens or None}
        print(f"model path: {args.model}" + (f" replaying {args.replay}" if args.replay else "")
              + f"; --samples {args.samples} --min-agree {need} --rounds {args.rounds}: at most "
              f"{args.samples * args.rounds} spec prompts per inconclusive task"
              + ("" if args.no_judge else " + 1 judge prompt"), file=sys.stderr, flush=True)
    from specguard.kernel import runner as lean_runner
    from specguard import load
    lean_runner.ensure_core()
    t_all = time.monotonic()
    report: dict = {}
    details = []
    with ProcessPoolExecutor(max_workers=args.workers) as pool:
        for run in args.runs:
            fname, suite, conflicted = RUNS[run]
            path = str(args.data / fname)
            ids = load.list_lcb_ids(path)
            if args.ids:
                ids = [i for i in ids if i in set(args.ids)]
            ids = ids[: args.limit]
            t0 = time.monotonic()
            rows = []
            for row in pool.map(_check_one, [(path, i, suite, args.classify, m) for i in ids],
                                chunksize=1 if m else 2):
                rows.append(row)
                if m:
                    print(_task_line(run, row), file=sys.stderr, flush=True)
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
            "certified_false_positives", "no_conflict"] + (["no_conflict_model_agreement"] if args.model else [])
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
    if args.model:
        print("model path (per run): prompts asked, seconds of the tasks it ran on, miss causes")
        for run in args.runs:
            s = report[run]
            print(f"  {run:22} {s['model_path']} task(s), {s.get('model_prompts', 0)} prompt(s), "
                  f"{s.get('model_seconds', 0)} s, ${s['cost_per_task_usd']}/task; misses: {s.get('miss_causes', {})}")
    from .lcb_errata import ERRATA
    fps = [(r["run"], r["task_id"]) for r in details
           if not RUNS[r["run"]][2] and r["verdict"] == "conflict" and r["evidence"] == "certified"]
    if fps:
        print("certified conflicts on original suites: " + ", ".join(
            f"{run}/{tid}" + (" (an erratum: the original suite contradicts its description; "
                              "`python -m benchmarks.lcb_errata` demonstrates it)" if tid in ERRATA else "")
            for run, tid in fps))
    print(f"total seconds: {report['seconds']}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
