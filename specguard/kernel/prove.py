"""Stage 5: decide, and write the proofs.

Given the clauses of ``Spec`` (description) and ``Tests``, find

* conflict cores: two clauses about the same exact input that no outcome
  satisfies together (eq/eq with different classes, eq/predicate false on that
  class, raises/returns), or a test against a description clause that holds at every input;
* per test: *entailed* (a description clause at the same input forces it; never for a test
  formalized by a weaker clause, ``exact=False``, nor with documented state),
  *contradicted* (a description clause refutes it) or *left open*, with a
  witness implementation for left-open tests when one is found;
* a witness implementation for ``Spec ∧ Tests`` when there is no conflict.

and generate the Lean claims (``SGTask.Claim``) and proof terms (``SGTask.Cert``).
Python mirrors of the predicates choose what to prove; the kernel checks it.
"""

from __future__ import annotations

import os
from dataclasses import dataclass, field
from typing import Sequence

from specguard.kernel import emit, multi
from specguard.kernel.certcheck import CERT_HEADER
from specguard.kernel.emit import Clause, Outcome, projection
from specguard.python.values import V

MAX_TABLE = 400
# Witness proofs compare each tabled input with the earlier ones up to their first difference:
# bounded by the total length of shared prefixes (Lean text characters).
WITNESS_BUDGET = 60_000
IMPL = "impl : Val → Outcome"


@dataclass
class KeyIndex:
    """Every named input of a task in one search tree ordered by ``Val.order`` (``IX_keys`` in
    the certificate, see Value.lean): a witness proves its value at an input by about ``log n``
    evaluated comparisons (``IX_at<g>``, shared by every witness) instead of ``n``."""

    names: list[str]                # key names in Val.order
    pos: dict[str, int]             # key name -> its index g
    path_cost: dict[str, int]       # key name -> Lean-text characters its lookup compares (about)
    tree: str                       # the KTree declarations (IX_n<g>, one node per input; IX_keys)
    paths: dict = field(default_factory=dict)   # g -> [(node g', "lt" | "gt"), ...] from the root
    kids: dict = field(default_factory=dict)    # g -> "LEFT RIGHT" (the children's names)
    emitted: bool = False
    proved: set = field(default_factory=set)

    @classmethod
    def build(cls, clauses: Sequence[Clause]) -> "KeyIndex | None":
        texts: dict[str, str] = {}
        alias: dict[str, str] = {}            # key name -> the first name of the same input
        first: dict[str, str] = {}
        pairs = [(c.key, c.key_text) for c in clauses] + [(k, t) for c in clauses for _, k, t in c.more]
        for key, key_text in pairs:
            if key is not None and key_text is not None and key not in alias:
                alias[key] = first.setdefault(key_text, key)
                texts.setdefault(alias[key], key_text)
        if not texts:
            return None
        keys = list(texts)
        order = emit.order_terms([texts[k] for k in keys])
        if order is None:
            return None     # an input the order cannot place: no index (tables stay lists)
        names = [keys[i] for i in order]
        pos = {n: i for i, n in enumerate(names)}
        cost: dict[str, int] = {n: 0 for n in names}
        nodes: list[str] = []                  # IX_n<g> definitions, children first
        paths: dict[int, list[tuple[int, str]]] = {}
        kids: dict[int, str] = {}
        rep = dict(alias)

        def tree(lo: int, hi: int, above: list[tuple[int, str]]) -> str:
            if lo >= hi:
                return "KTree.leaf"
            mid = (lo + hi) // 2
            for n in names[lo:hi]:
                cost[n] += len(os.path.commonprefix([texts[n], texts[names[mid]]])) + 40
            left = tree(lo, mid, above + [(mid, "lt")])
            right = tree(mid + 1, hi, above + [(mid, "gt")])
            nodes.append(f"noncomputable def IX_n{mid} : KTree := KTree.node {left} {names[mid]} {mid} {right}")
            paths[mid] = above
            kids[mid] = f"{left} {right}"
            return f"IX_n{mid}"
        root = tree(0, len(names), [])
        return cls(names, {k: pos[r] for k, r in rep.items()}, {k: cost[r] for k, r in rep.items()},
                   "\n".join(nodes) + f"\nnoncomputable def IX_keys : KTree := {root}", paths, kids)

    @property
    def miss(self) -> int:
        return len(self.names)

    def decls(self, keys: Sequence[str]) -> str:
        """The index (once) and the lemmas ``IX_at<g>`` for ``keys`` not proved yet: one
        ``ktree_lt``/``ktree_gt`` step per node on the way (a comparison evaluated up to the first
        difference), then ``ktree_hit`` (``Val.order_refl``: never a comparison with itself)."""
        out = []
        if not self.emitted:
            self.emitted = True
            out.append(self.tree)
        m = self.miss
        for k in keys:
            g = self.pos[k]
            if g in self.proved:
                continue
            self.proved.add(g)
            key = self.names[g]
            node = self.paths[g]
            proof = f"(ktree_hit {key} {m} {g} {self.kids[g]})"
            for h, way in reversed(node):
                lemma, want = ("ktree_lt", 0) if way == "lt" else ("ktree_gt", 2)
                proof = f"(Eq.trans ({lemma} {key} {self.names[h]} {m} {h} {self.kids[h]} (Eq.refl {want})) {proof})"
            out.append(f"theorem IX_at{g} : Eq (KTree.find {key} {m} IX_keys) {g} := {proof}")
        return "\n".join(out) + ("\n" if out else "")


