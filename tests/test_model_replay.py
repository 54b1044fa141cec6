"""Issue 15: the model path replayed from a real model's recorded answers (tests/data/model_replay),
never the network: the agreement rule (item 1), miss causes (item 2), the model-spec-agreement
no-conflict (item 3) and replay itself (item 5)."""

import json
from pathlib import Path

import pytest

pytest.importorskip("litellm")
import litellm  # noqa: E402

_LITELLM_COMPLETION = litellm.completion     # before the autouse fixture below replaces it

from specguard.model import llm, spec_agent
from specguard import load
from specguard.check import Options, check_task
from specguard.errors import InputError
from specguard.model.llm import Client, ModelSettings, question_of
from specguard.outputs.results import Evidence, Verdict

HERE = Path(__file__).resolve().parent
DATA = HERE / "data" / "model_replay"
REC = DATA / "lcb-oneoff-24.jsonl"
THREE = DATA / "three-samples.jsonl"


@pytest.fixture(scope="module")
def oneoff():
    for root in (HERE.parent.parent / "shared", HERE.parent.parent.parent / "shared"):
        p = root / "data" / "livecodebench" / "oneoff.json"
        if p.is_file():
            return str(p)
    pytest.skip("shared/data/livecodebench is not present")


@pytest.fixture(autouse=True)
def no_network(monkeypatch):
    import litellm
    monkeypatch.setattr(litellm, "completion", lambda *a, **k: pytest.fail("a replay reached the network"))


def _check(oneoff, tid, suite, rec=REC, samples=1, min_agree=1):
    task = load.load_lcb(oneoff, tid, suite)
    opts = Options(classify=False, judge=False, samples=samples, min_agree=min_agree,
                   model=ModelSettings(model="openai/recorded", replay=rec))
    return check_task(task, opts)


@pytest.mark.lean
@pytest.mark.parametrize("tid", ["lcbhard_22", "lcbhard_47", "lcbhard_95"])
def test_recorded_answers_certify_the_corrupted_suite_and_agree_on_the_original(oneoff, tid):
    """#15.5/#15.3: replayed at the recording's settings (--samples 1), the corrupted suite is a
    certified conflict, as recorded; the original is a no-conflict resting on the model's spec
    (evidence model-spec-agreement, never certified), with the agreement stated."""
    r = _check(oneoff, tid, "corrupted").result
    assert r.verdict is Verdict.conflict and r.evidence is Evidence.certified, r.reason
    assert r.model.replayed_calls == 1 and r.model.calls == 0 and r.model.miss_cause is None
    assert r.model.specs[0].counted and len(r.model.specs[0].refuted) == 1
    assert r.model.rule.startswith("A model-written spec counts only if")
    o = _check(oneoff, tid, "original").result
    assert o.verdict is Verdict.no_conflict and o.evidence is Evidence.model_spec_agreement, o.reason
    assert o.model.agreement.startswith("model specs agree with all") and "not certified" in o.reason


# the recording's verdicts where this version differs, and why (every other task: as recorded)
DIFFERENT = {
    "lcbhard_94": "spec suspect",        # its spec was wrong (fails T13 too): the recorded certificate was luck
    "lcbhard_22": None,                  # the bool-as-int evaluator bug is fixed: now certified
}
# lcbhard_23 and lcbhard_79 were "evaluation budget" here (the budget ended before the spec reached
# their small corrupted test): with the tests evaluated smallest first (#15.2) they replay to the
# recorded certified conflict again
CHEAP = ["lcbhard_19", "lcbhard_35", "lcbhard_46", "lcbhard_74", "lcbhard_83", "lcbhard_94", "lcbhard_23"]


@pytest.mark.lean
def test_the_recorded_corrupted_verdicts_replay(oneoff):
    """#15.5: the corrupted suites of (a cheap part of) the 24 recorded tasks replay to the recorded
    verdict, except where this version differs for a stated reason (DIFFERENT)."""
    recorded = json.loads((DATA / "lcb-oneoff-24-outcomes.json").read_text())
    for tid in CHEAP:
        r = _check(oneoff, tid, "corrupted").result
        was = (recorded[tid]["corrupted"]["verdict"], recorded[tid]["corrupted"]["evidence"])
        if tid in DIFFERENT:
            assert (r.verdict.value, r.evidence.value) == ("inconclusive", "none"), (tid, r.reason)
            assert DIFFERENT[tid] in r.model.miss_cause, (tid, r.model.miss_cause)
        else:
            assert (r.verdict.value, r.evidence.value) == was, (tid, r.reason)


