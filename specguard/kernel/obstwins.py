"""Two observations of the same expression of one call that expect different values (#12).

An assertion over a consumed result (``list(f(x)) == [1, 2]``, ``''.join(f(x)) == 'ab'``,
``[str(y) for y in f(x)] == [...]``; and ``len(f(x)) == n``) is an *observation* clause: ``Py.obsHolds`` of the compiled
expression, true where the expression is undefined (outside the subset, an implicit error).  Such
clauses alone never conflict.  But two of them that evaluate the **same** expression ``E`` of the
**same** exact call and expect literals ``A`` and ``B`` of different ``==``-classes cannot both
pass: ``E`` gives one value (the determinism every conflict at one input assumes, see
docs/trust.md), and a plain value is ``==`` to at most one of two classes.

Such a pair (tests with each other, or a description example with a test) is written as two
*twin* clauses ``Py.obsOut F (impl K) = ret C_A`` and ``... = ret C_B`` (``F`` the expression's
compiled value, ``Py.obsOut`` its class, see Py.lean): the kernel refutes them by
``same_outcome``/``outcome_ne`` on the literal classes.  A twin clause says more than the
spec-language model may know of ``E`` (where it is undefined the clause is false), so it is used
only against its twin: the prover keeps twins out of every other comparison, classification and
witness (:class:`specguard.kernel.prove.Prover`).

Only when calls are deterministic (no documented state, no object results: their clauses are no
observations any more) and only expressions the spec language compiles; the expected side must
be a literal (NaN excluded).
"""

from __future__ import annotations

import ast
import dataclasses
from typing import Sequence

from specguard.formalize.speclang import OBS_VAR
from specguard.kernel.emit import Clause
from specguard.python import literals
from specguard.python.values import V, canon, contains_nan


def _split(expr: str) -> tuple[str, V, str] | None:
    """``(dump of E, A, text of E)`` for an observation ``E == A`` (or ``A == E``) with ``A`` a
    literal, else None."""
    try:
        node = ast.parse(expr, mode="eval").body
    except (SyntaxError, ValueError, RecursionError, MemoryError):
        return None
    if not (isinstance(node, ast.Compare) and len(node.ops) == 1 and isinstance(node.ops[0], ast.Eq)):
        return None
    for e, lit in ((node.left, node.comparators[0]), (node.comparators[0], node.left)):
        try:
            v = literals.eval_literal(lit)
        except (literals.NotLiteral, RecursionError):
            continue
        try:
            literals.eval_literal(e)
            return None                    # two literals: no observation of the result
        except (literals.NotLiteral, RecursionError):
            pass
        if contains_nan(v):
            return None
        try:
            return ast.dump(e), v, ast.unparse(e)
        except (ValueError, RecursionError):
            return None
    return None


_LEN = "len(" + OBS_VAR + ")"


def _candidate(c: Clause):
    if c.key is None or c.multi is not None or c.py is not None or c.instance_of is not None \
            or c.twin is not None or c.pred is None or c.pred.mode != "returns":
        return None
    if c.pred.vp[0] == "len":       # `len(f(x)) == n` (assertEqual(len(...), n), assert_len)
        return ast.dump(ast.parse(_LEN, mode="eval").body), V("int", int(c.pred.vp[1])), _LEN
    if c.pred.vp[0] != "obs":
        return None
    e = getattr(getattr(c.source, "expect", None), "expr", None)
    if not isinstance(e, str):
        return None
    return _split(e)


def pair_twins(spec: Sequence[Clause], tests: Sequence[Clause], deterministic: bool
               ) -> tuple[list[Clause], list[Clause]]:
    """``spec`` and ``tests`` with the first pair of twin observations (two tests preferred, else
    a description clause and a test) replaced by their twin clauses; unchanged when there is none
    or calls may not be deterministic."""
    spec, tests = list(spec), list(tests)
    if not deterministic:
        return spec, tests
    from specguard.formalize import speclang
    groups: dict[tuple[str, str], list[tuple[int, int, V, str]]] = {}
    for side, clauses in ((1, tests), (0, spec)):
        for i, c in enumerate(clauses):
            got = _candidate(c)
            if got is not None:
                dump, v, text = got
                try:
                    cls = canon(v)
                except (ValueError, TypeError):
                    continue
                groups.setdefault((c.input_id, dump), []).append((side, i, cls, text))
    best = None
    for members in groups.values():
        for j, a in enumerate(members):
            for b in members[j + 1:]:
                if a[2] != b[2] and (a[0] or b[0]):
                    rank = (a[0] == 0) + (b[0] == 0)
                    if best is None or rank < best[0]:
                        best = (rank, a, b)
    if best is None:
        return spec, tests
    _, a, b = best
    try:
        f = speclang.observation_value(a[3])
    except speclang.ObservationError:
        return spec, tests
    for side, i, cls, _ in (a, b):
        clauses = tests if side else spec
        clauses[i] = dataclasses.replace(clauses[i], twin=(f, cls), more=list(clauses[i].more))
    return spec, tests


def is_twin(c: Clause) -> bool:
    return c.twin is not None


__all__ = ["pair_twins", "is_twin"]
