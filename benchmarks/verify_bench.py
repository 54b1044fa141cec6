"""``specguard verify`` wall time, process start included.

    python -m benchmarks.verify_bench [--bundles 30] [--repeat 1] [--inputs] [--only small|lcb] [--json]

Builds certified bundles first (not timed), in two groups of ``--bundles`` each:

* ``small``: generated tasks, a stub with doctests and a test file that agrees or disagrees with
  them (the size of a typical hand-written task: 1-3 test assertions);
* ``lcb``: LiveCodeBench tasks from ``../shared/data/livecodebench`` (both suites), when present:
  up to ~20 tests each, with per-test Entailed/LeftOpen witness proofs in the certificate.

Then times ``python -m specguard verify BUNDLE`` once per bundle (``--repeat`` times), each a fresh
process, sequentially, and prints the wall-time p50/p95/max per group (and the CPU time, which a busy
machine inflates less); with ``--inputs`` also the time with
``--inputs`` (re-deriving the claim from the task's files).
Target (2 cores): p50 and p95 <= 1 s on the small group.
"""

from __future__ import annotations

import argparse
import json
import os
import resource
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
LCB = ROOT.parent / "shared" / "data" / "livecodebench"
TARGET_S = 1.0


def pct(xs, q):
    xs = sorted(xs)
    return xs[min(len(xs) - 1, int(round(q * (len(xs) - 1))))]


def _synthetic(base: Path, n: int) -> list[tuple[Path, list[Path], dict]]:
    """Small tasks: a stub with doctests, a test file that agrees or disagrees with one of them."""
    out = []
    for i in range(n):
        d = base / f"task{i}"
        d.mkdir(parents=True)
        k = i + 2
        (d / "f.py").write_text(f'def f(x: int) -> int:\n    """Square x.\n\n    >>> f({k})\n    {k * k}\n'
                                f'    >>> f(1)\n    1\n    """\n')
        expected = k * k + (i % 2)
        (d / "test_f.py").write_text(f"from f import f\n\n\ndef test_f():\n    assert f({k}) == {expected}\n"
                                     f"    assert f(0) == 0\n")
        out.append((d, [d / "f.py", d / "test_f.py"], {"description": str(d / "f.py"), "tests": [str(d / "test_f.py")]}))
    return out


def build(base: Path, n: int, group: str) -> list[tuple[Path, list[Path]]]:
    """Up to ``n`` certified bundles of ``group`` (bundle folder, inputs)."""
    from specguard import load
    from specguard.outputs.bundle import write_bundle
    from specguard.check import check_task
    tasks = []
    if group == "lcb":
        for fn in ("conflicting.json", "oneoff.json"):
            p = LCB / fn
            if p.is_file():
                for tid in load.list_lcb_ids(str(p)):
                    for suite in ("auto", "original"):
                        tasks.append((lambda p=p, tid=tid, suite=suite: load.load_lcb(str(p), tid, suite), [p]))
    else:
        for d, inputs, parts in _synthetic(base / "synthetic", n + 4):
            tasks.append((lambda parts=parts: load.load_from_parts(parts["description"], parts["tests"]), inputs))
    bundles: list[tuple[Path, list[Path]]] = []
    for i, (make, inputs) in enumerate(tasks):
        if len(bundles) >= n:
            break
        try:
            task = make()
        except Exception:  # noqa: BLE001 - a task the loader refuses is simply not used
            continue
        b = check_task(task)
        if not b.claims:
            continue
        out = base / f"{group}{i:03d}"
        write_bundle(out, task, b)
        bundles.append((out, inputs))
    return bundles


