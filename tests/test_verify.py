"""``specguard verify`` / ``export`` and the tamper suite: real Lean, real files, the real CLI.

Genuine bundles come from ``python -m specguard check`` on small tasks written into a temporary
folder (a stub whose doctest says ``f(2) == 4``; a test file asserting ``f(2) == 5`` for the
conflict, ``f(2) == 4`` for the clean task).  If the pipeline cannot run ``check`` in this checkout
(a stage still missing), the same bundles are built from the stages after formalization (emit,
prove, the certificate checker, the real manifest model) and the tests that re-derive the claim
from the inputs are skipped.  Every tampered bundle must be rejected with a precise reason.
"""

from __future__ import annotations

import hashlib
import io
import json
import os
import shutil
import subprocess
import sys
import tarfile
import zipfile
from pathlib import Path

import pytest

from specguard import __version__
from specguard.kernel import certcheck, emit, runner as lean_runner, prove
from specguard.outputs import verify as V
from specguard.models import Call, Claim, ClaimKind, Demand, Expect, ExpectKind, InputFile, Loc
from specguard.outputs.results import CertReport, Evidence, Manifest, Result, Verdict
from specguard.python.values import from_python

pytestmark = pytest.mark.lean

ROOT = Path(__file__).resolve().parent.parent

STUB = '''def f(x: int) -> int:
    """Return the square of x.

    >>> f(2)
    4
    """
'''

TEST_CONFLICT = '''from f import f


def test_f():
    assert f(2) == 5
'''

TEST_CLEAN = '''from f import f


def test_f():
    assert f(2) == 4
'''


def cli(*args: str, cwd: Path | None = None) -> subprocess.CompletedProcess:
    env = dict(os.environ, PYTHONPATH=str(ROOT))
    return subprocess.run([sys.executable, "-m", "specguard", *args], capture_output=True, text=True,
                          cwd=str(cwd or ROOT), env=env, timeout=300)


def verify(path: Path, *inputs: Path) -> tuple[int, dict]:
    """Run ``python -m specguard verify PATH [--inputs ...] --json``: (exit code, report)."""
    args = ["verify", str(path), "--json"]
    if inputs:
        args += ["--inputs", *map(str, inputs)]
    p = cli(*args)
    assert p.returncode in (0, 1, 2, 4), p.stderr + p.stdout
    rep = json.loads(p.stdout)
    assert (p.returncode == 0) == rep["valid"] and rep["exit_code"] == p.returncode
    return p.returncode, rep


def assert_incomplete(path: Path, missing: str, *inputs: Path) -> dict:
    """``verify --inputs`` lacking a manifest input: exit 4, INPUTS INCOMPLETE, the input named."""
    rc, rep = verify(path, *inputs)
    assert rc == 4 and rep["status"] == "inputs-incomplete", rep
    assert "does not hold every input of the bundle" in rep["reason"] and missing in rep["reason"], \
        rep["reason"]
    return rep


def assert_invalid(path: Path, reason: str, *inputs: Path, check: str | None = None) -> dict:
    rc, rep = verify(path, *inputs)
    assert rc == 1 and not rep["valid"], rep
    assert reason in rep["reason"], rep["reason"]
    if check is not None:
        assert rep["checks"][-1]["name"] == check and not rep["checks"][-1]["ok"], rep["checks"]
    return rep


# -- genuine bundles -------------------------------------------------------------------------------

def _write_task(folder: Path, test_text: str) -> tuple[Path, Path]:
    folder.mkdir(parents=True, exist_ok=True)
    (folder / "f.py").write_text(STUB)
    (folder / "test_f.py").write_text(test_text)
    return folder / "f.py", folder / "test_f.py"


def _hand_bundle(out: Path, desc: Path, test: Path, expected: int) -> None:
    """The bundle ``check`` writes, built from the stages after formalization."""
    d = Demand(id="T1", call=Call(target="f", args=(from_python(2),)),
               expect=Expect(kind=ExpectKind.eq, value=from_python(expected)),
               loc=Loc(file=str(test), line=5), text=f"assert f(2) == {expected}")
    c = Claim(id="D1", kind=ClaimKind.example, call=Call(target="f", args=(from_python(2),)),
              expect=Expect(kind=ExpectKind.eq, value=from_python(4)), loc=Loc(file=str(desc), line=4), text=">>> f(2)")
    tcl, scl = [emit.clause_of_demand(d)], [emit.clause_of_claim(c)]
    emit.name_inputs(scl, "SK")
    emit.name_inputs(tcl, "TK")
    files = {"spec.lean": emit.render_module("Spec", scl, lambda c: f"{c.source.loc}: f(2) == 4"),
             "tests.lean": emit.render_module("Tests", tcl, lambda c: f"{c.source.loc}: f(2) == {expected}")}
    p = prove.plan(scl, tcl)
    files["claim.lean"] = emit.render_claim(p.claims)
    cert = prove.render_cert(p)
    v = certcheck.check_certificate({"Spec": files["spec.lean"], "Tests": files["tests.lean"],
                                     "Claim": files["claim.lean"]}, cert, list(p.claims))
    assert v.accepted, v.reason
    files["cert.lean"] = cert
    verdict = Verdict.conflict if p.conflict else Verdict.no_conflict
    r = Result(task_id="f", verdict=verdict, evidence=Evidence.certified, reason="hand-built", specguard_version=__version__,
               certificate=CertReport(claims=tuple(p.claims), accepted=True, reason="accepted"))
    files["result.json"] = r.model_dump_json(indent=2) + "\n"
    rt = lean_runner.find_runtime()
    inputs = (InputFile(path=str(desc), sha256=sha(desc.read_bytes()), role="description"),
              InputFile(path=str(test), sha256=sha(test.read_bytes()), role="tests"))
    m = Manifest(task_id="f", specguard_version=__version__, lean_version=rt.version, lean_commit=rt.commit,
                 core_hash=lean_runner.library_hash(), inputs=inputs,
                 outputs={n: sha(t.encode()) for n, t in sorted(files.items())}, claims=tuple(p.claims),
                 verdict=verdict, evidence=Evidence.certified)
    files["manifest.json"] = m.model_dump_json(indent=2) + "\n"
    out.mkdir(parents=True)
    for n, t in files.items():
        (out / n).write_text(t, encoding="utf-8")


