"""Loops over a term (#12.2, #12.3): ``for T in I: <assertions>`` where ``I`` uses the result of
the function under test (``for p in f(x)``, ``for a, b in zip(f(x), [1, 2])``, ``for i, p in
enumerate(r)`` with ``r = f(x)``) is ONE assertion over that term:

    all(<A1> and <A2> and ... for T in I)

read like any other assertion (:mod:`specguard.python.terms`, compiled by the spec language:
one copy of Python's semantics).  This is the loop's exact meaning when the body is only
assertions (and local assignments, below): Python evaluates ``I`` once, then for each item binds
``T`` (with the same unpacking and its length check), evaluates the assertions in order, and the
first one that is false (or raises) ends the test; an exception while iterating ends it too.
``all`` over a generator expression does the same: ``I`` evaluated once, the items in order,
``and`` evaluating ``A2`` only when ``A1`` holds, the first false item ending it, exceptions
propagating.  An empty iterable: the loop passes, ``all`` is True.

Local assignments in the body (``L = len(p)``) are inlined into the later assertions (their
value is pure: the spec language admits only pure operations), and each one also stands as
the conjunct ``[E]`` at its place, which is always true but evaluates ``E``: an assignment that
raises still fails the test.

Refused (the reason is reported, the old unrolling reasons stand before this reading):

* ``break``/``continue``/``return`` (checked by the caller), an ``else:`` clause, nested
  statements (``if``, ``with``, ``for``), calls made for their effect, anything but assertions,
  ``pass`` and ``NAME = expr``;
* assignments to a loop target, a name read in the body before the body assigns it (the first
  iteration would see the outer binding), a name the body also binds in a comprehension or
  lambda, ``:=``, and ``is``/``is not`` against anything but ``None`` (inlining copies a value, so
  identity would change);
* what the observation reader refuses: a call of the function under test inside the body (one
  call per item), the iterable's result read again in the body (an iterator's second reading
  sees fewer items), literals that may share a mutable object with the call's arguments.

After the loop its target and the body's names are unknown (the loop's last item, or unbound).
"""

from __future__ import annotations

import ast
import copy
from dataclasses import dataclass
from typing import Callable

from specguard.python.terms import _bound_names


class NotLoopAssertion(Exception):
    """The loop is not read as one assertion; ``reason`` says why."""

    def __init__(self, reason: str) -> None:
        self.reason = reason
        super().__init__(reason)


@dataclass
class LoopAssertion:
    expr: ast.expr                 # all(<conjunction> for T in I)
    keys: list[ast.stmt]           # the body's assertion statements (read together)


def _target_names(t: ast.expr) -> set[str]:
    if isinstance(t, ast.Name):
        return {t.id}
    if isinstance(t, (ast.Tuple, ast.List)) and t.elts:
        out: set[str] = set()
        for e in t.elts:
            out |= _target_names(e)
        return out
    raise NotLoopAssertion(f"its target `{ast.unparse(t)}` is not a name or a tuple of names")


class _Inline(ast.NodeTransformer):
    def __init__(self, env: dict[str, ast.expr]) -> None:
        self.env = env

    def visit_Name(self, node: ast.Name) -> ast.AST:
        if isinstance(node.ctx, ast.Load) and node.id in self.env:
            return copy.deepcopy(self.env[node.id])
        return node


def _check_expr(e: ast.expr, line: int) -> None:
    for n in ast.walk(e):
        if isinstance(n, (ast.NamedExpr, ast.Yield, ast.YieldFrom, ast.Await)):
            raise NotLoopAssertion(f"a `{type(n).__name__}` in the loop body at line {line}")
        if isinstance(n, ast.Compare):
            for op, right in zip(n.ops, n.comparators):
                if isinstance(op, (ast.Is, ast.IsNot)) and not (isinstance(right, ast.Constant) and right.value is None):
                    raise NotLoopAssertion(f"`is` against a value that is not None in the loop body at line {line}")