@pytest.mark.lean
def test_lcbhard_22s_bool_spec_is_accepted_in_round_one(oneoff):
    """#15.5: the recording's spec for lcbhard_22 returns a bool; the evaluator once reported True
    as 1 and fed it back three times: now round 1 is accepted (so round 2's recorded question,
    with the old feedback, is never asked)."""
    b = _check(oneoff, "lcbhard_22", "corrupted")
    s = b.result.model.specs[0]
    assert s.rounds == 1 and not s.errors and s.source and "-> bool" in s.source
    assert b.result.model.prompts == 1


@pytest.mark.lean
def test_lcbhard_94_the_recorded_false_conflict_is_never_certified(oneoff):
    """#15.1: lcbhard_94's recorded spec refutes T13 of the original suite (which, as
    benchmarks/lcb_errata.py demonstrates, contradicts the description: see the next test). On the
    corrupted suite it fails two tests: suspect, not counted, even with --min-agree 1. On the
    original, with the default --samples 3 --min-agree 2, synthetic other samples that do not
    refute T13 leave it uncertified, and the miss cause says so."""
    c = _check(oneoff, "lcbhard_94", "corrupted").result
    assert c.verdict is Verdict.inconclusive, c.reason
    assert c.model.specs[0].suspect.startswith("spec suspect: contradicts 2 tests")
    assert c.model.miss_cause.startswith("spec suspect")
    for rec in (THREE, REC):     # synthetic samples 2-3; or the recording alone (samples 2-3 not in it)
        o = _check(oneoff, "lcbhard_94", "original", rec=rec, samples=3, min_agree=2).result
        assert o.verdict is Verdict.inconclusive and o.evidence is Evidence.none, o.reason
        assert "fewer than min-agree" in o.model.miss_cause, o.model.miss_cause
        assert o.model.specs[0].refuted == ("T13",)
    assert "not in the recording" in o.model.specs[1].miss_cause


@pytest.mark.lean
def test_lcbhard_94_three_real_samples_certify_the_erratum(oneoff):
    """#15.1: three independent real-model specs of lcbhard_94 (recorded through a local endpoint)
    all refute original T13 and agree with the other 24 tests and the 3 examples: a certified
    conflict, and a true one (the described game gives 'Fennec' there, benchmarks.lcb_errata);
    the corrupted suite, which keeps T13 and corrupts T10, makes every spec suspect."""
    from benchmarks.lcb_errata import _determine_winner
    rec = DATA / "lcb-94-3samples.jsonl"
    o = _check(oneoff, "lcbhard_94", "original", rec=rec, samples=3, min_agree=2).result
    assert o.verdict is Verdict.conflict and o.evidence is Evidence.certified, o.reason
    assert all(sp.refuted == ("T13",) and sp.counted for sp in o.model.specs)
    assert _determine_winner(10, [7, 16, 3, 3, 9, 8, 16, 12, 8, 3]) == "Fennec"
    c = _check(oneoff, "lcbhard_94", "corrupted", rec=rec, samples=3, min_agree=2).result
    assert c.verdict is Verdict.inconclusive and all(sp.suspect for sp in c.model.specs), c.reason


@pytest.mark.lean
def test_three_samples_that_agree_certify(oneoff):
    """#15.1: with the default --samples 3 --min-agree 2, three counted specs refuting the same
    test certify the conflict (the bundle carries one of them as its model input)."""
    b = _check(oneoff, "lcbhard_83", "corrupted", rec=THREE, samples=3, min_agree=2)
    r = b.result
    assert r.verdict is Verdict.conflict and r.evidence is Evidence.certified, r.reason
    assert r.model.agree == 3 and "3 of 3 independent model spec(s) count" in r.reason
    assert [i.role for i in b.inputs] == ["spec"]


