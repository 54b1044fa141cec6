"""The pipeline on small tasks: Python's semantics decide what a test means (real Lean kernel).

Every case here is a soundness edge: SpecGuard must never certify a conflict that CPython's
own semantics would not produce."""

import json

import pytest

from specguard import load
from specguard.check import check_task

pytestmark = pytest.mark.lean


def run(tmp_path, doc: str, test_body: str, ret: str = "", entry="f"):
    (tmp_path / "desc.py").write_text(f'def f(x){ret}:\n    """Do it.\n\n{doc}\n    """\n')
    (tmp_path / "test_f.py").write_text("from m import f\nimport pytest\n\n\ndef test_it():\n" + test_body)
    task = load.load_from_parts(str(tmp_path / "desc.py"), [str(tmp_path / "test_f.py")], entry)
    return check_task(task).result


def ex(call, out):
    return f"    >>> {call}\n    {out}\n"


@pytest.mark.parametrize("doc_out, assertion, conflict", [
    ("True", "assert f(1) == 1", False),                      # True == 1
    ("1.0", "assert f(1) == 1", False),                       # 1.0 == 1
    ("2", "assert f(1) == 2.5", True),
    ("{1: 2, 3: 4}", "assert f(1) == {3: 4, 1: 2}", False),   # dict order is irrelevant
    ("(1, 2)", "assert f(1) == [1, 2]", True),                # a tuple never equals a list
    ("{1, 2}", "assert f(1) == frozenset({2, 1})", False),    # set == frozenset
    ("-0.0", "assert f(1) == 0.0", False),
    ("0.30000000000000004", "assert f(1) == 0.1 + 0.2", False),
    ("3", "assert f(1) is not None", False),
    ("None", "assert f(1) is not None", True),
    ("'a'", "assert f(1) == b'a'", True),                     # str != bytes
])
def test_python_equality_decides(tmp_path, doc_out, assertion, conflict):
    r = run(tmp_path, ex("f(1)", doc_out), f"    {assertion}\n")
    assert (r.verdict.value == "conflict") == conflict, r.reason
    if conflict:
        assert r.evidence.value == "certified"


def test_is_true_is_not_weakened_into_a_false_conflict(tmp_path):
    r = run(tmp_path, ex("f(1)", "1"), "    assert f(1) is True\n")
    assert r.verdict.value != "conflict"
    r = run(tmp_path, ex("f(1)", "2"), "    assert f(1) is True\n")
    assert r.verdict.value == "conflict"


def test_exact_inputs_are_not_merged(tmp_path):
    # f(1), f(1.0) and f(True) are different inputs: a function can tell them apart
    r = run(tmp_path, ex("f(1)", "2"), "    assert f(1.0) == 3\n    assert f(True) == 4\n")
    assert r.verdict.value != "conflict"


def test_raises_versus_returns(tmp_path):
    r = run(tmp_path, ex("f(1)", "2"), "    with pytest.raises(ValueError):\n        f(1)\n")
    assert r.verdict.value == "conflict" and r.evidence.value == "certified"


def test_two_exception_classes_do_not_conflict(tmp_path):
    doc = "    >>> f(1)\n    Traceback (most recent call last):\n    ...\n    TypeError: no\n"
    r = run(tmp_path, doc, "    with pytest.raises(ValueError):\n        f(1)\n")
    assert r.verdict.value != "conflict"


def test_return_type(tmp_path):
    assert run(tmp_path, ex("f(0)", "0"), "    assert f(1) == 2.0\n", ret=" -> int").verdict.value != "conflict"
    r = run(tmp_path, ex("f(0)", "0"), "    assert f(1) == 2.5\n", ret=" -> int")
    assert r.verdict.value == "conflict" and r.conflict.kind == "description-vs-test"


def test_nan_expected_is_unsupported_not_a_conflict(tmp_path):
    r = run(tmp_path, ex("f(1)", "2"), "    assert f(1) == float('nan')\n")
    assert r.verdict.value == "inconclusive"


