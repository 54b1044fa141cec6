"""The ``check`` pipeline: task -> formalization -> Lean -> proofs -> kernel -> result.

:func:`check_task` runs the stages (each a module with one entry function) and
returns a :class:`Bundle` (the result and the files to write); writing is
:mod:`specguard.outputs.bundle`'s job.
"""

from __future__ import annotations

import dataclasses
import hashlib
import time
from dataclasses import dataclass, field

from specguard import __version__
from specguard.formalize import argstate, assumptions as assume, library, objects, speclang
from specguard.kernel import certcheck, emit, obstwins, runner as lean_runner, prove
from specguard.python import iterate
from specguard.model import reader_agent as test_agent
from specguard.formalize.description import formalize_description
from specguard.formalize.tests import formalize_tests
from specguard.formalize.twins import find_twins
from specguard.python.values import FUNCTION
from specguard.models import (Call, Claim, ClaimKind, DescFormalization, Demand, Expect, ExpectKind,
                              InputFile, Loc, Task, TestFormalization, Unsupported)
from specguard.model.llm import ModelSettings
from specguard.outputs.results import (ASSUMPTIONS, CertReport, ClaimReport, ConflictCore, Coverage,
                                       Evidence, Item, Result, RuntimeReport, TestReport, Verdict)


@dataclass
class Options:
    timeout: float = 60.0
    memory_mb: int = lean_runner.DEFAULT_MEMORY_MB
    classify: bool = True
    # ``--spec``: a spec in SpecGuard's specification language replaces the description's rules
    spec: "speclang.SpecProgram | None" = None
    # mirror steps the kernel is asked to evaluate per input (more: SpecGuard's evaluator alone,
    # execution evidence)
    spec_budget: int = speclang.DEFAULT_KERNEL_BUDGET
    # ``--model``: a litellm model writes specs from the description (never the tests) when the
    # rule-based path reaches no verdict; None (the default): no model is ever called
    model: "ModelSettings | None" = None
    samples: int = 3          # ``--samples K``: independent model specs
    min_agree: int = 2        # ``--min-agree N``: a conflict is certified only against >= N of them
    max_refuted: int = 1      # a counted model spec contradicts at most this many tests (check.MAX_REFUTED)
    judge: bool = True        # ``--no-judge``: no model-judgment fallback
    rounds: int = 3           # spec-agent feedback rounds per sample
    context: tuple = ()       # ``--context PATH...``: (name, text) source files the spec agent may read
    # demands the test agent read from assertions the AST path left unsupported (accepted by
    # :func:`specguard.model.reader_agent.accept`); added to the AST path's, never replacing them
    demands: tuple = ()
    # with ``spec`` and no described signature, keyword arguments bind by the spec's parameters
    # (a spec the user wrote describes the function; a model-written one may name them otherwise)
    spec_binds: bool = True
    # ``verify --inputs`` re-deriving a bundle's result: ``kernel(claims)`` answers for the
    # certificate check with the kernel's verdict on the *bundle's* certificate (a
    # certcheck.CertVerdict) instead of checking SpecGuard's own; ``execute=False``: the spec is
    # never evaluated beyond the kernel budget (no execution evidence)
    kernel: "object | None" = None
    execute: bool = True


@dataclass
class Bundle:
    result: Result
    files: dict[str, str] = field(default_factory=dict)   # name -> text (Lean files, formalization)
    claims: tuple[str, ...] = ()
    inputs: tuple = ()    # extra manifest inputs (a model-written spec, role spec)
    options: "object | None" = None   # results.DerivationOptions the trusted files were derived with
    agreement: "SpecAgreement | None" = None   # with a spec: how it compares with every test and example


def _statement(call, expect, calls=(), exposed=()) -> str:
    if not calls and exposed:       # a result held across a later call (multiterm: one call, guarded)
        return f"{call.source()} {expect.source()} where its result is immutable plain data"
    if calls:
        from specguard.kernel import multi
        text = multi.text_with_calls(expect.expr or "", [f"list({c.source(60)})" if expect.through_list
                                                          else c.source(60) for c in (call, *calls)])
        return f"{text} holds"
    if expect.through_list:
        return f"list({call.source()}) {expect.source()}"
    return f"{call.source()} {expect.source()}"


def claim_statement(c: Claim) -> str:
    if isinstance(c, speclang.SpecItem):
        return c.statement
    if c.call is not None and c.expect is not None:
        return _statement(c.call, c.expect)
    if c.type is not None:
        return f"every returned value has type {c.type.source()}"
    lo = "-inf" if c.lo is None else str(c.lo)
    hi = "inf" if c.hi is None else str(c.hi)
    return f"every returned value is an int in [{lo}, {hi}]"


def _item(clause: emit.Clause) -> Item:
    src = clause.source
    if isinstance(src, Demand):
        return Item(id=src.id, source="test", loc=src.loc, text=src.text,
                    statement=_statement(src.call, src.expect, src.calls, src.exposed),
                    read_by=src.read_by)
    if isinstance(clause.source, speclang.SpecItem) and clause.instance_of is not None:
        src = clause.source
    return Item(id=src.id, source="description", loc=src.loc, text=src.text, statement=claim_statement(src))


def _finding(tc: "prove.TestClass | None", *, spec_given: bool) -> str | None:
    """What a left-open test tells the user (issue 14): 'over-specified' only when a clause about
    this very input allows an outcome the test rejects (the witness), i.e. the description's
    example there or a user-given ``--spec`` evaluated there; otherwise 'not-covered': what was
    formalized says nothing specific about the input (a return type, a bound), so the witness
    is an artifact of SpecGuard's reading.  A model-written spec is SpecGuard's reading too."""
    if tc is None or tc.status != "left-open":
        return None
    if tc.witness is not None and (tc.covered == "description" or (tc.covered == "spec" and spec_given)):
        return "over-specified"
    return "not-covered"


def formalize(task: Task) -> tuple[TestFormalization, DescFormalization]:
    # no entry point given: the one class the tests build and observe, if the description has it
    entry = task.entry_point or objects.class_entry(task)
    tf = formalize_tests(task.tests, entry)
    seen = objects.observation_note(tf, entry)
    if seen:
        tf = tf.model_copy(update={"notes": tf.notes + (seen,)})
    df = formalize_description(task.description, path=task.description_path, entry_point=entry,
                               line_offset=task.description_line_offset, report=task.description_is_report)
    return tf, df


def _clauses(items, fn) -> tuple[list[emit.Clause], list[Unsupported]]:
    out, bad = [], []
    for x in items:
        try:
            out.append(fn(x))
        except emit.NotModelled as e:
            bad.append(Unsupported(loc=x.loc, reason=str(e), text=x.text))
    return out, bad


@dataclass
class _Formal:
    """Everything ``check_task`` derives from a task before Lean runs."""

    tf: TestFormalization
    df: DescFormalization
    test_clauses: list[emit.Clause]
    unmodelled: list[Unsupported]
    spec_clauses: list[emit.Clause]
    spec_unmodelled: list[Unsupported]
    files: dict[str, str]
    plan: prove.Plan
    spec: "_SpecUse | None" = None
    bound: int = 0            # calls whose keyword arguments were bound by the described signature
    contra: assume.Contradicted = field(default_factory=assume.Contradicted)   # assumptions the task contradicts
    listed: bool = False      # modelled as list(f(...)) (specguard/python/iterate.py)


@dataclass
class _SpecUse:
    """How a ``--spec`` took part: its clause, its instances, what the mirror said at each
    tested input, and the inputs beyond the kernel budget (execution evidence)."""

    program: speclang.SpecProgram
    clause: emit.Clause
    instances: list[emit.Clause]
    outcomes: dict[str, speclang.MirrorOut]
    calls: dict[str, Call]
    over_budget: list[str]
    json: bool
    notes: list[str]


_SPEC_CLAUSE = "S0"


def _spec_claims(program: speclang.SpecProgram, entry: str) -> list[Claim]:
    """The spec's EXAMPLES, as description examples."""
    out = []
    for i, ex in enumerate(program.examples, start=1):
        out.append(Claim(id=f"S{i}", kind=ClaimKind.example, call=Call(target=entry, args=ex.args),
                         expect=Expect(kind=ExpectKind.eq, value=ex.expected),
                         loc=Loc(file=program.path, line=ex.line), text=ex.text))
    return out


def _spec_item(program: speclang.SpecProgram, statement: str) -> speclang.SpecItem:
    fn = program.fn("reference") or program.fn("post")
    lines = program.source.splitlines()
    text = lines[fn.line - 1].strip() if 0 < fn.line <= len(lines) else ""
    return speclang.SpecItem(id=_SPEC_CLAUSE, loc=Loc(file=program.path, line=fn.line), text=text, statement=statement)


def _variants(c) -> list:
    """Other classes worth trying as witnesses against a test expecting ``c`` (postconditions)."""
    from specguard.python.values import V
    import itertools
    out = []
    if c.kind in ("list", "tuple") and len(c.val) > 1:
        items = list(c.val)
        alts = [items[::-1], items[1:] + items[:1], sorted(items, key=lambda x: speclang.vals.sort_key(x))]
        alts += [items[:i] + [items[i + 1], items[i]] + items[i + 2:] for i in range(min(len(items) - 1, 50))]
        if len(items) <= 5:
            alts += [list(p) for p in itertools.permutations(items)]
        for alt in alts:
            v = V(c.kind, tuple(alt))
            if alt != items and v not in out:
                out.append(v)
    if c.kind == "str" and len(c.val) > 1:
        out.append(V("str", c.val[::-1]))
    if c.kind == "int":
        out += [V("int", c.val + d) for d in (1, -1)]
    return out


