"""Formalization layer, objects and state (issue 13, items 3 and 4): where an object's state may
legitimately differ between two observations that look alike, or where `==` may be the class's
own, no conflict is certified.  Each trap is built so that reading the two observations as the
same input (or as plain data) would certify a conflict.  Real CLI, real files, real Lean kernel."""

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent.parent
pytestmark = pytest.mark.lean

STACK = '''class Stack:
    """A last-in first-out stack of items."""

    def __init__(self, items=()):
        ...

    def push(self, x):
        """Put x on top."""

    def pop(self):
        """Remove and return the top item."""
'''


def check(tmp_path, tests: str, desc: str = STACK, *extra):
    d = tmp_path / "desc.py"
    t = tmp_path / "test_stack.py"
    d.write_text(desc)
    t.write_text(tests)
    env = dict(os.environ, PYTHONPATH=str(ROOT))
    p = subprocess.run([sys.executable, "-m", "specguard", "check", "--description", str(d), "--tests", str(t),
                        "--out", str(tmp_path / "out"), "--json", *extra],
                       capture_output=True, text=True, cwd=tmp_path, env=env, timeout=300)
    assert p.returncode in (0, 1, 2), p.stdout + p.stderr
    return p.returncode, json.loads(p.stdout)


def certified(r) -> bool:
    return r["verdict"] == "conflict" and r["evidence"] == "certified"


def reasons(r) -> str:
    return "\n".join(u["reason"] for u in r["unsupported"])


def no_conflict(tmp_path, tests: str, why: str, desc: str = STACK) -> dict:
    code, r = check(tmp_path, tests, desc)
    assert not certified(r), r["reason"]
    assert code != 1
    assert why in reasons(r) + "\n".join(r["assumptions"]), reasons(r)
    return r


def test_the_naive_reading_would_conflict(tmp_path):
    """#13.2 (control for the traps below): two fresh objects with the same history expected to
    give different results: a certified test-vs-test conflict."""
    code, r = check(tmp_path, "from stack import Stack\n\n"
                              "def test_a():\n    s = Stack()\n    s.push(1)\n    assert s.pop() == 1\n\n"
                              "def test_b():\n    s = Stack()\n    s.push(1)\n    assert s.pop() == 2\n")
    assert code == 1 and certified(r), r["reason"]


def test_repeated_calls_are_different_inputs(tmp_path):
    """#13.1: `s.pop() == 2` then `s.pop() == 1` on one object: the second call has a longer
    history, so the two assertions are not about the same input (no conflict)."""
    code, r = check(tmp_path, "from stack import Stack\n\n"
                              "def test_a():\n    s = Stack()\n    s.push(1)\n    s.push(2)\n"
                              "    assert s.pop() == 2\n    assert s.pop() == 1\n    assert len(s) == 0\n")
    assert not certified(r) and code != 1
    assert len(r["tests"]) == 3 and not r["unsupported"]


def test_module_level_object(tmp_path):
    """#13.3: a module-level object is shared by the tests (its history depends on which ran
    before): unsupported."""
    no_conflict(tmp_path, "from stack import Stack\n\nS = Stack()\n\n"
                          "def test_a():\n    S.push(1)\n    assert S.pop() == 1\n\n"
                          "def test_b():\n    S.push(1)\n    assert S.pop() == 2\n", "call made for its effect")


def test_class_attribute_of_the_test_class(tmp_path):
    """#13.3: an object held by the test class (a class attribute) is shared by its tests."""
    no_conflict(tmp_path, "import unittest\nfrom stack import Stack\n\nclass TestS(unittest.TestCase):\n"
                          "    s = Stack()\n\n"
                          "    def test_a(self):\n        self.s.push(1)\n        self.assertEqual(self.s.pop(), 1)\n\n"
                          "    def test_b(self):\n        self.s.push(1)\n        self.assertEqual(self.s.pop(), 2)\n",
                "`self.s.pop`")


def test_setupclass_object(tmp_path):
    """#13.3: an object built in `setUpClass` is shared by the class's tests."""
    no_conflict(tmp_path, "import unittest\nfrom stack import Stack\n\nclass TestS(unittest.TestCase):\n"
                          "    @classmethod\n    def setUpClass(cls):\n        cls.s = Stack()\n\n"
                          "    def test_a(self):\n        self.s.push(1)\n        self.assertEqual(self.s.pop(), 1)\n\n"
                          "    def test_b(self):\n        self.s.push(1)\n        self.assertEqual(self.s.pop(), 2)\n",
                "test object")