def test_tests_contradicting_each_other(tmp_path):
    r = run(tmp_path, ex("f(0)", "0"), "    assert f(3) == 1\n    assert f(3) == 2\n")
    assert r.verdict.value == "conflict" and r.conflict.kind == "test-vs-test"
    assert {i.loc.line for i in r.conflict.items} == {6, 7}


def _lcb(tmp_path, doc_call, doc_out, args, expected):
    desc = f'def g(a) -> list:\n    """Do it.\n\n    >>> {doc_call}\n    {doc_out}\n    """\n'
    data = {"tasks": [{"task_id": "t1", "entry_point": "g", "description": desc,
                       "original_tests": [{"args": args, "expected": expected}]}]}
    p = tmp_path / "lcb.json"
    p.write_text(json.dumps(data))
    return check_task(load.load_lcb(str(p), "t1", "original")).result


def test_json_tables_cannot_tell_tuples_from_lists(tmp_path):
    # the description shows tuples; JSON can only write lists: not a conflict
    r = _lcb(tmp_path, "g(1)", "[(1, 2)]", [1], [[1, 2]])
    assert r.verdict.value == "no-conflict"
    r = _lcb(tmp_path, "g(1)", "[(1, 2)]", [1], [[1, 3]])
    assert r.verdict.value == "conflict" and r.evidence.value == "certified"


def test_json_list_argument_versus_tuple_example_is_only_reported(tmp_path):
    r = _lcb(tmp_path, "g((1, 2))", "[1]", [[1, 2]], [2])
    assert r.verdict.value == "inconclusive"
    assert "tuple/list" in r.reason


def test_large_witnesses_use_the_shared_input_index(tmp_path):
    """Many inputs: witness tables are search trees over one shared index of inputs (``IX_keys``,
    ``Val.order``), inputs named in both Spec and Tests included; the kernel accepts them."""
    doc = "".join(ex(f"f({i})", str(2 * i)) for i in range(40))
    body = "".join(f"    assert f({i}) == {2 * i}\n" for i in range(0, 80, 2)) + "    assert f(-5) is not None\n"
    (tmp_path / "desc.py").write_text(f'def f(x: int) -> int:\n    """Do it.\n\n{doc}\n    """\n')
    (tmp_path / "test_f.py").write_text("from m import f\n\n\ndef test_it():\n" + body)
    task = load.load_from_parts(str(tmp_path / "desc.py"), [str(tmp_path / "test_f.py")], "f")
    b = check_task(task)
    r = b.result
    assert r.certificate.accepted, r.certificate.reason
    assert "Consistent" in r.certificate.claims and any(c.startswith("LeftOpen_") for c in r.certificate.claims)
    cert = b.files["cert.lean"]
    assert cert.count("noncomputable def IX_keys") == 1 and "ilookup_at" in cert and "lookup_miss" not in cert


def test_a_rejected_classification_never_costs_the_conflict(tmp_path, monkeypatch):
    """A bug in the witness proofs (injected here) makes the kernel reject the certificate with the
    classification; the conflict is then certified on its own, and verify re-derives it."""
    from specguard.kernel import prove
    from specguard.outputs.bundle import write_bundle
    from specguard.outputs.verify import verify_bundle
    real = prove.Prover.witness_decl
    monkeypatch.setattr(prove.Prover, "witness_decl",
                        lambda self, w, table: real(self, w, table).replace("(Eq.refl " + w + "_o", "(Eq.refl " + w + "_dflt"))
    doc = ex("f(1)", "2") + ex("f(2)", "4")
    r = run(tmp_path, doc, "    assert f(1) == 3\n    assert f(5) == 0\n")
    assert r.verdict.value == "conflict" and r.evidence.value == "certified", r.reason
    assert r.certificate.claims == ("Conflict",)
    assert any("checked on its own" in n for n in r.notes)
    task = load.load_from_parts(str(tmp_path / "desc.py"), [str(tmp_path / "test_f.py")], "f")
    b = check_task(task)
    out = write_bundle(tmp_path / "b", task, b)
    monkeypatch.undo()
    rep = verify_bundle(out, [tmp_path / "desc.py", tmp_path / "test_f.py"])
    assert rep.valid and rep.claim_source == "re-derived from the inputs", rep.reason


