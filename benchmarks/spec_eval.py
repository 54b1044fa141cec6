"""Evaluating specs: the Lean kernel vs SpecGuard's evaluator vs CPython, at growing input sizes.

    python -m benchmarks.spec_eval [--max-seconds 30] [--json] [--only NAME]
    python -m benchmarks.spec_eval --mirror    # SpecGuard's evaluator alone: hashed vs reference scans

For each representative spec and input size n, prints:

* ``steps``: the cost SpecGuard's evaluator (the mirror) counts, which is what the kernel budget
  (``speclang.DEFAULT_KERNEL_BUDGET``, ``--spec-budget``) is measured in;
* ``kernel``: seconds for Lean to elaborate and kernel-check ``Py.runCanon P 0 args = expected``
  (one Lean run, minus a baseline run with the same program and a trivial theorem);
* ``mirror``: seconds for SpecGuard's own evaluator of the checked IR (what SpecGuard uses beyond
  the budget: execution evidence; SpecGuard never runs a spec's source);
* ``cpython``: seconds for CPython to run the same call in process (the benchmark's *own* spec
  sources below, never a user's), and whether its result agrees;
* where the budget is exceeded (steps > budget), and where the kernel exceeds ``--max-seconds``.

Sizes grow geometrically until the kernel takes longer than ``--max-seconds`` (or a Lean run
fails), so the table also shows the size at which SpecGuard stops asking the kernel and reports
its own evaluator's result instead (execution evidence).
"""

from __future__ import annotations

import argparse
import json
import random
import time

SPECS = {
    "sum_loop": ('''
def reference(xs: list[int]) -> int:
    total = 0
    for x in xs:
        total += x * x
    return total
''', lambda n, r: ([r.randint(-1000, 1000) for _ in range(n)],)),
    "while_count": ('''
def reference(n: int) -> int:
    i = 0
    steps = 0
    while i < n:
        i += 1
        if i % 3 == 0:
            steps += 1
    return steps
''', lambda n, r: (n,)),
    "sorted_comp": ('''
def reference(xs: list[int]) -> list[int]:
    return sorted([x * x for x in xs if x % 2 == 0], reverse=True)
''', lambda n, r: ([r.randint(-1000, 1000) for _ in range(n)],)),
    "vowels_str": ('''
def reference(s: str) -> int:
    return sum(1 for c in s.lower() if c in "aeiou")
''', lambda n, r: ("".join(r.choice("abcdeiouxyz ") for _ in range(n)),)),
    "word_counts": ('''
def reference(words: list[str]) -> dict:
    counts = {}
    for w in words:
        counts[w] = counts.get(w, 0) + 1
    return counts
''', lambda n, r: ([r.choice(["a", "bb", "cc", "d", "e", "ff", "g", "h"]) for _ in range(n)],)),
    "fib_rec": ('''
def reference(n: int) -> int:
    if n < 2:
        return n
    return reference(n - 1) + reference(n - 2)
''', lambda n, r: (n,)),
    "lcs_table": ('''
def reference(s: str, t: str) -> int:
    dp = [[0] * (len(t) + 1) for _ in range(len(s) + 1)]
    for i in range(1, len(s) + 1):
        for j in range(1, len(t) + 1):
            if s[i - 1] == t[j - 1]:
                dp[i][j] = dp[i - 1][j - 1] + 1
            else:
                dp[i][j] = max(dp[i - 1][j], dp[i][j - 1])
    return dp[len(s)][len(t)]
''', lambda n, r: ("".join(r.choice("ab") for _ in range(n)), "".join(r.choice("ab") for _ in range(n)))),
}

SIZES = {"fib_rec": [5, 8, 11, 14, 17, 20, 23], "lcs_table": [2, 4, 8, 12, 16, 24, 32, 48]}
DEFAULT_SIZES = [4, 16, 64, 256, 1024, 4096, 16384]


def _lean_file(prog: str, thm: str) -> str:
    return ("prelude\nimport SpecGuard.Core\nimport SpecGuard.Value\nimport SpecGuard.Py\nnoncomputable section\n"
            f"open SpecGuard\ndef P : Nat → List Val → Option Py.Res := {prog}\n{thm}\n")


