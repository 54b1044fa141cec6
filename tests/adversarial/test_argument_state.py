"""What a call leaves in an argument (``l = [3, 1]; f(l); assert l == [1, 3]``), read as an input
of its own (specguard/formalize/argstate.py).

Each trap below is satisfiable: its test module passes against ``impl`` (checked by running
pytest); a reading that took the wrong object, the wrong moment or the wrong call for "the state
of the argument after the call" would be a certified false conflict.  The broken variants are
real conflicts (two tests leaving one argument of one call in different states) and must be
certified, and re-checked by ``verify``.  Real CLI, real Lean, real pytest.
"""

from __future__ import annotations

import subprocess
import sys
import textwrap

import pytest
from cli_run import assert_labels, check_files, verify_out

DESC = "Sort the list `l` in place (ascending).\n"
SORT = "def f(l, *rest, **kw):\n    l.sort()\n"
# appends its first argument's length to the second: two arguments that are one list differ
# from two equal lists
APPEND_LEN = "def f(a, b=None):\n    (a if b is None else b).append(len(a))\n"
# changes the first item of the list: a list holding one inner list twice differs from two
# equal inner lists
BUMP_FIRST = "def f(l):\n    l[0].append(1)\n"
# keeps every list it was given and, on each call, appends 0 to those it kept before
KEEP = "_kept = []\ndef f(l):\n    for k in _kept:\n        k.append(0)\n    _kept.append(l)\n"

# keeps the lists it was given; another function of the module changes them
KEEP_G = "_kept = []\ndef f(l):\n    _kept.append(l)\ndef g():\n    for k in _kept:\n        k.append(0)\n    return 0\n"

# a generator function: its body (which changes `l`) runs only when the generator is advanced
GEN = "def f(l):\n    l.append(1)\n    yield 0\n"

# keeps the lists it was given; reading the property `C.x` changes them
KEEP_PROP = ("_kept = []\ndef f(l):\n    _kept.append(l)\nclass _C:\n    @property\n    def x(self):\n"
             "        for k in _kept:\n            k.append(0)\n        return None\nC = _C()\n")