class Genuine:
    def __init__(self, base: Path) -> None:
        self.base = base
        self.real_cli = True
        self.reason = ""
        self.conflict_inputs = _write_task(base / "task_conflict", TEST_CONFLICT)
        self.clean_inputs = _write_task(base / "task_clean", TEST_CLEAN)
        self.conflict = base / "bundle_conflict"
        self.clean = base / "bundle_clean"
        for out, (desc, test), code in ((self.conflict, self.conflict_inputs, 1), (self.clean, self.clean_inputs, 0)):
            p = cli("check", "--description", str(desc), "--tests", str(test), "--out", str(out))
            if p.returncode != code or not (out / "cert.lean").is_file():
                self.real_cli = False
                self.reason = f"`specguard check` exit {p.returncode}: {(p.stderr or p.stdout).strip()[-300:]}"
                break
        if not self.real_cli:
            for out, (desc, test), expected in ((self.conflict, self.conflict_inputs, 5), (self.clean, self.clean_inputs, 4)):
                shutil.rmtree(out, ignore_errors=True)
                _hand_bundle(out, desc, test, expected)

    def copy(self, which: str, dest: Path) -> Path:
        shutil.copytree(getattr(self, which), dest)
        return dest

    def need_cli(self) -> None:
        if not self.real_cli:
            pytest.skip(f"re-derivation needs the real `check` pipeline: {self.reason}")


@pytest.fixture(scope="module")
def genuine(tmp_path_factory, core) -> Genuine:
    return Genuine(tmp_path_factory.mktemp("genuine"))


def sha(data: bytes) -> str:
    return hashlib.sha256(data).hexdigest()


def manifest(b: Path) -> dict:
    return json.loads((b / "manifest.json").read_text())


def write_manifest(b: Path, m: dict) -> None:
    (b / "manifest.json").write_text(json.dumps(m, indent=2) + "\n")


def rehash(b: Path) -> None:
    """What a forger does after editing a file: make the manifest agree with it again."""
    m = manifest(b)
    m["outputs"] = {p.name: sha(p.read_bytes()) for p in sorted(b.iterdir())
                    if p.name != "manifest.json" and p.is_file() and not p.is_symlink()}
    write_manifest(b, m)


def edit(path: Path, old: str, new: str) -> None:
    t = path.read_text()
    assert old in t, (old, t)
    path.write_text(t.replace(old, new, 1))


# -- valid bundles are accepted ----------------------------------------------------------------------

def test_genuine_bundles_verify(genuine):
    rc, rep = verify(genuine.conflict)
    assert rc == 0 and rep["valid"], rep["reason"]
    assert rep["verdict"] == "conflict" and rep["evidence"] == "certified" and "Conflict" in rep["claims"]
    assert rep["claim_source"] == "taken from the bundle as is"
    assert [c["name"] for c in rep["checks"]] == ["files", "manifest", "runtime", "claims", "trusted files",
                                                   "inputs", "kernel"]
    assert all(c["ok"] for c in rep["checks"])
    assert any("core theory (hash " + lean_runner.library_hash() in a for a in rep["assumptions"])
    assert any("Lean 4.35.0 kernel (commit " in a for a in rep["assumptions"])
    assert any("custom __eq__" in a for a in rep["assumptions"])
    rc, rep = verify(genuine.clean)
    assert rc == 0, rep["reason"]
    assert rep["verdict"] == "no-conflict" and "Consistent" in rep["claims"]


def test_summary_says_what_was_checked_and_assumed(genuine):
    p = cli("verify", str(genuine.conflict))
    assert p.returncode == 0, p.stdout + p.stderr
    out = p.stdout
    assert out.startswith("VALID: the Lean kernel accepted the certificate for Conflict, the claim of the verdict "
                          "conflict"), out
    assert "\n  bundle folder " in out and "[UNCHECKED] reason:" in out
    for s in ("[ok ] kernel", "Conflict: no implementation satisfies both", "taken from the bundle as is",
              "assumed", "Lean 4.35.0 kernel (commit", "SpecGuard core theory (hash"):
        assert s in out, (s, out)


