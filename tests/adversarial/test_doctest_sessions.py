"""Doctest sessions (issue 12, items 1, 6, 7): a docstring's examples are one Python session, read
in order.  Each trap below is a session whose naive reading (line by line, or with names read by
pattern) would give a false claim, hence a false conflict against a correct implementation."""

import textwrap

import pytest
from cli_run import check_files

from specguard.formalize.description import formalize_description
from specguard.models import ClaimKind, ExpectKind
from specguard.python.values import to_python



def fd(body: str, sig: str = "def f(xs):"):
    doc = textwrap.indent(textwrap.dedent(body).strip("\n"), "    ")
    return formalize_description(f"{sig}\n    '''Doc.\n\n{doc}\n    '''\n")


def claims(r) -> list[tuple[str, str]]:
    """(call, expectation) of every example claim: ``eq <repr>``, ``obs <expr>``, ``raises E``."""
    out = []
    for c in r.claims:
        if c.kind is not ClaimKind.example:
            continue
        e = c.expect
        if e.kind is ExpectKind.eq:
            out.append((c.call.source(), f"eq {to_python(e.value)!r}"))
        elif e.kind is ExpectKind.obs:
            out.append((c.call.source(), f"obs {e.expr}"))
        else:
            out.append((c.call.source(), f"{e.kind.value} {','.join(e.exc)}"))
    return sorted(out)


def has_note(r, text: str) -> bool:
    return any(text in n for n in r.notes)


# -- names between lines --------------------------------------------------------------------

def test_rebound_name_uses_the_latest_value():
    """#12.1: `xs = [1]`, then `xs = [2]`: `f(xs)` is f([2]), as the session runs it."""
    r = fd("""
        >>> xs = [1]
        >>> xs = [2]
        >>> f(xs)
        5
        """)
    assert claims(r) == [("f([2])", "eq 5")]


def test_rebound_result_name_is_the_later_call():
    """#12.1: `r = f([1])`, then `r = f([2])`: `>>> r` shows f([2])."""
    r = fd("""
        >>> r = f([1])
        >>> r = f([2])
        >>> r
        7
        """)
    assert claims(r) == [("f([2])", "eq 7")]


def test_result_name_rebound_to_something_else_is_not_the_call():
    """#12.1: `r = f([1])`, then `r = 3`: `>>> r + 1` is not an observation of f."""
    r = fd("""
        >>> r = f([1])
        >>> r = 3
        >>> r + 1
        4
        """)
    assert claims(r) == []


def test_function_rebound_in_the_session_ends_it():
    """#12.1: `f = lambda xs: 0` rebinds the name: the later `r = f(...)` / `>>> r` is about the lambda."""
    r = fd("""
        >>> r = f([1])
        >>> f = lambda xs: 0
        >>> r2 = f([1])
        >>> r2
        0
        >>> r
        3
        """)
    assert claims(r) == []
    assert has_note(r, "rebinds `f`")


def test_star_import_ends_the_session():
    """#12.1: `from m import *` may rebind f (and the builtins the examples use)."""
    r = fd("""
        >>> from somewhere import *
        >>> sorted(f([2, 1]))
        [1, 2]
        """)
    assert claims(r) == []


def test_builtin_shadowed_in_the_session_is_not_the_builtin():
    """#12.1: `sorted = reversed` in the session: `sorted(f(x))` is not Python's sorted."""
    r = fd("""
        >>> sorted = lambda it: [9]
        >>> sorted(f([2, 1]))
        [9]
        """)
    assert claims(r) == []


# -- mutation -------------------------------------------------------------------------------

def test_mutated_binding_is_not_its_literal():
    """#12.1: `xs = [1]`, `xs.append(2)`: `f(xs)` is not f([1])."""
    r = fd("""
        >>> xs = [1]
        >>> xs.append(2)
        >>> f(xs)
        3
        """)
    assert claims(r) == []


def test_argument_passed_to_the_function_may_be_changed_by_it():
    """#12.1: `f(xs)` may mutate xs: the next `f(xs)` is not f([1]) again."""
    r = fd("""
        >>> xs = [1]
        >>> f(xs)
        1
        >>> f(xs)
        2
        """)
    assert claims(r) == [("f([1])", "eq 1")]


def test_mutated_result_is_no_longer_the_result():
    """#12.1: `r = f([1])`, `r.append(5)`: `>>> r` shows the mutated list, not f([1])."""
    r = fd("""
        >>> r = f([1])
        >>> r.append(5)
        >>> r
        [1, 5]
        """)
    assert claims(r) == []