# name -> (description, description file name, implementation, test module)
TRAPS = {
    "same_list_passed_twice": (DESC, "description.md", APPEND_LEN, """
        from m import f
        def test_a():
            l = [0]
            f(l, l)
            assert l == [0, 1]
        def test_b():
            a = [0]
            b = [0]
            f(a, b)
            assert b == [0, 1]
            assert a == [0]
        """),
    "inner_list_shared_twice": (DESC, "description.md", BUMP_FIRST, """
        from m import f
        def test_a():
            x = [0]
            l = [x, x]
            f(l)
            assert l == [[0, 1], [0, 1]]
        def test_b():
            l = [[0], [0]]
            f(l)
            assert l == [[0, 1], [0]]
        """),
    "alias_read_after_the_call": (DESC, "description.md", SORT, """
        from m import f
        def test_a():
            l = [3, 1]
            m = l
            f(l)
            assert m == [1, 3]
        def test_b():
            l = [3, 1]
            f(l)
            assert l == [1, 3]
        """),
    "later_call_changes_a_kept_list": (DESC, "description.md", KEEP, """
        from m import f
        def test_a():
            l = []
            r = f(l)
            s = f([])
            assert l == [0]
        def test_b():
            l = []
            r = f(l)
            assert l == []
        """),
    "another_function_changes_a_kept_list": (DESC, "description.md", KEEP_G, """
        from m import f, g
        def test_a():
            l = []
            f(l)
            x = g()
            assert l == [0]
        def test_b():
            l = []
            f(l)
            assert l == []
        """),
    "generator_advanced_after_the_call": (DESC, "description.md", GEN, """
        from m import f
        def test_a():
            l = []
            r = f(l)
            next(r)
            assert l == [1]
        def test_b():
            l = []
            r = f(l)
            assert l == []
        """),
    "generator_consumed_in_the_assertion": (DESC, "description.md", GEN, """
        from m import f
        def test_a():
            l = []
            assert list(f(l)) == [0]
            assert l == [1]
        def test_b():
            l = []
            assert f(l) is not None
            assert l == []
        """),
    "generator_consumed_on_the_other_side": (DESC, "description.md", GEN, """
        from m import f
        def test_a():
            l = []
            assert f(l) != next(f(l)) + 1
            assert l == [1]
        def test_b():
            l = []
            assert f(l) is not None
            assert l == []
        """),
    "call_in_a_short_circuit": (DESC, "description.md", SORT, """
        from m import f
        def test_a():
            l = [3, 1]
            assert l or f(l)
            assert l == [3, 1]
        def test_b():
            l = [3, 1]
            assert f(l) is None
            assert l == [1, 3]
        """),
    "property_read_in_the_assertion": (DESC, "description.md", KEEP_PROP, """
        from m import f, C
        def test_a():
            l = [3, 1]
            assert f(l) == C.x
            assert l == [3, 1, 0]
        def test_b():
            l = [3, 1]
            assert f(l) is None
            assert l == [3, 1]
        """),
    "property_read_in_a_unittest_message": (DESC, "description.md", KEEP_PROP, """
        import unittest
        from m import f, C
        class T(unittest.TestCase):
            def test_a(self):
                l = [3, 1]
                self.assertIsNone(f(l), C.x)
                self.assertEqual(l, [3, 1, 0])
            def test_b(self):
                l = [3, 1]
                self.assertIsNone(f(l))
                self.assertEqual(l, [3, 1])
        """),
    "closure_changes_it_after_the_call": (DESC, "description.md", SORT, """
        from m import f
        def test_a():
            l = [3, 1]
            def g():
                l.append(5)
            f(l)
            g()
            assert l == [1, 3, 5]
        def test_b():
            l = [3, 1]
            f(l)
            assert l == [1, 3]
        """),
    "method_changes_it_after_the_call": (DESC, "description.md", SORT, """
        from m import f
        def test_a():
            l = [3, 1]
            f(l)
            l.append(5)
            assert l == [1, 3, 5]
        def test_b():
            l = [3, 1]
            f(l)
            assert l == [1, 3]
        """),
    "call_under_a_condition": (DESC, "description.md", SORT, """
        import sys
        from m import f
        def test_a():
            l = [3, 1]
            if len(sys.argv) > 1000:
                f(l)
            assert l == [3, 1]
        def test_b():
            l = [3, 1]
            f(l)
            assert l == [1, 3]
        """),
    "rebound_to_the_result": (DESC, "description.md", "def f(l):\n    l.sort()\n    return [9]\n", """
        from m import f
        def test_a():
            l = [3, 1]
            l = f(l)
            assert l == [9]
        def test_b():
            l = [3, 1]
            f(l)
            assert l == [1, 3]
        """),
    "second_call_with_the_state": (DESC, "description.md", APPEND_LEN, """
        from m import f
        def test_a():
            l = [0]
            f(l)
            f(l)
            assert l == [0, 1, 2]
        def test_b():
            l = [0]
            f(l)
            assert l == [0, 1]
        """),
    "starred_argument": (DESC, "description.md", APPEND_LEN, """
        from m import f
        def test_a():
            a = [0]
            b = [7]
            args = [a, b]
            f(*args)
            assert b == [7, 1]
            assert a == [0]
        """),
    "module_level_list": (DESC, "description.md", SORT, """
        from m import f
        L = [3, 1]
        def test_a():
            f(L)
            assert L == [1, 3]
        def test_b():
            assert L == [1, 3]
        """),
    # a return type (`-> None`) is a rule for every input of `f`: about what it returns, not
    # what it leaves in `l`
    "return_type_rule": ("def f(l: list) -> None:\n    \"\"\"Sort the list `l` in place.\"\"\"\n", "description.py",
                         SORT, """
        from m import f
        def test_a():
            l = [3, 1]
            f(l)
            assert l == [1, 3]
            assert f([2]) is None
        """),
    # a docstring example's call is about what `f` returns (None), not about `l`
    "doctest_example_of_the_same_call": ("Sort `l` in place.\n\n>>> f([3, 1])\n>>> f([])\n", "description.md",
                                         SORT, """
        from m import f
        def test_a():
            l = [3, 1]
            f(l)
            assert l == [1, 3]
        """),
    "same_call_in_a_raises_block": (DESC, "description.md",
                                    "def f(l):\n    l.append(0)\n    raise ValueError\n", """
        import pytest
        from m import f
        def test_a():
            l = [1]
            with pytest.raises(ValueError):
                f(l)
            assert l == [1, 0]
        def test_b():
            l = [1]
            with pytest.raises(ValueError):
                f(l)
            assert len(l) == 2
        """),
}

