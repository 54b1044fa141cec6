"""Trust layer: re-derivation and model inputs (issue 11, items 3, 5, 6).

``verify --inputs`` re-derives the claim (and the whole result) from files the *verifier* gives.
A model-written input kept in a bundle (``model-spec-N.py``, ``model-demands.json``) is the bundle
producer's: it is used only when the verifier gives it too, or opts in with
``--accept-bundled-model-inputs``, and then the verdict line and the assumptions name it.  Real
bundles, the real CLI, the real kernel."""

from __future__ import annotations

import hashlib
import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

pytestmark = pytest.mark.lean

ROOT = Path(__file__).resolve().parents[2]

DESC = '''def count_vowels(s: str) -> int:
    """Return the number of vowels in s."""
'''
TESTS = '''from m import count_vowels


def test_hello():
    assert count_vowels("hello") == 2
'''
# the "description" a dishonest producer ships as the model's reading of DESC: `return 7`
LYING_SPEC = '''def reference(s: str) -> int:
    return 7
'''
SAID = "(the function is described by the spec model-spec-1.py)"


def cli(*args) -> subprocess.CompletedProcess:
    env = dict(os.environ, PYTHONPATH=str(ROOT))
    return subprocess.run([sys.executable, "-m", "specguard", *map(str, args)], capture_output=True, text=True,
                          cwd=str(ROOT), env=env, timeout=300)


def verify(path: Path, *args) -> tuple[int, dict]:
    p = cli("verify", path, "--json", *args)
    assert "Traceback" not in p.stderr, p.stderr
    rep = json.loads(p.stdout)
    assert rep["exit_code"] == p.returncode
    return p.returncode, rep


def sha(b: bytes) -> str:
    return hashlib.sha256(b).hexdigest()


def model_bundle(out: Path, task) -> Path:
    """The bundle the model path writes when a model's spec certifies a conflict (check._model_path),
    with LYING_SPEC as the model's spec."""
    from specguard.formalize import speclang
    from specguard.outputs.bundle import write_bundle
    from specguard.check import Bundle, Options, check_task
    from specguard.models import InputFile
    b = check_task(task, Options(spec=speclang.SpecProgram(LYING_SPEC, "model-spec-1.py"), spec_binds=False))
    assert b.result.verdict.value == "conflict" and b.result.evidence.value == "certified", b.result.reason
    spec_in = InputFile(path="model-spec-1.py", sha256=sha(LYING_SPEC.encode()), role="spec")
    return write_bundle(out, task, Bundle(result=b.result, files={**b.files, "model-spec-1.py": LYING_SPEC},
                                          claims=b.claims, inputs=(spec_in,), options=b.options))


@pytest.fixture(scope="module")
def lying(tmp_path_factory):
    from specguard import load
    d = tmp_path_factory.mktemp("lying")
    (d / "desc.py").write_text(DESC)
    (d / "test_m.py").write_text(TESTS)
    b = model_bundle(d / "b", load.load_from_parts(str(d / "desc.py"), [str(d / "test_m.py")], "count_vowels"))
    only_tests = model_bundle(d / "b2", load.load_from_parts(SAID, [str(d / "test_m.py")], "count_vowels"))
    return d, b, only_tests


def test_bundled_model_spec_is_not_re_derived_from_the_task_files(lying):
    """#11.3: a consistent task, a bundled `return 7` spec: --inputs with the task's own files is
    INPUTS INCOMPLETE (exit 4), naming the model input, never VALID 're-derived from the inputs'."""
    d, b, _ = lying
    rc, rep = verify(b, "--inputs", d / "desc.py", d / "test_m.py")
    assert rc == 4 and rep["status"] == "inputs-incomplete" and not rep["valid"], rep["reason"]
    assert "missing model-spec-1.py (role spec" in rep["reason"]
    assert "written by a model; the bundle holds a copy" in rep["reason"]
    assert "--accept-bundled-model-inputs" in rep["reason"]
    assert rep["claim_source"] == "taken from the bundle as is"
    p = cli("verify", b, "--inputs", d / "desc.py", d / "test_m.py")
    assert p.returncode == 4 and p.stdout.startswith("INPUTS INCOMPLETE: --inputs does not hold every input")


