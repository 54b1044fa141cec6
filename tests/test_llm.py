"""The model path (issue 6): litellm's mocked responses only, never the network."""

import inspect
import json

import pytest

litellm = pytest.importorskip("litellm")

from specguard.model import llm, spec_agent
from specguard import load
from specguard.check import Options, check_task
from specguard.errors import ModelBudgetExceeded, ModelError
from specguard.model.judge import parse_judgment
from specguard.model.llm import Client, ModelSettings
from specguard.outputs.results import Evidence, Result, Verdict

MODEL = "gpt-4o-mini"
GOOD = "Here is the spec.\n```python\ndef reference(x: int) -> int:\n    return 2 * x\n```\n"
# #15.1: a model spec counts only where the tests it contradicts are a minority: two agree, one is refuted
TEST_TEXT = "assert double(2) == 4\n    assert double(5) == 10\n    assert double(3) == 7"


def _task(tmp_path, doc='"""Return twice x."""', test=TEST_TEXT, name="double"):
    (tmp_path / "desc.py").write_text(f"def {name}(x: int) -> int:\n    {doc}\n")
    (tmp_path / f"test_{name}.py").write_text(f"from m import {name}\n\n\ndef test_it():\n    {test}\n")
    return load.load_from_parts(str(tmp_path / "desc.py"), [str(tmp_path / f"test_{name}.py")], name)


def _settings(*replies, **kw):
    return ModelSettings(model=MODEL, mock_responses=list(replies), **kw)


# -- llm.complete ------------------------------------------------------------------------------

def test_complete_counts_usage_and_caches(tmp_path):
    msgs = [{"role": "user", "content": "hi"}]
    text, u = llm.complete(MODEL, msgs, cache_dir=tmp_path, mock_response="hello")
    assert text == "hello" and u.calls == 1 and u.prompt_tokens > 0 and u.completion_tokens > 0
    # the same prompt: from the cache (a different mock proves no call was made)
    text2, u2 = llm.complete(MODEL, msgs, cache_dir=tmp_path, mock_response="other")
    assert text2 == "hello" and u2.cached_calls == 1 and u2.calls == 0 and u2.cost_usd == 0
    # another sample index: another cache entry
    text3, _ = llm.complete(MODEL, msgs, cache_dir=tmp_path, sample=1, mock_response="third")
    assert text3 == "third"
    assert not list(tmp_path.rglob(".tmp-*"))     # atomic writes leave no temporaries


def test_token_cap_raises_a_typed_error():
    meter = llm.Meter(max_tokens=25, max_cost_usd=None)
    msgs = [{"role": "user", "content": "hi"}]
    llm.complete(MODEL, msgs, meter=meter, mock_response="a")     # spends 30 tokens (litellm's mock usage)
    with pytest.raises(ModelBudgetExceeded, match="token cap"):
        llm.complete(MODEL, msgs, meter=meter, mock_response="b")
    assert issubclass(ModelBudgetExceeded, ModelError)


def test_cost_cap():
    meter = llm.Meter(max_tokens=None, max_cost_usd=1e-9)
    llm.complete(MODEL, [{"role": "user", "content": "x"}], meter=meter, mock_response="a")
    with pytest.raises(ModelBudgetExceeded, match="cost cap"):
        llm.complete(MODEL, [{"role": "user", "content": "y"}], meter=meter, mock_response="b")


def test_missing_litellm_names_the_install(monkeypatch):
    import sys
    monkeypatch.setitem(sys.modules, "litellm", None)
    with pytest.raises(ModelError) as e:
        llm.complete(MODEL, [{"role": "user", "content": "x"}], mock_response="a")
    assert "specguard[llm]" in str(e.value)


# -- the spec agent (no Lean) ---------------------------------------------------------------------

def test_information_barrier(tmp_path):
    task = _task(tmp_path)
    assert "tests" not in inspect.signature(spec_agent.write_spec).parameters
    res = spec_agent.write_spec(task.description, model=_settings(GOOD), entry_point="double")
    sent = json.dumps(res.prompts)
    assert "Return twice x." in sent
    for src in task.tests:
        assert TEST_TEXT not in sent and src.text not in sent and "== 7" not in sent


