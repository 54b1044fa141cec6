"""The model-judgment fallback measured alone on LiveCodeBench oneoff: agreement with ground truth.

    python -m benchmarks.judge [--data DIR] [--ids ID...] [--limit N] [--json]
                               (--replay FILE | --model MODEL [--model-cache DIR] [--model-timeout S])

For each task, the judge (``specguard/model/judge.py``, the prompt ``check`` sends when a task stays
inconclusive) is asked about the corrupted suite and about the original suite. Ground truth: the
corrupted suite conflicts with its description (ImpossibleBench changed one expected value) and
the judge is *right* when it says ``conflict`` and names that test (its arguments and changed
value); the original suite is clean except where ``benchmarks/lcb_errata.py`` demonstrates an
erratum, so a ``conflict`` there is a false flag. Judgments are evidence ``model-judgment``,
never certified: this measures how much a screening user can lean on them.

Prints per suite: judged, conflict / no-conflict / unclear, right (corrupted: the changed test
named), false flags (originals), tokens and model seconds. ``--replay`` answers from a recorded
transcript (never the network); a question missing from it is counted as unclear.
"""

from __future__ import annotations

import argparse
import json
import re
import sys
import time
from pathlib import Path

from .lcb import default_data
from .lcb_errata import ERRATA


def _names_test(judged_test: str | None, case: dict) -> bool:
    """The judge's cited test line is the changed one: same arguments and the changed value."""
    if not judged_test:
        return False
    text = re.sub(r"\s+", "", judged_test)
    # LiveCodeBench cases are plain JSON values: Python's repr shows them as the judge prompt does
    args = re.sub(r"\s+", "", ",".join(repr(a) for a in case["args"]))
    expected = re.sub(r"\s+", "", repr(case["expected"]))
    return f"({args})==" in text and text.endswith("==" + expected)


def judge_one(path: Path, task_id: str, suite: str, settings) -> dict:
    from specguard import load
    from specguard.model import judge as judge_mod
    from specguard.model.llm import Client
    task = load.load_lcb(str(path), task_id, suite)
    client = Client(settings)
    t0 = time.monotonic()
    j = judge_mod.judge(task, client)
    spent = client.meter.spent
    return {"task_id": task_id, "suite": suite, "verdict": j.verdict, "test": j.test,
            "rationale": j.rationale[:300], "seconds": round(time.monotonic() - t0, 2),
            "tokens": spent.prompt_tokens + spent.completion_tokens, "calls": spent.calls + spent.replayed_calls}


def summarize(rows: list[dict], tasks: dict[str, dict]) -> dict:
    out = {}
    for suite in ("corrupted", "original"):
        rs = [r for r in rows if r["suite"] == suite]
        s = {"judged": len(rs), **{v: sum(1 for r in rs if r["verdict"] == v)
                                   for v in ("conflict", "no-conflict", "unclear")},
             "tokens": sum(r["tokens"] for r in rs), "seconds": round(sum(r["seconds"] for r in rs), 1)}
        if suite == "corrupted":
            s["right"] = sum(1 for r in rs if r["verdict"] == "conflict"
                             and _names_test(r["test"], tasks[r["task_id"]]["corrupted_test"]))
            s["conflict_other_test"] = s["conflict"] - s["right"]
        else:
            s["errata_flagged"] = sorted(r["task_id"] for r in rs if r["verdict"] == "conflict" and r["task_id"] in ERRATA)
            s["false_flags"] = sorted(r["task_id"] for r in rs
                                      if r["verdict"] == "conflict" and r["task_id"] not in ERRATA)
        out[suite] = s
    return out


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(prog="python -m benchmarks.judge", description=__doc__.split("\n\n")[0])
    ap.add_argument("--data", type=Path, default=None, help="folder holding oneoff.json")
    ap.add_argument("--ids", nargs="*", default=None)
    ap.add_argument("--limit", type=int, default=None)
    ap.add_argument("--replay", type=Path, help="answer from this recorded transcript (never the network)")
    ap.add_argument("--model", help="the judge model (litellm name); needs a reachable endpoint")
    ap.add_argument("--model-cache", type=Path, default=None)
    ap.add_argument("--model-timeout", type=float, default=600.0)
    ap.add_argument("--json", action="store_true")
    args = ap.parse_args(argv)
    if not args.replay and not args.model:
        ap.error("give --replay FILE (a recording) or --model MODEL")
    from specguard.model.llm import ModelSettings, default_cache_dir
    settings = ModelSettings(model=args.model or "recorded", replay=args.replay,
                             cache_dir=None if args.replay else (args.model_cache or default_cache_dir()),
                             timeout=args.model_timeout)
    path = (args.data or default_data()) / "oneoff.json"
    tasks = {t["task_id"]: t for t in json.loads(path.read_text(encoding="utf-8"))["tasks"]}
    ids = args.ids or list(tasks)
    ids = ids[:args.limit] if args.limit else ids
    from specguard.errors import SpecGuardError
    rows = []
    for tid in ids:
        for suite in ("corrupted", "original"):
            try:
                rows.append(judge_one(path, tid, suite, settings))
            except SpecGuardError as e:                  # e.g. not in the recording
                rows.append({"task_id": tid, "suite": suite, "verdict": "unclear", "test": None,
                             "rationale": e.message, "seconds": 0.0, "tokens": 0, "calls": 0})
            if not args.json:
                r = rows[-1]
                print(f"  {tid:14} {suite:9} {r['verdict']:11} {(r['test'] or '')[:70]}", flush=True)
    s = summarize(rows, tasks)
    if args.json:
        print(json.dumps({"summary": s, "rows": rows}, indent=2))
        return 0
    c, o = s["corrupted"], s["original"]
    print(f"corrupted suites: judged {c['judged']}, conflict {c['conflict']} (naming the changed test {c['right']}), "
          f"no-conflict {c['no-conflict']}, unclear {c['unclear']}")
    print(f"original suites:  judged {o['judged']}, no-conflict {o['no-conflict']}, unclear {o['unclear']}, "
          f"false flags {len(o['false_flags'])} {o['false_flags']}, errata flagged {o['errata_flagged']}")
    print(f"tokens {c['tokens'] + o['tokens']} ({(c['tokens'] + o['tokens']) // max(1, c['judged'] + o['judged'])}"
          f"/judgment), model seconds {c['seconds'] + o['seconds']}")
    print("(model-judgment evidence is never certified)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
