"""#12: the test reader executes test-module code the way the harness would: HumanEval's
`check(candidate)` (called by the harness with the entry point), helpers called from tests with
their parameters bound, module-level asserts (MBPP), aliases of the entry point, and arguments
that are computed but exact.  Coverage (assertions read / total) and the inconclusive kind are in
result.json.  Real reader, real CLI, real Lean kernel where a conflict is certified."""

import json
import textwrap

from specguard import cli, models
from specguard.formalize.tests import formalize_tests

DESC = '''Return the sum of a and b.

>>> add(2, 3)
5
'''


def _read(code: str, ep: str = "f"):
    return formalize_tests([models.TestSource(kind="python", path="test_x.py", text=textwrap.dedent(code))], ep)


def _check(tmp_path, tests: str, desc: str = DESC, ep: str = "add") -> dict:
    (tmp_path / "d.md").write_text(desc)
    (tmp_path / "test_x.py").write_text(textwrap.dedent(tests))
    out = tmp_path / "out"
    cli.main(["check", "--description", str(tmp_path / "d.md"), "--tests", str(tmp_path / "test_x.py"),
              "--entry-point", ep, "--out", str(out), "-q"])
    return json.loads((out / "result.json").read_text())


def _calls(tf) -> list[tuple[str, str]]:
    return [(d.call.source(), d.expect.source()) for d in tf.demands]


def test_humaneval_check_is_read_as_called_with_the_entry_point(tmp_path, core):
    """HumanEval's format: the harness appends `check(add)`; a test contradicting the docstring's
    example on the same input is a certified conflict, with coverage and the harness note."""
    r = _check(tmp_path, """
        METADATA = {'author': 'jt', 'dataset': 'test'}


        def check(candidate):
            assert candidate(0, 1) == 1
            assert candidate(2, 3) == 6
            assert True, "This prints if this assert fails"
    """)
    assert r["verdict"] == "conflict" and r["evidence"] == "certified"
    assert "add(2, 3) == 6" in r["reason"] and "add(2, 3) == 5" in r["reason"]
    assert r["coverage"]["assertions_total"] == 3 and r["coverage"]["assertions_read"] == 3
    assert r["inconclusive_kind"] is None
    assert any("check(add)" in n and "assumed" in n for n in r["notes"])


def test_humaneval_clean_task_is_inconclusive_with_a_kind(tmp_path):
    r = _check(tmp_path, """
        def check(candidate):
            assert candidate(2, 3) == 5
            for x in range(3):
                assert candidate(x, 0) == x
    """)
    assert r["verdict"] == "inconclusive"
    # both assertions read, but no description claim decides the tests: the model path would read more
    assert r["inconclusive_kind"] == "model-skipped"
    assert r["coverage"]["assertions_total"] == 2 and r["coverage"]["assertions_read"] == 2


def test_nothing_read_is_tests_unread(tmp_path):
    r = _check(tmp_path, """
        import random

        def check(candidate):
            x = random.randint(0, 9)
            assert candidate(x, 0) == x
    """)
    assert r["verdict"] == "inconclusive" and r["inconclusive_kind"] == "tests-unread"
    assert r["coverage"] == {**r["coverage"], "assertions_total": 1, "assertions_read": 0}


def test_mbpp_module_level_asserts(tmp_path, core):
    """MBPP style: asserts at module level run when the file runs."""
    r = _check(tmp_path, """
        assert add(2, 3) == 4
        assert add(1, 1) == 2
    """)
    assert r["verdict"] == "conflict" and r["evidence"] == "certified"
    assert r["coverage"]["assertions_read"] == 2


def test_helper_called_twice_gives_two_sets_of_demands():
    tf = _read("""
        from m import f

        def _check(x, want):
            assert f(x) == want

        def test_a():
            _check(1, 2)
            _check(3, 4)
    """)
    assert _calls(tf) == [("f(1)", "== 2"), ("f(3)", "== 4")]
    assert {d.test_name for d in tf.demands} == {"test_a"}