def _input_size(c: emit.Clause) -> int:
    """How big a clause's input is written out (a proxy for what evaluating the spec there costs)."""
    call = c.source.call
    r = speclang.vals.py_repr
    return sum(len(r(a)) for a in call.args) + sum(len(k) + len(r(v)) for k, v in call.kwargs)


def _smallest_first(keyed: list[emit.Clause], tests: list[emit.Clause]) -> list[emit.Clause]:
    """The order the spec is evaluated in under its one budget: the description's examples as they
    come (the agreement rule needs every one of them), then the tested inputs smallest first, so
    that a few expensive inputs cannot spend the budget before the cheap ones are reached (#15.2:
    a conflict at a small test was lost behind large ones).  Deterministic, so ``verify``'s
    re-derivation evaluates the same inputs."""
    test_ids = {id(t) for t in tests}
    spec = [c for c in keyed if id(c) not in test_ids]
    rest = [c for c in keyed if id(c) in test_ids]
    return spec + sorted(rest, key=_input_size)      # stable: equal sizes keep the suite's order


def _spec_use(program: speclang.SpecProgram, entry: str, json: bool, keyed: list[emit.Clause],
              tests: list[emit.Clause], budget: int) -> _SpecUse:
    """Evaluate the spec (mirror) at every tested input and build its instances there."""
    clause = emit.Clause(name=_SPEC_CLAUSE, key=None, py=program.lean_spec(entry, json), exact=True,
                         source=_spec_item(program, f"the spec {program.path} (for `{entry}`)"))
    outcomes: dict[str, speclang.MirrorOut] = {}
    calls: dict[str, Call] = {}
    keys: dict[str, str] = {}
    key_texts: dict[str, str | None] = {}
    # one budget for every evaluation of the spec in this derivation (deterministic in steps, so
    # verify's re-derivation reaches the same outcomes; FUEL in the spec does not raise it)
    evals = speclang.EvalBudget()
    for c in _smallest_first(keyed, tests):
        call = c.source.call
        if c.input_id in outcomes:
            continue
        keys[c.input_id] = c.key
        key_texts[c.input_id] = c.key_text
        calls[c.input_id] = call
        if call.target != entry:
            outcomes[c.input_id] = speclang.MirrorOut("none", reason=f"a call of {call.target}, not {entry}")
            continue
        if argstate.is_argument_state(call):
            outcomes[c.input_id] = speclang.MirrorOut("none", reason="the state of an argument after a call, not "
                                                                     "what the call returns")
            continue
        outcomes[c.input_id] = program.outcome(call.args, call.kwargs, json=json, budget=evals)
    instances: list[emit.Clause] = []
    over: list[str] = []
    notes: list[str] = []
    spent_out = [i for i, o in outcomes.items() if o.kind == "unknown" and o.reason == evals.exceeded]
    if spent_out:
        notes.append(f"inconclusive at {len(spent_out)} tested input(s): {evals.exceeded} (first: "
                     f"{calls[spent_out[0]].source(60)}); nothing is claimed there")
    spent = 0
    unmatched = [i for i, o in outcomes.items() if o.kind == "none" and "parameters" in o.reason]
    # the kernel's share (2 x budget in all) goes first to the inputs where the spec's value
    # contradicts a test: only those can give a conflict (#15.2: lcbhard_84's conflict input fitted
    # the re-check's budget, but the description's examples had spent the share before it)
    def refutes(item) -> bool:
        input_id, out = item
        if out.kind not in ("eq", "raises"):
            return False
        o = emit.Outcome(cls=out.value) if out.kind == "eq" else emit.Outcome(exc="SpecGuardSpec")
        return any(t.input_id == input_id and (not t.holds(o) if out.kind == "eq" else t.eq is not None)
                   for t in tests)
    ordered = sorted(outcomes.items(), key=lambda item: not refutes(item))     # stable
    if unmatched and len(unmatched) == len(outcomes):
        notes.append(f"no tested call of {entry} matches the spec's {program.nparams} positional parameter(s) "
                     f"(calls with keyword arguments are not bound): the spec says nothing about them")
    for input_id, out in ordered:
        call = calls[input_id]
        if out.kind == "unknown":
            if input_id not in spent_out:
                notes.append(f"the spec was not evaluated at {call.source(60)}: {out.reason}")
            continue
        if out.kind == "none":
            continue
        if out.steps > budget or spent + out.steps > 2 * budget:
            over.append(input_id)
            continue
        spent += out.steps
        common = dict(name=_SPEC_CLAUSE, key=keys[input_id], key_text=key_texts[input_id], input_id=input_id,
                      instance_of=clause, exact=True)
        if out.kind == "eq":
            try:
                emit.lean_val(out.value)
            except emit.NotModelled:
                continue
            st = f"{call.source()} == {speclang.vals.py_repr(out.value)} (the spec, evaluated by the kernel)"
            instances.append(emit.Clause(eq=out.value, source=_spec_item(program, st), **common))
        elif out.kind == "raises":
            st = f"{call.source()} raises (the spec: {out.reason})"
            instances.append(emit.Clause(pred=emit.Pred("raises"), source=_spec_item(program, st), **common))
        else:
            margs = out.args
            def check(o: emit.Outcome, margs=margs) -> bool:
                return o.exc is None and program.post_holds(margs, o.cls, budget=evals)
            lean_args = speclang._lean_list([emit.lean_val(a) for a in call.args] +
                                            [speclang.lean_lit(d) for d in program.defaults[
                                                len(call.args) - (program.nparams - len(program.defaults)):]])
            cands = []
            for t in tests:
                if t.input_id == input_id and t.eq is not None:
                    for v in _variants(t.eq):
                        o = emit.Outcome(cls=v)
                        if check(o):
                            cands.append(o)
            st = f"{call.source()} returns a value satisfying post (the spec)"
            instances.append(emit.Clause(check=check, post_args=lean_args, candidates=tuple(cands),
                                         source=_spec_item(program, st), **common))
    return _SpecUse(program, clause, instances, outcomes, calls, over, json, notes)


@dataclass
class SpecAgreement:
    """How a spec compares, input by input, with the evidence that is not the spec: the task's
    test assertions and the description's own examples (the spec's own EXAMPLES are not evidence),
    as SpecGuard's evaluator computes the spec there (the kernel certifies conflicts on its own).
    ``unknown``: tests where the spec says nothing or was not evaluated (budget, outside the
    subset, a postcondition against a non-value expectation)."""

    agreed: tuple[str, ...] = ()          # test ids
    refuted: tuple[str, ...] = ()         # test ids
    unknown: tuple[str, ...] = ()         # test ids
    weak: int = 0                         # agreeing tests formalized by a weaker statement
    examples_agreed: int = 0
    examples_refuted: tuple[str, ...] = ()   # 'file:line: statement' of description examples

    @property
    def tests(self) -> int:
        return len(self.agreed) + len(self.refuted) + len(self.unknown)


def _agrees(use: _SpecUse, c: emit.Clause, budget) -> bool | None:
    """Does the spec's outcome at ``c``'s input satisfy ``c``?  None: the spec says nothing there."""
    out = use.outcomes.get(c.input_id)
    if out is None or out.kind in ("unknown", "none"):
        return None
    if out.kind == "eq":
        return c.holds(emit.Outcome(cls=out.value))
    if out.kind == "raises":
        return c.holds(emit.Outcome(exc="SpecGuardSpec"))
    if c.eq is None:
        return None
    return use.program.post_holds(out.args, c.eq, budget=budget)


def spec_agreement(use: _SpecUse, tests: list[emit.Clause], spec: list[emit.Clause]) -> SpecAgreement:
    budget = speclang.EvalBudget()
    agreed, refuted, unknown, weak = [], [], [], 0
    for t in tests:
        a = _agrees(use, t, budget) if t.key is not None else None
        tid = t.source.id
        if a is None:
            unknown.append(tid)
        elif a:
            agreed.append(tid)
            weak += not t.exact
        else:
            refuted.append(tid)
    ok, bad = 0, []
    for c in spec:
        src = c.source
        if not isinstance(src, Claim) or src.kind is not ClaimKind.example or c.key is None \
                or src.loc.file == use.program.path:
            continue
        a = _agrees(use, c, budget)
        if a is True:
            ok += 1
        elif a is False:
            bad.append(f"{src.loc}: {claim_statement(src)}")
    return SpecAgreement(tuple(agreed), tuple(refuted), tuple(unknown), weak, ok, tuple(bad))


def _witness_ok(use: _SpecUse, tests: list[emit.Clause], budget: int) -> bool:
    """Witnesses table every tested input, so the kernel evaluates the spec at each of them."""
    from specguard.kernel.certcheck import BANNED
    if any(tok in use.clause.py for tok in BANNED):
        return False
    total = 0
    for input_id in {t.input_id for t in tests} | set(use.outcomes):
        out = use.outcomes.get(input_id)
        if out is None or out.kind == "unknown" or (out.kind == "none" and not out.sure) \
                or input_id in use.over_budget:
            return False
        total += out.steps
    return total <= budget


