"""Traps for the forms read through names bound by other calls, functions as values and assertion
helpers (#12.1, #12.4, #12.7): each would be a false certificate if the reader took the form for
more than Python establishes."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from specguard.formalize.tests import formalize_tests
from specguard.models import TestSource

ROOT = Path(__file__).resolve().parent.parent.parent


def read(tests: str, target: str = "f"):
    tf = formalize_tests([TestSource(kind="python", path="test_t.py", text=tests)], target)
    return ({d.text: (d.call.source(), d.expect.source()) for d in tf.demands},
            {u.text: u.reason for u in tf.unsupported}, tf)


def check(tmp_path, desc: str, tests: str):
    (tmp_path / "description.md").write_text(desc)
    (tmp_path / "test_task.py").write_text(tests)
    env = dict(os.environ, PYTHONPATH=str(ROOT))
    p = subprocess.run([sys.executable, "-m", "specguard", "check", "--description", "description.md", "--tests",
                        "test_task.py", "--entry-point", "f", "--out", "out", "--json"],
                       capture_output=True, text=True, cwd=tmp_path, env=env)
    assert p.returncode in (0, 1, 2), p.stdout + p.stderr
    return json.loads(p.stdout)


def test_calls_depending_on_a_lambda_parameter_are_not_one_call():
    """#12.4, #12.7: `f(c)` inside `lambda c: ...` or a comprehension over `c` is one call per item,
    not the call an observation reads; a lambda default or a walrus does not hide that either."""
    _, u, tf = read("from m import f\n\ndef test_a():\n"
                    "    assert all(map(lambda c: f(c) == 1, [1, 2]))\n"
                    "    assert [f(c) for c in (1, 2)] == [1, 1]\n"
                    "    assert all(f(c) == 1 for c in (1, 2))\n"
                    "    assert (lambda c: f(c))(1) == 1\n")
    assert not tf.demands
    assert len(u) == 4
