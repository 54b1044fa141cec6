"""Formalization layer, objects (issue 13, item 3): traps for the readings of
tests/test_object_opaque_args.py, a term input (``len(list(b.elements())) == N`` as an input of its
own) and a sentinel argument (``d = object()``).  Each trap passes when run against a real
implementation (given in its docstring) yet reading it naively would certify a conflict; none may.
Real CLI, real files, real Lean kernel."""

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent.parent
pytestmark = pytest.mark.lean

BAG = '''class Bag:
    """A bag (multiset) of items."""

    def __init__(self, items=()):
        ...

    def add(self, x):
        """Put one copy of x in the bag."""

    def elements(self):
        """Iterate over the items, one per copy."""

    def distinct(self):
        """How many different items the bag holds."""
'''


def check(tmp_path: Path, tests: str, desc: str = BAG) -> tuple[int, dict]:
    (tmp_path / "bag.py").write_text(desc)
    (tmp_path / "test_bag.py").write_text(tests)
    env = dict(os.environ, PYTHONPATH=str(ROOT))
    p = subprocess.run([sys.executable, "-m", "specguard", "check", "--description", str(tmp_path / "bag.py"),
                        "--tests", str(tmp_path / "test_bag.py"), "--out", str(tmp_path / "out"), "--json"],
                       capture_output=True, text=True, cwd=tmp_path, env=env, timeout=300)
    assert p.returncode in (0, 1, 2), p.stdout + p.stderr
    return p.returncode, json.loads(p.stdout)


def no_conflict(tmp_path: Path, tests: str, desc: str = BAG) -> dict:
    code, r = check(tmp_path, tests, desc)
    assert not (r["verdict"] == "conflict" and r["evidence"] == "certified"), r["reason"]
    assert code != 1, r["reason"]
    return r


HISTORY = "    b = Bag()\n    b.add(1)\n    b.add(1)\n"


def test_term_of_a_result_read_in_between(tmp_path):
    """#13.3: `r = b.elements()` read by `list(r)` before `len(list(r)) == 0`, and another test with
    `len(list(r)) == 2` right away: both pass when elements() returns an iterator (the first list()
    exhausts it).  The bound result is not a term input: no conflict."""
    no_conflict(tmp_path, "from bag import Bag\n\n"
                          f"def test_a():\n{HISTORY}    r = b.elements()\n    list(r)\n    assert len(list(r)) == 0\n\n"
                          f"def test_b():\n{HISTORY}    r = b.elements()\n    assert len(list(r)) == 2\n")


def test_term_with_a_shadowed_len(tmp_path):
    """#13.3: the test module defines its own counting `len`: `len(list(b.elements())) == 1` then
    `== 2` after the same history both pass (in file order).  Not the builtin: no term input."""
    no_conflict(tmp_path, "from bag import Bag\n\n_N = [0]\n\n\ndef len(x):\n    _N[0] += 1\n    return _N[0]\n\n\n"
                          f"def test_a():\n{HISTORY}    assert len(list(b.elements())) == 1\n\n"
                          f"def test_b():\n{HISTORY}    assert len(list(b.elements())) == 2\n")


def test_term_with_a_len_rebound_in_the_session(tmp_path):
    """#13.3: the class docstring's session rebinds `len` (`>>> len = lambda x: 7`) before showing
    `len(list(b.elements()))` / `7`; the test expects the builtin's 2 after the same history.  Both
    pass; the session's `len` is not the builtin: no conflict."""
    desc = BAG.replace('"""A bag (multiset) of items."""',
                       '"""A bag (multiset) of items.\n\n    >>> len = lambda x: 7\n    >>> b = Bag()\n    >>> b.add(1)\n'
                       '    >>> b.add(1)\n    >>> len(list(b.elements()))\n    7\n    """')
    no_conflict(tmp_path, f"from bag import Bag\n\ndef test_a():\n{HISTORY}    assert len(list(b.elements())) == 2\n",
                desc)


def test_two_terms_of_one_history(tmp_path):
    """#13.3: `len(list(b.elements())) == 2` and `len(set(b.elements())) == 1` after the same two
    adds of 1: both true (two copies, one item).  Different terms are different inputs."""
    no_conflict(tmp_path, "from bag import Bag\n\n"
                          f"def test_a():\n{HISTORY}    assert len(list(b.elements())) == 2\n\n"
                          f"def test_b():\n{HISTORY}    assert len(set(b.elements())) == 1\n")