def bind_keywords(call: Call, sig) -> Call:
    """``call`` with its keyword arguments bound to positions by the description's signature
    (Python's binding for plain ``def f(a, b, c)`` parameters), when every parameter is given
    exactly once; otherwise ``call`` unchanged."""
    if not call.kwargs or sig is None or not sig.plain or call.target != sig.name:
        return call
    names = sig.params
    rest = names[len(call.args):]
    given = dict(call.kwargs)
    if len(given) != len(call.kwargs) or set(given) != set(rest) or len(call.args) + len(given) != len(names):
        return call
    update = {"args": call.args + tuple(given[n] for n in rest), "kwargs": ()}
    if call.after is not None and call.after in names:     # the state of `l` after f(x, l=v): args[1]
        update["after"] = str(names.index(call.after))
    return call.model_copy(update=update)


def _bound(items, sig) -> tuple[list, int]:
    out, n = [], 0
    for x in items:
        if x.call is not None:
            c = bind_keywords(x.call, sig)
            if c is not x.call:
                x, n = x.model_copy(update={"call": c}), n + 1
        more = getattr(x, "calls", ())
        if more:
            bound = tuple(bind_keywords(c, sig) for c in more)
            if any(a is not b for a, b in zip(bound, more)):
                x, n = x.model_copy(update={"calls": bound}), n + 1
        out.append(x)
    return out, n


def _stateful_calls(tf: TestFormalization, task: Task) -> TestFormalization:
    """Test assertions that expect different results of one call without arguments
    (``counter() == 1``, then ``counter() == 2``) test a function that keeps state between calls,
    which the model (a function of its arguments) does not cover: they become unsupported."""
    py = {s.path for s in task.tests if s.kind == "python"}
    groups: dict[str, list[Demand]] = {}
    for d in tf.demands:
        if d.loc.file in py and not d.call.args and not d.call.kwargs and d.call.obj is None:
            groups.setdefault(d.call.key(), []).append(d)
    bad = {id(d) for ds in groups.values() if len({d.expect.source() for d in ds}) > 1 for d in ds}
    if not bad:
        return tf
    moved = tuple(Unsupported(loc=d.loc, text=d.text, reason=(
        f"`{d.call.source(40)}` (no arguments) is expected to give different results in different assertions: "
        "a function that keeps state between calls is outside the model")) for d in tf.demands if id(d) in bad)
    return tf.model_copy(update={"demands": tuple(d for d in tf.demands if id(d) not in bad),
                                 "unsupported": tf.unsupported + moved})


def _function_inputs_aside(tf: TestFormalization) -> TestFormalization:
    """With a spec program: test calls that pass a function (``key=len``, a lambda) become
    unsupported, since the spec's semantics (``SpecGuard.Py``) is over plain data: what the spec
    computes from a function's named constant is not what Python computes from the function."""
    bad = [d for d in tf.demands if any(v.kind == FUNCTION for v in list(d.call.args) + [v for _, v in d.call.kwargs])]
    if not bad:
        return tf
    moved = tuple(Unsupported(loc=d.loc, text=d.text, reason=(
        f"`{d.call.source(40)}` passes a function: a spec program is evaluated over plain data only, so it is "
        "not compared with calls that pass functions")) for d in bad)
    ids = {id(d) for d in bad}
    return tf.model_copy(update={"demands": tuple(d for d in tf.demands if id(d) not in ids),
                                 "unsupported": tf.unsupported + moved})


def _formal(task: Task, classify: bool, spec: speclang.SpecProgram | None = None,
            budget: int = speclang.DEFAULT_KERNEL_BUDGET, demands: tuple[Demand, ...] = (),
            spec_binds: bool = True) -> _Formal:
    tf, df = formalize(task)
    if demands:
        tf = tf.model_copy(update={"demands": tf.demands + tuple(demands)})
    tf = _stateful_calls(tf, task)
    if spec is not None:
        tf = _function_inputs_aside(tf)
    else:       # `len(list(s.elements())) == 11`: an input of its own (objects.term_call)
        tf, df, _ = objects.term_inputs(tf, df)
    # keyword arguments bound by the description's own signature (or, with --spec and no
    # signature, the spec's parameters): f(1, b=2) is the input f(1, 2)
    sig = df.signature
    if sig is None and spec is not None and spec_binds:
        from specguard.models import Signature
        sig = Signature(name=spec.entry(task.entry_point), params=spec.param_names(), plain=True)
        df = df.model_copy(update={"signature": sig})
    bound_d, nd = _bound(tf.demands, sig)
    bound_c, nc = _bound(df.claims, sig)
    if nd or nc:
        tf = tf.model_copy(update={"demands": tuple(bound_d)})
        df = df.model_copy(update={"claims": tuple(bound_c),
                                   "notes": df.notes + (f"keyword arguments of {nd + nc} call(s) bound to the "
                                                        f"parameters of the described signature "
                                                        f"{sig.name}({', '.join(sig.params)})",)})
    json = any(src.kind == "table" for src in task.tests)
    claims = list(df.claims)
    entry = None
    if spec is not None:
        entry = spec.entry(task.entry_point)
        # the spec replaces the description's universal rules (return type, bounds); the
        # description's worked examples stay
        claims = [c for c in claims if c.kind is ClaimKind.example] + _spec_claims(spec, entry)
    # (not with --spec: the spec states what f returns, not list(f(...)))
    listed = None if json or spec is not None else iterate.through_list(tf.demands, claims, _target(task, df, tf, claims, entry))
    if listed is not None:      # #12.3: observed through list(...): the model is list(f(...))
        tf = tf.model_copy(update={"demands": listed.demands, "notes": tf.notes + listed.notes})
        claims = listed.claims
    if not json:                # other library functions observed through list(...): list(g(...)) each
        demands, lib_notes = library.through_list(tf.demands)
        if lib_notes:
            tf = tf.model_copy(update={"demands": demands, "notes": tf.notes + lib_notes})
    tf = iterate.drop_float_observations(tf)     # `list(f(x)) == [2.5]` where no list model applies
    test_clauses, unmodelled = _clauses(tf.demands, lambda d: emit.clause_of_demand(d, json))
    spec_clauses, spec_unmodelled = _clauses(claims, lambda c: emit.clause_of_claim(c, json))
    universal = spec is not None or any(c.key is None for c in spec_clauses)
    if universal and any(argstate.involves(c.call) for c in claims):
        # a rule for every input is about what `f` returns, not what it leaves in an argument: the
        # description's examples of an argument's state are set apart (formalize/argstate.py)
        aside = [c for c in claims if argstate.involves(c.call)]
        claims = [c for c in claims if not argstate.involves(c.call)]
        spec_clauses, spec_unmodelled = _clauses(claims, lambda c: emit.clause_of_claim(c, json))
        tf = tf.model_copy(update={"notes": tf.notes + tuple(
            f"{c.loc}: description example `{c.call.source(60)}` set apart: the description states a rule for "
            "every input of the function (a return type, bounds or a spec), which is about what it returns, not "
            "about what it leaves in an argument" for c in aside)})
        lines = {(c.loc.file, c.loc.line) for c in aside} - {(c.loc.file, c.loc.line) for c in claims}
        df = df.model_copy(update={"examples_read": max(0, df.examples_read - len(lines))})
    if universal and any(d.call.lib is not None for d in tf.demands):
        # a description rule or a spec is a statement about every input of `impl`, other library
        # functions' inputs included: their assertions are set apart (formalize/library.py)
        tf = library.set_apart(tf, "the description states a rule for every input of the function under test "
                                   "(a return type, bounds or a spec), which does not hold of other functions")
        test_clauses, unmodelled = _clauses(tf.demands, lambda d: emit.clause_of_demand(d, json))
    if universal and any(argstate.is_argument_state(d.call) for d in tf.demands):
        # a rule for every input or a spec is about what `f` returns, not what it leaves in an
        # argument (formalize/argstate.py)
        tf = library.set_apart(tf, "the description states a rule for every input of the function under test "
                                   "(a return type, bounds or a spec), which is about what it returns, not about "
                                   "what it leaves in an argument", which=argstate.is_argument_state)
        test_clauses, unmodelled = _clauses(tf.demands, lambda d: emit.clause_of_demand(d, json))
    if spec is not None and any(library.has_result(d.call) for d in tf.demands):
        # a spec computes on its argument values: a call's result as an argument stands for a value
        # the spec cannot see
        tf = library.set_apart(tf, "a spec computes on the arguments, and a call's result is not an exact value",
                               which=library.has_result)
        test_clauses, unmodelled = _clauses(tf.demands, lambda d: emit.clause_of_demand(d, json))
    contra = _contradicted(task, df, tf, claims, entry)
    test_clauses = _several_calls_aside(test_clauses, unmodelled, spec is not None, contra)
    tf = _unread_several_calls(tf, test_clauses)
    test_clauses, spec_clauses = _apply_contradicted(contra, test_clauses, spec_clauses, unmodelled, spec_unmodelled)
    spec_clauses, test_clauses = obstwins.pair_twins(spec_clauses, test_clauses,
                                                     contra.state is None and not contra.object_state)
    emit.name_inputs(spec_clauses, "SK")
    emit.name_inputs(test_clauses, "TK")
    use = None
    instances: list[emit.Clause] = []
    witness_ok = True
    if spec is not None:
        use = _spec_use(spec, entry, json, [c for c in spec_clauses + test_clauses if c.key is not None],
                        test_clauses, budget)
        spec_clauses.append(use.clause)
        instances = use.instances
        witness_ok = _witness_ok(use, test_clauses, budget)
        if contra.state is not None and instances:
            # the spec's outcome at a tested input says what one call gives, not every call
            use.notes.append(f"the spec was not compared with the tests at their inputs: the description "
                             f"documents state between calls ({contra.state})")
            instances, witness_ok = [], False
    files = {
        "spec.lean": emit.render_module("Spec", spec_clauses, lambda c: f"{c.source.loc}: {claim_statement(c.source)}"),
        "tests.lean": emit.render_module("Tests", test_clauses, lambda c: f"{c.source.loc}: {_statement(c.source.call, c.source.expect, c.source.calls, c.source.exposed)}"),
    }
    p = prove.plan(spec_clauses, test_clauses, classify=classify, instances=instances, witness_ok=witness_ok,
                   deterministic=contra.state is None and not contra.object_state)
    files["claim.lean"] = emit.render_claim(p.claims)
    return _Formal(tf, df, test_clauses, unmodelled, spec_clauses, spec_unmodelled, files, p, use, nd + nc, contra,
                   listed is not None)


