"""Stage 3 (formalize the description, deterministic rules): behaviour-level tests.

Every description here is written for the test; none is copied from a benchmark.
"""

from __future__ import annotations

import json
import textwrap

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from specguard.formalize.description import formalize_description
from specguard.models import ClaimKind, DescFormalization, ExpectKind, TypeExpr
from specguard.python.values import V, from_python


def fd(text: str, **kw) -> DescFormalization:
    return formalize_description(textwrap.dedent(text), **kw)


def examples(r: DescFormalization):
    return [c for c in r.claims if c.kind is ClaimKind.example]


def ranges(r: DescFormalization):
    return [(c.lo, c.hi) for c in r.claims if c.kind is ClaimKind.result_range]


def eqs(r: DescFormalization):
    """{call source: expected python value} of the eq examples."""
    out = {}
    for c in examples(r):
        if c.expect.kind is ExpectKind.eq:
            out[c.call.source()] = c.expect.value
    return out


def has_note(r: DescFormalization, *words: str) -> bool:
    return any(all(w in n for w in words) for n in r.notes)


T = TypeExpr
INT, STR, NONE = T(name="int"), T(name="str"), T(name="None")


# -- signature and types ---------------------------------------------------------------

@pytest.mark.parametrize("ann, expected", [
    ("int", INT),
    ("float", T(name="float")),
    ("None", NONE),
    ("List[int]", T(name="list", args=(INT,))),
    ("list[str]", T(name="list", args=(STR,))),
    ("typing.List[int]", T(name="list", args=(INT,))),
    ("Tuple[int, str]", T(name="tuple", args=(INT, STR))),
    ("tuple[int, ...]", T(name="tuple", args=(INT,), variadic=True)),
    ("Dict[str, List[int]]", T(name="dict", args=(STR, T(name="list", args=(INT,))))),
    ("Set[int]", T(name="set", args=(INT,))),
    ("FrozenSet[int]", T(name="frozenset", args=(INT,))),
    ("Optional[int]", T(name="Union", args=(INT, NONE))),
    ("int | None", T(name="Union", args=(INT, NONE))),
    ("Union[int, str, int]", T(name="Union", args=(INT, STR))),
    ("'List[int]'", T(name="list", args=(INT,))),
    ("List", T(name="list")),
])
def test_return_annotation_becomes_type_claim(ann, expected):
    r = fd(f"""\
        from typing import *
        def f(a: int, b) -> {ann}:
            \"\"\"Compute something.\"\"\"
        """)
    assert r.signature.name == "f" and r.signature.params == ("a", "b")
    assert r.signature.returns == expected
    [claim] = [c for c in r.claims if c.kind is ClaimKind.return_type]
    assert claim.type == expected
    assert claim.loc.line == 2 and claim.text.startswith("def f(a: int, b)")


@pytest.mark.parametrize("ann", ["Any", "object", "MyClass", "Sequence[int]", "Callable[[int], int]",
                                 "Union[int, Any]", "complex"])
def test_unconstrained_annotation_gives_no_type_claim(ann):
    r = fd(f"def f(x) -> {ann}:\n    '''Doc.'''\n")
    assert r.signature.returns == T(name="Any")
    assert not [c for c in r.claims if c.kind is ClaimKind.return_type]


def test_no_annotation_no_type_claim():
    r = fd("def f(x):\n    '''Doc.'''\n")
    assert r.signature.returns is None and r.claims == ()
    assert has_note(r, "nothing to formalize")


def test_entry_point_def_is_preferred_and_methods_drop_self():
    r = fd('''\
        def helper(a: int) -> str:
            """Helper."""

        class Solution:
            def solve(self, nums: List[int], k: int) -> bool:
                """Main."""
        ''', entry_point="solve")
    assert r.signature.name == "solve" and r.signature.params == ("nums", "k")
    assert r.signature.returns == T(name="bool") and r.signature.line == 5


def test_entry_point_without_def_gives_no_signature():
    r = fd("def other(a: int) -> int:\n    '''x'''\n", entry_point="solve")
    assert r.signature is None and not r.claims
    assert has_note(r, "no def of the entry point")


