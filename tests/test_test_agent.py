"""The test agent (issue 6, item 2): literal demands for assertions the AST path cannot read.

The guard (``test_agent.accept``) is deterministic and tested without a model; the pipeline runs on
litellm's mocked responses (never the network) and the real Lean kernel."""

import inspect
import json

import pytest

from specguard import load
from specguard.model import reader_agent as test_agent
from specguard.model.reader_agent import ModelDemands, Proposal, accept_for

DESC = 'def double(x: int) -> int:\n    """Return twice x.\n\n    >>> double(2)\n    4\n    """\n'
TESTS = '''from m import double


def check(x, want, *more):
    assert double(x) == want


def test_small():
    check(2, 5)
    check(3, 6)


def test_direct():
    assert double(0) == 0


def test_more():
    res = [double(v) for v in (1, 2)]
    assert res != [2, 9]
    assert sorted([double(4), h(0)]) == [0, 8]     # with a call of unknown code: not read by the AST path
    assert double(1) + h(0) + 1 == 3
    with pytest.raises(ValueError):
        check(-1, 0)


def helper_not_run():
    check(7, 1)
'''


def _task(tmp_path, tests=TESTS):
    (tmp_path / "desc.py").write_text(DESC)
    (tmp_path / "test_double.py").write_text(tests)
    return load.load_from_parts(str(tmp_path / "desc.py"), [str(tmp_path / "test_double.py")], "double")


def _read(task, *props):
    path = task.tests[0].path
    md = ModelDemands(model="m", proposals=tuple(Proposal(file=path, **p) for p in props))
    return accept_for(task, md)


def test_a_literal_read_from_the_cited_lines_is_accepted(tmp_path):
    task = _task(tmp_path)
    acc = _read(task, dict(lines=(9, 5), call="double(2)", returns="5"))
    assert not acc.dropped
    [d] = acc.demands
    assert d.id == "M1" and d.read_by == "model" and d.loc.line == 9
    assert d.call.source() == "double(2)" and d.expect.source() == "== 5"
    assert "check(2, 5)" in d.text


@pytest.mark.parametrize("prop, why", [
    (dict(lines=(9, 5), call="double(2)", returns="4"), "'4' does not appear"),            # invented value
    (dict(lines=(9, 5), call="double(8)", returns="5"), "'8' does not appear"),            # invented argument
    (dict(lines=(9,), call="double(2)", returns="5"), "do not mention double"),
    (dict(lines=(14,), call="double(0)", returns="0"), "already formalized"),
    (dict(lines=(18, 19), call="double(2)", returns="9"), "'!='"),                        # negated
    (dict(lines=(20,), call="double(4)", returns="8"), "'sorted'"),                       # transformed
    (dict(lines=(21,), call="double(1)", returns="3"), "other than by =="),               # arithmetic on it
    (dict(lines=(27, 5), call="double(7)", returns="1"), "outside the tests pytest runs"),
    (dict(lines=(500,), call="double(7)", returns="1"), "outside the file"),
    (dict(lines=(9, 5), call="triple(2)", returns="5"), "not a call of double"),
    (dict(lines=(9, 5), call="double(*[2])", returns="5"), "star-arguments"),
    (dict(lines=(9, 5), call="double(2)", returns="x"), "not a literal"),
    (dict(lines=(9, 5), call="double(2)"), "exactly one of"),
    (dict(lines=(9, 5), call="double(2)", raises="ValueError"), "ValueError does not appear"),
    (dict(lines=(22, 23, 5), call="double(-1)", raises="TypeError"), "TypeError does not appear"),
    (dict(lines=(9, 5), call="double(2", returns="5"), "not a Python expression"),
    (dict(lines=(9, 5), call="double(5)", returns="5"), "separate occurrences"),       # one 5 read twice
])
def test_the_guard_drops_what_the_lines_do_not_say(tmp_path, prop, why):
    acc = _read(_task(tmp_path), prop)
    assert not acc.demands
    [reason] = acc.dropped
    assert why in reason, reason


def test_raises_needs_the_marker_and_the_class_in_the_lines(tmp_path):
    acc = _read(_task(tmp_path), dict(lines=(22, 23, 5), call="double(-1)", raises="ValueError"))
    assert not acc.dropped and acc.demands[0].expect.source().startswith("raises ValueError")


