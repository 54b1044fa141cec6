"""#14.6: SWE-bench instances: every test of the patch outside FAIL_TO_PASS/PASS_TO_PASS is either
read or listed as skipped (file:line) in result.json, never dropped silently."""

import json

import pytest

from specguard import load


def _new_file(path: str, body: str) -> str:
    lines = body.splitlines()
    return (f"diff --git a/{path} b/{path}\nnew file mode 100644\n--- /dev/null\n+++ b/{path}\n"
            f"@@ -0,0 +1,{len(lines)} @@\n" + "".join(f"+{x}\n" for x in lines))


def _instance(tmp_path, f2p):
    patch = (_new_file("tests/test_inc.py", "from pkg import inc\n\n\ndef test_inc():\n    assert inc(1) == 2\n\n\n"
                                            "def test_other():\n    assert inc(2) == 3\n\n\nclass TestMore:\n"
                                            "    def test_more(self):\n        assert inc(3) == 4\n")
             + _new_file("tests/test_unlisted.py", "from pkg import inc\n\n\ndef test_far():\n    assert inc(9) == 10\n")
             + _new_file("tests/conftest.py", "import pytest\n")
             + _new_file("tests/helpers.py", "X = 1\n"))
    rec = {"instance_id": "o__pkg-1", "problem_statement": "`inc(x)` returns x + 1.", "test_patch": patch,
           "FAIL_TO_PASS": json.dumps(f2p), "PASS_TO_PASS": "[]"}
    p = tmp_path / "inst.json"
    p.write_text(json.dumps(rec))
    return p


def test_unlisted_tests_of_the_patch_are_listed_as_skipped(tmp_path):
    """#14.6: tests in the patch not in FAIL_TO_PASS/PASS_TO_PASS: one note each, with file:line."""
    task = load.load_swebench(str(_instance(tmp_path, ["tests/test_inc.py::test_inc"])))
    assert [t.path for t in task.tests] == ["tests/test_inc.py"]
    notes = "\n".join(task.notes)
    assert "tests/test_inc.py:8: test test_other is not among the instance's FAIL_TO_PASS/PASS_TO_PASS" in notes
    assert "tests/test_inc.py:13: test TestMore::test_more is not among" in notes
    assert "tests/test_unlisted.py:4: test test_far is not among" in notes
    assert "tests/conftest.py: a Python file of the test patch that is not a test file" in notes
    assert "tests/helpers.py:" in notes
    assert "test_inc is not" not in notes                       # the listed test is read, not skipped


def test_without_a_selection_every_test_is_read(tmp_path):
    """#14.6: no FAIL_TO_PASS/PASS_TO_PASS: every test file counts, nothing is listed as skipped
    but the non-test files."""
    task = load.load_swebench(str(_instance(tmp_path, [])))
    assert [t.path for t in task.tests] == ["tests/test_inc.py", "tests/test_unlisted.py"]
    assert all("is not among" not in n for n in task.notes)


@pytest.mark.lean
def test_skipped_tests_reach_result_json(tmp_path, core):
    """#14.6: the loader's notes lead the result's notes (result.json), through the real CLI."""
    from specguard import cli
    out = tmp_path / "b"
    assert cli.main(["check", str(_instance(tmp_path, ["tests/test_inc.py::test_inc"])), "--out", str(out),
                     "-q"]) in (0, 1, 2)
    r = json.loads((out / "result.json").read_text())
    assert any(n.startswith("tests/test_inc.py:8: test test_other") for n in r["notes"]), r["notes"]
