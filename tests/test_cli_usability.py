"""#14.4, #14.5, #14.8: exit codes, clean failures, shared flags and readable outputs of the real CLI.

Most cases fail before any Lean run (cheap); the others run the real kernel once or twice.
"""

import json
import os
import signal
import stat
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
EX = ROOT / "examples"


def run(*args, cwd=None, env=None):
    e = dict(os.environ, PYTHONPATH=str(ROOT), **(env or {}))
    return subprocess.run([sys.executable, "-m", "specguard", *map(str, args)], capture_output=True, text=True,
                          cwd=cwd or ROOT, env=e)


def clean_error(p, *words):
    assert p.returncode == 3, (p.returncode, p.stdout, p.stderr)
    assert "Traceback" not in p.stderr and "specguard: error:" in p.stderr, p.stderr
    for w in words:
        assert w in p.stderr, p.stderr


# -- #14.4: failures before any work ---------------------------------------------------------------

def test_out_naming_a_file_is_an_error_before_any_work(tmp_path):
    """#14.4: check/batch/schema --out naming a file: exit 3 (not a traceback with exit 1), nothing written."""
    f = tmp_path / "afile"
    f.write_text("x")
    clean_error(run("check", EX / "conflict", "--out", f), "not a folder")
    clean_error(run("check", EX / "conflict", "--out", f / "sub"), "is a file")
    clean_error(run("batch", EX / "conflict", "--out", f), "not a folder")
    clean_error(run("schema", "--out", f), "not a folder")
    assert f.read_text() == "x" and sorted(x.name for x in tmp_path.iterdir()) == ["afile"]


def test_report_and_export_outputs_naming_a_folder(tmp_path):
    """#14.4: report --out/--html/--sarif and export -o naming a folder: a clean error, no temp file."""
    d = tmp_path / "dir"
    d.mkdir()
    for flag in ("--out", "--html", "--sarif"):
        clean_error(run("report", tmp_path, flag, d), "is a folder")
    clean_error(run("export", tmp_path, "-o", d), "is a folder")
    assert list(d.iterdir()) == [] and sorted(x.name for x in tmp_path.iterdir()) == ["dir"]


def test_atomic_write_leaves_no_temp_file(tmp_path):
    """#14.4: an atomic write that fails (the target is a folder) raises a SpecGuardError and
    leaves no temporary file behind; the file it writes is as readable as the umask allows."""
    from specguard.outputs.batch import atomic_write
    from specguard.errors import SpecGuardError
    (tmp_path / "x").mkdir()
    with pytest.raises(SpecGuardError):
        atomic_write(tmp_path / "x", "data")
    old = os.umask(0o022)
    try:
        atomic_write(tmp_path / "y.md", "data")
    finally:
        os.umask(old)
    assert sorted(p.name for p in tmp_path.iterdir()) == ["x", "y.md"]
    assert stat.S_IMODE((tmp_path / "y.md").stat().st_mode) == 0o644


def test_description_that_looks_like_a_path_must_exist(tmp_path):
    """#14.4: a mistyped description path is an error, not the description text."""
    tests = EX / "conflict" / "test_clamp_sum.py"
    for d in ("docs/clamp.md", "clamp_sum.py", "./desc"):
        clean_error(run("check", "--description", d, "--tests", tests, "--out", tmp_path / "b"),
                    "description file not found")
    assert not (tmp_path / "b").exists()


def test_entry_point_nobody_mentions_is_an_error(tmp_path):
    """#14.4: --entry-point that neither the description nor any test mentions."""
    p = run("check", "--description", EX / "conflict" / "clamp_sum.py", "--tests", EX / "conflict" / "test_clamp_sum.py",
            "--entry-point", "clamp_summ", "--out", tmp_path / "b")
    clean_error(p, "clamp_summ", "neither the description nor any test")
    clean_error(run("check", EX / "conflict", "--entry-point", "not-a-name", "--out", tmp_path / "b"), "not a Python name")


def test_unreadable_test_files_exit_3(tmp_path):
    """#14.4: every test file a syntax error or not UTF-8: exit 3 naming each, not 'inconclusive'."""
    (tmp_path / "test_bad.py").write_text("def test_b(:\n")
    (tmp_path / "test_bin.py").write_bytes(b"\xff\xfe\x00 not text\n")
    p = run("check", "--description", EX / "conflict" / "clamp_sum.py", "--tests", tmp_path / "test_bad.py",
            tmp_path / "test_bin.py", "--out", tmp_path / "b")
    clean_error(p, "test_bad.py:1", "syntax error", "test_bin.py", "not UTF-8")
    assert not (tmp_path / "b").exists()