def _calls(tf: TestFormalization, claims) -> list[Call]:
    return [d.call for d in tf.demands] + [c.call for c in claims if c.call is not None]


def _target(task: Task, df: DescFormalization, tf: TestFormalization, claims, entry: str | None) -> str | None:
    """The function under test: given, described, or the one function the calls name (calls on
    fresh objects name methods, not it)."""
    targets = {c.target for c in _calls(tf, claims) if c.obj is None and c.lib is None}
    return entry or task.entry_point or (df.signature.name if df.signature else None) \
        or (next(iter(targets)) if len(targets) == 1 else None)


def _contradicted(task: Task, df: DescFormalization, tf: TestFormalization, claims, entry: str | None
                  ) -> assume.Contradicted:
    """What the task says against the plain-data and function-of-its-arguments assumptions."""
    calls = _calls(tf, claims)
    observed = [c for c in calls if c.obj is not None]      # observations of fresh objects
    target = _target(task, df, tf, claims, entry)
    # targets observed through list(...) (#12.3): every demand and example of them reads the items
    mine = [d.expect for d in tf.demands] + [c.expect for c in claims if c.call is not None and c.expect is not None]
    owners = [d.call.target for d in tf.demands] + [c.call.target for c in claims if c.call is not None and c.expect is not None]
    iterated = frozenset(t for t in set(owners) if all(e.through_list for e, o in zip(mine, owners) if o == t))
    found = assume.object_results(task, df, {c.target for c in calls if c.obj is None and c.lib is None}, iterated)
    found.update(objects.method_objects(task, observed))
    contra = assume.Contradicted(objects=found, state=assume.documented_state(task, target))
    if observed:
        cls = observed[0].obj.cls
        contra.object_state = objects.state_problem(task, cls) or ""
        if not contra.object_state and not objects.class_like(cls) and contra.state is not None:
            # functions the function under test returned: its documented state (a cache of the
            # functions it builds, a counter) may reach them too
            contra.object_state = contra.state
    return contra


def _apply_contradicted(contra: assume.Contradicted, tests: list[emit.Clause], spec: list[emit.Clause],
                        unmodelled: list[Unsupported], spec_unmodelled: list[Unsupported]):
    """Objects: their assertions keep only "returns"; state: the assertions (and examples) about
    one call that expect different outcomes are not formalized (they join ``unmodelled``)."""
    def objects(cs):
        return [assume.returns_only(c) if c.key is not None and c.source.call.target in contra.objects else c
                for c in cs]
    if contra.objects:
        tests, spec = objects(tests), objects(spec)
    if contra.object_state:
        # objects whose results may vary with more than their history: their observations are
        # set apart where the same history is expected to give different outcomes
        keep, apart, why = assume.split_same_call([c for c in spec + tests if _observes(c)], contra.object_state)
        gone = {id(c) for c in apart}
        unmodelled += assume.unsupported_of([c for c in tests if id(c) in gone], why)
        spec_unmodelled += assume.unsupported_of([c for c in spec if id(c) in gone], why)
        tests = [c for c in tests if id(c) not in gone]
        spec = [c for c in spec if id(c) not in gone]
    if contra.state is not None:
        # a function's documented state; an object's state is in its input (its history)
        keep, apart, why = assume.split_same_call([c for c in spec + tests if not _observes(c)], contra.state)
        keep += [c for c in spec + tests if _observes(c)]
        names = {id(c) for c in keep}
        apart_t = [c for c in tests if id(c) not in names]
        apart_s = [c for c in spec if id(c) not in names]
        unmodelled += assume.unsupported_of(apart_t, why)
        spec_unmodelled += assume.unsupported_of(apart_s, why)
        tests = [c for c in tests if id(c) in names]
        spec = [c for c in spec if id(c) in names]
    return tests, spec


def _several_calls_aside(tests: list[emit.Clause], unmodelled: list[Unsupported], spec_given: bool,
                         contra: assume.Contradicted) -> list[emit.Clause]:
    """Clauses of several calls (specguard/kernel/multi.py) need a function of its arguments that
    returns plain data: with documented state, results that may be objects, or a ``--spec`` (whose
    instances are compared one input at a time) they are not formalized."""
    why = None
    if contra.state is not None:
        why = f"the description documents state between calls ({contra.state}): two calls in one assertion " \
              "may see different states"
    bad = [c for c in tests if c.multi is not None and (why or spec_given or c.source.call.target in contra.objects)]
    for c in bad:
        reason = why or ("an assertion of several calls is not compared with a spec program" if spec_given else
                         f"the results of `{c.source.call.target}` may be objects (their `==` is their own)")
        if not c.source.calls:      # one result held across a later call (tests.py observe_held)
            reason = reason.replace("two calls in one assertion may see different states",
                                    "a result read after a later call may have been changed") \
                .replace("an assertion of several calls", "a result read after a later call")
        unmodelled.append(Unsupported(loc=c.source.loc, reason=reason, text=c.source.text))
    return [c for c in tests if not any(c is b for b in bad)]


def _unread_several_calls(tf: TestFormalization, tests: list[emit.Clause]) -> TestFormalization:
    """An assertion of several calls counts as read only when it became a clause: the statements
    whose demands of several calls were all set aside (and that gave no other clause) are taken
    off ``assertions_read``."""
    kept = {(c.source.loc.file, c.source.loc.line) for c in tests if isinstance(c.source, Demand)}
    gone = {(d.loc.file, d.loc.line) for d in tf.demands if d.calls or d.exposed} - kept
    if not gone:
        return tf
    return tf.model_copy(update={"assertions_read": max(tf.assertions_read - len(gone), 0)})


def _observes(c: emit.Clause) -> bool:
    return c.key is not None and getattr(c.source, "call", None) is not None and c.source.call.obj is not None


def render_trusted(task: Task, *, classify: bool = True, spec: speclang.SpecProgram | None = None,
                   demands: tuple[Demand, ...] = (), budget: int = speclang.DEFAULT_KERNEL_BUDGET,
                   spec_binds: bool = True) -> dict[str, str]:
    """The trusted Lean texts ``check_task`` writes for ``task`` (``spec.lean``, ``tests.lean``,
    ``claim.lean``), derived without running Lean.  Pure and deterministic: ``specguard verify
    --inputs`` re-derives them and compares them byte for byte with a bundle's."""
    return dict(_formal(task, classify, spec, budget, demands, spec_binds).files)


def derived_assumptions(task: Task, *, spec: speclang.SpecProgram | None = None, demands: tuple[Demand, ...] = (),
                        budget: int = speclang.DEFAULT_KERNEL_BUDGET, spec_binds: bool = True) -> tuple[str, ...]:
    """The model's assumptions as ``check`` states them for ``task`` (``results.ASSUMPTIONS``, with
    those the task contradicts -- objects, documented state -- restated; see
    :mod:`specguard.formalize.assumptions`).  Pure, no Lean: ``verify --inputs`` can re-derive them."""
    return _assumptions(_formal(task, False, spec, budget, demands, spec_binds))


def _assumptions(f: _Formal) -> tuple[str, ...]:
    out = f.contra.assumptions(ASSUMPTIONS) + tuple(f.tf.assumptions)
    if f.listed:
        out += (iterate.ASSUMPTION,)
    if any(argstate.involves(d.call) for d in f.tf.demands) or any(argstate.involves(c.call) for c in f.df.claims):
        out += (argstate.ASSUMPTION,)
    others = [d for d in f.tf.demands if d.call.lib is not None]
    if others:
        out += (library.assumption(d.call.lib for d in others),)
        listed_others = {d.call.lib for d in others if d.expect.through_list}
        if listed_others:
            out += (library.listed_assumption(listed_others),)
    if f.contra.object_state is not None:
        out += (objects.ASSUMPTION,)
        if any(d.call.obj is not None and not objects.class_like(d.call.obj.cls) for d in f.tf.demands):
            out += (objects.RETURNED_FUNCTION_ASSUMPTION,)
        if any(objects.is_term_call(c.call) for c in list(f.tf.demands) + list(f.df.claims)):
            out += (objects.TERM_ASSUMPTION,)
        if f.contra.object_state:
            out += (f"The description says an object's results may vary with more than its calls "
                    f"({f.contra.object_state}): observations of one history expected to give different outcomes "
                    "were not formalized, and no test is taken as entailed by a description example.",)
    if f.bound:
        sig = f.df.signature
        out += (f"The implementation has the described signature {sig.name}({', '.join(sig.params)}): "
                "keyword arguments are bound to those parameters by name.",)
    return out