@dataclass
class Table:
    """A witness lookup table: exact input -> outcome, in insertion order."""

    entries: dict[str, tuple[str, Outcome]] = field(default_factory=dict)
    index: dict[str, int] = field(default_factory=dict)
    cost: int = 0   # Lean-text characters compared by lookup steps (shared prefixes)
    texts: list = field(default_factory=list)
    keys: "KeyIndex | None" = None   # when set, the witness is an indexed table (log n lookups)
    tree: bool = False               # a ``--spec`` witness: a search tree of its own entries (VTree)

    def add(self, input_id: str, key: str, o: Outcome, key_text: str | None = None) -> None:
        text = key_text or key
        if self.keys is not None and key in self.keys.pos:
            self.cost += self.keys.path_cost[key]
        elif self.tree:
            # about log n comparisons per entry, each at most the input's length
            texts = self.texts + [text]
            self.cost = sum(min(len(t), 400) + 40 for t in texts) * max(1, len(texts).bit_length())
        else:
            for prev in self.texts:
                self.cost += len(os.path.commonprefix([prev, text])) + 40
        self.texts.append(text)
        self.index[input_id] = len(self.entries)
        self.entries[input_id] = (key, o)

    def copy(self) -> "Table":
        return Table(dict(self.entries), dict(self.index), self.cost, list(self.texts), self.keys, self.tree)

    def vtree(self):
        """:func:`_vtree` of the table, computed once per content (``add`` only appends)."""
        key = len(self.texts)
        if getattr(self, "_vt_key", None) != key:
            self._vt, self._vt_key = _vtree(self), key
        return self._vt

    def indexed(self) -> bool:
        return self.keys is not None and all(k in self.keys.pos for k, _ in self.entries.values())

    def __len__(self) -> int:
        return len(self.entries)


@dataclass
class Core:
    """A conflict core: two clauses (``a`` first) that no outcome satisfies together; or (``pins``)
    a clause of several calls ``a`` and the clauses pinning its calls (``b`` the first of them)."""

    a: Clause
    b: Clause
    pins: tuple = ()

    def clauses(self) -> list[Clause]:
        return [self.a, *(p for p in self.pins if p is not None)] if self.pins else [self.a, self.b]


@dataclass
class TestClass:
    name: str
    status: str                   # entailed | contradicted | left-open
    by: str | None = None         # the description clause that decides it
    witness: Outcome | None = None
    by_clause: Clause | None = None   # that clause (an instance of a ``--spec`` clause included)
    covered: str | None = None    # what speaks about this very input: "description" (an example of
                                  # the same call) or "spec" (a ``--spec`` instance or example there)
    pins: tuple = ()              # a test of several calls: the description clauses pinning them


@dataclass
class Plan:
    """What to claim and how to prove it."""

    claims: dict[str, str] = field(default_factory=dict)       # name -> Lean proposition
    proofs: list[str] = field(default_factory=list)            # Lean declarations of the certificate
    conflict: Core | None = None
    classes: list[TestClass] = field(default_factory=list)
    consistent: bool = False


def _refutes(a: Clause, b: Clause) -> bool:
    """No outcome satisfies both clauses ``a`` (eq, or a pred) and ``b``."""
    if a.eq is not None:
        return not b.holds(Outcome(cls=a.eq))
    if b.eq is not None:
        return not a.holds(Outcome(cls=b.eq))
    return _raises_vs_returns(a, b) is not None or _opposite_truth(a, b) is not None


def _raises_vs_returns(a: Clause, b: Clause) -> tuple[Clause, Clause] | None:
    """``(r, t)``: of two predicate clauses, ``r`` says the call raises and ``t`` that it returns."""
    if a.pred is None or b.pred is None or a.check is not None or b.check is not None:
        return None
    if a.pred.mode == "raises" and b.pred.mode == "returns":
        return a, b
    if b.pred.mode == "raises" and a.pred.mode == "returns":
        return b, a
    return None


_TRUTH_VPS = (("truthy",), ("falsy",))


def _opposite_truth(a: Clause, b: Clause) -> tuple[Clause, Clause] | None:
    """``(truthy, falsy)`` when one clause says the call returns a truthy value and the other a
    falsy one (``assert f(x)`` / ``assert not f(x)``, ``assertTrue`` / ``assertFalse``): no
    outcome satisfies both (``Val.truthy`` of the returned class is true and false)."""
    if a.check is not None or b.check is not None or a.pred is None or b.pred is None:
        return None
    if a.pred.mode != "returns" or b.pred.mode != "returns" or {a.pred.vp, b.pred.vp} != set(_TRUTH_VPS):
        return None
    return (a, b) if a.pred.vp == ("truthy",) else (b, a)


