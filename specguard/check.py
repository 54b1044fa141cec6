"""The ``check`` pipeline: task -> formalization -> Lean -> proofs -> kernel -> result.

:func:`check_task` runs the stages (each a module with one entry function) and
returns a :class:`Bundle` (the result and the files to write); writing is
:mod:`specguard.bundle`'s job.
"""

from __future__ import annotations

import time
from dataclasses import dataclass, field

from . import __version__, certcheck, emit, lean_runner, prove
from .formalize_desc import formalize_description
from .formalize_tests import formalize_tests
from .models import Claim, DescFormalization, Demand, Task, TestFormalization, Unsupported
from .results import (CertReport, ClaimReport, ConflictCore, Evidence, Item, Result, RuntimeReport,
                      TestReport, Verdict)


@dataclass
class Options:
    timeout: float = 60.0
    memory_mb: int = lean_runner.DEFAULT_MEMORY_MB
    classify: bool = True


@dataclass
class Bundle:
    result: Result
    files: dict[str, str] = field(default_factory=dict)   # name -> text (Lean files, formalization)
    claims: tuple[str, ...] = ()


def _statement(call, expect) -> str:
    return f"{call.source()} {expect.source()}"


def claim_statement(c: Claim) -> str:
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
        return Item(id=src.id, source="test", loc=src.loc, text=src.text, statement=_statement(src.call, src.expect))
    return Item(id=src.id, source="description", loc=src.loc, text=src.text, statement=claim_statement(src))


def formalize(task: Task) -> tuple[TestFormalization, DescFormalization]:
    tf = formalize_tests(task.tests, task.entry_point)
    entry = task.entry_point
    df = formalize_description(task.description, path=task.description_path, entry_point=entry,
                               line_offset=task.description_line_offset)
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


def _formal(task: Task, classify: bool) -> _Formal:
    tf, df = formalize(task)
    with emit.json_mode(any(src.kind == "table" for src in task.tests)):
        test_clauses, unmodelled = _clauses(tf.demands, emit.clause_of_demand)
        spec_clauses, spec_unmodelled = _clauses(df.claims, emit.clause_of_claim)
    emit.name_inputs(spec_clauses, "SK")
    emit.name_inputs(test_clauses, "TK")
    files = {
        "spec.lean": emit.render_module("Spec", spec_clauses, lambda c: f"{c.source.loc}: {claim_statement(c.source)}"),
        "tests.lean": emit.render_module("Tests", test_clauses, lambda c: f"{c.source.loc}: {_statement(c.source.call, c.source.expect)}"),
    }
    p = prove.plan(spec_clauses, test_clauses, classify=classify)
    files["claim.lean"] = emit.render_claim(p.claims)
    return _Formal(tf, df, test_clauses, unmodelled, spec_clauses, spec_unmodelled, files, p)


def render_trusted(task: Task, *, classify: bool = True) -> dict[str, str]:
    """The trusted Lean texts ``check_task`` writes for ``task`` (``spec.lean``, ``tests.lean``,
    ``claim.lean``), derived without running Lean.  Pure and deterministic: ``specguard verify
    --inputs`` re-derives them and compares them byte for byte with a bundle's."""
    return dict(_formal(task, classify).files)


def check_task(task: Task, options: Options | None = None) -> Bundle:
    """Run the whole deterministic pipeline on one task."""
    opts = options or Options()
    start = time.monotonic()
    f = _formal(task, opts.classify)
    tf, df, test_clauses, unmodelled = f.tf, f.df, f.test_clauses, f.unmodelled
    spec_clauses, spec_unmodelled = f.spec_clauses, f.spec_unmodelled
    notes = list(df.notes) + [f"{u.loc}: description statement not modelled: {u.reason}" for u in spec_unmodelled]
    unsupported = tuple(tf.errors) + tuple(tf.unsupported) + tuple(unmodelled)

    files, p = f.files, f.plan
    cert = CertReport()
    rt = lean_runner.find_runtime()
    if p.claims:
        cert_text = prove.render_cert(p)
        v = certcheck.check_certificate({"Spec": files["spec.lean"], "Tests": files["tests.lean"],
                                         "Claim": files["claim.lean"]}, cert_text, list(p.claims),
                                        timeout=opts.timeout, memory_mb=opts.memory_mb)
        cert = CertReport(claims=tuple(p.claims), accepted=v.accepted, reason=v.reason, seconds=v.seconds)
        if v.accepted:
            files["cert.lean"] = cert_text
    certified = cert.accepted
    by_name = {c.name: c for c in test_clauses}
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
        tests.append(TestReport(id=d.id, loc=d.loc, text=d.text, statement=_statement(d.call, d.expect),
                                status=status, by=tc.by if tc else None, witness=witness,
                                certified=certified and tc is not None and (tc.status != "left-open" or tc.witness is not None),
                                exact=c.exact))
    claims = tuple(ClaimReport(id=c.id, kind=c.kind.value, loc=c.loc, text=c.text, statement=claim_statement(c))
                   for c in df.claims)

    verdict, evidence, reason, core = _decide(p, certified, cert, test_clauses, spec_clauses, unsupported, df)
    if verdict is not Verdict.conflict:
        near = _json_near_conflicts(task, spec_clauses, test_clauses)
        if near:
            notes += near
            verdict, evidence = Verdict.inconclusive, Evidence.none
            reason = (f"{near[0]} (not certified: JSON cannot tell a tuple argument from a list, and a function "
                      f"may treat them differently)")
    _ = by_name
    result = Result(task_id=task.id, verdict=verdict, evidence=evidence, reason=reason, conflict=core,
                    tests=tuple(tests), claims=claims, unsupported=unsupported, notes=tuple(notes),
                    certificate=cert, runtime=RuntimeReport(kind=rt.kind, version=rt.version, commit=rt.commit),
                    specguard_version=__version__, seconds=round(time.monotonic() - start, 4),
                    labels=dict(task.labels))
    claims_proven = tuple(p.claims) if certified else ()
    return Bundle(result=result, files=files, claims=claims_proven)


def _list_view(v):
    from .values import V
    if v.kind in ("list", "tuple"):
        return V("list", tuple(_list_view(x) for x in v.val))
    if v.kind == "dict":
        return V("dict", tuple((a, _list_view(b)) for a, b in v.val))
    return v


def _json_near_conflicts(task: Task, spec, tests) -> list[str]:
    """JSON-table tasks: a test whose input equals a description example's input up to
    tuple/list, with an outcome the example excludes.  A conflict only if the implementation
    treats tuple and list arguments alike, so it is reported, never certified."""
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
                out.append(f"test {t.name} at {t.source.loc} (`{_statement(call, t.source.expect)}`) "
                           f"contradicts description example {s.name} at {s.source.loc} "
                           f"(`{claim_statement(s.source)}`) up to tuple/list arguments")
                break
    return out


def _decide(p: prove.Plan, certified: bool, cert: CertReport, tests, spec, unsupported, df):
    core = None
    if p.conflict is not None:
        a, b = _item(p.conflict.a), _item(p.conflict.b)
        kinds = {a.source, b.source}
        kind = "test-vs-test" if kinds == {"test"} else (
            "description-internal" if kinds == {"description"} else "description-vs-test")
        if a.source == "description" and b.source == "test":
            a, b = b, a
        core = ConflictCore(kind=kind, items=(a, b),
                            explanation=f"no implementation satisfies both `{a.statement}` ({a.loc}) "
                                        f"and `{b.statement}` ({b.loc})")
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
    witness = (" (a witness implementation satisfying both is kernel-checked)" if p.consistent and certified
               else "")
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