def measure(name: str, max_seconds: float, seed: int = 0) -> list[dict]:
    from specguard.kernel import certcheck, emit, runner as lean_runner
    from specguard.formalize import speclang
    from specguard.python import values as vals
    src, gen = SPECS[name]
    p = speclang.SpecProgram(src, f"{name}.py")
    prog = p.lean_prog()
    opts = list(certcheck.LEAN_OPTIONS)
    base = lean_runner.check_text(_lean_file(prog, "theorem base : True := True.intro"), timeout=120, options=opts)
    rows = []
    r = random.Random(seed)
    for n in SIZES.get(name, DEFAULT_SIZES):
        raw = gen(n, r)
        args = tuple(vals.from_python(a) for a in raw)
        m = speclang.Mirror(p.fns, p.fuel, step_limit=10**9, budget=speclang.EvalBudget(10**9, 3600.0, 1 << 14))
        t = time.monotonic()
        try:
            with m:
                expected = speclang.m_canon(m.call(p.index["reference"], [speclang.to_mirror(a) for a in args]))
        except Exception as e:  # noqa: BLE001 - reported, the benchmark goes on
            rows.append({"spec": name, "n": n, "error": f"mirror: {e}"})
            break
        mirror_s = time.monotonic() - t
        g: dict = {}
        exec(compile(src, name, "exec"), g)  # noqa: S102 - the benchmark's own spec sources, never a user's
        t = time.monotonic()
        got = g["reference"](*raw)
        inproc_s = time.monotonic() - t
        ok_cp = vals.canon(vals.from_python(got)) == expected
        argl = speclang._lean_list([emit.lean_val(a) for a in args])
        thm = (f"theorem e : Eq (Py.runCanon P 0 {argl}) (Option.some (Py.Res.ret {emit.lean_val(expected)})) "
               f":= Eq.refl _")
        t = time.monotonic()
        try:
            res = lean_runner.check_text(_lean_file(prog, thm), timeout=max_seconds * 2, options=opts)
            kernel_s = max(0.0, res.seconds - base.seconds)
            ok = res.ok
            err = None if res.ok else (str(res.errors[0])[:120] if res.errors else f"exit {res.exit_code}")
        except Exception as e:  # noqa: BLE001 - a timeout ends this spec's series
            kernel_s, ok, err = time.monotonic() - t, False, type(e).__name__
        row = {"spec": name, "n": n, "steps": m.steps, "over_budget": m.steps > speclang.DEFAULT_KERNEL_BUDGET,
               "kernel_s": round(kernel_s, 3), "kernel_ok": ok,
               "cpython_inprocess_s": round(inproc_s, 6), "mirror_s": round(mirror_s, 4),
               "cpython_agrees": ok_cp}
        if err:
            row["kernel_error"] = err
        rows.append(row)
        if not ok or kernel_s > max_seconds:
            break
    return rows


# the evaluator alone (``--mirror``): state searches shaped as real model specs' (lcbhard_12, 56)
MIRROR_SPECS = {
    "bfs_dict": ('''
def reference(n: int) -> int:
    dist = {0: 0}
    queue = [0]
    head = 0
    while head < len(queue):
        cur = queue[head]
        head = head + 1
        for nxt in [(cur * 3 + 1) % n, (cur * 7 + 2) % n]:
            if nxt in dist:
                continue
            dist[nxt] = dist[cur] + 1
            queue.append(nxt)
    return sum(dist.values())
''', [500, 1000, 2000]),
    "bfs_list": ('''
def reference(n: int) -> int:
    dist = [-1 for _ in range(n)]
    dist[0] = 0
    queue = [0]
    head = 0
    while head < len(queue):
        cur = queue[head]
        head = head + 1
        for nxt in [(cur * 3 + 1) % n, (cur * 7 + 2) % n]:
            if dist[nxt] < 0:
                dist[nxt] = dist[cur] + 1
                queue.append(nxt)
    return sum(dist)
''', [500, 1000, 2500]),
    "while_count": (SPECS["while_count"][0], [10000, 100000]),
}


