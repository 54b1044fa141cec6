"""Issue 12 (collection of real test suites): test methods a test class inherits from base classes
of the file (mixins, base ``TestCase`` classes) are read in each subclass that collects them, with
the subclass's attributes; and assertions of helpers no selected test can reach do not count.

Verdicts come from the real pipeline: ``specguard check`` (subprocess, real Lean kernel) on a
description and a test file, or :func:`specguard.check.check_task` on a task naming its tests
(``only_tests``, as SWE-bench and the reallib benchmark give them; the CLI has no flag for it)."""

import textwrap

from cli_run import check_files
from specguard.check import check_task
from specguard import models
from specguard.models import Task

DESC = "Return the square of n.\n\n>>> f(3)\n9\n>>> f(2)\n4\n"

MIXIN = """\
from unittest import TestCase
from sol import f

class SquareMixin:
    arg = None

    def test_value(self):
        self.assertEqual(f(self.arg), 10)

class TestThree(SquareMixin, TestCase):
    arg = 3
"""


def test_mixin_test_read_in_its_subclass_gives_a_certified_conflict(tmp_path):
    """`TestThree(SquareMixin, TestCase)` runs `SquareMixin.test_value` with `arg = 3` (pytest and
    unittest collect it as `TestThree::test_value`): `f(3) == 10` contradicts the doctest `f(3) -> 9`."""
    code, r = check_files(tmp_path, DESC, MIXIN)
    assert r["verdict"] == "conflict" and r["evidence"] == "certified", r["reason"]
    assert r["coverage"]["assertions_read"] == r["coverage"]["assertions_total"] == 1


def test_mixin_test_with_the_documented_value_is_no_conflict(tmp_path):
    code, r = check_files(tmp_path, DESC, MIXIN.replace("10)", "9)"))
    assert r["verdict"] != "conflict", r["reason"]
    assert r["coverage"]["assertions_read"] == 1


def _task(code: str, only: list[str], desc: str = DESC) -> Task:
    return Task(id="t", description=desc, entry_point="f",
                tests=(models.TestSource(kind="python", path="tests/test_x.py", text=textwrap.dedent(code),
                                  only_tests=tuple(only)),))


HELPERS = """\
from unittest import TestCase
from sol import f

def _check_big(n):
    assert f(n) > 1000

class TestF(TestCase):
    def _check(self, n, want):
        self.assertEqual(f(n), want)

    def test_three(self):
        self.assertEqual(f(3), 10)

    def test_big(self):
        self._check(40, 1600)
        _check_big(50)
"""


def test_helpers_only_unselected_tests_call_do_not_count():
    """Only `TestF::test_three` runs: `_check` and `_check_big` are reached from `test_big` alone,
    so their assertions are not among those that run (read 1 of 1), and the conflict is certified."""
    r = check_task(_task(HELPERS, ["TestF::test_three"])).result
    assert r.verdict.value == "conflict" and r.evidence.value == "certified", r.reason
    assert (r.coverage.assertions_read, r.coverage.assertions_total) == (1, 1)


def test_inherited_test_selected_in_one_subclass_counts_once_read():
    """The mixin's body runs as `TestThree::test_value` (selected) and would run as
    `TestFour::test_value` (not selected): it counts, read with `arg = 3`."""
    code = MIXIN + "\nclass TestFour(SquareMixin, TestCase):\n    arg = 4\n"
    r = check_task(_task(code, ["TestThree::test_value"])).result
    assert r.verdict.value == "conflict" and r.evidence.value == "certified", r.reason
    assert (r.coverage.assertions_read, r.coverage.assertions_total) == (1, 1)