def _kw_task(tmp_path, sig: str, doc: str, body: str):
    (tmp_path / "desc.py").write_text(f'def {sig}:\n    """Do it.\n\n{doc}\n    """\n')
    (tmp_path / "test_f.py").write_text("from m import f\n\n\ndef test_it():\n" + body)
    return load.load_from_parts(str(tmp_path / "desc.py"), [str(tmp_path / "test_f.py")], "f")


@pytest.mark.parametrize("sig, body, conflict", [
    ("f(a, b)", "    assert f(1, b=2) == 4\n", True),              # f(1, b=2) is the documented f(1, 2)
    ("f(a, b)", "    assert f(b=2, a=1) == 4\n", True),
    ("f(a, b)", "    assert f(1, b=2) == 3\n", False),
    ("f(a, *, b)", "    assert f(1, b=2) == 4\n", False),         # keyword-only: f(1, 2) would raise
    ("f(a, b=5)", "    assert f(1) == 4\n", False),               # defaults are not filled in
    ("f(a, b, c)", "    assert f(1, b=2) == 4\n", False),         # not every parameter given
])
def test_keyword_arguments_bind_by_the_described_signature(tmp_path, sig, body, conflict):
    task = _kw_task(tmp_path, sig, ex("f(1, 2)", "3"), body)
    r = check_task(task).result
    assert (r.verdict.value == "conflict") == conflict, r.reason
    if conflict:
        assert r.evidence.value == "certified"
        assert any("keyword arguments are bound" in a for a in r.assumptions)


def test_keyword_binding_is_rederived_by_verify(tmp_path):
    from specguard.outputs.bundle import write_bundle
    from specguard.outputs.verify import verify_bundle
    task = _kw_task(tmp_path, "f(a, b)", ex("f(1, 2)", "3"), "    assert f(a=1, b=2) == 4\n")
    out = write_bundle(tmp_path / "b", task, check_task(task))
    rep = verify_bundle(out, [tmp_path / "desc.py", tmp_path / "test_f.py"])
    assert rep.valid and rep.claim_source == "re-derived from the inputs", rep.reason


BUG_REPORT = """Bug: mean() returns the wrong value

When I call mean on [1, 2], I get:

>>> from stats import mean
>>> mean([1, 2])
1

but the expected result is 1.5.
"""


@pytest.mark.parametrize("description", [
    BUG_REPORT,
    "Compute the mean of xs.\n\n>>> mean([1, 2])\n1\n\nbut it should be 1.5\n",          # said after the example
    "Compute the mean of xs. Currently:\n\n>>> mean([1, 2])\n1\n",                       # said before it
    "Steps to reproduce:\n\n>>> mean([1, 2])\n1\n",
])
def test_what_a_bug_report_shows_is_never_a_requirement(tmp_path, description):
    """An issue shows the behaviour to be fixed: a test of the fixed behaviour is not in conflict."""
    (tmp_path / "issue.md").write_text(description)
    (tmp_path / "test_stats.py").write_text("from stats import mean\n\n\ndef test_mean():\n"
                                            "    assert mean([1, 2]) == 1.5\n")
    task = load.load_from_parts(str(tmp_path / "issue.md"), [str(tmp_path / "test_stats.py")], "mean")
    r = check_task(task).result
    assert r.verdict.value != "conflict", r.reason
    assert any("observed" in n for n in r.notes)