def test_verify_with_inputs_rederives_the_claim(genuine):
    genuine.need_cli()
    rc, rep = verify(genuine.conflict, *genuine.conflict_inputs)
    assert rc == 0, rep["reason"]
    assert rep["claim_source"] == "re-derived from the inputs"
    assert "byte for byte" in next(c for c in rep["checks"] if c["name"] == "inputs")["detail"]
    rc, rep = verify(genuine.clean, *genuine.clean_inputs)
    assert rc == 0, rep["reason"]


def test_inputs_may_live_elsewhere(genuine, tmp_path):
    """Only the bytes matter: the files are matched by sha256, shown under the manifest's paths."""
    genuine.need_cli()
    desc, test = genuine.conflict_inputs
    moved = tmp_path / "elsewhere"
    moved.mkdir()
    shutil.copy(desc, moved / "stub_copy.py")
    shutil.copy(test, moved / "t.py")
    rc, rep = verify(genuine.conflict, moved / "t.py", moved / "stub_copy.py")
    assert rc == 0, rep["reason"]


def test_archives_are_accepted(genuine, tmp_path):
    for name in ("b.tar.gz", "b.tgz", "b.zip"):
        a = V.pack_bundle(genuine.conflict, tmp_path / name)
        rc, rep = verify(a)
        assert rc == 0 and rep["kind"] == "archive", rep["reason"]
        assert rep["checks"][0]["name"] == "archive"
    # reproducible: the same bundle packs to the same bytes
    again = V.pack_bundle(genuine.conflict, tmp_path / "again.zip")
    assert again.read_bytes() == (tmp_path / "b.zip").read_bytes()
    # the CLI writes one too
    p = cli("export", str(genuine.clean), "--archive", str(tmp_path / "clean.tar.gz"))
    assert p.returncode == 0, p.stderr
    rc, rep = verify(tmp_path / "clean.tar.gz")
    assert rc == 0, rep["reason"]


def test_plain_tar_of_a_folder_with_dot_prefix_is_accepted(genuine, tmp_path):
    a = tmp_path / "dot.tar.gz"
    with tarfile.open(a, "w:gz") as tf:
        tf.add(genuine.conflict, arcname=".")
    rc, rep = verify(a)
    assert rc == 0, rep["reason"]


def test_task_folder_inputs(tmp_path):
    """A task folder (task.toml): give the folder itself, or its files one by one."""
    task = shutil.copytree(ROOT / "examples" / "conflict", tmp_path / "task")
    b = tmp_path / "bundle"
    p = cli("check", str(task), "--out", str(b))
    if p.returncode == 3:
        pytest.skip(f"`specguard check` cannot run here: {p.stderr.strip()[-300:]}")
    rc, rep = verify(b, task)
    assert rc == 0 and rep["claim_source"] == "re-derived from the inputs", rep["reason"]
    rc, rep = verify(b, *sorted(task.iterdir()))
    assert rc == 0, rep["reason"]
    test_file = next(f for f in task.iterdir() if f.name.startswith("test_"))
    test_file.write_text(test_file.read_text() + "\n# edited\n")
    assert_invalid(b, "matches no input of the manifest", task, check="inputs")


def test_livecodebench_inputs(shared_lcb, tmp_path):
    src = shared_lcb / "conflicting.json"
    b = tmp_path / "lcb"
    p = cli("check", str(src), "--task-id", "lcbhard_0", "--out", str(b))
    if p.returncode == 3:
        pytest.skip(f"`specguard check` cannot run here: {p.stderr.strip()[-300:]}")
    rc, rep = verify(b, src)
    assert rc == 0 and rep["claim_source"] == "re-derived from the inputs", rep["reason"]
    assert_invalid(b, f"input {shared_lcb / 'oneoff.json'}", shared_lcb / "oneoff.json")


SQUARES_SPEC = '''
def reference(xs: list[int]) -> list[int]:
    """The squares of xs, in increasing order."""
    out = [x * x for x in xs]
    out.sort()
    return out
'''


def test_spec_language_inputs(tmp_path):
    """`check --spec S --tests T --entry-point f`: the spec file is an input like the others."""
    spec = tmp_path / "spec.py"
    spec.write_text(SQUARES_SPEC)
    tests = tmp_path / "test_f.py"
    tests.write_text("from m import f\n\n\ndef test_a():\n    assert f([-3, 1]) == [9, 1]\n")
    b = tmp_path / "b"
    p = cli("check", "--spec", str(spec), "--tests", str(tests), "--entry-point", "f", "--out", str(b))
    if p.returncode == 3:
        pytest.skip(f"`specguard check --spec` cannot run here: {p.stderr.strip()[-300:]}")
    assert p.returncode == 1, p.stdout + p.stderr
    rc, rep = verify(b, spec, tests)
    assert rc == 0 and rep["claim_source"] == "re-derived from the inputs", rep["reason"]
    assert_incomplete(b, "spec.py (role spec", tests)
    # a forger who also fixes the manifest's hash of an edited spec: the re-derivation disagrees
    spec.write_text(SQUARES_SPEC.replace("out.sort()", "out.sort(reverse=True)"))
    m = manifest(b)
    for i in m["inputs"]:
        if i["role"] == "spec":
            i["sha256"] = sha(spec.read_bytes())
    write_manifest(b, m)
    assert_invalid(b, "claim does not follow from the inputs", spec, tests, check="inputs")


