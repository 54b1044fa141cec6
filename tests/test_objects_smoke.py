"""Smoke subset of ``benchmarks/objects`` (issue 13 targets): stored class-based tasks built from
real libraries (boltons, sortedcontainers; checked by running when the benchmark built them):
planted conflicts certified, clean tasks and traps never certified.  Real pipeline, real Lean."""

import json
from pathlib import Path

import pytest

from specguard.check import Options, check_task
from specguard.models import Task, TestSource

DATA = Path(__file__).resolve().parent / "data" / "objects_smoke"
CASES = sorted(DATA.glob("*.json"))
pytestmark = pytest.mark.lean


@pytest.mark.parametrize("path", CASES, ids=[p.stem for p in CASES])
def test_objects_smoke(path, core):
    """#13 targets: a planted conflict (dup: an assertion duplicated with another value in a copy of
    its test; changed: a doctest session replayed with one value changed) is certified; a clean
    task or trap (shared objects, aliasing) is never a certified conflict."""
    c = json.loads(path.read_text())
    task = Task(id=c["id"], description=c["description"], description_path=f"{c['entry']}.py",
                entry_point=c["entry"], tests=(TestSource(kind="python", path="test_case.py", text=c["tests"],
                                                          only_tests=tuple(c["only_tests"])),))
    r = check_task(task, Options(classify=False)).result
    certified = r.verdict.value == "conflict" and r.evidence.value == "certified"
    assert certified == c["planted"], r.reason
