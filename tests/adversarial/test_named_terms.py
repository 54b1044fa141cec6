"""Names bound to terms over a result (#12.1, #12.2, #12.7): `actual = list(f(x))`, `a, b = f(x)`,
`type(f(x)) is T`.  Each case here would be a false certificate if a name were read as the term it
was bound to after Python could have changed what it holds (a rebinding, a mutation through it or
an alias, an iterator consumed by an earlier reading), or if an unpacking or a `type()` test were
read as more than Python establishes."""

from __future__ import annotations


import pytest
from cli_run import check_files

pytestmark = pytest.mark.lean


def check(tmp_path, desc: str, tests: str):
    """``specguard check --json`` (tests/cli_run.py): (exit code, result)."""
    return check_files(tmp_path, desc, tests)


def unsupported(r) -> dict:
    return {u["text"]: u["reason"] for u in r["unsupported"]}


def statuses(r) -> dict:
    return {t["text"]: t["status"] for t in r["tests"]}


def test_rebound_or_mutated_names_are_not_the_term(tmp_path, core):
    """#12.2, #12.7: a name bound to `list(f(x))` and then rebound, mutated (directly, through an
    alias, or by passing it to a function), or kept over a later call, is not read as
    `list(f(x))`; nor is a module-level result (one object for all tests, which another test may
    change first: read before as `f(1) == [1, 2, 3]`): with a doctest `f(1)` -> `[1, 2]` none of
    these passing tests is a conflict."""
    desc = "Items.\n\n>>> f(1)\n[1, 2]\n"
    tests = ("from m import f, g\n\nM = list(f(1))\nR = f(1)\n\n"
             "def test_module_mutates():\n    M.append(3)\n    R.append(3)\n\n"
             "def test_module_reads():\n    assert M == [1, 2, 3]\n    assert R == [1, 2, 3]\n\n"
             "def test_rebound():\n    actual = list(f(1))\n    actual = [9]\n    assert actual == [9]\n\n"
             "def test_mutated():\n    actual = list(f(1))\n    actual.append(3)\n    assert actual == [1, 2, 3]\n\n"
             "def test_alias():\n    actual = sorted(f(1))\n    other = actual\n    other.append(3)\n"
             "    assert actual == [1, 2, 3]\n\n"
             "def test_passed():\n    actual = list(f(1))\n    g(actual)\n    assert actual == []\n\n"
             "def test_later_call():\n    first = f(1)[0]\n    g()\n    assert first == 7\n\n"
             "def test_augmented():\n    actual = list(f(1))\n    actual += [3]\n    assert actual == [1, 2, 3]\n\n"
             "def test_item_store():\n    actual = list(f(1))\n    actual[0] = 5\n    assert actual == [5, 2]\n")
    rc, r = check(tmp_path, desc, tests)
    assert r["verdict"] != "conflict", r["reason"]
    assert not any(s == "contradicted" for s in statuses(r).values())
    u = unsupported(r)
    for text in ("assert actual == [1, 2, 3]", "assert actual == []", "assert first == 7", "assert actual == [5, 2]",
                 "assert M == [1, 2, 3]", "assert R == [1, 2, 3]"):
        assert text in u, (text, u)


def test_consumed_iterator_read_twice(tmp_path, core):
    """#12.2, #12.7: `it = f(x)` may hold an iterator: `a = list(it)` consumes it, so `b =
    list(it)` is `[]` (not `list(f(x))`), nor is a second `list(it)` in the assertions, nor a
    name bound to `enumerate(f(x))` or a generator expression over it read twice; two items of
    one result may be one iterator (`a, b = f(x)`: consuming `a` may consume `b`), and an item of
    a list built from a result may be an iterator.  With a doctest `list(f(1))` -> `[1, 2]` and
    the fresh readings of `f(2)`, these passing tests are no conflict."""
    desc = "Items.\n\n>>> list(f(1))\n[1, 2]\n"
    tests = ("from m import f\n\n"
             "def test_names():\n    it = f(1)\n    a = list(it)\n    b = list(it)\n"
             "    assert a == [1, 2]\n    assert b == []\n\n"
             "def test_inline():\n    it = f(1)\n    assert list(it) == [1, 2]\n    assert list(it) == []\n\n"
             "def test_unpacked_then_read():\n    it = f(1)\n    x, y = it\n    assert list(it) == []\n\n"
             "def test_one_statement():\n    it = f(1)\n    assert list(it) == [1, 2] and list(it) == []\n\n"
             "def test_alias_consumed():\n    it = f(1)\n    other = it\n    assert sorted(other) == [1, 2]\n"
             "    assert list(it) == []\n\n"
             "def test_enumerate():\n    e = enumerate(f(1))\n    assert list(e) == [(0, 1), (1, 2)]\n"
             "    assert list(e) == []\n\n"
             "def test_genexp():\n    g = (x for x in f(1))\n    assert list(g) == [1, 2]\n    assert list(g) == []\n\n"
             "def test_items_share_one_iterator():\n    a, b = f(2)\n    assert list(a) == [1, 2]\n"
             "    assert list(b) == []\n\n"
             "def test_items_fresh():\n    a, b = f(2)\n    assert list(b) == [1, 2]\n\n"
             "def test_item_of_a_list_read_twice():\n    chunks = list(f(3))\n    assert list(chunks[0]) == [1]\n"
             "    assert list(chunks[0]) == []\n")
    rc, r = check(tmp_path, desc, tests)
    assert r["verdict"] != "conflict", r["reason"]
    assert not any(s == "contradicted" for s in statuses(r).values())
    u = unsupported(r)
    assert "assert b == []" in u and "assert list(it) == []" in u, u