def test_bundle_that_certifies_nothing(genuine, tmp_path):
    """#11.6: intact but uncertified: NOT CERTIFIED (exit 2), and the report says it certifies nothing."""
    b = genuine.copy("conflict", tmp_path / "b")
    (b / "cert.lean").unlink()
    m = manifest(b)
    m.update(claims=[], evidence="none", verdict="inconclusive")
    write_manifest(b, m)
    r = json.loads((b / "result.json").read_text())
    r.update(evidence="none", verdict="inconclusive")
    r["certificate"]["accepted"] = False
    r["tests"] = [dict(t, certified=False) for t in r["tests"]]
    (b / "result.json").write_text(json.dumps(r))
    m["outputs"].pop("cert.lean")
    write_manifest(b, m)
    rehash(b)
    rc, rep = verify(b)
    assert rc == 2 and rep["status"] == "not-certified" and rep["claims"] == [] and rep["claim_source"] == "no claim"
    p = cli("verify", str(b))
    assert p.returncode == 2 and "certifies nothing" in p.stdout
    assert p.stdout.startswith("NOT CERTIFIED: the bundle's verdict is inconclusive (evidence none); nothing for "
                               "the kernel to check"), p.stdout
    p = cli("export", str(b), "-o", str(tmp_path / "x.lean"))
    assert p.returncode == 1 and "nothing for the kernel to check" in p.stderr


# -- export ----------------------------------------------------------------------------------------------

@pytest.fixture(scope="module")
def exported(genuine, tmp_path_factory) -> Path:
    out = tmp_path_factory.mktemp("export") / "conflict.lean"
    p = cli("export", str(genuine.conflict), "-o", str(out))
    assert p.returncode == 0, p.stderr + p.stdout
    return out


def test_exported_file_is_self_contained_and_checks_with_plain_lean(exported, tmp_path):
    text = exported.read_text()
    assert text.startswith("prelude\n") and "\nimport " not in text
    # what a third party runs: `lean FILE.lean`, nothing on the import path
    f = tmp_path / "Mine.lean"
    f.write_text(text)
    res = lean_runner.run_lean([str(f)], lean_path=(), cwd=tmp_path)
    assert res.ok, res.errors[:3]
    assert res.axioms.get("final_Conflict") == ()
    assert all(v == () for k, v in res.axioms.items() if k.startswith("final_"))
    rc, rep = verify(exported)
    assert rc == 0 and rep["kind"] == "export", rep["reason"]
    assert [c["name"] for c in rep["checks"]][-1] == "compile"


def test_exported_file_with_inputs(genuine, exported):
    genuine.need_cli()
    rc, rep = verify(exported, *genuine.conflict_inputs)
    assert rc == 0 and rep["claim_source"] == "re-derived from the inputs", rep["reason"]
    other = genuine.clean_inputs[1]
    assert_invalid(exported, "matches no input of the manifest", genuine.conflict_inputs[0], other)


def test_export_of_clean_bundle(genuine, tmp_path):
    out = tmp_path / "clean.lean"
    p = cli("export", str(genuine.clean), "-o", str(out))
    assert p.returncode == 0, p.stderr
    rc, rep = verify(out)
    assert rc == 0 and "Consistent" in rep["claims"], rep["reason"]


def test_export_refuses_an_invalid_bundle(genuine, tmp_path):
    b = genuine.copy("conflict", tmp_path / "b")
    edit(b / "cert.lean", "Eq.refl Bool.false", "Eq.refl Bool.true")
    p = cli("export", str(b), "-o", str(tmp_path / "x.lean"))
    assert p.returncode == 1 and "invalid bundle" in p.stderr
    assert not (tmp_path / "x.lean").exists()


def test_export_tamper_edited_core(exported, tmp_path):
    t = exported.read_text()
    f = tmp_path / "core.lean"
    f.write_text(t.replace("theorem Bool.false_ne_true", "theorem Bool.false_ne_true'", 1)
                 if "theorem Bool.false_ne_true" in t else t.replace("inductive Eq", "inductive Eq'", 1))
    assert f.read_text() != t
    assert_invalid(f, "core theory in this file is not SpecGuard's", check="export")
    # a core swapped anywhere, even an option
    f.write_text(t.replace("set_option genCtorIdx true", "set_option genCtorIdx false", 1))
    assert_invalid(f, "core theory in this file is not SpecGuard's")


def test_export_tamper_outside_the_sections(exported, tmp_path):
    t = exported.read_text()
    f = tmp_path / "final.lean"
    f.write_text(t.replace("#print axioms _root_.final_Conflict\n", "", 1))
    assert_invalid(f, "differs from what `specguard export` writes")
    f.write_text(t + "theorem extra : True := True.intro\n")
    assert_invalid(f, "differs from what `specguard export` writes")


def test_export_tamper_banned_token_in_certificate_section(exported, tmp_path):
    t = exported.read_text()
    f = tmp_path / "banned.lean"
    body = "open SpecGuard\n"
    f.write_text(t.replace(f"namespace SGTask\n{body}\ntheorem proof_Conflict",
                           f"namespace SGTask\n{body}\naxiom cheat : False\ntheorem proof_Conflict", 1))
    assert f.read_text() != t
    assert_invalid(f, "certificate section: banned token 'axiom'", check="certificate")
    f.write_text(t.replace("-- specguard: certificate end\n", "set_option debug.skipKernelTC true\n"
                                                               "-- specguard: certificate end\n", 1))
    assert_invalid(f, "banned token 'set_option'")


