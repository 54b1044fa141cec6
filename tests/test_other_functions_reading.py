"""Issue 12, items 1, 2 and 8: tests of one library function that also call other functions of the
same library (``mi.rstrip`` in the tests of ``lstrip``, ``merge_with`` beside ``merge``,
``take(3, lstrip(...))``) are read: each other function is a function of its own, keyed by its
resolved qualified name (:mod:`specguard.formalize.library`).  The real CLI, the real Lean kernel,
and ``verify --inputs`` re-deriving the claim from the task folder."""

import json
import os
import subprocess
import sys

from specguard import cli, models
from specguard.formalize.tests import formalize_tests

LSTRIP = ('def lstrip(iterable, pred):\n    """Strip items from the beginning for which *pred* returns True.\n\n'
          '    >>> list(lstrip([0, 1, 0, 2], lambda x: x == 0))\n    [1, 0, 2]\n    """\n')


def _task(tmp_path, tests: str, desc: str = LSTRIP, entry: str = "lstrip"):
    root = tmp_path / "task"
    (root / "tests").mkdir(parents=True)
    (root / "task.toml").write_text(f'description = "desc.py"\ntests = ["tests"]\nentry_point = "{entry}"\n')
    (root / "desc.py").write_text(desc)
    (root / "tests" / "test_it.py").write_text(tests)
    return root


def _run(root, out) -> tuple[int, dict]:
    r = subprocess.run([sys.executable, "-m", "specguard", "check", str(root), "--out", str(out), "-q"],
                       capture_output=True, text=True, env={**os.environ})
    return r.returncode, json.loads((out / "result.json").read_text())


def test_other_functions_read_and_conflict_certified_and_rederived(tmp_path):
    """#12.1/#12.2/#12.8: `mi.rstrip`, the import `rs` of it, `mi.take` of the result of the function
    under test: every assertion is read (coverage), the duplicated assertion about one call of
    `rstrip` with another value is a certified conflict, the assumption is stated, and
    `verify --inputs` re-derives the claim."""
    root = _task(tmp_path, (
        "import more_itertools as mi\nfrom more_itertools import rstrip as rs\n\n\n"
        "def test_lstrip():\n    assert list(mi.lstrip([0, 1], lambda x: x == 0)) == [1]\n"
        "    assert mi.take(3, mi.lstrip([0, 1, 2], bool)) == [1, 2]\n\n\n"
        "def test_rstrip():\n    assert list(mi.rstrip([1, 0], bool)) == [1, 0]\n"
        "    assert list(rs([1, 0], bool)) == [1]\n"
        "    assert list(mi.rstrip([1, 0], bool)) == [1]\n"))
    code, r = _run(root, tmp_path / "out")
    assert code == 1 and r["verdict"] == "conflict" and r["evidence"] == "certified"
    # the alias `rs` resolves to the same qualified name: the same function, the same key
    assert [i["loc"]["line"] for i in r["conflict"]["items"]] == [11, 12]
    assert r["coverage"]["assertions_read"] == r["coverage"]["assertions_total"] == 5
    assert any(a.startswith("Other functions of the library the tests call (`more_itertools.rstrip`, "
                            "`more_itertools.take`)") for a in r["assumptions"])
    v = subprocess.run([sys.executable, "-m", "specguard", "verify", str(tmp_path / "out"), "--inputs", str(root)],
                       capture_output=True, text=True, env={**os.environ})
    assert v.returncode == 0 and v.stdout.startswith("VALID"), v.stdout + v.stderr