# False from ``Holds (returns truthy) o`` and ``Holds (returns falsy) o``: by cases on ``o``; a
# returned class ``v`` has ``Val.truthy v = true``, so ``Bool.not (Val.truthy v)`` is ``false``.
_TRUTHY_FALSY = (
    "(Outcome.rec (motive := fun o => Holds (Outcome.returns Val.truthy) o → "
    "Holds (Outcome.returns (fun v => Bool.not (Val.truthy v))) o → False) "
    "(fun v h1 h2 => Bool.false_ne_true (@Eq.ndrec Bool (Val.truthy v) "
    "(fun b => Eq (Bool.not b) Bool.true) h2 Bool.true h1)) "
    "(fun _ h1 _ => Bool.false_ne_true h1) _ {} {})")


def _same_input(a: Clause, b: Clause) -> bool:
    return a.key is None or b.key is None or a.input_id == b.input_id


class Prover:
    def __init__(self, spec: Sequence[Clause], tests: Sequence[Clause], instances: Sequence[Clause] = (),
                 witness_ok: bool = True, deterministic: bool = True) -> None:
        self.deterministic = deterministic
        self.spec = list(spec)
        self.tests = list(tests)
        # ``--spec`` clauses hold or not per input: they take part through their instances
        self.instances = list(instances)
        self.si = {c.name: i for i, c in enumerate(self.spec)}
        self.ti = {c.name: i for i, c in enumerate(self.tests)}
        self.by_input: dict[str, list[Clause]] = {}
        for c in self.spec + self.tests + self.instances:
            if c.key is not None and c.multi is None and c.twin is None:
                self.by_input.setdefault(c.input_id, []).append(c)
        # twin observations (kernel/obstwins.py) are refuted by each other only
        self.twins = [c for c in self.spec + self.tests if c.twin is not None]
        # clauses of several calls (kernel/multi.py) take part through the clauses pinning their calls
        self.multi = [c for c in self.tests if c.multi is not None]
        self.universal = [c for c in self.spec if c.key is None and c.py is None]
        self.py = [c for c in self.spec if c.py is not None]
        # witnesses satisfy a ``--spec`` clause through ``Py.wit`` (its own outcome off the table);
        # they cannot also satisfy another universal clause, and need every tabled input evaluated
        self.witness_ok = witness_ok and not (self.py and self.universal) and not self.twins
        # one search tree of all inputs for the witnesses' lookups (``Py.wit`` tables stay lists)
        self.keys = None if self.py else KeyIndex.build(self.spec + self.tests + self.instances)

    def table(self) -> "Table":
        return Table(keys=self.keys, tree=bool(self.py))

    def related(self, input_id: str | None) -> list[Clause]:
        """The description clauses that speak about ``input_id``."""
        return [s for s in self.spec if s.twin is None and ((s.key is None and s.py is None)
                                                             or (s.key is not None and s.input_id == input_id))] \
            + [s for s in self.instances if s.input_id == input_id]

    # -- proof terms of clauses from hypotheses -----------------------------------------
    def proj(self, c: Clause, hs: str, ht: str, key: str | None = None) -> str:
        """Proof of clause ``c`` (at ``key`` for a universal clause) from ``hs : Spec impl``
        and ``ht : Tests impl``."""
        if c.instance_of is not None:
            base = f"({projection(self.si[c.instance_of.name], len(self.spec), hs)} {c.key})"
            if c.eq is not None:
                # the value is spelled out unless a certificate may not hold its text (then the
                # elaborator infers it by evaluating the spec)
                val = emit.lean_val(c.eq)
                named = "" if _banned(val) else f"(c := {val}) "
                return f"(Py.eq_of_sat {named}{base} (Eq.refl _))"
            if c.pred is not None:
                return f"(Py.raises_of_sat {base} (Eq.refl _))"
            return base
        if c.name in self.si:
            p = projection(self.si[c.name], len(self.spec), hs)
        else:
            p = projection(self.ti[c.name], len(self.tests), ht)
        if c.key is None:
            p = f"({p} {key})"
        return p

    @staticmethod
    def post_refute(post: Clause, p_post: str, p_eq: str) -> str:
        """Proof of False from a postcondition instance and an equation with a class failing it."""
        named = "" if _banned(post.post_args) else f"(a := {post.post_args}) "
        return (f"(Py.post_refute {named}{p_post} (Eq.refl _) {p_eq} (Eq.refl Bool.false) "
                f"(Eq.refl Bool.false))")

    def refute(self, a: Clause, b: Clause, hs: str, ht: str) -> str:
        """Proof of False from clauses ``a``, ``b`` (``_refutes(a, b)`` holds)."""
        key = a.key or b.key
        return self.refute_terms(a, b, self.proj(a, hs, ht, key), self.proj(b, hs, ht, key))

    def refute_terms(self, a: Clause, b: Clause, pa: str, pb: str) -> str:
        """Proof of False from proofs ``pa``, ``pb`` of clauses ``a``, ``b`` at the same input."""
        if a.twin is not None or b.twin is not None:
            assert a.twin is not None and b.twin is not None and a.twin[0] == b.twin[0]
            return f"(outcome_ne (same_outcome {pa} {pb}) (Eq.refl Bool.false))"
        truth = _opposite_truth(a, b)
        if a.eq is None and b.eq is None and truth is not None:
            return _TRUTHY_FALSY.format(pa, pb) if truth[0] is a else _TRUTHY_FALSY.format(pb, pa)
        rt = _raises_vs_returns(a, b) if a.eq is None and b.eq is None else None
        if rt is not None:
            # the call raises and returns: a case split on the outcome, each case refuted by evaluation
            r, t = rt
            pr_, pt = (pa, pb) if r is a else (pb, pa)
            ret = t.pred.lean()
            return (f"(Outcome.casesOn (motive := fun x => Holds {ret} x → Holds Outcome.raises x → False) "
                    "_ "
                    f"(fun v _ h => not_holds (P := Outcome.raises) h (Eq.refl (Outcome.ret v)) (Eq.refl Bool.false)) "
                    f"(fun e h _ => not_holds (P := {ret}) h (Eq.refl (Outcome.raise e)) (Eq.refl Bool.false)) "
                    f"{pt} {pr_})")
        if a.eq is None:
            a, b, pa, pb = b, a, pb, pa
        if b.check is not None:
            return self.post_refute(b, pb, pa)
        if b.eq is not None:
            return f"(outcome_ne (same_outcome {pa} {pb}) (Eq.refl Bool.false))"
        return f"(not_holds {pb} {pa} (Eq.refl Bool.false))"

    # -- search ------------------------------------------------------------------------------
    def find_conflict(self) -> Core | None:
        """Prefer test-vs-test cores, then description-vs-test, then description-internal."""
        best: Core | None = None
        rank = 99
        for i, a in enumerate(self.twins):
            for b in self.twins[i + 1:]:
                if a.input_id == b.input_id and a.twin[0] == b.twin[0] and a.twin[1] != b.twin[1] \
                        and self.deterministic and self._rank(a, b) < rank:
                    best, rank = Core(a, b), self._rank(a, b)
        for group in self.by_input.values():
            for i, a in enumerate(group):
                for b in group[i + 1:]:
                    if _refutes(a, b):
                        r = self._rank(a, b)
                        if r < rank:
                            best, rank = Core(a, b), r
            if rank == 0:
                return best
        for u in self.universal:
            for group in self.by_input.values():
                for c in group:
                    if _refutes(c, u):
                        r = self._rank(c, u)
                        if r < rank:
                            best, rank = Core(c, u), r
        for c in self.multi:
            pins = multi.pins_for(c, self.pin)
            if pins is not None:
                r = sum(p is not None and p.name in self.si for p in pins)
                if r < rank:
                    best, rank = Core(c, next(p for p in pins if p is not None), tuple(pins)), r
        return best

    def pin(self, input_id: str, spec_only: bool = False) -> Clause | None:
        """A clause fixing the outcome at ``input_id``: an ``eq`` clause (a test's first), else a
        ``raises`` clause; None when there is none (``spec_only``: description clauses only)."""
        group = [c for c in self.by_input.get(input_id, ()) if c.instance_of is None and c.py is None
                 and (not spec_only or c.name in self.si)]
        group.sort(key=lambda c: c.name in self.si)
        return next((c for c in group if c.eq is not None), None) or next((c for c in group if multi.is_raise(c)), None)

    def refute_core(self, core: Core, hs: str, ht: str) -> str:
        if core.pins:
            return multi.refute(core.a, core.pins, self.proj(core.a, hs, ht),
                                [None if p is None else self.proj(p, hs, ht) for p in core.pins])
        return self.refute(core.a, core.b, hs, ht)

    def _rank(self, a: Clause, b: Clause) -> int:
        return (a.name in self.si) + (b.name in self.si)

    def classify(self) -> list[TestClass]:
        out = []
        for t in self.tests:
            if t.twin is not None:      # decided against its twin only (kernel/obstwins.py)
                out.append(TestClass(t.name, "left-open", None, None))
                continue
            if t.multi is not None:
                pins = multi.pins_for(t, lambda i: self.pin(i, spec_only=True))
                if pins is not None:
                    first = next(p for p in pins if p is not None)
                    out.append(TestClass(t.name, "contradicted", first.name, by_clause=first, pins=tuple(pins)))
                else:
                    out.append(TestClass(t.name, "left-open", None, None))
                continue
            related = self.related(t.input_id)
            bad = next((s for s in related if _refutes(s, t)), None)
            if bad is not None:
                out.append(TestClass(t.name, "contradicted", bad.name, by_clause=bad))
                continue
            # a weakened test (``exact=False``: the clause says less than the assertion) is never
            # entailed: the kernel would check the clause, not the assertion; with documented
            # state (``deterministic=False``) an example of the same call decides nothing
            good = next((s for s in related if s.key is not None and self._entails(s, t)), None) \
                if t.exact and self.deterministic else None
            if good is not None:
                out.append(TestClass(t.name, "entailed", good.name, by_clause=good))
                continue
            w = self._choose(related, against=t)
            # only universal clauses (return type, stated bounds) say nothing specific about this
            # input: what the witness shows is then a gap in the formalization, not in the task
            specific = [s for s in related if s.key is not None]
            covered = None if not specific else "description" if any(
                s.instance_of is None and not str(getattr(s.source, "id", "")).startswith("S") for s in specific) \
                else "spec"
            out.append(TestClass(t.name, "left-open", None, w, covered=covered))
        return out

    @staticmethod
    def _entails(s: Clause, t: Clause) -> bool:
        if s.eq is not None:
            return t.holds(Outcome(cls=s.eq))
        return s.pred == t.pred and s.pred is not None

    def _candidates(self, clauses: Sequence[Clause]) -> list[Outcome]:
        cands: list[Outcome] = []
        for c in clauses:
            cands += list(c.candidates)
        for c in clauses:
            if c.eq is not None:
                cands.append(Outcome(cls=c.eq))
        for c in clauses:
            if c.pred is not None:
                vp = c.pred.vp
                if vp[0] == "eq":
                    cands.append(Outcome(cls=vp[1]))
                elif vp[0] == "mem":
                    cands += [Outcome(cls=x) for x in vp[1]]
                elif vp[0] == "cmp" and vp[2].kind == "int":
                    cands += [Outcome(cls=V("int", vp[2].val + d)) for d in (-1, 0, 1)]
                elif vp[0] == "len":
                    cands.append(Outcome(cls=V("list", tuple(V("none") for _ in range(min(vp[1], 10000))))))
                elif vp[0] == "near":
                    cands.append(Outcome(cls=vp[1]))
                elif vp[0] == "intIn":
                    lo = vp[1] if vp[1] is not None else (vp[2] if vp[2] is not None else 0)
                    cands.append(Outcome(cls=V("int", lo)))
        cands += [Outcome(cls=V("int", n)) for n in (0, 1, 2, -1)]
        cands += [Outcome(cls=V("none")), Outcome(cls=V("str", "")), Outcome(cls=V("list", ())),
                  Outcome(cls=V("rat", (1, 2))), Outcome(exc="SpecGuardWitness")]
        return cands

    def _choose(self, clauses: Sequence[Clause], against: Clause | None = None) -> Outcome | None:
        """An outcome satisfying ``clauses`` (and the universal ones), failing ``against``."""
        need = list(clauses) + [u for u in self.universal if u not in clauses]
        pool = self._candidates(need + ([against] if against else []))
        if against is not None and against.eq is not None:
            c = against.eq
            if c.kind == "int":
                pool = [Outcome(cls=V("int", c.val + d)) for d in (1, -1, 2)] + pool
        for o in pool:
            if all(c.holds(o) for c in need) and (against is None or not against.holds(o)):
                return o
        return None

    # -- proofs --------------------------------------------------------------------------------
    # A witness ``w`` is a lookup table with named entries: ``w_k<i>`` (input), ``w_o<i>``
    # (outcome), ``w_t<i>`` (the table from entry i on); ``w_at<i> : w w_k<i> = w_o<i>`` is proved
    # by ``lookup_miss`` steps (inputs compared up to their first difference) and ``lookup_hit``
    # (no re-evaluation of an input against itself, thanks to ``Val.beq_refl``).
    def at_proof(self, w: str, table: "Table", input_id: str) -> str:
        return f"{w}_at{table.index[input_id]}"

    def dflt(self, w: str, key: str) -> str:
        """The witness's outcome off its table, as seen at ``key``."""
        return f"(Py.self {PY_SPEC} {key})" if self.py else f"{w}_dflt"

    def clause_proof(self, c: Clause, w: str, table: "Table") -> str:
        """Proof that the witness satisfies clause ``c`` (a keyed clause at a tabled input)."""
        at = self.at_proof(w, table, c.input_id)
        if c.eq is not None:
            return at
        if c.multi is not None:
            return multi.witness_proof(c, w, lambda i: self.at_proof(w, table, i), lambda i: table.entries[i][1])
        return f"(holds_of_eq' (P := {c.pred.lean()}) {at} (Eq.refl Bool.true))"

    def spec_proof(self, w: str, table: "Table") -> str:
        """Proof of ``Spec w``."""
        parts = []
        for c in self.spec:
            if c.py is not None and table.vtree() is not None:
                parts.append(f"(Py.vwit_sat {PY_SPEC} {w}_v{table.vtree()[0]} (Eq.refl Bool.true))")
            elif c.py is not None:
                parts.append(f"(Py.wit_sat {PY_SPEC} {w}_t0 (Eq.refl Bool.true))")
            elif c.key is None and table.indexed():
                parts.append(f"(ilookup_holds {c.pred.lean()} {w}_dflt (Eq.refl Bool.true) IX_keys "
                             f"{table.keys.miss} {w}_outs (Eq.refl Bool.true))")
            elif c.key is None:
                parts.append(f"(fun k => lookup_holds {c.pred.lean()} {w}_dflt (Eq.refl Bool.true) k {w}_t0 "
                             f"(Eq.refl Bool.true))")
            else:
                parts.append(self.clause_proof(c, w, table))
        return _and_intro(parts)

    def tests_proof(self, w: str, table: "Table") -> str:
        return _and_intro([self.clause_proof(c, w, table) for c in self.tests])

    def witness_decl(self, w: str, table: "Table") -> str:
        if table.indexed() and not self.py:
            return self._indexed_decl(w, table)
        if self.py and table.vtree() is not None:
            return self._vtree_decl(w, table)
        rows = list(table.entries.values())
        n = len(rows)
        out = []
        for i, (key, o) in enumerate(rows):
            out.append(f"noncomputable def {w}_k{i} : Val := {key}")
            out.append(f"noncomputable def {w}_o{i} : Outcome := {o.lean()}")
        out.append(f"noncomputable def {w}_t{n} : List (Prod Val Outcome) := List.nil")
        for i in reversed(range(n)):
            out.append(f"noncomputable def {w}_t{i} : List (Prod Val Outcome) := List.cons (Prod.mk {w}_k{i} {w}_o{i}) {w}_t{i + 1}")
        if self.py:
            out.append(f"noncomputable def {w} : Val → Outcome := Py.wit {PY_SPEC} {w}_t0")
        else:
            out.append(f'noncomputable def {w}_dflt : Outcome := Outcome.raise "SpecGuardWitness"')
            out.append(f"noncomputable def {w} : Val → Outcome := fun k => lookup {w}_t0 {w}_dflt k")
        for i in range(n):
            d = self.dflt(w, f"{w}_k{i}")
            proof = f"(lookup_hit {w}_k{i} {w}_o{i} {d} {w}_t{i + 1})"
            for j in reversed(range(i)):
                proof = (f"(Eq.trans (lookup_miss {w}_k{i} {w}_k{j} {w}_o{j} {d} {w}_t{j + 1} "
                         f"(Eq.refl Bool.false)) {proof})")
            out.append(f"theorem {w}_at{i} : Eq ({w} {w}_k{i}) {w}_o{i} := {proof}")
        return "\n".join(out) + "\n"

    def _vtree_decl(self, w: str, table: "Table") -> str:
        """A ``--spec`` witness as ``Py.vwit PySpec0 {w}_v<root>``: a search tree of its entries
        (``VTree``, ``Val.order``), the spec's own outcome elsewhere; ``log n`` steps per entry."""
        root, kids, paths = table.vtree()
        rows = list(table.entries.values())
        out = []
        for i, (key, o) in enumerate(rows):
            out.append(f"noncomputable def {w}_k{i} : Val := {key}")
            out.append(f"noncomputable def {w}_o{i} : Outcome := {o.lean()}")
        for i in _children_first(root, kids):
            out.append(f"noncomputable def {w}_v{i} : VTree := VTree.node {kids[i][0] and f'{w}_v' + str(kids[i][0][0]) or 'VTree.leaf'} "
                       f"{w}_k{i} {w}_o{i} {kids[i][1] and f'{w}_v' + str(kids[i][1][0]) or 'VTree.leaf'}")
        out.append(f"noncomputable def {w} : Val → Outcome := Py.vwit {PY_SPEC} {w}_v{root}")

        def sub(ix: list) -> str:
            return f"{w}_v{ix[0]}" if ix else "VTree.leaf"
        for i in range(len(rows)):
            d = self.dflt(w, f"{w}_k{i}")
            proof = f"(vtree_hit {d} {w}_k{i} {w}_o{i} {sub(kids[i][0])} {sub(kids[i][1])})"
            for h, way in reversed(paths[i]):
                lemma, want = ("vtree_lt", 0) if way == "lt" else ("vtree_gt", 2)
                proof = (f"(Eq.trans ({lemma} {d} {w}_k{i} {w}_k{h} {w}_o{h} {sub(kids[h][0])} {sub(kids[h][1])} "
                         f"(Eq.refl {want})) {proof})")
            out.append(f"theorem {w}_at{i} : Eq ({w} {w}_k{i}) {w}_o{i} := {proof}")
        return "\n".join(out) + "\n"

    def _indexed_decl(self, w: str, table: "Table") -> str:
        """The witness as ``ilookup IX_keys miss {w}_outs {w}_dflt`` (see :class:`KeyIndex`)."""
        ix = table.keys
        rows = list(table.entries.values())
        out = [ix.decls([k for k, _ in rows]).rstrip("\n")]
        for i, (key, o) in enumerate(rows):
            out.append(f"noncomputable def {w}_k{i} : Val := {key}")
            out.append(f"noncomputable def {w}_o{i} : Outcome := {o.lean()}")
        by_pos = sorted(range(len(rows)), key=lambda i: ix.pos[rows[i][0]])

        def ntree(ids: list[int]) -> str:
            if not ids:
                return "NTree.leaf"
            mid = len(ids) // 2
            i = ids[mid]
            return f"(NTree.node {ntree(ids[:mid])} {ix.pos[rows[i][0]]} {w}_o{i} {ntree(ids[mid + 1:])})"
        out.append(f"noncomputable def {w}_outs : NTree := {ntree(by_pos)}")
        out.append(f'noncomputable def {w}_dflt : Outcome := Outcome.raise "SpecGuardWitness"')
        out.append(f"noncomputable def {w} : Val → Outcome := ilookup IX_keys {ix.miss} {w}_outs {w}_dflt")
        for i, (key, _) in enumerate(rows):
            g = ix.pos[key]
            out.append(f"theorem {w}_at{i} : Eq ({w} {w}_k{i}) {w}_o{i} := ilookup_at IX_keys {ix.miss} {w}_outs "
                       f"{w}_dflt {w}_k{i} {g} {w}_o{i} IX_at{g} (Eq.refl {w}_o{i})")
        return "\n".join(x for x in out if x) + "\n"

    def spec_table(self) -> "Table | None":
        table = self.table()
        for c in self.spec:
            if c.key is None or c.input_id in table.index:
                continue
            group = [s for s in self.spec + self.instances if s.key is not None and s.input_id == c.input_id]
            o = self._choose(group)
            if o is None:
                return None
            table.add(c.input_id, c.key, o, c.key_text)
        return table