def test_export_tamper_claim_section(exported, tmp_path):
    t = exported.read_text()
    f = tmp_path / "claim.lean"
    f.write_text(t.replace("def Conflict : Prop := Not (Exists", "def Conflict : Prop := Or True (Exists", 1))
    assert_invalid(f, "claim.lean is not SpecGuard's standard statement")


# -- the tamper suite: bundles -----------------------------------------------------------------------

def test_tamper_edited_proof(genuine, tmp_path):
    b = genuine.copy("conflict", tmp_path / "b")
    edit(b / "cert.lean", "Eq.refl Bool.false", "Eq.refl Bool.true")
    assert_invalid(b, "the sha256 of cert.lean", check="manifest")
    rehash(b)
    assert_invalid(b, "the certificate was rejected: certificate does not compile", check="kernel")


def test_tamper_edited_claim(genuine, tmp_path):
    b = genuine.copy("conflict", tmp_path / "b")
    edit(b / "claim.lean", "def Conflict : Prop := Not (Exists", "def Conflict : Prop := Or True (Exists")
    assert_invalid(b, "the sha256 of claim.lean")
    rehash(b)
    assert_invalid(b, "claim.lean is not SpecGuard's standard statement", check="trusted files")


def test_tamper_weakened_spec_is_caught_by_the_inputs(genuine, tmp_path):
    """A forged spec.lean in SpecGuard's own shape passes without inputs (the claim is taken as is,
    and the report says so) but not with them."""
    genuine.need_cli()
    b = genuine.copy("clean", tmp_path / "b")
    edit(b / "tests.lean", "(Val.int (Int.ofNat 4))", "(Val.int (Int.ofNat 5))")
    rehash(b)
    rep = assert_invalid(b, "certificate was rejected")    # the old witness no longer fits
    b2 = genuine.copy("conflict", tmp_path / "b2")
    shutil.copy(genuine.clean / "tests.lean", b2 / "tests.lean")   # make the "conflict" vanish...
    rehash(b2)
    assert_invalid(b2, "certificate was rejected")
    # ... and with inputs the forgery is named for what it is
    assert_invalid(b2, "claim does not follow from the inputs: tests.lean differs", *genuine.conflict_inputs,
                   check="inputs")
    assert rep


def test_tamper_trusted_file_with_kernel_bypass(genuine, tmp_path):
    b = genuine.copy("conflict", tmp_path / "b")
    edit(b / "spec.lean", "open SpecGuard\n\n",
         "open SpecGuard\n\nset_option debug.skipKernelTC true in\ntheorem cheat : False := cheat\n")
    rehash(b)
    line = (emit.HEADER + "noncomputable section\nnamespace SGTask\nopen SpecGuard\n\n").count("\n") + 1
    assert_invalid(b, f"spec.lean:{line}: not a generated clause definition", check="trusted files")
    b = genuine.copy("conflict", tmp_path / "b2")
    t = (b / "tests.lean").read_text()
    line = next(ln for ln in t.split("\n") if ln.startswith("def T"))
    (b / "tests.lean").write_text(t.replace(line, line.replace(":= ", ":= set_option maxRecDepth 9 in ", 1)))
    rehash(b)
    assert_invalid(b, "contains the name or keyword 'set_option'")


def test_tamper_edited_manifest(genuine, tmp_path):
    b = genuine.copy("conflict", tmp_path / "b")
    m = manifest(b)
    m["outputs"]["spec.lean"] = "0" * 64
    write_manifest(b, m)
    assert_invalid(b, "the sha256 of spec.lean", check="manifest")

    b = genuine.copy("conflict", tmp_path / "claims")
    m = manifest(b)
    m["claims"] = ["Consistent"]
    write_manifest(b, m)
    assert_invalid(b, "result.json's certificate report does not list the manifest's claims")
    r = json.loads((b / "result.json").read_text())
    r["certificate"]["claims"] = ["Consistent"]
    (b / "result.json").write_text(json.dumps(r))
    rehash(b)
    assert_invalid(b, "the manifest says 'conflict, certified' but does not claim Conflict", check="claims")

    b = genuine.copy("conflict", tmp_path / "undeclared")
    m = manifest(b)
    m["claims"] = m["claims"] + ["Contradicted_T9"]
    write_manifest(b, m)
    r = json.loads((b / "result.json").read_text())
    r["certificate"]["claims"] = m["claims"]
    (b / "result.json").write_text(json.dumps(r))
    rehash(b)
    assert_invalid(b, "the manifest lists claim 'Contradicted_T9', which claim.lean does not declare")

    b = genuine.copy("conflict", tmp_path / "core")
    m = manifest(b)
    m["core_hash"] = "ab" * 32
    write_manifest(b, m)
    assert_invalid(b, "the certificate speaks about another core theory", check="runtime")

    b = genuine.copy("conflict", tmp_path / "commit")
    m = manifest(b)
    m["lean_commit"] = "0123456789abcdef"
    write_manifest(b, m)
    assert_invalid(b, "this runtime is Lean 4.35.0", check="runtime")

    b = genuine.copy("conflict", tmp_path / "format")
    m = manifest(b)
    m["bundle_format"] = "specguard-bundle/2"
    write_manifest(b, m)
    assert_invalid(b, "is not of format 'specguard-bundle/1'")

    b = genuine.copy("conflict", tmp_path / "verdict")
    m = manifest(b)
    m["evidence"] = "certified"
    m["claims"] = []
    write_manifest(b, m)
    (b / "cert.lean").unlink()
    m["outputs"].pop("cert.lean")
    write_manifest(b, m)
    r = json.loads((b / "result.json").read_text())
    r["certificate"]["claims"] = []
    r["certificate"]["accepted"] = False
    (b / "result.json").write_text(json.dumps(r))
    rehash(b)
    assert_invalid(b, "evidence 'certified' but lists no claim", check="claims")

    b = genuine.copy("conflict", tmp_path / "notjson")
    (b / "manifest.json").write_text("{")
    assert_invalid(b, "manifest.json is not valid JSON")


