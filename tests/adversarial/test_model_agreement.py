"""Issue 15: the agreement rule over model-written specs (docs/trust.md): what a wrong spec can no
longer certify.  Model answers are litellm's mocked responses; the kernel is real."""

import pytest

pytest.importorskip("litellm")

from specguard import load
from specguard.check import Options, check_task
from specguard.formalize import speclang
from specguard.model.llm import ModelSettings
from specguard.outputs.results import Evidence, Verdict

# a spec that is right for small x only where x is even: wrong (x + 1) at odd x, slow at large x
WRONG_ODD = ("```python\ndef reference(x: int) -> int:\n    s = 0\n    i = 0\n    while i < x:\n"
             "        s = s + 2\n        i = i + 1\n    if x % 2 == 1:\n        s = s + 1\n    return s\n```\n")


def _task(tmp_path, test: str):
    (tmp_path / "desc.py").write_text('def double(x: int) -> int:\n    """Return twice x."""\n')
    (tmp_path / "test_double.py").write_text(f"from m import double\n\n\ndef test_it():\n    {test}\n")
    return load.load_from_parts(str(tmp_path / "desc.py"), [str(tmp_path / "test_double.py")], "double")


@pytest.mark.lean
def test_a_spec_wrong_on_small_tests_behind_a_large_one_is_suspect(tmp_path, monkeypatch):
    """#15.2 / #15.1: the tests a wrong spec fails are evaluated even when an expensive test is
    listed before them (smallest input first under the one budget).  In suite order the budget
    ran out at `double(30000)`, the spec refuted one correct test (`double(3) == 6`) and agreed
    with two: it counted and certified a false conflict with --min-agree 1."""
    monkeypatch.setattr(speclang.EvalBudget.__init__, "__defaults__", (100_000, 600.0, 512))
    task = _task(tmp_path, "assert double(2) == 4\n    assert double(4) == 8\n    assert double(3) == 6\n"
                           "    assert double(30000) == 60000\n    assert double(5) == 10\n    assert double(7) == 14")
    settings = ModelSettings(model="gpt-4o-mini", mock_responses=[WRONG_ODD])
    r = check_task(task, Options(model=settings, samples=1, min_agree=1, judge=False)).result
    assert r.verdict is not Verdict.conflict, r.reason
    spec = r.model.specs[0]
    assert not spec.counted and "suspect" in spec.suspect and len(spec.refuted) == 3, spec