def _execution_conflict(f: _Formal, opts: Options) -> tuple[ConflictCore, str] | None:
    """At inputs where evaluating the spec in the kernel exceeds the budget: what SpecGuard's own
    evaluator (the mirror, over the checked IR, within its step, time and memory bounds) computed
    there; a test it contradicts is a conflict with *execution* evidence (not kernel-checked;
    the spec's source text is never run)."""
    use = f.spec
    if use is None or not use.over_budget:
        return None
    for input_id in use.over_budget:
        out = use.outcomes[input_id]
        if out.kind not in ("eq", "raises"):
            continue
        o = emit.Outcome(cls=out.value) if out.kind == "eq" else emit.Outcome(exc="SpecGuardSpec")
        for t in f.test_clauses:
            if t.input_id == input_id and (not t.holds(o) if out.kind == "eq" else t.eq is not None):
                call = use.calls[input_id]
                said = f"returns {speclang.vals.py_repr(out.exact or out.value)}" if out.kind == "eq" else "raises"
                st = f"{call.source()} {said} (the spec, evaluated by SpecGuard's evaluator)"
                spec_item = _item(emit.Clause(name=_SPEC_CLAUSE, key=None, source=_spec_item(use.program, st)))
                test_item = _item(t)
                core = ConflictCore(kind="description-vs-test", items=(test_item, spec_item),
                                    explanation=f"no implementation satisfies both `{test_item.statement}` "
                                                f"({test_item.loc}) and `{spec_item.statement}` ({spec_item.loc})")
                return core, (f"description-vs-test conflict (execution evidence, not kernel-checked: SpecGuard's "
                              f"own evaluator of the checked spec disagrees with a test at an input beyond the "
                              f"kernel budget of {opts.spec_budget} steps; the spec's source was not run): "
                              f"{core.explanation}")
    return None


def check_task(task: Task, options: Options | None = None) -> Bundle:
    """Run the pipeline on one task: the deterministic rules, then (``options.model``) the model
    path of :func:`_model_path` when they reach no certified or execution verdict.  What the
    loader skipped (``task.notes``) leads the result's notes."""
    b = _check_task(task, options)
    if task.notes:
        b = dataclasses.replace(b, result=b.result.model_copy(update={"notes": tuple(task.notes) + b.result.notes}))
    return b


def _check_task(task: Task, options: Options | None = None) -> Bundle:
    opts = options or Options()
    b = _check_rules(task, opts)
    r = b.result
    if r.verdict is not Verdict.inconclusive or opts.spec is not None:
        return b
    if opts.model is None:
        skipped = ("model path skipped: no model is configured (--model, SPECGUARD_MODEL or `model` in "
                   "your configuration file would let a model read the unsupported assertions and formalize "
                   "the prose)")
        update: dict = {"notes": r.notes + (skipped,)}
        # "no conflict in what was read" with something left to read (an assertion unread, a test the
        # formalized description does not decide): the model path is what was skipped
        cov = r.coverage
        left = cov is not None and (cov.assertions_read < cov.assertions_total or
                                    any(t.status not in ("entailed", "contradicted") for t in r.tests))
        if r.inconclusive_kind == "no-conflict-in-what-was-read" and left:
            update["inconclusive_kind"] = "model-skipped"
        return dataclasses.replace(b, result=r.model_copy(update=update))
    b = _model_path(task, opts, b)
    if b.result.verdict is not Verdict.inconclusive and b.result.inconclusive_kind is not None:
        b = dataclasses.replace(b, result=b.result.model_copy(update={"inconclusive_kind": None}))
    return b


@dataclass
class _TestAgentUse:
    demands: tuple[Demand, ...] = ()
    file: tuple[InputFile, str] | None = None     # model-demands.json: its manifest input and text
    report: "object | None" = None                # results.ModelDemandsReport (None: nothing to read)
    stopped: str | None = None


def _test_agent(task: Task, client) -> _TestAgentUse:
    """The test agent on the assertions the AST path left unsupported, and SpecGuard's guard
    over what it proposes (:func:`specguard.model.reader_agent.accept`)."""
    from specguard.outputs.results import ModelDemandsReport
    target, tf = test_agent.unsupported_of(task)
    if not tf.unsupported or not target or not any(s.kind == "python" for s in task.tests):
        return _TestAgentUse()
    got = test_agent.propose(task.tests, tf.unsupported, target, client)
    if got.demands is None:
        return _TestAgentUse(report=ModelDemandsReport(error=got.error), stopped=got.stopped)
    acc = test_agent.accept(task.tests, target, got.demands.proposals, tf.unsupported, tf.demands)
    rep = ModelDemandsReport(proposed=len(got.demands.proposals), dropped=tuple(acc.dropped),
                             accepted=tuple(f"{d.id} at {d.loc}: {_statement(d.call, d.expect)}" for d in acc.demands))
    if not acc.demands:
        return _TestAgentUse(report=rep)
    text = got.demands.text()
    inp = InputFile(path=test_agent.FILE_NAME, sha256=hashlib.sha256(text.encode("utf-8")).hexdigest(), role="demands")
    return _TestAgentUse(tuple(acc.demands), (inp, text), rep)


MAX_REFUTED = 1   # a counted model spec contradicts at most this many of the task's tests


def model_rule(need: int, k: int, max_refuted: int = MAX_REFUTED) -> str:
    """The rule a model-based verdict is decided by, as result.json and docs/trust.md state it."""
    return (f"A model-written spec counts only if it agrees with every description example the rules read and "
            f"contradicts at most {max_refuted} of the task's tests, fewer than it agrees with (tests plus "
            f"examples; compared by SpecGuard's evaluator after the spec was written: the spec agent never sees "
            f"tests). A conflict is certified only when at least {need} of the {k} independent specs (identical "
            f"texts count once) count and "
            f"each contradicts the conflict's test, and the kernel checked the conflict against one of them. "
            f"No conflict (evidence model-spec-agreement, never certified) only when at least {need} counted "
            f"specs agree with every test, no spec contradicts one, and every test was read exactly.")


def _suspect(a: "SpecAgreement", max_refuted: int) -> str | None:
    if a.examples_refuted:
        return (f"spec suspect: contradicts {len(a.examples_refuted)} description example(s) (first: "
                f"{a.examples_refuted[0]})")
    if len(a.refuted) > max_refuted:
        return (f"spec suspect: contradicts {len(a.refuted)} tests ({', '.join(a.refuted[:5])}), more than "
                f"{max_refuted}: a spec that fails several tests is more likely wrong than the tests")
    if a.refuted and len(a.refuted) >= len(a.agreed) + a.examples_agreed:
        return (f"spec suspect: contradicts {len(a.refuted)} test(s) but agrees with only {len(a.agreed)} test(s) and "
                f"{a.examples_agreed} description example(s): the contradicted tests are not a minority")
    return None


def _sample_miss(s, sb: "Bundle | None", a: "SpecAgreement | None") -> str | None:
    """Why one sample gave no certified conflict (None when it did)."""
    if s.missing:
        return s.missing
    if s.program is None:
        return (f"no usable spec after {s.rounds} round(s): {s.errors[-1]}" if s.errors
                else "no usable spec: the model was not asked (the model path stopped)")
    if sb is None:
        return s.errors[-1] if s.errors else "the spec could not be used"
    r = sb.result
    if r.verdict is Verdict.conflict and r.evidence is Evidence.certified:
        return None
    if r.verdict is Verdict.conflict and r.evidence is Evidence.execution:
        return ("execution tier: the spec contradicts a test only at inputs beyond the kernel budget (SpecGuard's "
                "bounded evaluator, not the kernel)")
    if r.conflict is not None:
        why = r.certificate.reason or ""
        if any(w in why.lower() for w in ("time limit", "timed out", "timeout", "memory")):
            return f"kernel budget: the kernel ran out of time or memory on the conflict's certificate ({why})"
        return f"the kernel rejected the conflict's certificate: {why}"
    budget = [n for n in r.notes if n.startswith("inconclusive at")]
    if a is not None and a.refuted:
        return f"the spec contradicts {', '.join(a.refuted)} but no conflict was certified: {r.reason}"
    if budget:
        return f"evaluation budget (SpecGuard's evaluator, before the kernel): {budget[0]}"
    if a is not None and not a.agreed:
        return f"the spec says nothing about any of the {a.tests} test(s) ({r.reason})"
    if a is not None:
        return (f"spec agrees with every test it was evaluated at ({len(a.agreed)} of {a.tests}"
                + (f"; {len(a.unknown)} not evaluated" if a.unknown else "") + ")")
    return r.reason


@dataclass
class _SampleUse:
    sample: object
    bundle: "Bundle | None"
    report: object


def _certified_test(sb: "Bundle | None") -> str | None:
    """The test of a kernel-certified conflict in ``sb`` (None: no certified conflict)."""
    if sb is None or sb.result.conflict is None or sb.result.evidence is not Evidence.certified:
        return None
    return next((i.id for i in sb.result.conflict.items if i.source == "test"), None)


