"""Objects (issue 13, items 1 and 2): readings of observations whose values or arguments are not
plain literals, through the real CLI, real files and the real Lean kernel.

* a term input: ``len(T) == N`` of a fresh object's observation (``len(list(b.elements()))``) is
  an input of its own (the history, the observation and the term), so two readings of one history
  expecting different ints conflict (test vs test, and a doctest session's ``>>> len(...)`` vs a
  test), with the assumption stated (``objects.TERM_ASSUMPTION``) and ``verify --inputs`` VALID;
* a sentinel ``d = object()`` given to a method is an argument of its own, one per evaluation: the
  object's later observations are read (they were "not an exact value" before)."""

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from specguard.formalize import objects
from specguard.formalize.tests import formalize_tests
from specguard.models import TestSource

ROOT = Path(__file__).resolve().parent.parent

BAG = '''class Bag:
    """A bag (multiset) of items.

    >>> b = Bag()
    >>> b.add(1)
    >>> b.add(1)
    >>> len(list(b.elements()))
    2
    """

    def __init__(self, items=()):
        ...

    def add(self, x):
        """Put one copy of x in the bag."""

    def elements(self):
        """Iterate over the items, one per copy."""

    def count(self, x):
        """How many copies of x the bag holds."""
'''

BAG_PLAIN = BAG.replace("    >>> b = Bag()\n    >>> b.add(1)\n    >>> b.add(1)\n    >>> len(list(b.elements()))\n"
                        "    2\n", "")


def cli(*args, cwd: Path) -> subprocess.CompletedProcess:
    env = dict(os.environ, PYTHONPATH=str(ROOT))
    return subprocess.run([sys.executable, "-m", "specguard", *map(str, args)], capture_output=True, text=True,
                          cwd=str(cwd), env=env, timeout=300)


def check(d: Path, tests: str, desc: str = BAG) -> tuple[int, dict]:
    (d / "bag.py").write_text(desc)
    (d / "test_bag.py").write_text(tests)
    p = cli("check", "--description", d / "bag.py", "--tests", d / "test_bag.py", "--out", d / "out", "--json",
            cwd=d)
    assert p.returncode in (0, 1, 2), p.stdout + p.stderr
    return p.returncode, json.loads(p.stdout)


def certified(r: dict) -> bool:
    return r["verdict"] == "conflict" and r["evidence"] == "certified"


def read(code: str, target: str = "Bag"):
    return formalize_tests([TestSource(kind="python", path="test_bag.py", text=code)], target)


HISTORY = "    b = Bag()\n    b.add(1)\n    b.add(1)\n"


@pytest.mark.lean
def test_term_input_test_vs_test(tmp_path):
    """#13.2: `len(list(b.elements()))` after the same history expected to be 2 in one test and 3 in
    another: a certified test-vs-test conflict (before: two `obs` predicates, which never conflict),
    the statement spelled as written, the term assumption stated, and `verify --inputs` VALID."""
    code, r = check(tmp_path, "from bag import Bag\n\n"
                              f"def test_a():\n{HISTORY}    assert len(list(b.elements())) == 2\n\n"
                              f"def test_b():\n{HISTORY}    assert len(list(b.elements())) == 3\n", BAG_PLAIN)
    assert code == 1 and certified(r), r["reason"]
    assert r["conflict"]["kind"] == "test-vs-test"
    assert {i["statement"] for i in r["conflict"]["items"]} == {
        "s = Bag(); s.add(1); s.add(1); len(list(s.elements())) == 2",
        "s = Bag(); s.add(1); s.add(1); len(list(s.elements())) == 3"}
    assert objects.TERM_ASSUMPTION in r["assumptions"] and objects.ASSUMPTION in r["assumptions"]
    p = cli("verify", tmp_path / "out", "--json", "--inputs", tmp_path / "bag.py", tmp_path / "test_bag.py",
            cwd=tmp_path)
    rep = json.loads(p.stdout)
    assert p.returncode == 0 and rep["valid"], rep["reason"]


@pytest.mark.lean
def test_term_input_doctest_vs_test(tmp_path):
    """#13.2: the class docstring's session shows `len(list(b.elements()))` / `2` after two adds;
    the test expects 3 after the same history: a certified description-vs-test conflict."""
    code, r = check(tmp_path, f"from bag import Bag\n\ndef test_a():\n{HISTORY}    assert len(list(b.elements())) == 3\n")
    assert code == 1 and certified(r), r["reason"]
    assert r["conflict"]["kind"] == "description-vs-test"


@pytest.mark.lean
def test_term_input_keeps_the_observation_against_a_shown_value(tmp_path):
    """#13.2: a session showing `b.elements()` / `[1, 1]` and a test expecting
    `len(list(b.elements())) == 3` after the same history: still a certified conflict (the test's
    `obs` reading is kept beside the term input where the observation is read otherwise)."""
    desc = BAG.replace(">>> len(list(b.elements()))\n    2", ">>> b.elements()\n    [1, 1]")
    code, r = check(tmp_path, f"from bag import Bag\n\ndef test_a():\n{HISTORY}    assert len(list(b.elements())) == 3\n",
                    desc)
    assert code == 1 and certified(r), r["reason"]