def test_def_inside_markdown_prose_multiline():
    r = fd("""\
        Write a function:

        ```python
        def pick(items: list[int],
                 k: int) -> tuple[int, int]:
        ```
        It picks two items.
        """)
    assert r.signature.name == "pick" and r.signature.params == ("items", "k")
    assert r.signature.returns == T(name="tuple", args=(INT, INT))
    assert r.signature.line == 4


# -- doctest examples --------------------------------------------------------------------

STUB = '''\
def f(s: str) -> Optional[List[int]]:
    """Count things.

    >>> f("it's")
    [1, 2]
    >>> f('say "hi"')
    [3]
    >>> f(s='kw')
    [
      4,
      5,
    ]
    >>> f(
    ...     'long')
    [6]
    >>> f('bad')
    Traceback (most recent call last):
      File "<stdin>", line 1, in <module>
    ValueError: bad input
    >>> f('')
    """
'''


def test_doctest_values_with_quotes_multiline_kwargs_and_continuation():
    r = fd(STUB)
    got = {c.call.source(): c for c in examples(r)}
    assert got["f(\"it's\")"].expect.value == from_python([1, 2])
    assert got["f('say \"hi\"')"].expect.value == from_python([3])
    kw = got["f(s='kw')"]
    assert kw.call.args == () and kw.call.kwargs == (("s", V("str", "kw")),)
    assert kw.expect.value == from_python([4, 5])
    assert got["f('long')"].expect.value == from_python([6])
    assert got["f('long')"].text.startswith(">>> f(\n...     'long')")


def test_doctest_traceback_gives_raises():
    r = fd(STUB)
    [c] = [c for c in examples(r) if c.expect.kind is ExpectKind.raises]
    assert c.call.source() == "f('bad')" and c.expect.exc == ("ValueError",)
    assert c.loc.line == 16


def test_doctest_without_output_is_none_only_when_none_is_allowed():
    r = fd(STUB)
    assert eqs(r)["f('')"] == V("none")
    r = fd('''\
        def g(n: int) -> int:
            """
            >>> g(1)

            >>> g(2)
            >>> g(3)
            5
            """
        ''')
    assert eqs(r) == {"g(3)": from_python(5)}
    assert has_note(r, ":3:", "return type is int")
    r = fd("def h(n):\n    '''\n    >>> h(1)\n    >>> h(2)\n    2\n    '''\n")
    assert eqs(r) == {"h(1)": V("none"), "h(2)": from_python(2)}


def test_doctest_line_numbers_and_ids_follow_the_text():
    r = fd(STUB, path="task.py", line_offset=100)
    assert [c.id for c in r.claims] == [f"D{i}" for i in range(1, len(r.claims) + 1)]
    lines = [c.loc.line for c in r.claims]
    assert lines == sorted(lines) and lines[0] == 101
    assert all(c.loc.file == "task.py" for c in r.claims)
    assert [c.loc.line for c in examples(r)] == [104, 106, 108, 113, 116, 120]


def test_doctest_float_repr_is_exact():
    r = fd("def f(a: float) -> float:\n    '''\n    >>> f(0.1)\n    0.30000000000000004\n    '''\n")
    assert eqs(r)["f(0.1)"] == V("float", 0.30000000000000004)


@pytest.mark.parametrize("lines, reason", [
    (">>> str(f(1))\n'1'", "str()"),
    (">>> print(sorted(f(1)))\n[1, 2]", "print(...)"),
    (">>> print(f(1))\n3", "printed output"),   # no annotation: print(...) does not pin the result down
    (">>> f(1)\n<Thing object at 0x7f>", "not a literal"),
    (">>> f(1)\nhello world", "not a literal"),
    (">>> f(1)  # doctest: +ELLIPSIS\n[1, ...]", "directive"),
    (">>> f(1)  # doctest: +NORMALIZE_WHITESPACE\n['a  b']", "directive"),   # a string with whitespace
    (">>> f(1)\n[1, 2, ...]", "'...'"),
    (">>> f(x)\n3", "not a literal"),
    (">>> f(*[1])\n3", "starred"),
    (">>> x = f(1)", "binds the result"),
    (">>> f(1)\nTraceback (most recent call last):\n  ...", "traceback"),
])
def test_non_literal_doctests_become_notes(lines, reason):
    body = textwrap.indent(lines, "    ")
    r = fd(f"def f(n):\n    '''Doc.\n\n{body}\n    '''\n")
    assert not examples(r)
    assert has_note(r, ":4:", reason), r.notes


