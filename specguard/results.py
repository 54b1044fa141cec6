"""Models of everything ``check`` writes: ``result.json`` and ``manifest.json``.

The JSON Schemas in ``schemas/`` are generated from these models
(``python -m specguard schema``); a test keeps them in sync.
"""

from __future__ import annotations

from enum import Enum
from typing import Literal

from pydantic import BaseModel, ConfigDict, Field

from .models import InputFile, Loc, Unsupported

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
    none = "none"


ASSUMPTIONS = (
    "The implementation returns plain Python data (None, bool, int, float, str, bytes, list, tuple, "
    "dict, set, frozenset) or raises; objects with a custom __eq__ are outside the model.",
    "The implementation is a function of its arguments: the same arguments give the same outcome "
    "(no hidden state, randomness or I/O between test calls).",
    "A 'raises' expectation is read as 'raises some exception' (exception classes can be related "
    "by user-defined subclasses, so no two raises expectations are taken to conflict).",
    "Python's == on plain data is modelled by SpecGuard's value classes (specguard/values.py), "
    "tested differentially against CPython.",
    "For tests given as JSON tables (LiveCodeBench style), results are compared in their JSON "
    "form (tuples as lists, dict keys as strings), since JSON cannot tell these apart.",
    "What the description states (its examples, return annotation and stated result bounds) is "
    "taken as a requirement; the rest of its prose is not formalized by the rule-based path.",
)


class Item(_Frozen):
    """One side of a conflict: a test assertion or a description statement."""

    id: str
    source: Literal["test", "description"]
    loc: Loc
    text: str
    statement: str = Field(description="what SpecGuard read it as, e.g. 'f(1, 2) == 3'")


class ConflictCore(_Frozen):
    kind: Literal["test-vs-test", "description-vs-test", "description-internal"]
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
    certified: bool = False
    exact: bool = Field(default=True, description="False when the test was weakened to fit the model")


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
    notes: tuple[str, ...] = ()
    assumptions: tuple[str, ...] = ASSUMPTIONS
    certificate: CertReport = CertReport()
    runtime: RuntimeReport | None = None
    specguard_version: str
    seconds: float = 0.0
    labels: dict[str, str] = Field(default_factory=dict)


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