def test_a_literal_must_be_a_whole_operand(tmp_path):
    tests = ("from m import double\n\n\ndef check(x, want, *more):\n    assert double(x) == want\n\n\n"
             "def test_it():\n    n = 9\n    check(2, n-5)\n    check(3, 5 * n)\n    check(4, -8)\n")
    task = _task(tmp_path, tests)
    acc = _read(task, dict(lines=(10, 5), call="double(2)", returns="-5"), dict(lines=(11, 5), call="double(3)", returns="5"),
                dict(lines=(12, 5), call="double(4)", returns="-8"))
    assert [d.expect.source() for d in acc.demands] == ["== -8"]
    assert all("does not appear" in r for r in acc.dropped) and len(acc.dropped) == 2


def test_a_proposal_for_another_file_is_dropped(tmp_path):
    task = _task(tmp_path)
    md = ModelDemands(model="m", proposals=(Proposal(file="elsewhere.py", lines=(9,), call="double(2)", returns="5"),))
    acc = accept_for(task, md)
    assert not acc.demands and "not one of the task's Python test files" in acc.dropped[0]


def test_literals_match_token_for_token_not_by_layout(tmp_path):
    tests = ("from m import double\n\n\ndef check(x, want, *more):\n    assert double(x) == want\n\n\n"
             "def test_it():\n    check([1,\n           2], {'a': \"b\"})\n")
    task = _task(tmp_path, tests)
    acc = _read(task, dict(lines=(9, 10, 5), call='double([1, 2])', returns='{"a": \'b\'}'))
    assert not acc.dropped, acc.dropped
    assert acc.demands[0].expect.source() == "== {'a': 'b'}"


def test_parse_reply():
    props, why = test_agent.parse_reply('```json\n{"demands": [{"file": "t.py", "lines": 3, "call": "f(1)", '
                                        '"returns": "2"}, {"bogus": 1}]}\n```')
    assert why is None and len(props) == 1 and props[0].lines == (3,)
    assert test_agent.parse_reply("I will not")[1].startswith("the reply is not a JSON object")
    assert "no \"demands\" list" in test_agent.parse_reply('{"x": 1}')[1]


def test_information_barrier_the_test_agent_never_sees_the_description(tmp_path):
    task = _task(tmp_path)
    assert "description" not in inspect.signature(test_agent.propose).parameters
    target, tf = test_agent.unsupported_of(task)
    prompt = test_agent.build_prompt(task.tests, tf.unsupported, target)
    assert "Return twice x." not in prompt and ">>> double(2)" not in prompt
    assert "check(2, 5)" in prompt and "    9  " in prompt      # the tests, numbered


# -- the pipeline, with litellm's mocked responses and the real kernel -----------------------------

litellm_needed = pytest.mark.skipif(not __import__("importlib").util.find_spec("litellm"), reason="litellm missing")


def _reply(task, *props):
    return json.dumps({"demands": [{"file": task.tests[0].path, **p} for p in props]})


@litellm_needed
@pytest.mark.lean
def test_conflict_through_a_model_read_assertion_is_certified_and_verifies(tmp_path):
    from specguard.outputs.bundle import write_bundle
    from specguard.check import Options, check_task
    from specguard.model.llm import ModelSettings
    from specguard.outputs.results import Evidence, Verdict
    from specguard.outputs.verify import verify_bundle
    task = _task(tmp_path)
    assert check_task(task).result.verdict is Verdict.inconclusive
    reply = _reply(task, dict(lines=[9, 5], call="double(2)", returns="5"),
                   dict(lines=[10, 5], call="double(3)", returns="7"))          # 7 is invented: dropped
    b = check_task(task, Options(model=ModelSettings(model="gpt-4o-mini", mock_responses=[reply])))
    r = b.result
    assert r.verdict is Verdict.conflict and r.evidence is Evidence.certified, r.reason
    assert [i.read_by for i in r.conflict.items] == ["model", "ast"]
    assert r.model.demands.used and len(r.model.demands.accepted) == 1 and len(r.model.demands.dropped) == 1
    assert any("read by a language model" in a for a in r.assumptions)
    assert r.model.calls == 1                        # the spec agent and the judge were not needed
    out = write_bundle(tmp_path / "bundle", task, b)
    assert (out / "model-demands.json").is_file()
    # a third party re-derives the claim from the task's own files; the model's reading is in the bundle
    # (#11.3: only when the verifier opts in to the bundle's copy of the model's reading, which is named)
    assert verify_bundle(out, [tmp_path / "desc.py", tmp_path / "test_double.py"]).status == "inputs-incomplete"
    rep = verify_bundle(out, [tmp_path / "desc.py", tmp_path / "test_double.py"], accept_bundled_model_inputs=True)
    assert rep.valid and rep.claim_source == "re-derived from the inputs and the bundle's model inputs"
    assert "model-demands.json were taken from the BUNDLE" in next(c.detail for c in rep.checks if c.name == "inputs")
    assert rep.model_inputs == ("model-demands.json",)
    # the exported single file carries the model's reading too: re-derivable from the task's files alone
    from specguard.outputs.verify import write_export
    write_export(out, tmp_path / "cert.lean")
    rep = verify_bundle(tmp_path / "cert.lean", [tmp_path / "desc.py", tmp_path / "test_double.py"],
                        accept_bundled_model_inputs=True)
    assert rep.valid and rep.claim_source == "re-derived from the inputs and the bundle's model inputs", rep.reason
    # a changed reading is caught: by the manifest, and by re-derivation when the manifest is redone too
    md = json.loads((out / "model-demands.json").read_text())
    md["proposals"][0]["returns"] = "6"
    (out / "model-demands.json").write_text(json.dumps(md))
    assert not verify_bundle(out).valid


