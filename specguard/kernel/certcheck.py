"""The certificate checker: the trust boundary every verdict goes through.

Inputs: Lean modules that *SpecGuard generated* (``Spec``, ``Tests``, ``Claim``:
trusted, they state what is claimed) and a certificate (``Cert``: untrusted
text, from SpecGuard's prover or from anybody).  A certificate is accepted only
when all of these hold:

1. it is valid UTF-8, at most :data:`MAX_CERT_BYTES`, starts with the fixed
   :data:`CERT_HEADER`, and contains no banned token anywhere in its text,
   comments included (:data:`BANNED`);
2. the trusted modules and the certificate are each compiled on their own:
   exit 0, no ``error`` message, olean written;
3. a final file, generated here, imports them, restates every claim as
   ``theorem final_X : SGTask.X := SGTask.proof_X`` followed by
   ``#print axioms final_X``; accepted only on exit 0, no error, and for every
   claim exactly the message that it depends on no axioms;
4. ``LEAN_PATH`` holds only the core library and this check's own folder,
   options come only from this module's command line, and every Lean process
   runs under a time and memory limit (see :mod:`specguard.kernel.runner`).
"""

from __future__ import annotations

import re
import tempfile
import time
from pathlib import Path
from typing import NamedTuple, Sequence

from pydantic import BaseModel, ConfigDict, Field

from specguard.kernel import runner as lean_runner
from specguard.errors import LeanCrash, LeanTimeout, SpecGuardError

MAX_CERT_BYTES = 4 * 1024 * 1024
# Options for every Lean run of a check (only from here, never from the files): deep
# recursion for large literal values and for evaluating compiled specs (the elaborator recurses
# once per loop iteration), no heartbeat limit (long evaluations; the OS time and memory limits of
# every run still apply, and speclang.DEFAULT_KERNEL_BUDGET keeps evaluations to a few seconds),
# and no linters (their output is not needed).
LEAN_OPTIONS = ("-DmaxRecDepth=400000", "-DmaxHeartbeats=0", "-Dlinter.all=false")
NAMESPACE = "SGTask"
TRUSTED_MODULES = ("Spec", "Tests", "Claim")

CERT_HEADER = (
    "prelude\n"
    "import SpecGuard.Core\n"
    "import SpecGuard.Value\n"
    "import SpecGuard.Py\n"
    f"import {NAMESPACE}.Claim\n"
    "noncomputable section\n"
    f"namespace {NAMESPACE}\n"
)

# Substrings rejected anywhere in a certificate's text (comments and strings included): the first
# layer of the scan; :func:`lean_tokens` and :data:`BANNED_WORDS` are the second.
BANNED = (
    "set_option", "skipKernelTC", "unsafe", "axiom", "sorry", "opaque", "partial",
    "implemented_by", "extern", "init_quot", "#exit", "#eval", "#reduce", "run_cmd", "run_elab",
    "run_meta", "elab", "macro", "syntax", "notation", "infix", "prefix", "postfix", "attribute",
    "@[", "Lean.", "native", "#guard", "import", "initialize", "instance", "class ", "deriving",
    "export", "«", "»", "declare_", "builtin", "#print", "omit", "include", "universe",
)


# Words rejected as a token, or as a part of a dotted name, anywhere in a certificate: Lean's
# commands and modifiers that could change how the file is read (options, syntax extensions,
# attributes, instances, axioms, code generation), the meta-level namespaces, and the holes.
# Inside strings and comments the same words are rejected too (a scan that agrees with Lean on where
# a string or comment ends cannot be fooled, one that does not cannot hide a word either).
BANNED_WORDS = frozenset(
    "set_option skipKernelTC unsafe axiom axioms sorry sorryAx opaque partial implemented_by extern init_quot "
    "elab elab_rules macro macro_rules syntax notation infix infixl infixr prefix postfix attribute native_decide "
    "import initialize builtin_initialize instance class deriving export omit include universe variable mutual "
    "local scoped run_cmd run_elab run_meta run_tac declare_syntax_cat register_option Lean Elab Meta Tactic "
    "structure inductive termination_by decreasing_by reducible irreducible csimp simp binder_predicate "
    "add_decl_doc register_builtin_option register_simp_attr seal unseal compile_inductive".split())
# the non-ASCII symbols a certificate may use outside strings and comments (Lean's own notation)
ALLOWED_SYMBOLS = frozenset("→←↔∀∃λ⟨⟩×¬∧∨≠≤≥∘·∈∉")


