"""Trust layer: the bundle and the exported file (issue 11, items 5, 6, 9, 21).

Genuine bundles come from the real ``python -m specguard check``; each tampered copy is checked
by the real ``python -m specguard verify`` (the real kernel), never a mock."""

from __future__ import annotations

import hashlib
import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from specguard.kernel import runner as lean_runner

pytestmark = pytest.mark.lean

ROOT = Path(__file__).resolve().parents[2]

STUB = '''def f(x: int) -> int:
    """Return the square of x.

    >>> f(2)
    4
    """
'''
TEST = "from f import f\n\n\ndef test_f():\n    assert f(2) == {}\n"


def cli(*args: str) -> subprocess.CompletedProcess:
    env = dict(os.environ, PYTHONPATH=str(ROOT))
    return subprocess.run([sys.executable, "-m", "specguard", *map(str, args)], capture_output=True, text=True,
                          cwd=str(ROOT), env=env, timeout=300)


def verify(path: Path, *args: str) -> tuple[int, dict, str]:
    p = cli("verify", path, "--json", *args)
    assert "Traceback" not in p.stderr, p.stderr
    rep = json.loads(p.stdout)
    assert rep["exit_code"] == p.returncode, (p.returncode, rep)
    return p.returncode, rep, p.stderr


def sha(b: bytes) -> str:
    return hashlib.sha256(b).hexdigest()


def rehash(b: Path) -> None:
    m = json.loads((b / "manifest.json").read_text())
    m["outputs"] = {n: sha((b / n).read_bytes()) for n in m["outputs"] if (b / n).exists()}
    (b / "manifest.json").write_text(json.dumps(m))


def edit_json(path: Path, fn) -> None:
    d = json.loads(path.read_text())
    fn(d)
    path.write_text(json.dumps(d))


@pytest.fixture(scope="module")
def bundles(tmp_path_factory):
    """A certified conflict, a certified no-conflict and an inconclusive task (a test the
    description leaves open), each with its input files."""
    root = tmp_path_factory.mktemp("adv-bundle")
    out = {}
    for name, value, call in (("conflict", 5, "f(2)"), ("clean", 4, "f(2)"), ("open", 9, "f(3)")):
        d = root / name
        d.mkdir()
        (d / "f.py").write_text(STUB)
        (d / "test_f.py").write_text(TEST.replace("f(2)", call).format(value))
        p = cli("check", "--description", d / "f.py", "--tests", d / "test_f.py", "--out", d / "b")
        assert p.returncode in (0, 1, 2), p.stderr
        out[name] = d
    return out


def copy(bundles, name: str, dest: Path) -> Path:
    return Path(shutil.copytree(bundles[name] / "b", dest))


# -- #11.6: VALID means the kernel checked the verdict's claim -----------------------------------

def test_made_up_execution_conflict_is_not_certified(bundles, tmp_path):
    """#11.6: a consistent task's bundle rewritten to 'conflict (evidence: execution)': exit 2, NOT
    CERTIFIED, never VALID."""
    b = copy(bundles, "clean", tmp_path / "b")
    (b / "cert.lean").unlink()
    edit_json(b / "manifest.json", lambda m: m.update(verdict="conflict", evidence="execution", claims=[]))

    def res(r):
        r.update(verdict="conflict", evidence="execution", reason="conflict (execution evidence): trust me")
        r["certificate"].update(claims=[], accepted=False)
        r["tests"] = [dict(t, certified=False) for t in r["tests"]]
    edit_json(b / "result.json", res)
    edit_json(b / "manifest.json", lambda m: m["outputs"].pop("cert.lean"))
    rehash(b)
    rc, rep, _ = verify(b)
    assert rc == 2 and rep["status"] == "not-certified" and not rep["valid"]
    assert rep["reason"] == "the bundle claims a conflict with evidence execution; nothing for the kernel to check"
    p = cli("verify", b)
    assert p.returncode == 2 and p.stdout.startswith("NOT CERTIFIED: the bundle claims a conflict with evidence "
                                                     "execution; nothing for the kernel to check")
    # and with model-judgment evidence
    edit_json(b / "manifest.json", lambda m: m.update(evidence="model-judgment"))
    edit_json(b / "result.json", lambda r: r.update(evidence="model-judgment"))
    rehash(b)
    rc, rep, _ = verify(b)
    assert rc == 2 and "with evidence model-judgment; nothing for the kernel to check" in rep["reason"]


def test_inconclusive_with_secondary_claims_is_not_certified(bundles):
    """#11.6: an inconclusive verdict states no claim, even when the kernel accepted its per-test
    and witness claims: exit 2, and the report names what the kernel did accept."""
    rc, rep, _ = verify(bundles["open"] / "b")
    assert rc == 2 and rep["status"] == "not-certified", rep["reason"]
    assert rep["reason"].startswith("the bundle's verdict is inconclusive (evidence none); nothing for the kernel")
    if rep["claims"]:
        assert "the kernel accepted its certificate for" in rep["reason"]