def test_result_aliased_then_mutated_is_not_read():
    """#12.1: `s = r` then `s.append(0)` changes r too: `>>> r` is not f's result any more."""
    r = fd("""
        >>> r = f([1])
        >>> s = r
        >>> s.append(0)
        >>> r
        [1, 0]
        """)
    assert claims(r) == []


def test_iterator_result_is_read_once():
    """#12.1: `it = f(x)`, `list(it)` twice: the second read sees a consumed iterator ([]), which
    is not what f returns; only the first is read."""
    r = fd("""
        >>> it = f([1, 2])
        >>> list(it)
        [1, 2]
        >>> list(it)
        []
        """)
    assert claims(r) == [("f([1, 2])", "obs list(result) == [1, 2]")]


def test_result_shown_as_plain_data_is_read_again():
    """#12.1: `>>> r` shows a list, so `len(r)` later reads the same value (a list is not consumed)."""
    r = fd("""
        >>> r = f([1, 2])
        >>> r
        [2, 1]
        >>> len(r)
        2
        """)
    assert claims(r) == [("f([1, 2])", "eq [2, 1]"), ("f([1, 2])", "obs len(result) == 2")]


def test_unpacked_parts_are_terms_of_one_call():
    """#12.1: `a, b = f(x)` binds list(R)[0] and list(R)[1] of one evaluation."""
    r = fd("""
        >>> a, b = f([3, 1])
        >>> a
        [1]
        >>> sorted(b)
        [3]
        """)
    assert claims(r) == [("f([3, 1])", "obs list(result)[0] == [1]"),
                         ("f([3, 1])", "obs sorted(list(result)[1]) == [3]")]


def test_two_evaluations_showing_different_observations_are_set_apart():
    """#12.1: two separate `r = f(x)` evaluations showing different things of one call (state kept
    between calls?) are not used, as two direct examples that disagree are not."""
    r = fd("""
        >>> r = f([1])
        >>> r
        1
        >>> s = f([1])
        >>> s
        2
        """)
    assert claims(r) == []
    assert has_note(r, "disagrees")


# -- state ----------------------------------------------------------------------------------

@pytest.mark.parametrize("line, why", [
    ("config.reset()", "the call of `config.reset`"),
    ("activate('fr')", "the call of `activate`"),
    ("import antigravity", "the import of `antigravity`"),
    ("os.environ['LANG'] = 'C'", "the write to"),
    ("with open('x') as fh: pass", "a `with` block"),
    ("g = lambda x: log.append(x)", "the call of `log.append`"),
])
def test_statement_that_may_change_state_ends_the_examples(line, why):
    """#12.1: unknown calls, imports of other modules, writes to shared objects, blocks: what follows
    is not read, with the line and the reason."""
    r = fd(f"""
        >>> f([1])
        1
        >>> {line}
        >>> f([2])
        2
        """)
    assert claims(r) == [("f([1])", "eq 1")]
    assert has_note(r, "may change state") and has_note(r, why)


def test_state_change_invalidates_an_unread_result():
    """#12.1: `it = f(x)` (maybe lazy), then an unknown call, then `list(it)`: the iterator may see
    the changed state, so it is not read."""
    r = fd("""
        >>> it = f([1])
        >>> patch_everything()
        >>> list(it)
        [1]
        """)
    assert claims(r) == []


def test_multi_statement_line_that_changes_state_counts():
    """#12.7: `>>> import os; os.environ['X'] = '1'` is two statements: not read, and still a state
    change for what follows."""
    r = fd("""
        >>> import os; os.environ['X'] = '1'
        >>> f([2])
        2
        """)
    assert claims(r) == []
    assert has_note(r, "may change state")


def test_pure_session_code_keeps_the_session():
    """#12.1: pure builtins, a loop that prints, a clean def, stdlib imports: later examples are read."""
    r = fd("""
        >>> from itertools import accumulate
        >>> for x in f([1, 2]):
        ...     print(', '.join(str(x)))
        1
        2
        >>> def area(a, b):
        ...     return a * b
        >>> f([3])
        3
        """, sig="def f(xs) -> int:")
    assert claims(r) == [("f([3])", "eq 3")]


# -- output printed vs returned -----------------------------------------------------------------

def test_printed_result_name_is_not_its_repr():
    """#12.1: `print(r)` shows str(r): `'a'` printed is `a`, so `print(r)` / `a` says nothing of
    r == 'a' by the repr rule, and it is not read as r == a-name."""
    r = fd("""
        >>> r = f(['a'])
        >>> print(r)
        a
        """)
    assert claims(r) == []