def test_compile_error_is_fed_back_and_round_two_succeeds(tmp_path):
    bad = "```python\nimport os\ndef reference(x: int) -> int:\n    return 2 * x\n```"
    settings = _settings(bad, GOOD)
    client = Client(settings)
    res = spec_agent.write_spec("Return twice x.", model=settings, entry_point="double", client=client)
    s = res.samples[0]
    assert s.program is not None and s.rounds == 2 and len(s.errors) == 1
    assert "import" in s.errors[0]
    # the error went back to the model in round 2
    assert len(client.transcript) == 2 and s.errors[0] in client.transcript[1][-1]["content"]
    assert res.usage.calls == 2


def test_disagreement_with_the_descriptions_own_examples_is_fed_back():
    desc = 'def double(x: int) -> int:\n    """Return twice x.\n\n    >>> double(2)\n    4\n    """\n'
    wrong = "```python\ndef reference(x: int) -> int:\n    return x + 1\n```"
    res = spec_agent.write_spec(desc, model=_settings(wrong, GOOD), entry_point="double")
    s = res.samples[0]
    assert s.program is not None and s.rounds == 2
    assert "double(2) == 4" in s.errors[0] and "returns 3" in s.errors[0]


def test_samples_are_independent():
    res = spec_agent.write_spec("Return twice x.", model=_settings(GOOD, GOOD, GOOD), entry_point="double", samples=3)
    assert len(res.specs) == 3 and [s.path for s in res.samples] == [f"model-spec-{i}.py" for i in (1, 2, 3)]


def test_malformed_and_refusing_replies_give_a_reason():
    res = spec_agent.write_spec("Return twice x.", model=_settings("I can't help with that.", "```python\n((\n```",
                                                                   "sorry"), entry_point="double", rounds=3)
    assert not res.specs
    assert "no ```python code block" in res.failure_reason()
    assert len(res.samples[0].errors) == 3


def test_parse_judgment():
    assert parse_judgment('{"verdict": "conflict", "rationale": "r"}').verdict == "conflict"
    assert parse_judgment("I refuse").verdict == "unclear"
    assert parse_judgment('{"verdict": "maybe"}').verdict == "unclear"
    assert parse_judgment("```json\n{\"verdict\": \"no-conflict\", \"rationale\": \"ok\"}\n```").verdict == "no-conflict"


def test_no_model_no_call(tmp_path, monkeypatch):
    """Without a model nothing changes: the model path is never entered."""
    import specguard.check as check
    assert Options().model is None
    monkeypatch.setattr(check, "_model_path", lambda *a: pytest.fail("the model path ran without a model"))
    monkeypatch.setattr(litellm, "completion", lambda *a, **k: pytest.fail("litellm called without a model"))
    monkeypatch.delenv("SPECGUARD_MODEL", raising=False)
    from specguard.cli import main
    monkeypatch.chdir(tmp_path)
    _task(tmp_path)
    code = main(["check", "--description", "desc.py", "--tests", "test_double.py", "--entry-point", "double",
                 "--out", "out", "--json"])
    assert code == 2
    r = Result.model_validate_json((tmp_path / "out" / "result.json").read_text())
    assert r.model is None
    assert any(n.startswith("model path skipped: no model is configured") for n in r.notes)


def test_min_agree_above_samples_is_a_usage_error(tmp_path, capsys):
    from specguard.cli import main
    assert main(["check", "--description", "x", "--tests", "y", "--model", MODEL, "--samples", "1",
                 "--min-agree", "2"]) == 3


# -- end to end, the real kernel --------------------------------------------------------------

