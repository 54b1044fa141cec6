"""Clauses over several calls of the function under test (#12.2): ``assert f(a) == f(b)``.

A demand with ``calls`` (:mod:`specguard.python.multiterm`) becomes one clause over the outcomes
of ``impl`` at every one of its exact inputs, nested in the assertion's order (no new Lean
definitions: ``Outcome.returns`` of ``Outcome.returns`` ... of ``Py.obsHolds``)::

    Holds (Outcome.returns (fun obsr => Outcome.returns (fun obsr_1 => E) (impl K1))) (impl K0)

It is implied by the assertion: each call is evaluated unconditionally, so a passing test has
every call returning, and ``E`` (the observation, undefined => true) holding on the classes.

Conflicts (:func:`pins_for`): the other clauses *pin* the calls in order, each by an ``eq`` clause
at that very input (``impl K = ret C``), until one is pinned to raise (a ``raises`` clause there:
the clause needs it to return; the calls before it may be unpinned) or every call is pinned and
``E`` is false on the pinned classes (the mirror says so; the kernel evaluates it).  The proof
(:func:`refute`) walks the same nesting: at a pinned call ``holds_of_eq`` turns ``Holds P_j
(impl K_j)`` into ``Holds P_{j+1} (impl K_{j+1})`` (the earlier binders replaced by their pinned
values), an unpinned call is split on its outcome, and it ends with ``not_holds`` (evaluated
false) or a case split on the raising outcome.  Witnesses satisfy the clause by the same walk
with their table (:func:`witness_proof`).
"""

from __future__ import annotations

from typing import Callable, Sequence

from specguard.kernel import emit
from specguard.kernel.emit import Clause, NotModelled, Outcome
from specguard.python import multiterm


def clause(d, json: bool = False) -> Clause:
    """The clause of a demand with several calls."""
    from specguard.formalize import speclang
    if json:
        raise NotModelled("an observation of several calls in a JSON-table task")
    if d.expect.expr is None:
        raise NotModelled("an observation of several calls without an expression")
    calls = [d.call, *d.calls]
    if len({c.key() for c in calls}) != len(calls):
        raise NotModelled("an observation of several calls names one input twice")
    try:
        m = multiterm.compile_multi(d.expect.expr, len(calls), d.exposed)
    except speclang.ObservationError as e:
        raise NotModelled(f"observation `{d.expect.expr}`: {e}") from None
    more = [[c.key(), emit.lean_input(c), None] for c in d.calls]
    return Clause(name=d.id, key=emit.lean_input(d.call), input_id=d.call.key(), source=d, exact=False,
                  multi=m, more=more)


def closed(m, keys: Sequence[str], j: int, vals: Sequence[str], impl: str = "impl") -> str:
    """``P_j`` (the predicate of call ``j``'s outcome) with the earlier binders given ``vals``
    (Lean terms) and the later calls of ``impl``: a beta-redex the elaborator reduces."""
    pred = m.lean_pred(list(keys), upto=j).replace("(impl ", f"({impl} ")
    if j == 0:
        return pred
    binders = " ".join(multiterm.binder(i) for i in range(j))
    return f"((fun {binders} => {pred}) {' '.join(vals)})"


def pins_for(c: Clause, pinned: Callable[[str], Clause | None]) -> list[Clause | None] | None:
    """The clauses refuting ``c`` by pinning its calls in order (see the module), or None: one per
    call up to the first pinned to raise (the calls before it may be unpinned: ``None``), or an
    ``eq`` clause for every call when the observation is false on their classes."""
    got: list[Clause | None] = []
    classes = []
    for input_id in c.input_ids():
        p = pinned(input_id)
        got.append(p)
        if p is not None and p.eq is None:      # pinned to raise: the clause needs a value here
            return got
        classes.append(None if p is None else p.eq)
    if any(p is None for p in got):
        return None
    return got if not c.multi.holds(tuple(classes)) else None


def is_raise(p: Clause) -> bool:
    return p.eq is None and p.pred is not None and p.pred.mode == "raises" and p.check is None and p.multi is None


