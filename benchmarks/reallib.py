"""reallib: SpecGuard on real open-source libraries (real docstrings, real test files, verbatim).

    python -m benchmarks.reallib --setup [--rebuild]   # once: pip download + install, build and label the tasks
    python -m benchmarks.reallib [--data FILE] [--library NAME ...] [--task ID ...] [--limit N] [--no-variants]
                                 [--workers N] [--time-limit S] [--classify] [--json [FILE]]
    python -m benchmarks.reallib --export DIR --task ID ...   # a self-contained subset (the smoke fixture)

One task per library function that has doctests and tests naming it (built by
:mod:`benchmarks.reallib_build`, which checks every task by running it against the real library):
the description is the function's ``def`` line and docstring verbatim, the tests are the library's
test file verbatim with ``only_tests`` naming the tests of that function.  Besides the clean tasks,
planted variants (``oneoff``: an expected value changed where a docstring example has the same
call; ``conflicting``: an assertion duplicated with another expected value), each one failing
when run.  Every task is checked in process by SpecGuard's ``check`` pipeline (at most 2 worker
processes, a time limit per task), and the benchmark prints per library and overall: tasks,
assertion statements read / total, description examples read / seen, verdicts on the clean tasks,
certified false conflicts (must be 0), planted variants certified per kind, time per task
(p50/p95), then the ranked reasons of unread assertions and unread description examples.

Nothing is fetched when the benchmark runs: the tasks are read from ``tasks.json`` in the cache
(``$SPECGUARD_BENCH_CACHE/reallib`` or ``~/.cache/specguard/bench/reallib``) or from ``--data``.
"""

from __future__ import annotations

import argparse
import json
import multiprocessing as mp
import os
import re
import sys
import time
from collections import Counter, defaultdict
from pathlib import Path

from benchmarks import reallib_build

MAX_WORKERS = 2


# =====================================================================================
# tasks
# =====================================================================================

def load(data: Path | None = None) -> dict:
    path = data or reallib_build.cache_dir() / "tasks.json"
    if not path.is_file():
        raise SystemExit(f"reallib tasks not found at {path}: run `python -m benchmarks.reallib --setup` "
                         f"(downloads the libraries with pip and builds the tasks), or pass --data FILE")
    doc = json.loads(path.read_text(encoding="utf-8"))
    if doc.get("format") != reallib_build.FORMAT:
        raise SystemExit(f"{path}: not a {reallib_build.FORMAT} file; rebuild it with --setup")
    return doc


def task_of(row: dict, files: dict[str, str]):
    """A SpecGuard Task for one benchmark row."""
    from specguard.models import Task, TestSource
    tests = tuple(TestSource(kind="python", path=t["file"], text=reallib_build.apply_edit(files[t["file"]], t.get("edit")),
                             only_tests=tuple(t["only_tests"])) for t in row["tests"])
    return Task(id=row["id"], description=row["description"], description_path=row["description_path"],
                description_line_offset=row["description_line_offset"], tests=tests, entry_point=row["entry_point"])


def _planted_lines(row: dict) -> set[str]:
    """file:line of the planted change and of the assertion it belongs to (as numbered in the variant)."""
    return {f"{t['file']}:{n}" for t in row["tests"] if t.get("edit") for n in t["edit"]["planted_lines"]}


def test_spans(text: str) -> dict[str, tuple[int, int]]:
    """Test name ("test_x" / "Class::test_x") -> its lines, decorators included (the harness's own
    reading of the test file, to tell which unread assertions belong to the selected tests)."""
    import ast
    out = {}

    def span(n):
        return (min([n.lineno] + [d.lineno for d in n.decorator_list]), n.end_lineno)
    for node in ast.parse(text).body:
        if isinstance(node, ast.FunctionDef):
            out[node.name] = span(node)
        elif isinstance(node, ast.ClassDef):
            for m in node.body:
                if isinstance(m, ast.FunctionDef):
                    out[f"{node.name}::{m.name}"] = span(m)
    return out


