"""#15.1/#15.2: confirming a model spec's conflict by the kernel (mocked model responses, the real
Lean kernel, never the network).

A conflict a model spec shows only beyond the default kernel budget (execution evidence) is
checked once more by the kernel (``check._kernel_retry``) with MODEL_KERNEL_BUDGET steps, a longer
time limit and at least MODEL_KERNEL_MEMORY_MB of memory: the kernel keeps the terms of its
evaluation, so its memory grows with the steps (measured: lcbhard_11's conflict, 122,000 steps,
peaked at 4.3 GB and was "(kernel) excessive memory consumption detected" under the default
2048 MB).  More memory changes what Lean may use, never what it checks."""

from __future__ import annotations

import pytest

pytest.importorskip("litellm")

from specguard import check, load
from specguard.check import Options, check_task
from specguard.kernel import certcheck
from specguard.model.llm import ModelSettings
from specguard.outputs.results import Evidence, Verdict

# a spec whose value at x costs about 5 x steps: double(100) is beyond a 200-step kernel budget
SLOW = ("```python\ndef reference(x: int) -> int:\n    s = 0\n    i = 0\n    while i < x:\n"
        "        s = s + 2\n        i = i + 1\n    return s\n```\n")


def _task(tmp_path, test: str):
    (tmp_path / "desc.py").write_text('def double(x: int) -> int:\n    """Return twice x."""\n')
    (tmp_path / "test_double.py").write_text(f"from m import double\n\n\ndef test_it():\n    {test}\n")
    return load.load_from_parts(str(tmp_path / "desc.py"), [str(tmp_path / "test_double.py")], "double")


def _spy_memory(monkeypatch) -> list[int]:
    """The memory limit (MB) of every certificate check, in order (the real check runs)."""
    seen: list[int] = []
    real = certcheck.check_certificate

    def spy(*a, **kw):
        seen.append(kw["memory_mb"])
        return real(*a, **kw)
    monkeypatch.setattr(certcheck, "check_certificate", spy)
    return seen


@pytest.mark.lean
def test_the_kernel_recheck_of_a_model_conflict_gets_the_model_kernel_memory(tmp_path, monkeypatch):
    """#15.2: the re-check of an execution-tier conflict runs Lean with MODEL_KERNEL_MEMORY_MB, not
    the run's own (smaller) limit, and certifies the conflict (before: lcbhard_11 and lcbhard_84,
    whose conflicts fit the re-check's steps, failed with "(kernel) excessive memory consumption
    detected" under 2048 MB and stayed execution evidence)."""
    seen = _spy_memory(monkeypatch)
    task = _task(tmp_path, "assert double(2) == 4\n    assert double(5) == 10\n    assert double(100) == 201")
    r = check_task(task, Options(model=ModelSettings(model="gpt-4o-mini", mock_responses=[SLOW]), samples=1,
                                 min_agree=1, judge=False, spec_budget=200, memory_mb=1024)).result
    assert r.verdict is Verdict.conflict and r.evidence is Evidence.certified, r.reason
    assert "double(100)" in r.reason
    assert seen and seen[-1] == check.MODEL_KERNEL_MEMORY_MB > 1024, seen
    assert set(seen[:-1]) <= {1024}, seen          # the rules' own checks keep the run's limit


@pytest.mark.lean
def test_the_kernel_recheck_keeps_a_larger_memory_limit_the_user_gave(tmp_path, monkeypatch):
    """#15.2: MODEL_KERNEL_MEMORY_MB is a floor: a run given more memory re-checks with its own."""
    seen = _spy_memory(monkeypatch)
    task = _task(tmp_path, "assert double(2) == 4\n    assert double(5) == 10\n    assert double(100) == 201")
    big = check.MODEL_KERNEL_MEMORY_MB + 1024
    prog_text = SLOW.split("```python\n")[1].split("```")[0]
    from specguard.formalize import speclang
    b, why = check._kernel_retry(task, Options(memory_mb=big), speclang.SpecProgram(prog_text, "model-spec-1.py"))
    assert b is not None and b.result.evidence is Evidence.certified, why
    assert seen == [big], seen


# the same function as SLOW in two other texts (not byte-identical, so each counts on its own)
SLOW_B = SLOW.replace("s = s + 2", "s = 2 + s")
SLOW_C = SLOW.replace("i = i + 1", "i = 1 + i")


@pytest.mark.lean
def test_a_conflict_is_rechecked_by_the_kernel_once_and_confirmed_by_the_other_specs(tmp_path, monkeypatch):
    """#15.1/#15.2: three specs contradict double(100) == 201 only beyond the kernel budget; the
    kernel re-checks the conflict against the first, and the two others (which contradict the same
    test, by SpecGuard's evaluator) count for --min-agree without a re-check of their own (before:
    one 130 s re-check per sample on lcbhard_11).  The rule is unchanged: 3 of 3 count and refute."""
    seen = _spy_memory(monkeypatch)
    task = _task(tmp_path, "assert double(2) == 4\n    assert double(5) == 10\n    assert double(100) == 201")
    r = check_task(task, Options(model=ModelSettings(model="gpt-4o-mini", mock_responses=[SLOW, SLOW_B, SLOW_C]),
                                 samples=3, min_agree=2, judge=False, spec_budget=200)).result
    assert r.verdict is Verdict.conflict and r.evidence is Evidence.certified, r.reason
    assert "3 of 3 independent model spec(s)" in r.reason, r.reason
    assert seen.count(check.MODEL_KERNEL_MEMORY_MB) == 1, seen
    specs = r.model.specs
    assert specs[0].conflict_test is not None and specs[1].conflict_test is None and specs[2].conflict_test is None
    for s in specs[1:]:
        assert s.counted and specs[0].conflict_test in s.refuted
        assert "no kernel re-check" in s.miss_cause, s.miss_cause


@pytest.mark.lean
def test_a_suspect_specs_certified_conflict_does_not_spare_the_others_their_recheck(tmp_path, monkeypatch):
    """#15.1: a spec that contradicts more tests than --max-refuted allows is suspect; its
    kernel-certified conflict confirms nothing, so a counted spec's execution-tier conflict at the
    same test is still re-checked by the kernel (else no counted spec would be kernel-checked)."""
    seen = _spy_memory(monkeypatch)
    task = _task(tmp_path, "assert double(100) == 201\n    assert double(3) == 6\n    assert double(4) == 8")
    # twice x but at 3 and 4: it contradicts all three tests (suspect), and cheaply (certified at once)
    odd = ("```python\ndef reference(x: int) -> int:\n    if x == 3 or x == 4:\n        return 2 * x + 1\n"
           "    return 2 * x\n```\n")
    r = check_task(task, Options(model=ModelSettings(model="gpt-4o-mini", mock_responses=[odd, SLOW]),
                                 samples=2, min_agree=1, judge=False, spec_budget=200)).result
    specs = r.model.specs
    assert specs[0].suspect and specs[0].conflict_test in specs[1].refuted, specs[0]
    assert seen.count(check.MODEL_KERNEL_MEMORY_MB) == 1, seen          # SLOW's own re-check ran
    assert r.verdict is Verdict.conflict and r.evidence is Evidence.certified, r.reason
    assert specs[1].counted and specs[1].conflict_test == specs[0].conflict_test