def test_doctest_observations_are_claims():
    """#12.2: `>>> sorted(f(x))` / `[1, 2]`, `>>> len(f(x))`, `>>> f(x)[0]`, `>>> list(f(x))` (no
    annotation) are observation claims of the one call, earlier lines binding names."""
    body = textwrap.indent(">>> xs = 3\n>>> sorted(f(xs))\n[1, 2]\n>>> len(f(2))\n2\n>>> f(4)[0]\n'a'\n"
                           ">>> list(f(5))\n[1, 3]", "    ")
    r = fd(f"def f(n):\n    '''Doc.\n\n{body}\n    '''\n")
    got = [(c.call.source(), c.expect.expr) for c in examples(r)]
    assert got == [("f(3)", "sorted(result) == [1, 2]"), ("f(2)", "len(result) == 2"), ("f(4)", "result[0] == 'a'"),
                   ("f(5)", "list(result) == [1, 3]")]
    assert r.examples_read == 4


def test_printed_output_is_not_a_result():
    r = fd("def show(n: int) -> None:\n    '''\n    >>> show(3)\n    3\n    '''\n")
    assert not examples(r) and has_note(r, ":3:", "printed text")
    r = fd("def show(n):\n    '''Prints n.\n\n    >>> show(3)\n    3\n    >>> show(4)\n    '''\n")
    assert eqs(r) == {"show(4)": V("none")} and has_note(r, ":4:", "printed text")
    r = fd("def show(n) -> int:\n    '''Prints n and returns it.\n\n    >>> show(3)\n    3\n    '''\n")
    assert eqs(r) == {"show(3)": from_python(3)}


def test_doctest_equality_printing_true():
    r = fd("def f(n):\n    '''\n    >>> f(2) == [4]\n    True\n    >>> f(3) == 9\n    False\n    '''\n")
    assert eqs(r) == {"f(2)": from_python([4])}
    # #12.6: printing False states the opposite: f(3) != 9
    [ne] = [c for c in examples(r) if c.expect.kind is ExpectKind.ne]
    assert ne.call.source() == "f(3)" and ne.expect.value == from_python(9)
    r = fd("def f(n):\n    '''\n    >>> f(3) == 9\n    maybe\n    '''\n")
    assert not examples(r) and has_note(r, ":3:", "neither True nor False")


def test_atcoder_style_output_section_keeps_its_modulus():
    r = fd("""\
        Input
        N M

        Output
        Print the answer modulo 998244353.
        """, entry_point="solve")
    assert ranges(r) == [(0, 998244352)]
    assert has_note(r, ":1:", "worked example skipped")


def test_constant_expressions_in_doctest_arguments_but_not_in_outputs_or_prose():
    r = fd("""\
        def f(n, xs=None):
            '''
            >>> f(2**3, xs=[0] * 2)
            set()
            >>> f(10^9)
            3
            >>> f(1)
            2**10
            >>> f(2)
            frozenset({1, 2})
            '''
        """)
    assert eqs(r) == {"f(8, xs=[0, 0])": V("set", ()), "f(2)": from_python(frozenset({1, 2}))}
    assert has_note(r, ":5:", "'^'") and has_note(r, ":7:", "not a literal")
    r = fd("f(10^9) returns 3.\nf(3) returns 10^9 + 7.\nf(2 * 3) returns 5.\n", entry_point="f")
    assert not examples(r)
    r = fd("def f(n: int) -> int:\n    '''\n    Input: n = 10^9\n    Output: 1\n    '''\n")
    assert not examples(r) and has_note(r, ":3:", "'^'")


def test_assignment_then_name_is_the_result():
    """#12.1 (changed: a doctest session is a Python session): `x = f(1)` then `>>> x` / `3` shows f(1) == 3."""
    r = fd("def f(n):\n    '''\n    >>> x = f(1)\n    >>> x\n    3\n    >>> f(2)\n    4\n    '''\n")
    assert eqs(r) == {"f(1)": from_python(3), "f(2)": from_python(4)}


