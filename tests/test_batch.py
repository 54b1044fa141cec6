"""``specguard batch`` and ``specguard report``: the real CLI (subprocess), real files, the real Lean
kernel.  Covers parallel runs, error rows, kill -9 + resume (no lost, duplicated or redone rows),
torn-line recovery, refusal of a changed input, --retry-errors, per-task timeouts and worker deaths,
the Markdown / HTML / SARIF reports and scoring against ground-truth labels."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import textwrap
import time
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
SHARED_LCB = ROOT.parent / "shared" / "data" / "livecodebench"
pytestmark = [pytest.mark.lean]


def run(*args, cwd=None, timeout=900):
    env = dict(os.environ, PYTHONPATH=str(ROOT))
    return subprocess.run([sys.executable, "-m", "specguard", *map(str, args)], capture_output=True, text=True,
                          cwd=cwd or ROOT, env=env, timeout=timeout)


def rows_of(out: Path) -> list[dict]:
    return [json.loads(line) for line in (out / "results.jsonl").read_text().splitlines() if line.strip()]


# -- fixtures ---------------------------------------------------------------------------------------

def _task(root: Path, name: str, stub: str, test: str, entry: str, labels: dict | None = None) -> None:
    d = root / name
    d.mkdir(parents=True)
    (d / f"{entry}.py").write_text(textwrap.dedent(stub))
    (d / f"test_{entry}.py").write_text(textwrap.dedent(test))
    toml = f'entry_point = "{entry}"\ndescription = "{entry}.py"\ntests = ["test_{entry}.py"]\n'
    if labels:
        toml += "[labels]\n" + "".join(f'{k} = "{v}"\n' for k, v in labels.items())
    (d / "task.toml").write_text(toml)


@pytest.fixture
def task_set(tmp_path: Path) -> Path:
    """Four task folders: a conflict, a clean task, an inconclusive one and a broken task.toml."""
    root = tmp_path / "tasks"
    _task(root, "a_conflict", '''
        def add_one(x: int) -> int:
            """Return x plus one.

            >>> add_one(1)
            2
            """
        ''', '''
        from add_one import add_one


        def test_one():
            assert add_one(1) == 3
        ''', "add_one", {"impossible_type": "conflicting"})
    _task(root, "b_clean", '''
        def double(x: int) -> int:
            """Return twice x.

            >>> double(2)
            4
            """
        ''', '''
        from double import double


        def test_two():
            assert double(2) == 4
        ''', "double", {"impossible_type": "original"})
    _task(root, "c_inconclusive", '''
        def first(xs: list) -> int:
            """Return the first element of xs.

            >>> first([7, 8])
            7
            """
        ''', '''
        import random

        from first import first


        def test_random():
            xs = [random.randint(1, 9) for _ in range(3)]
            assert first(xs) == xs[0]
        ''', "first")
    broken = root / "d_broken"
    broken.mkdir()
    (broken / "task.toml").write_text('description = "x.py"\ntests = [\n')
    return root


# -- batch over task folders, report, rerun -----------------------------------------------------------

def test_batch_task_folders_rows_bundles_report_sarif(task_set: Path, tmp_path: Path, core):
    out = tmp_path / "out"
    p = run("batch", task_set, "--out", out, "--workers", "2", "--json")
    assert p.returncode == 1, p.stdout + p.stderr          # worst verdict: a conflict
    summary = json.loads(p.stdout)
    assert summary["tasks"] == 4 and summary["done"] == 4 and summary["errors"] == 1
    assert "[4/4]" in p.stderr                              # the progress display (non-TTY lines)

    rows = {r["key"]: r for r in rows_of(out)}
    assert sorted(rows) == ["a_conflict", "b_clean", "c_inconclusive", "d_broken"]
    c = rows["a_conflict"]
    assert (c["verdict"], c["evidence"], c["conflict_kind"]) == ("conflict", "certified", "description-vs-test")
    locs = {(i["source"], Path(i["loc"]["file"]).name, i["loc"]["line"]) for i in c["conflict_items"]}
    assert ("test", "test_add_one.py", 6) in locs and ("description", "add_one.py", 5) in locs
    assert c["labels"] == {"impossible_type": "conflicting"}
    assert rows["b_clean"]["verdict"] == "no-conflict"
    assert rows["c_inconclusive"]["verdict"] == "inconclusive" and rows["c_inconclusive"]["error"] is None
    bad = rows["d_broken"]
    assert (bad["verdict"], bad["evidence"], bad["bundle"]) == ("inconclusive", "none", None)
    assert "TOML" in bad["error"] and "task.toml" in bad["error"]
    for r in rows.values():
        assert r["run"] == 1 and r["specguard_version"] and r["lean_commit"] and r["seconds"] >= 0
        assert r["input"]["kind"] == "task-dir"
        if r["bundle"]:
            assert not Path(r["bundle"]).is_absolute()
            b = out / r["bundle"]
            assert {"result.json", "manifest.json", "tests.lean"} <= {f.name for f in b.iterdir()}
            assert json.loads((b / "result.json").read_text())["verdict"] == r["verdict"]
    assert (out / "bundles" / "a_conflict" / "cert.lean").is_file()
    meta = json.loads((out / "batch.json").read_text())
    assert meta["format"] == "specguard-batch/1" and len(meta["runs"]) == 1 and meta["runs"][0]["done"] == 4

    # rows validate against the published schema's model
    from specguard.outputs.batch import BatchRow
    for line in (out / "results.jsonl").read_text().splitlines():
        BatchRow.model_validate_json(line)

    # SARIF written by the batch: one error per conflict at the test line, description related
    sarif = json.loads((out / "results.sarif").read_text())
    assert sarif["version"] == "2.1.0"
    errors = [r for r in sarif["runs"][0]["results"] if r["level"] == "error"]
    assert len(errors) == 1
    e = errors[0]
    assert e["ruleId"] == "specguard/conflict-description-vs-test"
    phys = e["locations"][0]["physicalLocation"]
    assert phys["artifactLocation"]["uri"].endswith("a_conflict/test_add_one.py") and phys["region"]["startLine"] == 6
    rel = e["relatedLocations"][0]["physicalLocation"]
    assert rel["artifactLocation"]["uri"].endswith("a_conflict/add_one.py") and rel["region"]["startLine"] == 5
    ids = {r["id"] for r in sarif["runs"][0]["tool"]["driver"]["rules"]}
    assert all(r["ruleId"] in ids for r in sarif["runs"][0]["results"])
    notes = sarif["runs"][0]["invocations"][0]["toolExecutionNotifications"]
    assert any("d_broken" in n["message"]["text"] for n in notes)

    # report: Markdown + HTML (+ SARIF elsewhere), relative links, the conflict's two lines
    md, html, sf = tmp_path / "r" / "report.md", tmp_path / "r" / "report.html", tmp_path / "r" / "x.sarif"
    p = run("report", out, "--out", md, "--html", html, "--sarif", sf)
    assert p.returncode == 0, p.stderr
    text = md.read_text()
    assert "| conflict | 1 | 0 | 0 | 0 | 0 | **1** |" in text      # certified, execution, judgment, agreement, none
    assert "assert add_one(1) == 3" in text and ">>> add_one(1)" in text
    assert "test_add_one.py:6" in text
    assert "](../out/bundles/a_conflict/)" in text                  # relative to the report's folder
    assert "## Errors (1)" in text and "d_broken" in text
    assert "cost" not in text.lower()                               # no cost columns without costs
    page = html.read_text()
    assert page.startswith("<!DOCTYPE html>") and "<svg" in page and "<style>" in page
    assert "<script" not in page and "http://" not in page.replace('xmlns="http://www.w3.org/2000/svg"', "")
    assert "https://" not in page and 'href="../out/bundles/a_conflict/"' in page
    assert "assert add_one(1) == 3" in page and "&gt;&gt;&gt; add_one(1)" in page
    assert json.loads(sf.read_text())["version"] == "2.1.0"
    # ground truth from task.toml labels: one conflicted (detected, certified) and two clean controls
    p = run("report", out, "--json")
    sc = json.loads(p.stdout)["score"]
    assert (sc["n"], sc["conflicted"], sc["clean"]) == (4, 1, 3)
    assert sc["detected"] == 1 and sc["certified"] == 1 and sc["false_positives"] == 0
    assert sc["fractions"]["detected"] == 0.25

    # rerun: nothing redone, nothing duplicated
    before = (out / "results.jsonl").read_bytes()
    p = run("batch", task_set, "--out", out, "--workers", "2", "--json")
    assert p.returncode == 1, p.stderr
    assert json.loads(p.stdout)["done"] == 0 and json.loads(p.stdout)["skipped"] == 4
    assert (out / "results.jsonl").read_bytes() == before

    # --retry-errors redoes only the error row (still an error), in place of the old one
    p = run("batch", task_set, "--out", out, "--workers", "2", "--retry-errors", "--json")
    assert json.loads(p.stdout)["done"] == 1
    rows2 = rows_of(out)
    assert len(rows2) == 4 and len({r["key"] for r in rows2}) == 4
    assert {r["key"]: r["run"] for r in rows2} == {"a_conflict": 1, "b_clean": 1, "c_inconclusive": 1, "d_broken": 3}

    # a changed input is another batch: refused, nothing touched
    (task_set / "b_clean" / "test_double.py").write_text("def test_two():\n    assert double(2) == 5\n")
    after = (out / "results.jsonl").read_bytes()
    p = run("batch", task_set, "--out", out)
    assert p.returncode == 3
    assert "holds another batch" in p.stderr and "changed since the batch started" in p.stderr
    assert "--restart" in p.stderr
    assert (out / "results.jsonl").read_bytes() == after
    p = run("batch", task_set, "--out", out, "--restart", "--json")
    assert json.loads(p.stdout)["done"] == 4 and len(rows_of(out)) == 4
    assert {r["run"] for r in rows_of(out)} == {1}


# -- kill -9 and resume ------------------------------------------------------------------------------

def _small_lcb(tmp_path: Path, n: int = 30) -> Path:
    """n LiveCodeBench tasks built in tmp_path from the shared data (read only): the description and
    the first two original tests, so each task is quick."""
    if not SHARED_LCB.is_dir():
        pytest.skip("../shared/data/livecodebench is not present")
    data = json.loads((SHARED_LCB / "conflicting.json").read_text(encoding="utf-8"))
    tasks = [{"task_id": t["task_id"], "entry_point": t["entry_point"], "description": t["description"],
              "original_tests": t["original_tests"][:2]} for t in data["tasks"][:n]]
    p = tmp_path / "small.json"
    p.write_text(json.dumps({"tasks": tasks}), encoding="utf-8")
    return p


def _children(pid: int) -> list[int]:
    from specguard.outputs.pool import _descendants
    out = []
    for c in _descendants(pid):
        try:
            with open(f"/proc/{c}/stat") as f:
                if int(f.read().rsplit(")", 1)[1].split()[1]) == pid:
                    out.append(c)
        except (OSError, ValueError):
            pass
    return out


def _alive(pid: int) -> bool:
    try:
        with open(f"/proc/{pid}/stat") as f:
            return f.read().rsplit(")", 1)[1].split()[0] not in ("Z", "X")
    except OSError:
        return False


def test_kill9_resume_truncated_line(tmp_path: Path, core):
    data = _small_lcb(tmp_path)
    out = tmp_path / "out"
    cmd = [sys.executable, "-m", "specguard", "batch", str(data), "--out", str(out), "--workers", "2", "-q"]
    env = dict(os.environ, PYTHONPATH=str(ROOT))
    proc = subprocess.Popen(cmd, cwd=ROOT, env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    results = out / "results.jsonl"
    deadline = time.monotonic() + 600
    while time.monotonic() < deadline:
        if results.is_file() and len(results.read_bytes().splitlines()) >= 4:
            break
        assert proc.poll() is None, proc.communicate()
        time.sleep(0.05)
    workers = _children(proc.pid)
    assert workers, "the batch runs worker processes"
    proc.send_signal(signal.SIGKILL)
    proc.communicate()
    # the workers die with the parent (nothing keeps writing into the folder)
    t = time.monotonic()
    while any(_alive(w) for w in workers) and time.monotonic() - t < 15:
        time.sleep(0.1)
    assert not any(_alive(w) for w in workers)

    first = rows_of(out)
    k = len(first)
    assert 4 <= k < 30, k
    assert len({r["key"] for r in first}) == k
    mtimes = {r["key"]: (out / r["bundle"] / "result.json").stat().st_mtime_ns for r in first}
    # a write cut short, as by a crash in the middle of a line
    with open(results, "ab") as f:
        f.write(b'{"row_format":"specguard-batch-row/1","key":"lcbh')
    prefix = results.read_bytes()[: results.read_bytes().rfind(b"\n") + 1]

    p = run("batch", data, "--out", out, "--workers", "2", "--json")
    assert p.returncode in (0, 1, 2), p.stdout + p.stderr
    s = json.loads(p.stdout)
    assert (s["tasks"], s["skipped"], s["done"]) == (30, k, 30 - k)
    raw = results.read_bytes()
    assert raw.startswith(prefix) and raw.endswith(b"\n")     # old rows untouched, torn line gone
    rows = rows_of(out)
    keys = [r["key"] for r in rows]
    assert len(keys) == 30 and len(set(keys)) == 30            # none lost, none duplicated
    ids = [t["task_id"] for t in json.loads(data.read_text())["tasks"]]
    assert set(keys) == set(ids)
    assert [r["run"] for r in rows[:k]] == [1] * k and all(r["run"] == 2 for r in rows[k:])
    for key, m in mtimes.items():                              # completed tasks were not redone
        b = next(r["bundle"] for r in rows if r["key"] == key)
        assert (out / b / "result.json").stat().st_mtime_ns == m
    assert all(r["error"] is None for r in rows)
    assert not [e.name for e in (out / "bundles").iterdir() if e.name.startswith(".")]   # no half bundles
    meta = json.loads((out / "batch.json").read_text())
    assert [r["run"] for r in meta["runs"]] == [1, 2] and meta["runs"][1]["interrupted"] is False

    # a last row lost (cut mid-line) is redone, the others are kept
    lines = results.read_bytes().splitlines(keepends=True)
    results.write_bytes(b"".join(lines[:-1]) + lines[-1][:25])
    p = run("batch", data, "--out", out, "--workers", "2", "--json")
    s = json.loads(p.stdout)
    assert (s["skipped"], s["done"]) == (29, 1)
    rows = rows_of(out)
    assert len(rows) == 30 and len({r["key"] for r in rows}) == 30 and rows[-1]["run"] == 3


# -- errors: timeouts and worker deaths (the pool itself, real processes) -----------------------------

def _pool_fn(job, cfg):
    from specguard.outputs.batch import error_row
    if job.key == "die":
        os._exit(7)
    if job.key == "hang":
        time.sleep(60)
    return error_row(job, "fine", seconds=0.0, run=1)


def test_pool_records_timeouts_and_worker_deaths():
    from specguard.outputs.batch import Job, TaskRef, error_row, run_pool
    jobs = [Job(k, i, TaskRef(kind="task-dir", path=k)) for i, k in enumerate(["a", "die", "hang", "b", "c"])]
    got = []
    t0 = time.monotonic()
    run_pool(jobs, _pool_fn, None, workers=2, task_timeout=2.0, on_row=got.append,
             timeout_row=lambda job, msg, s: error_row(job, msg, seconds=s, run=1))
    assert time.monotonic() - t0 < 30
    by = {r.key: r for r in got}
    assert sorted(by) == ["a", "b", "c", "die", "hang"]
    assert "WorkerDied" in by["die"].error and "exit code 7" in by["die"].error
    assert "TaskTimeout" in by["hang"].error and by["hang"].seconds >= 2.0
    assert by["a"].error == "fine" and by["c"].error == "fine"


def test_task_timeout_from_the_cli(task_set: Path, tmp_path: Path, core):
    out = tmp_path / "out"
    p = run("batch", task_set / "a_conflict", "--out", out, "--task-timeout", "0.01", "--json")
    assert p.returncode == 3, p.stdout + p.stderr        # an error row: a task could not be checked
    (r,) = rows_of(out)
    assert r["verdict"] == "inconclusive" and "TaskTimeout" in r["error"] and r["bundle"] is None


# -- scoring on LiveCodeBench suites ----------------------------------------------------------------

def test_lcb_scoring_original_vs_modified(tmp_path: Path, core):
    if not SHARED_LCB.is_dir():
        pytest.skip("../shared/data/livecodebench is not present")
    out = tmp_path / "out"
    p = run("batch", SHARED_LCB / "conflicting.json", "--suite", "modified", "original", "--limit", "3",
            "--out", out, "--workers", "2", "--json")
    assert p.returncode == 1, p.stdout + p.stderr
    rows = rows_of(out)
    assert len(rows) == 6
    assert {r["key"].rsplit("@", 1)[1] for r in rows} == {"modified", "original"}
    for r in rows:
        assert r["input"]["kind"] == "lcb" and r["labels"]["impossible_type"] == "conflicting"
        assert r["labels"]["suite"] == r["input"]["suite"]
    p = run("report", out, "--json")
    assert p.returncode == 0
    sc = json.loads(p.stdout)["score"]
    assert (sc["n"], sc["conflicted"], sc["clean"]) == (6, 3, 3)
    assert sc["certified_false_positives"] == 0 and sc["false_positives"] == 0
    assert sc["detected"] >= 1 and sc["fractions"]["detected"] == round(sc["detected"] / 6, 4)
    assert set(sc["groups"]) == {"conflicting/modified", "conflicting/original"}
    md = (out / "report.md").read_text()
    assert "## Scoring against ground-truth labels" in md and "certified false positives" in md
    # SARIF: the conflict is placed on the JSON line of the test
    sarif = json.loads((out / "results.sarif").read_text())
    err = next(r for r in sarif["runs"][0]["results"] if r["level"] == "error")
    region = err["locations"][0]["physicalLocation"]["region"]["startLine"]
    line = (SHARED_LCB / "conflicting.json").read_text(encoding="utf-8").splitlines()[region - 1]
    assert line.strip() == "{"                                  # the test object starts there


def test_report_without_results_is_a_clear_error(tmp_path: Path):
    p = run("report", tmp_path)
    assert p.returncode == 3 and "results.jsonl" in p.stderr


# -- SWE-bench-style JSONL ----------------------------------------------------------------------------

def _instance(iid: str, expected: int, impossible_type: str | None) -> dict:
    # a problem statement is an issue (what it shows is not required): the conflicting instance
    # repeats the assertion with another expected value (a test-vs-test conflict)
    patch = ("diff --git a/tests/test_inc.py b/tests/test_inc.py\nnew file mode 100644\n--- /dev/null\n"
             "+++ b/tests/test_inc.py\n@@ -0,0 +1,6 @@\n+from pkg import inc\n+\n+\n+def test_inc():\n"
             f"+    assert inc(1) == 2\n+    assert inc(1) == {expected}\n")
    d = {"instance_id": iid, "repo": "o/pkg", "test_patch": patch,
         "problem_statement": "`inc(x)` should return x + 1.\n\n```python\n>>> inc(1)\n2\n```\n",
         "FAIL_TO_PASS": json.dumps(["tests/test_inc.py::test_inc"]), "PASS_TO_PASS": "[]"}
    if impossible_type:
        d["impossible_type"] = impossible_type
    return d


def test_swebench_jsonl(tmp_path: Path, core):
    src = tmp_path / "instances.jsonl"
    recs = [_instance("o__pkg-1", 2, "original"), _instance("o__pkg-2", 3, "conflicting"),
            {"problem_statement": "no id", "test_patch": ""}]
    src.write_text("".join(json.dumps(r) + "\n" for r in recs))
    out = tmp_path / "out"
    p = run("batch", src, "--out", out, "--workers", "2", "--json")
    assert p.returncode == 1, p.stdout + p.stderr
    rows = {r["key"]: r for r in rows_of(out)}
    assert sorted(rows) == ["line3", "o__pkg-1", "o__pkg-2"]
    assert rows["o__pkg-2"]["verdict"] == "conflict" and rows["o__pkg-2"]["labels"]["impossible_type"] == "conflicting"
    assert rows["o__pkg-2"]["input"] == {"kind": "swebench", "path": str(src), "id": "o__pkg-2", "suite": None,
                                         "pointer": "line2"}
    assert rows["o__pkg-1"]["verdict"] == "inconclusive"     # the statement's example is not a requirement
    assert rows["line3"]["error"] and "instance_id" in rows["line3"]["error"]
    sarif = json.loads((out / "results.sarif").read_text())
    err = next(r for r in sarif["runs"][0]["results"] if r["level"] == "error")
    loc = err["locations"][0]["physicalLocation"]
    assert loc["artifactLocation"] == {"uri": "tests/test_inc.py"} and loc["region"]["startLine"] in (5, 6)
    rel = err["relatedLocations"][0]["physicalLocation"]
    assert rel["artifactLocation"] == {"uri": "tests/test_inc.py"} and rel["region"]["startLine"] in (5, 6)
    sc = json.loads(run("report", out, "--json").stdout)["score"]
    assert (sc["conflicted"], sc["detected"], sc["false_positives"]) == (1, 1, 0)