def _in_selection(loc: str, row: dict, spans: dict[str, dict]) -> bool:
    """An unsupported entry at ``loc`` is about the selected tests: in one of their line spans, or
    about the file as a whole (no line)."""
    m = re.match(r"(.*):(\d+)$", loc)
    path, line = (m.group(1), int(m.group(2))) if m else (loc, None)
    for t in row["tests"]:
        if t["file"] != path:
            continue
        if line is None:
            return True
        sp = spans[t["file"]]
        if any(sp[n][0] <= line <= sp[n][1] for n in t["only_tests"] if n in sp):
            return True
    return False


def check_row(row: dict, files: dict[str, str], classify: bool = False) -> dict:
    from specguard.check import Options, check_task
    t0 = time.monotonic()
    base = {"task_id": row["id"], "library": row["library"], "kind": row["kind"]}
    task = task_of(row, files)
    try:
        r = check_task(task, Options(classify=classify)).result
        seconds = time.monotonic() - t0
    except Exception as e:  # recorded as a bug, the benchmark goes on
        import traceback
        return {**base, "verdict": "error", "evidence": "none", "seconds": time.monotonic() - t0,
                "reason": f"{type(e).__name__}: {e}", "traceback": traceback.format_exc()[-3000:]}
    spans = {t.path: test_spans(t.text) for t in task.tests}
    cov = r.coverage
    certified = r.conflict is not None and r.evidence.value == "certified"
    items = [str(i.loc) for i in r.conflict.items] if r.conflict is not None else []
    desc = row["description_path"]
    planted = _planted_lines(row)
    return {**base, "verdict": r.verdict.value, "evidence": r.evidence.value, "seconds": seconds,
            "reason": r.reason, "inconclusive_kind": r.inconclusive_kind,
            "read": cov.assertions_read if cov else 0, "total": cov.assertions_total if cov else 0,
            "examples_read": cov.examples_read if cov else 0, "examples_seen": cov.examples_seen if cov else 0,
            "harness_assertions": sum(reallib_build.count_selected(t.text, list(t.only_tests)) for t in task.tests),
            "certified_conflict": certified,
            "conflict": r.conflict.explanation if r.conflict is not None else None,
            "conflict_items": items,
            "on_planted_line": bool(set(items) & planted) if row["kind"] != "clean" else None,
            "planted_unsupported": [[str(u.loc), u.reason] for u in r.unsupported if str(u.loc) in planted],
            "unsupported": [[str(u.loc), u.reason] for u in r.unsupported
                            if _in_selection(str(u.loc), row, spans)],
            "unsupported_elsewhere": sum(not _in_selection(str(u.loc), row, spans) for u in r.unsupported),
            "description_notes": [n for n in r.notes if n.startswith(desc)]}


# =====================================================================================
# workers with a per-task time limit (a stuck worker is ended by its pid and replaced)
# =====================================================================================

def _worker(conn, files, classify):
    from specguard.kernel import runner as lean_runner
    lean_runner.ensure_core()
    while True:
        row = conn.recv()
        if row is None:
            return
        conn.send(check_row(row, files, classify))