def _flat(body: list[ast.stmt], subtest: Callable[[ast.expr], bool]) -> list[ast.stmt | ast.expr]:
    """The body's statements, with ``with self.subTest(...):`` blocks opened: a failure inside a
    subtest is recorded and the loop goes on, but the test fails all the same, so for whether the
    test passes the block is its statements; the subtest's arguments (evaluated before the block)
    stand as the expression ``[args]`` at its place."""
    out: list[ast.stmt | ast.expr] = []
    for s in body:
        if isinstance(s, ast.With) and len(s.items) == 1 and s.items[0].optional_vars is None \
                and isinstance(s.items[0].context_expr, ast.Call) and subtest(s.items[0].context_expr.func):
            c = s.items[0].context_expr
            if any(isinstance(a, ast.Starred) for a in c.args) or any(k.arg is None for k in c.keywords):
                raise NotLoopAssertion(f"the subtest at line {s.lineno} has `*`/`**` arguments")
            args = [*c.args, *(k.value for k in c.keywords)]
            if args:
                out.append(ast.copy_location(ast.List(args, ast.Load()), s))
            out.extend(_flat(s.body, subtest))
        else:
            out.append(s)
    return out


def read(stmt: ast.For, assertion_of: Callable[[ast.stmt], ast.expr | None],
         subtest: Callable[[ast.expr], bool] = lambda f: False) -> LoopAssertion:
    """The loop as one assertion, or NotLoopAssertion.  ``assertion_of(s)``: the expression a
    body statement asserts (``assert E``: E; ``self.assertEqual(a, b)``: ``a == b``), None when
    ``s`` is not an assertion; it raises NotLoopAssertion for an assertion it cannot express.
    ``subtest(func)``: a ``with func(...):`` block is a subtest (``self.subTest``)."""
    if stmt.orelse:
        return _fail("it has an `else:` clause")
    targets = _target_names(stmt.target)
    flat = _flat(stmt.body, subtest)
    bound_inside: set[str] = set()
    for s in flat:
        bound_inside |= _bound_names(s)
    env: dict[str, ast.expr] = {}
    assigned_later = {t.id for s in flat if isinstance(s, ast.Assign) for t in s.targets
                      if isinstance(t, ast.Name)}
    parts: list[ast.expr] = []
    keys: list[ast.stmt] = []
    for s in flat:
        if isinstance(s, ast.Pass):
            continue
        if isinstance(s, ast.expr):              # a subtest's arguments
            _check_expr(s, s.lineno)
            _reads_before(s, assigned_later, env, s.lineno)
            parts.append(_Inline(env).visit(copy.deepcopy(s)) if env else s)
            continue
        if isinstance(s, ast.Assign):
            if len(s.targets) != 1 or not isinstance(s.targets[0], ast.Name):
                return _fail(f"the assignment at line {s.lineno} in its body is not `NAME = expr`")
            name = s.targets[0].id
            if name in targets:
                return _fail(f"its body rebinds its target `{name}` at line {s.lineno}")
            if name in bound_inside:
                return _fail(f"`{name}` is bound in a comprehension or lambda of its body")
            _check_expr(s.value, s.lineno)
            _reads_before(s.value, assigned_later, env, s.lineno)
            value = _Inline(env).visit(copy.deepcopy(s.value))
            env[name] = value
            parts.append(ast.List([copy.deepcopy(value)], ast.Load()))
            continue
        e = assertion_of(s)
        if e is None:
            return _fail(f"its body has a statement at line {s.lineno} that is not an assertion "
                         "or a local assignment")
        _check_expr(e, s.lineno)
        _reads_before(e, assigned_later, env, s.lineno)
        parts.append(_Inline(env).visit(copy.deepcopy(e)) if env else e)
        keys.append(s)
    if not keys:
        return _fail("its body asserts nothing")
    if bound_inside & targets:
        return _fail("a comprehension or lambda of its body binds its target's name")
    body = parts[0] if len(parts) == 1 else ast.BoolOp(ast.And(), parts)
    gen = ast.GeneratorExp(body, [ast.comprehension(copy.deepcopy(stmt.target), stmt.iter, [], 0)])
    expr = ast.Call(ast.Name("all", ast.Load()), [gen], [])
    return LoopAssertion(ast.fix_missing_locations(ast.copy_location(expr, stmt.iter)), keys)


def _reads_before(e: ast.expr, assigned: set[str], env: dict[str, ast.expr], line: int) -> None:
    for n in ast.walk(e):
        if isinstance(n, ast.Name) and n.id in assigned and n.id not in env:
            raise NotLoopAssertion(f"its body reads `{n.id}` at line {line} before assigning it (the first "
                                   "item would see the value from before the loop)")


def _fail(reason: str) -> LoopAssertion:
    raise NotLoopAssertion(reason)
