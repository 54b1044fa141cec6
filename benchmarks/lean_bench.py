"""Lean latency and memory on this machine.

    python -m benchmarks.lean_bench [--n 50] [--json]

Prints: cold core build time (fresh cache), wall time p50/p95 of a bare file check and of the
full certificate checker (5 Lean runs), and the peak RSS of any Lean process.
Targets (2 cores): bare p50 <= 0.15 s, full checker p50 <= 0.5 s, peak RSS <= 200 MB.
"""

from __future__ import annotations

import argparse
import json
import os
import resource
import statistics
import tempfile
import time


def pct(xs, q):
    xs = sorted(xs)
    return xs[min(len(xs) - 1, int(round(q * (len(xs) - 1))))]


def main(argv=None) -> int:
    ap = argparse.ArgumentParser()
    ap.add_argument("--n", type=int, default=50)
    ap.add_argument("--json", action="store_true")
    args = ap.parse_args(argv)
    from specguard.kernel import certcheck, runner as lean_runner
    from specguard.cli import _DOCTOR_CERT, _DOCTOR_TRUSTED

    with tempfile.TemporaryDirectory() as tmp:
        old = os.environ.get("SPECGUARD_CACHE")
        os.environ["SPECGUARD_CACHE"] = tmp
        t = time.monotonic()
        lean_runner.ensure_core()
        cold = time.monotonic() - t
        if old is None:
            del os.environ["SPECGUARD_CACHE"]
        else:
            os.environ["SPECGUARD_CACHE"] = old
        lean_runner.find_runtime.cache_clear()
    lean_runner.ensure_core()
    bare_text = ("prelude\nimport SpecGuard.Core\nimport SpecGuard.Value\n"
                 "theorem t : Eq (Nat.beq (Nat.mul 123456789 987654321) 121932631112635269) Bool.true := Eq.refl Bool.true\n")
    bare, full = [], []
    for _ in range(args.n):
        t = time.monotonic()
        assert lean_runner.check_text(bare_text).ok
        bare.append(time.monotonic() - t)
    for _ in range(args.n):
        t = time.monotonic()
        assert certcheck.check_certificate(_DOCTOR_TRUSTED, _DOCTOR_CERT, ["Conflict"]).accepted
        full.append(time.monotonic() - t)
    rss_mb = resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss / 1024
    rep = {"cold_core_build_s": round(cold, 3),
           "bare_check_s": {"p50": round(statistics.median(bare), 4), "p95": round(pct(bare, 0.95), 4)},
           "full_checker_s": {"p50": round(statistics.median(full), 4), "p95": round(pct(full, 0.95), 4)},
           "peak_rss_mb": round(rss_mb, 1), "n": args.n, "runtime": lean_runner.find_runtime().kind}
    if args.json:
        print(json.dumps(rep, indent=2))
    else:
        print(f"runtime: {rep['runtime']}")
        print(f"cold core build: {rep['cold_core_build_s']} s")
        print(f"bare check   p50 {rep['bare_check_s']['p50']} s  p95 {rep['bare_check_s']['p95']} s  (n={args.n})")
        print(f"full checker p50 {rep['full_checker_s']['p50']} s  p95 {rep['full_checker_s']['p95']} s  (n={args.n})")
        print(f"peak RSS of a Lean process: {rep['peak_rss_mb']} MB")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