def test_stateful_session_blocks_later_examples():
    r = fd("def f(n):\n    '''\n    >>> f(1)\n    1\n    >>> random.seed(3)\n    >>> f(2)\n    4\n    '''\n")
    assert eqs(r) == {"f(1)": from_python(1)}
    assert has_note(r, ":6:", "may change state")


def test_doctests_in_plain_text_with_inferred_target():
    r = fd("""\
        Squares a number.

        >>> square(3)
        9
        >>> square(-2)
        4
        """)
    assert eqs(r) == {"square(3)": from_python(9), "square(-2)": from_python(4)}


def test_doctest_of_other_function_is_noted():
    r = fd("def f(n: int) -> int:\n    '''\n    >>> g(1)\n    2\n    '''\n")
    assert not examples(r) and has_note(r, ":3:", "not a call of f")


def test_tolerance_in_description_blocks_float_doctests():
    r = fd("def f(n) -> float:\n    '''Answers within an absolute error of 1e-6 are accepted.\n\n"
           "    >>> f(3)\n    0.333333\n    >>> f(4)\n    1\n    '''\n")
    assert eqs(r) == {"f(4)": from_python(1)}
    assert has_note(r, ":4:", "tolerance")


# -- worked examples in prose ---------------------------------------------------------------

LEET = """\
Given an array nums and an integer k, return the number of good pairs.

Example 1:
Input: nums = [1,2,3], k = 2
Output: 3
Explanation: count(…) is 3, and solve([9], 9) returns 1000.

Example 2:

Input: k = 0, nums = []
Output: 0

Example 3:
Input: nums = [1], k = 1, extra = 2
Output: 5

Example 4:
Input: nums = [1]
Output: 5

Example 5:
Input: nums = [2], k = 1
Output: 2.5

```python
def solve(nums: List[int], k: int) -> int:
```
"""


def test_leetcode_input_output_blocks():
    r = fd(LEET)
    assert eqs(r) == {"solve([1, 2, 3], 2)": from_python(3), "solve([], 0)": from_python(0)}
    first = examples(r)[0]
    assert first.loc.line == 4 and first.text == "Input: nums = [1,2,3], k = 2\nOutput: 3"
    assert has_note(r, ":14:", "do not name each parameter")
    assert has_note(r, ":18:", "do not name each parameter")
    assert has_note(r, ":22:", "float output")


def test_input_output_without_signature_is_noted():
    r = fd("Example:\nInput: a = 1, b = 2\nOutput: 3\n", entry_point="add")
    assert not examples(r) and has_note(r, ":2:", "no signature")


def test_true_false_outputs_map_only_for_bool_results():
    text = "def ok(s: str) -> {}:\n    '''\n    Input: s = \"ab\"\n    Output: true\n    '''\n"
    assert eqs(fd(text.format("bool"))) == {"ok('ab')": V("bool", True)}
    assert not examples(fd(text.format("int")))


@pytest.mark.parametrize("sentence, value", [
    ("For example, area(2, 3) returns 6.", 6),
    ("area(2, 3) == 6", 6),
    ("area(2, 3) -> 6", 6),
    ("`area(2, 3)` should return `6`.", 6),
    ("Calling area(2, 3) gives [6, 'x'] (see below).", [6, "x"]),
    ("area(2, 3) returns 'a b, c'; nice.", "a b, c"),
    ("area(2, 3) returns -1 because it is degenerate.", -1),
])
def test_phrasings(sentence, value):
    r = fd(f"Computes an area.\n{sentence}\n", entry_point="area")
    [c] = examples(r)
    assert c.call.source() == "area(2, 3)" and c.expect.value == from_python(value)
    assert c.loc.line == 2 and c.text == sentence


def test_raises_phrasing():
    r = fd('parse("x") raises ValueError.\nparse("") should raise a KeyError\n', entry_point="parse")
    assert [(c.call.source(), c.expect.exc) for c in examples(r)] == [
        ("parse('x')", ("ValueError",)), ("parse('')", ("KeyError",))]


