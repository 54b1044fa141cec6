"""Concrete values where the test code is concrete (#12.1, #12.7): builtin calls, methods of exact
values, in-place mutations of local lists/dicts/sets and loops over fresh iterables, and the
guards that keep them sound (aliasing, unknown methods, the function under test mutating its
argument, a loop whose iterable changes, shadowed builtins, set and dict order).

Reader-level cases run the real test reader on real files; two end-to-end cases run the real CLI
and the Lean kernel."""

from __future__ import annotations

import textwrap

import pytest
from cli_run import check_files

from specguard.formalize.tests import formalize_tests
from specguard.models import TestSource as Source
from specguard.python.values import py_repr



def read(code: str, extra: dict[str, str] | None = None):
    sources = [Source(kind="python", path="test_x.py", text=textwrap.dedent(code))]
    for path, text in (extra or {}).items():
        sources.insert(0, Source(kind="python", path=path, text=textwrap.dedent(text)))
    tf = formalize_tests(sources, "f")
    demands = {d.loc.line: "f(" + ", ".join(py_repr(a) for a in d.call.args) + ")" for d in tf.demands}
    reasons = {u.loc.line: u.reason for u in tf.unsupported}
    return demands, reasons


def test_builtin_calls_are_evaluated_exactly():
    """#12.1: `list(range(3))`, `''.join(...)`, `sorted`, `len`, `str`, `'ab' * 2`, a generator
    expression and `zip` as an argument are exact argument values."""
    d, r = read("""
        from m import f
        def test_a():
            assert f(list(range(3)), ''.join(str(i) for i in range(3))) == 1
            assert f(sorted([3, 1, 2], reverse=True), len('abc'), 'ab' * 2) == 2
            assert f('a,b'.split(','), max([1, 1.0]), min(2, 2.0)) == 3
            assert f(zip([1, 2], 'ab')) == 4
    """)
    assert d[4] == "f([0, 1, 2], '012')"
    assert d[5] == "f([3, 2, 1], 3, 'abab')"
    assert d[6] == "f(['a', 'b'], 1, 2)", "the first of equal extremes, as CPython returns"
    assert not set(r) - {7}
    assert 7 in r and "zip" in r[7], "a zip object is not a list iterator: a function can tell them apart"


def test_shadowed_builtin_is_not_evaluated():
    """#12.7: a builtin rebound in the file (`sorted = ...`, `from x import len`, a parameter, a
    star import, a patch of `builtins`) is not evaluated as the builtin."""
    cases = {
        "sorted = lambda xs: [9]\n": "sorted([2, 1])",
        "from helpers import len\n": "len('ab')",
        "from helpers import *\n": "len('ab')",
        "import builtins\nbuiltins.sorted = reversed\n": "sorted([2, 1])",
    }
    for prelude, arg in cases.items():
        d, r = read("from m import f\n" + prelude + f"def test_a():\n    assert f({arg}) == 1\n")
        assert not d, (prelude, d)
        assert r, prelude
    d, r = read("""
        from m import f
        def test_a(len=lambda s: 0):
            assert f(len('ab')) == 1
    """)
    assert not d and "not a literal" in r[4]


def test_builtin_shadowed_in_a_conftest():
    """#12.7: a conftest.py beside the tests that patches `builtins` makes the builtins unknown."""
    d, _ = read("""
        from m import f
        def test_a():
            assert f(sorted([2, 1])) == 1
    """, {"conftest.py": "import builtins\nbuiltins.sorted = lambda xs: xs\n"})
    assert not d


def test_set_iteration_order_is_not_guessed():
    """#12.7: `list({3, 1, 2})` is `[1, 2, 3]` in CPython (hash order), not the source order, and
    str sets change with PYTHONHASHSEED: iterating a set where order matters is unsupported;
    order-free consumers (`sorted`, `len`, `set`) are exact."""
    d, r = read("""
        from m import f
        def test_a():
            assert f(list({3, 1, 2})) == 1
            assert f([x for x in {'a', 'b'}]) == 1
            assert f(str({'a', 'b'})) == 1
            assert f(sorted({3, 1, 2}), len({1, 2}), set({2, 1})) == 2
            for x in {'a', 'b'}:
                assert f(x) == 3
    """)
    assert set(r) == {4, 5, 6, 9}
    assert "order of a set" in r[4] and "order of a set" in r[9]
    assert d[7] == "f([1, 2, 3], 2, {2, 1})"


