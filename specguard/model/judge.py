"""Model-judgment fallback: when no certified or execution verdict was reached, optionally ask
the model whether the description and the tests conflict.

The answer is recorded as evidence ``model-judgment``: never certified, never mixed into
certified counts.  The judge sees the description and the tests (unlike the spec agent)."""

from __future__ import annotations

import json
import re
from pathlib import Path
from dataclasses import dataclass

from specguard.errors import ModelError
from specguard.model import llm
from specguard.model.llm import Client
from specguard.models import Task

_MAX_TEXT = 30_000



@dataclass
class Judgment:
    verdict: str           # conflict | no-conflict | unclear
    rationale: str
    test: str | None = None


def _tests_text(task: Task) -> str:
    parts = []
    for src in task.tests:
        if src.kind == "python":
            parts.append(f"<<<TESTS {src.path}\n{src.text or ''}\nTESTS>>>")
        else:
            from specguard.python.values import py_repr
            rows = [f"{task.entry_point}({', '.join(py_repr(a) for a in c.args)}) == {py_repr(c.expected)}"
                    for c in src.cases]
            # a JSON table is named by its file name (never a path of this machine)
            parts.append(f"<<<TESTS {Path(src.path).name}\n" + "\n".join(rows) + "\nTESTS>>>")
    return "\n".join(parts)[:_MAX_TEXT]


def parse_judgment(reply: str) -> Judgment:
    """The judgment in ``reply``; malformed or refusing replies are ``unclear`` with the reason."""
    m = re.search(r"\{.*\}", reply or "", re.S)
    if m is None:
        return Judgment("unclear", f"the model's reply is not a JSON judgment: {(reply or '')[:200]!r}")
    try:
        data = json.loads(m.group(0))
    except ValueError:
        return Judgment("unclear", f"the model's reply is not valid JSON: {m.group(0)[:200]!r}")
    v = str(data.get("verdict", "")).strip().lower().replace("_", "-") if isinstance(data, dict) else ""
    if v not in ("conflict", "no-conflict", "unclear"):
        return Judgment("unclear", f"the model's judgment has no valid verdict: {str(data)[:200]!r}")
    t = data.get("test")
    return Judgment(v, str(data.get("rationale", ""))[:2000], str(t)[:500] if t else None)


def judge(task: Task, client: Client) -> Judgment:
    prompt = llm.prompt("judge", entry=task.entry_point or "(see the description)",
                        description=task.description[:_MAX_TEXT], tests=_tests_text(task))
    try:
        reply, _ = client([{"role": "user", "content": prompt}], sample=0)
    except ModelError as e:
        return Judgment("unclear", f"no model judgment: {e.message}")
    return parse_judgment(reply)