@pytest.mark.parametrize("sentence, reason", [
    ("If area(2, 3) returns 6, the grid is full.", "conditional"),
    ("area(2, 3) returns 6 or 7.", "qualified"),
    ("area(2, 3) returns 6, not 7.", "qualified"),
    ("area(2, 3) returns 2.5.", "float"),
    ("area(2, 3) returns the product.", "not a literal"),
    ("area(2, 3) is described below.", "without a recognised result phrase"),
])
def test_ambiguous_phrasings_become_notes(sentence, reason):
    r = fd(f"{sentence}\n", entry_point="area")
    assert not examples(r)
    assert has_note(r, ":1:", reason), r.notes


def test_general_formula_is_not_an_example():
    r = fd("f(n) = f(n - 1) + 2 for n > 0, and f(0) = 1.\n", entry_point="f")
    assert not examples(r)


# -- result modulus -------------------------------------------------------------------------

@pytest.mark.parametrize("sentence, m", [
    ("Return the count modulo 998244353.", 998244353),
    ("Since the answer may be very large, return it modulo 10^9 + 7.", 10**9 + 7),
    ("Return the number of ways modulo 10**9+7.", 10**9 + 7),
    ("Return the answer mod 1e9+7.", 10**9 + 7),
    ("Return the total modulo 1_000_000_007.", 10**9 + 7),
    ("The answer should be taken modulo 1,000,000,007.", 10**9 + 7),
    ("Print the number of sequences, modulo 10⁹ + 7.", 10**9 + 7),
    ("Return the number of good pairs over all arrangements,\n    modulo 998244353.", 998244353),
    ("The result must be returned modulo (10^9 + 9).", 10**9 + 9),
])
def test_result_modulus_positive(sentence, m):
    r = fd(f"def count(n: int) -> int:\n    '''Counts things.\n\n    {sentence}\n    '''\n")
    assert ranges(r) == [(0, m - 1)]
    [c] = [c for c in r.claims if c.kind is ClaimKind.result_range]
    assert c.loc.line == 4 and ("modulo" in c.text or " mod " in c.text)


def test_result_modulus_in_returns_section():
    r = fd('''\
        def count(n: int, s: str) -> int:
            """Count the strings.

            Args:
                n: an integer, 1 <= n <= 10^5, where n mod 3 is 0
                s: a string

            Returns:
                The number of strings over all arrangements,
                modulo 998244353
            """
        ''')
    assert ranges(r) == [(0, 998244352)]
    assert [c.loc.line for c in r.claims if c.kind is ClaimKind.result_range] == [9]


@pytest.mark.parametrize("sentence", [
    "Return the number of indices i such that a_i mod 2 is 1.",
    "Count the pairs where x modulo k is 0.",
    "Given x, compute x mod 7 and add it to the total.",
    "Return the count of i with a[i] % 3 == 0.",
    "The probability is returned as an integer R where R × Q ≡ P (mod 998244353).",
    "Each value is first reduced modulo 10^9 + 7.",
    "Return the smallest x such that x mod 1000000007 equals 5.",
    "For each query return (a * b) mod 17 for the pair.",
    "Return the count modulo M.",
    "Return the count modulo 2^k.",
    "If the answer exceeds 10^9, return it modulo 10^9 + 7.",
    "Return the count modulo 998244353 for each of the queries.",
    "The inputs are given modulo 998244353.",
    "Return the number of pairs whose sum, modulo 7, is 0.",
    "Return the number of pairs whose sum is even, modulo 998244353.",
    "Return the sum of the values (x mod 998244353).",
    "Return the sum of each product modulo 998244353.",
    "Return the count.\n\n    Returns:\n        The count. Each term is computed modulo 998244353.",
])
def test_modulus_about_inputs_or_intermediates_gives_no_claim(sentence):
    r = fd(f"def count(n: int, k: int) -> int:\n    '''{sentence}\n    '''\n")
    assert ranges(r) == [], r.claims


def test_modulus_with_non_int_return_type_is_noted():
    r = fd("def counts(n: int) -> List[int]:\n    '''Return the counts modulo 998244353.'''\n")
    assert ranges(r) == [] and has_note(r, ":2:", "return type is list[int]")