def test_term_input_shape():
    """#13.1: what becomes a term input: `len(T) == N` of an observation read inline; not a result
    bound to a name earlier, not another builtin's value, not `len` compared otherwise."""
    tf = read("from bag import Bag\n\ndef test_a():\n" + HISTORY +
              "    assert len(list(b.elements())) == 2\n"
              "    assert sorted(b.elements()) == [1, 1]\n"
              "    assert len(list(b.elements())) > 1\n"
              "    r = b.elements()\n"
              "    assert len(list(r)) == 2\n")
    terms = [objects.term_call(d.call, d.expect) for d in tf.demands]
    assert [t is not None for t in terms] == [True, False, False, False], [d.text for d in tf.demands]
    call, expect = terms[0]
    assert call.target == "len(list(Bag.elements))" and expect.kind.value == "eq" and expect.value.val == 2
    # the term input is another input than the observation itself
    assert call.key() != tf.demands[0].call.key()


def test_sentinel_argument_is_read():
    """#13.1: `d = object()` given to the object: its later observations are read, each sentinel
    its own argument (two tests' sentinels differ, one sentinel is the same wherever it is used)."""
    tf = read("from bag import Bag\n\n"
              "def test_a():\n    b = Bag()\n    d = object()\n    b.add(d)\n    b.add(d)\n    assert b.count(d) == 2\n\n"
              "def test_b():\n    b = Bag()\n    d = object()\n    b.add(d)\n    b.add(d)\n    assert b.count(d) == 2\n")
    assert not tf.unsupported, [u.reason for u in tf.unsupported]
    a, b = tf.demands
    assert a.call.key() != b.call.key()
    ev = a.call.obj.history
    assert ev[0].args == ev[1].args == a.call.args      # one sentinel: one value in the whole test


def test_swallowing_try_keeps_the_history():
    """#13.1: `try: b.remove(5) / except KeyError: pass`: the call is an event whether it returned or
    raised, so the observation after it is read with it in the history (before: the object was
    lost in the `try`); a handler that does more, or a name bound by `as`, still loses it."""
    tf = read("from bag import Bag\n\n"
              "def test_a():\n    b = Bag()\n    try:\n        b.remove(5)\n    except (KeyError, ValueError):\n"
              "        pass\n    assert b.count(1) == 0\n\n"
              "def test_b():\n    b = Bag()\n    try:\n        b.remove(5)\n    except KeyError as e:\n"
              "        pass\n    assert b.count(1) == 0\n")
    (a,) = tf.demands
    assert a.call.source() == "s = Bag(); s.remove(5); s.count(1)"
    assert [u.loc.line for u in tf.unsupported] == [17], [u.reason for u in tf.unsupported]


@pytest.mark.lean
def test_implied_size_of_a_container_observation(tmp_path):
    """#13.2: `set(b.elements()) == {1}` in one test and `== {1, 99}` in another after the same
    history (two `obs` predicates, which never conflict): the sizes they imply (`len(set(...))`
    1 and 2, an input of its own) conflict, certified; the assertions themselves stay read."""
    code, r = check(tmp_path, "from bag import Bag\n\n"
                              f"def test_a():\n{HISTORY}    assert set(b.elements()) == {{1}}\n\n"
                              f"def test_b():\n{HISTORY}    assert set(b.elements()) == {{1, 99}}\n", BAG_PLAIN)
    assert code == 1 and certified(r), r["reason"]
    # the implied sizes, or (since the twin observations of kernel/obstwins.py) the two
    # observations themselves as twins: either core is a kernel-checked conflict of the two tests
    got = {i["statement"] for i in r["conflict"]["items"]}
    assert got in ({"s = Bag(); s.add(1); s.add(1); len(set(s.elements())) == 1",
                    "s = Bag(); s.add(1); s.add(1); len(set(s.elements())) == 2"},
                   {"s = Bag(); s.add(1); s.add(1); s.elements() satisfies `set(result) == {1}`",
                    "s = Bag(); s.add(1); s.add(1); s.elements() satisfies `set(result) == {1, 99}`"}), got
    assert len(r["tests"]) == 4


def test_tuple_of_observations_is_read_item_by_item():
    """#13.1: `(b.pop(), b.pop()) == (2, 1)` (and `[b.pop(), 5] == [1, 5]`): one demand per
    observation, in Python's order (the second pop has the first in its history); a tuple
    compared with a list (never equal) is not split."""
    tf = read("from bag import Bag\n\n"
              "def test_a():\n    b = Bag([1, 2])\n    assert (b.pop(), b.pop()) == (2, 1)\n\n"
              "def test_b():\n    b = Bag([1, 2])\n    assert [b.pop(), 5] == [1, 5]\n\n"
              "def test_c():\n    b = Bag([1, 2])\n    assert (b.pop(), b.pop()) == [2, 1]\n")
    got = [(d.call.source(), d.expect.value.val) for d in tf.demands]
    assert got == [("s = Bag([1, 2]); s.pop()", 2), ("s = Bag([1, 2]); s.pop(); s.pop()", 1),
                   ("s = Bag([1, 2]); s.pop()", 1)]
    assert [u.loc.line for u in tf.unsupported] == [13]
