"""Issue 12 (with issue 11 items 10 and 11): calls of test-module helpers are executed with their
parameters bound, under the same binding rules as tests: a parameter that shadows the entry point's
name holds what the caller passed, a helper that rebinds a name loses it, a helper defined twice
or rebound is not executed, recursion is bounded, and what a helper does to its arguments or to
the environment is seen by the caller.  Each case reads real test text with the real reader."""

import textwrap

from specguard import models
from specguard.formalize.tests import formalize_tests


def _read(code: str, ep: str = "f"):
    src = models.TestSource(kind="python", path="test_x.py", text=textwrap.dedent(code))
    return formalize_tests([src], ep)


def _demands(tf) -> list[str]:
    return [d.text for d in tf.demands]


def test_parameter_shadowing_the_entry_holds_the_argument():
    """#11.11: `def _c(f, x, want)`: `f` is whatever the caller passed, not the function under test."""
    tf = _read("""
        from m import f, g

        def _c(f, x, want):
            assert f(x) == want

        def test_a():
            _c(g, 1, 2)
    """)
    assert not tf.demands
    assert any("rebound" in u.reason for u in tf.unsupported)


def test_parameter_shadowing_the_entry_called_with_the_entry():
    """#12: the same helper called with the function under test gives the demand."""
    tf = _read("""
        from m import f

        def _c(f, x, want):
            assert f(x) == want

        def test_a():
            _c(f, 1, 2)
    """)
    assert [(str(d.call.source()), d.expect.value.val) for d in tf.demands] == [("f(1)", 2)]


def test_helper_that_rebinds_its_parameter():
    """#11.11: a helper rebinding `candidate` before asserting tests the new value."""
    tf = _read("""
        from m import f, g

        def check(candidate):
            candidate = g
            assert candidate(1) == 2

        check(f)
    """)
    assert not tf.demands


def test_helper_rebinding_conditionally():
    """#11.11: a rebinding in a branch makes the name unknown afterwards."""
    tf = _read("""
        import os
        from m import f, g

        def check(candidate):
            if os.environ.get("X"):
                candidate = g
            assert candidate(1) == 2

        def test_a():
            check(f)
    """)
    assert not tf.demands


def test_helper_defined_twice_is_not_executed():
    """#11.10: a helper bound twice: which body runs depends on when it is called; not executed."""
    tf = _read("""
        from m import f

        def _c(x):
            assert f(x) == 1

        def test_a():
            _c(1)

        def _c(x):
            assert f(x) == 2
    """)
    assert not tf.demands
    assert any("bound more than once" in u.reason for u in tf.unsupported)


def test_recursion_is_bounded():
    """#12: a recursive helper: executed to a bounded depth, its assertions unsupported beyond."""
    tf = _read("""
        from m import f

        def _c(x):
            _c(x)
            assert f(x) == 1

        def test_a():
            _c(1)
            assert f(2) == 2
    """)
    assert not tf.demands
    assert any("deeper than" in u.reason for u in tf.unsupported)


def test_helper_that_skips_blocks_the_caller():
    """#11 (skips): a helper that may skip ends what follows its call in the test."""
    tf = _read("""
        import pytest
        from m import f

        def _need():
            pytest.skip("no")

        def test_a():
            _need()
            assert f(1) == 1
    """)
    assert not tf.demands


def test_helper_that_mutates_its_argument():
    """#11 (state): a helper that appends to a list the test then passes: the list is not a literal."""
    tf = _read("""
        from m import f

        def _grow(xs):
            xs.append(2)

        def test_a():
            xs = [1]
            _grow(xs)
            assert f(xs) == 1
    """)
    assert not tf.demands


def test_module_alias_rebound_later_is_not_the_entry():
    """#11.11: `g = f` then `g = other`: calls of `g` in tests are not of the function under test."""
    tf = _read("""
        from m import f, other

        g = f

        def test_a():
            assert g(1) == 1

        g = other
    """)
    assert not tf.demands


def test_explicit_check_call_with_another_function():
    """#12: a module that calls `check(other)` itself is read as it runs, not as HumanEval's harness."""
    tf = _read("""
        from m import other

        def check(candidate):
            assert candidate(1) == 2

        check(other)
    """)
    assert not tf.demands
    assert not tf.notes


def test_harness_when_the_file_rebinds_the_entry():
    """#11.11: HumanEval format, but the test text defines the entry point itself: the harness's
    `check(f)` would pass that definition, not the function under test."""
    tf = _read("""
        def f(x):
            return 0

        def check(candidate):
            assert candidate(1) == 2
    """)
    assert not tf.demands