def test_modulus_dropped_when_another_result_is_possible():
    r = fd("def count(n: int) -> int:\n    '''Return the count modulo 998244353.\n"
           "    If there is no valid arrangement, return -1.\n    '''\n")
    assert ranges(r) == [] and has_note(r, "another possible result")


def test_modulus_dropped_when_an_example_is_outside():
    r = fd("def count(n):\n    '''Return the count modulo 7.\n\n    >>> count(3)\n    9\n    '''\n")
    assert ranges(r) == [] and eqs(r) == {"count(3)": from_python(9)}
    assert has_note(r, "example at line 4")


def test_modulus_without_annotation_is_claimed():
    r = fd("Return the number of tilings modulo 10^9+7.\n\n>>> tilings(2)\n2\n")
    assert ranges(r) == [(0, 10**9 + 6)] and eqs(r) == {"tilings(2)": from_python(2)}


@pytest.mark.parametrize("text", [
    "Return the counts modulo 998244353.",
    "Returns:\n    A list of answers modulo 998244353.",
    "Let S be the answer modulo 3. Return S + 1.",
])
def test_modulus_without_int_annotation_is_careful(text):
    assert ranges(fd(text)) == []


def test_helper_docstrings_are_not_read():
    r = fd('''\
        def helper(a: int, b: int) -> int:
            """Return a * b modulo 1000000007.

            >>> helper(2, 3)
            6
            """

        def solve(n: int) -> int:
            """Return the number of ways.

            >>> solve(2)
            2
            """
        ''', entry_point="solve")
    assert ranges(r) == [] and eqs(r) == {"solve(2)": from_python(2)}
    assert has_note(r, ":2:", "docstring of 'helper' not read")


def test_prose_doctest_without_output_at_end_of_text_is_not_none():
    r = fd("Starts the server.\n\n>>> serve(8080)", entry_point="serve")
    assert not examples(r) and has_note(r, "neither blank")


def test_two_different_moduli_give_no_claim():
    r = fd("def f(n: int) -> int:\n    '''Return the count modulo 998244353.\n\n"
           "    Returns:\n        the count modulo 10^9 + 7\n    '''\n")
    assert ranges(r) == [] and has_note(r, "different moduli")


# -- plainly stated bounds ---------------------------------------------------------------------

@pytest.mark.parametrize("text, expected", [
    ("The function returns a non-negative integer.", [(0, None)]),
    ("Returns a positive integer.", [(1, None)]),
    ("Returns an integer between 0 and 100.", [(0, 100)]),
    ("Returns an integer between 0 and 100, exclusive.", [(1, 99)]),
    ("The result is an integer in the range [0, 10^3).", [(0, 999)]),
    ("Returns:\n    A non-negative integer: the number of moves.", [(0, None)]),
])
def test_plain_result_bounds(text, expected):
    assert ranges(fd(text)) == expected


@pytest.mark.parametrize("text", [
    "Given a non-negative integer n, return its square.",
    "1 <= n <= 10^5",
    "Args:\n    n: a positive integer between 1 and 100",
    "Returns an integer between 1 and n.",
    "Returns a non-negative integer, or -1 if there is no answer.",
    "Returns a non-negative number.",
    "Constraints:\n    0 <= answer <= 10^9",
])
def test_not_result_bounds(text):
    assert ranges(fd(text)) == []


def test_bound_with_non_int_return_type_is_noted():
    r = fd("def f(x: int) -> str:\n    '''Returns a non-negative integer.'''\n")
    assert ranges(r) == [] and has_note(r, "return type is str")


# -- odd inputs ---------------------------------------------------------------------------------

def test_empty_description():
    r = formalize_description("")
    assert r.claims == () and r.signature is None and has_note(r, "nothing to formalize")


def test_non_utf8_bytes_description():
    r = formalize_description(b"Return the count modulo 7.\xff\n\n>>> f(1)\n1\n")
    assert ranges(r) == [(0, 6)] and eqs(r) == {"f(1)": from_python(1)}
    assert has_note(r, "not valid UTF-8")


def test_surrogates_and_nul_do_not_crash():
    r = formalize_description("def f(x: int) -> int:\udcff\x00\n    '''>>> f(1)\n    1'''\n")
    assert isinstance(r, DescFormalization)