def run_all(rows: list[dict], files: dict[str, str], workers: int = 2, time_limit: float = 120.0,
            classify: bool = False, progress: bool = True) -> list[dict]:
    workers = max(1, min(workers, MAX_WORKERS))
    ctx = mp.get_context("fork") if hasattr(os, "fork") else mp.get_context()
    todo = list(enumerate(rows))
    out: list[dict | None] = [None] * len(rows)
    slots: list[dict] = []

    def start():
        a, b = ctx.Pipe()
        p = ctx.Process(target=_worker, args=(b, files, classify), daemon=True)
        p.start()
        return {"proc": p, "conn": a, "job": None, "t0": 0.0}

    for _ in range(min(workers, len(rows))):
        slots.append(start())
    done = 0
    while done < len(rows):
        for s in slots:
            if s["job"] is None and todo:
                s["job"] = todo.pop(0)
                s["t0"] = time.monotonic()
                s["conn"].send(s["job"][1])
        from multiprocessing.connection import wait
        busy = [s for s in slots if s["job"] is not None]
        ready = wait([s["conn"] for s in busy], timeout=1.0)
        for s in busy:
            i, row = s["job"]
            if s["conn"] in ready:
                try:
                    out[i] = s["conn"].recv()
                except EOFError:
                    out[i] = {"task_id": row["id"], "library": row["library"], "kind": row["kind"],
                              "verdict": "error", "evidence": "none", "seconds": time.monotonic() - s["t0"],
                              "reason": "worker process died"}
                    s.update(start())
            elif time.monotonic() - s["t0"] > time_limit:
                s["proc"].kill()
                s["proc"].join()
                out[i] = {"task_id": row["id"], "library": row["library"], "kind": row["kind"],
                          "verdict": "timeout", "evidence": "none", "seconds": time.monotonic() - s["t0"],
                          "reason": f"over the {time_limit:g} s time limit"}
                s.update(start())
            else:
                continue
            s["job"] = None
            done += 1
            if progress and done % 25 == 0:
                print(f"[reallib] {done}/{len(rows)}", file=sys.stderr, flush=True)
    for s in slots:
        try:
            s["conn"].send(None)
        except OSError:
            pass
        s["proc"].join(timeout=5)
        if s["proc"].is_alive():
            s["proc"].kill()
    return [r for r in out if r is not None]


# =====================================================================================
# summary
# =====================================================================================

def normalize(reason: str) -> str:
    """A reason with its particulars (code, names, numbers, quoted text) replaced by placeholders."""
    s = re.sub(r"`[^`]*`", "`_`", reason)
    s = re.sub(r"'[^']*'|\"[^\"]*\"", "'_'", s)
    s = re.sub(r"\b\d+(\.\d+)?\b", "N", s)
    s = re.sub(r"\s+", " ", s).strip()
    return s[:220]


def _pct(a: int, b: int) -> str:
    return f"{a}/{b} ({100 * a / b:.1f} %)" if b else f"{a}/{b}"


def _quantile(xs: list[float], q: float) -> float:
    if not xs:
        return 0.0
    xs = sorted(xs)
    return round(xs[min(len(xs) - 1, int(q * len(xs)))], 3)


def summarize_group(rows: list[dict]) -> dict:
    clean = [r for r in rows if r["kind"] == "clean"]
    planted = [r for r in rows if r["kind"] != "clean"]
    s = {"tasks": len(clean),
         "assertions_read": sum(r.get("read", 0) for r in clean),
         "assertions_total": sum(r.get("total", 0) for r in clean),
         "harness_assertions": sum(r.get("harness_assertions") or 0 for r in clean),
         "examples_read": sum(r.get("examples_read", 0) for r in clean),
         "examples_seen": sum(r.get("examples_seen", 0) for r in clean),
         "verdicts": dict(Counter(f"{r['verdict']}/{r['evidence']}" for r in clean)),
         "inconclusive_kinds": dict(Counter(str(r.get("inconclusive_kind")) for r in clean
                                            if r["verdict"] == "inconclusive")),
         "false_conflicts": [{"task": r["task_id"], "claim": r["conflict"], "items": r["conflict_items"]}
                             for r in clean if r.get("certified_conflict")],
         "uncertified_conflicts_on_clean": [r["task_id"] for r in clean
                                            if r["verdict"] == "conflict" and not r.get("certified_conflict")],
         "planted": {},
         "errors": [{"task": r["task_id"], "reason": r["reason"], "traceback": r.get("traceback")}
                    for r in rows if r["verdict"] in ("error", "timeout")],
         "seconds_p50": _quantile([r["seconds"] for r in rows], 0.5),
         "seconds_p95": _quantile([r["seconds"] for r in rows], 0.95),
         "seconds_max": _quantile([r["seconds"] for r in rows], 1.0),
         "seconds_total": round(sum(r["seconds"] for r in rows), 1)}
    s["assertions_fraction"] = round(s["assertions_read"] / s["assertions_total"], 4) if s["assertions_total"] else 0.0
    s["examples_fraction"] = round(s["examples_read"] / s["examples_seen"], 4) if s["examples_seen"] else 0.0
    for kind in ("oneoff", "conflicting"):
        ps = [r for r in planted if r["kind"] == kind]
        s["planted"][kind] = {"total": len(ps), "certified": sum(bool(r.get("certified_conflict")) for r in ps),
                              "certified_off_planted_line": [r["task_id"] for r in ps if r.get("certified_conflict")
                                                             and not r.get("on_planted_line")],
                              "missed": [r["task_id"] for r in ps if not r.get("certified_conflict")]}
    return s


