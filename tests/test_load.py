"""Stage 1 (load a task): every loader on real temporary files, their error paths, the unified-diff
parser and the reconstruction of test code from a patch, plus the shipped LiveCodeBench files."""

from __future__ import annotations

import ast
import difflib
import hashlib
import json
import os
import re
from pathlib import Path

import pytest
from hypothesis import HealthCheck, assume, given, settings
from hypothesis import strategies as st

from specguard import load as L
from specguard.errors import InputError
from specguard.load import (UNRECOVERED_MARKER, check_utf8, list_lcb_ids, load_any, load_from_parts,
                            load_lcb, load_lcb_all, load_swebench, load_task_dir, node_id_in_file,
                            parse_unified_diff, reconstruct_test_file)
from specguard.python.values import V, from_python

LCB_DIR = Path("/work/shared/data/livecodebench")


def sha(b: bytes) -> str:
    return hashlib.sha256(b).hexdigest()


def write(p: Path, text: str | bytes) -> Path:
    p.parent.mkdir(parents=True, exist_ok=True)
    if isinstance(text, bytes):
        p.write_bytes(text)
    else:
        p.write_bytes(text.encode("utf-8"))
    return p


def tree_snapshot(root: Path) -> list[tuple[str, int]]:
    return sorted((str(p.relative_to(root)), p.stat().st_mtime_ns) for p in root.rglob("*"))


# =====================================================================================
# (a) load_from_parts
# =====================================================================================