def test_opting_in_names_the_bundle_producers_model_inputs(lying):
    """#11.3: with --accept-bundled-model-inputs the claim is re-derived with the bundle's copy,
    and the verdict line, the report and the assumptions say the claim rests on it."""
    d, b, _ = lying
    rc, rep = verify(b, "--inputs", d / "desc.py", d / "test_m.py", "--accept-bundled-model-inputs")
    assert rc == 0, rep["reason"]
    assert rep["claim_source"] == "re-derived from the inputs and the bundle's model inputs"
    assert rep["model_inputs"] == ["model-spec-1.py"]
    assert "resting on the bundle producer's model-written input(s) model-spec-1.py" in rep["reason"]
    assert any("model-spec-1.py, a model-written spec taken from the bundle" in a for a in rep["assumptions"])
    out = cli("verify", b, "--inputs", d / "desc.py", d / "test_m.py", "--accept-bundled-model-inputs").stdout
    assert out.splitlines()[0].startswith("VALID: ") and "model-spec-1.py" in out.splitlines()[0]
    # without --inputs the whole claim is the bundle's, the model input named too
    rc, rep = verify(b)
    assert rc == 0 and rep["model_inputs"] == ["model-spec-1.py"] and "model-spec-1.py" in rep["reason"]
    # the verifier who gives the spec (having read it) re-derives from their own files only
    own = d / "reviewed-spec.py"
    shutil.copy(b / "model-spec-1.py", own)
    rc, rep = verify(b, "--inputs", d / "desc.py", d / "test_m.py", own)
    assert rc == 0 and rep["claim_source"] == "re-derived from the inputs" and rep["model_inputs"] == []
    # the opt-in flag alone, without --inputs, is a usage error
    assert cli("verify", b, "--accept-bundled-model-inputs").returncode == 3


def test_only_the_test_file_never_re_derives(lying):
    """#11.3: a bundle whose description is the sentence `check --spec` uses when there is none,
    with the spec in the bundle: giving only the test file is INPUTS INCOMPLETE, opt-in or not
    (the sentence stands for a spec only when the verifier gives that spec)."""
    d, _, b = lying
    rc, rep = verify(b, "--inputs", d / "test_m.py")
    assert rc == 4 and "missing model-spec-1.py" in rep["reason"], rep["reason"]
    rc, rep = verify(b, "--inputs", d / "test_m.py", "--accept-bundled-model-inputs")
    assert rc == 4 and "missing <text> (role description" in rep["reason"], rep["reason"]


# -- rule-only bundles ------------------------------------------------------------------------------

STUB = '''def f(x: int) -> int:
    """Return the square of x.

    >>> f(2)
    4
    """
'''


@pytest.fixture(scope="module")
def genuine(tmp_path_factory):
    d = tmp_path_factory.mktemp("genuine")
    (d / "f.py").write_text(STUB)
    for name, v in (("conflict", 5), ("clean", 4)):
        (d / f"test_{name}.py").write_text(f"from f import f\n\n\ndef test_f():\n    assert f(2) == {v}\n")
        p = cli("check", "--description", d / "f.py", "--tests", d / f"test_{name}.py", "--out", d / name)
        assert p.returncode in (0, 1), p.stderr
    return d


def rehash(b: Path) -> None:
    m = json.loads((b / "manifest.json").read_text())
    m["outputs"] = {n: sha((b / n).read_bytes()) for n in m["outputs"] if (b / n).exists()}
    (b / "manifest.json").write_text(json.dumps(m))


def tampered(genuine, name: str, dest: Path, fn) -> Path:
    b = Path(shutil.copytree(genuine / name, dest))
    r = json.loads((b / "result.json").read_text())
    fn(r)
    (b / "result.json").write_text(json.dumps(r))
    rehash(b)
    return b


def test_partial_inputs_never_borrow_from_the_bundle(genuine):
    """#11.3: giving only the test file is INPUTS INCOMPLETE naming the description; nothing is
    taken from the bundle in its place."""
    rc, rep = verify(genuine / "conflict", "--inputs", genuine / "test_conflict.py")
    assert rc == 4 and "f.py (role description" in rep["reason"], rep["reason"]