def test_crlf_line_numbers():
    r = formalize_description("Doc.\r\n\r\n>>> f(2)\r\n4\r\n", entry_point="f", line_offset=5)
    [c] = examples(r)
    assert c.loc.line == 8 and c.expect.value == from_python(4)


@settings(max_examples=200, deadline=None)
@given(st.lists(st.sampled_from([
    "def f(a: int) -> int:", "    '''", '"""', ">>> f(1)", "... 2)", "3", "[1,", " 2]", "", "Input: a = 1",
    "Output: 2", "Return the answer modulo 10^9 + 7.", "f(1) returns 2", "Traceback (most recent call last):",
    "ValueError: x", "Returns:", "  a non-negative integer", "Example 1:", "x mod 2", "```", "\udcff", "(((",
]), max_size=14), st.text(max_size=30))
def test_never_raises(lines, noise):
    r = formalize_description("\n".join(lines) + noise, entry_point="f")
    assert isinstance(r, DescFormalization)
    assert [c.id for c in r.claims] == [f"D{i}" for i in range(1, len(r.claims) + 1)]


# -- the LiveCodeBench descriptions (read-only shared data) --------------------------------------

def test_livecodebench_descriptions(shared_lcb):
    seen = {}
    for name in ("conflicting.json", "oneoff.json"):
        for t in json.loads((shared_lcb / name).read_text(encoding="utf-8"))["tasks"]:
            seen.setdefault(t["task_id"], t)
    n_doctests = n_examples = n_ranges = 0
    for tid, t in seen.items():
        r = formalize_description(t["description"], path=tid, entry_point=t["entry_point"])
        prompts = [ln for ln in t["description"].splitlines()
                   if ln.strip().startswith(f">>> {t['entry_point']}(")]
        assert len(examples(r)) == len(prompts), (tid, r.notes)
        n_doctests += len(prompts)
        n_examples += len(examples(r))
        for c in r.claims:
            if c.kind is ClaimKind.result_range:
                n_ranges += 1
                assert r.signature.returns == INT and c.lo == 0
                assert "modulo" in c.text and c.hi + 1 in (998244353, 10**9 + 7), (tid, c.text)
                assert all(tc["expected"] <= c.hi for tc in t["original_tests"])
    assert n_doctests == n_examples >= 258
    assert n_ranges >= 25


def test_a_hedged_worked_example_is_not_a_requirement():
    from specguard.formalize.description import formalize_description
    df = formalize_description("f(2) returns 4 (roughly).\n", path="d", entry_point="f")
    assert not [c for c in df.claims if c.kind.value == "example"]
    assert any("observed, not required" in n or "roughly" in n for n in df.notes)
    df = formalize_description("f(2) returns 4, f(3) returns 9.\n", path="d", entry_point="f")
    assert len([c for c in df.claims if c.kind.value == "example"]) == 2


# -- issue 12 item 6: worked-example forms and the counts -----------------------------------

@pytest.mark.parametrize("line, call, value", [
    ("will_fly([3], 5) \u279e True", "will_fly([3], 5)", True),
    ("will_fly([1, 2], 5) ==> False", "will_fly([1, 2], 5)", False),
    ("will_fly([1, 2], 3)==>True", "will_fly([1, 2], 3)", True),
    ("will_fly([4], 5) = True", "will_fly([4], 5)", True),
    ("will_fly([5], 5)   # returns True", "will_fly([5], 5)", True),
    ("will_fly([6], 5) # => False", "will_fly([6], 5)", False),
    ("will_fly([7], 5) => true", "will_fly([7], 5)", True),
    ("will_fly([8], 5) -> false", "will_fly([8], 5)", False),
])
def test_arrow_and_equals_example_lines(line, call, value):
    """#12.6: `f(x) ➞ v`, `f(x) ==> v` (not `==` then `> v`), `f(x) = v`, `# => v` comments and
    lowercase true/false after an arrow are worked examples."""
    r = fd(f'''\
        def will_fly(q, w):
            """Whether the object q flies under the weight limit w.

            {line}
            """
        ''')
    assert eqs(r) == {call: from_python(value)}
    assert r.examples_seen == 1 and r.examples_read == 1