def _spec_samples(task: Task, opts: Options, client, k: int):
    """The spec agent's ``k`` samples, each checked like ``check --spec`` and compared with every
    test and description example (:class:`SpecAgreement`): the agent's result and one
    :class:`_SampleUse` per sample."""
    from specguard.outputs.results import ModelSpecReport
    from specguard.model.spec_agent import write_spec
    agent = write_spec(task.description, context_files=opts.context, model=opts.model,
                       entry_point=task.entry_point, samples=k, rounds=opts.rounds, client=client,
                       report=task.description_is_report)
    bundles: list["Bundle | None"] = []
    for s in agent.samples:
        sb = None
        if s.program is not None:
            try:
                sb = _check_rules(task, dataclasses.replace(opts, spec=s.program, model=None, spec_binds=False))
            except speclang.SpecError as e:
                s.errors.append(f"the spec could not be used: {e}")
        bundles.append(sb)
    # a conflict beyond the kernel budget (execution evidence) is re-checked by the kernel, unless a
    # test this spec contradicts is already kernel-certified against another sample's spec: the
    # agreement rule counts this spec's contradiction there by SpecGuard's evaluator, and the kernel
    # needs to check the conflict against one spec only (#15.2: lcbhard_11 re-checked the same
    # conflict three times, 130 s each)
    def counted_test(sb: "Bundle | None") -> str | None:      # a suspect spec's conflict confirms nothing
        t = _certified_test(sb)
        ok = t is not None and sb.agreement is not None and _suspect(sb.agreement, opts.max_refuted) is None
        return t if ok else None
    certified = {t for t in map(counted_test, bundles) if t is not None}
    retries: list[str | None] = []
    for i, s in enumerate(agent.samples):
        sb, retried = bundles[i], None
        if sb is not None and sb.result.evidence is Evidence.execution and opts.spec_budget < MODEL_KERNEL_BUDGET:
            done = sorted(certified & set(sb.agreement.refuted)) if sb.agreement is not None else []
            if done:
                retried = (f"no kernel re-check: the conflict at {done[0]} is kernel-certified against another "
                           f"sample's spec; this spec's contradiction there is counted by SpecGuard's evaluator")
            else:
                rb, retried = _kernel_retry(task, opts, s.program)
                if rb is not None:
                    bundles[i] = rb
                    certified |= {counted_test(rb)} - {None}
        retries.append(retried)
    uses = []
    for s, sb, retried in zip(agent.samples, bundles, retries):
        verdict = evidence = a = None
        if sb is not None:
            verdict, evidence, a = sb.result.verdict, sb.result.evidence, sb.agreement
        suspect = _suspect(a, opts.max_refuted) if a is not None else None
        core = _certified_test(sb)
        miss = suspect if suspect and core else _sample_miss(s, sb, a)
        if miss and retried and miss.startswith("execution tier"):
            miss = f"{miss}; {retried}"
        rep = ModelSpecReport(sample=s.index + 1, path=s.path, source=s.source, sha256=s.sha256,
                              rounds=s.rounds, errors=tuple(s.errors) + ((s.missing,) if s.missing else ()),
                              verdict=verdict, evidence=evidence,
                              agreed=len(a.agreed) if a else 0, refuted=a.refuted if a else (),
                              unknown=len(a.unknown) if a else 0, examples_agreed=a.examples_agreed if a else 0,
                              examples_refuted=a.examples_refuted if a else (),
                              counted=a is not None and suspect is None, suspect=suspect, conflict_test=core,
                              miss_cause=miss)
        uses.append(_SampleUse(s, sb, rep))
    return agent, uses


# A model spec's conflict found only beyond the kernel budget (execution evidence) is checked once more
# with this kernel budget and without the per-test classification, so that only the conflict's own
# input is evaluated by the kernel (the bundle records the options; `verify` re-derives with them).
MODEL_KERNEL_BUDGET = 400_000
# ... and with this many times the Lean time limit (--timeout): 400,000 steps cost the kernel 80-240 s
# (0.2-0.6 ms a step, benchmarks/spec_eval.py), past the default 60 s (#15.2: measured on lcbhard_18,
# whose conflict the kernel was still checking when the 60 s limit ended it), and up to 1.1 ms a step
# on model specs (lcbhard_11: 122,000 steps in 126 s of CPU; lcbhard_84: 223,000 steps in 254 s, past
# the 300 s of a factor 5 on a loaded machine), so 400,000 steps need about 440 s
MODEL_KERNEL_TIMEOUT_FACTOR = 10
# ... and with at least this much memory for Lean (-M, MB): the kernel keeps the terms of its
# evaluation, so memory grows with the steps (#15.2: lcbhard_11's conflict, 122,000 steps, peaked at
# 4.3 GB and was "(kernel) excessive memory consumption detected" under the default 2048 MB, and
# lcbhard_84's, 223,000 steps, at 6.6 GB; with this limit both are certified).  The limit caps
# Lean; it does not change what is checked.
MODEL_KERNEL_MEMORY_MB = 8192


def _kernel_retry(task: Task, opts: Options, program) -> "tuple[Bundle | None, str | None]":
    """The certified bundle of the re-check, or None and why it certified nothing."""
    try:
        b = _check_rules(task, dataclasses.replace(opts, spec=program, model=None, spec_binds=False,
                                                   spec_budget=MODEL_KERNEL_BUDGET, classify=False,
                                                   timeout=opts.timeout * MODEL_KERNEL_TIMEOUT_FACTOR,
                                                   memory_mb=max(opts.memory_mb, MODEL_KERNEL_MEMORY_MB)))
    except speclang.SpecError as e:
        return None, f"the spec could not be used: {e}"
    r = b.result
    if r.evidence is Evidence.certified:
        return b, None
    why = r.certificate.reason if r.conflict is not None and r.certificate is not None and r.certificate.reason else r.reason
    return None, (f"the kernel re-check with {MODEL_KERNEL_BUDGET} steps, a {opts.timeout * MODEL_KERNEL_TIMEOUT_FACTOR:g} s "
                  f"and {max(opts.memory_mb, MODEL_KERNEL_MEMORY_MB)} MB Lean limit certified nothing: {why}")


def _model_verdict(uses: list[_SampleUse], need: int, k: int, base: Result):
    """The agreement rule (:func:`model_rule`) over the samples: ``("conflict", use, n)``,
    ``("agree", use, n)`` or ``(None, None, miss_cause)``."""
    counted, seen = [], set()
    for u in uses:
        if u.report.counted and u.report.sha256 not in seen:     # byte-identical specs count once
            seen.add(u.report.sha256)
            counted.append(u)
    dupes = sum(1 for u in uses if u.report.counted) - len(counted)
    # conflicts: a test refuted by >= need counted specs, certified by the kernel against one of them
    best = None
    for u in counted:
        t = u.report.conflict_test
        if t is None:
            continue
        n = sum(1 for v in counted if t in v.report.refuted)
        if n >= need and (best is None or n > best[2]):
            best = ("conflict", u, n)
    if best is not None:
        return best
    accepted = [u for u in uses if u.bundle is not None]
    agreeing = [u for u in counted if not u.report.refuted and not u.report.unknown and u.bundle.agreement.weak == 0]
    if (len(agreeing) >= need and not any(u.report.refuted for u in accepted) and not base.unsupported
            and agreeing[0].report.agreed > 0):
        return ("agree", agreeing[0], len(agreeing))
    # the miss cause
    certs = [u for u in accepted if u.report.conflict_test is not None]
    if certs and all(not u.report.counted for u in certs) and len(counted) < need:
        return None, None, certs[0].report.suspect
    if certs:
        tests = sorted({u.report.conflict_test for u in certs})
        n = max(sum(1 for v in counted if t in v.report.refuted) for t in tests)
        return None, None, (f"fewer than min-agree specs refute: a conflict was certified against "
                            f"{len(certs)} of the {k} spec(s), but at most {n} counted spec(s) contradict the same "
                            f"test ({', '.join(tests)}), fewer than --min-agree {need}"
                            + (f" ({dupes} spec(s) identical to another count once)" if dupes else "")
                            + "".join(f"; sample {u.report.sample}: {u.report.suspect or u.report.miss_cause}"
                                      for u in uses if u.report.suspect or (u.report.miss_cause and
                                                                            u.report.conflict_test is None)))
    causes = [f"sample {u.report.sample}: {u.report.miss_cause}" for u in uses if u.report.miss_cause]
    if not accepted:
        return None, None, "no usable spec: " + ("; ".join(causes) or "the model wrote none")
    if agreeing and len(agreeing) < need:
        causes.insert(0, f"only {len(agreeing)} of the {k} spec(s) agree with every test, fewer than "
                         f"--min-agree {need} for a no-conflict")
    return None, None, "; ".join(causes) or "no conflict was certified against the model-written specs"


