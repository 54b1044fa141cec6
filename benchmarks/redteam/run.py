"""Run SpecGuard on every corpus task and flag FALSE results.

    python benchmarks/redteam/run.py [--repo PATH] [--out DIR] [TASK ...]

Each task is checked with ``python -m specguard check TASKDIR --json --out OUT/NAME`` using the
code under ``--repo`` (put first on PYTHONPATH; default: this worktree).  FALSE marks
  * a certified conflict, or a certified ``contradicted`` test, on a satisfiable task;
  * a certified no-conflict on an unsatisfiable task, or a certified ``entailed`` test at a line
    ``label.json`` lists under ``fails_at`` (``file:line`` of a test the task really fails).
GAP marks an inconclusive verdict where ``label.json`` says ``expect`` (what a sound reader should
certify).  The exit code is the number of FALSE results (capped at 100).
"""
from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import tempfile
from pathlib import Path

HERE = Path(__file__).resolve().parent


def check(task: Path, repo: Path, out: Path) -> dict:
    env = dict(os.environ, PYTHONPATH=str(repo), PYTHONDONTWRITEBYTECODE="1")
    proc = subprocess.run(["nice", "-n", "10", sys.executable, "-m", "specguard", "check", str(task),
                           "--json", "--out", str(out / task.name)],
                          cwd=repo, env=env, capture_output=True, text=True, timeout=600)
    try:
        return json.loads(proc.stdout)
    except json.JSONDecodeError:
        return {"verdict": "error", "evidence": f"rc={proc.returncode}",
                "reason": (proc.stderr.strip().splitlines() or ["?"])[-1]}


def loc(t: dict) -> str:
    where = t.get("loc") or {}
    return f"{Path(where.get('file') or '?').name}:{where.get('line')}"


def judge(label: dict, res: dict) -> str:
    sat, verdict, ev = label["satisfiable"], res.get("verdict"), res.get("evidence")
    tests = res.get("tests") or []
    if sat and verdict == "conflict" and ev == "certified":
        return "FALSE"
    if sat and any(t.get("status") == "contradicted" and t.get("certified") for t in tests):
        return "FALSE"
    if not sat and verdict == "no-conflict" and ev == "certified":
        return "FALSE"
    fails_at = set(label.get("fails_at", []))
    if any(t.get("status") == "entailed" and t.get("certified") and loc(t) in fails_at for t in tests):
        return "FALSE"
    if label.get("expect") and verdict != label["expect"]:
        return "GAP"
    return ""


def main() -> int:
    ap = argparse.ArgumentParser()
    ap.add_argument("--repo", type=Path, default=HERE.parent)
    ap.add_argument("--out", type=Path, default=None)
    ap.add_argument("tasks", nargs="*")
    args = ap.parse_args()
    out = args.out or Path(tempfile.mkdtemp(prefix="redsem-"))
    todo = [Path(t).resolve() for t in args.tasks] or sorted(p.parent for p in HERE.glob("*/task.toml"))
    rows, false = [], 0
    print(f"{'task':38} {'label':6} {'verdict':13} {'evidence':10} {'flag':5} detail")
    for task in todo:
        label = json.loads((task / "label.json").read_text())
        res = check(task, args.repo.resolve(), out)
        flag = judge(label, res)
        false += flag == "FALSE"
        tests = res.get("tests") or []
        detail = " ".join(f"{loc(t)}={t.get('status')}{'*' if t.get('certified') else ''}" for t in tests)
        if res.get("verdict") in ("inconclusive", "error"):
            detail = (res.get("reason") or "")[:90] + " | " + detail
        row = (f"{task.name:38} {'sat' if label['satisfiable'] else 'UNSAT':6} {res.get('verdict', '?'):13} "
               f"{str(res.get('evidence')):10} {flag:5} {detail[:160]}")
        rows.append(row)
        print(row, flush=True)
    print(f"\n{len(todo)} tasks, {false} FALSE, {sum('GAP ' in r for r in rows)} GAP; bundles in {out}")
    return min(false, 100)


if __name__ == "__main__":
    raise SystemExit(main())