def ranked(rows: list[dict], field: str, top: int = 15) -> list[dict]:
    """The most frequent normalized reasons over the clean tasks, with one example each."""
    count: Counter = Counter()
    example: dict[str, str] = {}
    for r in rows:
        if r["kind"] != "clean":
            continue
        for entry in r.get(field, []):
            if field == "unsupported":
                loc, reason = entry
            else:   # description notes: "path:line: reason"
                m = re.match(r"(.*?:\d+): (.*)$", entry, re.S) or re.match(r"(.*?): (.*)$", entry, re.S)
                loc, reason = (m.group(1), m.group(2)) if m else ("", entry)
            key = normalize(reason)
            count[key] += 1
            example.setdefault(key, f"{loc}  [{reason[:160]}]")
    return [{"reason": k, "count": n, "example": example[k]} for k, n in count.most_common(top)]


def missed_reasons(rows: list[dict], top: int = 10) -> list[dict]:
    """Why planted variants were missed: the reader's reason at the planted lines, else the verdict's."""
    count: Counter = Counter()
    example: dict[str, str] = {}
    for r in rows:
        if r["kind"] == "clean" or r.get("certified_conflict"):
            continue
        got = r.get("planted_unsupported") or [["", f"(nothing unsupported at the planted lines) {r['verdict']}: "
                                                      f"{r.get('reason', '')}"]]
        for loc, reason in got[:1]:
            key = normalize(reason)
            count[key] += 1
            example.setdefault(key, f"{r['task_id']} {loc}  [{reason[:160]}]")
    return [{"reason": k, "count": n, "example": example[k]} for k, n in count.most_common(top)]


def blocking_reasons(rows: list[dict], top: int = 10) -> list[dict]:
    """Clean tasks none of whose assertions was read, by the most frequent reason among their
    unread assertions (one per task): which fix would open the most tasks."""
    count: Counter = Counter()
    example: dict[str, str] = {}
    for r in rows:
        if r["kind"] != "clean" or r.get("read", 0) or r["verdict"] in ("error", "timeout"):
            continue
        mine = Counter(normalize(reason) for _, reason in r.get("unsupported", []))
        key = mine.most_common(1)[0][0] if mine else "(no unread assertion in the selected tests)"
        count[key] += 1
        example.setdefault(key, r["task_id"])
    return [{"reason": k, "tasks": n, "example": example[k]} for k, n in count.most_common(top)]


def summarize(rows: list[dict]) -> dict:
    libs = sorted({r["library"] for r in rows})
    return {"blocking_reasons": blocking_reasons(rows),"missed_planted_reasons": missed_reasons(rows),"overall": summarize_group(rows),
            "libraries": {lib: summarize_group([r for r in rows if r["library"] == lib]) for lib in libs},
            "unsupported_reasons": ranked(rows, "unsupported"),
            "description_reasons": ranked(rows, "description_notes")}


