"""Names bound to terms over a result, unpacking, `type()` tests and `list(f(x))` raising
(#12.1, #12.2, #12.3): what they read, and the conflicts the kernel certifies through them (the
real CLI and Lean)."""

from __future__ import annotations


import pytest
from cli_run import check_files

from specguard.formalize.tests import formalize_tests
from specguard.models import TestSource



def read(tests: str):
    tf = formalize_tests([TestSource(kind="python", path="test_t.py", text=tests)], "f")
    return ({d.text: (d.call.source(), d.expect.source()) for d in tf.demands},
            {u.text: u.reason for u in tf.unsupported})


def check(tmp_path, desc: str, tests: str):
    """``specguard check --json`` (tests/cli_run.py): the result."""
    return check_files(tmp_path, desc, tests)[1]


def test_names_read_as_the_inline_observation():
    """#12.2: `actual = list(f(x))` then `assertEqual(actual, expected)` is `list(f(x)) == v`;
    `n = len(f(x))`, `first = f(x)[0]`, `s = sorted(f(x))` likewise; an unpacking is its items
    with Python's length check; a starred target the slice."""
    d, u = read("import unittest\nfrom m import f\n\nclass T(unittest.TestCase):\n"
                "    def test_a(self):\n        actual = list(f(3))\n        expected = [0, 1, 2]\n"
                "        self.assertEqual(actual, expected)\n"
                "        n = len(f(2))\n        self.assertEqual(n, 2)\n"
                "        first = f(4)[0]\n        assert first == 'a'\n"
                "        s = sorted(f(5))\n        assert s[-1] == 9\n"
                "        a, b = f(6)\n        assert b == 'y'\n"
                "        head, *tail = f(7)\n        assert tail == [2]\n")
    assert d["self.assertEqual(actual, expected)"] == ("f(3)", "satisfies `list(result) == [0, 1, 2]`")
    assert d["self.assertEqual(n, 2)"] == ("f(2)", "satisfies `len(result) == 2`")
    assert d["assert first == 'a'"] == ("f(4)", "satisfies `result[0] == 'a'`")
    assert d["assert s[-1] == 9"] == ("f(5)", "satisfies `sorted(result)[-1] == 9`")
    assert d["assert b == 'y'"] == ("f(6)", "satisfies `len(list(result)) == 2 and (list(result)[1] == 'y')`")
    assert d["assert tail == [2]"] == ("f(7)", "satisfies `len(list(result)) >= 1 and (list(result)[1:] == [2])`")
    assert not u


def test_type_tests_and_iterated_raises_are_read():
    """#12.2: `type(f(x)) is T` / `== T` / `in (T1, T2)` as isinstance; `with raises(E):
    list(f(x))` as "raises, or returns a value list() cannot iterate"."""
    d, u = read("import pytest\nfrom m import f\n\n"
                "def test_a():\n    assert type(f(1)) is dict\n    assert type(f(2)) in (int, float)\n\n"
                "def test_b():\n    with pytest.raises(ValueError):\n        list(f(0))\n\n"
                "def test_c():\n    pytest.raises(ValueError, lambda: tuple(f(-1)))\n")
    assert d["assert type(f(1)) is dict"] == ("f(1)", "isinstance of dict")
    assert d["assert type(f(2)) in (int, float)"] == ("f(2)", "isinstance of int/float")
    (raised,) = [v for k, v in d.items() if "list(f(0))" in k]
    assert raised == ("f(0)", "raises ValueError or returns a value list() cannot iterate")
    assert d["pytest.raises(ValueError, lambda: tuple(f(-1)))"][0] == "f(-1)"
    assert not u


@pytest.mark.lean
def test_planted_value_through_a_name_is_certified(tmp_path, core):
    """#12.2: the more-itertools shape `actual = list(f(x))`, `self.assertEqual(actual, expected)`
    against a doctest `list(f(x))` -> another list is a certified conflict (modelled as
    list(f(...)), where `with raises(E): list(f(y))` is exactly "raises")."""
    desc = "Windows.\n\n>>> list(f(3))\n[0, 1, 2]\n>>> list(f(0))\n[]\n"
    tests = ("import unittest\nfrom m import f\n\nclass T(unittest.TestCase):\n"
             "    def test_a(self):\n        actual = list(f(3))\n        expected = [0, 1, 5]\n"
             "        self.assertEqual(actual, expected)\n")
    r = check(tmp_path, desc, tests)
    assert r["verdict"] == "conflict" and r["evidence"] == "certified", r["reason"]
    tests2 = ("import unittest\nfrom m import f\n\nclass T(unittest.TestCase):\n"
              "    def test_b(self):\n        with self.assertRaises(ValueError):\n            list(f(0))\n")
    (tmp_path / "b").mkdir()
    r = check(tmp_path / "b", desc, tests2)
    assert r["verdict"] == "conflict" and r["evidence"] == "certified", r["reason"]


@pytest.mark.lean
def test_iterated_raises_in_the_plain_model(tmp_path, core):
    """#12.2: outside the list(f(...)) model, `list(f(x))` raising only says f raised or returned
    None or a number: against `f(0) == [1]` a certified conflict, against `f(1) is None` none."""
    desc = "Items.\n"
    tests = ("import pytest\nfrom m import f\n\n"
             "def test_a():\n    assert f(0) == [1]\n    assert f(1) is None\n\n"
             "def test_b():\n    with pytest.raises(TypeError):\n        list(f(1))\n\n"
             "def test_c():\n    with pytest.raises(ValueError):\n        list(f(0))\n")
    r = check(tmp_path, desc, tests)
    assert r["verdict"] == "conflict" and r["evidence"] == "certified", r["reason"]
    lines = {i["loc"]["line"] for i in r["conflict"]["items"]}
    assert lines == {5, 13}, r["conflict"]