def test_traceback_after_a_result_name_is_not_the_functions_exception():
    """#12.1: `r = f(x)` then `>>> r[5]` raising IndexError: the function did not raise."""
    r = fd("""
        >>> r = f([1])
        >>> r[5]
        Traceback (most recent call last):
        IndexError: list index out of range
        """)
    assert not any(e.startswith("raises") for _, e in claims(r))


# -- directives (#12.1, the item 2 of the doctest half) -----------------------------------

def test_skipped_line_runs_nothing():
    """#12.1: `>>> xs = [9]  # doctest: +SKIP` is not run: xs stays [1]."""
    r = fd("""
        >>> xs = [1]
        >>> xs = [9]  # doctest: +SKIP
        >>> f(xs)
        2
        >>> f([5])  # doctest: +SKIP
        6
        """)
    assert claims(r) == [("f([1])", "eq 2")]
    assert has_note(r, "+SKIP")


@pytest.mark.parametrize("line, out", [
    ("f([1])  # doctest: +ELLIPSIS", "[1, ...]"),
    ("f([1])  # doctest: +NORMALIZE_WHITESPACE", "'a  b'"),
    ("f([1])  # doctest: +NORMALIZE_WHITESPACE", "'a b'"),
    ("f([1])  # doctest: +SOME_NEW_OPTION", "1"),
])
def test_directive_that_changes_the_comparison_is_not_read(line, out):
    """#12.1: `...` under ELLIPSIS is a wildcard; under NORMALIZE_WHITESPACE a string with
    whitespace may be another string; an unknown option is not guessed."""
    r = fd(f"""
        >>> {line}
        {out}
        """)
    assert claims(r) == []
    assert has_note(r, "directive")


def test_directives_that_keep_the_reading_exact():
    """#12.1: IGNORE_EXCEPTION_DETAIL (only the exception's name is read), ELLIPSIS with no `...`,
    NORMALIZE_WHITESPACE on a literal without strings of whitespace: read."""
    r = fd("""
        >>> f([])  # doctest: +IGNORE_EXCEPTION_DETAIL
        Traceback (most recent call last):
        mod.ValueError: detail that may differ
        >>> f([1])  # doctest: +ELLIPSIS
        [1]
        >>> f([2])  # doctest: +NORMALIZE_WHITESPACE
        [1,
           2]
        """)
    assert claims(r) == [("f([1])", "eq [1]"), ("f([2])", "eq [1, 2]"), ("f([])", "raises mod.ValueError")]


def test_ellipsis_in_a_result_names_output_is_not_read():
    """#12.1: `>>> r` shows `[1, ...]`: an Ellipsis (or a wildcard), not a literal result."""
    r = fd("""
        >>> r = f([1])
        >>> r
        [1, ...]
        """)
    assert claims(r) == []


# -- what the prose says about the session ------------------------------------------------------

def test_observed_session_output_is_not_required():
    """#12.1: prose presenting the session as observed ("Currently ... gives") keeps its claims out."""
    r = formalize_description(textwrap.dedent('''\
        def f(xs):
            """Doc.

            Currently this gives the wrong answer:

            >>> r = f([1])
            >>> r
            5
            """
        '''))
    assert claims(r) == []


# -- function values -----------------------------------------------------------------------------

def test_lambda_reading_a_free_name_is_not_a_value():
    """#12.1: `g = lambda x: x * k` reads `k`, which may change: f(xs, g) is not one fixed input."""
    r = fd("""
        >>> k = 2
        >>> g = lambda x: x * k
        >>> f([1], g)
        [2]
        """, sig="def f(xs, key):")
    assert claims(r) == []


def test_one_lambda_object_is_one_input_and_a_new_lambda_another():
    """#12.1: a lambda bound once is one object (same input in two lines); a second evaluation of the
    same text is another object, never the same input as the first."""
    r = fd("""
        >>> g = lambda x: -x
        >>> f([1, 2], g)
        [2, 1]
        >>> g = lambda x: -x
        >>> f([1, 2], g)
        [1, 2]
        """, sig="def f(xs, key):")
    assert len(claims(r)) == 2 and len({c.call.key() for c in r.claims}) == 2


# -- real CLI, real Lean ----------------------------------------------------------------------