def _vtree(table: "Table"):
    """The search tree of a table's entries by ``Val.order`` of their inputs: ``(root, kids,
    paths)`` with entry indices (``kids[i] = (left ids, right ids)``, each list starting with the
    subtree's root; ``paths[i]`` the ``(node, "lt" | "gt")`` steps from the root), or None when an
    input cannot be ordered (the table then stays a list)."""
    if not table.entries:
        return None
    order = emit.order_terms(table.texts)
    if order is None:
        return None
    kids: dict[int, tuple[list, list]] = {}
    paths: dict[int, list] = {}

    def build(ix: list, above: list) -> list:
        if not ix:
            return []
        mid = len(ix) // 2
        node = ix[mid]
        left = build(ix[:mid], above + [(node, "lt")])
        right = build(ix[mid + 1:], above + [(node, "gt")])
        kids[node] = (left, right)
        paths[node] = above
        return [node] + left + right
    root = build(order, [])[0]
    return root, kids, paths


def _children_first(root: int, kids: dict) -> list[int]:
    out: list[int] = []

    def walk(i: int) -> None:
        left, right = kids[i]
        if left:
            walk(left[0])
        if right:
            walk(right[0])
        out.append(i)
    walk(root)
    return out


def _banned(text: str) -> bool:
    from specguard.kernel.certcheck import BANNED
    return any(tok in text for tok in BANNED)