def test_tamper_edited_input(genuine, tmp_path):
    genuine.need_cli()
    desc, test = genuine.conflict_inputs
    changed = tmp_path / "test_f.py"
    changed.write_text(test.read_text().replace("== 5", "== 6"))
    assert_invalid(genuine.conflict, f"input {changed}", desc, changed, check="inputs")
    assert_invalid(genuine.conflict, "matches no input of the manifest", desc, changed)
    # a manifest input not given at all (#11.3: never taken from elsewhere; exit 4)
    assert_incomplete(genuine.conflict, "test_f.py (role tests", desc)
    # the forger also fixes the manifest's input hash: the re-derivation still disagrees
    b = genuine.copy("conflict", tmp_path / "b")
    m = manifest(b)
    for i in m["inputs"]:
        if i["role"] == "tests":
            i["sha256"] = sha(changed.read_bytes())
    write_manifest(b, m)
    assert_invalid(b, "claim does not follow from the inputs: tests.lean differs", desc, changed)
    # an unrelated extra file among the inputs is named
    extra = tmp_path / "notes.txt"
    extra.write_text("hello")
    assert_invalid(genuine.conflict, f"input {extra}", desc, test, extra)


def test_tamper_certificate_swapped_between_bundles(genuine, tmp_path):
    b = genuine.copy("conflict", tmp_path / "b")
    shutil.copy(genuine.clean / "cert.lean", b / "cert.lean")
    rehash(b)
    rep = assert_invalid(b, "the certificate was rejected: it holds proofs of", check="kernel")
    assert "not of the bundle's claim Conflict (a certificate of another bundle?)" in rep["reason"], rep["reason"]
    # and with the other bundle's claims as well: the claim files disagree
    c = genuine.copy("clean", tmp_path / "c")
    shutil.copy(genuine.conflict / "cert.lean", c / "cert.lean")
    m, mc = manifest(c), manifest(genuine.conflict)
    m["claims"] = mc["claims"]
    m["verdict"] = mc["verdict"]
    write_manifest(c, m)
    r = json.loads((c / "result.json").read_text())
    r["certificate"]["claims"], r["verdict"] = mc["claims"], mc["verdict"]
    (c / "result.json").write_text(json.dumps(r))
    rehash(c)
    assert_invalid(c, "which claim.lean does not declare", check="claims")


def test_tamper_missing_files(genuine, tmp_path):
    for name in ("spec.lean", "tests.lean", "claim.lean", "result.json", "manifest.json"):
        b = genuine.copy("conflict", tmp_path / name)
        (b / name).unlink()
        assert_invalid(b, f"missing file {name}", check="files")
    b = genuine.copy("conflict", tmp_path / "cert")
    (b / "cert.lean").unlink()
    assert_invalid(b, "missing file cert.lean (listed in the manifest's outputs)")
    m = manifest(b)
    m["outputs"].pop("cert.lean")
    write_manifest(b, m)
    assert_invalid(b, "the bundle has no cert.lean", check="claims")


def test_tamper_unexpected_extra_file(genuine, tmp_path):
    b = genuine.copy("conflict", tmp_path / "b")
    (b / "notes.txt").write_text("x")
    assert_invalid(b, "unexpected file 'notes.txt'", check="files")
    b = genuine.copy("conflict", tmp_path / "d")
    (b / "sub").mkdir()
    assert_invalid(b, "unexpected folder sub/")


def test_tamper_symlinks(genuine, tmp_path):
    outside = tmp_path / "outside.lean"
    shutil.copy(genuine.conflict / "spec.lean", outside)
    b = genuine.copy("conflict", tmp_path / "b")
    (b / "spec.lean").unlink()
    (b / "spec.lean").symlink_to(outside)          # same bytes, but a link out of the bundle
    assert_invalid(b, "spec.lean is a symbolic link", check="files")
    b = genuine.copy("conflict", tmp_path / "c")
    (b / "cert.lean").unlink()
    (b / "cert.lean").symlink_to("../../../../../../etc/passwd")
    assert_invalid(b, "cert.lean is a symbolic link (to ../../../../../../etc/passwd)")