@litellm_needed
@pytest.mark.lean
def test_model_read_assertions_never_clear_a_task(tmp_path):
    """Demands the model read add conflicts only: the unread assertions stay, so no 'no-conflict'."""
    from specguard.check import Options, check_task
    from specguard.model.llm import ModelSettings
    from specguard.outputs.results import Verdict
    tests = "from m import double\n\n\ndef check(x, want, *more):\n    assert double(x) == want\n\n\ndef test_it():\n    check(2, 4)\n"
    task = _task(tmp_path, tests)
    reply = _reply(task, dict(lines=[9, 5], call="double(2)", returns="4"))
    r = check_task(task, Options(model=ModelSettings(model="gpt-4o-mini", mock_responses=[reply, "no spec"]),
                                 judge=False, rounds=1)).result
    assert r.verdict is Verdict.inconclusive and r.unsupported
    assert r.model.demands.accepted and not r.model.demands.used


from hypothesis import given, settings, strategies as st  # noqa: E402


@settings(max_examples=60, deadline=None)
@given(a=st.integers(-10**6, 10**6), b=st.integers(-10**6, 10**6), c=st.integers(-10**6, 10**6))
def test_no_invented_value_is_ever_accepted(tmp_path_factory, a, b, c):
    """Property: a proposed value is accepted only if it is literally in the cited lines."""
    tmp = tmp_path_factory.mktemp("p")
    tests = (f"from m import double\n\n\ndef check(x, want, *more):\n    assert double(x) == want\n\n\n"
             f"def test_it():\n    check({a}, {b})\n")
    task = _task(tmp, tests)
    acc = _read(task, dict(lines=(9, 5), call=f"double({a})", returns=str(c)),
                dict(lines=(9, 5), call=f"double({c})", returns=str(b)))
    got = {(d.call.args[0].val, d.expect.value.val) for d in acc.demands}
    # a demand gets through only if its literals are separate occurrences written in the cited line
    want = {(x, y) for x, y in ((a, c), (c, b)) if sorted((x, y)) == sorted((a, b))}
    assert got == want


@pytest.mark.parametrize("test_body, why", [
    ("@pytest.mark.xfail\ndef test_x():\n    check(2, 5)\n", "skipped or expected-to-fail"),
    ("def test_x():\n    pytest.skip('later')\n    check(2, 5)\n", "skipped or expected-to-fail"),
    ("def test_x():\n    try:\n        check(2, 5)\n    except AssertionError:\n        pass\n", "conditional"),
    ("def test_x():\n    if FLAG:\n        check(2, 5)\n", "conditional"),
    ("def test_x():\n    with pytest.raises(AssertionError):\n        check(2, 5)\n", "raises/warns block"),
    ("def test_x():\n    with mock.patch('m.K', 3):\n        check(2, 5)\n", "context-managed"),
    ("class TestX:\n    @unittest.expectedFailure\n    def test_x(self):\n        check(2, 5)\n",
     "skipped or expected-to-fail"),
])
def test_the_context_of_a_cited_line_counts(tmp_path, test_body, why):
    """What an xfail, skipped, guarded or patched assertion says is not what must hold."""
    head = "import pytest, unittest\nfrom unittest import mock\nfrom m import double\n\n\ndef check(x, want, *more):\n" \
           "    assert double(x) == want\n\n\n"
    task = _task(tmp_path, head + test_body)
    line = next(i for i, t in enumerate((head + test_body).splitlines(), 1) if "check(2, 5)" in t)
    acc = _read(task, dict(lines=(line, 7), call="double(2)", returns="5"))
    assert not acc.demands and why in acc.dropped[0], acc.dropped