def test_certified_no_conflict_needs_every_test_entailed(bundles, tmp_path):
    """#11.6: 'no-conflict, certified' resting on Consistent alone (Entailed_T dropped) is invalid."""
    b = copy(bundles, "clean", tmp_path / "b")
    edit_json(b / "manifest.json", lambda m: m.update(claims=["Consistent"]))
    edit_json(b / "result.json", lambda r: (r["certificate"].update(claims=["Consistent"]),
                                            r.update(tests=[dict(t, certified=False) for t in r["tests"]])))
    rehash(b)
    rc, rep, _ = verify(b)
    assert rc == 1 and "needs every test entailed" in rep["reason"], rep["reason"]


def test_verify_help_documents_the_exit_codes():
    """#11.6: `verify --help` lists every exit code."""
    out = cli("verify", "--help").stdout
    for s in ("0 VALID", "1 INVALID", "2 NOT CERTIFIED", "3 error", "4 INPUTS INCOMPLETE"):
        assert s in " ".join(out.split()), (s, out)


# -- #11.5: every field of result.json is checked, re-derived or labelled unchecked ---------------

def test_rewritten_explanation_is_labelled_unchecked(bundles, tmp_path):
    """#11.5: without --inputs the producer's text is shown as UNCHECKED (output and --json), and
    verify states its own assumptions whatever result.json says."""
    b = copy(bundles, "conflict", tmp_path / "b")
    edit_json(b / "result.json", lambda r: r.update(reason="harmless: the tests are fine", assumptions=[]))
    rehash(b)
    rc, rep, _ = verify(b)
    assert rc == 0, rep["reason"]
    fields = {f["field"]: f for f in rep["result_fields"]}
    assert fields["reason"]["status"] == "unchecked" and fields["reason"]["detail"] == "harmless: the tests are fine"
    assert fields["task_id, verdict, evidence"]["status"] == "checked"
    assert any("custom __eq__" in a for a in rep["assumptions"])
    out = cli("verify", b).stdout
    assert "[UNCHECKED] reason: harmless: the tests are fine" in out


def test_rewritten_certified_status_is_invalid(bundles, tmp_path):
    """#11.5: a per-test status marked certified must be the kernel's claim for that test."""
    b = copy(bundles, "conflict", tmp_path / "b")
    edit_json(b / "result.json", lambda r: r["tests"][0].update(status="entailed"))
    rehash(b)
    rc, rep, _ = verify(b)
    assert rc == 1 and "the certificate does not prove Entailed_T1" in rep["reason"], rep["reason"]
    b = copy(bundles, "conflict", tmp_path / "c")
    edit_json(b / "result.json", lambda r: r["tests"][0].update(certified=False, status="left-open"))
    rehash(b)
    rc, rep, _ = verify(b)
    assert rc == 1 and "the certificate proves Contradicted_T1, but result.json reports test T1's status as " \
                       "'left-open'" in rep["reason"], rep["reason"]
    b = copy(bundles, "conflict", tmp_path / "d")
    edit_json(b / "result.json", lambda r: r.update(surprise="field"))
    rehash(b)
    rc, rep, _ = verify(b)
    assert rc == 1 and "result.json is not a SpecGuard result" in rep["reason"], rep["reason"]


# -- #11.21: deeply nested or oversized JSON --------------------------------------------------------

def test_deeply_nested_json_is_a_clean_rejection(bundles, tmp_path):
    """#11.21: manifest.json or result.json nested 100 000 deep: INVALID with the reason, no traceback."""
    deep = "[" * 100_000 + "]" * 100_000
    b = copy(bundles, "conflict", tmp_path / "m")
    (b / "manifest.json").write_text(deep)
    rc, rep, err = verify(b)
    assert rc == 1 and "manifest.json nests JSON more than 64 levels deep" in rep["reason"], rep["reason"]
    b = copy(bundles, "conflict", tmp_path / "r")
    (b / "result.json").write_text('{"a": ' + deep + "}")
    rehash(b)
    rc, rep, err = verify(b)
    assert rc == 1 and "result.json nests JSON more than 64 levels deep" in rep["reason"], rep["reason"]
    # strings holding brackets are not nesting
    from specguard.outputs.results import json_problem, load_json
    assert json_problem('{"a": "' + "[" * 1000 + '"}', "x") is None
    with pytest.raises(ValueError, match="nests JSON"):
        load_json(deep, "x")


def test_deeply_nested_export_meta_line(bundles, tmp_path):
    """#11.21: an exported file whose meta line nests deeply: INVALID, no traceback."""
    f = tmp_path / "x.lean"
    assert cli("export", bundles["conflict"] / "b", "-o", f).returncode == 0
    lines = f.read_text().split("\n")
    i = next(k for k, ln in enumerate(lines) if ln.startswith("-- specguard: meta "))
    lines[i] = "-- specguard: meta " + "[" * 50_000 + "]" * 50_000
    f.write_text("\n".join(lines))
    rc, rep, _ = verify(f)
    assert rc == 1 and "nests JSON more than 64 levels deep" in rep["reason"], rep["reason"]