# real conflicts: one argument of one call left in two different states
BROKEN = {
    "two_tests_disagree": """
        from m import f
        def test_a():
            l = [3, 1]
            f(l)
            assert l == [1, 3]
        def test_b():
            l = [3, 1]
            f(l)
            assert l == [3, 1, 0]
            assert l[0] == 3
        """,
    "keyword_argument": """
        from m import f
        def test_a():
            xs = {'b': 1}
            f(l=xs)
            assert xs == {'b': 1, 'c': 2}
        def test_b():
            d = {'b': 1}
            r = f(l=d)
            assert len(d) == 3
        """,
    "unittest_set": """
        import unittest
        from m import f
        class T(unittest.TestCase):
            def test_a(self):
                s = {1, 2}
                f(s)
                self.assertEqual(s, {1, 2, 3})
            def test_b(self):
                s = {1, 2}
                r = f(s)
                self.assertNotIn(3, s)
        """,
}

BROKEN.update({
    # the call inside an assertion that only compares its result
    "asserted_call": """
        from m import f
        def test_a():
            l = [3, 1]
            assert f(l) is None
            assert l == [1, 3]
        def test_b():
            l = [3, 1]
            assert f(l) is None
            assert len(l) == 3
        """,
    "unittest_asserted_call": """
        import unittest
        from m import f
        class T(unittest.TestCase):
            def test_a(self):
                l = [3, 1]
                self.assertIsNone(f(l))
                self.assertEqual(l, [1, 3])
            def test_b(self):
                l = [3, 1]
                self.assertIsNone(f(l), "sorted in place")
                self.assertEqual(len(l), 3)
        """,
    # the state handed on to a second call: that call's input is the state, the same in both tests
    "state_passed_on": """
        from m import f
        def test_a():
            l = [3, 1]
            r = f(l)
            assert f(l) is None
        def test_b():
            l = [3, 1]
            r = f(l)
            assert f(l) == [1, 3]
        """,
})

# found by red-teaming this reading (each was a certified false conflict)
SCALE_DESC = 'Multiply `x` by the configured scale; given a dict, set the scale from its "scale" key.\n'
SCALE = "_scale = [1]\ndef f(x):\n    if isinstance(x, dict):\n        _scale[0] = x['scale']\n        return None\n" \
        "    return x * _scale[0]\n"
MODE = "_rev = [False]\ndef f(x):\n    if isinstance(x, dict):\n        _rev[0] = x.get('reverse', False)\n" \
       "    else:\n        x.sort(reverse=_rev[0])\n"