def test_dict_order_is_insertion_order():
    """#12.7: a dict built by `dict(zip(...))`, `d[k] = v` and `update` iterates in insertion
    order with an existing key keeping its place, as in CPython."""
    d, r = read("""
        from m import f
        def test_a():
            d = dict(zip('ba', [1, 2]))
            d['c'] = 3
            d['b'] = 4
            d.update(a=5)
            assert f(d) == 1
        def test_b():
            d = dict(zip('ba', [1, 2]))
            d['c'] = 3
            d['b'] = 4
            assert f(list(d)) == 1
    """)
    assert d[8] == "f({'b': 4, 'a': 5, 'c': 3})"
    assert d[13] == "f(['b', 'a', 'c'])"


def test_mutation_through_an_alias_invalidates_the_alias():
    """#12.1 (mutation): after `m = l; l.append(2)`, `l` is exact and `m` (the same object) is
    not a literal any more; `l.append(l)` or appending a named list would share objects and is
    not tracked."""
    d, r = read("""
        from m import f
        def test_a():
            l = [1]
            m = l
            l.append(2)
            assert f(l) == 1
        def test_b():
            l = [1]
            m = l
            l.append(2)
            assert f(m) == 1
        def test_c():
            l = [1]
            k = [0]
            l.append(k)
            assert f(l) == 1
    """)
    assert d[7] == "f([1, 2])"
    assert "may have been mutated at line 11" in r[12]
    assert "may have been mutated at line 16" in r[17]


def test_unknown_method_is_a_mutation():
    """#12.7: a method the model does not know (`l.frobnicate(2)`, `l.sort(key=len)`) may
    change the object: the value is dropped with the reason."""
    d, r = read("""
        from m import f
        def test_a():
            l = [3, 1]
            l.frobnicate(2)
            assert f(l) == 1
        def test_b():
            l = ['bb', 'a']
            l.sort(key=len)
            assert f(l) == 1
    """)
    assert not d
    assert "may have been mutated at line 5" in r[6]
    assert "may have been mutated at line 9" in r[10]


def test_function_under_test_may_mutate_its_argument():
    """#12.7: after `f(l)`, `l` is not exact any more (the function may have changed it), even if
    the test then appends to it; a result bound before a later mutation of its argument is
    dropped too."""
    d, r = read("""
        from m import f
        def test_a():
            l = [1]
            assert f(l) == 1
            l.append(2)
            assert f(l) == 2
        def test_b():
            l = [1]
            r = f(l)
            l.append(2)
            assert r == 1
    """)
    assert d == {5: "f([1])"}
    # `l` held what `f` left in it (argstate.py) until the append changed it
    assert "may have been mutated at line 6" in r[7]
    assert "`r`" in r[12]


def test_loop_iterable_changed_in_its_body():
    """#3 of the brief (loops, #12.1): `for x in l: l.append(x)` iterates the live list (it
    would not even end): not unrolled; `for i in range(len(l))` iterates a range built once, so
    it is unrolled while the body changes `l`, with `l` exact at each iteration."""
    d, r = read("""
        from m import f
        def test_a():
            l = [1, 2]
            for x in l:
                l.append(x)
                assert f(x) == 1
        def test_b():
            l = [1, 2]
            for i in range(len(l)):
                l.append(i)
                assert f(l[i], len(l)) == 1
                assert f(l) == 2
    """)
    assert 7 in r and ("uses its iterable" in r[7] or "change its iterable" in r[7])
    assert d[12] == "f(1, 3)"
    assert d[13] == "f([1, 2, 0])", "after the first `f(l)`, `l` may have been changed by `f`"
    assert "may have been mutated at line 11" in r[12]    # the append after `f(l)` of the first pass
    tf = formalize_tests([Source(kind="python", path="test_x.py", text=textwrap.dedent("""
        from m import f
        def test_b():
            l = [1, 2]
            for i in range(len(l)):
                l.append(i)
                assert f(l[i], len(l)) == 1
    """))], "f")
    assert ["f(" + ", ".join(py_repr(a) for a in x.call.args) + ")" for x in tf.demands] == ["f(1, 3)", "f(2, 4)"]


def test_fresh_iterable_of_mutable_items_keeps_the_old_checks():
    """#12.7: `for x in list(xs)` copies the list but shares its items: when an item is mutated
    through `xs` in the body, a later iteration would see the changed item, so such a loop is not
    unrolled."""
    d, r = read("""
        from m import f
        def test_a():
            xs = [[1], [2]]
            for x in list(xs):
                xs[1].append(9)
                assert f(x) == 1
    """)
    assert not d and 7 in r