@pytest.mark.parametrize("scope", ["module", "class", "session"])
def test_fixture_of_a_wider_scope(tmp_path, scope):
    """#13.3: a fixture of module/class/session scope gives every test the same object."""
    no_conflict(tmp_path, f"import pytest\nfrom stack import Stack\n\n@pytest.fixture(scope={scope!r})\n"
                          "def st():\n    return Stack()\n\n"
                          "def test_a(st):\n    st.push(1)\n    assert st.pop() == 1\n\n"
                          "def test_b(st):\n    st.push(1)\n    assert st.pop() == 2\n", "`st`")


def test_fixture_requested_by_another_fixture(tmp_path):
    """#13.3: a function-scoped fixture that another fixture also requests may be changed by it
    before the test sees it."""
    no_conflict(tmp_path, "import pytest\nfrom stack import Stack\n\n@pytest.fixture\ndef st():\n"
                          "    return Stack()\n\n@pytest.fixture\ndef filled(st):\n    st.push(2)\n    return 0\n\n"
                          "def test_a(st):\n    st.push(1)\n    assert st.pop() == 1\n\n"
                          "def test_b(st, filled):\n    st.push(1)\n    assert st.pop() == 2\n", "`st`")


def test_aliased_object(tmp_path):
    """#13.3: `t = s` then calls through `t`: the history of `s` is not followed."""
    no_conflict(tmp_path, "from stack import Stack\n\n"
                          "def test_a():\n    s = Stack()\n    t = s\n    t.push(1)\n    assert s.pop() == 1\n\n"
                          "def test_b():\n    s = Stack()\n    t = s\n    t.push(2)\n    assert s.pop() == 2\n",
                "may change or share it")


def test_object_passed_to_other_code(tmp_path):
    """#13.3: an object handed to a function (of the test file or imported) may be changed by it."""
    no_conflict(tmp_path, "from stack import Stack\nfrom helpers import fill, fill_more\n\n"
                          "def test_a():\n    s = Stack()\n    fill(s)\n    assert s.pop() == 1\n\n"
                          "def test_b():\n    s = Stack()\n    fill_more(s)\n    assert s.pop() == 2\n",
                "call made for its effect")


def test_object_stored_in_a_container(tmp_path):
    """#13.3: an object stored in a list is changed through the list."""
    no_conflict(tmp_path, "from stack import Stack\n\n"
                          "def test_a():\n    s = Stack()\n    box = [s]\n    box[0].push(1)\n    assert s.pop() == 1\n\n"
                          "def test_b():\n    s = Stack()\n    box = [s]\n    box[0].push(2)\n    assert s.pop() == 2\n",
                "may change or share it")


def test_object_given_a_mutable_value_the_test_changes(tmp_path):
    """#13.3: `Stack(data)` then `data.append(...)`: the object may keep `data`."""
    no_conflict(tmp_path, "from stack import Stack\n\n"
                          "def test_a():\n    data = [1]\n    s = Stack(data)\n    data.append(2)\n"
                          "    assert s.pop() == 2\n\n"
                          "def test_b():\n    s = Stack([1])\n    assert s.pop() == 1\n",
                "which may be changed")


def test_returned_value_changed_by_the_test(tmp_path):
    """#13.3: a method's result may be the object's own list: changing it changes the object."""
    no_conflict(tmp_path, "from stack import Stack\n\n"
                          "def test_a():\n    s = Stack([1])\n    r = s.items()\n    r.append(5)\n    assert s.pop() == 5\n\n"
                          "def test_b():\n    s = Stack([1])\n    r = s.items()\n    assert s.pop() == 1\n",
                "it may be the object's own value")


def test_call_on_a_result_of_a_method(tmp_path):
    """#13.3: `s.top_node().set(2)`: calls on results of method calls are not followed."""
    no_conflict(tmp_path, "from stack import Stack\n\n"
                          "def test_a():\n    s = Stack([1])\n    s.top_node().set(2)\n    assert s.pop() == 2\n\n"
                          "def test_b():\n    s = Stack([1])\n    s.top_node().set(3)\n    assert s.pop() == 3\n",
                "calls on results of method calls")