def time_verify(bundle: Path, inputs: list[Path] | None) -> float:
    cmd = [sys.executable, "-m", "specguard", "verify", str(bundle)]
    if inputs:
        cmd += ["--inputs", *map(str, inputs)]
    env = dict(os.environ, PYTHONPATH=str(ROOT))
    r0 = resource.getrusage(resource.RUSAGE_CHILDREN)
    t = time.monotonic()
    p = subprocess.run(cmd, capture_output=True, text=True, env=env, cwd=str(ROOT))
    dt = time.monotonic() - t
    r1 = resource.getrusage(resource.RUSAGE_CHILDREN)
    CPU.append(r1.ru_utime - r0.ru_utime + r1.ru_stime - r0.ru_stime)
    if p.returncode not in (0, 2):        # 2: NOT CERTIFIED, an intact bundle whose verdict carries no kernel claim
        raise SystemExit(f"verify failed on a genuine bundle {bundle}: {p.stdout[-500:]}{p.stderr[-500:]}")
    return dt


CPU: list[float] = []   # CPU seconds (user + sys) of each timed run, Lean processes included


def stats(xs: list[float]) -> dict:
    return {"n": len(xs), "p50": round(statistics.median(xs), 3), "p95": round(pct(xs, 0.95), 3),
            "max": round(max(xs), 3), "mean": round(statistics.fmean(xs), 3)}


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--bundles", type=int, default=30, help="bundles per group (at least 30; default 30)")
    ap.add_argument("--repeat", type=int, default=1, help="verify each bundle this many times")
    ap.add_argument("--inputs", action="store_true", help="also time `verify --inputs`")
    ap.add_argument("--only", choices=["small", "lcb"], help="one group only")
    ap.add_argument("--json", action="store_true")
    args = ap.parse_args(argv)
    sys.path.insert(0, str(ROOT))
    from specguard.kernel import runner as lean_runner
    lean_runner.ensure_core()
    groups = [args.only] if args.only else (["small", "lcb"] if LCB.is_dir() else ["small"])
    rep: dict = {"cpus": os.cpu_count(), "target_s": TARGET_S, "load_avg_before": os.getloadavg()[0]}
    with tempfile.TemporaryDirectory(prefix="specguard-verify-bench-") as tmp:
        for group in groups:
            t = time.monotonic()
            bundles = build(Path(tmp), max(30, args.bundles), group)
            setup = time.monotonic() - t
            time_verify(bundles[0][0], None)                    # warm the OS caches once
            CPU.clear()
            plain = [time_verify(b, None) for _ in range(args.repeat) for b, _ in bundles]
            g = {"bundles": len(bundles), "setup_s": round(setup, 1), "verify_s": stats(plain),
                 "verify_cpu_s": stats(list(CPU))}
            if args.inputs:
                g["verify_with_inputs_s"] = stats([time_verify(b, i) for _ in range(args.repeat) for b, i in bundles])
            rep[group] = g
    rep["load_avg_after"] = os.getloadavg()[0]
    main_group = rep[groups[0]]["verify_s"]
    rep["meets_target"] = main_group["p50"] <= TARGET_S and main_group["p95"] <= TARGET_S
    if args.json:
        print(json.dumps(rep, indent=2))
    else:
        print(f"specguard verify, process start included ({os.cpu_count()} CPUs, load average "
              f"{rep['load_avg_before']:.1f} before, {rep['load_avg_after']:.1f} after):")
        for group in groups:
            g = rep[group]
            v = g["verify_s"]
            c = g["verify_cpu_s"]
            print(f"  {group}: {g['bundles']} certified bundles: wall p50 {v['p50']:.3f} s, p95 {v['p95']:.3f} s, "
                  f"max {v['max']:.3f} s, mean {v['mean']:.3f} s; CPU (user+sys, Lean included) "
                  f"p50 {c['p50']:.3f} s, p95 {c['p95']:.3f} s")
            if "verify_with_inputs_s" in g:
                w = g["verify_with_inputs_s"]
                print(f"  {group} with --inputs: p50 {w['p50']:.3f} s, p95 {w['p95']:.3f} s, max {w['max']:.3f} s")
        print(f"  target p50/p95 <= {TARGET_S:g} s on {groups[0]}: {'met' if rep['meets_target'] else 'NOT met'}")
    return 0 if rep["meets_target"] else 1


if __name__ == "__main__":
    raise SystemExit(main())
