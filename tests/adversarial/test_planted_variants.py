"""Planted conflicts of real test suites (#12 targets, benchmarks/reallib): the causes that left
them uncertified, each through the real CLI (and `verify` where a certificate is written), and a
trap per loosened rule that must stay inconclusive."""

from __future__ import annotations


import pytest
from cli_run import check_files, verify_out

pytestmark = pytest.mark.lean

DESC = 'def f(xs):\n    """Items of xs."""\n'


def certified(r) -> bool:
    return r["verdict"] == "conflict" and r["evidence"] == "certified"


def verify(tmp_path, desc_name: str = "description.md") -> None:
    assert verify_out(tmp_path, desc_name)["valid"]


def test_repeated_observation_is_certified(tmp_path, core):
    """#12.2/#12.3: `[y for y in f([1, 2])] == [1, 2]` then `... == [2, 1]` (the same
    expression of the same exact call, two classes: observations, undefined => true, that never
    conflicted) is a certified test-vs-test conflict (twin clauses `Py.obsOut`), and `verify
    --inputs` re-derives it VALID."""
    tests = ("from m import f\n\ndef test_a():\n    assert [y for y in f([1, 2])] == [1, 2]\n"
             "    assert [y for y in f([1, 2])] == [2, 1]\n")
    rc, r = check_files(tmp_path, DESC, tests)
    assert rc == 1 and certified(r), r["reason"]
    assert "Py.obsOut" in (tmp_path / "out" / "tests.lean").read_text()
    verify(tmp_path)


def test_len_and_doctest_observations_are_certified(tmp_path, core):
    """#12.2: `len(f(x)) == 2` against `len(f(x)) == 3`, and a doctest `list(f([3]))` -> `[3]`
    against a test `list(f([3])) == [4]`: each pair a certified conflict."""
    tests = "from m import f\n\ndef test_a():\n    assert len(f([1])) == 2\n    assert len(f([1])) == 3\n"
    rc, r = check_files(tmp_path, DESC, tests)
    assert certified(r), r["reason"]
    d = tmp_path / "b"
    d.mkdir()
    desc = 'def f(xs):\n    """Items.\n\n    >>> list(f([3]))\n    [3]\n    """\n'
    rc, r = check_files(d, desc, "from m import f\n\ndef test_a():\n    assert list(f([3])) == [4]\n")
    assert certified(r) and r["reason"].startswith("description-vs-test"), r["reason"]


def test_consistent_observations_stay_open(tmp_path, core):
    """#12.2 trap: `list(f(x)) == [1, 2]` and `set(f(x)) == {2, 1}` (different expressions), and
    `list(f([1])) == [1]` with `list(f([2])) == [2]` (different inputs), are no conflict."""
    tests = ("from m import f\n\ndef test_a():\n    assert list(f([1, 2])) == [1, 2]\n"
             "    assert set(f([1, 2])) == {2, 1}\n    assert list(f([1])) == [1]\n    assert list(f([2])) == [2]\n")
    rc, r = check_files(tmp_path, DESC, tests)
    assert r["verdict"] != "conflict", r["reason"]


def test_documented_state_keeps_twins_apart(tmp_path, core):
    """#12 trap: with prose documenting state ('accumulates the items passed so far') the twin
    observations are a later call's legitimate other result: never certified."""
    desc = 'def f(xs):\n    """Accumulates the items passed so far and returns them."""\n'
    tests = ("from m import f\n\ndef test_a():\n    assert list(f([1])) == [1]\n"
             "    assert list(f([1])) == [1, 1]\n")
    rc, r = check_files(tmp_path, desc, tests)
    assert not certified(r), r["reason"]


def test_state_word_naming_other_code_is_no_state(tmp_path, core):
    """#12: 'the inverse of :func:`itertools.accumulate`' and `>>> from collections import Counter`
    name other code, not the function's state: the planted twins are certified."""
    desc = ('def f(xs):\n    """The inverse of :func:`itertools.accumulate`.\n\n'
            '    >>> from collections import Counter\n    >>> list(Counter("ab").values())\n    [1, 1]\n    """\n')
    tests = "from m import f\n\ndef test_a():\n    assert f([1]) == [1]\n    assert f([1]) == [2]\n"
    rc, r = check_files(tmp_path, desc, tests)
    assert certified(r), r["reason"]


def test_join_of_a_lazy_iterator_is_read(tmp_path, core):
    """#12.3: 'Returns a lazy iterator' read only through `''.join(f(x))`: the list(f(...)) model
    applies (join sees the items), iterator-ness is no object evidence, the twins are certified."""
    desc = 'def f(seqs):\n    """Interleave.\n\n    Returns a lazy iterator\n    """\n'
    tests = ("from m import f\n\ndef test_a():\n    assert ''.join(f(('ab', '12'))) == 'a1b2'\n"
             "    assert ''.join(f(('ab', '12'))) == 'a1b2x'\n")
    rc, r = check_files(tmp_path, desc, tests)
    assert certified(r), r["reason"]
    verify(tmp_path)


def test_iterator_of_objects_stays_objects(tmp_path, core):
    """#12 trap: 'Returns an iterator of Point objects': the items may be objects with their own
    `==`, so the twins are not certified."""
    desc = 'def f(xs):\n    """Returns an iterator of Point objects, one per item."""\n'
    tests = ("from m import f\n\ndef test_a():\n    assert list(f([1])) == [1]\n"
             "    assert list(f([1])) == [2]\n")
    rc, r = check_files(tmp_path, desc, tests)
    assert not certified(r), r["reason"]


def test_result_names_are_local_to_their_function(tmp_path, core):
    """#12 object evidence: `r = f(1)` in one test and `r.peek()` on another test's `r` (a
    different local) is no evidence about f's results; in the same function it is (trap)."""
    other = ("from m import f, g\n\ndef test_a():\n    r = f([1])\n    assert r == [1]\n    assert f([1]) == [2]\n\n"
             "def test_b():\n    r = g([1])\n    r.peek()\n")
    rc, r = check_files(tmp_path, DESC, other)
    assert certified(r), r["reason"]
    d = tmp_path / "same"
    d.mkdir()
    same = ("from m import f\n\ndef test_a():\n    r = f([1])\n    r.peek()\n\n"
            "def test_b():\n    assert f([1]) == [1]\n    assert f([1]) == [2]\n")
    rc, r = check_files(d, DESC, same)
    assert not certified(r), r["reason"]


def test_printed_output_is_no_object_repr(tmp_path, core):
    """#12 object evidence: `>>> print(f('d'))` showing `d()` is str(result) (a str prints so),
    no object repr: the twins are certified; `>>> f('d')` showing `Point(1)` is one (trap)."""
    desc = 'def f(name):\n    """Call text.\n\n    >>> print(f("func"))\n    func(1, 2)\n    """\n'
    tests = "from m import f\n\ndef test_a():\n    assert f('d') == 'd()'\n    assert f('d') == 'd()x'\n"
    rc, r = check_files(tmp_path, desc, tests)
    assert certified(r), r["reason"]
    d = tmp_path / "repr"
    d.mkdir()
    desc = 'def f(name):\n    """Call text.\n\n    >>> f("func")\n    Point(1)\n    """\n'
    rc, r = check_files(d, desc, tests)
    assert not certified(r), r["reason"]
