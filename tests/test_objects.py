"""Objects and call histories (issue 13, items 1, 2, 5): fresh objects of the class under test
read from test bodies, ``setUp``, function-scoped fixtures and doctest sessions; their inputs in
Lean; certified conflicts and ``verify`` on real bundles."""

import hashlib
import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from specguard.kernel import emit
from specguard.formalize import objects
from specguard.check import formalize
from specguard.formalize.description import formalize_description
from specguard.formalize.tests import formalize_tests
from specguard.models import Call, ObjectKey, ObjEvent, Task, TestSource
from specguard.python.values import V

ROOT = Path(__file__).resolve().parent.parent


def read(code: str, target: str = "Stack"):
    tf = formalize_tests([TestSource(kind="python", path="test_s.py", text=code)], target)
    return [(d.loc.line, f"{d.call.source()} {d.expect.source()}") for d in tf.demands], tf


def test_history_of_a_local_object():
    """#13.1: every interaction is an event of the object's history, in order; observations
    (`len`, `in`, `list`, attributes) are inputs of their own."""
    got, tf = read("from s import Stack\n\ndef test_a():\n    s = Stack([3])\n    s.push(1)\n"
                   "    assert s.pop() == 1\n    assert len(s) == 1\n    assert 3 in s\n    assert s.size == 1\n"
                   "    assert list(s) == [3]\n    assert s\n")
    assert got == [(6, "s = Stack([3]); s.push(1); s.pop() == 1"),
                   (7, "s = Stack([3]); s.push(1); s.pop(); len(s) == 1"),
                   (8, "s = Stack([3]); s.push(1); s.pop(); len(s); 3 in s is truthy"),
                   (9, "s = Stack([3]); s.push(1); s.pop(); len(s); 3 in s; s.size == 1"),
                   (10, "s = Stack([3]); s.push(1); s.pop(); len(s); 3 in s; s.size; list(s) == [3]"),
                   (11, "s = Stack([3]); s.push(1); s.pop(); len(s); 3 in s; s.size; list(s); bool(s) is truthy")]
    assert not tf.unsupported and tf.assertions_read == tf.assertions_total == 6


def test_setup_fixture_raises_and_fresh_constructions():
    """#13.1: `self.s` built by the class's own setUp (fresh per test), a function-scoped fixture
    returning a fresh construction, `pytest.raises` blocks and `Stack(...).m()`."""
    got, tf = read("import pytest\nimport unittest\nfrom s import Stack\n\n"
                   "class T(unittest.TestCase):\n    def setUp(self):\n        self.s = Stack()\n"
                   "        self.s.push(4)\n\n    def test_a(self):\n        self.assertEqual(self.s.pop(), 4)\n"
                   "        self.assertRaises(IndexError, self.s.pop)\n        self.assertIn(4, self.s) \n\n"
                   "@pytest.fixture\ndef st():\n    return Stack([1, 2])\n\n"
                   "def test_f(st):\n    assert st.pop() == 2\n    with pytest.raises(IndexError):\n        Stack().pop()\n"
                   "    assert Stack([5]).peek() == 5\n")
    assert got == [(11, "s = Stack(); s.push(4); s.pop() == 4"),
                   (12, "s = Stack(); s.push(4); s.pop(); s.pop() raises IndexError"),
                   (13, "s = Stack(); s.push(4); s.pop(); s.pop(); 4 in s is truthy"),
                   (20, "s = Stack([1, 2]); s.pop() == 2"),
                   (21, "s = Stack(); s.pop() raises IndexError"),
                   (23, "s = Stack([5]); s.peek() == 5")]


def test_object_inputs_are_distinct_from_function_inputs():
    """#13.1: an observation's Lean input carries the `<object>` marker at the top, which no
    argument tuple of a function produces; equal histories give equal inputs, others differ."""
    def key(history, obs="pop"):
        return Call(target=f"Stack.{obs}", obj=ObjectKey(cls="Stack", history=tuple(history),
                                                         obs=ObjEvent(kind="call", name=obs)))
    push1 = ObjEvent(kind="call", name="push", args=(V("int", 1),))
    a, b, c = key([push1]), key([push1]), key([push1, push1])
    assert emit.lean_input(a) == emit.lean_input(b) and a.key() == b.key()
    assert emit.lean_input(a) != emit.lean_input(c) and a.key() != c.key()
    assert emit.lean_input(a).startswith('(Val.pair (Val.pair (Val.str "<object>") ')
    f = Call(target="Stack", args=(V("str", "<object>"),))
    assert not emit.lean_input(f).startswith('(Val.pair (Val.pair (Val.str')
    # 1 and True stay distinct in the history (exact inputs)
    pt = ObjEvent(kind="call", name="push", args=(V("bool", True),))
    assert emit.lean_input(key([pt])) != emit.lean_input(key([push1]))