@pytest.mark.lean
def test_conflict_through_a_model_spec_is_certified(tmp_path):
    from specguard.outputs.bundle import write_bundle
    from specguard.outputs.verify import verify_bundle
    task = _task(tmp_path)
    assert check_task(task).result.verdict is Verdict.inconclusive     # the rules alone cannot tell
    b = check_task(task, Options(model=_settings(GOOD), samples=1, min_agree=1))
    r = b.result
    assert r.verdict is Verdict.conflict and r.evidence is Evidence.certified, r.reason
    assert r.model.agree == 1 and r.model.calls == 1 and r.model.completion_tokens > 0
    assert r.model.specs[0].source.startswith("def reference")
    assert [i.role for i in b.inputs] == ["spec"]
    out = write_bundle(tmp_path / "bundle", task, b)
    assert verify_bundle(out).valid
    assert Result.model_validate_json((out / "result.json").read_text()).model.cost_usd >= 0
    # the model's spec is kept in the bundle: the task's own files suffice to re-derive the claim
    assert (out / "model-spec-1.py").read_text() == r.model.specs[0].source
    assert any("spec a language model" in a for a in r.assumptions)
    # #11.3: the model's spec is the bundle producer's: --inputs without it is incomplete (exit 4) ...
    rep = verify_bundle(out, [tmp_path / "desc.py", tmp_path / "test_double.py"])
    assert rep.status == "inputs-incomplete" and "missing model-spec-1.py" in rep.reason, rep
    # ... unless the verifier gives it (after reading it), or opts in to the bundle's copy, which is named
    rep = verify_bundle(out, [tmp_path / "desc.py", tmp_path / "test_double.py", out / "model-spec-1.py"])
    assert rep.valid and rep.claim_source == "re-derived from the inputs" and not rep.model_inputs, rep
    rep = verify_bundle(out, [tmp_path / "desc.py", tmp_path / "test_double.py"], accept_bundled_model_inputs=True)
    assert rep.valid and rep.claim_source == "re-derived from the inputs and the bundle's model inputs", rep
    assert rep.model_inputs == ("model-spec-1.py",) and "model-spec-1.py" in rep.reason
    assert any("model-spec-1.py, a model-written spec taken from the bundle" in a for a in rep.assumptions)
    # a bundle whose model spec was edited (and its hash in the manifest redone) no longer matches
    import hashlib
    spec = (out / "model-spec-1.py").read_text().replace("2 * x", "3 * x")
    (out / "model-spec-1.py").write_text(spec)
    assert not verify_bundle(out).valid
    man = json.loads((out / "manifest.json").read_text())
    sha = hashlib.sha256(spec.encode()).hexdigest()
    man["outputs"]["model-spec-1.py"] = sha
    for i in man["inputs"]:
        if i["role"] == "spec":
            i["sha256"] = sha
    (out / "manifest.json").write_text(json.dumps(man))
    assert verify_bundle(out).valid                       # intact as a bundle, but ...
    rep = verify_bundle(out, [tmp_path / "desc.py", tmp_path / "test_double.py"], accept_bundled_model_inputs=True)
    assert not rep.valid and "differs from the one re-derived" in rep.reason


@pytest.mark.lean
def test_min_agree_downgrades_to_inconclusive(tmp_path):
    loose = "```python\ndef post(x: int, result: int) -> bool:\n    return result >= 0\n```"
    task = _task(tmp_path)
    b = check_task(task, Options(model=_settings(GOOD, loose), samples=2, min_agree=2, judge=False))
    r = b.result
    assert r.verdict is Verdict.inconclusive and r.evidence is Evidence.none
    # #15.1: the loose spec refutes no test: only 1 of the 2 specs contradicts the conflict's test
    assert "fewer than min-agree" in r.reason and "certified against 1 of the 2" in r.reason, r.reason
    assert r.model.agree == 0 and r.model.miss_cause in r.reason
    assert [s.conflict_test for s in r.model.specs] == ["T3", None] and r.model.specs[1].refuted == ()


@pytest.mark.lean
def test_judge_fallback_is_model_judgment_never_certified(tmp_path):
    from specguard.outputs.bundle import write_bundle
    from specguard.outputs.verify import verify_bundle
    task = _task(tmp_path, doc='"""Return the number of primes below x."""', test="assert double(10) == 5")
    judgment = '{"verdict": "conflict", "rationale": "there are 4 primes below 10", "test": "double(10) == 5"}'
    b = check_task(task, Options(model=_settings("I cannot do that.", "No.", "Sorry.", judgment), samples=1, min_agree=1))
    r = b.result
    assert r.verdict is Verdict.conflict and r.evidence is Evidence.model_judgment
    assert r.model.judgment.verdict == "conflict" and "4 primes" in r.reason
    assert r.certificate.accepted is False or "Conflict" not in r.certificate.claims
    out = write_bundle(tmp_path / "bundle", task, b)
    rep = verify_bundle(out)
    assert rep.evidence is Evidence.model_judgment
    # --no-judge: inconclusive, with the reason the model path gave
    r2 = check_task(task, Options(model=_settings("I cannot do that.", "No.", "Sorry."), judge=False, samples=1,
                                 min_agree=1)).result
    assert r2.verdict is Verdict.inconclusive and r2.model.judgment is None
    assert any("no usable spec" in n for n in r2.notes)


