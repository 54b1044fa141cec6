"""Issue 12: ``self.assertRaises(E, g)`` where the test defined ``def g(): return EXPR`` reads as
the lambda ``lambda: EXPR`` (more-itertools' tests), through the real CLI and the real Lean kernel."""

from cli_run import check_files

DESC = "Return the square of n.\n\n>>> f(3)\n9\n"

TESTS = """\
from unittest import TestCase
from sol import f

class TestF(TestCase):
    def test_a(self):
        def g():
            \"\"\"the call that should raise\"\"\"
            return f(3)

        self.assertRaisesRegex(ValueError, "n must be", g)
"""


def test_a_local_function_passed_to_assert_raises_gives_a_certified_conflict(tmp_path):
    """`g()` evaluates `f(3)`: expected to raise ValueError, documented to return 9."""
    code, r = check_files(tmp_path, DESC, TESTS)
    assert r["verdict"] == "conflict" and r["evidence"] == "certified", r["reason"]
    assert r["coverage"]["assertions_read"] == r["coverage"]["assertions_total"] == 1


def test_a_local_function_over_a_list_of_the_result(tmp_path):
    """`def g(): return list(f(3))` is read as the lambda `lambda: list(f(3))` is (raises when
    called or when iterated): read, no conflict with a documented iterator-free raise."""
    code, r = check_files(tmp_path, "Return the digits of n.\n", TESTS.replace("return f(3)", "return list(f(3))"))
    assert r["coverage"]["assertions_read"] == 1, r["unsupported"]