def test_function_under_test_keeps_its_own_conflict(tmp_path):
    """#12.2: reading another function changes nothing about the function under test: the doctest
    `f(2) -> 4` against `f(2) == 5` is still the certified conflict, not `g`'s different values
    at different inputs (`from toolz import merge_with`, with a builtin as an argument)."""
    desc = 'def f(x):\n    """Double.\n\n    >>> f(2)\n    4\n    """\n'
    root = _task(tmp_path, (
        "from toolz import f, merge_with\n\n\n"
        "def test_a():\n    assert f(2) == 5\n    assert merge_with(sum, {1: 1}, {1: 2}) == {1: 3}\n\n\n"
        "def test_b():\n    assert merge_with(max, {1: 1}, {1: 2}) == {1: 2}\n"
        "    assert merge_with(sum, {1: 1}) == {1: 1}\n"), desc=desc, entry="f")
    code, r = _run(root, tmp_path / "out")
    assert code == 1 and r["verdict"] == "conflict" and r["evidence"] == "certified"
    assert r["conflict"]["kind"] == "description-vs-test"
    assert {i["statement"] for i in r["conflict"]["items"]} == {"f(2) == 5", "f(2) == 4"}
    assert r["coverage"]["assertions_read"] == 4


def test_keywords_and_calls_on_other_inputs_stay_apart():
    """#12.2: keyword and positional spellings of a call, and different arguments, are different
    inputs (how the other function binds them is not known); a lambda is a new function per
    evaluation; the function under test's calls never share a key with another function's."""
    code = ("import more_itertools as mi\nfrom more_itertools import lstrip\n\n\n"
            "def test_a():\n    assert mi.take(2, [1, 2, 3]) == [1, 2]\n"
            "    assert mi.take(n=2, iterable=[1, 2, 3]) == [9]\n"
            "    assert mi.take(3, [1, 2, 3]) == [1, 2, 3]\n"
            "    assert list(mi.rstrip([1], lambda x: x)) == [1]\n"
            "    assert list(mi.rstrip([1], lambda x: x)) == []\n"
            "    assert lstrip(2, [1, 2, 3]) == [5]\n")
    tf = formalize_tests([models.TestSource(kind="python", path="test_it.py", text=code)], "lstrip")
    keys = [d.call.key() for d in tf.demands]
    assert len(tf.demands) == 6 and len(set(keys)) == 6
    assert [d.call.lib for d in tf.demands][-1] is None


def test_results_kept_in_names_and_raises(tmp_path):
    """#12.1/#12.3: `r = mi.take(...)` then `assert r == ...`, and `pytest.raises` around another
    function's call, are read like the function under test's."""
    code = ("import pytest\nimport more_itertools as mi\nfrom more_itertools import lstrip\n\n\n"
            "def test_a():\n    r = mi.take(2, [1, 2, 3])\n    assert r == [1, 2]\n"
            "    with pytest.raises(ValueError):\n        mi.one([])\n"
            "    pytest.raises(ValueError, mi.one, [1, 2])\n")
    tf = formalize_tests([models.TestSource(kind="python", path="test_it.py", text=code)], "lstrip")
    assert [(d.call.lib, d.expect.kind.value) for d in tf.demands] == [
        ("more_itertools.take", "eq"), ("more_itertools.one", "raises"), ("more_itertools.one", "raises")]
    assert tf.assertions_read == tf.assertions_total == 3


def test_cli_main_counts_coverage(tmp_path):
    """#12.8: result.json coverage counts another function's assertions as read when they become
    constraints (and an assertion left unsupported is not)."""
    (tmp_path / "d.py").write_text(LSTRIP)
    (tmp_path / "test_x.py").write_text(
        "import more_itertools as mi\n\n\ndef test_a():\n    assert mi.take(2, [1, 2]) == [1, 2]\n"
        "    assert mi.random_product([1]) == (1,)\n    assert mi.lstrip([], bool) is not mi\n")
    out = tmp_path / "out"
    cli.main(["check", "--description", str(tmp_path / "d.py"), "--tests", str(tmp_path / "test_x.py"),
              "--entry-point", "lstrip", "--out", str(out), "-q"])
    r = json.loads((out / "result.json").read_text())
    assert (r["coverage"]["assertions_read"], r["coverage"]["assertions_total"]) == (1, 3)
    assert [u["loc"]["line"] for u in r["unsupported"]] == [6, 7]      # (`is` a module: not read)