@pytest.mark.lean
def test_budget_cap_stops_the_model_path_inconclusive(tmp_path):
    task = _task(tmp_path)
    bad = "```python\nimport os\n```"
    b = check_task(task, Options(model=_settings(bad, GOOD, max_task_tokens=25), samples=1, min_agree=1))
    r = b.result
    assert r.verdict is Verdict.inconclusive
    assert "token cap" in r.reason and r.model.stopped and r.model.judgment is None


def test_context_files_reach_the_model_but_tests_never_do(tmp_path):
    src = tmp_path / "helpers.py"
    src.write_text("SCALE = 2  # used by double\n")
    from specguard.cli import _read_context
    ctx = (_read_context(str(src)),)
    res = spec_agent.write_spec("Return twice x.", context_files=ctx, model=_settings(GOOD), entry_point="double")
    sent = json.dumps(res.prompts)
    assert "SCALE = 2" in sent and TEST_TEXT not in sent


def test_model_flags_and_config(tmp_path, monkeypatch):
    from specguard.cli import _model_settings, build_parser
    from specguard.config import load_config
    monkeypatch.chdir(tmp_path)
    monkeypatch.delenv("SPECGUARD_MODEL", raising=False)
    conf = 'model = "openai/x"\nmodel_max_task_cost_usd = 0.5\nmodel_retries = 5\n'
    # a specguard.toml in the current folder is never read (#11.1); the user's own file is
    (tmp_path / "specguard.toml").write_text(conf)
    warned: list[str] = []
    assert load_config(tmp_path, env={}, warn=warned.append).model is None
    assert "is ignored (model, model_max_task_cost_usd, model_retries)" in warned[0] and "--model MODEL" in warned[0]
    (tmp_path / "xdg" / "specguard").mkdir(parents=True)
    (tmp_path / "xdg" / "specguard" / "config.toml").write_text(conf)
    cfg = load_config(tmp_path, env={"XDG_CONFIG_HOME": str(tmp_path / "xdg")}, warn=lambda m: None)
    assert cfg == load_config(tmp_path, env={}, config_file=tmp_path / "xdg/specguard/config.toml", warn=lambda m: None)
    args = build_parser().parse_args(["check", "t", "--max-task-tokens", "0", "--model-timeout", "9",
                                      "--model-cache", str(tmp_path / "c")])
    s = _model_settings(args, cfg)
    assert (s.model, s.max_task_tokens, s.max_task_cost_usd, s.timeout, s.retries) == ("openai/x", None, 0.5, 9, 5)
    assert s.cache_dir == tmp_path / "c"
    s = _model_settings(build_parser().parse_args(["batch", "x", "--out", "o", "--model", "m2", "--no-model-cache"]), cfg)
    assert s.model == "m2" and s.cache_dir is None
    assert _model_settings(build_parser().parse_args(["check", "t"]), load_config(tmp_path / "none", env={})) is None
    from specguard.cli import main
    assert main(["check", "t", "--model", "m", "--max-task-cost", "-1"]) == 3


@pytest.mark.lean
def test_batch_runs_the_model_path(tmp_path):
    from specguard.outputs.batch import run_batch, recover_rows
    folder = tmp_path / "tasks" / "double"
    folder.mkdir(parents=True)
    (folder / "description.md").write_text("Return twice x.\n")
    (folder / "test_double.py").write_text(f"from m import double\n\n\ndef test_it():\n    {TEST_TEXT}\n")
    (folder / "task.toml").write_text('id = "double"\ndescription = "description.md"\ntests = ["test_double.py"]\n'
                                      'entry_point = "double"\n')
    s = run_batch([str(tmp_path / "tasks")], tmp_path / "out", workers=1, model=_settings(GOOD), judge=False)
    [row] = recover_rows(tmp_path / "out")
    assert row.verdict.value == "conflict" and row.evidence.value == "certified", row.reason
    assert row.cost_usd is not None
    meta = json.loads((tmp_path / "out" / "batch.json").read_text())
    assert meta["runs"][0]["options"]["model"] == MODEL and s.total == 1