def test_tamper_oversized_file(genuine, tmp_path):
    b = genuine.copy("conflict", tmp_path / "b")
    with open(b / "cert.lean", "a") as f:
        f.write("-- " + "x" * (9 * 1024 * 1024) + "\n")
    rehash(b)
    assert_invalid(b, "cert.lean is 9,", check="files")


def test_tamper_banned_construct_in_certificate(genuine, tmp_path):
    b = genuine.copy("conflict", tmp_path / "b")
    edit(b / "cert.lean", "theorem proof_Conflict", "axiom cheat : False\ntheorem proof_Conflict")
    rehash(b)
    assert_invalid(b, "banned token 'axiom'", check="kernel")
    b = genuine.copy("conflict", tmp_path / "c")
    edit(b / "cert.lean", "theorem proof_Conflict", "set_option debug.skipKernelTC true in\ntheorem proof_Conflict")
    rehash(b)
    assert_invalid(b, "banned token 'set_option'")


# -- archives ---------------------------------------------------------------------------------------------

def _tar(path: Path, members: list[tuple[tarfile.TarInfo, bytes | None]]) -> Path:
    with tarfile.open(path, "w:gz") as tf:
        for ti, data in members:
            tf.addfile(ti, io.BytesIO(data) if data is not None else None)
    return path


def _file(name: str, data: bytes) -> tuple[tarfile.TarInfo, bytes]:
    ti = tarfile.TarInfo(name)
    ti.size = len(data)
    return ti, data


def _bundle_members(b: Path) -> list[tuple[tarfile.TarInfo, bytes]]:
    return [_file(p.name, p.read_bytes()) for p in sorted(b.iterdir())]


def test_archive_with_dotdot_member(genuine, tmp_path):
    a = _tar(tmp_path / "evil.tar.gz", _bundle_members(genuine.conflict) + [_file("../evil.txt", b"x")])
    assert_invalid(a, "archive member '../evil.txt' escapes the bundle", check="archive")
    assert not (tmp_path.parent / "evil.txt").exists()
    z = tmp_path / "evil.zip"
    with zipfile.ZipFile(z, "w") as zf:
        for p in sorted(genuine.conflict.iterdir()):
            zf.writestr(p.name, p.read_bytes())
        zf.writestr("sub/../../evil.txt", b"x")
    assert_invalid(z, "escapes the bundle")


def test_archive_unsafe_members(genuine, tmp_path):
    sym = tarfile.TarInfo("spec.lean")
    sym.type, sym.linkname = tarfile.SYMTYPE, "/etc/passwd"
    members = [m for m in _bundle_members(genuine.conflict) if m[0].name != "spec.lean"]
    assert_invalid(_tar(tmp_path / "sym.tar.gz", members + [(sym, None)]), "is a symbolic link")
    hard = tarfile.TarInfo("spec.lean")
    hard.type, hard.linkname = tarfile.LNKTYPE, "claim.lean"
    assert_invalid(_tar(tmp_path / "hard.tar.gz", members + [(hard, None)]), "is a hard link")
    dev = tarfile.TarInfo("spec.lean")
    dev.type = tarfile.CHRTYPE
    assert_invalid(_tar(tmp_path / "dev.tar.gz", members + [(dev, None)]), "is a device or pipe")
    assert_invalid(_tar(tmp_path / "abs.tar.gz", [_file("/tmp/spec.lean", b"x")]), "absolute path")
    assert_invalid(_tar(tmp_path / "many.tar.gz", [_file(f"f{i}", b"x") for i in range(25)]),
                   "more than 20 members")
    big = _file("cert.lean", b"-" * (8 * 1024 * 1024 + 1))
    assert_invalid(_tar(tmp_path / "big.tar.gz", members + [big]), "over the 8 MB limit")
    assert_invalid(_tar(tmp_path / "nested.tar.gz", [_file("bundle/spec.lean", b"x")]), "is in a folder")
    dup = members + [_file("claim.lean", b"x")]
    assert_invalid(_tar(tmp_path / "dup.tar.gz", dup), "appears twice")
    z = tmp_path / "symlink.zip"
    with zipfile.ZipFile(z, "w") as zf:
        info = zipfile.ZipInfo("spec.lean")
        info.external_attr = (0o120777 << 16)
        zf.writestr(info, "/etc/passwd")
    assert_invalid(z, "is a symbolic link")
    bad = tmp_path / "junk.tar.gz"
    bad.write_bytes(b"not an archive")
    assert_invalid(bad, "cannot be read")


def test_archive_members_are_checked_like_a_folder(genuine, tmp_path):
    members = _bundle_members(genuine.conflict)
    tampered = [_file(ti.name, data.replace(b"Eq.refl Bool.false", b"Eq.refl Bool.true") if ti.name == "cert.lean"
                      else data) for ti, data in members]
    assert_invalid(_tar(tmp_path / "t.tar.gz", tampered), "the sha256 of cert.lean")
    assert_invalid(_tar(tmp_path / "x.tar.gz", members + [_file("x.txt", b"x")]), "unexpected file 'x.txt'")


# -- errors (not results) ---------------------------------------------------------------------------------