def test_doctest_session_with_objects():
    """#13.2: a class docstring's session (`>>> s = Stack()`, `>>> s.push(1)`, `>>> s.pop()` /
    `1`) is read as observations of one fresh object; a method's own session too."""
    desc = ('class Stack:\n    """A stack.\n\n    >>> s = Stack()\n    >>> s.push(1)\n    >>> s.push(2)\n'
            '    >>> s.pop()\n    2\n    >>> len(s)\n    1\n    >>> 1 in s\n    True\n    >>> s.pop()\n    1\n'
            '    >>> s.pop()\n    Traceback (most recent call last):\n    IndexError: pop from empty stack\n    """\n\n'
            '    def peek(self):\n        """The top item.\n\n        >>> Stack([1, 2]).peek()\n        2\n        """\n')
    df = formalize_description(desc, path="d.py", entry_point="Stack")
    got = [f"{c.call.source()} {c.expect.source()}" for c in df.claims]
    assert got == ["s = Stack(); s.push(1); s.push(2); s.pop() == 2",
                   "s = Stack(); s.push(1); s.push(2); s.pop(); len(s) == 1",
                   "s = Stack(); s.push(1); s.push(2); s.pop(); len(s); 1 in s is truthy",
                   "s = Stack(); s.push(1); s.push(2); s.pop(); len(s); 1 in s; s.pop() == 1",
                   "s = Stack(); s.push(1); s.push(2); s.pop(); len(s); 1 in s; s.pop(); s.pop() raises IndexError",
                   "s = Stack([1, 2]); s.peek() == 2"]
    assert df.examples_read == 6


def test_class_under_test_is_inferred():
    """#13.1: with no entry point, the class the tests build and observe (and the description
    defines) is the subject; module functions stay functions."""
    task = Task(id="t", description="class Stack:\n    def pop(self): ...\n",
                tests=(TestSource(kind="python", path="t.py",
                                  text="from s import Stack\n\ndef test_a():\n    s = Stack()\n    s.push(1)\n"
                                       "    assert s.pop() == 1\n"),))
    assert objects.class_entry(task) == "Stack"
    tf, _ = formalize(task)
    assert [d.call.target for d in tf.demands] == ["Stack.pop"]
    fn = Task(id="f", description="def f(x): ...\n", entry_point="f",
              tests=(TestSource(kind="python", path="t.py", text="from m import f\n\ndef test_a():\n    r = f(1)\n"
                                                                   "    assert r == 2\n"),))
    assert objects.class_entry(fn.model_copy(update={"entry_point": None})) is None
    assert [d.call.source() for d in formalize(fn)[0].demands] == ["f(1)"]


# -- the real pipeline: check, verify, tampering ------------------------------------------------------

DESC = ('class Stack:\n    """A last-in first-out stack.\n\n    >>> s = Stack()\n    >>> s.push(1)\n    >>> s.push(2)\n'
        '    >>> s.pop()\n    2\n    """\n\n    def push(self, x): ...\n\n    def pop(self): ...\n')
TESTS = ("from stack import Stack\n\n\ndef test_pop():\n    s = Stack()\n    s.push(1)\n    s.push(2)\n"
         "    assert s.pop() == 3\n")


def cli(*args, cwd: Path) -> subprocess.CompletedProcess:
    env = dict(os.environ, PYTHONPATH=str(ROOT))
    return subprocess.run([sys.executable, "-m", "specguard", *map(str, args)], capture_output=True, text=True,
                          cwd=str(cwd), env=env, timeout=300)


@pytest.fixture(scope="module")
def bundle(tmp_path_factory):
    d = tmp_path_factory.mktemp("objects")
    (d / "stack.py").write_text(DESC)
    (d / "test_stack.py").write_text(TESTS)
    p = cli("check", "--description", d / "stack.py", "--tests", d / "test_stack.py", "--out", d / "out", "--json",
            cwd=d)
    assert p.returncode == 1, p.stdout + p.stderr
    return d, json.loads(p.stdout)


@pytest.mark.lean
def test_doctest_session_vs_test_is_certified(bundle):
    """#13.2: the description's session shows `s.pop()` giving 2 after pushing 1 and 2; the test
    expects 3 after the same history: a certified description-vs-test conflict, with the
    object assumption stated."""
    d, r = bundle
    assert r["verdict"] == "conflict" and r["evidence"] == "certified", r["reason"]
    assert r["conflict"]["kind"] == "description-vs-test"
    statements = {i["statement"] for i in r["conflict"]["items"]}
    assert statements == {"s = Stack(); s.push(1); s.push(2); s.pop() == 2",
                          "s = Stack(); s.push(1); s.push(2); s.pop() == 3"}
    assert objects.ASSUMPTION in r["assumptions"]


