"""The certificate checker against the real Lean kernel: valid certificates are accepted,
every known way to cheat is rejected with a specific reason."""

import pytest

from specguard.kernel import certcheck
from specguard.kernel.certcheck import CERT_HEADER, check_certificate
from specguard.cli import _DOCTOR_CERT as VALID, _DOCTOR_TRUSTED as TRUSTED

pytestmark = pytest.mark.lean

PROOF = ("theorem proof_Conflict : Conflict :=\n  fun h => match h with\n"
         "  | Exists.intro impl hh => outcome_ne (same_outcome (And.left hh) (And.right hh)) "
         "(Eq.refl Bool.false)\n")


def cert(body: str) -> str:
    return CERT_HEADER + "open SpecGuard\n" + body + "\nend SGTask\n"


def test_valid_certificate_accepted(core):
    v = check_certificate(TRUSTED, VALID, ["Conflict"])
    assert v.accepted, v.reason
    assert v.lean_runs == 3


ADVERSARIAL = {
    "wrong proof": (cert(PROOF.replace("(Eq.refl Bool.false)", "(Eq.refl Bool.true)")), "does not compile"),
    "proof of another claim": (cert("theorem proof_Conflict : True := True.intro\n"), "does not prove"),
    "missing proof": (cert("theorem other : True := True.intro\n"), "does not prove"),
    "axiom": (cert("axiom cheat : False\ntheorem proof_Conflict : Conflict := False.elim cheat\n"), "banned token 'axiom'"),
    "sorry": (cert("theorem proof_Conflict : Conflict := sorry\n"), "banned token 'sorry'"),
    "skipKernelTC": (cert("set_option debug.skipKernelTC true in\ntheorem proof_Conflict : Conflict := fun h => h\n"),
                     "banned token 'set_option'"),
    "#exit": (cert(PROOF + "#exit\n"), "banned token '#exit'"),
    "numeral instance": (cert("instance (priority := high) : OfNat Nat 5 := ⟨4⟩\n" + PROOF), "banned token 'instance'"),
    "redefine core name": (cert("def _root_.Not (a : Prop) : Prop := True\n" + PROOF), "does not compile"),
    "shadowed Not cannot weaken the claim": (cert("def Not (a : Prop) : Prop := True\n"
                                                  "theorem proof_Conflict : Conflict := True.intro\n"), "does not compile"),
    "redefine claim name": (cert("def Conflict : Prop := True\ntheorem proof_Conflict : Conflict := True.intro\n"),
                            "does not compile"),
    "unsafe": (cert("unsafe def x : Nat := 0\n" + PROOF), "banned token 'unsafe'"),
    "implemented_by": (cert("@[implemented_by id] def y : Nat := 0\n" + PROOF), "banned token 'implemented_by'"),
    "extra import": (cert("import SGTask.Spec\n" + PROOF), "banned token 'import'"),
    "import smuggled into the header": (CERT_HEADER.replace("noncomputable section\n", "import SGTask.Spec\nnoncomputable section\n")
                                        + PROOF + "end SGTask\n", "fixed header"),
    "other set_option": (cert("set_option maxRecDepth 100000\n" + PROOF), "banned token 'set_option'"),
    "invalid utf-8": (CERT_HEADER.encode() + b"\xff\xfe" + PROOF.encode(), "not valid UTF-8"),
    "10 MB file": (cert(PROOF + "-- " + "x" * (10 * 1024 * 1024) + "\n"), "more than the limit"),
    "banned token in a comment": (cert("-- sorry, this uses no axiom\n" + PROOF), "banned token"),
    "wrong header": ("prelude\nimport SpecGuard.Core\n" + PROOF, "fixed header"),
    "opaque": (cert("opaque o : Nat\n" + PROOF), "banned token 'opaque'"),
    "partial def": (cert("partial def loop (n : Nat) : Nat := loop n\n" + PROOF), "banned token 'partial'"),
    "macro": (cert("macro \"cheat\" : term => `(True.intro)\n" + PROOF), "banned token 'macro'"),
    "attribute": (cert("attribute [simp] Eq.refl\n" + PROOF), "banned token 'attribute'"),
    "eval": (cert("#eval 1\n" + PROOF), "banned token '#eval'"),
    "run_cmd": (cert("run_cmd pure ()\n" + PROOF), "banned token 'run_cmd'"),
    "Lean namespace": (cert("def z := Lean.Name.anonymous\n" + PROOF), "banned token 'Lean.'"),
    "guillemet identifier": (cert("def «sorry» : Nat := 0\n" + PROOF), "banned token"),
    "NUL byte": (cert(PROOF + "\x00"), "NUL"),
    "print axioms spoof": (cert(PROOF + "#print axioms proof_Conflict\n"), "banned token"),
    "syntax error": (cert("theorem proof_Conflict : Conflict := fun h =>\n"), "does not compile"),
    "time bomb": (cert("def big : Nat := Nat.pow 2 100000000\ntheorem t : Eq (Nat.beq big 0) Bool.false := "
                       "Eq.refl Bool.false\n" + PROOF), "time limit|does not compile|crashed"),
}


@pytest.mark.parametrize("name", sorted(ADVERSARIAL))
def test_adversarial_certificate_rejected(core, name):
    text, reason = ADVERSARIAL[name]
    v = check_certificate(TRUSTED, text, ["Conflict"], timeout=20)
    assert not v.accepted
    import re
    assert re.search(reason, v.reason), v.reason


def test_invalid_claim_names_rejected(core):
    assert not check_certificate(TRUSTED, VALID, []).accepted
    v = check_certificate(TRUSTED, VALID, ["Conflict; axiom"])
    assert not v.accepted and "invalid claim name" in v.reason


def test_scan_is_static():
    assert certcheck.scan_certificate(VALID.encode()) is None
    assert "banned" in certcheck.scan_certificate((VALID + "-- axiom\n").encode())
