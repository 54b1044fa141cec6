"""Semantics traps found on the branches terms and concrete before they were merged (each reproduced
a certified false result there); both branches are merged now, so these run as regressions."""

import json

import pytest

import sys, pathlib
sys.path.insert(0, str(pathlib.Path(__file__).parent))
from test_semantics_traps import check, not_certified_conflict, task


@pytest.mark.lean
def test_concrete_set_iteration_order_is_hash_order(tmp_path):
    """#12.2: on branches terms and concrete (both carry main's literals.py), `list({'a', 'b'})[0]`
    was taken as 'a' (display order) and f('a') == 5 certified against the doctest f('a') -> 1;
    CPython's order is hash order (PYTHONHASHSEED), so an f with f('b') == 5 passes in some runs.
    Fixed on main's side by redteam's literals.elements_of; concrete edits literals.py too (merge)."""
    d = task(tmp_path, """
        >>> f('a')
        1
        """, """
        def test_a():
            assert f(list({'a', 'b'})[0]) == 5
        """)
    r = check(d)
    not_certified_conflict(r)
    assert "iteration order of a set" in json.dumps(r)