def _letter_like(c: str) -> bool:
    """Lean 4's ``isLetterLike``: the non-ASCII characters that may be part of an identifier."""
    o = ord(c)
    return ((0x3B1 <= o <= 0x3C9 and o != 0x3BB) or (0x391 <= o <= 0x3A9 and o not in (0x3A0, 0x3A3))
            or 0x3CA <= o <= 0x3FB or 0x1F00 <= o <= 0x1FFE or 0x2100 <= o <= 0x214F or 0x1D49C <= o <= 0x1D59F)


def _id_first(c: str) -> bool:
    return (c.isascii() and c.isalpha()) or c == "_" or _letter_like(c)


def _id_rest(c: str) -> bool:
    o = ord(c)
    return (_id_first(c) or (c.isascii() and c.isdigit()) or c in "'!?" or 0x2080 <= o <= 0x2089
            or 0x2090 <= o <= 0x209C or 0x1D62 <= o <= 0x1D6A)


class LeanToken(NamedTuple):
    kind: str          # ident, command (#word), string, char, number, comment, symbol
    text: str
    line: int


class LexError(ValueError):
    def __init__(self, reason: str, line: int) -> None:
        super().__init__(reason)
        self.reason, self.line = reason, line


def lean_tokens(text: str, first_line: int = 1) -> list[LeanToken]:
    """Lean 4's tokens of ``text`` (whitespace dropped), by Lean's own lexical rules: identifiers
    (dotted, ``'``/``!``/``?`` inside, Lean's letter-like Unicode), ``#`` commands, string and
    character literals (an escape takes the next character), numbers, ``--`` line comments and
    nested ``/- -/`` block comments.  Raises :class:`LexError` on text Lean would not read the
    same way, or that a certificate never needs: a tab, a control or other non-ASCII character
    outside strings and comments, an unterminated string or comment, a raw string, ``«»``."""
    out: list[LeanToken] = []
    i, n, line = 0, len(text), first_line

    def emit(kind: str, j: int) -> None:
        nonlocal i, line
        out.append(LeanToken(kind, text[i:j], line))
        line += text.count("\n", i, j)
        i = j

    while i < n:
        c = text[i]
        two = text[i:i + 2]
        if c in " \n\r":
            line += c == "\n"
            i += 1
        elif c == "\t":
            raise LexError("a tab character (Lean rejects tabs)", line)
        elif two == "--":
            j = text.find("\n", i)
            emit("comment", n if j < 0 else j)
        elif two == "/-":
            j, depth = i + 2, 1
            while depth:
                if j >= n:
                    raise LexError("an unterminated block comment", line)
                if text.startswith("-/", j):
                    depth, j = depth - 1, j + 2
                elif text.startswith("/-", j):
                    depth, j = depth + 1, j + 2
                else:
                    j += 1
            emit("comment", j)
        elif c == '"':
            j = i + 1
            while True:
                if j >= n:
                    raise LexError("an unterminated string", line)
                if text[j] == "\\":
                    j += 2
                elif text[j] == '"':
                    break
                else:
                    j += 1
            emit("string", j + 1)
        elif c == "'":
            j = i + 2
            if text[i + 1:i + 2] == "\\":             # '\n', '\'', '\x41', '\u0041'
                j = i + 3
                while j < n and j < i + 9 and text[j] != "'":
                    j += 1
            if j >= n or text[j] != "'" or text[i + 1:i + 2] in ("", "\n", "'"):
                raise LexError("a quote that does not start a character literal", line)
            emit("char", j + 1)
        elif c == "«" or c == "»":
            raise LexError(f"the character {c!r} (escaped identifiers)", line)
        elif _id_first(c):
            j = i + 1
            while True:
                while j < n and _id_rest(text[j]):
                    j += 1
                if j + 1 < n and text[j] == "." and _id_first(text[j + 1]):
                    j += 1
                    continue
                break
            if text[i:j] == "r" and j < n and text[j] in '"#':
                raise LexError("a raw string literal", line)
            emit("ident", j)
        elif c.isascii() and c.isdigit():
            j = i + 1
            while j < n and text[j].isascii() and (text[j].isalnum() or text[j] == "_"):
                j += 1
            emit("number", j)
        elif c == "#" and i + 1 < n and _id_first(text[i + 1]):
            j = i + 2
            while j < n and _id_rest(text[j]):
                j += 1
            emit("command", j)
        elif two == "@[":
            emit("symbol", i + 2)
        elif (c.isascii() and c.isprintable()) or c in ALLOWED_SYMBOLS:
            emit("symbol", i + 1)
        else:
            raise LexError(f"the character U+{ord(c):04X} {c!r} outside strings and comments", line)
    return out


