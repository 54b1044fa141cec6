"""The LLM spec agent: a description (and optional context) -> specs in SpecGuard's spec language.

Information barrier: :func:`write_spec` receives the description and context files only, never a
task's tests (its signature has no place for them), so the model cannot fit the spec to the tests.

The model answers with a spec in one ```python block; SpecGuard checks it with
:class:`specguard.formalize.speclang.SpecProgram` (the model never writes Lean).  A reply without a code
block, a spec outside the subset, or a spec that disagrees with the description's own examples
(doctests and worked examples found by :func:`specguard.formalize.description.formalize_description`,
evaluated with speclang's evaluator) is sent back with the error, for at most ``rounds`` rounds.
With ``samples`` K > 1 the agent writes K independent specs (separate conversations, separate cache
entries through the sample index).  For a bug report (``report``: a SWE-bench problem statement)
the prompt adds :data:`REPORT_NOTE`: specify the FIXED behaviour, never the one the report shows.
A replayed question the recording lacks (:class:`~specguard.errors.NotInRecording`) ends that
sample only (``SpecSample.missing``); the other samples go on.

Whether a spec *counts* (agrees with the description's examples and with all but at most one
test, compared after the spec is written) is decided by :mod:`specguard.check`
(:func:`~specguard.check.model_rule`): the agent itself never sees a test.
"""

from __future__ import annotations

import hashlib
import re
from dataclasses import dataclass, field
from typing import Sequence

from specguard.model import llm
from specguard.formalize import speclang
from specguard.errors import ModelBudgetExceeded, ModelError, NotInRecording, SpecGuardError
from specguard.model.llm import Client, ModelSettings, Usage
from specguard.models import ClaimKind, ExpectKind

_BLOCK = re.compile(r"```(?:python|py)?[ \t]*\n(.*?)```", re.S)
_MAX_CONTEXT = 20_000


@dataclass
class SpecSample:
    """One sample: the accepted spec (or why none was), and every round's reply and error."""

    index: int
    program: speclang.SpecProgram | None = None
    source: str | None = None
    rounds: int = 0
    errors: list[str] = field(default_factory=list)
    missing: str | None = None        # replay: the question the recording has no answer for

    @property
    def sha256(self) -> str | None:
        return None if self.source is None else hashlib.sha256(self.source.encode("utf-8")).hexdigest()

    @property
    def path(self) -> str:
        return f"model-spec-{self.index + 1}.py"


@dataclass
class SpecAgentResult:
    model: str
    samples: list[SpecSample]
    usage: Usage
    prompts: list[list[dict]]          # every conversation sent to the model, for audit
    stopped: str | None = None         # why the agent stopped early (budget, provider failure)

    @property
    def specs(self) -> list[speclang.SpecProgram]:
        return [s.program for s in self.samples if s.program is not None]

    def failure_reason(self) -> str:
        if self.stopped:
            return self.stopped
        errs = [f"sample {s.index + 1}: {s.missing or s.errors[-1]}" for s in self.samples
                if s.program is None and (s.errors or s.missing)]
        return "; ".join(errs) or "the model wrote no usable spec"


REPORT_NOTE = ("\nTHIS description IS a bug report (an issue or problem statement). Specify the FIXED behaviour: what "
               "the report says should happen, as it will be once the bug is fixed. The outputs, tracebacks and "
               "examples it shows as what currently happens are the bug: your spec must NOT reproduce them. Where "
               "the report states the expected result (\"should return ...\", \"expected ...\"), your spec gives "
               "exactly that; where it does not say, leave the result free (use `post`).\n")


def build_prompt(description: str, entry_point: str | None, context_files: Sequence[tuple[str, str]] = (),
                 report: bool = False) -> str:
    ctx = ""
    budget = _MAX_CONTEXT
    for name, text in context_files:
        piece = text[:budget]
        budget -= len(piece)
        ctx += f"\nContext file {name}:\n<<<CONTEXT\n{piece}\nCONTEXT>>>\n"
        if budget <= 0:
            break
    return llm.prompt("spec_agent", entry_point=entry_point or "(named in the description)",
                      description=description, context=ctx, report=REPORT_NOTE if report else "")


def extract_code(reply: str) -> str | None:
    blocks = _BLOCK.findall(reply or "")
    if not blocks:
        return None
    # the last block that defines a spec function, else the last block
    for b in reversed(blocks):
        if re.search(r"^def (reference|post)\s*\(", b, re.M):
            return b
    return blocks[-1]