def test_helper_called_from_a_loop_over_literal_rows():
    tf = _read("""
        from m import f

        CASES = [(1, 2), (3, 4), (5, 6)]

        def _check(x, want):
            assert f(x) == want

        def test_a():
            for x, want in CASES:
                _check(x, want)
    """)
    assert _calls(tf) == [("f(1)", "== 2"), ("f(3)", "== 4"), ("f(5)", "== 6")]


def test_helper_with_keywords_and_defaults():
    tf = _read("""
        from m import f

        def _check(x, want=0, *, scale=1):
            assert f(x * scale) == want

        def test_a():
            _check(1)
            _check(2, scale=3, want=7)
    """)
    assert _calls(tf) == [("f(1)", "== 0"), ("f(6)", "== 7")]


def test_nested_harness_helpers():
    """`check(candidate)` calling `_one(candidate, x)`: the entry point is passed on."""
    tf = _read("""
        def _one(fn, x, want):
            assert fn(x) == want

        def check(candidate):
            _one(candidate, 1, 2)
            assert candidate(3) == 4

        check(f)
    """)
    assert _calls(tf) == [("f(1)", "== 2"), ("f(3)", "== 4")]
    assert not tf.notes      # called by the module itself: no harness assumption


def test_aliases_of_the_entry_point():
    tf = _read("""
        from m import f

        g = f

        def test_a():
            h = g
            assert g(2) == 2
            assert h(3) == 3
    """)
    assert _calls(tf) == [("f(2)", "== 2"), ("f(3)", "== 3")]
    tf = _read("""
        import strutils

        b2h = strutils.bytes2human

        def test_a():
            assert b2h(1) == "1B"
    """, ep="bytes2human")
    assert _calls(tf) == [("bytes2human(1)", "== '1B'")]


def test_alias_of_another_modules_function_is_not_the_entry():
    """`b2h = other.f` while the file imports `f` from `m`: which `f` is under test is not known."""
    tf = _read("""
        import other
        from m import f

        b2h = other.f

        def test_a():
            assert b2h(1) == 1
    """)
    assert not tf.demands


def test_computed_but_exact_arguments():
    tf = _read("""
        from m import f

        def test_a():
            assert f(list(range(5))) == 1
            assert f("ab" * 3) == 2
            assert f([i * i for i in range(4)]) == 3
            assert f(tuple(x for x in "abc" if x != "b")) == 4
            assert f(-(2 ** 3), {1: [2]}) == 5
    """)
    assert [c for c, _ in _calls(tf)] == ["f([0, 1, 2, 3, 4])", "f('ababab')", "f([0, 1, 4, 9])",
                                          "f(('a', 'c'))", "f(-8, {1: [2]})"]


def test_abs_difference_within_a_tolerance():
    """`abs(call - v) < eps` is kept as approx(v, abs=eps): the result lies within it."""
    tf = _read("""
        from m import f

        def test_a():
            assert abs(f(1.33) - 0.33) < 1e-6
            assert 1e-6 > abs(0.5 - f(3.5))
    """)
    assert [(d.call.source(), d.expect.kind.value, d.expect.value.val, d.expect.abs) for d in tf.demands] == [
        ("f(1.33)", "approx", 0.33, 1e-6), ("f(3.5)", "approx", 0.5, 1e-6)]


def test_coverage_counts_each_source_statement_once():
    """A helper's assertion executed three times is one statement; an unread one counts in the total."""
    tf = _read("""
        import random
        from m import f

        def _check(x):
            assert f(x) == 1

        def test_a():
            for x in [1, 2, 3]:
                _check(x)
            assert f(random.random()) == 2
    """)
    assert len(tf.demands) == 3
    assert (tf.assertions_read, tf.assertions_total) == (1, 2)


def test_a_helper_parameter_is_never_inferred_as_the_entry_point():
    """Without an entry point, HumanEval's `candidate` is not taken for the function under test."""
    from specguard.formalize.tests import infer_entry_point
    src = models.TestSource(kind="python", path="t.py", text="def check(candidate):\n    assert candidate(1) == 2\n")
    assert infer_entry_point([src]) is None