_WORD = re.compile(r"[A-Za-z_][A-Za-z0-9_'!?]*")


def token_problem(text: str, first_line: int = 1) -> str | None:
    """The second layer of the scan: why ``text`` holds a banned token, or None."""
    try:
        toks = lean_tokens(text, first_line)
    except LexError as e:
        return f"{e.reason} at line {e.line}"
    for t in toks:
        if t.kind == "command":
            return f"banned token {t.text!r} at line {t.line} (a # command)"
        if t.kind == "symbol" and t.text in ("@[", "`"):
            return f"banned token {t.text!r} at line {t.line}"
        if t.kind == "ident":
            parts = t.text.split(".")
            bad = next((p for p in parts if p in BANNED_WORDS or p.endswith("!")), None)
            if bad is not None:
                return f"banned token {bad!r} at line {t.line}"
        if t.kind in ("string", "comment", "char"):
            for k, ln in enumerate(t.text.split("\n")):
                bad = next((w for w in _WORD.findall(ln) if w in BANNED_WORDS), None)
                if bad is not None:
                    return f"banned token {bad!r} at line {t.line + k} (inside a {t.kind})"
    return None


class _Frozen(BaseModel):
    model_config = ConfigDict(frozen=True, extra="forbid")


class CertVerdict(_Frozen):
    """The checker's answer.  ``accepted`` is True only if every claim was proven."""

    accepted: bool
    reason: str = Field(description="why it was rejected, or 'accepted'")
    claims: tuple[str, ...] = ()
    seconds: float = 0.0
    lean_runs: int = 0


def scan_certificate(raw: bytes) -> str | None:
    """Static checks on the certificate's bytes; the rejection reason, or None if it passes."""
    if len(raw) > MAX_CERT_BYTES:
        return f"certificate is {len(raw)} bytes, more than the limit of {MAX_CERT_BYTES}"
    try:
        text = raw.decode("utf-8")
    except UnicodeDecodeError as e:
        return f"certificate is not valid UTF-8 (byte {e.start})"
    if not text.startswith(CERT_HEADER):
        return "certificate does not start with the fixed header:\n" + CERT_HEADER
    if "\x00" in text:
        return "certificate contains a NUL character"
    for tok in BANNED:
        # the header's own imports are allowed; any other import is not
        i = text.find(tok, len(CERT_HEADER) if tok == "import" else 0)
        if i >= 0:
            line = text.count("\n", 0, i) + 1
            return f"banned token {tok!r} at line {line}"
    return token_problem(text[len(CERT_HEADER):], CERT_HEADER.count("\n") + 1)


_HEADER_LINE = re.compile(rf"^(prelude|import SpecGuard\.\w+|import {NAMESPACE}\.(Spec|Tests)|"
                          rf"noncomputable section|namespace {NAMESPACE}|)$")


def merge_trusted(trusted: dict[str, str]) -> str:
    """The trusted modules (``Spec``, ``Tests``, ``Claim``) as one module ``SGTask.Claim``.

    They are written as three files for people to read; compiling them as one saves two Lean
    runs.  Each must be in SpecGuard's generated layout: a header of ``prelude``/``import``
    lines, ``open SpecGuard``, the body, ``end SGTask``."""
    imports: list[str] = []
    body: list[str] = []
    for name in TRUSTED_MODULES:
        lines = trusted[name].split("\n")
        try:
            i = lines.index("open SpecGuard")
            j = len(lines) - 1 - lines[::-1].index(f"end {NAMESPACE}")
        except ValueError:
            raise SpecGuardError(f"{name}.lean is not in SpecGuard's generated layout",
                                 hint="regenerate the bundle with `specguard check`") from None
        for h in lines[:i]:
            if not _HEADER_LINE.match(h):
                raise SpecGuardError(f"{name}.lean has an unexpected header line: {h[:80]!r}",
                                     hint="regenerate the bundle with `specguard check`")
            if h.startswith("import SpecGuard.") and h not in imports:
                imports.append(h)
        if any(x.strip() for x in lines[j + 1:]):
            raise SpecGuardError(f"{name}.lean has text after `end {NAMESPACE}`",
                                 hint="regenerate the bundle with `specguard check`")
        body += lines[i + 1:j]
    return "\n".join(["prelude", *imports, "noncomputable section", f"namespace {NAMESPACE}", "open SpecGuard",
                      *body, f"end {NAMESPACE}"]) + "\n"


