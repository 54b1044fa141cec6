"""CPython as the test suite's oracle for SpecGuard's spec language (tests only).

SpecGuard never executes spec source text: ``specguard.formalize.speclang`` evaluates only the IR it built
(the Lean kernel, and its own evaluator, the mirror).  The differential tests check both against
CPython, running here, in a sandboxed subprocess, spec sources **the test suite wrote itself**
(never a user's or a model's spec).  ``python -I -S`` (no site, no environment), an empty working
folder, CPU-time and memory limits; arguments and results travel as SpecGuard's tagged JSON, so
results keep their exact types (``True`` is a bool, ``-0.0`` a float, ``b"a"`` bytes).
"""

from __future__ import annotations

import json
import os
import resource
import subprocess
import sys
import tempfile
from dataclasses import dataclass
from typing import Any, Sequence

from specguard.python import values as vals
from specguard.formalize.speclang import SpecProgram
from specguard.python.values import V

_CHILD = r'''
import json, sys, math
def dec(j):
    k = j[0]
    if k == "none": return None
    if k == "bool": return bool(j[1])
    if k == "int": return int(j[1])
    if k == "float": return float.fromhex(j[1]) if j[1] not in ("inf", "-inf", "nan") else float(j[1])
    if k == "str": return j[1]
    if k == "bytes": return bytes.fromhex(j[1])
    if k == "list": return [dec(x) for x in j[1]]
    if k == "tuple": return tuple(dec(x) for x in j[1])
    if k == "set": return {dec(x) for x in j[1]}
    if k == "frozenset": return frozenset(dec(x) for x in j[1])
    if k == "dict": return {dec(a): dec(b) for a, b in j[1]}
    raise ValueError(k)
def enc(x, d=0):
    if d > 900: raise ValueError("deep")
    t = type(x)
    if x is None: return ["none"]
    if t is bool: return ["bool", x]
    if t is int: return ["int", str(x)]
    if t is float: return ["float", x.hex() if math.isfinite(x) else repr(x)]
    if t is str: return ["str", x]
    if t is bytes: return ["bytes", x.hex()]
    if t in (list, tuple, set, frozenset):
        return [t.__name__, [enc(y, d + 1) for y in x]]
    if t is dict: return ["dict", [[enc(a, d + 1), enc(b, d + 1)] for a, b in x.items()]]
    raise ValueError(t.__name__)
req = json.loads(sys.stdin.read())
raise_lines = {int(k): v for k, v in req["raise_lines"].items()}
g = {"__name__": "specguard_spec"}
out = []
try:
    exec(compile(req["source"], "<spec>", "exec"), g)
except BaseException as e:
    print(json.dumps({"load_error": type(e).__name__ + ": " + str(e)[:200]}))
    sys.exit(0)
for name, args in req["calls"]:
    try:
        v = g[name](*[dec(a) for a in args])
        try:
            out.append({"kind": "ret", "value": enc(v)})
        except (ValueError, RecursionError):
            out.append({"kind": "error", "reason": "result is not plain data"})
    except BaseException as e:
        tb, line = e.__traceback__, None
        while tb is not None:
            if tb.tb_frame.f_code.co_filename == "<spec>":
                line = tb.tb_lineno
            tb = tb.tb_next
        name_ = type(e).__name__
        out.append({"kind": "raise", "name": name_, "explicit": raise_lines.get(line) == name_})
sys.stdout.write(json.dumps({"results": out}))
'''


@dataclass(frozen=True)
class CPythonResult:
    kind: str                 # ret | raise | error
    value: Any = None         # ret: the exact value (V)
    name: str = ""            # raise: exception class name
    explicit: bool = False    # raise: raised by a `raise` statement of the spec


def run_cpython(program: SpecProgram | str, calls: Sequence[tuple[str, Sequence[V]]], *, timeout: float = 20.0,
                memory_mb: int = 1024) -> list[CPythonResult]:
    """Run spec functions with CPython in a sandboxed subprocess (see the module docstring).
    ``program``: a spec the test suite wrote (a checked :class:`SpecProgram`, or plain source
    text for sources outside the subset)."""
    source = program if isinstance(program, str) else program.source
    raise_lines = {} if isinstance(program, str) else program.raise_lines
    req = {"source": source, "raise_lines": {str(k): v for k, v in raise_lines.items()},
           "calls": [[name, [vals.to_json(a) for a in args]] for name, args in calls]}

    def limits() -> None:
        os.setsid()
        cpu = int(timeout) + 1
        resource.setrlimit(resource.RLIMIT_CPU, (cpu, cpu + 1))
        mem = memory_mb * 1024 * 1024
        resource.setrlimit(resource.RLIMIT_AS, (mem, mem))
        resource.setrlimit(resource.RLIMIT_FSIZE, (0, 0))
        resource.setrlimit(resource.RLIMIT_NPROC, (64, 64))

    with tempfile.TemporaryDirectory(prefix="specguard-cpy-") as tmp:
        try:
            proc = subprocess.Popen([sys.executable, "-I", "-S", "-c", _CHILD], stdin=subprocess.PIPE,
                                    stdout=subprocess.PIPE, stderr=subprocess.PIPE, cwd=tmp, env={},
                                    preexec_fn=limits, close_fds=True)
        except OSError as e:
            raise RuntimeError(f"cannot start CPython for the spec: {e}") from None
        try:
            out, err = proc.communicate(json.dumps(req).encode(), timeout=timeout * 2 + 5)
        except subprocess.TimeoutExpired:
            try:
                os.killpg(proc.pid, 9)
            except (ProcessLookupError, PermissionError):
                pass
            proc.communicate()
            return [CPythonResult("error", name="timeout") for _ in calls]
    try:
        data = json.loads(out.decode("utf-8", "replace") or "{}")
    except ValueError:
        data = {}
    if "results" not in data:
        why = data.get("load_error") or err.decode("utf-8", "replace").strip()[-200:] or f"exit {proc.returncode}"
        return [CPythonResult("error", name=why) for _ in calls]
    res = []
    for r in data["results"]:
        if r["kind"] == "ret":
            res.append(CPythonResult("ret", value=vals.from_json(r["value"])))
        elif r["kind"] == "raise":
            res.append(CPythonResult("raise", name=r["name"], explicit=bool(r["explicit"])))
        else:
            res.append(CPythonResult("error", name=r.get("reason", "")))
    return res