def print_summary(s: dict) -> None:
    groups = list(s["libraries"].items()) + [("OVERALL", s["overall"])]
    print(f"{'library':16}{'tasks':>6}{'assertions read/total':>28}{'read/in selected tests':>26}{'examples read/seen':>24}"
          f"{'oneoff cert':>13}{'conflicting cert':>18}{'false confl':>12}{'p50 s':>8}{'p95 s':>8}")
    for name, g in groups:
        p = g["planted"]
        print(f"{name:16}{g['tasks']:>6}{_pct(g['assertions_read'], g['assertions_total']):>28}"
              f"{_pct(g['assertions_read'], g['harness_assertions']):>26}{_pct(g['examples_read'], g['examples_seen']):>24}"
              f"{p['oneoff']['certified']:>7}/{p['oneoff']['total']:<5}{p['conflicting']['certified']:>11}/"
              f"{p['conflicting']['total']:<6}{len(g['false_conflicts']):>12}{g['seconds_p50']:>8}{g['seconds_p95']:>8}")
    print("(total: SpecGuard's count, result.json coverage; in selected tests: the harness's count of assertion "
          "statements in the tests that only_tests selects: they differ where SpecGuard counts a whole file)")
    print("verdicts on clean tasks:")
    for name, g in groups:
        print(f"  {name:16} " + ", ".join(f"{k} {n}" for k, n in sorted(g["verdicts"].items()))
              + ("   inconclusive: " + ", ".join(f"{k} {n}" for k, n in sorted(g["inconclusive_kinds"].items()))
                 if g["inconclusive_kinds"] else ""))
    o = s["overall"]
    print(f"certified false conflicts (must be 0): {len(o['false_conflicts'])}")
    for fc in o["false_conflicts"]:
        print(f"  BUG {fc['task']}: {fc['claim']}  at {', '.join(fc['items'])}")
    if o["uncertified_conflicts_on_clean"]:
        print(f"uncertified conflict verdicts on clean tasks: {', '.join(o['uncertified_conflicts_on_clean'])}")
    for kind in ("oneoff", "conflicting"):
        p = o["planted"][kind]
        print(f"planted {kind}: certified {_pct(p['certified'], p['total'])}"
              + (f"; certified but not on the planted line: {', '.join(p['certified_off_planted_line'])}"
                 if p["certified_off_planted_line"] else ""))
    for e in o["errors"]:
        print(f"  ERROR {e['task']}: {e['reason']}")
    print("top reasons of unread assertions (clean tasks, entries in the selected tests; count, normalized reason, "
          "one example):")
    for i, x in enumerate(s["unsupported_reasons"], 1):
        print(f"  {i:2}. {x['count']:5}  {x['reason']}\n             e.g. {x['example']}")
    print("clean tasks with no assertion read, by their most frequent reason (tasks, reason, one task):")
    for i, x in enumerate(s["blocking_reasons"], 1):
        print(f"  {i:2}. {x['tasks']:5}  {x['reason']}\n             e.g. {x['example']}")
    print("top reasons description examples were not read (clean tasks):")
    for i, x in enumerate(s["description_reasons"], 1):
        print(f"  {i:2}. {x['count']:5}  {x['reason']}\n             e.g. {x['example']}")
    print("why planted variants were missed (count, normalized reason, one example):")
    for i, x in enumerate(s["missed_planted_reasons"], 1):
        print(f"  {i:2}. {x['count']:5}  {x['reason']}\n             e.g. {x['example']}")
    print(f"time per task: p50 {o['seconds_p50']} s, p95 {o['seconds_p95']} s, max {o['seconds_max']} s "
          f"(total {o['seconds_total']} s of checking)")