def test_for_sentence_worked_examples():
    """#12.6: "For lst = [...] the output should be v" and several bindings, by parameter name."""
    r = fd('''\
        def f(s, c):
            """Delete the characters of c from s.

            For s = "abcde", c = "ae", the result should be ('bcd', False)
            For c = "b" and s = "abc" the result should be ('ac', False).
            """
        ''')
    assert eqs(r) == {"f('abcde', 'ae')": from_python(("bcd", False)), "f('abc', 'b')": from_python(("ac", False))}
    one = fd('''\
        def g(lst):
            """Sum of squares.
            For lst = [1,2,3] the output should be 14
            For lst = []  the output should be 0
            For N = 1000, the sum of digits will be 1 the output should be "1".
            """
        ''')
    assert eqs(one) == {"g([1, 2, 3])": from_python(14), "g([])": from_python(0)}
    assert one.examples_seen == 3 and one.examples_read == 2
    assert has_note(one, "'For x = ...' sentence not in the form")


def test_doctest_comparison_without_output_line():
    """#12.6: `>>> f(x) == v` followed by a blank line or another prompt (the `True` left out)."""
    r = fd('''\
        def count(xs):
            """Count them.

            >>> count([]) == 0
            >>> count([1, 2]) == 2

            """
        ''')
    assert eqs(r) == {"count([])": from_python(0), "count([1, 2])": from_python(2)}


def test_doctest_session_bindings_are_used():
    """#12.6: a name bound to a literal on an earlier `>>>` line is that value in later calls;
    a rebinding replaces it, a call that may mutate it forgets it."""
    r = fd('''\
        def f(xs, k):
            """Something.

            >>> k = 2
            >>> f([1], k)
            3
            >>> k = 5
            >>> f([1], k)
            6
            >>> xs = [1, 2]
            >>> f(xs, 1)
            4
            >>> f(xs, 2)
            5
            """
        ''')
    assert eqs(r) == {"f([1], 2)": from_python(3), "f([1], 5)": from_python(6), "f([1, 2], 1)": from_python(4)}
    # after `f(xs, 1)`, `xs` holds what that call left in it (argstate.py), not [1, 2]
    assert has_note(r, "a result name and another call of f on one line")


@pytest.mark.parametrize("ret, src, out, expected", [
    ("list[int]", "list(f(3))", "[1, 2, 3]", [1, 2, 3]),
    ("tuple", "tuple(f(3))", "(1, 2)", (1, 2)),
    ("int", "print(f(3))", "7", 7),
    ("str", "print(f(3))", "abc", "abc"),
    ("list[str]", "print(f(3))", "['a', 'b']", ["a", "b"]),
])
def test_wrapped_doctest_calls_read_when_exact(ret, src, out, expected):
    """#12.6: `>>> list(f(x))` / `>>> print(f(x))` read as f(x) == v where the annotation makes the
    observation exact (list of a list, print of an int/str/container)."""
    r = fd(f'''\
        def f(n) -> {ret}:
            """Something.

            >>> {src}
            {out}
            """
        ''')
    assert eqs(r) == {"f(3)": from_python(expected)}
    assert r.examples_seen == 1 and r.examples_read == 1


def test_counts_of_statements():
    """#12.8: statements seen/read: the return annotation and a stated bound."""
    r = fd('''\
        def f(n) -> int:
            """Returns a non-negative integer.  The answer modulo p is asked."""
        ''')
    assert r.statements_seen >= 2 and r.statements_read == 2
    assert fd("Nothing here.").examples_seen == 0


def test_doctest_session_argument_state_and_rebinding():
    """`>>> f(xs)` then `>>> xs`: what the call left in `xs` (argstate.py); `xs` bound anew to a
    literal is that literal again, not the earlier state."""
    r = fd('''\
        def f(xs):
            """Sort in place.

            >>> xs = [3, 1]
            >>> f(xs)
            >>> xs
            [1, 3]
            >>> xs = [2, 1]
            >>> f(xs)
            >>> xs
            [1, 2]
            """
        ''')
    assert eqs(r) == {"f([3, 1])": from_python(None), "args[0] after f([3, 1])": from_python([1, 3]),
                      "f([2, 1])": from_python(None), "args[0] after f([2, 1])": from_python([1, 2])}
