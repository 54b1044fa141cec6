"""Observations of SEVERAL calls of the function under test in one assertion (#12.2):
``f(a) == f(b)``, ``len(f(a)) < len(f(b))``, ``f(a) == list(f(b))``, ``0 == f(a) == f(b)``.

The expression is the one :mod:`specguard.python.terms` builds, with each distinct call (by
its exact input) replaced by its own variable: the first by ``result`` (``OBS_VAR``), the next by
``result_1``, ``result_2``...; it is compiled by the spec language's own parser, guards and
emitter (:func:`specguard.formalize.speclang.compile_observation`'s pieces: one semantics, with
the same whitelist of operations that are sound on a result's ``==``-class), and mirrored by the
same evaluator.  A clause of ``n`` calls says: every call returns (the assertion evaluates each
call unconditionally, a raising call fails the test), and the expression holds on the returned
classes (undefined => true, as for one call: a weakening).  In Lean (no new definitions), the
calls nested in the order of the assertion::

    Holds (Outcome.returns (fun obsr => Outcome.returns (fun obsr_1 => Py.obsHolds E) (impl K1))) (impl K0)
"""

from __future__ import annotations

import ast
from dataclasses import dataclass, field
from typing import Any

from specguard.formalize import speclang
from specguard.python.values import V

OBS_VAR = speclang.OBS_VAR
MAX_CALLS = 4


def var(i: int) -> str:
    """The Python name of call ``i`` in the expression."""
    return OBS_VAR if i == 0 else f"{OBS_VAR}_{i}"


def binder(i: int) -> str:
    """The Lean binder of call ``i``."""
    return speclang._OBS_BINDER if i == 0 else f"{speclang._OBS_BINDER}_{i}"


def is_var(name: str) -> bool:
    return name == OBS_VAR or (name.startswith(OBS_VAR + "_") and name[len(OBS_VAR) + 1:].isdigit())


# A later call of the function may mutate an object an earlier call returned and the assertion
# still uses (the project's rule for names holding results, specguard/formalize/tests.py): the
# clause then holds only when what stays in use is immutable plain data, checked on its class.
_SCALAR = ("union", ("none",), ("union", ("float",), ("union", ("str",), ("bytes",))))
_IMMUTABLE = ("union", _SCALAR, ("tupleOf", ("union", _SCALAR, ("tupleOf", _SCALAR))))
# what list()/tuple()/sorted() keep of a result: its items (a set's and a dict's keys are hashable)
_ITEMS = ("union", _IMMUTABLE, ("union", ("list", _IMMUTABLE), ("union", ("set", ("any",)), ("dict", ("any",), ("any",)))))
GUARDS = {"": None, "value": _IMMUTABLE, "items": _ITEMS}


def exposure(node: ast.expr, calls: list[ast.AST], index: list[int]) -> tuple[str, ...]:
    """Per variable: what of its result the assertion still uses while a later call of the
    function runs (:data:`GUARDS`): nothing for the variable whose every occurrence comes after
    every other call (no later call runs), or a call consumed at once by ``len``/``set``/
    ``frozenset``; its items under ``list``/``tuple``/``sorted``; else the value itself.
    ``calls``: the replaced nodes in evaluation order, ``index``: each one's variable."""
    parent: dict[int, ast.AST] = {}
    for n in ast.walk(node):
        for c in ast.iter_child_nodes(n):
            parent[id(c)] = n
    dicts = any(isinstance(n, (ast.Dict, ast.DictComp)) for n in ast.walk(node))
    n_vars = max(index) + 1
    # a name holding a result (`r = f(1)` before the assertion) ran before every call in the
    # assertion, wherever it stands in the expression: each of those calls may change it
    held = [not isinstance(c, ast.Call) for c in calls]
    pos = [-1 if h else i for i, h in enumerate(held)]
    out = []
    for v in range(n_vars):
        mine = [i for i, x in enumerate(index) if x == v]
        others = [i for i, x in enumerate(index) if x != v]
        if not dicts and min(pos[i] for i in mine) > max((pos[i] for i in others), default=-2):
            out.append("")
            continue
        worst = ""
        for i in mine:
            if held[i]:                 # read after the later calls ran: the whole value
                worst = "value"
                continue
            p = parent.get(id(calls[i]))
            fn = p.func.id if isinstance(p, ast.Call) and isinstance(p.func, ast.Name) and len(p.args) == 1 \
                and p.args[0] is calls[i] and not p.keywords else None
            kind = "" if fn in ("len", "set", "frozenset") else "items" if fn in ("list", "tuple", "sorted") \
                else "value"
            worst = max(worst, kind, key=["", "items", "value"].index)
        out.append(worst)
    return tuple(out)


@dataclass(frozen=True)
class MultiObservation:
    """A compiled observation of ``n`` calls: ``body`` is the Lean Bool term over the binders;
    ``guards`` per call (:data:`GUARDS`): the class must be immutable plain data (or its items)
    for the expression to count."""

    text: str
    n: int
    body: str
    ir: Any = field(compare=False, hash=False, repr=False)
    guards: tuple = ()

    def holds(self, classes: tuple[V, ...]) -> bool:
        """The expression's truth on the class representatives (``Py.obsHolds``: True when undefined);
        True when a guarded class is not immutable."""
        from specguard.kernel.emit import ty_has
        for g, c in zip(self.guards, classes):
            if GUARDS[g] is not None and not ty_has(GUARDS[g], c):
                return True
        m = speclang.Mirror([], speclang.DEFAULT_FUEL, budget=speclang.EvalBudget())
        env = {binder(i): speclang.to_mirror(c) for i, c in enumerate(classes)}
        try:
            with speclang._deep_stack(), m:
                return speclang.m_truth(m.ev(self.ir, env))
        except (speclang.Undefined, speclang.TooLong, RecursionError, MemoryError, speclang._SpecRaise):
            return True

    def lean_pred(self, inputs: list[str], upto: int = 0) -> str:
        """``Outcome → Bool`` of call ``upto``'s outcome, the later calls at ``inputs`` (names)."""
        inner = self.body
        for i in range(self.n - 1, upto, -1):
            inner = f"Outcome.returns (fun {binder(i)} => {inner}) (impl {inputs[i]})"
        return f"(Outcome.returns (fun {binder(upto)} => {inner}))"


