"""Models of everything ``check`` writes: ``result.json`` and ``manifest.json``.

The JSON Schemas in ``schemas/`` are generated from these models
(``python -m specguard schema``); a test keeps them in sync.
"""

from __future__ import annotations

import json
import re
from enum import Enum
from typing import Literal

from pydantic import BaseModel, ConfigDict, Field

from specguard.models import InputFile, Loc, Unsupported

SCHEMA_VERSION = "1"


class _Frozen(BaseModel):
    model_config = ConfigDict(frozen=True, extra="forbid")


class Verdict(str, Enum):
    """Ordered: when results are combined, the highest rank wins."""

    no_conflict = "no-conflict"
    inconclusive = "inconclusive"
    conflict = "conflict"

    @property
    def rank(self) -> int:
        return {"no-conflict": 0, "inconclusive": 1, "conflict": 2}[self.value]

    @property
    def exit_code(self) -> int:
        return {"no-conflict": 0, "conflict": 1, "inconclusive": 2}[self.value]


class Evidence(str, Enum):
    certified = "certified"
    execution = "execution"
    model_judgment = "model-judgment"
    # no-conflict only: enough model-written specs agree with every test and description example
    # (SpecGuard's evaluator); rests on the model's reading of the description, never a proof
    model_spec_agreement = "model-spec-agreement"
    none = "none"


ASSUMPTIONS = (
    "The implementation returns plain Python data (None, bool, int, float, str, bytes, list, tuple, "
    "dict, set, frozenset) or raises; objects with a custom __eq__ are outside the model.",
    "The implementation is a function of its arguments: the same arguments give the same outcome "
    "(no hidden state, randomness or I/O between test calls).",
    "A 'raises' expectation is read as 'raises some exception' (exception classes can be related "
    "by user-defined subclasses, so no two raises expectations are taken to conflict).",
    "Python's == on plain data is modelled by SpecGuard's value classes (specguard/python/values.py), "
    "tested differentially against CPython.",
    "For tests given as JSON tables (LiveCodeBench style), results are compared in their JSON "
    "form (tuples as lists, dict keys as strings), since JSON cannot tell these apart.",
    "What the description states (its examples, return annotation and stated result bounds) is "
    "taken as a requirement, except in a problem statement or bug report (what it shows is observed); "
    "the rest of its prose is not formalized by the rule-based path.",
)


class Item(_Frozen):
    """One side of a conflict: a test assertion or a description statement."""

    id: str
    source: Literal["test", "description"]
    loc: Loc
    text: str
    statement: str = Field(description="what SpecGuard read it as, e.g. 'f(1, 2) == 3'")
    read_by: Literal["ast", "model"] = Field(default="ast", description="tests: 'model' when the test agent read "
                                                                        "it (model-demands.json)")


class ConflictCore(_Frozen):
    kind: Literal["test-vs-test", "description-vs-test", "description-internal"]
    items: tuple[Item, ...]
    explanation: str


class NearConflict(_Frozen):
    """A conflict SpecGuard sees but cannot certify, with the condition under which it is one."""

    kind: Literal["tuple-vs-list", "duplicate-tests", "repeated-assertion"]
    items: tuple[Item, ...]
    explanation: str


class TestReport(_Frozen):
    id: str
    loc: Loc
    text: str
    statement: str
    status: Literal["entailed", "contradicted", "left-open", "unclassified"]
    by: str | None = Field(default=None, description="the description claim that decides it")
    witness: str | None = Field(default=None, description="left-open: an outcome the description allows that fails the test")
    finding: Literal["over-specified", "not-covered"] | None = Field(
        default=None, description="left-open only: 'over-specified' when a description (or given --spec) clause about "
                                  "this very input allows the witness, so the test demands more than the task states; "
                                  "'not-covered' when what was formalized does not speak about the input (a gap in "
                                  "SpecGuard's reading, not a finding about the task)")
    certified: bool = False
    exact: bool = Field(default=True, description="False when the test was weakened to fit the model")
    read_by: Literal["ast", "model"] = Field(default="ast", description="'model' when the test agent read it")