def test_non_ascii_case_methods_are_not_evaluated():
    """#12.7: `'Ǆ'.lower()` depends on the Unicode database of the Python version running the
    tests; only ASCII text is case-mapped (explicit-separator methods are exact on any text)."""
    d, r = read("""
        from m import f
        def test_a():
            assert f('ǅa'.lower()) == 1
            assert f('Ab'.lower(), 'é,ü'.split(','), ' x '.strip()) == 2
    """)
    assert 4 in r and "Unicode" in r[4]
    assert d[5] == "f('ab', ['é', 'ü'], 'x')"


def test_platform_dependent_calls_are_not_evaluated():
    """#12.7: `os.path.expanduser` reads the environment, and float `sum` (its rounding changed in
    Python 3.12) is not exact: unsupported with the reason.  (`os.path.join` is now computed as
    posixpath computes it, under a stated POSIX assumption: tests/adversarial/test_exact_values.py.)"""
    d, r = read("""
        import os
        from m import f
        def test_a():
            assert f(os.path.expanduser('~')) == 1
            assert f(sum([0.1, 0.2])) == 1
    """)
    assert not d
    assert "os.path.expanduser" in r[5] and "environment" in r[5]
    assert "float" in r[6]


def check(tmp_path, desc: str, tests: str):
    """``specguard check --json`` (tests/cli_run.py): the result."""
    return check_files(tmp_path, desc, tests)[1]


@pytest.mark.lean
def test_concrete_arguments_end_to_end(tmp_path, core):
    """#12.1: `f(list(range(3)))` after `l.append` is the same call as the doctest's
    `f([0, 1, 2])`: a different expected value is a certified conflict; the planted set-order
    case (`list({2, 1})` is `[1, 2]` in CPython, the doctest says `f([2, 1])`) is not one."""
    desc = "Sums.\n\n>>> f([0, 1, 2])\n3\n>>> f([2, 1])\n7\n"
    r = check(tmp_path, desc, "from m import f\n\ndef test_a():\n    l = list(range(2))\n    l.append(2)\n"
                              "    assert f(l) == 4\n")
    assert r["verdict"] == "conflict" and r["evidence"] == "certified", r["reason"]
    r = check(tmp_path, desc, "from m import f\n\ndef test_a():\n    assert f(list({2, 1})) == 3\n")
    assert r["verdict"] != "conflict", r["reason"]


def test_stdlib_functions_resolved_through_single_imports():
    """#12.1: `combinations`/`product` imported once from `itertools`, `string.digits` and
    `math.comb` are exact; the same names rebound (a second import, an assignment, a local, a
    store into the module) are not evaluated."""
    d, r = read("""
        from itertools import combinations, product
        import string, math
        from m import f
        def test_a():
            for i, c in enumerate(combinations('abc', 2)):
                assert f(c) == i
            assert f(list(product('ab', repeat=2)), string.digits[:3], math.comb(5, 2)) == 9
    """)
    assert d[7] == "f(('b', 'c'))"
    assert d[8] == "f([('a', 'a'), ('a', 'b'), ('b', 'a'), ('b', 'b')], '012', 10)"
    d, r = read("""
        from itertools import permutations
        from m import f
        def test_a():
            assert f(permutations([1, 2])) == 1
            assert f([permutations([1, 2])]) == 1
    """)
    assert not d and "iterator" in r[5] and "iterator" in r[6], "an itertools object is not a list iterator"
    for rebind in ("from mylib import product\n", "product = lambda *a, **k: [(9,)]\n",
                   "import itertools\nitertools.product = None\n"):
        d, r = read("from itertools import product\nimport itertools\nfrom m import f\n" + rebind +
                    "def test_a():\n    assert f(list(product('ab', repeat=2))) == 1\n")
        assert not d, rebind
    d, r = read("""
        from itertools import product
        from m import f
        def test_a():
            product = lambda *a, **k: []
            assert f(list(product('ab'))) == 1
    """)
    assert not d


def test_combinatorics_of_mutable_items_are_refused():
    """#12.7: `product([[1]], repeat=2)` puts the same list object in two places of one tuple:
    an exact value cannot say so, so it is not evaluated."""
    d, r = read("""
        from itertools import product
        from m import f
        def test_a():
            assert f(list(product([[1]], repeat=2))) == 1
    """)
    assert not d and "share" in r[5]


