"""Golden end-to-end runs of the real CLI over examples/ (real Lean kernel)."""

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
pytestmark = [pytest.mark.lean, pytest.mark.golden]


def run(*args, cwd=None):
    env = dict(os.environ, PYTHONPATH=str(ROOT))
    return subprocess.run([sys.executable, "-m", "specguard", *args], capture_output=True, text=True,
                          cwd=cwd or ROOT, env=env)


def test_conflict_example(tmp_path, core):
    out = tmp_path / "b"
    p = run("check", "examples/conflict", "--out", str(out), "--json")
    assert p.returncode == 1, p.stdout + p.stderr
    r = json.loads(p.stdout)
    assert r["verdict"] == "conflict" and r["evidence"] == "certified"
    locs = {(i["source"], i["loc"]["file"].split("/")[-1], i["loc"]["line"]) for i in r["conflict"]["items"]}
    assert ("test", "test_clamp_sum.py", 10) in locs
    assert any(s == "description" and f == "clamp_sum.py" for s, f, _ in locs)
    files = sorted(x.name for x in out.iterdir())
    assert files == ["cert.lean", "claim.lean", "manifest.json", "result.json", "spec.lean", "tests.lean"]
    man = json.loads((out / "manifest.json").read_text())
    assert man["lean_version"] == "4.35.0" and "Conflict" in man["claims"]
    assert {i["role"] for i in man["inputs"]} >= {"description", "tests"}


def test_conflict_summary_names_lines(core, tmp_path):
    p = run("check", "examples/conflict", "--out", str(tmp_path / "b"))
    assert p.returncode == 1
    assert "CONFLICT (proof checked by the Lean kernel)" in p.stdout
    assert "test_clamp_sum.py:10  assert clamp_sum([5, 5, 5], 12) == 15" in p.stdout
    assert "re-check: specguard verify" in p.stdout


def test_clean_example(tmp_path, core):
    p = run("check", "examples/clean", "--out", str(tmp_path / "b"), "--json")
    assert p.returncode == 0, p.stdout + p.stderr
    r = json.loads(p.stdout)
    assert r["verdict"] == "no-conflict" and r["evidence"] == "certified"
    assert {t["status"] for t in r["tests"]} == {"entailed"}


def test_inconclusive_example(tmp_path, core):
    p = run("check", "examples/inconclusive", "--out", str(tmp_path / "b"), "--json")
    assert p.returncode == 2, p.stdout + p.stderr
    r = json.loads(p.stdout)
    assert r["verdict"] == "inconclusive" and r["reason"]
    assert any(u["loc"]["line"] == 19 for u in r["unsupported"])


def test_missing_task_is_a_clear_error(tmp_path):
    p = run("check", str(tmp_path / "nope"))
    assert p.returncode == 3
    assert "nope" in p.stderr and "Traceback" not in p.stderr


def test_no_arguments_is_usage_error():
    p = run("check")
    assert p.returncode == 3 and "Traceback" not in p.stderr


def test_parts_with_syntax_error_file(tmp_path, core):
    (tmp_path / "d.py").write_text('def f(x: int) -> int:\n    """\n    >>> f(2)\n    4\n    """\n')
    (tmp_path / "test_ok.py").write_text("from m import f\n\ndef test_a():\n    assert f(2) == 5\n")
    (tmp_path / "test_bad.py").write_text("def test_b(:\n")
    p = run("check", "--description", str(tmp_path / "d.py"), "--tests", str(tmp_path / "test_ok.py"),
            str(tmp_path / "test_bad.py"), "--entry-point", "f", "--out", str(tmp_path / "b"), "--json")
    assert p.returncode == 1, p.stdout + p.stderr
    r = json.loads(p.stdout)
    assert r["verdict"] == "conflict"
    assert any("test_bad.py" in u["loc"]["file"] for u in r["unsupported"])


def test_lcb_task_from_shared_data(tmp_path, core, shared_lcb):
    p = run("check", str(shared_lcb / "conflicting.json"), "--task-id", "lcbhard_0", "--suite", "original",
            "--out", str(tmp_path / "b"), "--json")
    # the clean suite: no conflict; tests the docstring does not decide keep it from being cleared
    assert p.returncode == 2, p.stdout + p.stderr
    r = json.loads(p.stdout)
    assert r["verdict"] == "inconclusive" and "left open" in r["reason"]
    assert "Consistent" in r["certificate"]["claims"] and r["certificate"]["accepted"]


def test_outputs_are_atomic_on_rerun(tmp_path, core):
    out = tmp_path / "b"
    assert run("check", "examples/conflict", "--out", str(out)).returncode == 1
    assert run("check", "examples/clean", "--out", str(out)).returncode == 0
    assert not (out / "cert.lean").exists() or json.loads((out / "result.json").read_text())["verdict"] == "no-conflict"
    assert not [x for x in tmp_path.iterdir() if x.name.startswith(".")]


def test_existing_non_bundle_folder_is_not_replaced(tmp_path, core):
    out = tmp_path / "precious"
    out.mkdir()
    (out / "notes.txt").write_text("keep me")
    p = run("check", "examples/conflict", "--out", str(out))
    assert p.returncode == 3 and (out / "notes.txt").read_text() == "keep me"


def test_schema_command_matches_repo(tmp_path):
    p = run("schema", "--out", str(tmp_path))
    assert p.returncode == 0
    for name in ("result.schema.json", "manifest.schema.json"):
        assert (tmp_path / name).read_text() == (ROOT / "schemas" / name).read_text()