class ClaimReport(_Frozen):
    id: str
    kind: str
    loc: Loc
    text: str
    statement: str


class CertReport(_Frozen):
    claims: tuple[str, ...] = ()
    accepted: bool = False
    reason: str = ""
    seconds: float = 0.0


class RuntimeReport(_Frozen):
    kind: str
    version: str
    commit: str


class ModelSpecReport(_Frozen):
    """One spec the model wrote (``check --model``)."""

    sample: int
    path: str = Field(description="the name the spec is known by (its manifest input, role spec, when used)")
    source: str | None = Field(default=None, description="the spec's text, when one was accepted")
    sha256: str | None = None
    rounds: int = 0
    errors: tuple[str, ...] = Field(default=(), description="why earlier rounds (or all rounds) were rejected")
    verdict: Verdict | None = Field(default=None, description="the check's verdict against this spec")
    evidence: Evidence | None = None
    agreed: int = Field(default=0, description="tests the spec agrees with (SpecGuard's evaluator at each test input)")
    refuted: tuple[str, ...] = Field(default=(), description="ids of the tests the spec contradicts")
    unknown: int = Field(default=0, description="tests the spec says nothing about or was not evaluated at")
    examples_agreed: int = Field(default=0, description="description examples (read by the rules) it agrees with")
    examples_refuted: tuple[str, ...] = Field(default=(), description="description examples it contradicts")
    counted: bool = Field(default=False, description="the spec counts towards --min-agree (not suspect, see "
                                                     "ModelReport.rule)")
    suspect: str | None = Field(default=None, description="why an accepted spec does not count (the rule)")
    conflict_test: str | None = Field(default=None, description="the test of the conflict certified against this spec")
    miss_cause: str | None = Field(default=None, description="why this sample gave no certified conflict")


class ModelJudgment(_Frozen):
    verdict: Literal["conflict", "no-conflict", "unclear"]
    rationale: str
    test: str | None = None


class ModelDemandsReport(_Frozen):
    """What the test agent read from the assertions the AST path left unsupported."""

    proposed: int = 0
    accepted: tuple[str, ...] = Field(default=(), description="'M1 at file:line: f(1) == 2' per accepted demand")
    dropped: tuple[str, ...] = Field(default=(), description="each dropped proposal, with the reason")
    error: str | None = Field(default=None, description="why the test agent gave no proposals")
    used: bool = Field(default=False, description="the demands are part of the bundle's claim (model-demands.json)")


class ModelReport(_Frozen):
    """What a language model contributed (``check --model``); absent when no model was used."""

    model: str
    samples: int = 1
    min_agree: int = 1
    specs: tuple[ModelSpecReport, ...] = ()
    agree: int = Field(default=0, description="counted specs that refute the test of the certified conflict (or, "
                                               "for a model-spec-agreement no-conflict, that agree with every test)")
    rule: str = Field(default="", description="the rule a model-based verdict was decided by, stated")
    miss_cause: str | None = Field(default=None, description="why the model path certified no conflict")
    agreement: str | None = Field(default=None, description="'model specs agree with all N tests ...' when they do")
    prompts: int = Field(default=0, description="model prompts this task asked (samples x rounds, + test agent, judge)")
    replayed_calls: int = Field(default=0, description="answers taken from a recording (--replay)")
    judgment: ModelJudgment | None = None
    demands: ModelDemandsReport | None = Field(default=None, description="the test agent's part; absent when the "
                                                                        "AST path left no assertion unsupported")
    prompt_tokens: int = 0
    completion_tokens: int = 0
    cost_usd: float = 0.0
    calls: int = 0
    cached_calls: int = 0
    stopped: str | None = Field(default=None, description="why the model path stopped early (budget, provider)")