def test_spec_flags_checked(tmp_path):
    """#14.5: --spec-budget without --spec, --context without a model: errors, not silently ignored."""
    clean_error(run("check", EX / "conflict", "--spec-budget", "5", "--out", tmp_path / "b"), "--spec-budget")
    clean_error(run("check", EX / "conflict", "--context", EX / "conflict" / "clamp_sum.py", "--out", tmp_path / "b"),
                "--context")


def test_memory_and_recursion_errors_are_clean(tmp_path, monkeypatch, capsys):
    """#14.4: MemoryError / RecursionError / an internal error reach the user as one line, exit 3."""
    from specguard import cli

    for exc in (MemoryError(), RecursionError("maximum recursion depth exceeded"), ZeroDivisionError("boom")):
        def boom(args, exc=exc):
            raise exc
        monkeypatch.setattr(cli, "cmd_schema", boom)
        assert cli.main(["schema", "--out", str(tmp_path / "s")]) == 3
        err = capsys.readouterr().err
        assert "Traceback" not in err and err.startswith("specguard:"), err


# -- #14.5: flags ----------------------------------------------------------------------------------

def test_check_and_batch_share_task_flags():
    """#14.5: check and batch accept the same task flags, defaults shown, no markup or internal names."""
    from specguard.cli import build_parser
    ap = build_parser()
    sub = next(a for a in ap._actions if a.__class__.__name__ == "_SubParsersAction")

    def flags(name):
        return {o for a in sub.choices[name]._actions for o in a.option_strings}
    task_flags = {"--no-classify", "--spec", "--spec-budget", "--context", "--model", "--samples", "--min-agree",
                  "--no-judge", "--max-task-tokens", "--max-task-cost", "--model-timeout", "--model-retries",
                  "--model-cache", "--no-model-cache", "--timeout", "--config"}
    assert task_flags <= flags("check") and task_flags <= flags("batch")
    for name in ("check", "batch", "report", "verify", "export", "doctor", "schema"):
        text = run(name, "--help").stdout
        assert "``" not in text and "`" not in text and " cmd" not in text, (name, text)
    top = run("--help").stdout
    assert "``" not in top and "{check," not in top and "COMMAND" in top
    for a in sub.choices["batch"]._actions:
        if a.option_strings and a.help and a.default not in (None, False, [], argparse_suppress()):
            assert "default" in a.help, (a.option_strings, a.help)


def argparse_suppress():
    import argparse
    return argparse.SUPPRESS


def test_missing_subcommand_names_no_internal_dest():
    """#14.5: `specguard` alone says a COMMAND is required (not `cmd`)."""
    p = run()
    assert p.returncode == 3 and "cmd" not in p.stderr and "COMMAND" in p.stderr


@pytest.mark.lean
def test_verbosity_before_the_subcommand_and_quiet_everywhere(tmp_path, core):
    """#14.5 + #14.4: -q before or after the subcommand silences stdout (schema, check, verify,
    report); --json still prints, with the bundle path; bundles are readable by others (#14.8)."""
    p = run("-q", "schema", "--out", tmp_path / "s")
    assert p.returncode == 0 and p.stdout == "" and any((tmp_path / "s").iterdir())
    assert run("schema", "-q", "--out", tmp_path / "s2").stdout == ""
    out = tmp_path / "b"
    p = run("-q", "check", EX / "conflict", "--out", out)
    assert p.returncode == 1 and p.stdout == "" and p.stderr == "", p.stderr
    p = run("-v", "check", EX / "conflict", "--out", out, "--json")
    assert p.returncode == 1 and json.loads(p.stdout)["bundle"] == str(out)
    assert run("verify", out, "-q").stdout == ""
    mask = os.umask(0o022)
    os.umask(mask)
    assert stat.S_IMODE(out.stat().st_mode) == 0o777 & ~mask       # not mkdtemp's 0700
    for f in out.iterdir():
        assert stat.S_IMODE(f.stat().st_mode) == 0o666 & ~mask, f
    x = tmp_path / "c.lean"
    p = run("export", out, "-o", x)
    import shutil
    assert p.returncode == 0 and f"specguard verify {x}" in p.stdout
    if not shutil.which("lean"):   # no stock Lean here: say where one is had, not a `lean` that is missing
        assert "elan" in p.stdout and "leanprover/lean4:v4.35.0" in p.stdout and f"\nlean {x}" not in p.stdout
    assert stat.S_IMODE(x.stat().st_mode) == 0o666 & ~mask            # not mkstemp's 0600
    assert run("-q", "export", out, "-o", tmp_path / "d.lean").stdout == ""
    assert not [n for n in tmp_path.iterdir() if n.name.startswith(".")]