def refute(c: Clause, pins: Sequence[Clause | None], pc: str, proofs: Sequence[str | None], impl: str = "_impl") -> str:
    """Proof of False from ``pc`` (clause ``c`` of the implementation named ``impl``) and
    ``proofs`` of its pins (:func:`pins_for`).  Call by call: a pinned value rewrites the
    outcome (``holds_of_eq``); an unpinned call is split on its outcome (raising makes the
    clause false, a value ``v`` moves on with ``v``); a call pinned to raise ends it by a case
    split; the last pinned value by evaluating the observation (``not_holds``)."""
    m, keys = c.multi, c.keys()
    last = len(keys) - 1

    def go(j: int, vals: list[str], h: str) -> str:
        pj = closed(m, keys, j, vals, impl)
        p, pp = pins[j], proofs[j]
        if p is not None and p.eq is None:
            return (f"(Outcome.casesOn (motive := fun x => Holds {pj} x → Holds Outcome.raises x → False) "
                    f"({impl} {keys[j]}) "
                    f"(fun v _ h => not_holds (P := Outcome.raises) h (Eq.refl (Outcome.ret v)) (Eq.refl Bool.false)) "
                    f"(fun e h _ => not_holds (P := {pj}) h (Eq.refl (Outcome.raise e)) (Eq.refl Bool.false)) "
                    f"{h} {pp})")
        if p is None:
            b = multiterm.binder(j)
            nxt = closed(m, keys, j + 1, vals + [b], impl)
            inner = go(j + 1, vals + [b], f"(show Holds {nxt} ({impl} {keys[j + 1]}) from h{j})")
            return (f"(Outcome.casesOn (motive := fun x => Holds {pj} x → False) ({impl} {keys[j]}) "
                    f"(fun {b} h{j} => {inner}) (fun _ h{j} => Bool.false_ne_true h{j}) {h})")
        if j == last:
            return f"(not_holds (P := {pj}) {h} {pp} (Eq.refl Bool.false))"
        v = emit.lean_val(p.eq)
        nxt = closed(m, keys, j + 1, vals + [v], impl)
        return go(j + 1, vals + [v], f"(show Holds {nxt} ({impl} {keys[j + 1]}) from holds_of_eq (P := {pj}) {pp} {h})")
    return go(0, [], pc)


def outcomes_hold(c: Clause, outcome: Callable[[str], Outcome]) -> bool:
    """Does the clause hold when call ``i`` has ``outcome(input_id)``?"""
    os_ = [outcome(i) for i in c.input_ids()]
    if any(o.exc is not None for o in os_):
        return False
    return c.multi.holds(tuple(o.cls for o in os_))


def witness_proof(c: Clause, w: str, at: Callable[[str], str], outcome: Callable[[str], Outcome]) -> str:
    """Proof of ``c w`` from the witness's lemmas ``at(input_id) : Eq (w K) (ret C)``."""
    m, keys, ids = c.multi, c.keys(), c.input_ids()
    vals = [emit.lean_val(outcome(i).cls) for i in ids]
    n = len(keys)
    proof = f"(holds_of_eq' (P := {closed(m, keys, n - 1, vals[:n - 1], w)}) {at(ids[n - 1])} (Eq.refl Bool.true))"
    for j in range(n - 2, -1, -1):
        proof = f"(holds_of_eq' (P := {closed(m, keys, j, vals[:j], w)}) {at(ids[j])} {proof})"
    return proof


def fill(clauses: Sequence[Clause], known: dict[str, Outcome], candidates: Sequence[Outcome],
         ok: Callable[[Outcome], bool] = lambda o: True) -> dict[str, Outcome] | None:
    """Outcomes for the inputs only these clauses speak about (not in ``known``) such that every
    clause holds (tried: the classes the clause's other calls have, then ``candidates``; each
    satisfying ``ok``, the description's clauses about every input), or None."""
    chosen: dict[str, Outcome] = {}

    def get(i: str) -> Outcome | None:
        return known.get(i) or chosen.get(i)
    for c in clauses:
        for i in c.input_ids():
            if get(i) is not None:
                continue
            others = [o for k in c.input_ids() if (o := get(k)) is not None and o.exc is None]
            for o in [o for o in others + list(candidates) if o.exc is None and ok(o)]:
                chosen[i] = o
                if any(get(k) is None for k in c.input_ids()) or outcomes_hold(c, get):
                    break
    total = lambda i: get(i) or Outcome(exc="SpecGuardWitness")  # noqa: E731
    return chosen if all(outcomes_hold(c, total) for c in clauses) else None


def inputs_of(clauses: Sequence[Clause]) -> dict[str, tuple[str, str | None]]:
    """input_id -> (key name, key text) of every call of these clauses."""
    out: dict[str, tuple[str, str | None]] = {}
    for c in clauses:
        out.setdefault(c.input_id, (c.key, c.key_text))
        for i, k, t in c.more:
            out.setdefault(i, (k, t))
    return out


def text_with_calls(text: str, sources: Sequence[str]) -> str:
    """An observation's text with each call's variable replaced by the call's source (for people)."""
    import ast
    try:
        tree = ast.parse(text, mode="eval")
    except SyntaxError:
        return text
    names = {multiterm.var(i): s for i, s in enumerate(sources)}

    class R(ast.NodeTransformer):
        def visit_Name(self, n: ast.Name):
            return ast.Name(f"\0{n.id}\0", ast.Load()) if n.id in names else n
    out = ast.unparse(R().visit(tree))
    for k, s in names.items():
        out = out.replace(f"\0{k}\0", s)
    return out