def _and_intro(parts: Sequence[str]) -> str:
    """Proof of a :func:`emit.conj` from proofs of its parts."""
    return emit.balanced(parts, "True.intro", "(And.intro {} {})")


PY_SPEC = "PySpec0"


def plan(spec: Sequence[Clause], tests: Sequence[Clause], *, classify: bool = True,
         instances: Sequence[Clause] = (), witness_ok: bool = True, deterministic: bool = True) -> Plan:
    """Decide, and build the claims and their proofs (not yet checked).

    ``instances``: a ``--spec`` clause evaluated at tested inputs (see ``emit.Clause``);
    ``witness_ok``: witnesses may table every tested input (the spec was evaluated at each);
    ``deterministic=False`` (the description documents state between calls): no test is entailed
    by a description clause about the same call."""
    pr = Prover(spec, tests, instances, witness_ok, deterministic)
    p = Plan()
    core = pr.find_conflict()
    exists = f"Exists (fun ({IMPL}) => And (Spec impl) (Tests impl))"
    hs, ht = "(And.left hh)", "(And.right hh)"
    if core is not None:
        p.conflict = core
        p.claims["Conflict"] = f"Not ({exists})"
        p.proofs.append(
            "theorem proof_Conflict : Conflict :=\n  fun h => match h with\n"
            f"  | Exists.intro _impl hh => {pr.refute_core(core, hs, ht)}\n")
    if classify and spec:
        p.classes = pr.classify()
        for tc in p.classes:
            t = tests[pr.ti[tc.name]]
            if tc.status == "contradicted":
                s = tc.by_clause or spec[pr.si[tc.by]]
                name = f"Contradicted_{tc.name}"
                p.claims[name] = f"∀ ({IMPL}), Spec impl → Not ({tc.name} impl)"
                proof = multi.refute(t, tc.pins, "ht", [None if x is None else pr.proj(x, "hs", "ht")
                                                        for x in tc.pins]) if tc.pins \
                    else _refute_single(pr, s, t)
                p.proofs.append(f"theorem proof_{name} : {name} :=\n  fun _impl hs ht => {proof}\n")
            elif tc.status == "entailed":
                s = tc.by_clause or spec[pr.si[tc.by]]
                name = f"Entailed_{tc.name}"
                p.claims[name] = f"∀ ({IMPL}), Spec impl → {tc.name} impl"
                sp = pr.proj(s, "hs", "ht", s.key)
                body = sp if t.eq is not None or t.pred == s.pred else \
                    f"(holds_of_eq' (P := {t.pred.lean()}) {sp} (Eq.refl Bool.true))"
                p.proofs.append(f"theorem proof_{name} : {name} :=\n  fun _impl hs => {body}\n")
        _left_open_proofs(pr, p, tests)
    if core is None and classify and pr.witness_ok:
        table = _consistent_table(pr)
        if table is not None and len(table) < MAX_TABLE and table.cost <= WITNESS_BUDGET:
            p.consistent = True
            p.claims["Consistent"] = exists
            p.proofs.append(pr.witness_decl("W", table) +
                            f"theorem proof_Consistent : Consistent :=\n  Exists.intro W (And.intro "
                            f"{pr.spec_proof('W', table)} {pr.tests_proof('W', table)})\n")
    return p


