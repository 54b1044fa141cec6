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
   runs under a time and memory limit (see :mod:`specguard.lean_runner`).
"""

from __future__ import annotations

import re
import tempfile
import time
from pathlib import Path
from typing import Sequence

from pydantic import BaseModel, ConfigDict, Field

from . import lean_runner
from .errors import LeanCrash, LeanTimeout, SpecGuardError

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

# Substrings rejected anywhere in a certificate's text (comments included).
BANNED = (
    "set_option", "skipKernelTC", "unsafe", "axiom", "sorry", "opaque", "partial",
    "implemented_by", "extern", "init_quot", "#exit", "#eval", "#reduce", "run_cmd", "run_elab",
    "run_meta", "elab", "macro", "syntax", "notation", "infix", "prefix", "postfix", "attribute",
    "@[", "Lean.", "native", "#guard", "import", "initialize", "instance", "class ", "deriving",
    "export", "«", "»", "declare_", "builtin", "#print", "omit", "include", "universe",
)


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
    return None


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