def test_unpacking_an_unordered_result_says_nothing_about_order(tmp_path, core):
    """#12.2: `a, b = f(x)` iterates the result: on a dict (insertion order) or a set (no defined
    order) which item comes first is not modelled, so `a == 2` against a doctest `f(1)` ->
    `{1: 'a', 2: 'b'}` (a dict built the other way round) or `f(2)` -> `{1, 2}` is no conflict;
    on a str the items are its characters."""
    desc = "Items.\n\n>>> f(1)\n{1: 'a', 2: 'b'}\n>>> f(2)\n{1, 2}\n>>> f(3)\n'xy'\n"
    tests = ("from m import f\n\n"
             "def test_dict():\n    a, b = f(1)\n    assert a == 2\n\n"
             "def test_set():\n    a, b = f(2)\n    assert b == 1\n\n"
             "def test_str():\n    a, b = f(3)\n    assert a == 'x'\n\n"
             "def test_star():\n    a, *rest = f(1)\n    assert rest == [1]\n")
    rc, r = check(tmp_path, desc, tests)
    assert r["verdict"] != "conflict", r["reason"]
    assert not any(s == "contradicted" for s in statuses(r).values())


def test_unpacking_length_is_what_python_checks(tmp_path, core):
    """#12.2: `a, b = f(x)` raises unless the result has exactly two items: with a doctest `f(1)`
    -> `[1, 2, 3]`, `a, b = f(1); assert a == 1` cannot pass (a certified conflict on the
    length, which Python's unpacking checks), while `a, *rest = f(1)` with `rest == [2, 3]` is
    consistent."""
    desc = "Items.\n\n>>> f(1)\n[1, 2, 3]\n"
    tests = ("from m import f\n\n"
             "def test_star():\n    a, *rest = f(1)\n    assert rest == [2, 3]\n\n"
             "def test_two():\n    a, b = f(1)\n    assert a == 1\n")
    rc, r = check(tmp_path, desc, tests)
    st = statuses(r)
    assert st["assert rest == [2, 3]"] != "contradicted"
    assert r["verdict"] == "conflict" and r["evidence"] == "certified", r["reason"]
    assert st["assert a == 1"] == "contradicted"


def test_type_of_a_result_is_at_most_isinstance(tmp_path, core):
    """#12.2: `f(x) == 1` passes for 1.0 and True, so with it `type(f(x)) is float`, `type(f(x))
    == bool` and `type(f(x)) is int` (1) may all pass: read as isinstance (implied by the type
    test; 1, 1.0 and True are one ==-class), none is a conflict with the `==` tests; `type(...) is
    not T` and `type(...) != T` are not read (they are not isinstance)."""
    desc = "Kinds.\n"
    tests = ("from m import f\n\n"
             "def test_eq():\n    assert f(1) == 1\n    assert f(2) == True\n    assert f(3) == 0\n\n"
             "def test_a():\n    assert type(f(1)) is float\n\n"
             "def test_b():\n    assert type(f(2)) is int\n\n"
             "def test_c():\n    assert type(f(3)) == bool\n\n"
             "def test_d():\n    assert type(f(1)) is not int\n\n"
             "def test_e():\n    assert type(f(2)) != bool\n")
    rc, r = check(tmp_path, desc, tests)
    assert r["verdict"] != "conflict", r["reason"]
    assert not any(s == "contradicted" for s in statuses(r).values())
    u = unsupported(r)
    assert "assert type(f(1)) is not int" in u and "assert type(f(2)) != bool" in u, u
    assert "assert type(f(1)) is float" not in u, u


def test_an_item_chosen_by_min_is_not_a_new_container():
    """#12.2, #12.7: `m = min(f(x))` is an item of the result itself (it may be an iterator):
    iterating it consumes it, so a second `list(m)` is not read as `list(min(f(x)))`; `s =
    sorted(f(x))` is a new list, read any number of times."""
    from specguard.formalize.tests import formalize_tests
    from specguard.models import TestSource
    text = ("from m import f\n\ndef test_a():\n    m = min(f(1))\n    assert list(m) == [1]\n"
            "    assert list(m) == []\n    s = sorted(f(2))\n    assert list(s) == [1]\n    assert list(s) == [1]\n")
    tf = formalize_tests([TestSource(kind="python", path="test_t.py", text=text)], "f")
    read = [d.loc.line for d in tf.demands]
    assert read == [5, 8, 9], read
    assert [u.loc.line for u in tf.unsupported] == [6]