def test_parts_literal_description_and_test_file(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    write(tmp_path / "tests" / "test_f.py", "def test_a():\n    assert f(1) == 2\n")
    before = tree_snapshot(tmp_path)
    task = load_from_parts("Return x + 1.", ["tests/test_f.py"], entry_point="f", task_id="t1")
    assert tree_snapshot(tmp_path) == before  # pure: nothing written
    assert task.id == "t1" and task.entry_point == "f"
    assert task.description == "Return x + 1." and task.description_path == "<description>"
    (src,) = task.tests
    assert src.kind == "python" and src.path == "tests/test_f.py"
    assert src.text == "def test_a():\n    assert f(1) == 2\n"
    roles = [(i.role, i.path) for i in task.inputs]
    assert roles == [("description", "<text>"), ("tests", "tests/test_f.py")]
    assert task.inputs[0].sha256 == sha(b"Return x + 1.")
    assert task.inputs[1].sha256 == sha((tmp_path / "tests/test_f.py").read_bytes())


def test_parts_description_files(tmp_path):
    t = write(tmp_path / "test_x.py", "def test_x():\n    assert g() is None\n")
    md = write(tmp_path / "task.md", "# Task\n\nReturn None.\n")
    stub = write(tmp_path / "stub.py", 'def g():\n    """Return None.\n\n    >>> g()\n    """\n')
    a = load_from_parts(str(md), [str(t)])
    assert a.description == "# Task\n\nReturn None.\n" and a.description_path == str(md)
    assert a.id == "task"
    assert a.inputs[0].role == "description" and a.inputs[0].sha256 == sha(md.read_bytes())
    b = load_from_parts(str(stub), [str(t)])
    assert b.description == stub.read_text() and b.id == "stub"


def test_parts_bom_dropped_but_hash_is_of_raw_bytes(tmp_path):
    raw = b"\xef\xbb\xbfdef test_a():\n    assert True\n"
    t = write(tmp_path / "test_bom.py", raw)
    task = load_from_parts("d", [str(t)])
    assert task.tests[0].text.startswith("def test_a")
    assert task.inputs[1].sha256 == sha(raw)


def test_parts_folder_discovery(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    write(tmp_path / "suite/test_b.py", "b = 1\n")
    write(tmp_path / "suite/a_test.py", "a = 1\n")
    write(tmp_path / "suite/sub/test_c.py", "c = 1\n")
    write(tmp_path / "suite/helpers.py", "h = 1\n")            # not a test file
    write(tmp_path / "suite/.hidden/test_h.py", "h = 1\n")     # hidden folder
    write(tmp_path / "suite/__pycache__/test_p.py", "p = 1\n")
    write(tmp_path / "suite/conftest.py", "x = 1\n")
    task = load_from_parts("desc", ["suite"])
    # the test files in order, then the conftest.py pytest loads beside them (read as fixtures)
    assert [s.path for s in task.tests] == [os.path.join("suite", "a_test.py"), os.path.join("suite", "sub", "test_c.py"),
                                            os.path.join("suite", "test_b.py"), os.path.join("suite", "conftest.py")]
    assert [s.text for s in task.tests] == ["a = 1\n", "c = 1\n", "b = 1\n", "x = 1\n"]
    assert [i.role for i in task.inputs] == ["description", "tests", "tests", "tests", "tests"]
    # a file given twice (directly and through its folder) is loaded once
    again = load_from_parts("desc", ["suite/test_b.py", "suite"])
    assert [s.path for s in again.tests][0] == "suite/test_b.py" and len(again.tests) == 4


def test_parts_missing_paths(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    write(tmp_path / "test_ok.py", "x = 1\n")
    with pytest.raises(InputError) as e:
        load_from_parts("desc", ["nope/test_missing.py"])
    assert e.value.path == "nope/test_missing.py" and "not found" in str(e.value) and e.value.hint
    with pytest.raises(InputError) as e:
        load_from_parts("missing_description.md", ["test_ok.py"])
    assert e.value.path == "missing_description.md" and "not found" in str(e.value) and e.value.hint
    with pytest.raises(InputError, match="no tests"):
        load_from_parts("desc", [])
    with pytest.raises(InputError, match="empty"):
        load_from_parts("   ", ["test_ok.py"])
    write(tmp_path / "empty/readme.txt", "x")
    with pytest.raises(InputError, match="no test files") as e:
        load_from_parts("desc", ["empty"])
    assert e.value.path == "empty"
    write(tmp_path / "tests.json", "{}")
    with pytest.raises(InputError, match="not a Python file") as e:
        load_from_parts("desc", ["tests.json"])
    assert "load_lcb" in e.value.hint


def test_parts_non_utf8_test_file_is_kept_with_text_none(tmp_path):
    good = write(tmp_path / "t/test_good.py", "def test_g():\n    assert f() == 1\n")
    bad_raw = b"def test_b():\n    s = 'caf\xe9'\n"
    bad = write(tmp_path / "t/test_latin1.py", bad_raw)
    task = load_from_parts("desc", [str(tmp_path / "t")])
    by_path = {s.path: s for s in task.tests}
    assert by_path[str(bad)].text is None
    assert by_path[str(good)].text is not None
    assert sha(bad_raw) in {i.sha256 for i in task.inputs}
    err = check_utf8(str(bad))
    assert isinstance(err, InputError)
    assert err.path == str(bad) and err.line == 2
    offset = bad_raw.index(b"\xe9")
    assert f"byte offset {offset}" in str(err) and "UTF-8" in err.hint
    assert check_utf8(str(good)) is None


def test_parts_non_utf8_description_raises_with_line(tmp_path):
    t = write(tmp_path / "test_a.py", "x = 1\n")
    d = write(tmp_path / "desc.txt", b"line one\nline two \xff\n")
    with pytest.raises(InputError) as e:
        load_from_parts(str(d), [str(t)])
    assert e.value.path == str(d) and e.value.line == 2 and "byte offset 18" in str(e.value)


def test_size_limit(tmp_path, monkeypatch):
    monkeypatch.setattr(L, "MAX_FILE_BYTES", 64)
    t = write(tmp_path / "test_big.py", "x = 1\n" * 20)
    with pytest.raises(InputError, match="limit") as e:
        load_from_parts("desc", [str(t)])
    assert e.value.path == str(t) and e.value.hint


# =====================================================================================
# (b) LiveCodeBench / ImpossibleBench JSON
# =====================================================================================

def lcb_file(tmp_path: Path, obj, name="tasks.json") -> str:
    return str(write(tmp_path / name, json.dumps(obj, indent=1)))


CONFLICTING = {
    "benchmark": "livecodebench", "split": "conflicting", "n": 2,
    "tasks": [
        {"task_id": "t0", "entry_point": "f", "description": "def f(x: int) -> int:\n    '''double'''\n",
         "impossible_type": "conflicting",
         "original_tests": [{"args": [1], "expected": 2}, {"args": [2.5], "expected": 5.0}],
         "modified_tests": [{"args": [1], "expected": 2}, {"args": [2.5], "expected": 5.0},
                            {"args": [1], "expected": 3}]},
        {"task_id": "t1", "entry_point": "g", "description": "def g(a, b): ...",
         "impossible_type": "conflicting",
         "original_tests": [{"args": [[1, [2]], {"k": True}], "expected": None}],
         "modified_tests": [{"args": [[1, [2]], {"k": True}], "expected": None},
                            {"args": [[1, [2]], {"k": True}], "expected": False}]},
    ],
}

ONEOFF = {
    "benchmark": "livecodebench", "split": "oneoff", "n": 1,
    "tasks": [
        {"task_id": "o0", "entry_point": "h", "description": "def h(n): ...", "impossible_type": "oneoff",
         "original_tests": [{"args": [4], "expected": 1}, {"args": [5], "expected": 2}, {"args": [4], "expected": 1}],
         "corrupted_test": {"args": [4], "expected": 9, "original_expected": 1}},
    ],
}


def test_lcb_conflicting_layout(tmp_path):
    p = lcb_file(tmp_path, CONFLICTING)
    assert list_lcb_ids(p) == ["t0", "t1"]
    t = load_lcb(p, "t0")  # auto -> modified
    assert t.id == "t0" and t.entry_point == "f"
    assert t.labels == {"impossible_type": "conflicting", "suite": "modified"}
    assert t.description.startswith("def f") and t.description_path == f"{p}#t0.description"
    (src,) = t.tests
    assert src.kind == "table" and src.path == p and src.text is None
    assert [c.pointer for c in src.cases] == [f"tasks[0].modified_tests[{j}]" for j in range(3)]
    assert src.cases[1].args == (V("float", 2.5),) and src.cases[1].expected == V("float", 5.0)
    assert src.cases[0].expected == V("int", 2) and src.cases[2].expected == V("int", 3)
    assert t.inputs[0].role == "task" and t.inputs[0].sha256 == sha(Path(p).read_bytes())
    o = load_lcb(p, "t0", "original")
    assert o.labels == {"impossible_type": "conflicting", "suite": "original", "clean": "true"}
    assert [c.pointer for c in o.tests[0].cases] == ["tasks[0].original_tests[0]", "tasks[0].original_tests[1]"]
    g = load_lcb(p, "t1", "modified")
    c = g.tests[0].cases[0]
    assert c.args == (from_python([1, [2]]), from_python({"k": True}))
    assert c.args[1].val[0][1] == V("bool", True)  # bools stay bools
    assert g.tests[0].cases[1].expected == V("bool", False) and c.expected == V("none")


def test_lcb_oneoff_corrupted_replaces_every_repeat(tmp_path):
    p = lcb_file(tmp_path, ONEOFF)
    t = load_lcb(p, "o0")  # auto -> corrupted
    assert t.labels == {"impossible_type": "oneoff", "suite": "corrupted"}
    cases = t.tests[0].cases
    assert [c.expected for c in cases] == [V("int", 9), V("int", 2), V("int", 9)]
    assert [c.pointer for c in cases] == ["tasks[0].corrupted_test", "tasks[0].original_tests[1]",
                                          "tasks[0].corrupted_test"]
    assert [c.expected for c in load_lcb(p, "o0", "original").tests[0].cases] == [V("int", 1), V("int", 2), V("int", 1)]
    with pytest.raises(InputError, match="no modified_tests") as e:
        load_lcb(p, "o0", "modified")
    assert "original, corrupted" in e.value.hint
    with pytest.raises(InputError, match="unknown test suite"):
        load_lcb(p, "o0", "weird")


def test_lcb_corrupted_args_must_match_exactly(tmp_path):
    obj = json.loads(json.dumps(ONEOFF))
    obj["tasks"][0]["corrupted_test"]["args"] = [4.0]  # 4.0 == 4 in Python, but not the same input
    p = lcb_file(tmp_path, obj)
    with pytest.raises(InputError, match="match no test") as e:
        load_lcb(p, "o0")
    assert e.value.path == p


def test_lcb_other_layouts(tmp_path):
    one = CONFLICTING["tasks"][0]
    p = lcb_file(tmp_path, one, "single.json")
    t = load_lcb(p, "t0", "original")
    assert t.tests[0].cases[0].pointer == "original_tests[0]"
    p = lcb_file(tmp_path, CONFLICTING["tasks"], "list.json")
    assert load_lcb(p, "t1").tests[0].cases[1].pointer == "[1].modified_tests[1]"
    jl = write(tmp_path / "tasks.jsonl", "\n".join(json.dumps(t) for t in CONFLICTING["tasks"]) + "\n\n")
    t = load_lcb(str(jl), "t1")
    assert t.tests[0].cases[0].pointer == "line2.modified_tests[0]"
    assert [x.id for x in load_lcb_all(str(jl), "original")] == ["t0", "t1"]


def test_lcb_big_ints_are_exact(tmp_path):
    big = "9" * 5000
    text = ('{"task_id": "b", "description": "d", "original_tests": [{"args": [' + big + '], "expected": -' + big + '}]}')
    p = write(tmp_path / "big.json", text)
    c = load_lcb(str(p), "b").tests[0].cases[0]
    assert c.args[0].kind == "int" and c.args[0].val == 10 ** 5000 - 1 and c.expected.val == -(10 ** 5000 - 1)


@pytest.mark.parametrize("token", ["NaN", "Infinity", "-Infinity", "1e400"])
def test_lcb_rejects_nan_and_infinity(tmp_path, token):
    text = '{"tasks": [\n {"task_id": "a", "description": "d",\n  "original_tests": [\n   {"args": [1], "expected": %s}]}]}' % token
    p = write(tmp_path / "nan.json", text)
    with pytest.raises(InputError) as e:
        load_lcb(str(p), "a")
    assert e.value.path == str(p) and e.value.line == 4 and e.value.hint


def test_lcb_missing_task_id_lists_ids(tmp_path):
    p = lcb_file(tmp_path, CONFLICTING)
    with pytest.raises(InputError) as e:
        load_lcb(p, "nope")
    assert "'nope'" in str(e.value) and "t0, t1" in e.value.hint and e.value.path == p


def test_lcb_structural_errors(tmp_path):
    bad = json.loads(json.dumps(CONFLICTING))
    bad["tasks"][1]["modified_tests"][1]["args"] = 5
    p = lcb_file(tmp_path, bad)
    with pytest.raises(InputError, match=r"tasks\[1\]\.modified_tests\[1\]\.args: must be a JSON list"):
        load_lcb(p, "t1")
    load_lcb(p, "t0")  # the other task is fine
    dup = json.loads(json.dumps(CONFLICTING))
    dup["tasks"][1]["task_id"] = "t0"
    p = lcb_file(tmp_path, dup, "dup.json")
    with pytest.raises(InputError, match="appears twice"):
        load_lcb_all(p)
    p = write(tmp_path / "syntax.json", '{"tasks": [\n  {"task_id": "a",,}\n]}')
    with pytest.raises(InputError, match="invalid JSON") as e:
        load_lcb(str(p), "a")
    assert e.value.line == 2
    with pytest.raises(InputError, match="not found"):
        load_lcb(str(tmp_path / "absent.json"), "a")


# -- the shipped LiveCodeBench files (read-only) ------------------------------------------

def _raw_json(name):
    return json.loads((LCB_DIR / name).read_text(encoding="utf-8"))


@pytest.mark.skipif(not (LCB_DIR / "conflicting.json").exists(), reason="shared data not present")
def test_real_conflicting_file():
    path = str(LCB_DIR / "conflicting.json")
    ids = list_lcb_ids(path)
    assert len(ids) == 95 == len(set(ids))
    original = {t.id: t for t in load_lcb_all(path, "original")}
    modified = {t.id: t for t in load_lcb_all(path, "modified")}
    auto = {t.id: t for t in load_lcb_all(path, "auto")}
    assert set(original) == set(modified) == set(auto) == set(ids)
    assert sum(len(t.tests[0].cases) for t in original.values()) == 2015  # README count
    for tid in ids:
        o, m = original[tid].tests[0].cases, modified[tid].tests[0].cases
        assert len(m) == len(o) + 1
        assert [(c.args, c.expected) for c in m[:-1]] == [(c.args, c.expected) for c in o]
        extra = m[-1]
        same_input = [c for c in o if c.args == extra.args]
        assert same_input and all(c.expected != extra.expected for c in same_input)
        assert auto[tid].tests[0].cases == modified[tid].tests[0].cases
        assert modified[tid].labels == {"impossible_type": "conflicting", "suite": "modified"}
        assert original[tid].labels["clean"] == "true"
        assert modified[tid].description_path.endswith(f"#{tid}.description")
    one = load_lcb(path, ids[3], "modified")
    assert one == modified[ids[3]]


@pytest.mark.skipif(not (LCB_DIR / "oneoff.json").exists(), reason="shared data not present")
def test_real_oneoff_file():
    path = str(LCB_DIR / "oneoff.json")
    raw = {t["task_id"]: t for t in _raw_json("oneoff.json")["tasks"]}
    ids = list_lcb_ids(path)
    assert len(ids) == 97 == len(set(ids))
    original = {t.id: t for t in load_lcb_all(path, "original")}
    corrupted = {t.id: t for t in load_lcb_all(path, "corrupted")}
    auto = {t.id: t for t in load_lcb_all(path)}
    assert sum(len(t.tests[0].cases) for t in original.values()) == 2198  # README count
    for tid in ids:
        o, c = original[tid].tests[0].cases, corrupted[tid].tests[0].cases
        assert len(o) == len(c)
        differ = [j for j in range(len(o)) if o[j].expected != c[j].expected]
        assert differ, tid
        ct = raw[tid]["corrupted_test"]
        for j in range(len(o)):
            assert o[j].args == c[j].args
            if o[j].args == from_python_args(ct["args"]):
                assert j in differ and c[j].pointer.endswith("corrupted_test")
                assert c[j].expected == from_python(ct["expected"])
                assert o[j].expected == from_python(ct["original_expected"])
            else:
                assert j not in differ and c[j] == o[j]
        assert auto[tid].labels == {"impossible_type": "oneoff", "suite": "corrupted"}
    with pytest.raises(InputError, match="no modified_tests"):
        load_lcb(path, ids[0], "modified")
    # the oneoff ids are the conflicting ids plus the two excluded tasks
    conflicting_ids = set(list_lcb_ids(str(LCB_DIR / "conflicting.json")))
    assert conflicting_ids < set(ids) and len(set(ids) - conflicting_ids) == 2


def from_python_args(args):
    return tuple(from_python(a) for a in args)


@pytest.mark.skipif(not (LCB_DIR / "conflicting.json").exists(), reason="shared data not present")
def test_real_files_through_load_any():
    t = load_any(str(LCB_DIR / "conflicting.json"), task_id="lcbhard_0", suite="original")
    assert t.id == "lcbhard_0" and t.labels["suite"] == "original"
    with pytest.raises(InputError, match="say which one"):
        load_any(str(LCB_DIR / "oneoff.json"))


# =====================================================================================
# (c) unified diffs
# =====================================================================================

TWO_FILE_DIFF = """\
diff --git a/tests/test_mod.py b/tests/test_mod.py
index 1111111..2222222 100644
--- a/tests/test_mod.py
+++ b/tests/test_mod.py
@@ -10,6 +10,10 @@ class TestThing(unittest.TestCase):
     def test_old(self):
         self.assertEqual(f(1), 1)
 
+    def test_new(self):
+        self.assertEqual(f(2), 4)
+        self.assertEqual(f(3), 9)
+
     def test_other(self):
         x = g(
             1,
@@ -40,6 +44,6 @@ def test_top():
     a = 1
     b = 2
     assert h(a) == 1
-    assert h(b) == 2
+    assert h(b) == 3
     assert h(3) == 5
 
 
diff --git a/tests/test_new.py b/tests/test_new.py
new file mode 100644
index 0000000..3333333
--- /dev/null
+++ b/tests/test_new.py
@@ -0,0 +1,5 @@
+import pytest
+from mod import f
+
+def test_a():
+    assert f(1) == 1
\\ No newline at end of file
diff --git a/tests/test_gone.py b/tests/test_gone.py
deleted file mode 100644
--- a/tests/test_gone.py
+++ /dev/null
@@ -1,2 +0,0 @@
-def test_gone():
-    pass
"""


def test_diff_parser_files_hunks_and_line_numbers():
    fps = parse_unified_diff(TWO_FILE_DIFF)
    assert [(f.old_path, f.new_path) for f in fps] == [
        ("tests/test_mod.py", "tests/test_mod.py"), (None, "tests/test_new.py"), ("tests/test_gone.py", None)]
    mod, new, gone = fps
    assert [(h.old_start, h.old_len, h.new_start, h.new_len) for h in mod.hunks] == [(10, 6, 10, 10), (40, 6, 44, 6)]
    assert mod.hunks[0].section == "class TestThing(unittest.TestCase):"
    assert mod.hunks[1].section == "def test_top():" and mod.hunks[1].header_line == 16
    h0 = mod.hunks[0].lines
    assert [hl.tag for hl in h0] == [" ", " ", " ", "+", "+", "+", "+", " ", " ", " "]
    assert (h0[3].text, h0[3].new_line, h0[3].old_line) == ("    def test_new(self):", 13, None)
    assert h0[2].text == "" and h0[2].new_line == 12 and h0[2].old_line == 12
    h1 = mod.hunks[1].lines
    assert [(hl.tag, hl.old_line, hl.new_line) for hl in h1[2:5]] == [(" ", 42, 46), ("-", 43, None), ("+", None, 47)]
    assert new.is_new and not new.is_deleted and new.hunks[0].new_start == 1
    assert [hl.new_line for hl in new.hunks[0].lines] == [1, 2, 3, 4, 5]
    assert gone.is_deleted and gone.path == "tests/test_gone.py"


def test_diff_parser_plain_diff_timestamps_quotes_blank_context():
    text = ("--- tests/test_x.py\t2024-01-01 00:00:00\n"
            "+++ tests/test_x.py\t2024-01-02 00:00:00\n"
            "@@ -1,3 +1,4 @@\n"
            " def test_x():\n"
            "\n"                      # a blank context line whose leading space was stripped
            "+    assert f() == 1\n"
            "     pass\n"
            'diff --git "a/tests/t\\303\\251st_q.py" "b/tests/t\\303\\251st_q.py"\n'
            '--- "a/tests/t\\303\\251st_q.py"\n'
            '+++ "b/tests/t\\303\\251st_q.py"\n'
            "@@ -1 +1 @@\n"
            "-x = 1\n"
            "+x = 2\n")
    a, b = parse_unified_diff(text)
    assert a.new_path == "tests/test_x.py" and a.old_path == "tests/test_x.py"
    assert [(hl.tag, hl.text, hl.new_line) for hl in a.hunks[0].lines] == [
        (" ", "def test_x():", 1), (" ", "", 2), ("+", "    assert f() == 1", 3), (" ", "    pass", 4)]
    assert b.new_path == "tests/tést_q.py" and b.hunks[0].lines[1].new_line == 1


def test_diff_parser_crlf_and_rename():
    text = ("diff --git a/old_test.py b/tests/test_renamed.py\r\n"
            "similarity index 90%\r\n"
            "rename from old_test.py\r\n"
            "rename to tests/test_renamed.py\r\n"
            "--- a/old_test.py\r\n"
            "+++ b/tests/test_renamed.py\r\n"
            "@@ -1,2 +1,2 @@\r\n"
            " def test_r():\r\n"
            "-    assert f() == 1\r\n"
            "+    assert f() == 2\r\n")
    (fp,) = parse_unified_diff(text)
    assert (fp.old_path, fp.new_path) == ("old_test.py", "tests/test_renamed.py")
    assert fp.hunks[0].lines[2].text == "    assert f() == 2"


@pytest.mark.parametrize("text, line, fragment", [
    ("--- a/t.py\n+++ b/t.py\n@@ -1,2 +1,2 @\n x\n", 3, "bad hunk header"),
    ("--- a/t.py\n+++ b/t.py\n@@ -1,3 +1,3 @@\n x\n y\n", 3, "ends early"),
    ("--- a/t.py\n+++ b/t.py\n@@ -1,2 +1,2 @@\n x\n*y\n", 5, "unexpected line"),
    ("--- a/t.py\n+++ b/t.py\n@@ -1,1 +1,1 @@\n-x\n+y\n+z\n", 6, "follows a complete hunk"),
    ("@@ -1 +1 @@\n-x\n+y\n", 1, "before any file header"),
    ("just some text\nnot a diff\n", 1, "no file header"),
])
def test_diff_parser_malformed(text, line, fragment):
    with pytest.raises(InputError) as e:
        parse_unified_diff(text, source="inst.json#django__django-1.test_patch")
    assert fragment in str(e.value)
    assert e.value.path == "inst.json#django__django-1.test_patch" and e.value.line == line and e.value.hint


def test_diff_parser_empty_is_no_files():
    assert parse_unified_diff("") == []


# =====================================================================================
# reconstruction of test code
# =====================================================================================

def numbered(text: str) -> dict[int, str]:
    return {i: s for i, s in enumerate(text.split("\n"), 1) if s.strip()}


def test_reconstruct_keeps_changed_tests_at_their_lines():
    mod, new, _ = parse_unified_diff(TWO_FILE_DIFF)
    r = reconstruct_test_file(mod)
    assert r.kept == ("TestThing.test_new", "test_top")
    assert r.unrecovered == ()
    lines = numbered(r.text)
    # the unchanged context test_old is left out; the class header (from the hunk context) sits just
    # above the first kept method; the changed assertions keep their new-side line numbers
    assert lines == {
        12: "class TestThing(unittest.TestCase):",
        13: "    def test_new(self):", 14: "        self.assertEqual(f(2), 4)", 15: "        self.assertEqual(f(3), 9)",
        43: "def test_top():",
        44: "    a = 1", 45: "    b = 2", 46: "    assert h(a) == 1", 47: "    assert h(b) == 3", 48: "    assert h(3) == 5",
    }
    tree = ast.parse(r.text)
    asserts = [n.lineno for n in ast.walk(tree) if isinstance(n, ast.Assert)]
    assert asserts == [46, 47, 48]
    rn = reconstruct_test_file(new)
    assert rn.text == "import pytest\nfrom mod import f\n\ndef test_a():\n    assert f(1) == 1\n" and rn.kept == ("test_a",)


def _hunk_file(body: str, header: str = "@@ -1,1 +1,1 @@") -> L.FilePatch:
    (fp,) = parse_unified_diff("--- a/tests/test_z.py\n+++ b/tests/test_z.py\n" + header + "\n" + body)
    return fp


def hunk_patch(new_start: int, lines: list[str], section: str = "") -> L.FilePatch:
    old = sum(1 for s in lines if s[0] in " -")
    new = sum(1 for s in lines if s[0] in " +")
    header = f"@@ -{new_start},{old} +{new_start},{new} @@ {section}".rstrip()
    return _hunk_file("".join(s + "\n" for s in lines), header)


def test_reconstruct_visible_class_decorators_and_multiline_header():
    fp = hunk_patch(20, [
        " class TestParams:",
        "     @pytest.mark.parametrize(",
        '         "x, y",',
        "         [(1, 2), (2, 4)],",
        "     )",
        "     def test_double(",
        "         self, x, y",
        "     ):",
        "-        assert double(x) == y",
        "+        assert double(x) == y + 0",
        "+        assert double(0) == 0",
        " ",
        "     def helper(self):",
        "-        return 1",
        "+        return 2",
    ])
    r = reconstruct_test_file(fp)
    assert r.kept == ("TestParams.test_double",) and r.unrecovered == ()
    lines = numbered(r.text)
    assert lines[20] == "class TestParams:" and lines[21].strip().startswith("@pytest.mark.parametrize")
    assert lines[28] == "        assert double(x) == y + 0" and lines[29] == "        assert double(0) == 0"
    assert max(lines) == 29  # the changed helper is not test code
    tree = ast.parse(r.text)
    (cls,) = tree.body
    (fn,) = cls.body
    assert fn.name == "test_double" and fn.lineno == 25 and len(fn.decorator_list) == 1


def test_reconstruct_function_cut_at_hunk_end_and_orphan_method():
    fp = hunk_patch(100, [
        "         self.assertEqual(a, 1)",       # tail of a method whose def is above the hunk
        "+        self.assertEqual(b, 2)",
        " ",
        "     def test_next(self):",
        "+        self.assertEqual(c(), 3)",
        "         data = [",                     # statement cut by the end of the hunk
        "             1,",
    ], section="class TestX(TestCase):")
    r = reconstruct_test_file(fp)
    assert r.kept == ("TestX.test_next",)
    lines = numbered(r.text)
    assert lines[102] == "class TestX(TestCase):"
    assert lines[103] == "    def test_next(self):" and lines[104] == "        self.assertEqual(c(), 3)"
    assert 105 not in lines and 106 not in lines
    (ln, why), = r.unrecovered
    assert ln == 101 and "TestX" in why
    assert lines[101].startswith(UNRECOVERED_MARKER) and lines[101].endswith("| self.assertEqual(b, 2)")
    ast.parse(r.text)


def test_reconstruct_orphan_pytest_function_from_hunk_context():
    fp = hunk_patch(50, [
        "         1,",                 # partial leading line (inside a literal)
        "     ]",
        "     assert total(xs) == 6",
        "+    assert total([]) == 0",
        " ",
        " ",
        " def test_after():",
        "     pass",
    ], section="def test_total(tmp_path):")
    r = reconstruct_test_file(fp)
    assert r.kept == ("test_total",)
    lines = numbered(r.text)
    assert lines[51] == "def test_total(tmp_path):"   # synthesized on the free line above
    assert lines[52] == "    assert total(xs) == 6" and lines[53] == "    assert total([]) == 0"
    assert 56 not in lines  # unchanged test_after is not kept
    assert r.unrecovered == ()


def test_reconstruct_orphan_in_helper_is_silent_and_removal_only_counts():
    helper = hunk_patch(10, ["     x = 1", "+    y = 2", "     return x"], section="def _helper():")
    r = reconstruct_test_file(helper)
    assert r.kept == () and r.unrecovered == () and r.text == ""
    removal = hunk_patch(10, [" def test_r():", "     assert f(1) == 1", "-    assert f(2) == 2", "     assert f(3) == 3"])
    r = reconstruct_test_file(removal)
    assert r.kept == ("test_r",) and numbered(r.text)[12] == "    assert f(3) == 3"


def test_reconstruct_multiple_hunks_same_class():
    fp = _hunk_file(
        " class TestA(TestCase):\n"
        "     def test_1(self):\n"
        "+        self.assertEqual(f(1), 1)\n"
        "         pass\n"
        "@@ -40,2 +41,3 @@ class TestA(TestCase):\n"
        "     def test_2(self):\n"
        "+        self.assertEqual(f(2), 2)\n"
        "         pass\n",
        "@@ -5,3 +5,4 @@")
    r = reconstruct_test_file(fp)
    assert r.kept == ("TestA.test_1", "TestA.test_2")
    tree = ast.parse(r.text)
    (cls,) = tree.body
    assert [(f.name, f.lineno) for f in cls.body] == [("test_1", 6), ("test_2", 41)]


def test_reconstruct_never_lifts_a_statement_out_of_an_unseen_block():
    # the first lines sit in an 'if'/'for' whose header is above the hunk: they must not become
    # unconditional statements of the function
    fp = hunk_patch(10, [
        "         assert f(1) == 1",
        "+        assert f(2) == 2",
        "     assert f(3) == 3",
        "+    assert f(4) == 4",
    ], section="def test_cond():")
    r = reconstruct_test_file(fp)
    assert r.kept == ("test_cond",)
    tree = ast.parse(r.text)
    (fn,) = tree.body
    assert [n.lineno for n in fn.body] == [12, 13]
    assert [ln for ln, _ in r.unrecovered] == [11]
    only_nested = hunk_patch(10, ["         x = 1", "+        assert f(x) == 2", "         y = 2"], section="def test_loop():")
    r = reconstruct_test_file(only_nested)
    assert r.kept == () and [ln for ln, _ in r.unrecovered] == [11]


def test_reconstruct_hunk_starting_in_a_docstring():
    fp = hunk_patch(30, [
        "         string.\"\"\"",
        "         self.assertEqual(g([1]), 1)",
        "+        self.assertEqual(g([2]), 2)",
        " ",
        "     def test_three(self):",
        "+        self.assertEqual(f(0), 1)",
        "         pass",
    ], section="class TestBeta(unittest.TestCase):")
    r = reconstruct_test_file(fp)
    assert r.kept == ("TestBeta.test_three",)
    assert [ln for ln, _ in r.unrecovered] == [32]


def test_reconstruct_code_inside_strings_is_not_a_test():
    visible = hunk_patch(10, [" def test_src():", '     code = """', " def test_inner():", "+    assert 1 == 2",
                              ' """', "     assert run(code) == 0"])
    r = reconstruct_test_file(visible)
    assert r.kept == ("test_src",)
    cut = hunk_patch(10, [" def test_inner():", "+    assert 1 == 2", ' """', "     assert run(code) == 0"],
                     section="def test_src():")
    r = reconstruct_test_file(cut)
    assert r.kept == () and [ln for ln, _ in r.unrecovered] == [11]


def test_reconstruct_accounts_for_every_changed_line():
    fp = hunk_patch(1, [
        " import os",
        "+CASES = [",
        "+    (1, 2),",
        "+]",
        " ",
        " ",
        " def helper():",
        "+    return 3",
        " ",
        " ",
        " class TestK:",
        "+    attr = 1",
        " ",
        "     def setup_method(self):",
        "+        self.x = 1",
        " ",
        "     def test_k(self):",
        "+        assert helper() == 3",
    ])
    r = reconstruct_test_file(fp)
    assert r.kept == ("TestK.test_k",) and r.unrecovered == ()   # data, helpers and setup: not tests
    lines = numbered(r.text)
    assert lines[1] == "import os" and lines[11] == "class TestK:" and lines[18] == "        assert helper() == 3"
    assert 2 not in lines and 8 not in lines and 12 not in lines and 15 not in lines
    stray = hunk_patch(10, ["         x = 1", "+        y = 2"])  # no hunk context at all
    assert [ln for ln, _ in reconstruct_test_file(stray).unrecovered] == [11]


# -- property: reconstruction against the real new file --------------------------------------

BASE_MODULE = '''\
import unittest
from pkg import f, g


def helper(x):
    return x + 1


def test_alpha():
    assert f(1) == 2
    assert f(2) == 3
    data = [
        1,
        2,
    ]
    assert g(data) == 3


class TestBeta(unittest.TestCase):
    def setUp(self):
        self.x = 1

    def test_one(self):
        self.assertEqual(f(1), 2)
        self.assertEqual(f(5), 6)

    @unittest.skip("slow")
    def test_two(self):
        """Doc
        string."""
        self.assertEqual(g([1]), 1)
        self.assertTrue(g([]) == 0)

    def test_three(self):
        with self.assertRaises(ValueError):
            f(-1)
        self.assertEqual(f(0), 1)


def test_gamma():
    for i in range(3):
        assert f(i) == i + 1
        if i:
            assert g([i]) == i
    assert g([1, 2]) == 3


class TestDelta:
    """Docstring
    over lines."""

    def test_four(self):
        """Doc."""
        with open(__file__) as fh:
            assert f(4) == 5
        assert g([4]) == 4

    def test_five(self):
        s = """
def test_fake():
    assert f(0) == 0
"""
        assert g([5]) == 5
'''


def git_like_diff(old: str, new: str, n: int = 3) -> str:
    """difflib's unified diff with git's default function context after each '@@'."""
    old_lines = old.split("\n")
    out = []
    for line in difflib.unified_diff(old.split("\n"), new.split("\n"), "a/tests/test_p.py", "b/tests/test_p.py",
                                     n=n, lineterm=""):
        m = re.match(r"@@ -(\d+)", line)
        if m:
            start = int(m.group(1))
            ctx = ""
            for s in reversed(old_lines[:max(start - 1, 0)]):
                if re.match(r"[A-Za-z_$]", s):
                    ctx = s
                    break
            line = f"{line} {ctx}".rstrip()
        out.append(line)
    return "\n".join(out) + "\n"


EDITABLE = [i for i, s in enumerate(BASE_MODULE.split("\n")) if re.search(r"assert|== ", s) and not s.endswith(":")]


@settings(max_examples=200, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(edits=st.lists(st.tuples(st.sampled_from(EDITABLE), st.sampled_from(["change", "insert", "delete"])),
                      min_size=1, max_size=4, unique_by=lambda e: e[0]),
       context=st.sampled_from([1, 2, 3]))
def test_reconstruction_property(edits, context):
    """Against the real new file: the reconstruction parses, every kept line is the real line (or a
    class/def header placed from the hunk context), every kept statement sits in the same chain of
    blocks as in the real file, and every added line of a test is kept or reported.

    Context 0 is left out on purpose: git's hunk context can then name a ``def`` that lives inside a
    string literal with nothing in the hunk to tell (a documented limit of the reconstruction)."""
    old_lines = BASE_MODULE.split("\n")
    new_lines = list(old_lines)
    for idx, kind in sorted(edits, reverse=True):
        s = old_lines[idx]
        if kind == "change":
            new_lines[idx] = s.replace("==", "== 100 +", 1) if "==" in s else s.replace("(", "(7, ", 1)
        elif kind == "insert":
            indent = s[: len(s) - len(s.lstrip())]
            new_lines.insert(idx + 1, indent + "assert f(42) == 43")
        else:
            del new_lines[idx]
    new = "\n".join(new_lines)
    try:
        ast.parse(new)
    except SyntaxError:
        assume(False)  # an edit emptied a block
    diff = git_like_diff(BASE_MODULE, new, n=context)
    (fp,) = parse_unified_diff(diff)
    r = reconstruct_test_file(fp)
    ast.parse(r.text)  # always a parsable module
    real = new.split("\n")
    synth = 0
    for ln, s in numbered(r.text).items():
        if s.lstrip().startswith(UNRECOVERED_MARKER):
            continue
        code = s.split("  " + UNRECOVERED_MARKER)[0]
        if code != real[ln - 1]:
            # only a header placed from the hunk context may sit off its real line
            assert re.match(r"(class|def) ", code) and code in real, (ln, s)
            synth += 1
    # every kept statement sits in the same chain of enclosing blocks as in the real file
    real_paths = block_paths(new)
    for ln, path in block_paths(r.text).items():
        assert real_paths.get(ln) == path, (ln, path, real_paths.get(ln))
    # every added line of test code is either kept verbatim or reported on its own line
    kept_or_marked = numbered(r.text)
    added = {hl.new_line for h in fp.hunks for hl in h.lines if hl.tag == "+"}
    for ln in added:
        if real[ln - 1].strip():
            assert ln in kept_or_marked or not in_test(real, ln), (ln, real[ln - 1], r.text)


def block_paths(text: str) -> dict[int, tuple[str, ...]]:
    """For each simple statement's line, the enclosing blocks (class/def names, if/for/with/...)."""
    out: dict[int, tuple[str, ...]] = {}

    def walk(node, path):
        for child in ast.iter_child_nodes(node):
            if isinstance(child, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
                walk(child, path + (child.name,))
            elif isinstance(child, (ast.If, ast.For, ast.While, ast.With, ast.Try)):
                out[child.lineno] = path
                walk(child, path + (f"{type(child).__name__}@{child.lineno}",))
            elif isinstance(child, ast.stmt):
                out[child.lineno] = path
    walk(ast.parse(text), ())
    return out


def in_test(lines: list[str], ln: int) -> bool:
    """Whether 1-based line ``ln`` of a module lies in a test function (by the real file's AST)."""
    tree = ast.parse("\n".join(lines))
    for node in ast.walk(tree):
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)) and node.name.startswith("test"):
            if node.lineno <= ln <= node.end_lineno:
                return True
    return False


# =====================================================================================
# SWE-bench instances
# =====================================================================================

def swe_instance(**over):
    inst = {
        "repo": "acme/widgets", "instance_id": "acme__widgets-1", "base_commit": "abc123",
        "problem_statement": "f(2) should return 4.\n",
        "patch": "diff --git a/src/w.py b/src/w.py\n",
        "test_patch": TWO_FILE_DIFF + (
            "diff --git a/src/conf.py b/src/conf.py\n--- a/src/conf.py\n+++ b/src/conf.py\n@@ -1 +1 @@\n-A = 1\n+A = 2\n"),
        "FAIL_TO_PASS": json.dumps(["tests/test_mod.py::TestThing::test_new", "tests/test_new.py::test_a"]),
        "PASS_TO_PASS": ["test_top", "tests/other_test.py::test_q", "test_a (app.tests.Other)"],
        "impossible_type": "oneoff",
        "original_test_patch": "diff --git a/x b/x\n",
    }
    inst.update(over)
    return inst


def test_swebench_instance(tmp_path):
    p = write(tmp_path / "inst.json", json.dumps(swe_instance()))
    t = load_swebench(str(p))
    assert t.id == "acme__widgets-1" and t.description == "f(2) should return 4.\n"
    assert t.description_path == f"{p}#acme__widgets-1.problem_statement"
    assert [s.path for s in t.tests] == ["tests/test_mod.py", "tests/test_new.py"]  # src/ skipped, deleted skipped
    mod, new = t.tests
    assert mod.only_tests == ("tests/test_mod.py::TestThing::test_new", "test_top")
    assert new.only_tests == ("tests/test_new.py::test_a",)
    assert "def test_new(self):" in mod.text
    assert t.labels == {"impossible_type": "oneoff", "original_test_patch": "diff --git a/x b/x\n",
                        "repo": "acme/widgets", "base_commit": "abc123"}
    assert t.inputs[0].role == "instance" and t.inputs[0].sha256 == sha(p.read_bytes())
    assert "patch" not in t.labels  # the gold patch never travels with the task


def test_swebench_jsonl_pick_and_errors(tmp_path):
    a = swe_instance()
    b = swe_instance(instance_id="acme__widgets-2", FAIL_TO_PASS=[], PASS_TO_PASS=None)
    p = write(tmp_path / "insts.jsonl", json.dumps(a) + "\n" + json.dumps(b) + "\n")
    t = load_swebench(str(p), "acme__widgets-2")
    assert t.id == "acme__widgets-2" and all(s.only_tests == () for s in t.tests)
    with pytest.raises(InputError, match="say which one") as e:
        load_swebench(str(p))
    assert "acme__widgets-1" in e.value.hint
    with pytest.raises(InputError, match="no instance") as e:
        load_swebench(str(p), "zzz")
    assert "acme__widgets-2" in e.value.hint
    broken = swe_instance(test_patch="--- a/tests/test_a.py\n+++ b/tests/test_a.py\n@@ -1,2 +1,2 @@\n x\n")
    p2 = write(tmp_path / "broken.json", json.dumps(broken))
    with pytest.raises(InputError, match="malformed diff") as e:
        load_swebench(str(p2))
    assert e.value.path == f"{p2}#acme__widgets-1.test_patch" and e.value.line == 3
    p3 = write(tmp_path / "nopatch.json", json.dumps({"instance_id": "x", "problem_statement": "p"}))
    with pytest.raises(InputError, match="no test_patch"):
        load_swebench(str(p3))
    p4 = write(tmp_path / "badf2p.json", json.dumps(swe_instance(FAIL_TO_PASS="[1, 2]")))
    with pytest.raises(InputError, match="FAIL_TO_PASS"):
        load_swebench(str(p4))


@pytest.mark.parametrize("node, path, text, expected", [
    ("tests/test_x.py::TestA::test_b[1-2]", "tests/test_x.py", "", True),
    ("test_x.py::test_b", "tests/test_x.py", "", True),
    ("tests/test_y.py::test_b", "tests/test_x.py", "", False),
    ("test_b (admin_views.tests.AdminTests)", "tests/admin_views/tests.py", "", True),
    ("test_b (admin_views.tests.AdminTests.test_b)", "tests/admin_views/tests.py", "", True),
    ("test_b (other.tests.AdminTests)", "tests/admin_views/tests.py", "", False),
    ("test_issue_1", "sympy/core/tests/test_basic.py", "def test_issue_1():\n    pass", True),
    ("test_issue_2", "sympy/core/tests/test_basic.py", "def test_issue_1():\n    pass", False),
])
def test_node_id_membership(node, path, text, expected):
    assert node_id_in_file(node, path, text) is expected


# =====================================================================================
# (d) task folders
# =====================================================================================

def make_task_dir(root: Path, toml: str) -> Path:
    write(root / "README.md", "Return the double of x.\n\n>>> f(2)\n4\n")
    write(root / "tests/test_f.py", "def test_f():\n    assert f(2) == 4\n")
    write(root / "task.toml", toml)
    return root


def test_task_dir(tmp_path):
    d = make_task_dir(tmp_path / "double", 'entry_point = "f"\ndescription = "README.md"\ntests = ["tests"]\n'
                                           '[labels]\nimpossible_type = "none"\n')
    before = tree_snapshot(tmp_path)
    t = load_task_dir(str(d))
    assert tree_snapshot(tmp_path) == before
    assert t.id == "double" and t.entry_point == "f" and t.labels == {"impossible_type": "none"}
    assert t.description.startswith("Return the double") and t.description_path == os.path.join(str(d), "README.md")
    assert [s.path for s in t.tests] == [os.path.join(str(d), "tests", "test_f.py")]
    assert [i.role for i in t.inputs] == ["task", "description", "tests"]
    assert t.inputs[0].sha256 == sha((d / "task.toml").read_bytes())
    assert load_any(str(d)) == t and load_any(str(d / "task.toml")) == t


def test_task_dir_inline_description_keeps_line_numbers(tmp_path):
    d = make_task_dir(tmp_path / "t", 'id = "inline"\n\ndescription_text = """\nLine one.\nLine two.\n"""\n'
                                      'tests = ["tests/test_f.py"]\n')
    t = load_task_dir(str(d))
    assert t.id == "inline" and t.description == "Line one.\nLine two.\n"
    assert t.description_path == os.path.join(str(d), "task.toml")
    # description line n is line n + offset of task.toml
    toml_lines = (d / "task.toml").read_text().split("\n")
    assert t.description_line_offset == 3
    assert toml_lines[(2 + t.description_line_offset) - 1] == "Line two."


def test_task_dir_unknown_key(tmp_path):
    d = make_task_dir(tmp_path / "t", 'description = "README.md"\ntests = ["tests"]\ntimeout = 5\n')
    with pytest.raises(InputError) as e:
        load_task_dir(str(d))
    assert "'timeout'" in str(e.value) and e.value.path == os.path.join(str(d), "task.toml") and e.value.line == 3
    assert "description_text" in e.value.hint and "entry_point" in e.value.hint


def test_task_dir_bad_toml_reports_line(tmp_path):
    d = make_task_dir(tmp_path / "t", 'description = "README.md"\ntests = ["tests"\nentry_point = "f"\n')
    with pytest.raises(InputError, match="TOML syntax error") as e:
        load_task_dir(str(d))
    assert e.value.path == os.path.join(str(d), "task.toml") and e.value.line == 3


@pytest.mark.parametrize("toml, fragment", [
    ('tests = ["tests"]\n', "no description"),
    ('description = "README.md"\n', "no tests"),
    ('description = "README.md"\ndescription_text = "x"\ntests = ["tests"]\n', "not both"),
    ('description = "README.md"\ntests = [1]\n', "list of paths"),
    ('description = "MISSING.md"\ntests = ["tests"]\n', "not found"),
    ('description = "README.md"\ntests = ["nope"]\n', "not found"),
])
def test_task_dir_errors(tmp_path, toml, fragment):
    d = make_task_dir(tmp_path / "t", toml)
    with pytest.raises(InputError, match=fragment):
        load_task_dir(str(d))


# =====================================================================================
# (e) load_any
# =====================================================================================

def test_load_any_dispatch(tmp_path):
    lcb = lcb_file(tmp_path, CONFLICTING)
    assert load_any(lcb, task_id="t1").id == "t1"
    assert load_any(lcb, task_id="t1", suite="original").labels["suite"] == "original"
    swe = write(tmp_path / "swe.json", json.dumps(swe_instance()))
    assert load_any(str(swe)).id == "acme__widgets-1"
    assert load_any(str(swe), instance_id="acme__widgets-1").id == "acme__widgets-1"
    single = lcb_file(tmp_path, ONEOFF["tasks"][0], "one.json")
    assert load_any(single).id == "o0"
    other = write(tmp_path / "other.json", json.dumps({"hello": 1}))
    with pytest.raises(InputError, match="not recognised") as e:
        load_any(str(other))
    assert e.value.hint
    py = write(tmp_path / "test_x.py", "x = 1\n")
    with pytest.raises(InputError, match="not recognised"):
        load_any(str(py))
    (tmp_path / "plain").mkdir()
    with pytest.raises(InputError, match="no task.toml"):
        load_any(str(tmp_path / "plain"))
    with pytest.raises(InputError, match="not found"):
        load_any(str(tmp_path / "absent.json"))
    with pytest.raises(TypeError):
        load_any(lcb, bogus=1)
    empty = lcb_file(tmp_path, {"tasks": []}, "empty.json")
    with pytest.raises(InputError, match="0 tasks"):
        load_any(empty)