def _model_path(task: Task, opts: Options, base: Bundle) -> Bundle:
    """Test agent -> rules with its demands -> spec agent -> one check per model spec ->
    agreement rule -> judge fallback."""
    from specguard.model import judge as judge_mod
    from specguard.model.llm import Client
    from specguard.outputs.results import ModelJudgment, ModelReport
    start = time.monotonic()
    client = Client(opts.model)
    k = max(1, opts.samples)
    need = max(1, min(opts.min_agree, k))
    notes = []
    out = base
    r = base.result
    ta = _test_agent(task, client)
    demands, demands_rep = ta.demands, ta.report
    used_demands = False
    inputs: tuple[InputFile, ...] = ()
    files: dict[str, str] = {}
    if demands:
        inputs, files = (ta.file[0],), {ta.file[0].path: ta.file[1]}
        opts = dataclasses.replace(opts, demands=demands)
        db = _check_rules(task, dataclasses.replace(opts, model=None))
        if db.result.verdict is Verdict.conflict and db.result.evidence is Evidence.certified:
            used_demands = True
            out = Bundle(result=db.result, files={**db.files, **files}, claims=db.claims, inputs=inputs,
                         options=db.options)
            r = db.result.model_copy(update={"reason": f"{db.result.reason} (with {len(demands)} test assertion(s) "
                                                       f"read by {opts.model.model}: {test_agent.FILE_NAME})"})
        else:
            notes.append(f"the test agent read {len(demands)} assertion(s) the AST path left unsupported; "
                         "no conflict was certified with them alone")
    agent = None
    uses: list[_SampleUse] = []
    miss = agree_text = None
    agree = 0
    if not used_demands and not ta.stopped:
        agent, uses = _spec_samples(task, opts, client, k)
        kind, u, got = _model_verdict(uses, need, k, r)
        if kind == "conflict":
            s, sb = u.sample, u.bundle
            agree = got
            used_demands = bool(demands)        # the model-read demands are part of every spec check
            spec_in = InputFile(path=s.path, sha256=s.sha256, role="spec")
            out = Bundle(result=sb.result, files={**sb.files, s.path: s.source, **(files if used_demands else {})},
                         claims=sb.claims, inputs=(spec_in,) + (inputs if used_demands else ()), options=sb.options)
            r = sb.result.model_copy(update={"reason": f"{sb.result.reason} (the description was formalized by a "
                                                       f"spec {opts.model.model} wrote: {s.path}; {got} of {k} "
                                                       f"independent model spec(s) count and contradict "
                                                       f"{u.report.conflict_test}; --min-agree {need})"})
        elif kind == "agree":
            s, sb = u.sample, u.bundle
            agree = got
            a = sb.agreement
            used_demands = bool(demands)
            agree_text = (f"model specs agree with all {a.tests} tests and {a.examples_agreed} description "
                          f"example(s) ({got} of {k} specs)")
            spec_in = InputFile(path=s.path, sha256=s.sha256, role="spec")
            out = Bundle(result=sb.result, files={**sb.files, s.path: s.source, **(files if used_demands else {})},
                         claims=sb.claims, inputs=(spec_in,) + (inputs if used_demands else ()), options=sb.options)
            r = sb.result.model_copy(update={
                "verdict": Verdict.no_conflict, "evidence": Evidence.model_spec_agreement,
                "reason": (f"no conflict found against the model's reading of the description, which is not "
                           f"certified: {got} of {k} independent specs {opts.model.model} wrote from the "
                           f"description alone agree with every one of the {a.tests} tests and the "
                           f"{a.examples_agreed} description example(s) (SpecGuard's evaluator; the bundle's "
                           f"spec is {s.path})"),
                "notes": sb.result.notes + (f"against {s.path} alone: {sb.result.reason}",),
                "conflict": None, "inconclusive_kind": None})
        else:
            miss = got
            if any(x.report.conflict_test for x in uses):
                r = r.model_copy(update={"reason": f"not certified: {miss}",
                                         "notes": r.notes + (f"previously: {r.reason}",)})
            else:
                notes.append(f"the model path certified nothing: {miss}")
    stopped = ta.stopped or (agent.stopped if agent is not None else None)
    judgment = None
    if r.verdict is Verdict.inconclusive and opts.judge and not stopped:
        j = judge_mod.judge(task, client)
        judgment = ModelJudgment(verdict=j.verdict, rationale=j.rationale, test=j.test)
        if j.verdict == "conflict":
            r = r.model_copy(update={"verdict": Verdict.conflict, "evidence": Evidence.model_judgment,
                                     "reason": f"conflict by model judgment (uncertified): {j.rationale}",
                                     "notes": r.notes + (f"before the model judgment: {r.reason}",)})
        else:
            notes.append(f"model judgment (uncertified): {j.verdict}: {j.rationale}")
    u = client.meter.spent
    if stopped:
        notes.append(f"the model path stopped early: {stopped}")
        if r.verdict is Verdict.inconclusive:
            r = r.model_copy(update={"reason": f"{r.reason}; the model path stopped early: {stopped}"})
    if demands_rep is not None:
        demands_rep = demands_rep.model_copy(update={"used": used_demands})
    extra = []
    if any(i.role == "spec" for i in out.inputs):
        extra.append(f"The description is formalized by a spec a language model ({opts.model.model}) wrote "
                     f"({next(i.path for i in out.inputs if i.role == 'spec')}, in the bundle): the kernel checks the "
                     "proof against that spec; that the spec says what the description says is the model's reading.")
    if used_demands:
        extra.append(f"Test assertions with read_by 'model' were read by a language model ({opts.model.model}) from "
                     f"lines the AST path could not read ({test_agent.FILE_NAME}, in the bundle); SpecGuard checked "
                     "that every literal they hold appears in the cited lines, the reading itself is the model's.")
    if extra:
        r = r.model_copy(update={"assumptions": r.assumptions + tuple(extra)})
    if stopped and miss is None and r.verdict is Verdict.inconclusive:
        miss = f"the model path stopped early: {stopped}"
    report = ModelReport(model=opts.model.model, samples=k, min_agree=need, specs=tuple(u.report for u in uses),
                         agree=agree, rule=model_rule(need, k, opts.max_refuted), miss_cause=miss,
                         agreement=agree_text, prompts=len(client.transcript), judgment=judgment,
                         demands=demands_rep, prompt_tokens=u.prompt_tokens,
                         completion_tokens=u.completion_tokens, cost_usd=round(u.cost_usd, 6), calls=u.calls,
                         cached_calls=u.cached_calls, replayed_calls=u.replayed_calls, stopped=stopped)
    r = r.model_copy(update={"model": report, "notes": r.notes + tuple(notes),
                             "seconds": round(r.seconds + time.monotonic() - start, 4)})
    return Bundle(result=r, files=out.files, claims=out.claims, inputs=out.inputs, options=out.options)


def _check_rules(task: Task, opts: Options) -> Bundle:
    """Run the whole deterministic pipeline on one task."""
    start = time.monotonic()
    f = _formal(task, opts.classify, opts.spec, opts.spec_budget, opts.demands, opts.spec_binds)
    tf, df, test_clauses, unmodelled = f.tf, f.df, f.test_clauses, f.unmodelled
    spec_clauses, spec_unmodelled = f.spec_clauses, f.spec_unmodelled
    notes = list(df.notes) + [f"{u.loc}: description statement not modelled: {u.reason}" for u in spec_unmodelled]
    if opts.spec is not None:
        notes.insert(0, f"the description is formalized by the spec {opts.spec.path}; the description's "
                        "own rules (return type, bounds) are not used")
    unsupported = tuple(tf.errors) + tuple(tf.unsupported) + tuple(unmodelled)

    files, p = f.files, f.plan
    cert = CertReport()
    rt = lean_runner.find_runtime()
    if p.claims:
        if opts.kernel is not None:
            cert_text, v = None, opts.kernel(tuple(p.claims))
        else:
            cert_text = prove.render_cert(p, spec_clauses)
            v = certcheck.check_certificate({"Spec": files["spec.lean"], "Tests": files["tests.lean"],
                                             "Claim": files["claim.lean"]}, cert_text, list(p.claims),
                                            timeout=opts.timeout, memory_mb=opts.memory_mb)
        cert = CertReport(claims=tuple(p.claims), accepted=v.accepted, reason=v.reason, seconds=v.seconds)
        if v.accepted:
            if cert_text is not None:
                files["cert.lean"] = cert_text
        elif opts.classify and p.conflict is not None:
            # the classification and witness proofs must never cost the conflict: certify it alone
            b = _check_rules(task, dataclasses.replace(opts, classify=False))
            why = (f"the certificate with the per-test classification was rejected ({v.reason}); the conflict was "
                   "checked on its own, without classification")
            return dataclasses.replace(b, result=b.result.model_copy(update={"notes": b.result.notes + (why,)}))
    certified = cert.accepted
    classes = {tc.name: tc for tc in p.classes}
    tests = []
    for c in test_clauses:
        d: Demand = c.source
        tc = classes.get(c.name)
        status = tc.status if tc else "unclassified"
        witness = None
        if tc and tc.witness is not None:
            witness = f"returns {tc.witness.cls and emit.vals.py_repr(tc.witness.cls)}" if tc.witness.exc is None \
                else f"raises {tc.witness.exc}"
        tests.append(TestReport(id=d.id, loc=d.loc, text=d.text, statement=_statement(d.call, d.expect, d.calls, d.exposed),
                                status=status, by=tc.by if tc else None, witness=witness,
                                finding=_finding(tc, spec_given=f.spec is not None and opts.spec_binds),
                                certified=certified and tc is not None and (tc.status != "left-open" or tc.witness is not None),
                                exact=c.exact, read_by=d.read_by))
    claims = tuple(ClaimReport(id=c.id, kind=c.kind.value, loc=c.loc, text=c.text, statement=claim_statement(c))
                   for c in df.claims)
    if f.spec is not None:
        src = f.spec.clause.source
        claims += (ClaimReport(id=src.id, kind="spec", loc=src.loc, text=src.text, statement=src.statement),)
        claims += tuple(ClaimReport(id=c.source.id, kind="example", loc=c.source.loc, text=c.source.text,
                                    statement=claim_statement(c.source))
                        for c in spec_clauses if isinstance(c.source, Claim) and c.source.id.startswith("S"))

    verdict, evidence, reason, core = _decide(p, certified, cert, test_clauses, spec_clauses, unsupported, df)
    if f.spec is not None:
        if (verdict is not Verdict.conflict or evidence is not Evidence.certified) and opts.execute:
            ex = _execution_conflict(f, opts)
            if ex is not None:
                core, reason = ex
                verdict, evidence = Verdict.conflict, Evidence.execution
        notes += f.spec.notes
    near_conflicts: list = []
    if verdict is Verdict.inconclusive:
        twins = find_twins(task.tests)
        if twins:
            near_conflicts += [_twin_near_conflict(t) for t in twins]
            notes += [f"before the near-conflicts: {reason}"]
            reason = twins[0].describe() + (f" (and {len(twins) - 1} more)" if len(twins) > 1 else "")
    if verdict is not Verdict.conflict:
        near = _json_near_conflicts(task, spec_clauses, test_clauses)
        if near:
            near_conflicts += near
            verdict, evidence = Verdict.inconclusive, Evidence.none
            reason = (f"{near[0].explanation} (not certified: JSON cannot tell a tuple argument from a list, and a "
                      f"function may treat them differently)")
    assumptions = _assumptions(f)
    if f.contra.objects:
        notes += [f"results of `{t}` may be objects ({why}): its assertions keep only 'the call returns' (or raises)"
                  for t, why in sorted(f.contra.objects.items())]
    result = Result(task_id=task.id, verdict=verdict, evidence=evidence, reason=reason, conflict=core,
                    assumptions=assumptions, near_conflicts=tuple(near_conflicts),
                    tests=tuple(tests), claims=claims, unsupported=unsupported, notes=tuple(notes),
                    certificate=cert, runtime=RuntimeReport(kind=rt.kind, version=rt.version, commit=rt.commit),
                    specguard_version=__version__, seconds=round(time.monotonic() - start, 4),
                    labels=dict(task.labels))
    result = result.model_copy(update=_reading_report(f, result, test_clauses, spec_clauses))
    claims_proven = tuple(p.claims) if certified else ()
    from specguard.outputs.results import DerivationOptions
    agreement = spec_agreement(f.spec, test_clauses, spec_clauses) if f.spec is not None else None
    return Bundle(result=result, files=files, claims=claims_proven,
                  options=DerivationOptions(classify=opts.classify, spec_budget=opts.spec_budget,
                                            spec_binds=opts.spec_binds), agreement=agreement)