def conditional_problem(node: ast.expr, is_call, target: str) -> str | None:
    """Why some call of the function under test in ``node`` (the asserted expression) may not be
    evaluated when the assertion passes (then "every call returns" is not implied), or None.
    Unconditional: anything but the later operands of ``and``/``or``, the branches of ``x if c
    else y``, lambdas and comprehensions (except the first iterable); the later operands of a
    comparison chain are evaluated whenever the asserted chain holds (only at the top: under
    ``not`` a false chain passes)."""
    def visit(n: ast.AST, cond: bool, top: bool) -> str | None:
        if isinstance(n, ast.expr) and is_call(n) and cond:
            return f"a call of `{target}` that the assertion may not evaluate (under `and`/`or`, `if`, a lambda, " \
                   "a comprehension or a negated comparison chain)"
        if isinstance(n, ast.BoolOp):
            return visit(n.values[0], cond, False) or next(
                (w for v in n.values[1:] if (w := visit(v, True, False))), None)
        if isinstance(n, ast.IfExp):
            return visit(n.test, cond, False) or visit(n.body, True, False) or visit(n.orelse, True, False)
        if isinstance(n, ast.Lambda):
            return visit(n.body, True, False)
        if isinstance(n, (ast.ListComp, ast.SetComp, ast.GeneratorExp, ast.DictComp)):
            g0 = n.generators[0]
            rest = [n.key, n.value] if isinstance(n, ast.DictComp) else [n.elt]
            rest += [g0.target, *g0.ifs] + [x for g in n.generators[1:] for x in (g.iter, g.target, *g.ifs)]
            return visit(g0.iter, cond, False) or next((w for x in rest if (w := visit(x, True, False))), None)
        if isinstance(n, ast.Compare):
            head = [n.left, n.comparators[0]]
            return next((w for x in head if (w := visit(x, cond, False))), None) or next(
                (w for x in n.comparators[1:] if (w := visit(x, cond or not top, False))), None)
        return next((w for x in ast.iter_child_nodes(n) if (w := visit(x, cond, False))), None)
    return visit(node, False, True)


_CACHE: dict[tuple, MultiObservation] = {}


def compile_multi(text: str, n: int, guards: tuple[str, ...] = ()) -> MultiObservation:
    """Compile SpecGuard's own rendering ``text`` (parsed with :mod:`ast`, never run) over the
    variables ``var(0..n-1)``, each of which it must use; ``guards`` per variable (:data:`GUARDS`,
    default: every variable but the last guarded by value).  Raises ``speclang.ObservationError``."""
    guards = tuple(guards) if guards else ("value",) * (n - 1) + ("",)
    if len(guards) != n or any(g not in GUARDS for g in guards):
        raise speclang.ObservationError("malformed guards of an observation of several calls", unsound=False)
    got = _CACHE.get((text, n, guards))
    if got is not None:
        return got
    if not (2 <= n <= MAX_CALLS or n == 1 and guards == ("value",)):
        raise speclang.ObservationError(f"an observation of {n} calls (2 to {MAX_CALLS} are read)", unsound=False)
    try:
        expr = ast.parse(text, mode="eval").body
    except SyntaxError as e:
        raise speclang.ObservationError(f"not an expression: {e.msg}", unsound=False) from None
    p = speclang._Parser("", "<observation>")
    p.scope = speclang._Scope({var(i): binder(i) for i in range(n)})
    try:
        with speclang._deep_stack():
            ir = p.expr(expr)
    except speclang.SpecError as e:
        msg = str(e).split(": ", 1)[-1] if str(e).startswith("<observation>") else str(e)
        raise speclang.ObservationError(msg.split("\n")[0], unsound=False) from None
    except RecursionError:
        raise speclang.ObservationError("expression nested too deeply", unsound=False) from None
    for i in range(n):
        # each variable is guarded as a result (its own taint), and must be used
        _, used = speclang._obs_guard(ir, frozenset([binder(i)]))
        if not used:
            raise speclang.ObservationError(f"the expression does not use call {i + 1}", unsound=False)
    ir, _ = speclang._obs_guard(ir, frozenset(binder(i) for i in range(n)))
    term = speclang._Emitter(speclang.DEFAULT_FUEL).gen(ir, lambda t: f"(Py.ret {t})")
    from specguard.kernel.emit import lean_ty
    body = f"Py.obsHolds {term}"
    for i in reversed(range(n)):
        if GUARDS[guards[i]] is not None:
            body = f"cond (Ty.has {lean_ty(GUARDS[guards[i]])} {binder(i)}) ({body}) Bool.true"
    out = MultiObservation(ast.unparse(expr), n, body, ir, guards)
    _CACHE[(text, n, guards)] = out
    if len(_CACHE) > 4096:
        _CACHE.clear()
    return out