def example_disagreements(program: speclang.SpecProgram, description: str, entry_point: str | None,
                          path: str = "<description>", report: bool = False) -> list[str]:
    """The description's own examples the spec contradicts (evaluated by speclang's evaluator).
    ``report``: the description is a problem statement, whose examples show the behaviour to fix
    (none is used, so the model is never pushed towards the bug)."""
    from specguard.formalize.description import formalize_description
    from specguard.python.values import canon, py_repr
    try:
        df = formalize_description(description, path=path, entry_point=entry_point, report=report)
    except SpecGuardError:
        return []
    entry = program.entry_override or entry_point
    out = []
    budget = speclang.EvalBudget()      # all examples of this spec: bounded steps, time, memory
    for c in df.claims:
        if c.kind is not ClaimKind.example or c.call is None or c.expect is None:
            continue
        if entry and c.call.target != entry:
            continue
        o = program.outcome(c.call.args, c.call.kwargs, budget=budget)
        want_raise = c.expect.kind is ExpectKind.raises
        said = None
        if o.kind == "eq":
            # compared as Python's == compares (True == 1), shown with the spec's own type
            shown = py_repr(o.exact if o.exact is not None else o.value)
            if want_raise:
                said = f"returns {shown}"
            elif c.expect.kind is ExpectKind.eq and o.value != _class(c.expect.value, canon):
                said = f"returns {shown}"
        elif o.kind == "raises" and not want_raise:
            said = f"raises ({o.reason})"
        elif o.kind == "post" and c.expect.kind is ExpectKind.eq and \
                not program.post_holds(o.args, _class(c.expect.value, canon), budget=budget):
            said = "post() rejects that result"
        if said is not None:
            want = "raises" if want_raise else f"== {py_repr(c.expect.value)}"
            out.append(f"the description says {c.call.source(100)} {want} (line {c.loc.line}), but your spec: {said}")
    return out


def _class(v, canon):
    """The canonical class of an example's expected value (unchanged where it has none)."""
    try:
        return canon(v)
    except (TypeError, ValueError):
        return v


def _check_reply(reply: str, index: int, description: str, entry_point: str | None,
                 report: bool = False) -> tuple[speclang.SpecProgram | None, str | None, str]:
    code = extract_code(reply)
    if code is None:
        return None, None, "the reply has no ```python code block with a spec"
    path = f"model-spec-{index + 1}.py"
    try:
        program = speclang.SpecProgram(code, path)
    except SpecGuardError as e:
        return None, code, f"the spec was rejected: {e}"
    except (SyntaxError, RecursionError, MemoryError, ValueError) as e:
        return None, code, f"the spec was rejected: {type(e).__name__}: {e}"
    if program.fn("reference") is None and program.fn("post") is None:
        return None, code, "the spec defines neither reference() nor post()"
    try:
        program.lean_prog()           # compiled to Lean now, so that errors go back to the model
    except SpecGuardError as e:
        return None, code, f"the spec was rejected: {e}"
    bad = example_disagreements(program, description, entry_point, report=report)
    if bad:
        return None, code, "the spec disagrees with the description's own examples: " + "; ".join(bad[:5])
    return program, code, ""


def write_spec(description: str, *, context_files: Sequence[tuple[str, str]] = (),
               model: str | ModelSettings, entry_point: str | None = None, samples: int = 1,
               rounds: int = 3, client: Client | None = None, report: bool = False) -> SpecAgentResult:
    """Ask the model for ``samples`` independent specs of ``description`` (never the tests).

    ``context_files``: ``(name, text)`` pairs shown to the model.  ``model``: a litellm model
    string or :class:`~specguard.model.llm.ModelSettings`.  Budget and provider failures stop the agent
    and are reported in ``stopped``; they are not raised.  ``report``: the description is a problem
    statement (its examples are not fed back as requirements)."""
    settings = model if isinstance(model, ModelSettings) else ModelSettings(model=model)
    client = client or Client(settings)
    prompt = build_prompt(description, entry_point, context_files, report)
    before = Usage()
    before.add(client.meter.spent)
    out: list[SpecSample] = []
    convos: list[list[dict]] = []
    stopped = None
    for k in range(max(1, samples)):
        s = SpecSample(index=k)
        out.append(s)
        messages = [{"role": "user", "content": prompt}]
        for r in range(max(1, rounds)):
            try:
                reply, _ = client(messages, sample=k)
            except NotInRecording as e:       # this sample's miss; the other samples go on
                s.missing = e.message
                break
            except ModelBudgetExceeded as e:
                stopped = e.message
                break
            except ModelError as e:
                stopped = e.message
                break
            s.rounds = r + 1
            program, code, err = _check_reply(reply, k, description, entry_point, report)
            messages = messages + [{"role": "assistant", "content": reply}]
            if program is not None:
                s.program, s.source = program, code
                break
            s.errors.append(err)
            messages = messages + [{"role": "user", "content":
                                    f"{err}\n\nReply with the corrected spec in one ```python block."}]
        convos.append(messages)
        if stopped:
            break
    usage = Usage()
    usage.add(client.meter.spent)
    for f in ("prompt_tokens", "completion_tokens", "cost_usd", "calls", "cached_calls"):
        setattr(usage, f, getattr(usage, f) - getattr(before, f))
    return SpecAgentResult(model=settings.model, samples=out, usage=usage, prompts=convos, stopped=stopped)