def export(doc: dict, rows: list[dict], out: Path) -> Path:
    """A self-contained subset (tasks.json with only the files its rows use, and the libraries'
    licence files from the cache's sdists): how tests/data/reallib_smoke/ was made."""
    out.mkdir(parents=True, exist_ok=True)
    used = {t["file"] for r in rows for t in r["tests"]}
    libs = [lib for lib in doc["libraries"] if any(r["library"] == lib["name"] for r in rows)]
    src = reallib_build.cache_dir() / "src"
    for lib in libs:
        for name in ("LICENSE", "LICENSE.txt", "LICENSE.rst", "LICENCE", "COPYING"):
            p = src / lib["sdist"] / name
            if p.is_file():
                (out / f"LICENSE-{lib['name']}").write_text(p.read_text(encoding="utf-8"), encoding="utf-8")
                break
    sub = {"format": doc["format"], "libraries": libs, "files": {k: v for k, v in doc["files"].items() if k in used},
           "tasks": rows, "log": []}
    path = out / "tasks.json"
    tmp = path.with_suffix(".tmp")
    tmp.write_text(json.dumps(sub, indent=0), encoding="utf-8")
    os.replace(tmp, path)
    return path


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(prog="python -m benchmarks.reallib", description=__doc__.split("\n")[0])
    ap.add_argument("--setup", action="store_true", help="download and install the libraries with pip, build and "
                                                         "label the tasks (by running them), and exit")
    ap.add_argument("--rebuild", action="store_true", help="--setup: build the tasks again even if they are cached")
    ap.add_argument("--data", type=Path, help="tasks.json to read instead of the cache's")
    ap.add_argument("--library", action="append", default=[], help="only this library (repeatable)")
    ap.add_argument("--task", action="append", default=[], help="only this task id and its variants (repeatable)")
    ap.add_argument("--limit", type=int, help="first N clean tasks per library (and their variants)")
    ap.add_argument("--workers", type=int, default=MAX_WORKERS, help=f"worker processes (at most {MAX_WORKERS})")
    ap.add_argument("--time-limit", type=float, default=120.0, help="seconds per task (default 120)")
    ap.add_argument("--classify", action="store_true", help="also the per-test classification (slower)")
    ap.add_argument("--no-variants", action="store_true", help="the clean tasks only")
    ap.add_argument("--export", type=Path, metavar="DIR", help="write the selected tasks as a self-contained "
                                                             "tasks.json (plus licences) into DIR and exit")
    ap.add_argument("--summarize", type=Path, metavar="JSON", help="print the summary of the rows of an earlier "
                                                                  "--json FILE (no checking)")
    ap.add_argument("--json", nargs="?", const="-", help="write the summary and the rows as JSON (to FILE, or stdout)")
    a = ap.parse_args(argv)
    if a.setup:
        print(f"reallib tasks in {reallib_build.build(force=a.rebuild)}")
        return 0
    if a.summarize:
        print_summary(summarize(json.loads(a.summarize.read_text(encoding="utf-8"))["rows"]))
        return 0
    doc = load(a.data)
    rows = doc["tasks"]
    if a.library:
        rows = [r for r in rows if r["library"] in set(a.library)]
    if a.task:
        rows = [r for r in rows if r["id"] in set(a.task) or r.get("base") in set(a.task)]
    if a.limit:
        keep: set = set()
        per: dict = defaultdict(int)
        for r in rows:
            if r["kind"] == "clean" and per[r["library"]] < a.limit:
                per[r["library"]] += 1
                keep.add(r["id"])
        rows = [r for r in rows if r["id"] in keep or r.get("base") in keep]
    if a.no_variants:
        rows = [r for r in rows if r["kind"] == "clean"]
    if a.export:
        print(f"exported {len(rows)} tasks to {export(doc, rows, a.export)}")
        return 0
    out = run_all(rows, doc["files"], a.workers, a.time_limit, a.classify, progress=not a.json or a.json != "-")
    s = summarize(out)
    if a.json:
        text = json.dumps({"summary": s, "rows": out}, indent=1)
        if a.json == "-":
            print(text)
            return 0
        tmp = Path(a.json + ".tmp")
        tmp.write_text(text)
        os.replace(tmp, a.json)
    print_summary(s)
    return 0


if __name__ == "__main__":
    sys.exit(main())