def _final_text(claims: Sequence[str]) -> str:
    lines = ["prelude", "import SpecGuard.Core", "import SpecGuard.Value", "import SpecGuard.Py",
             f"import {NAMESPACE}.Claim", f"import {NAMESPACE}.Cert"]
    for c in claims:
        lines.append(f"theorem final_{c} : {NAMESPACE}.{c} := {NAMESPACE}.proof_{c}")
        lines.append(f"#print axioms final_{c}")
    return "\n".join(lines) + "\n"


_CLAIM_NAME = re.compile(r"^[A-Za-z][A-Za-z0-9_]*$")


def check_certificate(trusted: dict[str, str], cert: bytes | str, claims: Sequence[str], *,
                      timeout: float = 60.0, memory_mb: int = lean_runner.DEFAULT_MEMORY_MB,
                      runtime: lean_runner.Runtime | None = None) -> CertVerdict:
    """Check that ``cert`` proves every claim in ``claims`` (names declared in ``trusted['Claim']``).

    ``trusted`` maps module names ``Spec``, ``Tests``, ``Claim`` to Lean text that
    SpecGuard generated.  Rejections are results; a missing runtime or a crash of
    Lean on the *trusted* files raises."""
    start = time.monotonic()
    raw = cert.encode("utf-8") if isinstance(cert, str) else cert
    runs = 0

    def verdict(ok: bool, reason: str) -> CertVerdict:
        return CertVerdict(accepted=ok, reason=reason, claims=tuple(claims),
                           seconds=time.monotonic() - start, lean_runs=runs)

    if not claims:
        return verdict(False, "no claim to check")
    bad = [c for c in claims if not _CLAIM_NAME.match(c)]
    if bad:
        return verdict(False, f"invalid claim name {bad[0]!r}")
    reason = scan_certificate(raw)
    if reason:
        return verdict(False, reason)
    core = Path(lean_runner.ensure_core(runtime).lib_dir)
    with tempfile.TemporaryDirectory(prefix="specguard-cert-") as tmp:
        root = Path(tmp)
        pkg = root / NAMESPACE
        pkg.mkdir()
        paths = [core, root]

        def compile_module(name: str, text: str) -> lean_runner.CheckResult:
            nonlocal runs
            src = pkg / f"{name}.lean"
            src.write_text(text, encoding="utf-8")
            runs += 1
            return lean_runner.run_lean([*LEAN_OPTIONS, "-R", str(root), "-o", str(pkg / f"{name}.olean"), str(src)],
                                        lean_path=paths, cwd=root, timeout=timeout, memory_mb=memory_mb,
                                        runtime=runtime)

        res = compile_module("Claim", merge_trusted(trusted))
        if not res.ok:
            detail = "; ".join(str(m) for m in res.errors[:3]) or res.stderr[-300:]
            raise SpecGuardError(
                f"SpecGuard's generated spec/tests/claim modules do not compile: {detail}",
                hint="this is a SpecGuard bug; please report it with the task")
        try:
            res = compile_module("Cert", raw.decode("utf-8"))
        except LeanTimeout as e:
            return verdict(False, f"certificate exceeded the time limit: {e.message}")
        except LeanCrash as e:
            return verdict(False, f"certificate crashed Lean: {e.message}")
        if not res.ok:
            first = res.errors[0] if res.errors else None
            return verdict(False, f"certificate does not compile: {first or ('exit ' + str(res.exit_code))}")
        if not (pkg / "Cert.olean").is_file():
            return verdict(False, "certificate compiled but wrote no olean")
        try:
            runs += 1
            fin = lean_runner.check_text(_final_text(claims), module="Final", lean_path=paths, options=LEAN_OPTIONS,
                                         timeout=timeout, memory_mb=memory_mb, runtime=runtime)
        except LeanTimeout as e:
            return verdict(False, f"final check exceeded the time limit: {e.message}")
        except LeanCrash as e:
            return verdict(False, f"final check crashed Lean: {e.message}")
        if not fin.ok:
            first = fin.errors[0] if fin.errors else None
            return verdict(False, f"certificate does not prove the claims: {first or ('exit ' + str(fin.exit_code))}")
        for c in claims:
            ax = fin.axioms.get(f"final_{c}", "missing")
            if ax == "missing":
                return verdict(False, f"no axiom report for claim {c}")
            if ax:
                return verdict(False, f"proof of {c} depends on axioms: {', '.join(ax)}")
        expected = {f"'final_{c}' does not depend on any axioms" for c in claims}
        extra = [m for m in fin.messages if m.text.strip() not in expected]
        if extra:
            return verdict(False, f"unexpected message in the final check: {extra[0]}")
    return verdict(True, "accepted")