def test_setdefault_result_and_mutation():
    """#12.1 (mutation): `x = d.setdefault(k, v)` binds the exact value returned and changes `d`
    as CPython does (an existing key keeps its value); `x = l.pop()` of a list item binds only
    when the item is immutable."""
    d, r = read("""
        from m import f
        def test_a():
            seen = {}
            a = seen.setdefault('k', 1)
            b = seen.setdefault('k', 2)
            assert f(a, b, seen) == 0
        def test_b():
            l = [1, [2]]
            x = l.pop()
            assert f(x) == 1
    """)
    assert d[7] == "f(1, 1, {'k': 1})"
    assert 11 in r and not any(line == 11 for line in d)


# -- resource bombs in concrete test code (red-team pass, 2026-12-02) ------------------------------

BOMBS = {
    # one 10**7-character string shared by 10**6 list elements: 10**13 characters of Lean text
    "shared_string": '["a" * 10**7] * 10**6',
    "shared_in_tuple": '("a" * 10**7,) * 10**6',
    # a new 10**7-character string per element: 10 GB built before the size was checked
    "fresh_strings": '{i: "a" * 10**7 for i in range(1000)}',
    # each inner comprehension had a budget of its own: 10**8 steps
    "nested_comprehension": "[[j for j in range(10**4)] for i in range(10**4)]",
    # the replaced text was built (10**9 characters) before its length was checked
    "replace_growth": '("a" * 1000).replace("a", "a" * 1000).replace("a", "a" * 1000)',
}


def test_value_bombs_are_refused_in_bounded_time_and_memory(tmp_path):
    """Red team: test arguments that are small as code and huge as values, each refused with its
    reason by the real CLI in bounded time and under 3 GB (before: 60 s+ and 7.5 GB
    for `fresh_strings`, 60 s+ for the shared strings and the nested comprehension, 2 GB for the
    replace chain).  No Lean run is needed: nothing is formalized."""
    import json, os, resource, subprocess, sys, time
    from cli_run import ROOT
    body = "".join(f"\n\ndef test_{name}():\n    assert f({expr}) == 1\n" for name, expr in BOMBS.items())
    (tmp_path / "test_task.py").write_text("from m import f\n" + body)
    (tmp_path / "description.md").write_text("Return 1.\n")
    start = time.monotonic()
    p = subprocess.run([sys.executable, "-m", "specguard", "check", "--description", "description.md", "--tests",
                        "test_task.py", "--entry-point", "f", "--out", "out", "--json"], capture_output=True, text=True,
                       cwd=tmp_path, env=dict(os.environ, PYTHONPATH=str(ROOT)), timeout=120)
    seconds = time.monotonic() - start
    assert p.returncode == 2 and "Traceback" not in p.stderr, p.stdout + p.stderr
    reasons = {u["loc"]["line"]: u["reason"] for u in json.loads(p.stdout)["unsupported"]}
    lines = {name: 5 + 4 * i for i, name in enumerate(BOMBS)}
    assert "nodes is larger than the 10,000,000 limit" in reasons[lines["shared_string"]]
    assert "nodes is larger than the 10,000,000 limit" in reasons[lines["shared_in_tuple"]]
    assert "nodes is larger than the 10,000,000 limit" in reasons[lines["fresh_strings"]]
    assert "comprehension of more than 1,000,000 steps" in reasons[lines["nested_comprehension"]]
    assert "str of length 1,000,000,000 is longer than" in reasons[lines["replace_growth"]]
    assert seconds < 90, seconds            # the comprehension's 10**6 steps (before: 10**8)
    assert resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss < 3 << 20     # KB


def test_keyed_sort_and_extremes_are_refused_where_order_or_key_is_unknown():
    """#12 (rtgaps): `key=`/`default=` of sorted/min/max are evaluated only where CPython's answer
    is fixed: a set's items of equal keys come in hash order (refused), a rebound `len` or a
    lambda key is not evaluated, `max(a, b, default=..)` raises TypeError (refused)."""
    d, r = read("""
        from m import f
        def test_a():
            assert f(sorted(['ab', 'c', 'de'], key=len, reverse=True)) == 1
            assert f(max(['ab', 'c', 'de'], key=len), min([], default=0)) == 2
            assert f(sorted({'ab', 'cd'}, key=len)) == 3
            assert f(max({'ab', 'cd'}, key=len)) == 4
            assert f(max(['a'], key=lambda s: s)) == 5
            assert f(max(1, 2, default=0)) == 6
    """)
    assert d[4] == "f(['ab', 'de', 'c'])"
    assert d[5] == "f('ab', 0)"
    assert "set" in r[6] and "set" in r[7]
    assert 7 not in d and 8 not in d and 9 not in d
    d, r = read("""
        from m import f
        len = abs
        def test_a():
            assert f(max(['ab', 'c'], key=len)) == 1
    """)
    assert 5 not in d