@pytest.mark.lean
def test_ctrl_c_exits_130(tmp_path, core):
    """#14.4: a real SIGINT during a check: exit 130, one line, no traceback."""
    code = textwrap.dedent(f"""
        import os, signal, sys
        from specguard import cli, check, load
        from specguard.kernel import runner as lean_runner
        lean_runner.ensure_core()
        real = check.check_task
        def interrupted(*a, **k):          # the SIGINT arrives while the check is working
            os.kill(os.getpid(), signal.SIGINT)
            return real(*a, **k)
        check.check_task = interrupted
        raise SystemExit(cli.main(["check", {str(EX / 'conflict')!r}, "--out", {str(tmp_path / 'b')!r}]))
    """)
    p = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, cwd=ROOT,
                       env=dict(os.environ, PYTHONPATH=str(ROOT)))
    assert p.returncode == 130, (p.returncode, p.stdout, p.stderr)
    assert "Traceback" not in p.stderr and "interrupted" in p.stderr


@pytest.mark.lean
def test_batch_error_rows_are_errors_and_lock_is_removed(tmp_path, core):
    """#14.4 + #14.8: a batch whose only task cannot be loaded exits 3 and counts it as an error,
    not as inconclusive; a normal finish removes .batch.lock."""
    bad = tmp_path / "tasks" / "broken"
    bad.mkdir(parents=True)
    (bad / "task.toml").write_text("this is = = not toml\n")
    out = tmp_path / "out"
    p = run("batch", tmp_path / "tasks", "--out", out, "--json", "--workers", "1")
    assert p.returncode == 3, p.stdout + p.stderr
    s = json.loads(p.stdout)
    assert s["errors"] == 1 and s["verdicts"] == {"error": 1} and s["exit_code"] == 3
    assert not (out / ".batch.lock").exists()
    p = run("batch", tmp_path / "tasks", "--out", out)
    assert p.returncode == 3 and "1 error" in p.stdout and "0 inconclusive" in p.stdout, p.stdout


# -- #14.3: the text summary -------------------------------------------------------------------------

def _result(**kw):
    from specguard.outputs.results import Result
    base = dict(task_id="t", verdict="inconclusive", evidence="none", reason="no conflict in what was read",
                specguard_version="0")
    base.update(kw)
    return Result.model_validate(base)


def test_summary_inconclusive_with_nothing_formalized_claims_nothing(tmp_path):
    """#14.3: an inconclusive result whose description gave no claim prints no 'certificate
    accepted' line, no Lean-internal terms, a legend, and what to do next (--spec, --model)."""
    from specguard.cli import format_summary
    r = _result(certificate={"claims": ["Consistent"], "accepted": True, "reason": "accepted", "seconds": 0.3},
                tests=[{"id": "T1", "loc": {"file": "test_a.py", "line": 3}, "text": "assert f(1) == 2",
                        "statement": "f(1) == 2", "status": "unclassified"}],
                unsupported=[{"loc": {"file": "test_a.py", "line": 9}, "reason": "a loop"}])
    text = format_summary(r, tmp_path / "b")
    assert "certificate" not in text and "claims)" not in text and "accepted" not in text
    for term in ("entailed", "left-open", "T1", "D1", " | "):
        assert term not in text, (term, text)
    assert "legend: INCONCLUSIVE" in text and "--spec" in text and "--model" in text
    assert "1 test assertion was read" not in text and "1 was read but not compared" in text
    assert "not read (1 place)" in text and "test_a.py:9: a loop" in text


def test_summary_renders_coverage_and_kind(tmp_path):
    """#14.3 (#14.1 in the summary): coverage and the inconclusive sub-reason when the result has them."""
    from specguard.cli import format_summary
    r = _result(coverage={"assertions_total": 20, "assertions_read": 19, "examples_seen": 3, "examples_read": 3,
                          "statements_seen": 1, "statements_read": 0},
                inconclusive_kind="no-conflict-in-what-was-read",
                claims=[{"id": "D1", "kind": "example", "loc": {"file": "d.md", "line": 2}, "text": ">>> f(1)\n2",
                         "statement": "f(1) == 2"}])
    text = format_summary(r)
    assert "read: 19 of 20 test assertions, 3 of 3 description examples, 0 of 1 other description statement" in text
    assert "why inconclusive: no conflict in what was read" in text
    assert "--spec" not in text                       # the prose was read: no such advice