TRAPS.update({
    # a call for its effect whose argument is only printed afterwards: still evidence of state
    "effect_call_argument_printed": (SCALE_DESC, "description.md", SCALE, """
        from m import f
        def test_a():
            assert f(2) == 2
        def test_config():
            cfg = {"scale": 10}
            f(cfg)
            print(cfg)
        def test_b():
            assert f(2) == 20
        """),
    # the assertion shows the argument unchanged: the call was made for another effect
    "effect_call_argument_unchanged": (SCALE_DESC, "description.md", SCALE, """
        from m import f
        def test_a():
            assert f(2) == 2
        def test_config():
            cfg = {"scale": 10}
            f(cfg)
            assert cfg == {"scale": 10}
        def test_b():
            assert f(2) == 20
        """),
    # a call that sets a mode, then a call of `f` in the same test
    "mode_set_then_called_again": (DESC, "description.md", MODE, """
        from m import f
        def test_a():
            l = [1, 3]
            f(l)
            assert l == [1, 3]
        def test_b():
            cfg = {"reverse": True}
            f(cfg)
            assert cfg == {"reverse": False, "reverse": True}
            l = [1, 3]
            f(l)
            assert l == [3, 1]
        """),
    # a set an element was removed from (and added back) iterates in another order than the display
    "set_layout_after_a_removal": ("Remove an element from the set `s`.\n", "description.md",
                                   "def f(s):\n    s.pop()\n", """
        from m import f
        def test_a():
            s = {9, 1}
            s.remove(9)
            s.add(9)
            f(s)
            assert s == {1}
        def test_b():
            s = {1, 9}
            f(s)
            assert s == {9}
        """),
    "set_layout_after_a_removal_returned": ("Remove and return an element of the set `s`.\n", "description.md",
                                            "def f(s):\n    return s.pop()\n", """
        from m import f
        def test_a():
            s = {9, 1}
            s.remove(9)
            s.add(9)
            assert f(s) == 9
        def test_b():
            assert f({1, 9}) == 1
        """),
})

# satisfiable and read
READ = {
    "state_and_result": """
        from m import f
        def test_a():
            l = [3, 1, 2]
            r = f(l)
            assert r is None
            assert l == [1, 2, 3]
            assert len(l) == 3
            assert l[0] == 1
        """,
}


def test_labels_against_a_real_implementation(tmp_path):
    """Every trap passes against its implementation; every broken variant fails against a sort
    (and against any function: the same call leaves one state); the read one passes."""
    passing = {"trap_" + n: (impl, code) for n, (_, _, impl, code) in TRAPS.items()}
    passing.update({"read_" + n: (SORT, code) for n, code in READ.items()})
    assert_labels(tmp_path, passing, {n: (SORT, code) for n, code in BROKEN.items()})


@pytest.mark.lean
@pytest.mark.parametrize("name", sorted(TRAPS))
def test_argument_state_trap_is_no_certified_conflict(tmp_path, core, name):
    desc, desc_name, _, code = TRAPS[name]
    r = check_files(tmp_path, desc, code, desc_name=desc_name, dedent=True)[1]
    assert not (r["verdict"] == "conflict" and r["evidence"] == "certified"), r["reason"]


@pytest.mark.lean
@pytest.mark.parametrize("name", sorted(BROKEN))
def test_argument_state_conflict_is_certified(tmp_path, core, name):
    r = check_files(tmp_path, DESC, BROKEN[name], dedent=True)[1]
    assert r["verdict"] == "conflict" and r["evidence"] == "certified", r["reason"]
    from specguard.formalize.argstate import ASSUMPTION
    assert ASSUMPTION in r["assumptions"]
    assert verify_out(tmp_path)["valid"]


@pytest.mark.lean
def test_argument_state_is_read(tmp_path, core):
    r = check_files(tmp_path, DESC, READ["state_and_result"], dedent=True)[1]
    assert r["verdict"] != "conflict", r["reason"]
    assert r["coverage"]["assertions_read"] == r["coverage"]["assertions_total"] == 4, r["coverage"]


# -- doctest sessions: `>>> f(xs)` then `>>> xs` (description.py `_session_states`) -----------------

def _doc(session: str, sig: str = "def f(l):") -> str:
    return f'{sig}\n    """Sort `l` in place.\n\n' + textwrap.indent(textwrap.dedent(session).strip(), "    ") + '\n    """\n'


BUMP_DOC_TRAP = _doc("""
    >>> l = [[0]] * 2
    >>> f(l)
    >>> l
    [[0, 1], [0, 1]]
    """)
ALIAS_DOC_TRAP = _doc("""
    >>> x = [0]
    >>> l = [x, x]
    >>> f(l)
    >>> l
    [[0, 1], [0, 1]]
    """)
BUMP_TEST = """
    from m import f
    def test_a():
        l = [[0], [0]]
        f(l)
        assert l == [[0, 1], [0]]
    """