def measure_mirror() -> list[dict]:
    """Seconds per charged step of SpecGuard's evaluator, with hashed dict / set lookups
    (``speclang.HASHED``) and with the reference scans; the kernel steps are the same in both."""
    from specguard.formalize import speclang
    from specguard.python.values import V
    rows = []
    for name, (src, sizes) in MIRROR_SPECS.items():
        for n in sizes:
            row = {"spec": name, "n": n}
            for hashed in (True, False):
                speclang.HASHED = hashed
                try:
                    p = speclang.SpecProgram(src, f"{name}.py")
                    b = speclang.EvalBudget(10**10, 3600.0, 1 << 14)
                    t = time.monotonic()
                    out = p.outcome([V("int", n)], step_limit=10**10, budget=b)
                    secs = time.monotonic() - t
                finally:
                    speclang.HASHED = True
                tag = "hashed" if hashed else "scan"
                row.update({f"{tag}_s": round(secs, 3), f"{tag}_charged": b.used, "kernel_steps": out.steps,
                            f"{tag}_us_per_step": round(1e6 * secs / max(b.used, 1), 2), "kind": out.kind})
            rows.append(row)
    return rows


def main(argv=None) -> int:
    ap = argparse.ArgumentParser()
    ap.add_argument("--mirror", action="store_true",
                    help="SpecGuard's evaluator alone (no Lean): seconds per charged step, hashed vs scans")
    ap.add_argument("--max-seconds", type=float, default=30.0, help="stop growing n beyond this kernel time")
    ap.add_argument("--only", help="one spec")
    ap.add_argument("--json", action="store_true")
    args = ap.parse_args(argv)
    if args.mirror:
        rows = measure_mirror()
        for r in rows if not args.json else []:
            print(f"{r['spec']:<12} {r['n']:>6} {r['kind']:<4} kernel steps {r['kernel_steps']:>11}  hashed "
                  f"{r['hashed_s']:>7.2f} s {r['hashed_charged']:>9} charged ({r['hashed_us_per_step']} us/step)"
                  f"  scans {r['scan_s']:>7.2f} s {r['scan_charged']:>10} charged ({r['scan_us_per_step']} us/step)")
        if args.json:
            print(json.dumps(rows, indent=2))
        return 0
    from specguard.kernel import runner as lean_runner
    from specguard.formalize import speclang
    lean_runner.ensure_core()
    names = [args.only] if args.only else list(SPECS)
    all_rows = []
    for name in names:
        all_rows += measure(name, args.max_seconds)
    if args.json:
        print(json.dumps(all_rows, indent=2))
        return 0
    budget = speclang.DEFAULT_KERNEL_BUDGET
    print(f"kernel budget: {budget} steps per input (beyond: SpecGuard's evaluator, execution evidence)")
    print(f"{'spec':<12} {'n':>6} {'steps':>9} {'kernel s':>9} {'ms/1k steps':>11} {'mirror s':>10} "
          f"{'cpython s':>12}  note")
    for r in all_rows:
        if "error" in r:
            print(f"{r['spec']:<12} {r['n']:>6}  {r['error']}")
            continue
        per = 1000 * r["kernel_s"] / max(r["steps"], 1) * 1000 / 1000
        note = []
        if r["over_budget"]:
            note.append("over budget -> SpecGuard's evaluator")
        if not r["kernel_ok"]:
            note.append(f"kernel failed: {r.get('kernel_error')}")
        if not r["cpython_agrees"]:
            note.append("CPython disagrees!")
        print(f"{r['spec']:<12} {r['n']:>6} {r['steps']:>9} {r['kernel_s']:>9.3f} {per * 1000 / 1000:>11.2f} "
              f"{r['mirror_s']:>10.4f} {r['cpython_inprocess_s']:>12.6f}  {'; '.join(note)}")
    print()
    for name in names:
        rows = [r for r in all_rows if r["spec"] == name and "error" not in r]
        first_over = next((r["n"] for r in rows if r["over_budget"]), None)
        slow = next((r["n"] for r in rows if r["kernel_s"] > args.max_seconds or not r["kernel_ok"]), None)
        print(f"{name}: budget exceeded from n = {first_over if first_over is not None else '> ' + str(rows[-1]['n'])}"
              f"; kernel over {args.max_seconds:g} s (or failing) from n = {slow if slow is not None else '> ' + str(rows[-1]['n'])}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
