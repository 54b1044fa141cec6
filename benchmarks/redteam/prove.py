"""Prove the corpus labels by running CPython (the developer may; SpecGuard never does).

For every task folder with a ``_solution/`` implementation: run the task's tests with pytest
(``PYTHONPATH=_solution``, in a scratch copy without the description stub), the description's
doctests against the solution module, and ``label.json``'s ``checks`` (prose examples written as
Python expressions).  A satisfiable task must pass all three; an unsatisfiable one ships, where it
can, the implementation the description asks for, and some part must fail (a sanity check of the
argument in ``why``, not a proof).

    python benchmarks/redteam/prove.py [TASK ...]
"""
from __future__ import annotations

import ast
import doctest
import importlib.util
import json
import os
import shutil
import subprocess
import sys
import tempfile
import tomllib
from pathlib import Path

HERE = Path(__file__).resolve().parent


def tasks(names: list[str]) -> list[Path]:
    if names:
        return [Path(n).resolve() for n in names]
    return sorted(p.parent for p in HERE.glob("*/task.toml"))


def description_text(task: Path, cfg: dict) -> str:
    path = task / cfg["description"]
    text = path.read_text()
    if path.suffix != ".py":
        return text
    tree = ast.parse(text)
    docs = [ast.get_docstring(n, clean=False) or "" for n in ast.walk(tree)
            if isinstance(n, (ast.FunctionDef, ast.ClassDef, ast.Module))]
    return "\n".join(docs)


def load_solution(task: Path, module: str):
    spec = importlib.util.spec_from_file_location(module, task / "_solution" / f"{module}.py")
    mod = importlib.util.module_from_spec(spec)
    sys.modules[module] = mod
    spec.loader.exec_module(mod)
    return mod


def run_doctests(text: str, globs: dict) -> tuple[int, int]:
    test = doctest.DocTestParser().get_doctest(text, dict(globs), "description", None, 0)
    runner = doctest.DocTestRunner(verbose=False)
    runner.run(test, out=lambda s: sys.stdout.write("    " + s.replace("\n", "\n    ")))
    return runner.failures, runner.tries


def run_pytest(task: Path, cfg: dict) -> int:
    with tempfile.TemporaryDirectory() as tmp:
        work = Path(tmp) / task.name
        skip = {cfg["description"], "_solution", "label.json", "task.toml"}
        shutil.copytree(task, work, ignore=lambda d, names: [n for n in names
                        if Path(d) == task and n in skip] + ["__pycache__"])
        env = dict(os.environ, PYTHONPATH=str(task / "_solution"), PYTHONDONTWRITEBYTECODE="1")
        proc = subprocess.run([sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider",
                               *cfg["tests"]], cwd=work, env=env, capture_output=True, text=True)
        last = (proc.stdout.strip().splitlines() or ["?"])[-1]
        print(f"    pytest rc={proc.returncode}: {last}")
        return proc.returncode


def prove(task: Path) -> bool:
    cfg = tomllib.loads((task / "task.toml").read_text())
    label = json.loads((task / "label.json").read_text())
    print(f"{task.name}: satisfiable={label['satisfiable']}")
    if not (task / "_solution").is_dir():
        print("    no _solution: label argued in `why` only")
        return not label["satisfiable"]
    module = label.get("module", "lib")
    rc = run_pytest(task, cfg)
    mod = load_solution(task, module)
    fails, tries = run_doctests(description_text(task, cfg), vars(mod))
    print(f"    doctests: {tries - fails}/{tries} pass")
    bad_checks = [c for c in label.get("checks", []) if not eval(c, vars(mod))]  # noqa: S307 - our own checks
    print(f"    checks: {len(label.get('checks', [])) - len(bad_checks)}/{len(label.get('checks', []))} hold"
          + (f" (failing: {bad_checks})" if bad_checks else ""))
    sys.modules.pop(module, None)
    passes = rc in (0, 5) and fails == 0 and not bad_checks   # 5: every test skipped, nothing failed
    ok = passes == label["satisfiable"]
    print("    PROVED" if ok else "    LABEL NOT PROVED")
    return ok


def main() -> int:
    results = [prove(t) for t in tasks(sys.argv[1:])]
    print(f"{sum(results)}/{len(results)} labels proved")
    return 0 if all(results) else 1


if __name__ == "__main__":
    raise SystemExit(main())
