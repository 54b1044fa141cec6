"""Description reading (issue 12 item 6): the worked-example forms read since #12.6 never turn
a phrasing that says something else into a claim.  Each trap below is a description whose naive
reading would be a false claim, hence a false conflict against a correct implementation."""

import json
import os
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

from specguard.formalize.description import formalize_description
from specguard.models import ClaimKind, ExpectKind
from specguard.python.values import from_python

ROOT = Path(__file__).resolve().parent.parent.parent


def fd(text: str, **kw):
    return formalize_description(textwrap.dedent(text), **kw)


def eqs(r) -> dict:
    return {c.call.source(): c.expect.value for c in r.claims
            if c.kind is ClaimKind.example and c.expect.kind is ExpectKind.eq}


def test_parenthesised_single_value_is_not_the_string():
    """#12.6: `bf("Earth", "Mercury") ==> ("Venus")` means a 1-tuple, not the string Python makes
    of it: not read (the tuple forms beside it are)."""
    r = fd('''\
        def bf(a, b):
            """Planets between a and b.

            bf("Jupiter", "Neptune") ==> ("Saturn", "Uranus")
            bf("Earth", "Mercury") ==> ("Venus")
            """
        ''')
    assert eqs(r) == {"bf('Jupiter', 'Neptune')": from_python(("Saturn", "Uranus"))}


def test_equals_lines_of_a_formula_definition_are_not_results():
    """#12.6: `t(4) = 3` beside `t(n) = 1 + n / 2` defines a sequence; the function returns a
    list of its terms.  `=` lines are not read when the prose defines the function by formulas."""
    r = fd('''\
        def t(n):
            """The sequence: t(1) = 3, and
            t(n) = 1 + n / 2 if n is even.
            For example:
            t(2) = 1 + (2 / 2) = 2
            t(4) = 3
            Return the first n + 1 terms: t(3) = [1, 3, 2, 8]
            """
        ''')
    assert eqs(r) == {}


def test_double_arrow_is_not_equality_then_greater():
    """#12.6: `f(1) ==> 3` is the example f(1) == 3, never `== ...` followed by `> 3`."""
    r = fd('''\
        def f(n):
            """Doc.

            f(1) ==> 3
            """
        ''')
    [c] = [c for c in r.claims if c.kind is ClaimKind.example]
    assert c.expect.kind is ExpectKind.eq and c.expect.value == from_python(3)


@pytest.mark.parametrize("ret", ["", " -> Iterator[int]", " -> Iterable[int]", " -> tuple"])
def test_list_of_result_is_not_the_result(ret):
    """#12.6: `>>> list(f(3))` / `[1, 2, 3]` observes the result through list(); unless the
    annotation says the result is a list, it is not read as f(3) == [1, 2, 3] (#12.2: it is the
    observation `list(result) == [1, 2, 3]` of the call)."""
    r = fd(f'''\
        from typing import Iterator, Iterable
        def f(n){ret}:
            """Doc.

            >>> list(f(3))
            [1, 2, 3]
            """
        ''')
    assert eqs(r) == {}
    assert r.examples_seen == 1 and r.examples_read == 1
    [c] = [c for c in r.claims if c.kind is ClaimKind.example]
    assert c.expect.kind is ExpectKind.obs and c.expect.expr == "list(result) == [1, 2, 3]"


@pytest.mark.parametrize("ret, out", [("", ["3"]), (" -> float", ["0.5"]), (" -> str", ["a", "b"]),
                                      (" -> str", ["a<BLANKLINE>"]), (" -> int", ["True"]),
                                      (" -> list", ["[1,2]"]), (" -> int", ["-0"])])
def test_printed_output_is_not_read_when_it_does_not_pin_the_result(ret, out):
    """#12.6: `>>> print(f(1))` shows str(result): `3` may be the int or the string '3'
    (no annotation), a float's str is rounded, a multi-line str's text is not one line, a bool
    printed for an int-annotated result is not an int, and text print() never produces
    (`[1,2]`, `-0`) is no value's printed form."""
    body = "".join(f"    {line}\n" for line in out)
    r = formalize_description(f'def f(n){ret}:\n    """Doc.\n\n    >>> print(f(1))\n{body}    """\n')
    assert eqs(r) == {}


