"""One helper for the tests that run ``specguard check --json`` on a description and one test file.

The CLI runs in a subprocess with this checkout on ``PYTHONPATH`` (the real pipeline: real files,
real Lean).  Test files import it with ``from cli_run import check_files`` (``tests/`` is on
``sys.path``: pytest's ``prepend`` import mode puts the directory of ``tests/conftest.py`` there).
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import textwrap
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent


def check_files(tmp_path: Path, desc: str, tests: str, *extra: str, entry_point: str | None = "f",
                desc_name: str = "description.md", dedent: bool = False) -> tuple[int, dict]:
    """Write ``desc`` and ``tests`` into ``tmp_path``, run ``specguard check --json``: (exit code, result)."""
    if dedent:
        desc, tests = textwrap.dedent(desc), textwrap.dedent(tests)
    (tmp_path / desc_name).write_text(desc)
    (tmp_path / "test_task.py").write_text(tests)
    cmd = [sys.executable, "-m", "specguard", "check", "--description", desc_name, "--tests", "test_task.py",
           "--out", "out", "--json"]
    if entry_point is not None:
        cmd += ["--entry-point", entry_point]
    env = dict(os.environ, PYTHONPATH=str(ROOT))
    p = subprocess.run(cmd + list(extra), capture_output=True, text=True, cwd=tmp_path, env=env)
    assert p.returncode in (0, 1, 2), p.stdout + p.stderr
    return p.returncode, json.loads(p.stdout)


def verify_out(tmp_path: Path, desc_name: str = "description.md") -> dict:
    """``specguard verify out --inputs <description> test_task.py --json`` in ``tmp_path`` (after
    :func:`check_files`): the report; its exit code agrees with ``valid``."""
    env = dict(os.environ, PYTHONPATH=str(ROOT))
    p = subprocess.run([sys.executable, "-m", "specguard", "verify", "out", "--inputs", desc_name, "test_task.py",
                        "--json"], capture_output=True, text=True, cwd=tmp_path, env=env)
    rep = json.loads(p.stdout)
    assert (p.returncode == 0) == rep["valid"], p.stdout + p.stderr
    return rep


def run_pytest(folder: Path, impl: str, tests: str) -> int:
    """Write ``impl`` as ``m.py`` and ``tests`` as ``test_real.py`` in ``folder`` and run pytest
    there for real: its exit code (0 = every test passed)."""
    (folder / "m.py").write_text(impl)
    (folder / "test_real.py").write_text(tests)
    args = [sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider", "test_real.py"]
    return subprocess.run(args, cwd=folder, capture_output=True, text=True).returncode


def assert_labels(tmp_path: Path, passing: dict[str, tuple[str, str]], failing: dict[str, tuple[str, str]]) -> None:
    """Each ``name -> (implementation, test module)`` of ``passing`` passes when run, each of
    ``failing`` fails (test modules dedented): the labels of an adversarial suite, proven."""
    for want, cases in ((True, passing), (False, failing)):
        for name, (impl, code) in cases.items():
            d = tmp_path / (("pass_" if want else "fail_") + name)
            d.mkdir()
            assert (run_pytest(d, impl, textwrap.dedent(code)) == 0) == want, name