def test_call_under_a_condition(tmp_path):
    """#13.3: a call in an `if` (or after `or`) may not run: the history is unknown after it."""
    no_conflict(tmp_path, "from stack import Stack\nimport config\n\n"
                          "def test_a():\n    s = Stack()\n    if config.FLAG:\n        s.push(1)\n    assert len(s) == 1\n\n"
                          "def test_b():\n    s = Stack()\n    assert config.FLAG or s.push(1)\n    assert len(s) == 0\n\n"
                          "def test_c():\n    s = Stack()\n    assert len(s) == 2\n",
                "whose effect is not followed")


def test_class_state_changed_by_a_test(tmp_path):
    """#13.3: a test that calls the class's own method (`Stack.set_limit(1)`) may change what every
    object of the class does, in later tests too."""
    no_conflict(tmp_path, "from stack import Stack\n\n"
                          "def test_limit():\n    Stack.set_limit(1)\n\n"
                          "def test_a():\n    s = Stack()\n    s.push(1)\n    assert len(s) == 1\n\n"
                          "def test_b():\n    s = Stack()\n    s.push(1)\n    assert len(s) == 0\n",
                "has its class's own method called")


def test_time_dependent_object(tmp_path):
    """#13.3: a cache with a time-to-live: `time.sleep` between the same calls changes the result;
    after a statement that uses time (randomness, threads) an object's observations are unsupported."""
    desc = "class Cache:\n    \"\"\"A key-value store.\"\"\"\n\n    def put(self, k, v): ...\n\n    def get(self, k): ...\n"
    no_conflict(tmp_path, "import time\nfrom cache import Cache\n\n"
                          "def test_fresh():\n    c = Cache(1)\n    c.put('a', 1)\n    assert c.get('a') == 1\n\n"
                          "def test_expired():\n    c = Cache(1)\n    c.put('a', 1)\n    time.sleep(2)\n"
                          "    assert c.get('a') is None\n", "follows a use of `time`", desc)


def test_description_says_results_vary(tmp_path):
    """#13.3: a description that says a method returns a random element: observations of one
    history expected to differ are set apart, with the reason in the assumptions."""
    desc = "class Bag:\n    \"\"\"A bag of items; pick() returns a random item.\"\"\"\n\n    def pick(self): ...\n"
    no_conflict(tmp_path, "from bag import Bag\n\n"
                          "def test_a():\n    b = Bag([1, 2])\n    assert b.pick() == 1\n\n"
                          "def test_b():\n    b = Bag([1, 2])\n    assert b.pick() == 2\n", "random", desc)


def test_setup_that_calls_a_helper(tmp_path):
    """#13.3: a `setUp` that does more than build objects (calls a helper on `self`) is not
    followed: its objects are not read."""
    no_conflict(tmp_path, "import unittest\nfrom stack import Stack\n\nclass TestS(unittest.TestCase):\n"
                          "    def setUp(self):\n        self.s = Stack()\n        self.prepare()\n\n"
                          "    def prepare(self):\n        self.s.push(7)\n\n"
                          "    def test_a(self):\n        self.assertEqual(self.s.pop(), 1)\n\n"
                          "    def test_b(self):\n        self.assertEqual(self.s.pop(), 2)\n", "`self.s.pop`")


def test_test_method_reaching_self(tmp_path):
    """#13.3: a test method that calls another method of the test object may change `self.s`."""
    no_conflict(tmp_path, "import unittest\nfrom stack import Stack\n\nclass TestS(unittest.TestCase):\n"
                          "    def setUp(self):\n        self.s = Stack()\n\n"
                          "    def bump(self):\n        self.s.push(9)\n\n"
                          "    def test_a(self):\n        self.bump()\n        self.assertEqual(self.s.pop(), 9)\n\n"
                          "    def test_b(self):\n        self.assertEqual(self.s.pop(), 2)\n\n"
                          "    def test_c(self):\n        self.bump()\n        self.assertEqual(self.s.pop(), 3)\n",
                "may be reached through `self`")