def test_summary_conflict_side_by_side_and_recheck(tmp_path):
    """#14.3: the conflicting lines side by side (file:line and source), a doctest as '>>> call  ->  value',
    and the re-check command with the task's input files."""
    from specguard.cli import format_summary
    from specguard.models import InputFile
    d, t = tmp_path / "d.py", tmp_path / "test_d.py"
    d.write_text("x")
    t.write_text("x")
    items = [{"id": "T2", "source": "test", "loc": {"file": "test_d.py", "line": 10}, "text": "assert f(5) == 15",
              "statement": "f(5) == 15"},
             {"id": "D3", "source": "description", "loc": {"file": "d.py", "line": 6}, "text": ">>> f(5)\n12",
              "statement": "f(5) == 12"}]
    r = _result(verdict="conflict", evidence="certified", reason="x",
                conflict={"kind": "description-vs-test", "items": items, "explanation": "x"},
                certificate={"claims": ["Conflict"], "accepted": True, "reason": "accepted", "seconds": 0.3})
    ins = (InputFile(path=str(d), sha256="0" * 64, role="description"),
           InputFile(path=str(t), sha256="0" * 64, role="tests"))
    text = format_summary(r, tmp_path / "b", ins)
    lines = text.splitlines()
    assert lines[0] == "t: CONFLICT (proof checked by the Lean kernel)"
    assert lines[1].split() == ["test", "test_d.py:10", "assert", "f(5)", "==", "15"]
    assert lines[2].split() == ["description", "d.py:6", ">>>", "f(5)", "->", "12"]
    assert lines[1].index("test_d.py") == lines[2].index("d.py")      # aligned columns
    assert any(x.startswith("  legend: CONFLICT") for x in lines)
    assert f"re-check: specguard verify {tmp_path / 'b'} --inputs {d} {t}" in text


# -- #14.9 / #14.1: the configuration page, coverage in rows ---------------------------------------

def test_configuration_page_lists_every_key():
    """#14.9: docs/configuration.md names every configuration key and every task.toml key."""
    from specguard.config import Config
    from specguard.load import TASK_TOML_KEYS
    text = (ROOT / "docs" / "configuration.md").read_text(encoding="utf-8")
    for key in list(Config.model_fields) + [k for k in TASK_TOML_KEYS if k != "labels"]:
        assert f"| `{key}` |" in text, key
    assert "| `[labels]` |" in text and "never read" in text and "leanprover/lean4:v4.35.0" in text


def test_batch_row_copies_coverage():
    """#14.1 (rows): a batch row carries the result's coverage and inconclusive kind."""
    from specguard.outputs.batch import Job, TaskRef, row_from_result
    r = _result(coverage={"assertions_total": 4, "assertions_read": 3}, inconclusive_kind="tests-unread")
    job = Job(key="k", index=0, ref=TaskRef(kind="task-dir", path="x"))
    row = row_from_result(job, r, seconds=0.1, bundle=None, run=1)
    assert row.coverage.assertions_read == 3 and row.inconclusive_kind == "tests-unread"


@pytest.mark.lean
def test_batch_takes_the_task_flags_of_check(tmp_path, core):
    """#14.5: batch --spec --no-classify checks every task as check would (the spec an input of each
    bundle's manifest, classification off); resuming with other task flags is refused."""
    task = tmp_path / "tasks" / "mw"
    task.mkdir(parents=True)
    (task / "test_max_window.py").write_bytes((EX / "spec" / "test_max_window.py").read_bytes())
    (task / "task.toml").write_text('description_text = "max_window(xs, k): the largest sum of k consecutive '
                                    'items"\nentry_point = "max_window"\ntests = ["test_max_window.py"]\n')
    out = tmp_path / "out"
    p = run("batch", tmp_path / "tasks", "--out", out, "--spec", EX / "spec" / "spec.py", "--no-classify", "-q")
    assert p.returncode == 1 and p.stdout == "", p.stdout + p.stderr
    man = json.loads((out / "bundles" / "mw" / "manifest.json").read_text())
    assert "spec" in [i["role"] for i in man["inputs"]] and man["options"]["classify"] is False
    meta = json.loads((out / "batch.json").read_text())
    assert meta["runs"][0]["options"]["spec_sha256"] and meta["runs"][0]["options"]["classify"] is False
    clean_error(run("batch", tmp_path / "tasks", "--out", out), "other task options")


@pytest.mark.lean
def test_batch_row_of_unreadable_tests_is_an_error(tmp_path, core):
    """#14.4: in a batch, a task whose tests cannot be read at all is an error row (as check exits 3)."""
    t = tmp_path / "tasks" / "bad"
    t.mkdir(parents=True)
    (t / "task.toml").write_text('description_text = "f(x) returns x"\ntests = ["test_f.py"]\n')
    (t / "test_f.py").write_text("def test_f(:\n")
    p = run("batch", tmp_path / "tasks", "--out", tmp_path / "out", "--json")
    assert p.returncode == 3 and json.loads(p.stdout)["errors"] == 1, p.stdout + p.stderr
    row = json.loads((tmp_path / "out" / "results.jsonl").read_text().splitlines()[0])
    assert "test_f.py:1: syntax error" in row["error"]