# -- #11.9: the exported file says what plain Lean checks; the claim hash -------------------------

def test_tampered_export_passes_plain_lean_but_not_verify(bundles, tmp_path):
    """#11.9: `Consistent := True` with a trivial proof: plain `lean FILE` accepts it (the header
    says so), `specguard verify` rejects it, and a published claim hash pins the statement."""
    f = tmp_path / "clean.lean"
    assert cli("export", bundles["clean"] / "b", "-o", f).returncode == 0
    text = f.read_text()
    head = text[:text.index("-- specguard: core begin")]
    assert "AS WRITTEN IN THIS FILE" in head and "does not check that these statements" in head
    assert "claim hash" in head and "--claim-hash" in head
    rc, rep, _ = verify(f)
    assert rc == 0 and rep["claim_hash"], rep["reason"]
    good_hash = rep["claim_hash"]
    assert verify(f, "--claim-hash", good_hash)[0] == 0
    # the tamper: the claim becomes True, its proof True.intro
    start = text.index("\ndef Consistent : Prop := Exists") + 1
    text = text[:start] + "def Consistent : Prop := True" + text[text.index("\n", start):]
    start = text.index("theorem proof_Consistent : Consistent :=")
    end = text.index("\n\n", start)
    text = text[:start] + "theorem proof_Consistent : Consistent := True.intro" + text[end:]
    bad = tmp_path / "tampered.lean"
    bad.write_text(text)
    res = lean_runner.run_lean([str(bad)], lean_path=(), cwd=tmp_path, timeout=120)
    assert res.ok, res.errors[:3]                                  # plain Lean is satisfied ...
    assert "'final_Consistent' does not depend on any axioms" in " ".join(m.text for m in res.messages)
    rc, rep, _ = verify(bad)                                       # ... verify is not
    assert rc == 1 and "claim.lean is not SpecGuard's standard statement" in rep["reason"], rep["reason"]
    # a bundle checked against a published claim hash it does not have
    rc, rep, _ = verify(bundles["conflict"] / "b", "--claim-hash", good_hash)
    assert rc == 1 and "not the --claim-hash" in rep["reason"], rep["reason"]


def test_export_meta_claim_hash_must_match_the_statements(bundles, tmp_path):
    """#11.9: the claim hash on the meta line is compared with the file's statements."""
    f = tmp_path / "x.lean"
    assert cli("export", bundles["conflict"] / "b", "-o", f).returncode == 0
    lines = f.read_text().split("\n")
    i = next(k for k, ln in enumerate(lines) if ln.startswith("-- specguard: meta "))
    meta = json.loads(lines[i][len("-- specguard: meta "):])
    meta["claim_hash"] = "0" * 64
    lines[i] = "-- specguard: meta " + json.dumps(meta, ensure_ascii=True)
    f.write_text("\n".join(lines))
    rc, rep, _ = verify(f)
    assert rc == 1 and "is not the sha256 of the file's statements" in rep["reason"], rep["reason"]


# -- strict JSON: what verify reads is what every reader of the file reads ----------------------

@pytest.mark.parametrize("edit, why", [
    # a repeated key: Python keeps the last value, other readers (and eyes) the first
    (lambda t: t.replace('"verdict": "conflict"', '"verdict": "no-conflict", "verdict": "conflict"', 1),
     "the key 'verdict' is repeated"),
    (lambda t: t.replace('"seconds": ', '"seconds": NaN, "_": ', 1), "NaN is not a JSON number"),
    (lambda t: t.replace('"seconds": ', '"seconds": 1e999, "_": ', 1), "overflows a float"),
    # a lone surrogate is valid JSON but not text: printing the report crashed with a traceback
    (lambda t: t.replace('"reason": "', '"reason": "\\ud800 ', 1), "lone surrogate"),
])
def test_result_json_must_be_unambiguous_text(bundles, tmp_path, edit, why):
    """#11.5/#11.21: result.json with a repeated key, NaN/Infinity or a lone surrogate (re-hashed in the
    manifest): INVALID with the reason (the surrogate was a UnicodeEncodeError traceback), in the text
    report too."""
    b = copy(bundles, "conflict", tmp_path / "b")
    text = (b / "result.json").read_text()
    (b / "result.json").write_text(edit(text.replace('"seconds": ', '"seconds": ', 1)))
    assert (b / "result.json").read_text() != text
    rehash(b)
    rc, rep, err = verify(b)
    assert rc == 1 and why in rep["reason"], rep["reason"]
    p = cli("verify", b)
    assert p.returncode == 1 and "Traceback" not in p.stderr and why in p.stdout, p.stdout + p.stderr