def test_a_specification_example_is_still_a_requirement(tmp_path):
    (tmp_path / "spec.md").write_text("Compute the mean of xs.\n\n>>> mean([1, 2])\n1.5\n")
    (tmp_path / "test_stats.py").write_text("from stats import mean\n\n\ndef test_mean():\n"
                                            "    assert mean([1, 2]) == 1\n")
    task = load.load_from_parts(str(tmp_path / "spec.md"), [str(tmp_path / "test_stats.py")], "mean")
    r = check_task(task).result
    assert r.verdict.value == "conflict" and r.evidence.value == "certified"


def test_a_problem_statement_is_a_report(tmp_path):
    """SWE-bench instances: the problem statement is an issue, whatever its wording."""
    import json as _json
    patch = ("diff --git a/tests/test_stats.py b/tests/test_stats.py\nnew file mode 100644\n--- /dev/null\n"
             "+++ b/tests/test_stats.py\n@@ -0,0 +1,5 @@\n+from stats import mean\n+\n+\n+def test_mean():\n"
             "+    assert mean([1, 2]) == 1.5\n")
    inst = {"instance_id": "x__y-1", "problem_statement": "Compute the mean.\n\n>>> mean([1, 2])\n1\n",
            "test_patch": patch, "FAIL_TO_PASS": ["tests/test_stats.py::test_mean"], "PASS_TO_PASS": []}
    (tmp_path / "inst.json").write_text(_json.dumps(inst))
    task = load.load_swebench(str(tmp_path / "inst.json"), None)
    assert task.description_is_report
    r = check_task(task.model_copy(update={"entry_point": "mean"})).result
    assert r.verdict.value != "conflict", r.reason
    assert any("problem statement" in n for n in r.notes)


def test_a_stateful_function_is_never_a_conflict(tmp_path):
    """counter() giving 1, then 2: a function that keeps state (outside the model), not a conflict,
    in the tests as in the description's examples."""
    (tmp_path / "desc.py").write_text('def counter() -> int:\n    """Count calls.\n\n    >>> counter()\n    1\n'
                                      '    >>> counter()\n    2\n    """\n')
    (tmp_path / "test_c.py").write_text("from m import counter\n\n\ndef test_it():\n    assert counter() == 1\n"
                                        "    assert counter() == 2\n")
    task = load.load_from_parts(str(tmp_path / "desc.py"), [str(tmp_path / "test_c.py")], "counter")
    r = check_task(task).result
    assert r.verdict.value == "inconclusive", r.reason
    assert any("keeps state" in u.reason for u in r.unsupported)
    assert any("neither is used" in n for n in r.notes)


@pytest.mark.parametrize("doc, example, test", [
    ("Return a longest palindromic substring. If there are several, return any of them.",
     ">>> f('babad')\n    'bab'", "assert f('babad') == 'aba'"),
    ("Return the divisors of x, in any order.", ">>> f(6)\n    [1, 2, 3, 6]", "assert f(6) == [6, 3, 2, 1]"),
    ("Return the divisors of x. The order of the result does not matter.", ">>> f(6)\n    [1, 2, 3, 6]",
     "assert f(6) == [1, 6, 2, 3]"),
    ("Return the index of any peak element of x.", ">>> f([1, 3, 2, 4, 1])\n    1", "assert f([1, 3, 2, 4, 1]) == 3"),
])
def test_an_example_of_a_loose_description_is_not_the_only_answer(tmp_path, doc, example, test):
    """"In any order", "return any of them": the example shows one answer; another one is no conflict."""
    (tmp_path / "desc.py").write_text(f'def f(x):\n    """{doc}\n\n    {example}\n    """\n')
    (tmp_path / "test_f.py").write_text(f"from m import f\n\n\ndef test_it():\n    {test}\n")
    task = load.load_from_parts(str(tmp_path / "desc.py"), [str(tmp_path / "test_f.py")], "f")
    r = check_task(task).result
    assert r.verdict.value != "conflict", r.reason
    assert any("several answers" in n for n in r.notes)