def test_custom_equality_documented(tmp_path):
    """#13.4: a description documenting `__eq__`: `p.scaled(2) == [2, 4]` and `== (2, 4)` may
    both hold (the class's own equality): no certificate rests on == with plain data."""
    desc = ("class Vec:\n    \"\"\"A vector; two vectors are equal (`__eq__`) when their coordinates are.\"\"\"\n\n"
            "    def scaled(self, k): ...\n")
    no_conflict(tmp_path, "from vec import Vec\n\n"
                          "def test_a():\n    v = Vec(1, 2)\n    assert v.scaled(2) == [2, 4]\n\n"
                          "def test_b():\n    v = Vec(1, 2)\n    assert v.scaled(2) == (2, 4)\n", "custom equality", desc)


def test_object_valued_method_result(tmp_path):
    """#13.4: `s.copy()` may be a Stack (its own ==): compared with a list and a tuple, no
    conflict."""
    no_conflict(tmp_path, "from stack import Stack\n\n"
                          "def test_a():\n    s = Stack([1])\n    assert s.copy() == [1]\n\n"
                          "def test_b():\n    s = Stack([1])\n    assert s.copy() == (1,)\n", "may return an object")


def test_object_compared_itself(tmp_path):
    """#13.4: `s == [1]` runs the class's own `__eq__`: it is an observation of its own (the input
    holds the value compared with), never plain-data equality of the object, so `s == [1]` and
    `s == (1,)` both holding is no conflict (a list-like class may equal both)."""
    code, r = check(tmp_path, "from stack import Stack\n\n"
                              "def test_a():\n    s = Stack([1])\n    assert s == [1]\n\n"
                              "def test_b():\n    s = Stack([1])\n    assert s == (1,)\n")
    assert not certified(r) and code != 1, r["reason"]
    assert r["coverage"]["assertions_read"] == 2, reasons(r)


def test_doctest_session_object_shown_by_repr(tmp_path):
    """#13.4: a doctest line whose output is an object's repr (`>>> s.push(1)` showing
    `Stack([1])`): the method returned an object, the session's later lines are not read."""
    desc = ('class Stack:\n    """A stack.\n\n    >>> s = Stack()\n    >>> s.push(1)\n    Stack([1])\n'
            '    >>> s.pop()\n    1\n    """\n')
    code, r = check(tmp_path, "from stack import Stack\n\n"
                              "def test_a():\n    s = Stack()\n    s.push(1)\n    assert s.pop() == 5\n", desc)
    assert not certified(r)
    assert not r["claims"]


def test_class_patched_at_module_level(tmp_path):
    """#13.3: `mock.patch.object(Stack, 'pop', ...)` started at module level changes every object of
    the class: observations of its objects are unsupported."""
    no_conflict(tmp_path, "from unittest import mock\nfrom stack import Stack\n\n"
                          "_p = mock.patch.object(Stack, 'pop', return_value=2)\n\n"
                          "def test_a():\n    s = Stack()\n    s.push(1)\n    assert s.pop() == 1\n\n"
                          "def test_b():\n    s = Stack()\n    s.push(1)\n    assert s.pop() == 2\n",
                "has its class handed to")


# -- comparisons, try blocks, operators, returned functions (this session) ---------------------------

def test_comparison_of_one_history_conflicts(tmp_path):
    """#13.2 (control): `s == [1]` is an observation of its own: the same history expected to
    give a truthy and a falsy comparison is a certified conflict."""
    code, r = check(tmp_path, "from stack import Stack\n\n"
                              "def test_a():\n    s = Stack([1])\n    assert s == [1]\n\n"
                              "def test_b():\n    s = Stack([1])\n    assert not s == [1]\n")
    assert code == 1 and certified(r), r["reason"]


def test_try_whose_handler_catches_the_failure(tmp_path):
    """#13.3: `try: s.pop(); assert False / except Exception: pass`: the handler catches the
    AssertionError too, so it is no raises assertion (and `s`'s history is not followed)."""
    no_conflict(tmp_path, "from stack import Stack\n\n"
                          "def test_a():\n    s = Stack()\n    try:\n        s.pop()\n        assert False\n"
                          "    except Exception:\n        pass\n    assert s.pop() == 1\n\n"
                          "def test_b():\n    s = Stack()\n    s.pop()\n    assert s.pop() == 2\n",
                "inside the `try`")


