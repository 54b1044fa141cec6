"""Doctest sessions and worked examples read as Python sessions (issue 12, items 1, 6, 8):
what is read now, on shapes taken from real libraries' docstrings and HumanEval prompts."""

import textwrap

from specguard.formalize.description import formalize_description
from specguard.models import ClaimKind, ExpectKind


def fd(text: str, **kw):
    return formalize_description(textwrap.dedent(text), **kw)


def obs(r) -> list[tuple[str, str]]:
    return sorted((c.call.source(), c.expect.expr if c.expect.kind is ExpectKind.obs else repr(c.expect.value))
                  for c in r.claims if c.kind is ClaimKind.example)


def test_map_reduce_session_with_lambdas_and_a_result_name():
    """more-itertools map_reduce: lambdas bound in the session, `result = f(...)`, then
    `sorted(result.items())`: one observation per example, both counted as read."""
    r = fd('''\
        def map_reduce(iterable, keyfunc, valuefunc=None, reducefunc=None):
            """Group.

                >>> keyfunc = lambda x: x.upper()
                >>> result = map_reduce('abbccc', keyfunc)
                >>> sorted(result.items())
                [('A', ['a']), ('B', ['b', 'b']), ('C', ['c', 'c', 'c'])]
                >>> valuefunc = lambda x: 1
                >>> result = map_reduce('abbccc', keyfunc, valuefunc, sum)
                >>> sorted(result.items())
                [('A', 1), ('B', 2), ('C', 3)]
            """
        ''')
    assert sorted(e for _, e in obs(r)) == [
        "sorted(result.items()) == [('A', 1), ('B', 2), ('C', 3)]",
        "sorted(result.items()) == [('A', ['a']), ('B', ['b', 'b']), ('C', ['c', 'c', 'c'])]"]
    assert r.examples_read == 2 and r.examples_seen >= 2


def test_partition_session_unpacks_the_result():
    """boltons partition: `nonempty, empty = partition([...])` then `>>> nonempty`."""
    r = fd('''\
        def partition(src, key=bool):
            """Split.

            >>> nonempty, empty = partition(['', '', 'hi', '', 'bye'])
            >>> nonempty
            ['hi', 'bye']
            """
        ''')
    assert obs(r) == [("partition(['', '', 'hi', '', 'bye'])", "list(result)[0] == ['hi', 'bye']")]


def test_for_loop_and_clean_def_do_not_end_the_session():
    """more-itertools derangements / sort_together: a printing loop and a plain `def` change no
    state, so the examples after them are read."""
    r = fd('''\
        def sort_together(iterables, key_list=(0,), key=None, reverse=False):
            """Sort.

                >>> for d in sort_together([(2, 1)]):
                ...    print(', '.join(map(str, d)))
                1, 2
                >>> def area(length, width):
                ...     return length * width
                >>> sort_together([(1, 2, 3), ('c', 'b', 'a')], reverse=True)
                [(3, 2, 1), ('a', 'b', 'c')]
            """
        ''')
    assert obs(r) == [("sort_together([(1, 2, 3), ('c', 'b', 'a')], reverse=True)",
                       "V([(3, 2, 1), ('a', 'b', 'c')])")]


def test_builtin_key_functions_are_values():
    """`key=str.lower`, `key=int`: function values with the test side's keys (one object each)."""
    r = fd('''\
        def unique(iterable, key=None):
            """Unique.

                >>> list(unique('ABBcCAD', str.casefold))
                ['A', 'B', 'c', 'D']
                >>> is_sorted(['1', '2'], key=int)
                True
            """
        ''')
    calls = [c.call for c in r.claims]
    assert [c.source() for c in calls] == ["unique('ABBcCAD', str.casefold)"]
    assert calls[0].args[1].val[0] == "builtin:str.casefold"


def test_ignore_exception_detail_reads_the_exception():
    """more-itertools one: `# doctest: +IGNORE_EXCEPTION_DETAIL` with a traceback: raises ValueError."""
    r = fd('''\
        def one(iterable):
            """One.

                >>> one([])  # doctest: +IGNORE_EXCEPTION_DETAIL
                Traceback (most recent call last):
                ...
                ValueError: too few items in iterable (expected 1)
            """
        ''')
    [c] = r.claims
    assert c.expect.kind is ExpectKind.raises and c.expect.exc == ("ValueError",)


def test_humaneval_worked_arithmetic():
    """HumanEval/67 and /151: `f(...) -> 19 - 5 - 6 = 8`, `f(...) == 1 + 9 + 0 + 0 = 10`."""
    r = fd('''\
        def fruit_distribution(s, n):
            """
            fruit_distribution("5 apples and 6 oranges", 19) ->19 - 5 - 6 = 8
            fruit_distribution("0 apples and 1 oranges",3) -> 3 - 0 - 1 = 2
            """
        ''')
    assert obs(r) == [("fruit_distribution('0 apples and 1 oranges', 3)", "V(2)"),
                      ("fruit_distribution('5 apples and 6 oranges', 19)", "V(8)")]
    r = fd('''\
        def double_the_difference(lst):
            """
            double_the_difference([1, 3, 2, 0]) == 1 + 9 + 0 + 0 = 10
            """
        ''')
    assert obs(r) == [("double_the_difference([1, 3, 2, 0])", "V(10)")]


def test_but_in_the_statement_keeps_the_examples():
    """HumanEval/33: "..., but sorted." states what the function does; its examples are read."""
    r = fd('''\
        def sort_third(l: list):
            """Returns l' equal to l except at indices divisible by three, whose values are
            those of l, but sorted.
            >>> sort_third([5, 6, 3, 4, 8, 9, 2])
            [2, 6, 3, 4, 8, 9, 5]
            """
        ''')
    assert obs(r) == [("sort_third([5, 6, 3, 4, 8, 9, 2])", "V([2, 6, 3, 4, 8, 9, 5])")]