def test_term_of_a_module_level_object(tmp_path):
    """#13.3: a module-level bag shared by two tests: `len(list(b.elements())) == 1` after one add,
    then `== 2` after the next test's add (file order).  Not a fresh object: no conflict."""
    no_conflict(tmp_path, "from bag import Bag\n\nb = Bag()\n\n"
                          "def test_a():\n    b.add(1)\n    assert len(list(b.elements())) == 1\n\n"
                          "def test_b():\n    b.add(1)\n    assert len(list(b.elements())) == 2\n")


def test_two_sentinels_are_not_one(tmp_path):
    """#13.3: one `object()` added twice holds one distinct item; two `object()`s added once each
    hold two.  Read as one sentinel value, the histories would be equal and 1 vs 2 a conflict; each
    evaluation of `object()` is its own argument: no conflict."""
    no_conflict(tmp_path, "from bag import Bag\n\n"
                          "def test_a():\n    b = Bag()\n    d = object()\n    b.add(d)\n    b.add(d)\n"
                          "    assert b.distinct() == 1\n\n"
                          "def test_b():\n    b = Bag()\n    b.add(object())\n    b.add(object())\n"
                          "    assert b.distinct() == 2\n")


def test_sentinel_identity_between_tests(tmp_path):
    """#13.3: a class may tell two sentinels apart (by `id`): the same code in two tests, each with
    its own `object()`, expecting different results (an implementation keyed on `id(x) % 2` can
    pass both).  Sentinels of two tests are never one input: no conflict."""
    no_conflict(tmp_path, "from bag import Bag\n\n"
                          "def test_a():\n    b = Bag()\n    d = object()\n    b.add(d)\n    assert b.distinct() == 1\n\n"
                          "def test_b():\n    b = Bag()\n    d = object()\n    b.add(d)\n    assert b.distinct() == 0\n")


def test_try_whose_handler_changes_the_object(tmp_path):
    """#13.3: `try: b.remove(5) / except KeyError: b.add(1)` then `b.distinct() == 1`, and the same
    `try` swallowing the error with `pass` then `b.distinct() == 0`: both pass (remove of a
    missing item raises KeyError).  Ignoring the handler would make the histories equal; only a
    handler that does nothing keeps the history: no conflict."""
    no_conflict(tmp_path, "from bag import Bag\n\n"
                          "def test_a():\n    b = Bag()\n    try:\n        b.remove(5)\n    except KeyError:\n"
                          "        b.add(1)\n    assert b.distinct() == 1\n\n"
                          "def test_b():\n    b = Bag()\n    try:\n        b.remove(5)\n    except KeyError:\n"
                          "        pass\n    assert b.distinct() == 0\n")


def test_try_with_an_else_that_changes_the_object(tmp_path):
    """#13.3: `try: b.remove(1) / except KeyError: pass / else: b.add(2)`: what runs after the call
    depends on its outcome.  With the `else` ignored, two tests whose calls succeed and fail alike
    would look the same; a `try` with an `else` (other than the raises idiom) is not followed."""
    no_conflict(tmp_path, "from bag import Bag\n\n"
                          "def test_a():\n    b = Bag([1])\n    try:\n        b.remove(1)\n    except KeyError:\n"
                          "        pass\n    else:\n        b.add(2)\n    assert b.distinct() == 1\n\n"
                          "def test_b():\n    b = Bag([1])\n    try:\n        b.remove(1)\n    except KeyError:\n"
                          "        pass\n    assert b.distinct() == 0\n")


def test_implied_size_counts_as_python_does(tmp_path):
    """#13.3: `set(b.elements()) == {1, True}` and `len(set(b.elements())) == 1` after the same
    history: both pass (`{1, True}` is `{1}`).  The size implied by the first is the display's size
    as Python counts it (1), not its two written elements: no conflict."""
    no_conflict(tmp_path, "from bag import Bag\n\n"
                          f"def test_a():\n{HISTORY}    assert set(b.elements()) == {{1, True}}\n\n"
                          f"def test_b():\n{HISTORY}    assert len(set(b.elements())) == 1\n")


def test_tuple_of_observations_runs_in_order(tmp_path):
    """#13.3: `(b.pop(), b.pop()) == (2, 1)`: it passes for a stack-like bag (the second pop sees the
    first one done).  Read as two pops of one history it would conflict with itself; the second is
    read after the first: no conflict."""
    desc = BAG.replace('    def distinct(self):', '    def pop(self):\n        """Remove and return the last item added."""\n\n'
                       '    def distinct(self):')
    r = no_conflict(tmp_path, "from bag import Bag\n\n"
                              "def test_a():\n    b = Bag([1, 2])\n    assert (b.pop(), b.pop()) == (2, 1)\n", desc)
    assert len(r["tests"]) == 2 and not r["unsupported"], r["unsupported"]