def test_operator_result_shown_or_discarded_are_different_events(tmp_path):
    """#13.3: `repr(s - 1)` may run code a discarded `s - 1` does not (the result's repr): two
    inputs, no conflict; a result bound to a name is another object: not followed."""
    no_conflict(tmp_path, "from stack import Stack\n\n"
                          "def test_a():\n    s = Stack([1])\n    s - 1\n    assert s.pop() == 1\n\n"
                          "def test_b():\n    s = Stack([1])\n    repr(s - 1)\n    assert s.pop() == 2\n\n"
                          "def test_c():\n    s = Stack([1])\n    t = s - 1\n    assert s.pop() == 3\n",
                "objects an operator builds are not followed")


def test_documented_identity_is_honoured(tmp_path):
    """#13.4: "compared by identity" documents identity: no certificate rests on plain-data `==`
    (a key function named `identity` does not count: tests/test_objects_reading.py)."""
    desc = STACK.replace('"""A last-in first-out stack of items."""',
                         '"""A last-in first-out stack of items; its items are compared by identity."""')
    code, r = check(tmp_path, "from stack import Stack\n\n"
                              "def test_a():\n    s = Stack([1])\n    assert s.pop() == [1]\n\n"
                              "def test_b():\n    s = Stack([1])\n    assert s.pop() == [2]\n", desc)
    assert not certified(r) and code != 1, r["reason"]
    assert any("identity" in a for a in r["assumptions"]) or "identity" in "\n".join(r["notes"]), r["notes"]


def test_view_shown_by_repr_keeps_the_object_guard(tmp_path):
    """#13.4: a doctest showing `s.items()` as `dict_items([...])` documents a view, not plain
    data: the `items` guard stays (no certificate on `==` with a list)."""
    desc = ('class Stack:\n    """A stack.\n\n    >>> s = Stack()\n    >>> s.items()\n    dict_items([])\n'
            '    """\n\n    def items(self):\n        """The items."""\n')
    code, r = check(tmp_path, "from stack import Stack\n\n"
                              "def test_a():\n    s = Stack()\n    assert s.items() == []\n\n"
                              "def test_b():\n    s = Stack()\n    assert s.items() == [1]\n", desc)
    assert not certified(r) and code != 1, r["reason"]


ADDER = '''def adder(n):
    """Return a function adding n to its argument."""
'''
COUNTER = '''def make_counter(start):
    """Return a counter function: each call increments the count and returns it."""
'''


def test_returned_function_of_one_history_conflicts(tmp_path):
    """#13.2 (control): a function the function under test returned, called with the same
    history in two tests and expected to give two results: a certified conflict."""
    code, r = check(tmp_path, "from stack import adder\n\n"
                              "def test_a():\n    g = adder(2)\n    assert g(3) == 5\n\n"
                              "def test_b():\n    assert adder(2)(3) == 6\n", ADDER, "--entry-point", "adder")
    assert code == 1 and certified(r), r["reason"]
    assert any("returned by the function under test is a fresh object" in a for a in r["assumptions"])


def test_returned_function_with_documented_state(tmp_path):
    """#13.3: the description documents state (a counter): the functions it returns may share it
    (or its cache), so one history expected to give two results is set apart, never a conflict."""
    code, r = check(tmp_path, "from stack import make_counter\n\n"
                              "def test_a():\n    c = make_counter(0)\n    assert c() == 1\n\n"
                              "def test_b():\n    assert make_counter(0)() == 2\n", COUNTER,
                    "--entry-point", "make_counter")
    assert not certified(r) and code != 1, r["reason"]


def test_returned_function_used_otherwise(tmp_path):
    """#13.3: a returned function whose attribute is set (or that is handed on) before it is
    called: its later calls are not observations of a known history."""
    code, r = check(tmp_path, "from stack import adder\n\n"
                              "def test_a():\n    g = adder(2)\n    g.offset = 1\n    assert g(3) == 6\n\n"
                              "def test_b():\n    assert adder(2)(3) == 5\n", ADDER, "--entry-point", "adder")
    assert not certified(r) and code != 1, r["reason"]
    assert "is used otherwise than called" in reasons(r), reasons(r)