SORT_DOC = _doc("""
    >>> l = [3, 1]
    >>> f(l)
    >>> l
    [1, 3]
    """)
SORT_DOC_TYPED = _doc("""
    >>> l = [3, 1]
    >>> f(l)
    >>> l
    [1, 3]
    """, sig="def f(l: list) -> None:")
SORT_TEST_BROKEN = """
    from m import f
    def test_a():
        l = [3, 1]
        f(l)
        assert l == [3, 1, 0]
    """


def _doctest_passes(tmp_path, doc: str, impl_body: str) -> bool:
    (tmp_path / "m.py").write_text(doc + impl_body)
    args = [sys.executable, "-m", "doctest", "m.py"]
    return subprocess.run(args, cwd=tmp_path, capture_output=True, text=True).returncode == 0


@pytest.mark.lean
@pytest.mark.parametrize("doc", [BUMP_DOC_TRAP, ALIAS_DOC_TRAP], ids=["repeated_inner_list", "inner_alias"])
def test_doctest_state_of_a_shared_object_is_no_certified_conflict(tmp_path, core, doc):
    run = tmp_path / "run"
    run.mkdir()
    assert _doctest_passes(run, doc, "    l[0].append(1)\n")
    assert_labels(run, {"t": ("def f(l):\n    l[0].append(1)\n", BUMP_TEST)}, {})
    r = check_files(tmp_path, doc, BUMP_TEST, desc_name="description.py", dedent=True)[1]
    assert not (r["verdict"] == "conflict" and r["evidence"] == "certified"), r["reason"]


@pytest.mark.lean
def test_doctest_state_against_a_test_is_a_certified_conflict(tmp_path, core):
    run = tmp_path / "run"
    run.mkdir()
    assert _doctest_passes(run, SORT_DOC, "    l.sort()\n")
    r = check_files(tmp_path, SORT_DOC, SORT_TEST_BROKEN, desc_name="description.py", dedent=True)[1]
    assert r["verdict"] == "conflict" and r["evidence"] == "certified", r["reason"]
    from specguard.formalize.argstate import ASSUMPTION
    assert ASSUMPTION in r["assumptions"]
    assert verify_out(tmp_path, desc_name="description.py")["valid"]


@pytest.mark.lean
def test_doctest_state_under_a_return_type_is_set_apart(tmp_path, core):
    """`-> None` is a rule about what `f` returns at every input: never applied to the state of
    `l` (which is a list), so the doctest and the test agree with it; the doctest's state claim
    is set apart, not a conflict with the return type."""
    run = tmp_path / "run"
    run.mkdir()
    assert _doctest_passes(run, SORT_DOC_TYPED, "    l.sort()\n")
    test = "from m import f\ndef test_a():\n    assert f([2]) is None\n"
    r = check_files(tmp_path, SORT_DOC_TYPED, test, desc_name="description.py")[1]
    assert not (r["verdict"] == "conflict" and r["evidence"] == "certified"), r["reason"]
    cov = r["coverage"]
    assert cov["examples_read"] == cov["examples_seen"] - 1, cov      # the state claim is not counted as read


@pytest.mark.lean
def test_effect_call_on_a_name_bound_twice_stays_evidence_of_state(tmp_path, core):
    """`l` bound twice in the test (the display it was built from is not known from the text):
    `assert l == [1]` does not show a change, so the call stays evidence of a mode it set."""
    code = """
        import sys
        from m import f
        def test_a():
            assert f(2) == 2
        def test_config():
            l = [1]
            if len(sys.argv) > 1000:
                l = [5]
            f(l)
            assert l == [1]
        def test_b():
            assert f(2) == 20
        """
    impl = "_scale = [1]\ndef f(x):\n    if isinstance(x, list):\n        _scale[0] = 10\n        return None\n" \
           "    return x * _scale[0]\n"
    assert_labels(tmp_path, {"bound_twice": (impl, code)}, {})
    r = check_files(tmp_path, SCALE_DESC, code, dedent=True)[1]
    assert not (r["verdict"] == "conflict" and r["evidence"] == "certified"), r["reason"]