@pytest.mark.lean
def test_lcb_benchmark_replays_a_recorded_transcript(tmp_path, capsys):
    """``benchmarks.lcb --model``: the same table as the deterministic run, with cost per task; the
    model's replies come from a recorded transcript (the response cache), never the network."""
    from benchmarks import lcb
    task = {"task_id": "t0", "entry_point": "double", "impossible_type": "conflicting",
            "description": 'def double(x: int) -> int:\n    """Return twice x."""\n',
            "original_tests": [{"args": [2], "expected": 4}, {"args": [5], "expected": 10}, {"args": [3], "expected": 6}],
            "modified_tests": [{"args": [2], "expected": 4}, {"args": [5], "expected": 10}, {"args": [3], "expected": 7}]}
    (tmp_path / "conflicting.json").write_text(json.dumps({"split": "conflicting", "tasks": [task]}))
    cache = tmp_path / "cache"
    # record: the spec agent's one call, as check --model makes it, answered by litellm's mock
    res = spec_agent.write_spec(task["description"], model=_settings(GOOD, cache_dir=cache), entry_point="double")
    assert res.specs and list(cache.rglob("*.json"))
    import litellm as _l
    real = _l.completion
    _l.completion = lambda *a, **k: pytest.fail("the benchmark reached the network")
    try:
        code = lcb.main(["--data", str(tmp_path), "--runs", "conflicting", "--workers", "1", "--model", MODEL,
                         "--samples", "1", "--no-judge", "--model-cache", str(cache), "--json", "--details", str(tmp_path / "d.jsonl")])
    finally:
        _l.completion = real
    assert code == 0
    rep = json.loads(capsys.readouterr().out)
    assert rep["conflicting"]["certified"] == 1, (tmp_path / "d.jsonl").read_text()
    assert rep["conflicting"]["cost_per_task_usd"] == 0.0


def test_doctor_reports_the_model_path_without_calling_it(monkeypatch, capsys):
    from specguard.cli import main
    monkeypatch.setattr(litellm, "completion", lambda *a, **k: pytest.fail("doctor called the model"))
    monkeypatch.setenv("SPECGUARD_MODEL", "openai/gpt-4o-mini")
    monkeypatch.delenv("OPENAI_API_KEY", raising=False)
    assert main(["doctor", "--json"]) == 0
    m = json.loads(capsys.readouterr().out)["model"]
    assert m["model"] == "openai/gpt-4o-mini" and m["litellm"] and m["missing_keys"] == ["OPENAI_API_KEY"]
    monkeypatch.setenv("OPENAI_API_KEY", "sk-test-not-a-key")
    assert main(["doctor"]) == 0
    out = capsys.readouterr().out
    assert "model: openai/gpt-4o-mini" in out and "missing" not in out and "sk-test" not in out


def test_a_batch_is_not_resumed_with_another_model(tmp_path):
    from specguard.outputs.batch import run_batch
    from specguard.errors import BatchError
    folder = tmp_path / "tasks" / "t"
    folder.mkdir(parents=True)
    (folder / "description.md").write_text("Return twice x.\n")
    (folder / "test_double.py").write_text(f"from m import double\n\n\ndef test_it():\n    {TEST_TEXT}\n")
    (folder / "task.toml").write_text('id = "t"\ndescription = "description.md"\ntests = ["test_double.py"]\n')
    run_batch([str(tmp_path / "tasks")], tmp_path / "out", workers=1)
    with pytest.raises(BatchError, match="made with no model"):
        run_batch([str(tmp_path / "tasks")], tmp_path / "out", workers=1, model=_settings(GOOD))
    run_batch([str(tmp_path / "tasks")], tmp_path / "out", workers=1, model=_settings(GOOD), restart=True)


def test_the_spec_prompts_own_examples_are_valid_specs():
    import re
    from specguard.formalize import speclang
    text = llm.prompt("spec_agent", entry_point="f", description="d", context="")
    blocks = re.findall(r"```python\n(.*?)```", text, re.S)
    assert len(blocks) >= 2
    for b in blocks:
        speclang.SpecProgram(b, "example.py").lean_prog()
    assert "{" + "description}" not in text and "d\nDESCRIPTION>>>" in text


@pytest.mark.lean
def test_a_model_spec_never_binds_keyword_arguments(tmp_path):
    """A model may name the parameters otherwise than the function: its spec's names bind nothing."""
    (tmp_path / "desc.md").write_text("Return twice the number.\n")
    (tmp_path / "test_double.py").write_text("from m import double\n\n\ndef test_it():\n    assert double(x=3) == 7\n")
    task = load.load_from_parts(str(tmp_path / "desc.md"), [str(tmp_path / "test_double.py")], "double")
    r = check_task(task, Options(model=_settings(GOOD), judge=False, samples=1, min_agree=1)).result
    assert r.verdict is Verdict.inconclusive, r.reason
    assert not any("keyword arguments are bound" in a for a in r.assumptions)


