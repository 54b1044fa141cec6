"""Trust layer: the certificate text (issue 11, item 22).

The certificate scan has two layers: banned substrings, then Lean tokens
(:func:`specguard.kernel.certcheck.lean_tokens`): a banned word is rejected as a token or a part of a
dotted name wherever it stands (after a newline, a tab, a comment, inside a string), and text Lean
would read differently from the scanner (tabs, stray Unicode, raw strings) is rejected outright.
What passes the scan still goes through the real kernel."""

from __future__ import annotations

import pytest

from specguard.kernel import certcheck
from specguard.kernel.certcheck import CERT_HEADER, check_certificate, lean_tokens, scan_certificate
from specguard.cli import _DOCTOR_CERT as VALID, _DOCTOR_TRUSTED as TRUSTED

PROOF = ("theorem proof_Conflict : Conflict :=\n  fun h => match h with\n"
         "  | Exists.intro impl hh => outcome_ne (same_outcome (And.left hh) (And.right hh)) "
         "(Eq.refl Bool.false)\n")


def cert(body: str) -> str:
    return CERT_HEADER + "open SpecGuard\n" + body + "\nend SGTask\n"


# every way of writing `class` that the old `"class "` substring missed
CLASS_VARIANTS = {
    "newline": "class\nCheat where\n  x : Nat\n",
    "tab": "class\tCheat where\n  x : Nat\n",
    "comment right after": "class/- -/Cheat where\n  x : Nat\n",
    "line comment after": "class--\nCheat where\n  x : Nat\n",
    "end of file": "class",
    "carriage return": "class\rCheat where\n  x : Nat\n",
}


@pytest.mark.parametrize("name", sorted(CLASS_VARIANTS))
def test_class_keyword_is_banned_however_it_is_followed(name):
    """#11.22: `class` followed by a newline, tab, comment or nothing is a banned token."""
    why = scan_certificate(cert(CLASS_VARIANTS[name] + "\n" + PROOF).encode())
    assert why is not None and ("'class'" in why or "tab" in why), why


@pytest.mark.parametrize("body, banned", [
    ("def x : Nat := 0\n-- see instance\n", "instance"),                  # inside a comment
    ("/- nested /- comment -/ still class -/\n", "class"),                # nested comments
    ('def s := "a class"\n', "class"),                                    # inside a string
    ("def y := Foo.class.bar\n", "class"),                                # part of a dotted name
    ("def z := x.deriving\n", "deriving"),
    ("structure\nP where\n  a : Nat\n", "structure"),
    ("inductive\nQ where\n  | a\n", "inductive"),
    ('def t := s!"{1}"\n', "s!"),                                         # string interpolation macro
    ("def n := `foo\n", "`"),                                             # name literal / quotation
    ("#check Nat\n", "#check"),                                           # any # command
    ("@[reducible] def w := 0\n", "@["),
])
def test_banned_words_as_tokens(body, banned):
    """#11.22: banned by token, wherever the word stands."""
    why = scan_certificate(cert(body + PROOF).encode())
    assert why is not None and banned in why, why


@pytest.mark.parametrize("body, what", [
    ("theorem\tproof_x : Nat := 0\n", "tab"),
    ("def a := \u0455orry\n", "U+0455"),                                   # Cyrillic s lookalike
    ("def a := \uff53\uff4f\uff52\uff52\uff59\n", "U+FF53"),              # fullwidth letters
    ("def a := so\u200brry\n", "U+200B"),                                 # zero-width space
    ('def r := r"raw"\n', "raw string"),
    ('def r := r#"raw"#\n', "raw string"),
    ("def q := 'ab'\n", "character literal"),
    ("def \u00abs\u00bb := 0\n", "\u00ab"),
    ("/- never closed\n", "unterminated block comment"),
])
def test_text_lean_might_read_otherwise_is_rejected(body, what):
    """#11.22: characters and literals where a scanner and Lean could disagree are rejected."""
    why = scan_certificate(cert(body + PROOF).encode())
    assert why is not None and what in why, why


def test_tokenizer_agrees_with_lean_on_literals_and_comments():
    """#11.22: a quote inside a character literal does not open a string; nesting is counted."""
    toks = lean_tokens("def c := '\"' theorem x /- a /- b -/ c -/ y -- z\n\"s\\\"t\" 'x' '\\n'")
    kinds = [(t.kind, t.text) for t in toks]
    assert ("char", "'\"'") in kinds and ("ident", "theorem") in kinds and ("ident", "y") in kinds
    assert ("comment", "/- a /- b -/ c -/") in kinds and ("comment", "-- z") in kinds
    assert ("string", '"s\\"t"') in kinds and ("char", "'\\n'") in kinds
    assert [t.line for t in toks if t.text == '"s\\"t"'] == [2]


@pytest.mark.lean
def test_what_passes_the_scan_still_meets_the_kernel(core):
    """#11.22: `set_option` split by a comment and `@` split from `[` pass the scan as harmless
    tokens; the real kernel rejects them (they are not the commands); a nested comment before a
    valid proof is read as Lean reads it, and the certificate is accepted."""
    split = cert("set_/- -/option maxRecDepth 10 in\n" + PROOF)
    assert scan_certificate(split.encode()) is None
    v = check_certificate(TRUSTED, split, ["Conflict"], timeout=20)
    assert not v.accepted and "does not compile" in v.reason, v.reason
    at = cert("@/- -/[inline] def w : Nat := 0\n" + PROOF)
    assert scan_certificate(at.encode()) is None
    v = check_certificate(TRUSTED, at, ["Conflict"], timeout=20)
    assert not v.accepted and "does not compile" in v.reason, v.reason
    nested = cert("/- a /- nested -/ comment -/\n" + PROOF)
    v = check_certificate(TRUSTED, nested, ["Conflict"], timeout=20)
    assert v.accepted, v.reason


@pytest.mark.lean
def test_a_banned_token_is_rejected_before_lean_runs(core):
    """#11.22: `class` after a newline never reaches Lean (no run is spent)."""
    v = check_certificate(TRUSTED, cert("class\nCheat where\n  x : Nat\n" + PROOF), ["Conflict"])
    assert not v.accepted and v.lean_runs == 0 and "banned token 'class'" in v.reason


def test_the_provers_certificates_pass_the_scan(shared_lcb):
    """#11.22: the stricter scan rejects nothing SpecGuard's prover writes (LiveCodeBench tasks)."""
    from specguard import check, load
    from specguard.kernel import prove
    path = shared_lcb / "conflicting.json"
    seen = 0
    for tid in load.list_lcb_ids(str(path))[:12]:
        try:
            t = load.load_lcb(str(path), tid, "original")
        except Exception:   # noqa: BLE001 - a task the loader refuses is not this test's business
            continue
        f = check._formal(t, True)
        if f.plan.claims:
            text = prove.render_cert(f.plan, f.spec_clauses)
            assert scan_certificate(text.encode()) is None, (tid, scan_certificate(text.encode()))
            seen += 1
    assert seen >= 3
    assert scan_certificate(VALID.encode()) is None
    assert "class" in certcheck.BANNED_WORDS