def test_mutable_default_is_not_a_literal():
    """#11 (state): a helper's mutable default is one object shared by every call."""
    tf = _read("""
        from m import f

        def _c(xs=[]):
            assert f(xs) == 0

        def test_a():
            _c()
    """)
    assert not tf.demands


def test_decorated_helper_is_not_executed():
    """#11.10: a decorated helper runs what the decorator returns."""
    tf = _read("""
        import functools
        from m import f

        @functools.lru_cache
        def _c(x):
            assert f(x) == 1

        def test_a():
            _c(1)
    """)
    assert not tf.demands


def test_code_after_return_is_unreachable():
    """#12: assertions after a helper's unconditional `return` never run."""
    tf = _read("""
        from m import f

        def _c(x):
            assert f(x) == 1
            return
            assert f(x) == 2

        def test_a():
            _c(1)
            assert f(3) == 3
    """)
    assert _demands(tf) == ["assert f(x) == 1", "assert f(3) == 3"]
    assert any("unreachable" in u.reason for u in tf.unsupported)


def test_module_level_assert_after_a_module_call_for_effect():
    """#11 (state): MBPP-style module-level asserts after `random.seed(1)` (an effect on an imported
    module) are not demands; those before it are."""
    tf = _read("""
        import random
        from m import f

        assert f(1) == 1
        random.seed(1)
        assert f(2) == 2
    """)
    assert _demands(tf) == ["assert f(1) == 1"]


def test_module_level_assert_after_a_store_into_a_module():
    """#11 (environment): `m.CONFIG = 3` at module level changes what the function may see."""
    tf = _read("""
        import m
        from m import f

        m.CONFIG = 3
        assert f(2) == 2
    """)
    assert not tf.demands


def test_module_level_helper_call_cannot_share_a_mutable_constant():
    """#11 (identity): `check(f)` at module level, the helper passing a module-level list twice: the
    first call may change it before the second (no false conflict from f([1]) == 1 and f([1]) == 2)."""
    tf = _read("""
        from m import f

        xs = [1]

        def check(candidate):
            assert candidate(xs) == 1
            assert candidate(xs) == 2

        check(f)
    """)
    assert not tf.demands


def test_module_level_assert_of_an_unselected_file_is_not_a_demand():
    """#11 (collection): with only_tests naming tests of another file, pytest does not import this
    one: its module-level asserts do not run."""
    src = models.TestSource(kind="python", path="test_x.py", only_tests=("test_other.py::test_b",),
                            text="from m import f\n\nassert f(1) == 2\n\ndef test_a():\n    assert f(2) == 3\n")
    tf = formalize_tests([src], "f")
    assert not tf.demands
    assert any("pytest may not import it" in u.reason for u in tf.unsupported)


def test_return_inside_an_unrolled_loop_of_a_helper():
    """#11 (exits): a helper's `return` in the first iteration of a loop: nothing after it runs, not
    the rest of the iteration nor the next iterations; the caller goes on."""
    tf = _read("""
        from m import f

        def _c():
            for v in [1, 2]:
                assert f(v) == 1
                return
                assert f(v) == 3

        def test_a():
            _c()
            assert f(5) == 5
    """)
    assert _demands(tf) == ["assert f(v) == 1", "assert f(5) == 5"]
    assert [d.call.source() for d in tf.demands] == ["f(1)", "f(5)"]


def test_conditional_return_in_a_helper_blocks_the_caller():
    """#11 (exits): `if x: return` in a helper: whether what follows runs is not known."""
    tf = _read("""
        import os
        from m import f

        def _c(x):
            if os.environ.get("A"):
                return
            assert f(x) == 1

        def test_a():
            _c(1)
            assert f(2) == 2
    """)
    assert not tf.demands


def test_helper_calls_that_fan_out_are_bounded():
    """#12 (budget): helpers calling helpers ten times at each of eight levels (10**8 runs) stop at
    the per-file budget, fast, with the reason."""
    import time
    levels = ["from m import f\n\n", "def h0(x):\n    assert f(x) == 1\n\n"]
    for i in range(1, 8):
        levels.append(f"def h{i}(x):\n" + f"    h{i - 1}(x)\n" * 10 + "\n")
    levels.append("def test_a():\n    h7(1)\n")
    t0 = time.monotonic()
    tf = _read("".join(levels))
    assert time.monotonic() - t0 < 20
    assert any("helper calls stopped" in n for n in tf.notes)