class Coverage(_Frozen):
    """How much of the task SpecGuard read: a screening user tells "read everything, found nothing"
    from "read nothing" by these counts."""

    assertions_total: int = Field(default=0, description="assertion statements of the python test sources: `assert` "
                                  "statements (module level included), unittest `self.assert*` calls, `pytest.raises`"
                                  "/`assertRaises` blocks and calls; each source statement counted once however "
                                  "often it runs (loops, parametrize rows, helper calls); those of tests not "
                                  "selected by only_tests excluded; each JSON-table case counts as one")
    assertions_read: int = Field(default=0, description="of those, the statements that gave at least one demand in "
                                 "some run (exactly or by a weaker statement), or that pass whatever the function "
                                 "does (`assert True`); read by the AST path only (model-read assertions are in "
                                 "`model.demands`)")
    examples_seen: int = Field(default=0, description="description examples seen (doctest outputs, worked examples)")
    examples_read: int = Field(default=0, description="of those, formalized as claims")
    statements_seen: int = Field(default=0, description="other description statements seen (return annotation, "
                                                        "stated bounds)")
    statements_read: int = Field(default=0, description="of those, formalized as claims")


# why a result is inconclusive, as a field a screening user can filter on
InconclusiveKind = Literal[
    "no-conflict-in-what-was-read",   # something was read, no conflict found (a witness may be certified)
    "tests-unread",                   # nothing of the tests could be read
    "description-unread",             # nothing of the description could be read
    "model-skipped",                  # the rules reached no verdict and no model was configured
    "near-conflict",                  # a conflict seen in code SpecGuard cannot formalize (uncertified)
    "budget",                         # a time, step or size budget ran out
    "other",
]


class Result(_Frozen):
    schema_version: str = SCHEMA_VERSION
    task_id: str
    verdict: Verdict
    evidence: Evidence
    reason: str
    conflict: ConflictCore | None = None
    tests: tuple[TestReport, ...] = ()
    claims: tuple[ClaimReport, ...] = ()
    unsupported: tuple[Unsupported, ...] = ()
    near_conflicts: tuple[NearConflict, ...] = Field(default=(), description="conflicts seen but not certifiable "
                                                                            "(tuple/list in JSON, duplicated tests)")
    notes: tuple[str, ...] = ()
    assumptions: tuple[str, ...] = ASSUMPTIONS
    certificate: CertReport = CertReport()
    runtime: RuntimeReport | None = None
    specguard_version: str
    seconds: float = 0.0
    labels: dict[str, str] = Field(default_factory=dict)
    model: ModelReport | None = Field(default=None, description="the language model's part, tokens and cost "
                                                               "(check --model); absent without a model")
    coverage: Coverage | None = Field(default=None, description="what was read: assertions read / total, "
                                                            "description examples and statements read / seen")
    inconclusive_kind: InconclusiveKind | None = Field(default=None, description="for an inconclusive verdict: "
                                                                               "why, as a field to filter on")


# the largest --spec-budget: what the kernel may be asked to evaluate per input (a bundle's
# manifest cannot raise it; SpecGuard's own evaluator stops at speclang.MIRROR_STEP_LIMIT)
MAX_SPEC_BUDGET = 1_000_000


class DerivationOptions(_Frozen):
    """The ``check`` options the trusted Lean files depend on (``verify --inputs`` re-derives with them)."""

    classify: bool = Field(default=True, description="false with --no-classify")
    spec_budget: int = Field(default=10_000, ge=1, le=MAX_SPEC_BUDGET,
                             description="--spec-budget: spec evaluation steps per input (a bundle cannot ask "
                                         f"for more than {MAX_SPEC_BUDGET})")
    spec_binds: bool = Field(default=True, description="keyword arguments bind by the spec's parameters when the "
                                                       "description has no signature (false for model-written specs)")