def _check(tmp_path, desc: str, tests: str) -> dict:
    """``specguard check --json`` (tests/cli_run.py): the result."""
    return check_files(tmp_path, desc, tests, desc_name="desc.py", dedent=True)[1]


@pytest.mark.lean
def test_consumed_iterator_is_no_conflict_with_a_fresh_call(tmp_path, core):
    """#12.1: the session reads `list(it)` twice (`[1, 2]` then `[]`); a test asserting
    `list(f([1, 2])) == [1, 2]` is satisfiable with the docstring: no certified conflict."""
    r = _check(tmp_path, '''\
        def f(xs):
            """Iterate.

            >>> it = f([1, 2])
            >>> list(it)
            [1, 2]
            >>> list(it)
            []
            """
        ''', '''\
        from m import f

        def test_fresh():
            assert list(f([1, 2])) == [1, 2]
        ''')
    assert not (r["verdict"] == "conflict" and r["evidence"] == "certified"), r["reason"]


@pytest.mark.lean
def test_unpacked_part_against_a_test_is_a_certified_conflict(tmp_path, core):
    """#12.1: `a, b = f([3, 1])` / `>>> a` / `[1]` against a test `f([3, 1]) == ([3], [1])`: the kernel
    certifies the conflict (list(R)[0] is [1] and [3] at once)."""
    r = _check(tmp_path, '''\
        def f(xs):
            """Split.

            >>> a, b = f([3, 1])
            >>> a
            [1]
            """
        ''', '''\
        from m import f

        def test_first():
            assert f([3, 1]) == ([3], [1])
        ''')
    assert r["verdict"] == "conflict" and r["evidence"] == "certified", r["reason"]


# -- worked-example prose (#12.6) ---------------------------------------------------------------

def test_but_this_gives_is_still_observed():
    """#12.6: "but this gives:" before an example presents it as observed: not used (a "but" inside
    the statement of what the function does is not such a presentation)."""
    r = formalize_description(textwrap.dedent('''\
        def f(xs):
            """Sort the values at even indices, but keep the others.

            But this gives:

            >>> f([3, 1, 2])
            [3, 1, 2]
            """
        '''))
    assert claims(r) == []
    r = formalize_description(textwrap.dedent('''\
        def f(xs):
            """Keep the values at odd indices, but sorted.
            >>> f([3, 1, 2])
            [2, 1, 3]
            """
        '''))
    assert claims(r) == [("f([3, 1, 2])", "eq [2, 1, 3]")]


@pytest.mark.parametrize("line", [
    "f(19) -> 19 - 5 - 6 = 9",          # the arithmetic does not give the stated number
    "f(19) -> 19 - 5 - 6 = 8 * 2",      # more arithmetic after it
    "f(19) -> 19 - 5 - 6 = 8.5",
    "f(19) -> 2 ^ 3 = 8",               # `^`: a power to a human, XOR in Python
])
def test_worked_arithmetic_that_does_not_pin_the_result_is_not_read(line):
    """#12.6: `f(x) -> 19 - 5 - 6 = 8` is read as 8 only when the integer arithmetic gives exactly
    the stated integer and nothing follows it."""
    r = formalize_description(f"Return it.\n{line}\n", entry_point="f")
    assert claims(r) == []


@pytest.mark.parametrize("line", [
    "sorted([2, 1], key=patch_everything)",     # a callback of unknown code
    "print(SHARED)",                           # its __str__ may run anything
    "f([0], key=config.reset)",                 # the function under test may call it
])
def test_unknown_object_passed_to_a_known_call_may_change_state(line):
    """#12.1: a name the session does not own, passed to a builtin, a pure function or the function
    itself, may be called (or have its special methods run): what follows is not read."""
    r = fd(f"""
        >>> f([1])
        1
        >>> {line}
        >>> f([2])
        2
        """, sig="def f(xs, key=None):")
    assert ("f([2])", "eq 2") not in claims(r)
    assert has_note(r, "passed to a call")


def test_statements_of_one_line_run_in_order():
    """#12.1: `xs = [1]; xs.append(2)` binds then mutates: xs is not [1] afterwards; `k = 2; k = 3`
    leaves k == 3; `xs += [1]` extends in place (not a rebinding to a new literal)."""
    r = fd("""
        >>> xs = [1]; xs.append(2)
        >>> f(xs)
        3
        >>> k = 2; k = 3
        >>> f(k)
        4
        >>> ys = [1]
        >>> zs = ys
        >>> ys += [5]
        >>> f(zs)
        6
        """)
    assert claims(r) == [("f(3)", "eq 4")]