def _reading_report(f: _Formal, r: Result, tests, spec) -> dict:
    """What was read (``Result.coverage``) and, for an inconclusive verdict, why, as a kind to filter
    on (``Result.inconclusive_kind``); also the test reader's notes (the HumanEval harness call)."""
    tf, df = f.tf, f.df
    cov = Coverage(assertions_total=tf.assertions_total, assertions_read=tf.assertions_read,
                   examples_seen=getattr(df, "examples_seen", 0), examples_read=getattr(df, "examples_read", 0),
                   statements_seen=getattr(df, "statements_seen", 0),
                   statements_read=getattr(df, "statements_read", 0))
    update: dict = {"coverage": cov, "notes": tuple(tf.notes) + r.notes}
    if r.verdict is Verdict.inconclusive:
        exceeded = f.spec is not None and any(n.startswith("inconclusive at") for n in f.spec.notes)
        why = (r.certificate.reason or "").lower()
        timed_out = "time limit" in why or "timed out" in why or "timeout" in why
        if r.near_conflicts:
            kind = "near-conflict"
        elif exceeded or timed_out:
            kind = "budget"
        elif r.conflict is not None:
            kind = "other"                       # a conflict whose certificate was rejected
        elif not tests:
            kind = "tests-unread"
        elif not spec:
            kind = "description-unread"
        else:
            kind = "no-conflict-in-what-was-read"
        update["inconclusive_kind"] = kind
    return update


def _list_view(v):
    from specguard.python.values import V
    if v.kind in ("list", "tuple"):
        return V("list", tuple(_list_view(x) for x in v.val))
    if v.kind == "dict":
        return V("dict", tuple((a, _list_view(b)) for a, b in v.val))
    return v


def _json_near_conflicts(task: Task, spec, tests) -> list:
    """JSON-table tasks: a test whose input equals a description example's input up to
    tuple/list, with an outcome the example excludes.  A conflict only if the implementation
    treats tuple and list arguments alike, so it is reported, never certified."""
    from specguard.outputs.results import NearConflict
    if not any(src.kind == "table" for src in task.tests):
        return []
    by_view: dict[str, list[emit.Clause]] = {}
    for s in spec:
        if s.key is not None and s.eq is not None:
            call = s.source.call
            k = call.model_copy(update={"args": tuple(_list_view(a) for a in call.args)}).key()
            by_view.setdefault(k, []).append(s)
    out = []
    for t in tests:
        call = t.source.call
        k = call.model_copy(update={"args": tuple(_list_view(a) for a in call.args)}).key()
        for s in by_view.get(k, ()):
            if s.input_id != t.input_id and not t.holds(emit.Outcome(cls=s.eq)):
                out.append(NearConflict(kind="tuple-vs-list", items=(_item(t), _item(s)), explanation=(
                    f"test {t.name} at {t.source.loc} (`{_statement(call, t.source.expect)}`) "
                    f"contradicts description example {s.name} at {s.source.loc} "
                    f"(`{claim_statement(s.source)}`) up to tuple/list arguments")))
                break
    return out


def _twin_near_conflict(t):
    from specguard.outputs.results import NearConflict
    items = tuple(Item(id=f"L{loc.line}", source="test", loc=loc, text="", statement=f"{t.expr} == {v}")
                  for loc, v in ((t.a, t.a_value), (t.b, t.b_value)))
    return NearConflict(kind="duplicate-tests" if t.kind == "duplicate tests" else "repeated-assertion",
                        items=items, explanation=t.describe())


def _decide(p: prove.Plan, certified: bool, cert: CertReport, tests, spec, unsupported, df):
    core = None
    if p.conflict is not None:
        items = [_item(c) for c in p.conflict.clauses()]
        kinds = {i.source for i in items}
        kind = "test-vs-test" if kinds == {"test"} else (
            "description-internal" if kinds == {"description"} else "description-vs-test")
        items.sort(key=lambda i: i.source != "test")        # tests first (a stable sort)
        a, b = items[0], items[1]
        if len(items) == 2:
            why = f"no implementation satisfies both `{a.statement}` ({a.loc}) and `{b.statement}` ({b.loc})"
        else:
            why = "no implementation satisfies all of " + ", ".join(f"`{i.statement}` ({i.loc})" for i in items)
        core = ConflictCore(kind=kind, items=tuple(items), explanation=why)
        if certified:
            return Verdict.conflict, Evidence.certified, f"{kind} conflict: {core.explanation}", core
        return Verdict.inconclusive, Evidence.none, \
            f"a {kind} conflict was found but its certificate was rejected by the kernel: {cert.reason}", core
    if not tests:
        why = "no test assertion could be formalized"
        if unsupported:
            why += f" ({len(unsupported)} not understood; first: {unsupported[0].loc}: {unsupported[0].reason})"
        return Verdict.inconclusive, Evidence.none, why, None
    if unsupported:
        u = unsupported[0]
        return Verdict.inconclusive, Evidence.none, \
            (f"no conflict among the {len(tests)} formalized test assertions, but {len(unsupported)} "
             f"assertion(s) were not formalized (first: {u.loc}: {u.reason})"), None
    if not spec:
        return Verdict.inconclusive, Evidence.none, \
            ("the tests agree with each other, but nothing in the description could be formalized"
             + (f" ({df.notes[0]})" if df.notes else "")), None
    weak = sum(not c.exact for c in tests)
    witness = ("" if not (p.consistent and certified) else
               " (a witness implementation satisfying both is kernel-checked)" if not weak else
               f" (a witness implementation satisfying both, as formalized, is kernel-checked; {weak} test(s) were "
               "formalized by a weaker statement, which the witness satisfies, and are never taken as entailed)")
    open_tests = [tc for tc in p.classes if tc.status != "entailed"] if p.classes else list(tests)
    if open_tests:
        # The formalized description does not decide these tests: a conflict may hide in the
        # prose SpecGuard did not formalize, so the task is not cleared.
        return Verdict.inconclusive, Evidence.none, \
            (f"no conflict between the {len(tests)} test assertions and the {len(spec)} formalized description "
             f"statement(s){witness}, but {len(open_tests)} test(s) are left open by what was formalized "
             f"(first: {open_tests[0].name if hasattr(open_tests[0], 'name') else open_tests[0]})"), None
    if p.consistent and certified:
        return Verdict.no_conflict, Evidence.certified, \
            (f"every test assertion is entailed by the formalized description, and a witness implementation "
             f"satisfying the {len(spec)} description statement(s) and all {len(tests)} test assertions is "
             f"kernel-checked"), None
    return Verdict.no_conflict, Evidence.none, \
        f"every test assertion is entailed by the {len(spec)} formalized description statement(s)", None