# files a model wrote that a bundle's claim depends on (manifest inputs of role spec / demands,
# kept in the bundle so that `verify --inputs` needs only the task's own files)
MODEL_FILE_RE = re.compile(r"model-spec-[1-9][0-9]{0,2}\.py|model-demands\.json")


class Manifest(_Frozen):
    """Binds a bundle to its exact inputs, outputs and Lean runtime."""

    bundle_format: Literal["specguard-bundle/1"] = "specguard-bundle/1"
    task_id: str
    specguard_version: str
    lean_version: str
    lean_commit: str
    core_hash: str = Field(description="sha256 over SpecGuard's Lean library sources")
    inputs: tuple[InputFile, ...]
    outputs: dict[str, str] = Field(description="file name in the bundle -> sha256")
    claims: tuple[str, ...] = Field(default=(), description="claims the certificate proves")
    verdict: Verdict
    evidence: Evidence
    options: DerivationOptions | None = Field(default=None, description="how the claim was derived (absent in "
                                                                        "older bundles)")


# every JSON file SpecGuard reads back (manifest.json, result.json, model-demands.json, an exported
# file's meta line) is at most this deep and this large: Python's json module recurses once per
# level, so a deeper file would end in a RecursionError
MAX_JSON_DEPTH = 64
MAX_JSON_BYTES = 8 * 1024 * 1024
_JSON_STRING = re.compile(r'"(?:[^"\\]|\\.)*"')
_JSON_BRACKET = re.compile(r"[\[\]{}]")


def json_problem(text: str, what: str) -> str | None:
    """Why ``text`` (the file ``what``) is too large or too deeply nested to be read, or None."""
    size = len(text.encode("utf-8", "surrogatepass"))
    if size > MAX_JSON_BYTES:
        return f"{what} is {size:,} bytes, over the {MAX_JSON_BYTES // 2**20} MB limit of a JSON file"
    depth = deepest = 0
    for m in _JSON_BRACKET.finditer(_JSON_STRING.sub('""', text)):
        depth += 1 if m.group() in "[{" else -1
        if depth > deepest:
            deepest = depth
            if deepest > MAX_JSON_DEPTH:
                return f"{what} nests JSON more than {MAX_JSON_DEPTH} levels deep"
    return None


def load_json(text: str, what: str):
    """``json.loads`` within :data:`MAX_JSON_DEPTH` and :data:`MAX_JSON_BYTES`; ValueError (with
    ``what`` in its message) on a file that is too large, too deep or not JSON."""
    why = json_problem(text, what)
    if why:
        raise ValueError(why)
    try:
        doc = json.loads(text, object_pairs_hook=_unique_keys, parse_constant=_no_constant, parse_float=_finite)
        # a lone surrogate (``"\\ud800"``) is valid JSON but no text: printing it would crash
        json.dumps(doc, ensure_ascii=False, allow_nan=False).encode("utf-8")
    except UnicodeEncodeError:
        raise ValueError(f"{what} is not valid JSON for SpecGuard: a string holds a lone surrogate "
                         "(an escape such as \\ud800 that is not text)") from None
    except (ValueError, RecursionError) as e:
        raise ValueError(f"{what} is not valid JSON: {e}") from None
    return doc


def _unique_keys(pairs: list[tuple[str, object]]) -> dict:
    """An object whose keys are all different: a repeated key is read differently by different
    parsers (Python keeps the last, others the first), so a file could show one value to a reader
    and another to SpecGuard."""
    out: dict = {}
    for k, v in pairs:
        if k in out:
            raise ValueError(f"the key {k[:60]!r} is repeated in one object")
        out[k] = v
    return out


def _no_constant(tok: str):
    raise ValueError(f"{tok} is not a JSON number (JSON has no NaN or infinity)")


def _finite(tok: str) -> float:
    v = float(tok)
    if v in (float("inf"), float("-inf")):
        raise ValueError(f"the number {tok[:40]} overflows a float")
    return v