def test_not_a_bundle_is_an_error(tmp_path):
    p = cli("verify", str(tmp_path / "nope"))
    assert p.returncode == 3 and "no such bundle" in p.stderr
    f = tmp_path / "x.txt"
    f.write_text("x")
    p = cli("verify", str(f))
    assert p.returncode == 3 and "not a bundle folder" in p.stderr


# -- unit: the verifier's knowledge of SpecGuard's claims agrees with the prover ---------------------------

def test_claim_statements_mirror_the_prover():
    f2 = Call(target="f", args=(from_python(2),))
    f3 = Call(target="f", args=(from_python(3),))
    loc = Loc(file="t.py", line=1)
    spec = [emit.clause_of_claim(Claim(id="D1", kind=ClaimKind.example, call=f2, loc=loc,
                                       expect=Expect(kind=ExpectKind.eq, value=from_python(4))))]
    tests = [emit.clause_of_demand(Demand(id=i, call=c, loc=loc, expect=Expect(kind=ExpectKind.eq, value=from_python(v))))
             for i, c, v in (("T1", f2, 4), ("T2", f2, 5), ("T3", f3, 9))]
    emit.name_inputs(spec, "SK")
    emit.name_inputs(tests, "TK")
    p = prove.plan(spec, tests)
    q = prove.plan(spec, [tests[0], tests[2]])
    seen = set()
    for plan in (p, q):
        names = [t.name for t in (tests if plan is p else [tests[0], tests[2]])]
        for name, prop in plan.claims.items():
            assert V.claim_statement(name, names) == prop, name
            seen.add(name.split("_")[0])
    assert {"Conflict", "Contradicted", "Entailed", "LeftOpen", "Consistent"} <= seen
    assert V.claim_statement("Entailed_T9", ["T1"]) is None
    assert V.claim_statement("Anything", ["T1"]) is None


def test_module_shape_accepts_what_the_emitter_writes():
    loc = Loc(file='we"ird -/ path.py', line=1)
    demands = [Demand(id=f"T{i}", call=Call(target="f", args=(from_python(x),)), loc=loc, text="assert ... /- -/",
                      expect=Expect(kind=k, value=from_python(v), values=tuple(from_python(z) for z in vs)))
               for i, (x, k, v, vs) in enumerate([
                   ("a\"b\\c\n", ExpectKind.eq, [1, 2.5, None, True, {"k": (1,)}], ()),
                   (-3, ExpectKind.ne, float("inf"), ()),
                   (0, ExpectKind.in_, None, (1, "x", b"\x00")),
                   (1, ExpectKind.truthy, None, ()),
               ], 1)]
    clauses = [emit.clause_of_demand(d) for d in demands]
    emit.name_inputs(clauses, "TK")
    text = emit.render_module("Tests", clauses, lambda c: f"{c.source.loc}: {c.source.text}")
    assert V.module_shape_problem("Tests", text) is None
    assert V.module_shape_problem("Spec", emit.render_module("Spec", [], lambda c: "")) is None
    bad = text.replace("def T1 ", "theorem T1 ")
    assert "not a generated clause definition" in V.module_shape_problem("Tests", bad)
    assert "noncomputable def TK0 : Val := " in text
    bad = text.replace("noncomputable def TK0 : Val := ", "noncomputable def TK0 : Val := open Lean in ")
    assert "input TK0 contains the name or keyword 'open'" in V.module_shape_problem("Tests", bad)
    bad = text.replace("/-- ", "noncomputable def TK0 : Val := Val.none\n/-- ", 1)
    assert "repeated input name" in V.module_shape_problem("Tests", bad)


def test_bundle_constants_agree_with_the_writer():
    try:
        from specguard.outputs import bundle
    except ImportError as e:
        pytest.skip(f"specguard.outputs.bundle not importable yet: {e}")
    assert bundle.RESULT == V.RESULT and bundle.MANIFEST == V.MANIFEST
    assert set(bundle.LEAN_FILES) | {bundle.RESULT, bundle.MANIFEST} == set(V.BUNDLE_FILES)


def test_the_manifest_records_the_options_the_claim_depends_on(tmp_path):
    """A non-default --spec-budget changes the trusted files: the manifest records it, and
    ``verify --inputs`` re-derives the claim with it."""
    import json
    from specguard.cli import main
    ex = ROOT / "examples" / "spec"
    out = tmp_path / "b"
    assert main(["check", "--spec", str(ex / "spec.py"), "--tests", str(ex / "test_max_window.py"),
                 "--entry-point", "max_window", "--spec-budget", "5", "--out", str(out), "-q"]) == 1
    man = json.loads((out / "manifest.json").read_text())
    assert man["options"] == {"classify": True, "spec_budget": 5, "spec_binds": True}
    rep = V.verify_bundle(out, [ex / "spec.py", ex / "test_max_window.py"])
    # execution evidence (SpecGuard's evaluator beyond the budget): re-derived, but not a kernel claim (#11.6)
    assert rep.status == "not-certified" and rep.exit_code == 2, rep.reason
    assert rep.claim_source == "re-derived from the inputs", rep.reason
    assert rep.reason.startswith("the bundle claims a conflict with evidence execution; nothing for the kernel "
                                 "to check"), rep.reason
    assert any(f.field == "verdict, evidence, conflict" and f.status == "re-derived" for f in rep.result_fields)