def test_a_bug_reports_examples_are_never_fed_back_to_the_spec_agent():
    """The example an issue shows is the bug: a spec of the fixed behaviour must not be pushed back."""
    issue = "Bug: double(2) is wrong.\n\n>>> double(2)\n5\n\nbut it should be 4.\n"
    res = spec_agent.write_spec(issue, model=_settings(GOOD), entry_point="double")
    assert res.specs and res.samples[0].rounds == 1 and not res.samples[0].errors
    stmt = "Make double return twice its argument.\n\n>>> double(2)\n5\n"
    res = spec_agent.write_spec(stmt, model=_settings(GOOD, GOOD), entry_point="double", report=True, rounds=1)
    assert res.specs and not res.samples[0].errors


SLOW = ("```python\ndef reference(x: int) -> int:\n    s = 0\n    i = 0\n    while i < x:\n"
        "        s = s + 2\n        i = i + 1\n    return s\n```\n")


@pytest.mark.lean
def test_a_conflict_beyond_the_kernel_budget_is_rechecked_by_the_kernel(tmp_path):
    """#15.2: a model spec that refutes a test only beyond the default kernel budget (execution
    evidence) is checked once more with MODEL_KERNEL_BUDGET on that conflict alone: certified."""
    task = _task(tmp_path, test="assert double(2) == 4\n    assert double(5) == 10\n    assert double(3000) == 6001")
    r = check_task(task, Options(model=_settings(SLOW), samples=1, min_agree=1, judge=False,
                                 spec_budget=1_000)).result
    assert r.verdict is Verdict.conflict and r.evidence is Evidence.certified, r.reason
    assert "double(3000)" in r.reason


@pytest.mark.lean
def test_small_tests_are_evaluated_before_large_ones_under_the_spec_budget(tmp_path, monkeypatch):
    """#15.2: the spec's one evaluation budget is spent smallest input first, so a conflict at a
    small test is not lost behind an expensive one listed before it (before: every test after
    `double(30000)` was "evaluation budget exceeded" and nothing was certified)."""
    from specguard.formalize import speclang
    monkeypatch.setattr(speclang.EvalBudget.__init__, "__defaults__", (100_000, 600.0, 512))
    task = _task(tmp_path, test="assert double(30000) == 60000\n    assert double(2) == 4\n"
                                "    assert double(5) == 10\n    assert double(3) == 7")
    r = check_task(task, Options(model=_settings(SLOW), samples=1, min_agree=1, judge=False)).result
    assert r.verdict is Verdict.conflict and r.evidence is Evidence.certified, r.reason
    assert "double(3)" in r.reason
    assert r.model.specs[0].agreed == 2 and r.model.specs[0].unknown == 1


@pytest.mark.lean
def test_a_failed_kernel_recheck_states_its_reason_in_the_miss_cause(tmp_path):
    """#15.2: a conflict beyond even the re-check's kernel budget stays execution evidence, and the
    sample's miss cause says that the kernel re-check ran and why it certified nothing."""
    task = _task(tmp_path, test="assert double(2) == 4\n    assert double(5) == 10\n    assert double(80000) == 160001")
    r = check_task(task, Options(model=_settings(SLOW), samples=1, min_agree=1, judge=False)).result
    assert r.evidence is not Evidence.certified, r.reason
    cause = r.model.specs[0].miss_cause
    assert cause.startswith("execution tier") and "kernel re-check with 400000 steps" in cause, cause
    assert r.model.miss_cause and "kernel re-check" in r.model.miss_cause


@pytest.mark.lean
def test_the_kernels_share_goes_first_to_the_input_a_spec_refutes(tmp_path):
    """#15.2: the kernel is asked about at most 2 x --spec-budget steps of spec instances in all;
    the inputs where the spec contradicts a test take that share first (before: three agreeing
    tests spent it and the conflict at `double(150)`, within the per-input budget, was only
    execution evidence; lcbhard_84's re-check was lost that way)."""
    from specguard.formalize import speclang
    task = _task(tmp_path, test="assert double(100) == 200\n    assert double(101) == 202\n"
                                "    assert double(102) == 204\n    assert double(150) == 301")
    prog = speclang.SpecProgram(SLOW.split("```python\n")[1].split("```")[0], "spec.py")
    r = check_task(task, Options(spec=prog, spec_budget=1_000, classify=False)).result
    assert r.verdict is Verdict.conflict and r.evidence is Evidence.certified, r.reason
    assert "double(150)" in r.reason
