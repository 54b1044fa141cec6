"""Semantics traps (issue 12): Python semantics a pattern-reader gets wrong.  Each test is a task
on which SpecGuard once certified something false (a conflict on a satisfiable task, or an
entailed/no-conflict on a failing one); it runs the real CLI and asserts the result is now right
(or inconclusive with its reason)."""

import json
import os
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent.parent


def task(tmp_path: Path, doc: str, tests: str, params: str = "x") -> Path:
    """A task folder: ``f.py`` with the docstring ``doc``, ``test_f.py`` with ``tests``."""
    d = tmp_path / "task"
    d.mkdir()
    (d / "task.toml").write_text('id = "trap"\nentry_point = "f"\ndescription = "f.py"\ntests = ["test_f.py"]\n')
    body = textwrap.indent(textwrap.dedent(doc).strip("\n"), "    ")
    (d / "f.py").write_text(f'def f({params}):\n    """Compute it.\n\n{body}\n    """\n')
    (d / "test_f.py").write_text("from f import f\n" + textwrap.dedent(tests).lstrip("\n"))
    return d


def check(d: Path) -> dict:
    """``specguard check`` (real CLI, real kernel) and, when a certificate was written, ``verify``."""
    out = d.parent / "out"
    env = dict(os.environ, PYTHONPATH=str(ROOT))
    p = subprocess.run([sys.executable, "-m", "specguard", "check", str(d), "--out", str(out), "-q"],
                       capture_output=True, text=True, env=env, cwd=d.parent)
    assert p.returncode in (0, 1, 2), p.stderr
    r = json.loads((out / "result.json").read_text())
    if r["evidence"] == "certified":
        v = subprocess.run([sys.executable, "-m", "specguard", "verify", str(out), "-q"],
                           capture_output=True, text=True, env=env, cwd=d.parent)
        assert v.returncode in (0, 1), v.stderr
    return r


def not_certified_conflict(r: dict) -> None:
    assert not (r["verdict"] == "conflict" and r["evidence"] == "certified"), r["reason"]


@pytest.mark.lean
def test_setup_redefined_in_class_is_the_later_one(tmp_path):
    """#12.2: a unittest class defining `setUp` twice runs the later one (self.x = 7); reading the
    first (self.x = 1) certified f(1) == 3 against the doctest f(1) -> 2, a false conflict."""
    d = task(tmp_path, """
        >>> f(1)
        2
        """, """
        import unittest
        class T(unittest.TestCase):
            def setUp(self):
                self.x = 1
            def setUp(self):
                self.x = 7
            def test_a(self):
                self.assertEqual(f(self.x), 3)
        """)
    r = check(d)
    not_certified_conflict(r)
    assert "bound more than once" in json.dumps(r)


@pytest.mark.lean
def test_setup_rebound_by_assignment_in_class(tmp_path):
    """#12.2: `setUp = other` after `def setUp` in the class body replaces the method."""
    d = task(tmp_path, """
        >>> f(1)
        2
        """, """
        import unittest
        def _other(self):
            self.x = 7
        class T(unittest.TestCase):
            def setUp(self):
                self.x = 1
            setUp = _other
            def test_a(self):
                self.assertEqual(f(self.x), 3)
        """)
    not_certified_conflict(check(d))


@pytest.mark.lean
def test_class_getattribute_overrides_class_constant(tmp_path):
    """#12.2: a test class's `__getattribute__` decides what `self.x` reads (8), not the class body
    constant `x = 1`; reading the constant certified f(1) == 3 against the doctest f(1) -> 2."""
    d = task(tmp_path, """
        >>> f(1)
        2
        """, """
        class TestX:
            x = 1
            def __getattribute__(self, name):
                if name == "x":
                    return 8
                return object.__getattribute__(self, name)
            def test_a(self):
                assert f(self.x) == 3
        """)
    r = check(d)
    not_certified_conflict(r)
    assert "__getattribute__" in json.dumps(r)


@pytest.mark.lean
def test_list_of_a_str_set_has_no_known_order(tmp_path):
    """#12.2: `list({'a', 'b'})[0]` is 'a' or 'b' depending on PYTHONHASHSEED (set iteration is
    hash order); reading it as the display's first element certified f('a') == 5 against the
    doctest f('a') -> 1, though an f with f('b') == 5 passes the test in some runs."""
    d = task(tmp_path, """
        >>> f('a')
        1
        """, """
        def test_a():
            assert f(list({'a', 'b'})[0]) == 5
        """)
    r = check(d)
    not_certified_conflict(r)
    assert "iteration order of a set" in json.dumps(r)


def test_set_iteration_order_is_not_a_literal_but_set_of_set_is():
    """#12.2: the literal evaluator refuses to order a set's elements, except where the consumer
    builds a set again."""
    import ast
    from specguard.python.literals import NotLiteral, eval_literal
    ev = lambda t: eval_literal(ast.parse(t, mode="eval").body)
    for text in ("list({'a', 'b'})", "[*{1, 2}]", "tuple(frozenset({1, 2}))", "dict({(1, 2), (3, 4)})"):
        with pytest.raises(NotLiteral):
            ev(text)
    from specguard.python.values import to_python
    assert to_python(ev("set({'a', 'b'})")) == {"a", "b"}
    assert to_python(ev("list({3})")) == [3]


@pytest.mark.lean
def test_session_alias_sorted_in_place(tmp_path):
    """#12.1: `ys = xs; ys.sort()` sorts xs too (one list); keeping xs = [2, 1] certified
    f([2, 1]) == 5 against the test f([2, 1]) == 1, though the doctest called f([1, 2])."""
    d = task(tmp_path, """
        >>> xs = [2, 1]
        >>> ys = xs
        >>> ys.sort()
        >>> f(xs)
        5
        """, """
        def test_a():
            assert f([2, 1]) == 1
        """)
    not_certified_conflict(check(d))


@pytest.mark.lean
def test_session_bound_method_as_key_mutates(tmp_path):
    """#12.1: `max([1, 2], key=xs.append)` appends to xs (a bound method passed as a callback);
    keeping xs = [] certified f([]) == 5 against the test f([]) == 1 (the doctest called f([1, 2]))."""
    d = task(tmp_path, """
        >>> xs = []
        >>> max([1, 2], key=xs.append)
        1
        >>> f(xs)
        5
        """, """
        def test_a():
            assert f([]) == 1
        """)
    not_certified_conflict(check(d))


@pytest.mark.lean
def test_session_alias_augmented_assignment(tmp_path):
    """#12.1: `ys = xs; ys += [2]` extends xs in place (list `+=` is `extend`); the session still
    reads f(xs) as f([1]) and certifies f([1]) == 5 against the test f([1]) == 1 (false conflict)."""
    d = task(tmp_path, """
        >>> xs = [1]
        >>> ys = xs
        >>> ys += [2]
        >>> f(xs)
        5
        """, """
        def test_a():
            assert f([1]) == 1
        """)
    not_certified_conflict(check(d))