def test_replay_matches_the_question_not_the_prompt_bytes(monkeypatch):
    """#15.5: a template change that does not touch what is asked still replays; another
    description is a different question, answered 'not in the recording'."""
    rec = [json.loads(x) for x in REC.read_text().splitlines()]
    ex = next(r for r in rec if r["entry_point"] == "kth_smallest_amount")
    desc = ex["messages"][0]["content"].split("<<<DESCRIPTION\n")[1].split("\nDESCRIPTION>>>")[0]
    real = llm.prompt
    monkeypatch.setattr(llm, "prompt", lambda name, **v: "Reworded intro.\n\n" + real(name, **v).replace(
        "You write formal specifications", "You are a careful writer of formal specifications"))
    ms = ModelSettings(model="m", replay=REC)
    res = spec_agent.write_spec(desc, model=ms, entry_point="kth_smallest_amount", client=Client(ms))
    assert res.specs and res.samples[0].source in ex["answer"]
    res = spec_agent.write_spec(desc + "\nAlso: k may be 0.", model=ms, entry_point="kth_smallest_amount",
                                client=Client(ms))
    assert not res.specs and res.samples[0].missing.startswith("not in the recording lcb-oneoff-24.jsonl")
    assert res.stopped is None


def test_feedback_rounds_match_on_the_feedback(tmp_path):
    """#15.5: round 2 is matched on round 1's answer and the feedback SpecGuard gave; a different
    feedback is another question."""
    rec = [json.loads(x) for x in REC.read_text().splitlines()]
    two = [r for r in rec if r["entry_point"] == "expected_black_ball_position"]
    q1, q2 = question_of(two[0]["messages"]), question_of(two[1]["messages"])
    assert q1.kind == q2.kind == "spec" and q1.entry_point == "expected_black_ball_position"
    assert q2.turns and not q1.turns and "Reply with the corrected spec" not in q2.turns[0][1]
    changed = json.loads(json.dumps(two[1]["messages"]))
    changed[2]["content"] = "another complaint\n\nReply with the corrected spec in one ```python block."
    assert question_of(changed) != q2
    changed[2]["content"] = two[1]["messages"][2]["content"].replace("Reply with the corrected spec in one "
                                                                       "```python block.", "Please fix it.")
    assert question_of(changed).turns[0][1].startswith(q2.turns[0][1])


def test_a_bad_recording_is_an_input_error_naming_the_line(tmp_path):
    """#15.5: a recording is data: a bad line is an InputError with file and line (CLI exit 3)."""
    bad = tmp_path / "r.jsonl"
    bad.write_text(REC.read_text().splitlines()[0] + "\n{\"messages\": [], \"answer\": 3}\n")
    with pytest.raises(InputError) as e:
        llm.Recording.load(bad)
    assert f"{bad}:2" in str(e.value)
    from specguard.cli import main
    desc, test = tmp_path / "d.py", tmp_path / "test_d.py"
    desc.write_text('def double(x: int) -> int:\n    """Return twice x."""\n')
    test.write_text("from m import double\n\ndef test_it():\n    assert double(3) == 7\n")
    assert main(["check", "--description", str(desc), "--tests", str(test), "--replay", str(bad),
                 "--out", str(tmp_path / "o")]) == 3


@pytest.mark.lean
def test_lcb_benchmark_replays_and_prints_per_task_lines(oneoff, capsys):
    """#15.5: `benchmarks.lcb --model openai/X --replay FILE` never reaches the network, prints a
    line per task (seconds, cost, prompts, miss cause) and the summary counts."""
    from benchmarks import lcb
    data = str(Path(oneoff).parent)
    code = lcb.main(["--data", data, "--split", "oneoff", "--ids", "lcbhard_22", "lcbhard_94", "--workers", "1",
                     "--model", "openai/recorded", "--replay", str(REC), "--samples", "1", "--no-judge"])
    assert code == 0
    out = capsys.readouterr()
    assert "lcbhard_94" in out.err and "miss: spec suspect" in out.err and "1 prompt(s)" in out.err
    assert "at most 3 spec prompts per inconclusive task" in out.err
    line = next(x for x in out.out.splitlines() if x.startswith("oneoff "))
    assert line.split()[1:4] == ["2", "1", "(0.500)"], line


