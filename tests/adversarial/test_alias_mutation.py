"""Arguments changed between their binding and the call through an alias or by code SpecGuard does
not follow (a red-team pass on the concrete evaluator, aliasing branch).

Every trap below is satisfiable: the description is ``f`` = the sum of its list (its doctests
``f([1]) == 1`` and ``f([1, 2]) == 3``), and the test passes against ``sum`` (checked by running it:
``test_traps_pass_against_a_real_implementation``).  Before the fix, each was read with the literal
the argument was bound to (``f([1]) == 3``) and certified a false conflict with the real Lean
kernel.  Now none is a conflict; where the reading is still exact, a genuinely broken variant (the
argument never reached by the alias) is still certified.  Real CLI, real Lean, real pytest.
"""

from __future__ import annotations

import subprocess
import sys
import textwrap

import pytest
from cli_run import check_files

DESC = "Return the sum of the list `xs`.\n\n>>> f([1])\n1\n>>> f([1, 2])\n3\n"
IMPL = "def f(xs, *rest):\n    return sum(xs)\n"

# name -> test module; in each, `f(<arg>)` sees [1, 2] although the argument was bound to [1]
TRAPS = {
    "chained_assignment": """
        from m import f
        def test_a():
            a = b = [1]
            b.append(2)
            assert f(a) == 3
        """,
    "dict_item_store": """
        from m import f
        def test_a():
            d = {}
            l = [1]
            d['k'] = l
            d['k'].append(2)
            assert f(l) == 3
        """,
    "list_item_store": """
        from m import f
        def test_a():
            c = [0]
            l = [1]
            c[0] = l
            c[0].append(2)
            assert f(l) == 3
        """,
    "augmented_container": """
        from m import f
        def test_a():
            c = []
            l = [1]
            c += [l]
            c[0].append(2)
            assert f(l) == 3
        """,
    "attribute_store": """
        from m import f
        import types
        def test_a():
            o = types.SimpleNamespace()
            l = [1]
            o.x = l
            o.x.append(2)
            assert f(l) == 3
        """,
    "walrus_in_if": """
        from m import f
        def test_a():
            l = [1]
            if (b := l):
                b.append(2)
            assert f(l) == 3
        """,
    "walrus_in_assignment": """
        from m import f
        def test_a():
            l = [1]
            c = (b := l)
            b.append(2)
            assert f(l) == 3
        """,
    "comprehension_variable": """
        from m import f
        def test_a():
            a = [1]
            [x.append(2) for x in [a]]
            assert f(a) == 3
        """,
    "generator_variable": """
        from m import f
        def test_a():
            a = [1]
            any(x.append(2) for x in [a])
            assert f(a) == 3
        """,
    "closure_called_in_assignment": """
        from m import f
        def test_a():
            l = [1]
            def g():
                l.append(2)
                return 0
            x = g()
            assert f(l) == 3
        """,
    "closure_as_sort_key": """
        from m import f
        def test_a():
            l = [1]
            def k(x):
                l.append(x)
                return 0
            s = sorted([2], key=k)
            assert f(l) == 3
        """,
    "closure_given_to_helper": """
        from m import f
        def check(xs, cb):
            y = cb()
            assert f(xs) == 3
        def test_a():
            l = [1]
            def g():
                l.append(2)
            check(l, g)
        """,
    "unittest_self_method": """
        import unittest
        from m import f
        class T(unittest.TestCase):
            def grow(self):
                self.x.append(2)
            def test_a(self):
                l = [1]
                self.x = l
                self.grow()
                self.assertEqual(f(l), 3)
        """,
    "unittest_self_attribute": """
        import unittest
        from m import f
        class T(unittest.TestCase):
            def test_a(self):
                l = [1]
                self.x = l
                self.x.append(2)
                self.assertEqual(f(l), 3)
        """,
}

# doctest sessions: the description (a stub, desc.py) changes `l` before `f(l)`; the test asserts f([1]) == 1
SESSIONS = {
    "session_def_changes_its_argument": ">>> def h(x):\n...     x.append(2)\n>>> l = [1]\n>>> h(l)\n>>> f(l)\n3\n",
    "session_def_writes_an_item": ">>> def h(x):\n...     x[0] = 5\n>>> l = [1]\n>>> h(l)\n>>> f(l)\n5\n",
    "session_lambda_changes_its_argument": ">>> h = lambda x: x.append(2)\n>>> l = [1]\n>>> h(l)\n>>> f(l)\n3\n",
    "session_comprehension_variable": ">>> l = [1]\n>>> _ = [x.append(2) for x in [l]]\n>>> f(l)\n3\n",
}
SESSION_TEST = "from m import f\n\ndef test_a():\n    assert f([1]) == 1\n"