def _left_open_proofs(pr: Prover, p: Plan, tests: Sequence[Clause]) -> None:
    """One witness ``WL`` (a lookup table) that satisfies ``Spec`` and fails every left-open
    test it can; one cheap ``LeftOpen_T`` proof per such test."""
    groups: dict[str, list[TestClass]] = {}
    for tc in p.classes:
        if tc.status == "left-open" and tc.witness is not None:
            groups.setdefault(tests[pr.ti[tc.name]].input_id, []).append(tc)
    base = pr.spec_table() if pr.witness_ok else None
    if not groups or base is None:
        for tcs in groups.values():
            for tc in tcs:
                tc.witness = None
        return
    table = base.copy()
    done: list[TestClass] = []
    for input_id, tcs in groups.items():
        ts = [tests[pr.ti[tc.name]] for tc in tcs]
        related = pr.related(input_id)
        need = related + [u for u in pr.universal if u not in related]
        pool = [tc.witness for tc in tcs] + pr._candidates(need + ts)
        o = next((o for o in pool if all(c.holds(o) for c in need) and not any(t.holds(o) for t in ts)), None)
        trial = table.copy()
        if o is not None and input_id not in table.index:
            trial.add(input_id, ts[0].key, o, ts[0].key_text)
        if o is None or input_id in table.index or len(trial) > MAX_TABLE or trial.cost > WITNESS_BUDGET:
            for tc in tcs:
                tc.witness = None
            continue
        table = trial
        for tc in tcs:
            tc.witness = o
            done.append(tc)
    if not done:
        return
    p.proofs.append(pr.witness_decl("WL", table) + f"theorem WL_spec : Spec WL := {pr.spec_proof('WL', table)}\n")
    for tc in done:
        t = tests[pr.ti[tc.name]]
        name = f"LeftOpen_{tc.name}"
        at = pr.at_proof("WL", table, t.input_id)
        p.claims[name] = f"Exists (fun ({IMPL}) => And (Spec impl) (Not ({tc.name} impl)))"
        p.proofs.append(f"theorem proof_{name} : {name} :=\n  Exists.intro WL (And.intro WL_spec "
                        f"(fun ht => {_refute_concrete(t, at, 'ht')}))\n")