def test_a_queue_folder_becomes_a_replayable_recording(tmp_path, capsys):
    """#15.5: `python -m benchmarks.record QUEUE OUT` turns the queue server's answered requests into
    the exchanges.jsonl format that --replay reads (unanswered requests are left out)."""
    from benchmarks import record
    ex = json.loads(REC.read_text().splitlines()[0])
    q = tmp_path / "q"
    q.mkdir()
    (q / "0001.req.json").write_text(json.dumps({"model": "x", "messages": ex["messages"], "max_tokens": 4096}))
    (q / "0001.resp.txt").write_text(ex["answer"])
    (q / "0002.req.json").write_text(json.dumps({"model": "x", "messages": ex["messages"]}))
    assert record.main([str(q), str(tmp_path / "r.jsonl")]) == 0
    assert "1 exchange(s)" in capsys.readouterr().out
    rec = llm.Recording.load(tmp_path / "r.jsonl")
    [(question, answers)] = rec.answers.items()
    assert question.entry_point == ex["entry_point"] == "kth_smallest_amount" and answers == [ex["answer"]]


def test_replay_then_ask_asks_the_model_only_what_the_recording_lacks(monkeypatch, tmp_path):
    """#15.5: extending a recording: with ``replay_then_ask`` a recorded question is replayed and
    a question the recording lacks goes to the model (here litellm's mocked response, through the
    cache), never to the network for a recorded one."""
    import litellm
    calls = []

    def fake(**kw):             # litellm's own mocked response, counted: never the network
        calls.append(kw["messages"])
        return _LITELLM_COMPLETION(**{**kw, "mock_response": "```python\ndef spec(k):\n    return True\n```"})
    monkeypatch.setattr(litellm, "completion", fake)
    rec = [json.loads(x) for x in REC.read_text().splitlines()]
    ex = next(r for r in rec if r["entry_point"] == "kth_smallest_amount")
    desc = ex["messages"][0]["content"].split("<<<DESCRIPTION\n")[1].split("\nDESCRIPTION>>>")[0]
    ms = ModelSettings(model="openai/m", replay=REC, replay_then_ask=True, cache_dir=tmp_path / "c")
    c = Client(ms)
    text, u = c(ex["messages"])
    assert text == ex["answer"] and u.replayed_calls == 1 and not calls
    other = [{"role": "user", "content": ex["messages"][0]["content"].replace(desc, desc + "\nAlso: k may be 0.")}]
    text, u = c(other)
    assert u.calls == 1 and len(calls) == 1 and "def spec" in text
    assert len(c.transcript) == 2
    text, u = Client(ms)(other)                      # asked again: from the cache
    assert u.cached_calls == 1 and len(calls) == 1
    with pytest.raises(llm.NotInRecording):          # without the setting: a stated miss, as before
        Client(ModelSettings(model="openai/m", replay=REC))(other)


def test_the_queue_dispatcher_keeps_samples_of_a_task_apart(tmp_path):
    """Measurement tool: no answerer sees two independent conversations about one task; a feedback
    round goes to the answerer of the answer it continues; answers return atomically."""
    from benchmarks import queue_dispatch as qd
    rec = [json.loads(x) for x in REC.read_text().splitlines()]
    ex = next(r for r in rec if r["entry_point"] == "kth_smallest_amount")
    q = tmp_path / "q"
    q.mkdir()

    def ask(n, msgs):
        (q / f"{n}.req.json").write_text(json.dumps({"messages": msgs}))
        (q / f"{n}.prompt.txt").write_text(msgs[-1]["content"])
    state = {"routed": {}, "seen": {}, "wrote": {}, "waiting": []}
    ask("0001", ex["messages"][:1])
    ask("0002", ex["messages"][:1])
    ask("0003", ex["messages"][:1])
    qd.step(q, 2, state)
    assert state["routed"] == {"0001": 0, "0002": 1} and state["waiting"] == ["0003"]
    assert (q / "a0" / "0001.prompt.txt").is_file() and not (q / "a0" / "0002.prompt.txt").exists()
    (q / "a1" / "0002.resp.txt").write_text("answer of a1")
    qd.step(q, 2, state)
    assert (q / "0002.resp.txt").read_text() == "answer of a1"
    ask("0004", ex["messages"][:1] + [{"role": "assistant", "content": "answer of a1"},
                                      {"role": "user", "content": "feedback"}])
    qd.step(q, 2, state)
    assert state["routed"]["0004"] == 1
