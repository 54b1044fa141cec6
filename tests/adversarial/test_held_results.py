"""A result name read after a later call (``r = f(x); f(y); assert r == v``): read only where the
result is immutable plain data (specguard/formalize/tests.py ``observe_held``).

A later call may change what ``r`` holds when it is mutable: the function may keep the object it
returned and change it on its next call (a cache list), or return a tuple holding such a list.
A function of the test (``nonlocal r``) or a method of the test class (``self.r``) may rebind
the name.  Each trap below is satisfiable (its test passes against ``IMPL`` of its description,
checked by running pytest); read as ``f(x) == v`` it would be a certified false conflict.  The
guarded reading (``if the class is immutable plain data, v == it``) is still exact where the
result is an int: the broken variants are certified conflicts.  Real CLI, real Lean, real pytest.
"""

from __future__ import annotations

import textwrap

import pytest
from cli_run import assert_labels, check_files, run_pytest, verify_out

SUM_DESC = "Return the sum of the list `xs`.\n\n>>> f([1])\n1\n>>> f([1, 2])\n3\n"
SUM_IMPL = "def f(xs, *rest):\n    return sum(xs)\n"
# a function keeping the list it returns and changing it on every call
CACHE_DESC = "Record `x`; return the list of every `x` recorded so far.\n\n>>> f(1)\n[1]\n"
CACHE_IMPL = "_seen = []\ndef f(x):\n    _seen.append(x)\n    return _seen\n"
TUPLE_DESC = "Record `x`; return a 1-tuple holding the list of every `x` recorded so far.\n\n>>> f(1)\n([1],)\n"
TUPLE_IMPL = "_seen = []\ndef f(x):\n    _seen.append(x)\n    return (_seen,)\n"

# name -> (description, implementation, test module): each passes, none may be a certified conflict
TRAPS = {
    "kept_list_changed_by_the_next_call": (CACHE_DESC, CACHE_IMPL, """
        from m import f
        def test_a():
            r = f(1)
            f(2)
            assert r == [1, 2]
        """),
    "kept_list_changed_by_a_later_assignment": (CACHE_DESC, CACHE_IMPL, """
        from m import f
        def test_a():
            r = f(1)
            s = f(2)
            assert r == [1, 2]
            assert len(r) == 2
        """),
    "tuple_holding_a_kept_list": (TUPLE_DESC, TUPLE_IMPL, """
        from m import f
        def test_a():
            r = f(1)
            f(2)
            assert r == ([1, 2],)
        """),
    "alias_of_a_kept_list": (CACHE_DESC, CACHE_IMPL, """
        from m import f
        def test_a():
            r = f(1)
            s = r
            f(2)
            assert s == [1, 2]
        """),
    "nonlocal_rebinding_by_a_closure": (SUM_DESC, SUM_IMPL, """
        from m import f
        def test_a():
            r = f([1])
            def g():
                nonlocal r
                r = 7
            g()
            assert r == 7
        """),
    "closure_rebinding_run_by_a_call": (SUM_DESC, SUM_IMPL, """
        from m import f
        def test_a():
            r = f([1])
            def g(x):
                nonlocal r
                r = 7
                return x
            s = sorted([2, 1], key=g)
            assert r == 7
        """),
    "self_attribute_rebound_by_a_method": (SUM_DESC, SUM_IMPL, """
        import unittest
        from m import f
        class T(unittest.TestCase):
            def bump(self):
                self.r = 7
            def test_a(self):
                self.r = f([1])
                self.bump()
                self.assertEqual(self.r, 7)
        """),
}

# still exact: an int result no call can change; a wrong expected value is a true conflict
BROKEN = {
    "later_call_of_another_function": """
        from m import f
        def test_a():
            r = f([1])
            s = sorted([3, 2])
            t = f([5])
            assert r == 3
        """,
    "later_call_assignment": """
        from m import f
        def test_a():
            r = f([1])
            s = f([1, 2])
            assert s == 3
            assert r == 2
        """,
    "unittest_later_call": """
        import unittest
        from m import f
        class T(unittest.TestCase):
            def test_a(self):
                r = f([1])
                s = f([7])
                self.assertEqual(r, 4)
        """,
    "negated_observation": """
        from m import f
        def test_a():
            r = f([1, 2])
            print(f([9]))
            assert not r == 3
        """,
}

# satisfiable and read: the guarded reading is a demand and the verdict is no conflict
READ = {
    "later_call_assignment": """
        from m import f
        def test_a():
            r = f([1])
            s = f([5])
            assert r == 1
        """,
    "comparison_after_two_calls": """
        from m import f
        def test_a():
            a = f([1])
            b = f([1, 2])
            assert a < b
            assert a == 1
        """,
}


def test_labels_against_a_real_implementation(tmp_path):
    """Every trap passes against its implementation, every broken variant fails against `sum`,
    every read one passes."""
    passing = {"trap_" + n: (impl, code) for n, (_, impl, code) in TRAPS.items()}
    passing.update({"read_" + n: (SUM_IMPL, code) for n, code in READ.items()})
    assert_labels(tmp_path, passing, {n: (SUM_IMPL, code) for n, code in BROKEN.items()})