def _refute_single(pr: Prover, s: Clause, t: Clause) -> str:
    """Proof of False from ``hs`` (Spec) and ``ht : T impl`` (the test clause itself)."""
    return pr.refute_terms(s, t, pr.proj(s, "hs", "ht", t.key), "ht")


def _refute_concrete(t: Clause, at: str, h: str) -> str:
    """Proof of False from ``h : T W`` and ``at : W K = O`` where outcome ``O`` fails t."""
    if t.eq is not None:
        return f"(outcome_ne (Eq.trans (Eq.symm {at}) {h}) (Eq.refl Bool.false))"
    return f"(not_holds {h} {at} (Eq.refl Bool.false))"


def _consistent_table(pr: Prover) -> Table | None:
    table = pr.table()
    for input_id, group in pr.by_input.items():
        o = pr._choose(group)
        if o is None:
            return None
        table.add(input_id, group[0].key, o, group[0].key_text)
    if pr.multi:
        # the inputs only clauses of several calls speak about get outcomes making them hold
        known = {i: o for i, (_, o) in table.entries.items()}
        chosen = multi.fill(pr.multi, known, pr._candidates(pr.tests),
                            lambda o: all(u.holds(o) for u in pr.universal))
        if chosen is None:
            return None
        where = multi.inputs_of(pr.multi)
        for input_id, o in chosen.items():
            table.add(input_id, where[input_id][0], o, where[input_id][1])
    return table


def render_cert(p: Plan, spec: Sequence[Clause] = ()) -> str:
    """The certificate; ``spec`` (the description clauses) supplies the ``--spec`` term that
    witness implementations refer to (``PySpec0``), when they do."""
    head = ""
    body = "\n".join(p.proofs)
    py = [c for c in spec if c.py is not None]
    if py and PY_SPEC in body:
        head = f"noncomputable def {PY_SPEC} : Py.Spec := {py[0].py}\n\n"
    return CERT_HEADER + "open SpecGuard\n\n" + head + body + f"\nend {emit.NS}\n"