def test_comparison_not_followed_by_blank_line_is_not_read():
    """#12.6: `>>> f(1) == 2` is read without an output line only when nothing follows it;
    with the output `False` it says the opposite (f(1) != 2, never f(1) == 2)."""
    r = fd('''\
        def f(n):
            """Doc.

            >>> f(1) == 2
            False
            >>> f(2) == 3
            maybe
            """
        ''')
    assert eqs(r) == {}
    [c] = [c for c in r.claims if c.kind is ClaimKind.example]
    assert c.expect.kind is ExpectKind.ne and c.call.source() == "f(1)" and c.expect.value == from_python(2)


@pytest.mark.parametrize("desc", [
    'Return "true" when it holds.\n\n    f(1) => true',
    "Return the word.\n\n    f(1) => true",
])
def test_lowercase_true_only_when_unambiguous(desc):
    """#12.6: lowercase `true` after an arrow is True only when the result may be a bool and the
    description never quotes 'true' as a string."""
    ret = " -> str" if "word" in desc else ""
    r = fd(f'def f(n){ret}:\n    """{desc}\n    """\n')
    assert eqs(r) == {}


def test_session_names_follow_python_bindings():
    """#12.6 / #11: a session name is its literal value only until it may be rebound: a second
    statement on the line, an augmented assignment, or passing a mutable value to the function."""
    r = fd('''\
        def f(k):
            """Doc.

            >>> k = 2; k = 3
            >>> f(k)
            9
            >>> j = 2
            >>> j += 1
            >>> f(j)
            9
            >>> xs = [1]
            >>> f(xs)
            [1, 1]
            >>> f(xs)
            [1, 1, 1]
            """
        ''')
    # changed (#12.1: the session is run statement by statement with Python's semantics): `k = 2; k = 3`
    # binds k to 3 and `j += 1` makes j 3, so both lines show f(3) == 9; the second `f(xs)` is not f([1])
    assert eqs(r) == {"f(3)": from_python(9), "f([1])": from_python([1, 1])}


def test_session_alias_of_a_mutable_value_is_not_bound():
    """#12.6: `ys = xs` names the same list; `f(xs)` may change it, so `ys` is not its old value
    afterwards (an alias is never recorded as a literal)."""
    r = fd('''\
        def f(k):
            """Doc.

            >>> xs = [1]
            >>> ys = xs
            >>> zs = [xs]
            >>> f(xs)
            2
            >>> f(ys)
            3
            >>> f(zs)
            4
            """
        ''')
    assert eqs(r) == {"f([1])": from_python(2)}


def test_rebinding_the_entry_point_still_stops_the_session():
    """#11 doctest rebinding carries over: `>>> f = g` ends what the session says about f, even
    for the new forms (a comparison without output)."""
    r = fd('''\
        def f(n):
            """Doc.

            >>> f = abs
            >>> f(-1) == 1

            """
        ''')
    assert eqs(r) == {}


@pytest.mark.lean
def test_formula_task_is_not_a_certified_conflict(tmp_path, core):
    """#12.6 end to end: the sequence task whose `t(4) = 3` line is not the function's result ends
    without a conflict against tests of the list it returns."""
    (tmp_path / "desc.py").write_text(textwrap.dedent('''\
        def t(n):
            """t(1) = 3, t(n) = 1 + n / 2 if n is even.
            t(2) = 2
            t(4) = 3
            Return the list of the first n + 1 terms.
            """
        '''))
    (tmp_path / "test_t.py").write_text("from sol import t\n\ndef test_t():\n    assert t(4) == [1, 3, 2, 8, 3]\n"
                                        "    assert t(2) == [1, 3, 2]\n")
    env = dict(os.environ, PYTHONPATH=str(ROOT))
    p = subprocess.run([sys.executable, "-m", "specguard", "check", "--description", "desc.py", "--tests", "test_t.py",
                        "--out", str(tmp_path / "out"), "--json"], capture_output=True, text=True, cwd=tmp_path, env=env)
    assert p.returncode in (0, 2), p.stdout + p.stderr
    assert json.loads(p.stdout)["verdict"] != "conflict"


@pytest.mark.parametrize("line", [
    "For n = 3, the output should be 5 unless the list is empty.",
    "For n = 3 and the default k, the output should be 5",
    "For n = 3, the output should be 5 or 6",
    "For n = 3 (roughly), the output should be 5",
])
def test_for_sentence_with_anything_more_is_not_read(line):
    """#12.6: the For-sentence grammar reads "For x = v, the output should be r" and nothing
    more: a condition, an alternative or an unbound name leaves the sentence unread."""
    r = fd(f'''\
        def f(n):
            """Doc.

            {line}
            """
        ''')
    assert eqs(r) == {} and r.examples_seen == 1 and r.examples_read == 0