@pytest.mark.lean
@pytest.mark.parametrize("name", sorted(TRAPS))
def test_held_result_trap_is_no_certified_conflict(tmp_path, core, name):
    desc, _, code = TRAPS[name]
    r = check_files(tmp_path, desc, code, dedent=True)[1]
    assert not (r["verdict"] == "conflict" and r["evidence"] == "certified"), r["reason"]


@pytest.mark.lean
@pytest.mark.parametrize("name", sorted(BROKEN))
def test_held_int_result_still_certifies_the_true_conflict(tmp_path, core, name):
    r = check_files(tmp_path, SUM_DESC, BROKEN[name], dedent=True)[1]
    assert r["verdict"] == "conflict" and r["evidence"] == "certified", r["reason"]
    assert verify_out(tmp_path)["valid"]


@pytest.mark.lean
@pytest.mark.parametrize("name", sorted(READ))
def test_held_result_is_read_and_consistent(tmp_path, core, name):
    r = check_files(tmp_path, SUM_DESC, READ[name], dedent=True)[1]
    assert r["verdict"] != "conflict", r["reason"]
    assert r["coverage"]["assertions_read"] == r["coverage"]["assertions_total"], r["coverage"]


def _read(code: str):
    from specguard.formalize.tests import formalize_tests
    from specguard.models import TestSource
    return formalize_tests([TestSource(kind="python", path="test_x.py", text=textwrap.dedent(code))], "f")


@pytest.mark.parametrize("code", [
    # the test changes the result (or what it shares) after the later call: no `held` reading
    """
    from m import f
    def test_a():
        r = f([1])
        f([2])
        r.append(3)
        assert r == [1, 3]
    """,
    # the argument the result may be (or hold) is changed: the result may be that very list
    """
    from m import f
    def test_a():
        l = [1]
        r = f(l)
        f([2])
        l.append(2)
        assert r == 1
    """,
    # a statement iterated the result (an iterator is read once)
    """
    from m import f
    def test_a():
        r = f([1])
        f([2])
        x = list(r)
        assert list(r) == []
    """,
    # the result is handed to another call
    """
    from m import f
    def test_a():
        r = f([1])
        f([2])
        print(r)
        assert r == 1
    """,
    # a term over the result (a new list built from it) is not the held result itself
    """
    from m import f
    def test_a():
        r = sorted(f([1]))
        f([2])
        assert r == [1]
    """,
])
def test_changed_held_result_is_not_read(code):
    out = _read(code)
    assert not out.demands, [d.expect.source() for d in out.demands]
    assert len(out.unsupported) == 1


def test_argument_given_to_the_function_is_read_as_its_state_after_the_call():
    """`f(l); assert l == ...` observes what the call left in its argument: an input of its own
    (formalize/argstate.py); a later call given that state is a call at that state, after which
    `l` holds nothing known."""
    out = _read("""
    from m import f
    def test_a():
        l = [3, 1]
        f(l)
        assert l == [1, 3]
        assert f(l) == 4
    """)
    assert [(d.loc.line, d.call.source(), d.expect.source()) for d in out.demands] == [
        (6, "args[0] after f([3, 1])", "== [1, 3]"), (7, "f(args[0] after f([3, 1]))", "== 4")]
    assert not out.unsupported


# -- loop items unpacked from a display: each part is its own object (tests.py display_parts) ----------

ALIAS_LOOP_TRAPS = {
    # the part is the very list `x` names: a change through it is a change of `x`
    "part_is_a_name": """
        from m import f
        def test_a():
            x = [1]
            for a, b in [(x, [3])]:
                a.append(2)
                assert f(x) == 3
        """,
    # the part holds `x`: a change through its item is a change of `x`
    "part_holds_a_name": """
        from m import f
        def test_a():
            x = [1]
            for a, b in [([x], [3])]:
                a[0].append(2)
                assert f(x) == 3
        """,
}


@pytest.mark.lean
@pytest.mark.parametrize("name", sorted(ALIAS_LOOP_TRAPS))
def test_loop_part_alias_is_no_certified_conflict(tmp_path, core, name):
    d = tmp_path / "run"
    d.mkdir()
    assert run_pytest(d, SUM_IMPL, textwrap.dedent(ALIAS_LOOP_TRAPS[name])) == 0
    r = check_files(tmp_path, SUM_DESC, ALIAS_LOOP_TRAPS[name], dedent=True)[1]
    assert not (r["verdict"] == "conflict" and r["evidence"] == "certified"), r["reason"]


def test_loop_parts_of_a_display_are_separate_objects():
    """`for n, element, expected in [(1, ['a'], [1]), ...]`: passing `element` to the function
    (which may mutate it) leaves `expected`, another object of the display, exact."""
    out = _read("""
    from m import f
    def test_a():
        for n, element, expected in [(1, ['a'], [1]), (2, ['b'], [2])]:
            actual = f(element, n=n)
            assert actual == expected
    """)
    assert [(d.call.source(), d.expect.source()) for d in out.demands] == [
        ("f(['a'], n=1)", "== [1]"), ("f(['b'], n=2)", "== [2]")]
    assert not out.unsupported