# still exact: the argument is not reached by the alias, so a wrong expected value is a true conflict
BROKEN = {
    "stored_but_not_changed": """
        from m import f
        def test_a():
            d = {}
            l = [1]
            d['k'] = l
            assert f(l) == 3
        """,
    "stored_then_changed_exactly": """
        from m import f
        def test_a():
            c = [0]
            l = [1]
            c[0] = l
            l.append(2)
            assert f(l) == 4
        """,
    "chained_name_changed_exactly": """
        from m import f
        def test_a():
            a = b = [1]
            b.append(2)
            assert f(b) == 4
        """,
    "unittest_stored_not_changed": """
        import unittest
        from m import f
        class T(unittest.TestCase):
            def test_a(self):
                l = [1]
                self.x = l
                self.assertEqual(f(l), 3)
        """,
    "unrelated_lambda": """
        from m import f
        def test_a():
            l = [1]
            k = lambda x: -x
            s = sorted([2, 1], key=k)
            assert f(l) == 3
        """,
}


def _session_stub(session: str) -> str:
    return "def f(xs):\n    '''Return the sum of the list `xs`.\n\n" + textwrap.indent(session, "    ") + "    '''\n"


def _pytest(tmp_path, impl: str, tests: str, doctests: bool = False) -> int:
    (tmp_path / "m.py").write_text(impl)
    (tmp_path / "test_real.py").write_text(tests)
    args = [sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider", "test_real.py"]
    if doctests:
        args += ["--doctest-modules", "m.py"]
    return subprocess.run(args, cwd=tmp_path, capture_output=True, text=True).returncode


def test_traps_pass_against_a_real_implementation(tmp_path):
    """The labels: every trap's tests pass against `sum`, every session's doctests too, every
    broken variant fails."""
    for name, code in TRAPS.items():
        d = tmp_path / name
        d.mkdir()
        assert _pytest(d, IMPL, textwrap.dedent(code)) == 0, name
    for name, session in SESSIONS.items():
        d = tmp_path / name
        d.mkdir()
        assert _pytest(d, _session_stub(session) + "    return sum(xs)\n", SESSION_TEST, doctests=True) == 0, name
    for name, code in BROKEN.items():
        d = tmp_path / name
        d.mkdir()
        assert _pytest(d, IMPL, textwrap.dedent(code)) != 0, name


@pytest.mark.lean
@pytest.mark.parametrize("name", sorted(TRAPS))
def test_alias_trap_is_no_certified_conflict(tmp_path, core, name):
    """An argument changed through an alias (or by a function of the test) before the call is not
    read as the literal it was bound to."""
    r = check_files(tmp_path, DESC, TRAPS[name], dedent=True)[1]
    assert not (r["verdict"] == "conflict" and r["evidence"] == "certified"), r["reason"]
    assert "not a literal" in r["reason"] or "not executed" in r["reason"], r["reason"]


@pytest.mark.lean
@pytest.mark.parametrize("name", sorted(SESSIONS))
def test_session_change_is_no_certified_conflict(tmp_path, core, name):
    """A doctest session's function (or comprehension) that changes its argument ends the exact
    reading of that argument."""
    r = check_files(tmp_path, _session_stub(SESSIONS[name]), SESSION_TEST, desc_name="desc.py")[1]
    assert not (r["verdict"] == "conflict" and r["evidence"] == "certified"), r["reason"]


@pytest.mark.lean
@pytest.mark.parametrize("name", sorted(BROKEN))
def test_exact_reading_still_certifies_the_true_conflict(tmp_path, core, name):
    """Where no alias reaches the argument, the reading stays exact: the broken variant's
    conflict with the doctests is certified."""
    r = check_files(tmp_path, DESC, BROKEN[name], dedent=True)[1]
    assert r["verdict"] == "conflict" and r["evidence"] == "certified", r["reason"]


def test_session_method_of_a_new_object_is_still_read():
    """A session line calling a method of a new object (`set([1]).union([2])`) is read as before
    (the branch's first version crashed there: boltons' `setutils.complement` in reallib)."""
    from specguard.formalize.description import formalize_description
    doc = "    >>> x = set([1]).union([2])\n    >>> f([1])\n    1\n"
    r = formalize_description("def f(xs):\n    '''Doc.\n\n" + doc + "    '''\n")
    assert [c.call.source() for c in r.claims if c.call is not None] == ["f([1])"]
