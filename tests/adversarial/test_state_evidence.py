"""Formalization layer, state between calls (a red-team pass of 2026-12-02): descriptions that
document state in words the STATE_WORDS list did not know ("requests so far", "seen before", "the
next ticket", "values received"), functions of no arguments, functions the tests call for their
effect (in an earlier test, a fixture, the same test), and functions whose docstring names another
function the tests call.  Each task is satisfiable by a stateful implementation (its label was
proven by running it), and reading it as a function of its arguments certified a false conflict.
Now none is certified and the assumption names the evidence; a pure function with the same
shape of tests is still certified.  Real CLI, real files, real Lean kernel."""

import pytest
from cli_run import check_files

pytestmark = pytest.mark.lean


def _check(tmp_path, desc, tests, entry):
    return check_files(tmp_path, desc, tests, entry_point=entry, desc_name="desc.py", dedent=True)


def _no_conflict(tmp_path, desc, tests, entry, evidence):
    code, r = _check(tmp_path, desc, tests, entry)
    assert code != 1 and r["verdict"] != "conflict", r["reason"]
    said = "\n".join(r["assumptions"])
    assert "documents state between calls" in said and evidence in said, said
    return r


def test_requests_so_far(tmp_path):
    _no_conflict(tmp_path, '''
        def hits(page):
            """Return how many times ``page`` was requested, counting this request, over all requests so far.

            >>> hits("a")
            1
            """
        ''', '''
        from desc import hits

        def test_hits():
            assert hits("a") == 1
            assert hits("a") == 2
        ''', "hits", "requested")


def test_seen_before(tmp_path):
    _no_conflict(tmp_path, '''
        def is_new(x):
            """True when ``x`` has not been seen before.

            >>> is_new(3)
            True
            """
        ''', '''
        from desc import is_new

        def test_new():
            assert is_new(3) is True
            assert is_new(3) is False
        ''', "is_new", "seen before")


def test_values_received_and_a_call_for_effect(tmp_path):
    _no_conflict(tmp_path, '''
        def log(x):
            """Add ``x`` to the values received and return all of them.

            >>> log(1)
            [1]
            """
        ''', '''
        from desc import log

        def test_log():
            log(1)
            assert log(1) == [1, 1]
        ''', "log", "received")


def test_the_function_called_for_its_effect_in_an_earlier_test(tmp_path):
    """No state word at all: only the call whose result the test discards shows the state."""
    _no_conflict(tmp_path, '''
        def bump(k):
            """Return the value for ``k``.

            >>> bump("a")
            1
            """
        ''', '''
        from desc import bump as b

        def test_warm():
            b("a")

        def test_value():
            assert b("a") == 2
        ''', "bump", "calls `b` for its effect")


def test_another_function_called_for_its_effect_in_an_earlier_test(tmp_path):
    _no_conflict(tmp_path, '''
        def lookup(name):
            """Return the value for ``name``, or None.

            >>> lookup("x") is None
            True
            """

        def put(name, value):
            """Keep ``value`` for ``name``."""
        ''', '''
        import desc

        def test_put():
            desc.put("x", 5)

        def test_lookup():
            assert desc.lookup("x") == 5
        ''', "lookup", "calls `put` for its effect")


def test_the_docstring_names_a_function_the_tests_call(tmp_path):
    _no_conflict(tmp_path, '''
        def lookup(name):
            """Return the value given for ``name`` to :func:`put`, or None.

            >>> lookup("x") is None
            True
            """

        def put(name, value):
            """Keep ``value`` for ``name``."""
        ''', '''
        from desc import lookup, put

        def test_put():
            assert put("x", 5) is None

        def test_lookup():
            assert lookup("x") == 5
        ''', "lookup", "names `put`")


def test_no_arguments_and_a_fixture_calling_it(tmp_path):
    _no_conflict(tmp_path, '''
        def take():
            """Give out a number.

            >>> take()
            1
            """
        ''', '''
        import pytest
        from desc import take

        @pytest.fixture
        def first():
            return take()

        def test_next(first):
            assert take() == 2
        ''', "take", "takes no arguments")


def test_the_next_ticket(tmp_path):
    _no_conflict(tmp_path, '''
        def ticket(queue):
            """Give the next ticket number of ``queue``, starting at 1.

            >>> ticket("q")
            1
            """
        ''', '''
        from desc import ticket

        def test_second():
            assert ticket("q") == 1
            assert ticket("q") == 2
        ''', "ticket", "next ticket")


def test_a_module_attribute_set_in_an_earlier_test(tmp_path):
    """``desc.FACTOR = 3`` in one test stays for the next (unlike ``monkeypatch``)."""
    _no_conflict(tmp_path, '''
        FACTOR = 2

        def scale(x):
            """Return ``x`` times FACTOR.

            >>> scale(2)
            4
            """
        ''', '''
        import desc
        from desc import scale

        def test_setup():
            desc.FACTOR = 3

        def test_scale():
            assert scale(2) == 6
        ''', "scale", "changes `desc.FACTOR`")


def test_the_environment_changed_in_an_earlier_test(tmp_path):
    _no_conflict(tmp_path, '''
        def greeting(name):
            """Return a greeting for ``name``.

            >>> greeting("Ann")
            'Hello, Ann'
            """
        ''', '''
        import os
        from desc import greeting

        def test_lang():
            os.environ["LANG"] = "fr"

        def test_greeting():
            assert greeting("Ann") == "Bonjour, Ann"
        ''', "greeting", "changes `os.environ")


def test_a_module_value_cleared_for_its_effect(tmp_path):
    _no_conflict(tmp_path, '''
        SEEN = {}

        def first_seen(x, t):
            """Return ``t``, the time given with ``x``.

            >>> first_seen("a", 1)
            1
            """
        ''', '''
        import desc

        def test_one():
            assert desc.first_seen("a", 1) == 1

        def test_clear():
            desc.SEEN.clear()
            assert desc.first_seen("a", 2) == 2

        def test_again():
            assert desc.first_seen("a", 1) == 2
        ''', "first_seen", "changes `desc.SEEN.clear()")


def test_a_call_inside_raises_is_no_effect_and_a_pure_function_still_conflicts(tmp_path):
    """The counterpart: the same shape of tests on a pure function, whose description counts
    occurrences ("the number of times a digit occurs" is not history), is still certified; a call
    inside ``pytest.raises`` is there to raise, not for its effect."""
    (tmp_path / "conftest.py").write_text("import sys\nsys.path.insert(0, '.')\n")   # import paths: no state
    code, r = _check(tmp_path, '''
        def count_digit(n, d):
            """Return the number of times the digit ``d`` occurs in ``n``.

            >>> count_digit(1212, 1)
            2
            """
        ''', '''
        import pytest
        from desc import count_digit

        def test_bad():
            with pytest.raises(TypeError):
                count_digit(None, 1)

        def test_count():
            assert count_digit(1212, 1) == 3
        ''', "count_digit")
    assert code == 1 and r["verdict"] == "conflict" and r["evidence"] == "certified", r["reason"]
    assert not any("documents state" in a for a in r["assumptions"])