def _verify(b: Path, *inputs: Path) -> tuple[int, dict]:
    p = cli("verify", b, "--json", *(["--inputs", *inputs] if inputs else []), cwd=b.parent)
    assert "Traceback" not in p.stderr, p.stderr
    return p.returncode, json.loads(p.stdout)


@pytest.mark.lean
def test_verify_accepts_object_inputs_and_rejects_a_changed_history(bundle, tmp_path):
    """#13.2: `verify --inputs` re-derives a bundle whose inputs are object histories (VALID); a
    bundle whose tests.lean says another history (the manifest made to agree) is INVALID."""
    import shutil
    d, _ = bundle
    rc, rep = _verify(d / "out", d / "stack.py", d / "test_stack.py")
    assert rc == 0 and rep["valid"], rep["reason"]
    forged = tmp_path / "forged"
    shutil.copytree(d / "out", forged)
    t = (forged / "tests.lean").read_text()
    assert '(Val.str "push")' in t
    (forged / "tests.lean").write_text(t.replace('(Val.str "push")', '(Val.str "pull")'))
    m = json.loads((forged / "manifest.json").read_text())
    m["outputs"] = {p.name: hashlib.sha256(p.read_bytes()).hexdigest() for p in sorted(forged.iterdir())
                    if p.name != "manifest.json" and p.is_file()}
    (forged / "manifest.json").write_text(json.dumps(m, indent=2) + "\n")
    rc, rep = _verify(forged, d / "stack.py", d / "test_stack.py")
    assert rc == 1 and not rep["valid"], rep


def _new_file(path: str, body: str) -> str:
    lines = body.splitlines()
    return (f"diff --git a/{path} b/{path}\nnew file mode 100644\n--- /dev/null\n+++ b/{path}\n"
            f"@@ -0,0 +1,{len(lines)} @@\n" + "".join(f"+{x}\n" for x in lines))


@pytest.mark.lean
def test_swebench_instance_object_tests(tmp_path):
    """#13.5: a SWE-bench instance whose test patch adds object tests (the code under test is not
    available): read through the same executor, the class inferred from the tests and the problem
    statement, a test-vs-test conflict certified, and the result says what was read."""
    patch = _new_file("tests/test_stack.py", "from pkg.stack import Stack\n\n\ndef test_pop():\n    s = Stack()\n"
                                             "    s.push(1)\n    assert s.pop() == 1\n\n\ndef test_pop_again():\n"
                                             "    s = Stack()\n    s.push(1)\n    assert s.pop() == 2\n")
    rec = {"instance_id": "o__pkg-2", "problem_statement": "`Stack.pop` returns the wrong item.", "test_patch": patch,
           "FAIL_TO_PASS": json.dumps(["tests/test_stack.py::test_pop", "tests/test_stack.py::test_pop_again"]),
           "PASS_TO_PASS": "[]"}
    inst = tmp_path / "inst.json"
    inst.write_text(json.dumps(rec))
    p = cli("check", inst, "--out", tmp_path / "b", "--json", cwd=tmp_path)
    r = json.loads(p.stdout)
    assert r["verdict"] == "conflict" and r["evidence"] == "certified", r["reason"]
    assert r["coverage"]["assertions_read"] == r["coverage"]["assertions_total"] == 2
    assert any(n.startswith("objects of `Stack`: 2 assertion(s) read") for n in r["notes"]), r["notes"]


@pytest.mark.lean
def test_two_tests_of_one_iterator_history_are_a_certified_conflict(tmp_path, core):
    """#12: two tests advance a fresh iterator of `rng(1, 5)` once and then expect different
    second items: one input (the same history), two outcomes, a certified test-vs-test
    conflict, with the returned-object assumption stated."""
    import sys
    sys.path.insert(0, str(ROOT / "tests"))
    from cli_run import check_files
    r = check_files(tmp_path, "def rng(a, b):\n    \"\"\"Yield the integers from a up to b.\"\"\"\n",
                    "from m import rng\n\ndef test_a():\n    it = rng(1, 5)\n    next(it)\n    assert next(it) == 2\n\n"
                    "def test_b():\n    it = rng(1, 5)\n    next(it)\n    assert next(it) == 3\n", entry_point="rng")[1]
    assert r["verdict"] == "conflict" and r["evidence"] == "certified", r["reason"]
    assert {i["statement"] for i in r["conflict"]["items"]} == {"s = rng(1, 5); next(s); next(s) == 2",
                                                                 "s = rng(1, 5); next(s); next(s) == 3"}
    assert objects.RETURNED_FUNCTION_ASSUMPTION in r["assumptions"]