def test_result_fields_are_re_derived_with_inputs(genuine, tmp_path):
    """#11.5: with --inputs every field verify reports from result.json is re-derived: a rewritten
    reason, conflict location, assumption or note is INVALID."""
    inputs = ("--inputs", genuine / "f.py", genuine / "test_conflict.py")
    rc, rep = verify(genuine / "conflict", *inputs)
    assert rc == 0, rep["reason"]
    assert {f["field"]: f["status"] for f in rep["result_fields"]}["reason"] == "re-derived"
    cases = {
        "reason": lambda r: r.update(reason="a harmless note"),
        "conflict": lambda r: r["conflict"]["items"][0]["loc"].update(line=99),
        "assumptions": lambda r: r.update(assumptions=r["assumptions"][1:]),
        "notes": lambda r: r.update(notes=["the tests were written by a trusted engineer"]),
    }
    for i, (name, fn) in enumerate(cases.items()):
        b = tampered(genuine, "conflict", tmp_path / f"b{i}", fn)
        rc, rep = verify(b, *inputs)
        assert rc == 1 and f"result.json's {name} is not what `check` derives from the inputs" in rep["reason"], \
            (name, rep["reason"])


def test_made_up_execution_conflict_with_inputs_is_invalid(genuine, tmp_path):
    """#11.6: 'conflict (evidence: execution)' made up on a consistent task: without --inputs NOT
    CERTIFIED (exit 2), with --inputs INVALID (the re-derived verdict is no-conflict)."""
    b = Path(shutil.copytree(genuine / "clean", tmp_path / "b"))
    (b / "cert.lean").unlink()
    m = json.loads((b / "manifest.json").read_text())
    m.update(verdict="conflict", evidence="execution", claims=[])
    m["outputs"].pop("cert.lean")
    (b / "manifest.json").write_text(json.dumps(m))
    r = json.loads((b / "result.json").read_text())
    r.update(verdict="conflict", evidence="execution")
    r["certificate"].update(claims=[], accepted=False)
    r["tests"] = [dict(t, certified=False) for t in r["tests"]]
    (b / "result.json").write_text(json.dumps(r))
    rehash(b)
    assert verify(b)[0] == 2
    rc, rep = verify(b, "--inputs", genuine / "f.py", genuine / "test_clean.py")
    assert rc == 1 and "is not what `check` derives from the inputs" in rep["reason"], rep["reason"]


def test_deeply_nested_bundled_model_demands(lying, tmp_path):
    """#11.21: a bundled model-demands.json nested 100 000 deep, taken with the opt-in: INVALID
    with the reason, no traceback."""
    d, b, _ = lying
    c = Path(shutil.copytree(b, tmp_path / "c"))
    deep = ("[" * 100_000 + "]" * 100_000).encode()
    (c / "model-demands.json").write_bytes(deep)
    m = json.loads((c / "manifest.json").read_text())
    m["inputs"].append({"path": "model-demands.json", "sha256": sha(deep), "role": "demands"})
    (c / "manifest.json").write_text(json.dumps(m))
    m["outputs"]["model-demands.json"] = sha(deep)
    (c / "manifest.json").write_text(json.dumps(m))
    rehash(c)
    rc, rep = verify(c, "--inputs", d / "desc.py", d / "test_m.py", "--accept-bundled-model-inputs")
    assert rc == 1 and "model-demands.json nests JSON more than 64 levels deep" in rep["reason"], rep["reason"]


def test_a_manifest_cannot_raise_the_spec_budget(tmp_path):
    """#11.18: ``verify --inputs`` re-derives with the options a manifest records; a bundle asking for
    a kernel evaluation budget beyond ``MAX_SPEC_BUDGET`` (hours of Lean) is invalid, not obeyed."""
    ex = ROOT / "examples" / "spec"
    out = tmp_path / "b"
    p = cli("check", "--spec", ex / "spec.py", "--tests", ex / "test_max_window.py", "--entry-point", "max_window",
            "--out", out, "-q")
    assert p.returncode == 1, p.stdout + p.stderr
    man = json.loads((out / "manifest.json").read_text())
    man["options"]["spec_budget"] = 10 ** 9
    (out / "manifest.json").write_text(json.dumps(man))
    code, rep = verify(out, "--inputs", ex / "spec.py", ex / "test_max_window.py")
    assert code == 1 and rep["status"] == "invalid", rep["reason"]
    assert "spec_budget" in rep["reason"], rep["reason"]
    big = cli("check", "--spec", ex / "spec.py", "--tests", ex / "test_max_window.py", "--entry-point",
              "max_window", "--spec-budget", str(10 ** 9), "--out", tmp_path / "c", "-q")
    assert big.returncode == 3 and "Traceback" not in big.stderr and "--spec-budget" in big.stderr, big.stderr
