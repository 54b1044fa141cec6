"""``specguard verify`` / ``export``: re-check a certificate bundle without trusting its producer.

What can be verified (:func:`verify_bundle` dispatches on the path):

* a **bundle folder** written by ``specguard check`` (format ``specguard-bundle/1``:
  ``result.json``, ``manifest.json``, ``spec.lean``, ``tests.lean``, ``claim.lean`` and, when
  the kernel accepted a certificate, ``cert.lean``);
* a **bundle archive**: one ``.tar.gz`` (``.tgz``) or ``.zip`` file holding exactly those files
  at the archive root (a leading ``./`` is tolerated), nothing else: no folders, links or special
  files, at most :data:`MAX_MEMBERS` members of at most :data:`MAX_FILE_BYTES` each.  Archives
  are never extracted to disk: members are read into memory under these limits
  (:func:`pack_bundle` writes such an archive, reproducibly);
* an **exported Lean file** written by :func:`export_text` (``specguard export -o FILE.lean``):
  one self-contained ``prelude`` file that a stock Lean 4.35.0 checks with ``lean FILE.lean``.

Checks on a bundle, in order, stopping at the first failure (each becomes a
:class:`VerifyCheck` of the :class:`VerifyReport`):

1. ``files``: only the bundle's own names, every required file present, regular files only
   (``lstat``: symlinks are rejected, never followed), each at most 8 MB, valid UTF-8;
2. ``manifest``: ``manifest.json`` is a :class:`~specguard.outputs.results.Manifest` of format
   ``specguard-bundle/1``, lists exactly the other files, and the sha256 of each matches;
   ``result.json`` is a :class:`~specguard.outputs.results.Result` (every field, no other) and agrees with
   it (task, verdict, evidence, certificate).  Every JSON file read is at most
   :data:`~specguard.outputs.results.MAX_JSON_DEPTH` deep and 8 MB;
3. ``runtime``: the manifest's core-theory hash and Lean commit are this SpecGuard's
   (:func:`~specguard.kernel.runner.library_hash`, the running Lean); otherwise the certificate
   speaks about another core theory and cannot be re-checked here;
4. ``claims``: the verdict agrees with the claims (a certified conflict proves ``Conflict``, a
   certified no-conflict proves ``Consistent`` and ``Entailed_T`` for every test clause ``T``;
   certified evidence needs claims and ``cert.lean``), every claim is declared in ``claim.lean``;
5. ``trusted files``: ``spec.lean`` and ``tests.lean`` have exactly the shape SpecGuard's emitter
   writes (the named inputs, then one ``def`` per clause, all built from names, literals, ``fun``
   and ``∀``: no commands, options or other declarations that could bend the kernel check; see
   :func:`module_shape_problem`), and ``claim.lean`` is exactly
   the standard statement of each of its claims (see :func:`claim_statement`);
6. ``inputs`` (when given): each given file matches a manifest input by sha256 and every manifest
   input is matched; the task is rebuilt from them (same loader and roles as ``check``), and the
   formalization is re-derived (:func:`specguard.check.render_trusted`, no Lean) and must equal
   ``spec.lean``, ``tests.lean`` and ``claim.lean`` byte for byte.  A manifest input not given is
   never taken from elsewhere: the status is ``inputs-incomplete`` (exit 4), naming it; the one
   exception is a model-written input kept in the bundle (``model-spec-N.py``,
   ``model-demands.json``) with ``accept_bundled_model_inputs``, and then the verdict line and the
   assumptions name it (:attr:`VerifyReport.model_inputs`).  Without inputs the claim is taken
   from the bundle as is, and the report says so;
7. ``kernel``: :func:`specguard.kernel.certcheck.check_certificate` on the bundle's trusted files and
   certificate (header, banned tokens, separate compilation, final file, no axioms);
8. ``result``: the per-test statuses ``result.json`` marks certified are exactly the kernel's
   per-test claims; with inputs, every field ``check`` derives (verdict, evidence, reason, conflict
   core, per-test statuses, claims, unsupported, notes, assumptions, certificate, ...) is re-derived
   (:func:`specguard.check.check_task`, the kernel's verdict on the bundle's certificate standing in
   for a new proof) and must be equal; :attr:`VerifyReport.result_fields` says, field by field,
   what was checked, re-derived or left unchecked (the producer's text).

The status (:data:`EXIT_CODES`): ``valid`` (0) only when every check passed and the kernel
accepted a certificate for the claim the verdict states; ``invalid`` (1); ``not-certified`` (2):
intact, but the verdict carries no kernel claim (evidence ``execution``, ``model-judgment`` or
``none``); ``inputs-incomplete`` (4).  The statement's claim hash (:func:`claim_hash`) is reported,
and checked against ``claim_hash`` when one is given.

An exported file gets: its prefix must be exactly SpecGuard's current core theory; the rest of the
file must be exactly what :func:`export_text` writes for the sections it holds (so only the
``spec``/``tests``/``claim``/``certificate`` sections between ``-- specguard: X begin/end`` marker
lines can vary); checks 4-7 on those sections (the certificate section goes through the same
banned-token scan and separate compilation as a bundle's ``cert.lean``); the claim hash on its meta
line must be that of its statements; and finally the whole file is compiled on its own with no
import path and every ``final_X`` must depend on no axioms.  Its header says what a plain
``lean FILE`` checks (the proofs against the statements as written in the file) and what only
``verify`` does.

An invalid bundle is a *result* (``VerifyReport.valid`` is False, with the reason); only a path that
is not a bundle at all, or a missing Lean runtime, raises (:class:`~specguard.errors.BundleError`,
:class:`~specguard.errors.LeanRuntimeError`).
"""

from __future__ import annotations

import dataclasses
import hashlib
import io
import json
import os
import re
import stat
import tarfile
import tempfile
import time
import zipfile
from pathlib import Path
from typing import Literal, Sequence

from pydantic import BaseModel, ConfigDict, Field, ValidationError

from specguard.outputs import archive
from specguard.kernel import certcheck, emit, runner as lean_runner
from specguard.errors import BundleError, InvalidBundle, LeanCrash, LeanTimeout, SpecGuardError
from specguard.models import InputFile
from specguard.python import pytestcfg
from specguard.outputs.results import (ASSUMPTIONS, MODEL_FILE_RE, DerivationOptions, Evidence, Manifest,
                                       Result, Verdict, load_json)

BUNDLE_FORMAT = "specguard-bundle/1"
EXPORT_FORMAT = "specguard-export/1"
RESULT = "result.json"
MANIFEST = "manifest.json"
CERT = "cert.lean"
TRUSTED_FILES = {"Spec": "spec.lean", "Tests": "tests.lean", "Claim": "claim.lean"}
BUNDLE_FILES = (RESULT, MANIFEST, "spec.lean", "tests.lean", "claim.lean", CERT)
REQUIRED_FILES = (RESULT, MANIFEST, "spec.lean", "tests.lean", "claim.lean")

MAX_FILE_BYTES = 8 * 1024 * 1024
MAX_MEMBERS = 20
MAX_ARCHIVE_BYTES = MAX_MEMBERS * MAX_FILE_BYTES + 1024 * 1024
MAX_EXPORT_BYTES = 4 * MAX_FILE_BYTES
ARCHIVE_SUFFIXES = (".tar.gz", ".tgz", ".zip")

NS = emit.NS
IMPL = "impl : Val → Outcome"
CLAIM_HEADER = emit.HEADER + f"import {NS}.Spec\nimport {NS}.Tests\n"
CERT_IMPORTS = emit.HEADER + f"import {NS}.Claim\n"
assert certcheck.CERT_HEADER.startswith(CERT_IMPORTS)

ClaimSource = Literal["re-derived from the inputs", "re-derived from the inputs and the bundle's model inputs",
                      "taken from the bundle as is", "no claim"]
VerifyStatus = Literal["valid", "invalid", "not-certified", "inputs-incomplete"]
# `specguard verify`'s exit code for each status (3: usage, not a bundle, no Lean runtime)
EXIT_CODES: dict[str, int] = {"valid": 0, "invalid": 1, "not-certified": 2, "inputs-incomplete": 4}
EXIT_HELP = ("exit codes: 0 VALID (the Lean kernel accepted a certificate for the claim the verdict states: "
             "a certified conflict proves Conflict, a certified no-conflict proves Consistent and Entailed_T for "
             "every test T); "
             "1 INVALID (tampered, malformed, rejected by the kernel, or not what the inputs give); "
             "2 NOT CERTIFIED (the bundle is intact but its verdict carries no kernel claim: evidence "
             "execution, model-judgment or none); "
             "3 error (usage, not a bundle, no Lean runtime); "
             "4 INPUTS INCOMPLETE (--inputs does not hold every input of the bundle, so the claim was not "
             "re-derived)")
_HEADS = {"valid": "VALID", "invalid": "INVALID", "not-certified": "NOT CERTIFIED",
          "inputs-incomplete": "INPUTS INCOMPLETE"}


class _Frozen(BaseModel):
    model_config = ConfigDict(frozen=True, extra="forbid")


class VerifyCheck(_Frozen):
    """One step of the verification."""

    name: str
    ok: bool
    detail: str = ""


class ResultField(_Frozen):
    """How much of one field of the bundle's ``result.json`` (the producer's report) was checked."""

    field: str
    status: Literal["checked", "re-derived", "unchecked"] = Field(
        description="checked: against the manifest and what the kernel proved; re-derived: equal to the "
                    "field `check` derives from the inputs; unchecked: the producer's text, as is")
    detail: str = ""


class VerifyReport(_Frozen):
    """What ``specguard verify`` found.  ``valid`` (exit 0) only when every check passed and the
    kernel accepted a certificate for the claim the verdict states (see :data:`EXIT_CODES`)."""

    valid: bool
    status: VerifyStatus = "invalid"
    exit_code: int = 1
    reason: str = Field(description="why it is not valid, or a one-line statement of what was verified")
    source: str = Field(description="the path that was verified")
    kind: Literal["folder", "archive", "export"]
    task_id: str | None = None
    verdict: Verdict | None = Field(default=None, description="from the manifest")
    evidence: Evidence | None = Field(default=None, description="from the manifest")
    claims: tuple[str, ...] = Field(default=(), description="the claims the bundle certifies (from the manifest)")
    claim_source: ClaimSource = "taken from the bundle as is"
    claim_hash: str | None = Field(default=None, description="sha256 of the statement (spec.lean, tests.lean, "
                                                             "claim.lean; see claim_hash()) that was checked")
    model_inputs: tuple[str, ...] = Field(default=(), description="model-written inputs the claim rests on that "
                                                                  "were taken from the bundle, not from the verifier")
    checks: tuple[VerifyCheck, ...] = ()
    result_fields: tuple[ResultField, ...] = Field(default=(), description="result.json, field by field: what "
                                                                           "was checked, re-derived or not")
    assumptions: tuple[str, ...] = ()
    notes: tuple[str, ...] = ()
    seconds: float = 0.0
    runtime: str | None = Field(default=None, description="the Lean runtime that checked it: kind, path, version, "
                                                          "commit, and its self-test status")

    def summary(self) -> str:
        """The text ``specguard verify`` prints: the verdict line first."""
        what = {"folder": "bundle folder", "archive": "bundle archive", "export": "exported Lean file"}[self.kind]
        first, *rest = self.reason.splitlines() or [""]
        lines = [f"{_HEADS[self.status]}: {first}" + (f" (Lean runtime: {self.runtime})" if self.runtime else ""), *rest]
        where = f"  {what} {self.source}"
        if self.task_id is not None:
            v = self.verdict.value if self.verdict else "?"
            e = self.evidence.value if self.evidence else "?"
            where += f"; task {self.task_id}: {v} (evidence: {e})"
        lines.append(where)
        lines.append("  checked:")
        for c in self.checks:
            mark = "ok " if c.ok else "FAIL"
            lines.append(f"    [{mark}] {c.name}: {c.detail}")
        kernel_ok = any(c.name == "kernel" and c.ok for c in self.checks)
        if kernel_ok and self.claims:
            lines.append("  proven by the Lean kernel, with no axioms:")
            for c in self.claims:
                lines.append(f"    {c}: {describe_claim(c)}")
            lines.append(f"  the claim (spec.lean, tests.lean, claim.lean) was {self.claim_source}"
                         + (f" (claim hash {self.claim_hash})" if self.claim_hash else ""))
        elif self.status == "not-certified" and not self.claims:
            lines.append("  this bundle certifies nothing: it holds no kernel-checked claim")
        if self.model_inputs:
            lines.append(f"  the claim rests on model-written inputs taken from the bundle (not supplied by you): "
                         f"{', '.join(self.model_inputs)}")
        if self.result_fields:
            lines.append("  result.json (the producer's report), field by field:")
            for f in self.result_fields:
                label = f.status.upper() if f.status == "unchecked" else f.status
                lines.append(f"    [{label}] {f.field}" + (f": {f.detail}" if f.detail else ""))
        for n in self.notes:
            lines.append(f"  note: {n}")
        if self.assumptions:
            lines.append("  assumed (what the certificate does not prove):")
            for a in self.assumptions:
                lines.append(f"    - {a}")
        lines.append(f"  ({self.seconds:.2f} s)")
        return "\n".join(lines)


class ExportMeta(_Frozen):
    """The ``-- specguard: meta`` line of an exported file: the bundle's manifest, in short."""

    format: Literal["specguard-export/1"] = EXPORT_FORMAT
    task_id: str
    verdict: Verdict
    evidence: Evidence
    claims: tuple[str, ...]
    core_hash: str
    lean_version: str
    lean_commit: str
    specguard_version: str
    inputs: tuple[InputFile, ...] = ()
    labels: dict[str, str] = Field(default_factory=dict)
    options: DerivationOptions | None = None
    model_files: dict[str, str] = Field(default_factory=dict, description="the bundle's model-written inputs "
                                                                          "(model-spec-N.py, model-demands.json)")
    claim_hash: str = Field(description="sha256 of the statement sections (see claim_hash())")


class _Invalid(Exception):
    """The bundle failed check ``name``; ``detail`` says precisely why."""

    def __init__(self, name: str, detail: str) -> None:
        super().__init__(detail)
        self.name = name
        self.detail = detail


class _Incomplete(_Invalid):
    """``--inputs`` does not hold every input of the bundle (not a flaw of the bundle)."""


def claim_hash(trusted: dict[str, str]) -> str:
    """The claim hash: sha256 over ``spec.lean``, ``tests.lean`` and ``claim.lean`` (``trusted``:
    module name ``Spec``/``Tests``/``Claim`` -> text), each as its file name, a newline, its UTF-8
    length in decimal, a newline and its bytes.  Publishing it pins the statement a certificate is
    about; ``specguard verify --claim-hash H`` checks a bundle or an exported file against it."""
    h = hashlib.sha256()
    for kind, fname in TRUSTED_FILES.items():
        data = trusted[kind].encode("utf-8")
        h.update(f"{fname}\n{len(data)}\n".encode("ascii") + data)
    return h.hexdigest()


# =====================================================================================
# claims: the standard statements
# =====================================================================================

_EXISTS = f"Exists (fun ({IMPL}) => And (Spec impl) (Tests impl))"
_NAME = re.compile(r"[A-Za-z][A-Za-z0-9_]*")
_PER_TEST = re.compile(r"(Contradicted|Entailed|LeftOpen)_([A-Za-z][A-Za-z0-9_]*)")


def claim_statement(name: str, test_names: Sequence[str]) -> str | None:
    """The Lean proposition SpecGuard states for claim ``name`` (None: not a claim SpecGuard makes).

    Mirrors :func:`specguard.kernel.prove.plan` (a test keeps them in agreement)."""
    if name == "Conflict":
        return f"Not ({_EXISTS})"
    if name == "Consistent":
        return _EXISTS
    m = _PER_TEST.fullmatch(name)
    if not m or m.group(2) not in test_names:
        return None
    kind, t = m.groups()
    if kind == "Contradicted":
        return f"∀ ({IMPL}), Spec impl → Not ({t} impl)"
    if kind == "Entailed":
        return f"∀ ({IMPL}), Spec impl → {t} impl"
    return f"Exists (fun ({IMPL}) => And (Spec impl) (Not ({t} impl)))"


def describe_claim(name: str) -> str:
    """The claim in words."""
    if name == "Conflict":
        return "no implementation satisfies both Spec (the description) and Tests"
    if name == "Consistent":
        return "some implementation satisfies both Spec and Tests"
    m = _PER_TEST.fullmatch(name)
    if m:
        kind, t = m.groups()
        return {"Contradicted": f"every implementation satisfying Spec fails test clause {t}",
                "Entailed": f"every implementation satisfying Spec passes test clause {t}",
                "LeftOpen": f"some implementation satisfying Spec fails test clause {t}"}[kind]
    return "(not a claim SpecGuard makes)"


def _declared_claims(claim_text: str) -> list[str]:
    return re.findall(r"^def ([A-Za-z][A-Za-z0-9_]*) : Prop := ", claim_text, flags=re.M)


# =====================================================================================
# trusted files: the exact shape the emitter writes
# =====================================================================================

_MODULE_HEAD = emit.HEADER + f"noncomputable section\nnamespace {NS}\nopen SpecGuard\n\n"
_STRING = re.compile(r'"(?:[^"\\\n]|\\.)*"')
_TOKEN = re.compile(r'\s+|[A-Za-z_][A-Za-z0-9_.]*|[0-9]+|=>|[()→∀:,]|"[^"]*"')
_KEYWORDS_DENIED = frozenset(
    "let have show from do match with nomatch nofun by at in if then else open set_option sorry where "
    "termination_by decreasing_by calc suffices return unsafe partial opaque axiom native_decide private "
    "protected noncomputable def theorem lemma instance example abbrev structure inductive class namespace "
    "section end universe variable import prelude mutual deriving macro syntax notation elab initialize "
    "attribute export omit include".split())
_BANNED_IN_NAMES = ("sorry", "axiom", "native", "skipKernelTC", "implemented_by", "extern", "unsafe", "opaque",
                    "init_quot", "elab", "macro")


def _term_problem(term: str) -> str | None:
    """Why ``term`` is not a plain generated term (names, literals, fun, ∀), or None."""
    plain = _STRING.sub('""', term)
    pos = 0
    for m in _TOKEN.finditer(plain):
        if m.start() != pos:
            break
        pos = m.end()
        tok = m.group()
        if tok[0].isalpha() or tok[0] == "_":
            parts = tok.split(".")
            if any(p in _KEYWORDS_DENIED for p in parts) or parts[0] == "Lean" or any(b in tok for b in _BANNED_IN_NAMES):
                return f"the name or keyword {tok!r}"
    if pos != len(plain):
        return f"the text {plain[pos:pos + 20]!r}"
    return None


def module_shape_problem(kind: str, text: str) -> str | None:
    """Why ``text`` is not a ``Spec``/``Tests`` module as :func:`specguard.kernel.emit.render_module`
    writes it, or None."""
    fname = TRUSTED_FILES[kind]
    if not text.startswith(_MODULE_HEAD):
        return f"{fname} does not start with SpecGuard's generated header"
    if not text.endswith(f"\nend {NS}\n"):
        return f"{fname} does not end with `end {NS}`"
    lines = text[len(_MODULE_HEAD):].split("\n")[:-2]   # drop `end SGTask` and the final ""
    if len(lines) < 2 or lines[-2] != "":
        return f"{fname}: unexpected layout near its end"
    names: list[str] = []
    inputs: set[str] = set()
    prefix_def = "def "
    sig = f" ({IMPL}) : Prop := "
    input_def = re.compile(r"noncomputable def ([A-Za-z][A-Za-z0-9_]*) : Val := (.*)")
    for i, line in enumerate(lines[:-2], start=_MODULE_HEAD.count("\n") + 1):
        m = input_def.fullmatch(line)
        if m and not names:                       # the named inputs come first (emit.name_inputs)
            name, term = m.groups()
            if name in inputs or name in ("Spec", "Tests", "Claim"):
                return f"{fname}:{i}: invalid or repeated input name {name[:40]!r}"
            why = _term_problem(term)
            if why:
                return f"{fname}:{i}: input {name} contains {why}, which SpecGuard never generates"
            inputs.add(name)
            continue
        if line.startswith("/-- ") and line.endswith(" -/") and len(line) >= 7:
            inner = line[4:-3]
            if "-/" in inner or "/-" in inner:
                return f"{fname}:{i}: comment is not a generated one-line doc comment"
            continue
        if not line.startswith(prefix_def) or sig not in line:
            return f"{fname}:{i}: not a generated clause definition: {line[:80]!r}"
        name, term = line[len(prefix_def):].split(sig, 1)
        if not _NAME.fullmatch(name) or name in ("Spec", "Tests", "Claim") or name in names or name in inputs:
            return f"{fname}:{i}: invalid or repeated clause name {name[:40]!r}"
        why = _term_problem(term)
        if why:
            return f"{fname}:{i}: clause {name} contains {why}, which SpecGuard never generates"
        names.append(name)
    final = f"def {kind}{sig}{emit.conj([f'{n} impl' for n in names])}"
    if lines[-1] != final:
        return f"{fname}: `{kind}` is not the conjunction of its {len(names)} clauses"
    return None


def clause_names(module_text: str) -> list[str]:
    return re.findall(rf"^def ([A-Za-z][A-Za-z0-9_]*) \({re.escape(IMPL)}\) : Prop := ", module_text, flags=re.M)


def _check_trusted(texts: dict[str, str], claims: Sequence[str]) -> str:
    """Check ``texts`` (module name -> text); raise _Invalid, or return a detail line."""
    for kind in ("Spec", "Tests"):
        why = module_shape_problem(kind, texts[kind])
        if why:
            raise _Invalid("trusted files", why)
    tests = [n for n in clause_names(texts["Tests"]) if n != "Tests"]
    declared = _declared_claims(texts["Claim"])
    stmts = {}
    for name in declared:
        s = claim_statement(name, tests)
        if s is None:
            raise _Invalid("trusted files", f"claim.lean declares {name!r}, which is not a claim SpecGuard makes "
                                            "(known: Conflict, Consistent, Contradicted_T, Entailed_T, LeftOpen_T "
                                            "for a test clause T of tests.lean)")
        stmts[name] = s
    if len(set(declared)) != len(declared) or texts["Claim"] != emit.render_claim(stmts):
        raise _Invalid("trusted files", "claim.lean is not SpecGuard's standard statement of its claims "
                                        f"({', '.join(declared) or 'none'}): the claim was edited")
    missing = [c for c in claims if c not in declared]
    if missing:
        raise _Invalid("claims", f"the manifest lists claim {missing[0]!r}, which claim.lean does not declare")
    return (f"spec.lean and tests.lean have SpecGuard's generated shape ({len(clause_names(texts['Spec'])) - 1} "
            f"description and {len(tests)} test clauses); claim.lean states {', '.join(declared) or 'nothing'} "
            "in SpecGuard's standard form")


# =====================================================================================
# reading a bundle: folder, archive
# =====================================================================================

def _read_folder(folder: Path) -> dict[str, bytes]:
    try:
        entries = sorted(os.listdir(folder))
    except OSError as e:
        raise BundleError(f"cannot read the bundle folder {folder}: {e.strerror or e}",
                          hint="check the path and its permissions") from e
    if len(entries) > MAX_MEMBERS:
        raise _Invalid("files", f"the bundle folder holds {len(entries)} entries, more than {MAX_MEMBERS}")
    files: dict[str, bytes] = {}
    for name in entries:
        p = folder / name
        try:
            st = os.lstat(p)
        except OSError as e:
            raise _Invalid("files", f"cannot stat {name}: {e.strerror or e}") from e
        if stat.S_ISLNK(st.st_mode):
            try:
                target = os.readlink(p)
            except OSError:
                target = "?"
            raise _Invalid("files", f"{name} is a symbolic link (to {target}); a bundle holds only regular files")
        if stat.S_ISDIR(st.st_mode):
            raise _Invalid("files", f"unexpected folder {name}/ in the bundle")
        if not stat.S_ISREG(st.st_mode):
            raise _Invalid("files", f"{name} is not a regular file (a device, socket or pipe)")
        if st.st_size > MAX_FILE_BYTES:
            raise _Invalid("files", f"{name} is {st.st_size:,} bytes, over the {MAX_FILE_BYTES // 2**20} MB limit")
        try:  # no following links, no blocking on a pipe swapped in since the lstat
            fd = os.open(p, os.O_RDONLY | getattr(os, "O_NOFOLLOW", 0) | getattr(os, "O_NONBLOCK", 0))
        except OSError as e:
            raise _Invalid("files", f"cannot open {name}: {e.strerror or e}") from e
        with os.fdopen(fd, "rb") as f:
            now = os.fstat(f.fileno())
            if not stat.S_ISREG(now.st_mode) or (now.st_dev, now.st_ino) != (st.st_dev, st.st_ino):
                raise _Invalid("files", f"{name} changed while it was being read")
            data = f.read(MAX_FILE_BYTES + 1)
        if len(data) > MAX_FILE_BYTES:
            raise _Invalid("files", f"{name} is over the {MAX_FILE_BYTES // 2**20} MB limit")
        files[name] = data
    return files


def _member_name(raw: str) -> str:
    name = raw
    while name.startswith("./"):
        name = name[2:]
    if raw.startswith("/") or re.match(r"^[A-Za-z]:[\\/]", raw):
        raise _Invalid("archive", f"archive member {raw!r} has an absolute path")
    if "\\" in raw or "\x00" in raw:
        raise _Invalid("archive", f"archive member {raw!r} has a backslash or NUL in its name")
    parts = name.rstrip("/").split("/")
    if ".." in parts:
        raise _Invalid("archive", f"archive member {raw!r} escapes the bundle (`..` in its path)")
    if len(parts) > 1 or name.endswith("/"):
        raise _Invalid("archive", f"archive member {raw!r} is in a folder; a bundle archive holds its files at the root")
    return name


def _read_tar(path: Path) -> dict[str, bytes]:
    files: dict[str, bytes] = {}
    try:
        with archive.open_tar_gz(path, budget=MAX_ARCHIVE_BYTES, max_read=MAX_FILE_BYTES + tarfile.BLOCKSIZE) as tf:
            n = 0
            while True:
                m = tf.next()
                if m is None:
                    break
                n += 1
                if n > MAX_MEMBERS:
                    raise _Invalid("archive", f"the archive has more than {MAX_MEMBERS} members")
                if m.isdir() and m.name.rstrip("/") in (".", ""):
                    continue
                name = _member_name(m.name)
                if m.issym():
                    raise _Invalid("archive", f"archive member {m.name!r} is a symbolic link (to {m.linkname!r})")
                if m.islnk():
                    raise _Invalid("archive", f"archive member {m.name!r} is a hard link (to {m.linkname!r})")
                if m.ischr() or m.isblk() or m.isfifo():
                    raise _Invalid("archive", f"archive member {m.name!r} is a device or pipe")
                if m.isdir():
                    raise _Invalid("archive", f"archive member {m.name!r} is a folder")
                if not m.isfile() or m.issparse():
                    raise _Invalid("archive", f"archive member {m.name!r} is not a plain file")
                if m.size > MAX_FILE_BYTES:
                    raise _Invalid("archive", f"archive member {m.name!r} is {m.size:,} bytes, over the "
                                              f"{MAX_FILE_BYTES // 2**20} MB limit")
                if name in files:
                    raise _Invalid("archive", f"archive member {name!r} appears twice")
                f = tf.extractfile(m)
                data = f.read(MAX_FILE_BYTES + 1) if f is not None else b""
                if len(data) != m.size:
                    raise _Invalid("archive", f"archive member {m.name!r} is truncated")
                files[name] = data
    except _Invalid:
        raise
    except (tarfile.TarError, EOFError, OSError, ValueError) as e:
        raise _Invalid("archive", f"the archive cannot be read as .tar.gz: {e}") from e
    return files


def _read_zip(path: Path) -> dict[str, bytes]:
    files: dict[str, bytes] = {}
    try:
        with open(path, "rb") as fh, zipfile.ZipFile(archive.zip_directory_checked(fh, str(path), MAX_MEMBERS)) as zf:
            infos = zf.infolist()
            if len(infos) > MAX_MEMBERS:
                raise _Invalid("archive", f"the archive has {len(infos)} members, more than {MAX_MEMBERS}")
            for info in infos:
                if info.filename.rstrip("/") in (".", ""):
                    continue
                name = _member_name(info.filename)
                mode = info.external_attr >> 16
                if stat.S_ISLNK(mode):
                    raise _Invalid("archive", f"archive member {info.filename!r} is a symbolic link")
                if info.is_dir() or stat.S_ISDIR(mode):
                    raise _Invalid("archive", f"archive member {info.filename!r} is a folder")
                if stat.S_IFMT(mode) not in (0, stat.S_IFREG):
                    raise _Invalid("archive", f"archive member {info.filename!r} is a device or pipe")
                if info.flag_bits & 0x1:
                    raise _Invalid("archive", f"archive member {info.filename!r} is encrypted")
                if info.file_size > MAX_FILE_BYTES:
                    raise _Invalid("archive", f"archive member {info.filename!r} is {info.file_size:,} bytes, over "
                                              f"the {MAX_FILE_BYTES // 2**20} MB limit")
                if name in files:
                    raise _Invalid("archive", f"archive member {name!r} appears twice")
                with zf.open(info) as f:
                    data = f.read(MAX_FILE_BYTES + 1)
                if len(data) > MAX_FILE_BYTES:
                    raise _Invalid("archive", f"archive member {info.filename!r} is over the "
                                              f"{MAX_FILE_BYTES // 2**20} MB limit")
                files[name] = data
    except _Invalid:
        raise
    except (zipfile.BadZipFile, zipfile.LargeZipFile, EOFError, OSError, ValueError, NotImplementedError) as e:
        raise _Invalid("archive", f"the archive cannot be read as .zip: {e}") from e
    return files


def _archive_kind(path: Path) -> str | None:
    low = path.name.lower()
    if not low.endswith(ARCHIVE_SUFFIXES):
        return None
    return "zip" if low.endswith(".zip") else "tar"


def read_bundle_files(path: Path) -> tuple[Literal["folder", "archive"], dict[str, bytes]]:
    """The bundle's files (name -> bytes) from a folder or an archive, read safely.

    Raises :class:`BundleError` when ``path`` is neither; an unsafe or malformed bundle raises
    ``_Invalid`` (turned into an invalid report by :func:`verify_bundle`)."""
    path = Path(path)
    if path.is_dir():
        return "folder", _read_folder(path)
    if not path.exists():
        raise BundleError(f"{path}: no such bundle", hint="pass the folder `specguard check` wrote, "
                                                          "an archive of it, or an exported .lean file")
    kind = _archive_kind(path)
    if kind is None:
        raise BundleError(f"{path}: not a bundle folder, a .tar.gz/.tgz/.zip archive or an exported .lean file",
                          hint="pass the folder `specguard check` wrote (or `specguard export` output)")
    size = path.stat().st_size
    if size > MAX_ARCHIVE_BYTES:
        raise _Invalid("archive", f"the archive is {size:,} bytes, over the {MAX_ARCHIVE_BYTES // 2**20} MB limit")
    return "archive", (_read_tar(path) if kind == "tar" else _read_zip(path))


def pack_bundle(folder: Path, out_file: Path) -> Path:
    """Write the bundle in ``folder`` as one archive (``.tar.gz``/``.tgz`` or ``.zip``, from the
    suffix of ``out_file``): the bundle's files at the archive root, sorted, with fixed
    timestamps, owners and modes, so the same bundle always gives the same bytes."""
    out_file = Path(out_file)
    kind = _archive_kind(out_file)
    if kind is None:
        raise BundleError(f"{out_file}: an archive name must end with .tar.gz, .tgz or .zip",
                          hint="e.g. --archive bundle.tar.gz")
    if not Path(folder).is_dir():
        raise BundleError(f"{folder}: not a bundle folder", hint="pass the folder `specguard check` wrote")
    try:
        files = _read_folder(Path(folder))
        _check_names(files)
    except _Invalid as e:
        raise BundleError(f"{folder}: not a clean bundle: {e.detail}", hint="re-run `specguard check`") from e
    buf = io.BytesIO()
    if kind == "tar":
        import gzip
        raw = io.BytesIO()
        with tarfile.open(fileobj=raw, mode="w", format=tarfile.USTAR_FORMAT) as tf:
            for name in sorted(files):
                ti = tarfile.TarInfo(name)
                ti.size, ti.mtime, ti.mode, ti.uid, ti.gid, ti.uname, ti.gname = len(files[name]), 0, 0o644, 0, 0, "", ""
                tf.addfile(ti, io.BytesIO(files[name]))
        with gzip.GzipFile(fileobj=buf, mode="wb", mtime=0, filename="") as gz:
            gz.write(raw.getvalue())
    else:
        with zipfile.ZipFile(buf, "w", compression=zipfile.ZIP_DEFLATED) as zf:
            for name in sorted(files):
                zi = zipfile.ZipInfo(name, date_time=(1980, 1, 1, 0, 0, 0))
                zi.external_attr = (stat.S_IFREG | 0o644) << 16
                zi.compress_type = zipfile.ZIP_DEFLATED
                zf.writestr(zi, files[name])
    _write_atomic(out_file, buf.getvalue())
    return out_file


def _write_atomic(out: Path, data: bytes) -> None:
    try:
        out.parent.mkdir(parents=True, exist_ok=True)
        if out.is_dir():
            raise BundleError(f"{out}: is a folder, expected a file name", hint=f"e.g. {out / 'certificate.lean'}")
        fd, tmp = tempfile.mkstemp(dir=out.parent, prefix=f".{out.name}.tmp")
    except OSError as e:
        raise BundleError(f"cannot write {out}: {e.strerror or e}", hint="choose a writable path") from e
    try:
        mask = os.umask(0o022)
        os.umask(mask)
        os.fchmod(fd, 0o666 & ~mask)  # mkstemp makes it 0600: readable as any file the user writes
        with os.fdopen(fd, "wb") as f:
            f.write(data)
        os.replace(tmp, out)
    except OSError as e:
        raise BundleError(f"cannot write {out}: {e.strerror or e}", hint="choose a writable path") from e
    finally:
        if os.path.exists(tmp):
            os.unlink(tmp)


def _check_names(files: dict[str, bytes]) -> None:
    extra = sorted(n for n in set(files) - set(BUNDLE_FILES) if not MODEL_FILE_RE.fullmatch(n))
    if extra:
        raise _Invalid("files", f"unexpected file {extra[0]!r} in the bundle (a bundle holds only "
                                f"{', '.join(BUNDLE_FILES)} and model-written inputs model-spec-N.py, "
                                f"model-demands.json)")
    missing = [n for n in REQUIRED_FILES if n not in files]
    if missing:
        raise _Invalid("files", f"missing file {missing[0]}")


def _decode(name: str, data: bytes) -> str:
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError as e:
        raise _Invalid("files", f"{name} is not valid UTF-8 (byte {e.start})") from e
    if "\x00" in text:
        raise _Invalid("files", f"{name} contains a NUL character")
    return text


def _sha(data: bytes) -> str:
    return hashlib.sha256(data).hexdigest()


# =====================================================================================
# the verifier
# =====================================================================================

_STATUS_CLAIM = {"entailed": "Entailed", "contradicted": "Contradicted", "left-open": "LeftOpen"}
# result.json fields that only describe the run (never re-derived; shown as unchecked)
_RUN_FIELDS = ("seconds", "runtime", "specguard_version")
_SKIPPED_NOTE = "model path skipped"
_RETRY_NOTE = "the certificate with the per-test classification was rejected"
# result.json fields compared by their own rule (the others must equal the re-derived ones exactly)
_SPECIAL_FIELDS = frozenset({"verdict", "evidence", "conflict", "reason", "notes", "assumptions", "certificate",
                             "model", *_RUN_FIELDS})
# fields _label_result names on their own line (without --inputs)
_LABELLED_FIELDS = frozenset({"task_id", "verdict", "evidence", "certificate", "tests", "reason", "conflict",
                              "assumptions", "model", *_RUN_FIELDS})


def _short(v, n: int = 160) -> str:
    t = v if isinstance(v, str) else json.dumps(v, ensure_ascii=False)
    return t if len(t) <= n else t[:n] + "…"


class _Run:
    def __init__(self, source: Path, timeout: float, memory_mb: int, *, accept_bundled: bool = False,
                 want_claim_hash: str | None = None) -> None:
        self.source = source
        self.timeout = timeout
        self.memory_mb = memory_mb
        self.accept_bundled = accept_bundled
        self.want_claim_hash = want_claim_hash
        self.start = time.monotonic()
        self.checks: list[VerifyCheck] = []
        self.notes: list[str] = []
        self.kind: Literal["folder", "archive", "export"] = "folder"
        self.task_id: str | None = None
        self.verdict: Verdict | None = None
        self.evidence: Evidence | None = None
        self.claims: tuple[str, ...] = ()
        self.core_hash: str | None = None
        self.lean_commit: str | None = None
        self.claim_source: ClaimSource = "taken from the bundle as is"
        self.runtime_desc: str | None = None
        self.claim_hash: str | None = None
        self.kernel_ok = False
        self.incomplete: _Incomplete | None = None
        self.derivation: _Derivation | None = None
        self.model_inputs: tuple[str, ...] = ()
        self.model_roles: dict[str, str] = {}
        self.spec_inputs: tuple[str, ...] = ()   # the manifest's inputs of role spec
        self.result_fields: list[ResultField] = []
        self.more_assumptions: list[str] = []
        # the assumptions re-derived from the inputs (those the task withdraws are restated there)
        self.derived_assumptions: tuple[str, ...] | None = None

    def ok(self, name: str, detail: str) -> None:
        self.checks.append(VerifyCheck(name=name, ok=True, detail=detail))

    def field(self, name: str, status: str, detail: str = "") -> None:
        self.result_fields.append(ResultField(field=name, status=status, detail=detail))

    def certifies_verdict(self) -> bool:
        """The kernel accepted a certificate for the claim the verdict states."""
        if not self.kernel_ok or self.evidence is not Evidence.certified:
            return False
        need = {Verdict.conflict: "Conflict", Verdict.no_conflict: "Consistent"}.get(self.verdict)
        return need is not None and need in self.claims

    def status(self, failure: _Invalid | None) -> VerifyStatus:
        if failure is not None and not isinstance(failure, _Incomplete):
            return "invalid"
        if failure is not None or self.incomplete is not None:
            return "inputs-incomplete"
        return "valid" if self.certifies_verdict() else "not-certified"

    def headline(self, status: VerifyStatus, failure: _Invalid | None) -> str:
        if status == "invalid":
            return failure.detail
        if status == "inputs-incomplete":
            return (failure or self.incomplete).detail
        v, e = self.verdict, self.evidence.value if self.evidence else "?"
        if status == "not-certified":
            if v is Verdict.inconclusive or v is None:
                text = f"the bundle's verdict is inconclusive (evidence {e}); nothing for the kernel to check"
            elif self.evidence is Evidence.model_spec_agreement:
                text = ("the bundle claims no conflict with evidence model-spec-agreement: the verdict rests on a "
                        f"model-written spec ({', '.join(self.spec_inputs) or 'role spec'}) agreeing with every test, "
                        "not on a kernel proof that the description entails the tests")
            else:
                said = "a conflict" if v is Verdict.conflict else "no conflict"
                text = f"the bundle claims {said} with evidence {e}; nothing for the kernel to check"
            if self.kernel_ok and self.claims:
                text += (f" (the kernel accepted its certificate for {', '.join(self.claims)}, which do not "
                         "certify the verdict" + (": they are about the model's spec, not the description"
                                                  if self.evidence is Evidence.model_spec_agreement else "") + ")")
            return text
        main = "Conflict" if v is Verdict.conflict else "Consistent"
        others = [c for c in self.claims if c != main]
        text = f"the Lean kernel accepted the certificate for {main}, the claim of the verdict {v.value}"
        if others:
            text += f" (and {', '.join(others)})"
        text += f"; the claim was {self.claim_source}"
        if self.model_inputs:
            text += (f", resting on the bundle producer's model-written input(s) {', '.join(self.model_inputs)}"
                     + (" (--accept-bundled-model-inputs)" if self.derivation is not None else ""))
        return text

    def report(self, failure: _Invalid | None) -> VerifyReport:
        checks = list(self.checks)
        if failure is not None:
            checks.append(VerifyCheck(name=failure.name, ok=False, detail=failure.detail))
        status = self.status(failure)
        base = self.derived_assumptions if self.derived_assumptions is not None else tuple(ASSUMPTIONS)
        assumptions = base + tuple(self.more_assumptions)
        for name in self.model_inputs:
            if self.model_roles.get(name) == "demands":
                assumptions += (f"The test assertions read_by 'model' come from {name}, a model-written input taken "
                                "from the bundle (the bundle producer's, not yours): SpecGuard re-checked that every "
                                "literal appears in the cited test lines; the reading itself is the producer's.",)
            else:
                assumptions += (f"The description is formalized by {name}, a model-written spec taken from the bundle "
                                "(the bundle producer's, not yours): the kernel checks the proof against it; that it "
                                "says what the description says is the producer's (or its model's) reading.",)
        if self.core_hash:
            assumptions += (f"the SpecGuard core theory (hash {self.core_hash}) defines the value model faithfully",)
        if self.lean_commit:
            assumptions += (f"the Lean {lean_runner.LEAN_VERSION} kernel (commit {self.lean_commit}) is sound",)
        if self.claim_source == "taken from the bundle as is" and (failure is None or self.claims):
            assumptions += ("spec.lean and tests.lean (the formalized description and tests) were taken from the "
                            "bundle as is: give --inputs to check that they follow from the task's files",)
        return VerifyReport(valid=status == "valid", status=status, exit_code=EXIT_CODES[status],
                            reason=self.headline(status, failure), source=str(self.source), kind=self.kind,
                            task_id=self.task_id, verdict=self.verdict, evidence=self.evidence, claims=self.claims,
                            claim_source=self.claim_source, claim_hash=self.claim_hash,
                            model_inputs=self.model_inputs, checks=tuple(checks),
                            result_fields=tuple(self.result_fields), assumptions=assumptions,
                            notes=tuple(self.notes), seconds=round(time.monotonic() - self.start, 4), runtime=self.runtime_desc)

    # -- shared steps --------------------------------------------------------------------
    def runtime(self, core_hash: str, lean_version: str, lean_commit: str, written_by: str) -> None:
        here = lean_runner.library_hash()
        if core_hash != here:
            raise _Invalid("runtime", f"the certificate speaks about another core theory: the bundle's core hash is "
                                      f"{core_hash}, this SpecGuard's is {here} (the bundle was written by SpecGuard "
                                      f"{written_by}; re-check it with that version)")
        rt = lean_runner.find_runtime()
        self.runtime_desc = lean_runner.describe_runtime(rt)
        n = min(len(lean_commit), len(rt.commit))
        if lean_version != rt.version or n < 7 or lean_commit[:n] != rt.commit[:n]:
            raise _Invalid("runtime", f"the bundle was checked with Lean {lean_version} (commit {lean_commit}), this "
                                      f"runtime is Lean {rt.version} (commit {rt.commit}): the certificate speaks "
                                      "about another core theory and kernel")
        self.core_hash = here
        self.lean_commit = rt.commit
        self.ok("runtime", f"core theory hash {here[:16]}…, Lean {rt.version} commit {rt.commit[:12]} "
                           "(the same as this SpecGuard's)")

    def claims_consistent(self, verdict: Verdict, evidence: Evidence, claims: Sequence[str], has_cert: bool) -> None:
        if evidence is Evidence.certified and not claims:
            raise _Invalid("claims", "the manifest says evidence 'certified' but lists no claim")
        if claims and not has_cert:
            raise _Invalid("claims", f"the manifest lists claims ({', '.join(claims)}) but the bundle has no {CERT}")
        if has_cert and not claims:
            raise _Invalid("claims", f"the bundle has a {CERT} but the manifest lists no claim for it")
        if evidence is Evidence.certified and verdict is Verdict.conflict and "Conflict" not in claims:
            raise _Invalid("claims", "the manifest says 'conflict, certified' but does not claim Conflict")
        if evidence is Evidence.certified and verdict is Verdict.no_conflict and "Consistent" not in claims:
            raise _Invalid("claims", "the manifest says 'no-conflict, certified' but does not claim Consistent")
        if evidence is Evidence.certified and verdict is Verdict.inconclusive:
            raise _Invalid("claims", "the manifest says 'inconclusive' with evidence 'certified'")
        if verdict is Verdict.no_conflict and "Conflict" in claims or verdict is Verdict.conflict and "Consistent" in claims:
            raise _Invalid("claims", f"the manifest's verdict {verdict.value} contradicts its claims ({', '.join(claims)})")
        bad = [c for c in claims if not _NAME.fullmatch(c)]
        if bad or len(set(claims)) != len(claims):
            raise _Invalid("claims", f"invalid or repeated claim name in the manifest: {(bad or list(claims))[0]!r}")

    def every_test_entailed(self, trusted: dict[str, str]) -> None:
        """A certified no-conflict means what ``check`` means by it: Consistent, and every test
        clause entailed by the description (Entailed_T for each T)."""
        if self.verdict is not Verdict.no_conflict or self.evidence is not Evidence.certified:
            return
        tests = [n for n in clause_names(trusted["Tests"]) if n != "Tests"]
        open_ = [t for t in tests if f"Entailed_{t}" not in self.claims]
        if open_:
            raise _Invalid("claims", f"the manifest says 'no-conflict, certified' but the certificate does not claim "
                                     f"that the description entails test clause {open_[0]} (Entailed_{open_[0]}): "
                                     "a certified no-conflict needs every test entailed")

    def statement_hash(self, trusted: dict[str, str]) -> None:
        self.claim_hash = claim_hash(trusted)
        if self.want_claim_hash is not None:
            if self.claim_hash != self.want_claim_hash.strip().lower():
                raise _Invalid("claim hash", f"the statement's claim hash is {self.claim_hash}, not the "
                                             f"--claim-hash {self.want_claim_hash}: these are not the statements "
                                             "whose hash was published")
            self.ok("claim hash", f"{self.claim_hash} equals --claim-hash: the statements are the published ones")

    def kernel(self, trusted: dict[str, str], cert: bytes, claims: Sequence[str]) -> None:
        try:
            v = certcheck.check_certificate(trusted, cert, list(claims), timeout=self.timeout,
                                            memory_mb=self.memory_mb)
        except (LeanTimeout, LeanCrash) as e:
            raise _Invalid("kernel", f"Lean failed on the trusted files: {e.message}") from e
        except SpecGuardError as e:
            if type(e) is SpecGuardError:   # the trusted files do not compile or are not in the generated layout
                raise _Invalid("kernel", e.message.replace("SpecGuard's generated ", "the bundle's ")) from e
            raise                           # no runtime, a broken cache: the machinery, not the bundle
        if not v.accepted:
            text = cert.decode("utf-8", "replace")
            proved = re.findall(r"^theorem proof_([A-Za-z][A-Za-z0-9_]*)\b", text, flags=re.M)
            missing = [c for c in claims if c not in proved]
            if proved and missing:
                raise _Invalid("kernel", f"the certificate was rejected: it holds proofs of {', '.join(proved)}, not of "
                                         f"the bundle's claim {missing[0]} (a certificate of another bundle?): {v.reason}")
            raise _Invalid("kernel", f"the certificate was rejected: {v.reason}")
        self.kernel_ok = True
        self.ok("kernel", f"certificate accepted for {', '.join(claims)} in {v.seconds:.2f} s ({v.lean_runs} Lean "
                          "runs: the trusted files, the certificate on its own, a final file restating each claim; "
                          "no axioms)")

    def inputs(self, inputs: Sequence[Path], task_id: str, labels: dict[str, str],
               manifest_inputs: Sequence[InputFile], trusted: dict[str, str],
               bundled: dict[str, bytes] | None = None, options=None) -> None:
        bundled = bundled or {}
        self.model_roles = {mi.path: mi.role for mi in manifest_inputs if mi.path in bundled}
        if not inputs:
            self.model_inputs = tuple(sorted(bundled))      # the whole claim is the bundle's, these included
            self.ok("inputs", "not given: the claim (spec.lean, tests.lean, claim.lean) was taken from the "
                              "bundle as is")
            return
        try:
            d = _rederive(inputs, task_id, labels, manifest_inputs, trusted, bundled, options, self.accept_bundled)
        except _Incomplete as e:
            self.incomplete = e
            self.checks.append(VerifyCheck(name="inputs", ok=False, detail=e.detail))
            return
        self.derivation = d
        self.model_inputs = d.from_bundle
        self.claim_source = ("re-derived from the inputs and the bundle's model inputs" if d.from_bundle
                             else "re-derived from the inputs")
        self.ok("inputs", d.detail)

    # -- result.json ------------------------------------------------------------------------
    def rederived_result(self, claims: Sequence[str], rejected: str = "") -> Result:
        """The result ``check`` derives from the inputs (no model; the kernel's verdict on the bundle's
        certificate stands in for SpecGuard's own, so no new proof is checked; a bundle without a
        certificate stands for one its producer's kernel rejected, for the reason ``rejected``; a
        spec taken from the bundle is never evaluated beyond the kernel budget)."""
        from specguard.check import Options, check_task
        d = self.derivation
        accepted = self.kernel_ok

        def kernel(wanted: tuple[str, ...]) -> certcheck.CertVerdict:
            ok = accepted and bool(claims) and tuple(wanted) == tuple(claims)
            why = "accepted" if ok else (rejected if not claims and rejected else
                                         "the bundle's certificate does not prove these claims")
            return certcheck.CertVerdict(accepted=ok, claims=tuple(wanted), reason=why)
        opts = Options(timeout=self.timeout, memory_mb=self.memory_mb, classify=d.classify, spec=d.spec,
                       demands=d.demands, spec_binds=d.binds, kernel=kernel, execute=d.spec is None or d.spec_given)
        if d.budget is not None:
            opts.spec_budget = d.budget
        try:
            return check_task(d.task, opts).result
        except (LeanTimeout, LeanCrash) as e:
            raise _Invalid("result", f"the result cannot be re-derived: {e.message}") from e

    def check_result(self, r: Result, claims: Sequence[str], test_names: Sequence[str]) -> None:
        """Every field of result.json: checked against the kernel's claims, re-derived, or labelled unchecked."""
        why = _status_problem(r, claims, test_names)
        if why:
            raise _Invalid("result", why)
        if self.derivation is None:
            self._label_result(r)
        else:
            self._compare_result(r, self.rederived_result(claims, r.certificate.reason))
            if not claims and r.certificate.claims:
                self.field("certificate (rejected by the producer's kernel)", "unchecked", r.certificate.reason)
            self.ok("result", "every field of result.json that `check` derives (verdict, evidence, reason, conflict "
                              "core, per-test statuses, claims, unsupported, near conflicts, notes, assumptions, "
                              "certificate) is what it derives from the inputs" +
                              ("" if all(f.status != "unchecked" or f.field in ("run facts", "model")
                                         for f in self.result_fields) else "; the rest is labelled UNCHECKED"))

    def _label_result(self, r: Result) -> None:
        certified = sum(1 for t in r.tests if t.certified)
        self.field("task_id, verdict, evidence", "checked",
                   "equal to the manifest's" + (", and the kernel proved the verdict's claim"
                                                if self.certifies_verdict() else ""))
        self.field("certificate", "checked", f"claims {', '.join(r.certificate.claims) or 'none'}, accepted "
                                             f"{r.certificate.accepted}: equal to the manifest's and the kernel's")
        if certified:
            self.field("tests (certified statuses)", "checked",
                       f"{certified} status(es) marked certified are the kernel's per-test claims")
        self.field("reason", "unchecked", r.reason)
        if r.conflict is not None:
            self.field("conflict", "unchecked", f"{r.conflict.kind}: " + "; ".join(
                f"{i.loc} `{i.statement}`" for i in r.conflict.items))
        if len(r.tests) > certified:
            self.field("tests (the rest)", "unchecked", f"{len(r.tests) - certified} uncertified status(es), and every "
                                                        "test's text, statement and location")
        self.field("assumptions", "unchecked", f"{len(r.assumptions)} statement(s) (verify states its own below)")
        rest = [n for n in Result.model_fields if n not in _LABELLED_FIELDS]
        self.field(", ".join(rest), "unchecked", "the producer's report; give --inputs to re-derive it")
        if r.model is not None:
            self.field("model", "unchecked", f"the model path's report ({r.model.model})")
        self.field("run facts", "unchecked", ", ".join(_RUN_FIELDS))
        extra = [a for a in r.assumptions if a not in ASSUMPTIONS]
        self.more_assumptions += [f"(from result.json, unchecked) {a}" for a in extra]

    def _compare_result(self, r: Result, mine: Result) -> None:
        theirs, ours = r.model_dump(mode="json"), mine.model_dump(mode="json")
        modelled = r.model is not None
        skipped_execution = r.evidence is Evidence.execution and not (self.derivation.spec is None
                                                                      or self.derivation.spec_given)
        judged = modelled and r.evidence is Evidence.model_judgment and mine.evidence is not Evidence.certified
        # the model path's no-conflict: the re-derivation against the bundle's spec alone says what the kernel
        # and the evaluator say about that one spec (the agreement of the other samples is the producer's)
        agreed = (modelled and r.evidence is Evidence.model_spec_agreement and r.verdict is Verdict.no_conflict
                  and mine.verdict is not Verdict.conflict)
        loose = skipped_execution or judged or agreed

        def differ(name: str, a, b) -> None:
            raise _Invalid("result", f"result.json's {name} is not what `check` derives from the inputs: "
                                     f"bundle {_short(a)}, re-derived {_short(b)}")
        exact = [n for n in Result.model_fields if n not in _SPECIAL_FIELDS]   # every other field, new ones too
        for name in exact:
            if theirs[name] != ours[name]:
                differ(name, theirs[name], ours[name])
        cert = {k: v for k, v in theirs["certificate"].items() if k != "seconds"}
        mine_cert = {k: v for k, v in ours["certificate"].items() if k != "seconds"}
        if cert != mine_cert:
            differ("certificate", cert, mine_cert)
        self.field(", ".join(exact + ["certificate"]), "re-derived",
                   f"{len(r.tests)} test status(es), {len(r.claims)} description statement(s), "
                   f"{len(r.unsupported)} unsupported")
        why = ("execution evidence: verify does not run a spec taken from the bundle" if skipped_execution
               else "the model-written specs' agreement with every test (the other samples are the producer's)"
               if agreed else "a model's judgment, which verify cannot re-derive")
        for name in ("verdict", "evidence", "conflict"):
            if theirs[name] == ours[name]:
                continue
            if not loose:
                differ(name, theirs[name], ours[name])
        if (theirs["verdict"], theirs["evidence"], theirs["conflict"]) == (ours["verdict"], ours["evidence"],
                                                                          ours["conflict"]):
            self.field("verdict, evidence, conflict", "re-derived", f"{r.verdict.value} ({r.evidence.value})"
                       + (f"; {r.conflict.kind}: " + "; ".join(f"{i.loc} `{i.statement}`" for i in r.conflict.items)
                          if r.conflict else ""))
        else:
            self.field("verdict, evidence, conflict", "unchecked", f"{why}; re-derived without it: "
                                                                   f"{mine.verdict.value} ({mine.evidence.value})")
        if r.reason == mine.reason:
            self.field("reason", "re-derived", r.reason)
        elif modelled and r.reason.startswith(mine.reason):
            self.field("reason", "re-derived", mine.reason)
            self.field("reason (the model path's addition)", "unchecked", r.reason[len(mine.reason):].strip())
        elif loose or (modelled and r.evidence is not Evidence.certified):
            self.field("reason", "unchecked", r.reason)
        else:
            differ("reason", r.reason, mine.reason)
        for name in ("notes", "assumptions"):
            a, b = list(theirs[name]), list(ours[name])
            if modelled and name == "notes":
                b = [n for n in b if not n.startswith(_SKIPPED_NOTE)]
            if name == "notes" and not self.derivation.classify:
                # `check` retried without classification after its kernel rejected the first certificate:
                # an event on the producer's side, which verify cannot repeat
                retry = [n for n in a if n.startswith(_RETRY_NOTE)]
                if retry:
                    a = [n for n in a if not n.startswith(_RETRY_NOTE)]
                    self.field("notes (the producer's rejected first certificate)", "unchecked", " | ".join(retry))
            if a == b:
                self.field(name, "re-derived", f"{len(a)} line(s)")
            elif (modelled or loose) and a[:len(b)] == b:
                self.field(name, "re-derived", f"the first {len(b)} line(s)")
                self.field(f"{name} (the model path's additions)", "unchecked", " | ".join(a[len(b):]))
            else:
                differ(name, a, b)
        self.derived_assumptions = tuple(mine.assumptions)
        if r.model is not None:
            self.field("model", "unchecked", f"the model path's report ({r.model.model}: calls, tokens, cost)")
        self.field("run facts", "unchecked", ", ".join(_RUN_FIELDS))


def _status_problem(r: Result, claims: Sequence[str], test_names: Sequence[str]) -> str | None:
    """Why result.json's certified per-test statuses are not exactly the kernel's per-test claims, or None."""
    backed: set[str] = set()
    for t in r.tests:
        if not t.certified:
            continue
        if t.status not in _STATUS_CLAIM or t.id not in test_names:
            return f"result.json marks test {t.id!r} certified {t.status}, which no claim of the bundle states"
        name = f"{_STATUS_CLAIM[t.status]}_{t.id}"
        if name not in claims:
            return (f"result.json says test {t.id} is {t.status} (certified), but the certificate does not prove "
                    f"{name}")
        backed.add(name)
    status_of = {t.id: t.status for t in r.tests}
    for c in sorted(c for c in claims if _PER_TEST.fullmatch(c) and c not in backed):
        kind, t = _PER_TEST.fullmatch(c).groups()
        if _STATUS_CLAIM.get(status_of.get(t, "")) != kind:
            return (f"the certificate proves {c}, but result.json reports test {t}'s status as "
                    f"{status_of.get(t, 'absent')!r}")
    return None


def verify_bundle(bundle: Path, inputs: Sequence[Path] = (), *, timeout: float = 60.0,
                  memory_mb: int = lean_runner.DEFAULT_MEMORY_MB, accept_bundled_model_inputs: bool = False,
                  claim_hash: str | None = None) -> VerifyReport:
    """Re-check a bundle folder, a bundle archive or an exported ``.lean`` file (see the module
    docstring).  ``inputs``: the task's original files (model-written ones included), to check that
    the claim follows from them; ``accept_bundled_model_inputs``: take a model-written input the
    verifier did not give from the bundle (the claim then rests on the bundle producer's model
    inputs, and the report says so); ``claim_hash``: a published claim hash the statement must have."""
    bundle = Path(bundle)
    inputs = [Path(p) for p in inputs]
    run = _Run(bundle, timeout, memory_mb, accept_bundled=accept_bundled_model_inputs, want_claim_hash=claim_hash)
    if bundle.suffix == ".lean" and not bundle.is_dir():
        run.kind = "export"
        try:
            return _verify_export(run, bundle, inputs)
        except _Invalid as e:
            return run.report(e)
    try:
        run.kind, files = read_bundle_files(bundle)
        if run.kind == "archive":
            run.ok("archive", f"{len(files)} members, plain files at the root, none over "
                              f"{MAX_FILE_BYTES // 2**20} MB (read in memory, never extracted)")
        return _verify_files(run, files, inputs)
    except _Invalid as e:
        return run.report(e)


def _json_file(text: str, name: str, check: str):
    try:
        return load_json(text, name)
    except ValueError as e:
        raise _Invalid(check, str(e)) from None


def _verify_files(run: _Run, files: dict[str, bytes], inputs: Sequence[Path]) -> VerifyReport:
    _check_names(files)
    texts = {name: _decode(name, data) for name, data in files.items()}
    run.ok("files", f"{len(files)} files ({', '.join(sorted(files))}), regular files only, none over "
                    f"{MAX_FILE_BYTES // 2**20} MB")
    # -- manifest
    raw = _json_file(texts[MANIFEST], MANIFEST, "manifest")
    if not isinstance(raw, dict) or raw.get("bundle_format") != BUNDLE_FORMAT:
        fmt = raw.get("bundle_format") if isinstance(raw, dict) else None
        raise _Invalid("manifest", f"manifest.json is not of format {BUNDLE_FORMAT!r} (bundle_format: {fmt!r})")
    try:
        m = Manifest.model_validate(raw)
    except ValidationError as e:
        raise _Invalid("manifest", f"manifest.json is not a valid manifest: {_first_error(e)}") from e
    run.task_id, run.verdict, run.evidence, run.claims = m.task_id, m.verdict, m.evidence, tuple(m.claims)
    run.spec_inputs = tuple(mi.path for mi in m.inputs if mi.role == "spec")
    others = set(files) - {MANIFEST}
    unlisted = sorted(others - set(m.outputs))
    if unlisted:
        raise _Invalid("manifest", f"{unlisted[0]} is not listed in the manifest's outputs")
    absent = sorted(set(m.outputs) - others)
    if absent:
        raise _Invalid("manifest", f"missing file {absent[0]} (listed in the manifest's outputs)")
    for name in sorted(others):
        got = _sha(files[name])
        if got != m.outputs[name]:
            raise _Invalid("manifest", f"the sha256 of {name} ({got[:16]}…) does not match the manifest "
                                       f"({m.outputs[name][:16]}…): {name} was changed after `check` wrote it")
    r = _result_of(texts[RESULT])
    for field, a, b in (("task_id", r.task_id, m.task_id), ("verdict", r.verdict, m.verdict),
                        ("evidence", r.evidence, m.evidence)):
        if a != b:
            raise _Invalid("manifest", f"result.json and manifest.json disagree on {field}: {_short(a)} vs {_short(b)}")
    if m.claims and (r.certificate.accepted is not True or tuple(r.certificate.claims) != tuple(m.claims)):
        raise _Invalid("manifest", "result.json's certificate report does not list the manifest's claims as accepted")
    if not m.claims and r.certificate.accepted:
        raise _Invalid("manifest", "result.json's certificate report says accepted, but the manifest lists no claim")
    bundled = {n: files[n] for n in files if MODEL_FILE_RE.fullmatch(n)}
    _check_model_files(bundled, m.inputs, "manifest")
    run.ok("manifest", f"{BUNDLE_FORMAT}; sha256 of all {len(others)} outputs match; result.json agrees "
                       f"(task {m.task_id}, {m.verdict.value}, {m.evidence.value})")
    # -- runtime, claims, trusted files
    run.runtime(m.core_hash, m.lean_version, m.lean_commit, m.specguard_version)
    run.claims_consistent(m.verdict, m.evidence, m.claims, CERT in files)
    trusted = {kind: texts[fname] for kind, fname in TRUSTED_FILES.items()}
    run.ok("claims", (f"{', '.join(m.claims)} claimed, consistent with '{m.verdict.value}, {m.evidence.value}'"
                      if m.claims else f"no claim (verdict {m.verdict.value}, evidence {m.evidence.value}): "
                                       "nothing for the kernel to check"))
    run.ok("trusted files", _check_trusted(trusted, m.claims))
    run.every_test_entailed(trusted)
    run.statement_hash(trusted)
    # -- inputs, kernel, result
    run.inputs(inputs, m.task_id, dict(r.labels), m.inputs, trusted, bundled, m.options)
    if m.claims:
        run.kernel(trusted, files[CERT], m.claims)
    else:
        run.claim_source = "no claim" if not inputs else run.claim_source
        run.notes.append("the bundle holds no certificate: it certifies nothing, whatever its verdict says")
    run.check_result(r, m.claims, [n for n in clause_names(trusted["Tests"]) if n != "Tests"])
    return run.report(None)


def _check_model_files(bundled: dict[str, bytes], inputs: Sequence[InputFile], check: str) -> None:
    """Each model-written file kept with the claim is the manifest input of its name and role."""
    for name, data in sorted(bundled.items()):
        role = "spec" if name.endswith(".py") else "demands"
        if not MODEL_FILE_RE.fullmatch(name) or not any(
                mi.path == name and mi.role == role and mi.sha256 == _sha(data) for mi in inputs):
            raise _Invalid(check, f"{name} is not the manifest's input {name} (role {role}) with the same sha256")


def _result_of(text: str) -> Result:
    """result.json as a :class:`~specguard.outputs.results.Result` (strictly: every field, no other)."""
    raw = _json_file(text, RESULT, "manifest")
    try:
        return Result.model_validate(raw)
    except ValidationError as e:
        raise _Invalid("manifest", f"result.json is not a SpecGuard result: {_first_error(e)}") from e


def _first_error(e: ValidationError) -> str:
    err = e.errors()[0]
    loc = ".".join(str(p) for p in err.get("loc", ())) or "(top level)"
    return f"{loc}: {err.get('msg')}"


# =====================================================================================
# re-deriving the claim from the inputs
# =====================================================================================

@dataclasses.dataclass
class _Derivation:
    """How ``verify --inputs`` re-derived the claim: what ``check`` ran on, to re-derive the result."""

    task: object
    spec: object
    demands: tuple
    classify: bool
    budget: int | None
    binds: bool
    detail: str
    from_bundle: tuple[str, ...] = ()      # model-written inputs taken from the bundle (opt-in)
    spec_given: bool = False               # the spec came from the verifier's own files


def rederive(inputs: Sequence[Path], task_id: str, labels: dict[str, str],
             manifest_inputs: Sequence[InputFile], trusted: dict[str, str],
             bundled: dict[str, bytes] | None = None, options=None, *,
             accept_bundled_model_inputs: bool = False) -> str:
    """Rebuild the task from ``inputs`` and re-derive spec/tests/claim; raise ``_Invalid`` unless
    they equal ``trusted`` byte for byte (``_Incomplete`` when ``inputs`` lack a manifest input).
    A model-written input kept in the bundle (``bundled``) is used only with
    ``accept_bundled_model_inputs``.  Returns a detail line."""
    return _rederive(inputs, task_id, labels, manifest_inputs, trusted, bundled or {}, options,
                     accept_bundled_model_inputs).detail


def _rederive(inputs: Sequence[Path], task_id: str, labels: dict[str, str],
              manifest_inputs: Sequence[InputFile], trusted: dict[str, str],
              bundled: dict[str, bytes], options, accept_bundled: bool) -> _Derivation:
    from specguard import load
    try:
        from specguard.check import render_trusted
    except ImportError as e:  # pragma: no cover - an incomplete installation
        raise SpecGuardError(f"cannot re-derive the claim: the formalizer is missing ({e})",
                             hint="reinstall SpecGuard from a complete checkout") from e
    task, spec, model_demands, own_model, spec_given = _load_inputs(load, inputs, task_id, labels, manifest_inputs,
                                                                    bundled, accept_bundled)
    want = {"spec.lean": trusted["Spec"], "tests.lean": trusted["Tests"], "claim.lean": trusted["Claim"]}
    # `check --entry-point` is not recorded: try the loader's, then the call targets the bundle's
    # inputs name (sound: only a byte-identical re-derivation is accepted)
    candidates: list[str | None] = [task.entry_point]
    text = trusted["Tests"] + trusted["Spec"]
    found = re.findall(r'^noncomputable def \w+ : Val := .*\(Val\.str "([A-Za-z_][A-Za-z0-9_.]*)"\)\)$', text, flags=re.M)
    found += re.findall(r'\(Val\.pair \(Val\.str "([A-Za-z_][A-Za-z0-9_.]*)"\)', text)
    for name in found:
        if name not in candidates:
            candidates.append(name)
    first: dict[str, str] | None = None
    error: SpecGuardError | None = None
    for ep in candidates[:8]:
        t = task if ep == task.entry_point else task.model_copy(update={"entry_point": ep})
        demands: tuple = ()
        if model_demands is not None:
            from specguard.model.reader_agent import accept_for
            demands = tuple(accept_for(t, model_demands).demands)
        # the manifest records the options (older bundles: either classify setting, default budget)
        settings = [(options.classify, options.spec_budget, options.spec_binds)] if options is not None else \
            [(True, None, True), (False, None, True)]
        for classify, budget, binds in settings:
            try:
                extra = {"budget": budget} if budget is not None else {}
                got = render_trusted(t, classify=classify, spec=spec, demands=demands, spec_binds=binds, **extra)
            except SpecGuardError as e:        # e.g. a spec that needs an entry point: try the next one
                error = error or e
                continue
            if first is None:
                first = got
            if all(got.get(k) == v for k, v in want.items()):
                how = f"entry point {ep!r}" if ep else "no entry point"
                kept = (f"; the model-written input(s) {', '.join(own_model)} were taken from the BUNDLE "
                        "(--accept-bundled-model-inputs), not from you" if own_model else "")
                roles = "; ".join(f"{Path(mi.path.split('#')[0]).name or mi.path} as {mi.role}" for mi in manifest_inputs)
                detail = (f"all {len(manifest_inputs)} input(s) of the manifest were given and match by sha256 "
                          f"(read in the roles the manifest gives: {roles}){kept}; "
                          f"spec.lean, tests.lean and claim.lean re-derived from them ({how}) equal the bundle's "
                          "byte for byte")
                return _Derivation(t, spec, demands, classify, budget, binds, detail, tuple(own_model), spec_given)
    if first is None:
        assert error is not None
        raise _Invalid("inputs", f"the inputs cannot be formalized: {error.message}")
    for name in ("spec.lean", "tests.lean", "claim.lean"):
        if first.get(name) != want[name]:
            line, a, b = _first_diff(want[name], first.get(name, ""))
            raise _Invalid("inputs", f"claim does not follow from the inputs: {name} differs from the one re-derived "
                                     f"from them (line {line}: bundle {a!r}, re-derived {b!r})")
    raise _Invalid("inputs", "claim does not follow from the inputs")  # pragma: no cover


def _incomplete(missing: Sequence[InputFile], bundled: dict[str, bytes]) -> _Incomplete:
    """The error of ``--inputs`` lacking the manifest inputs ``missing``, each named, with the fix."""
    parts, model = [], False
    for mi in missing:
        what = f"{mi.path} (role {mi.role}, sha256 {mi.sha256[:16]}…"
        if mi.path in bundled:
            model = True
            what += ": written by a model; the bundle holds a copy, which is the bundle producer's"
        parts.append(what + ")")
    fix = ["give every input among --inputs (files are matched by sha256, wherever they are)"]
    if model:
        fix.append("a model-written input you reviewed can be given among --inputs too (e.g. the bundle's copy, "
                   "read first), or pass --accept-bundled-model-inputs to rest the claim on the bundle's copy")
    return _Incomplete("inputs", "--inputs does not hold every input of the bundle, so the claim was not re-derived: "
                                 f"missing {'; '.join(parts)}. Fix: {'; '.join(fix)}")


def _first_diff(a: str, b: str) -> tuple[int, str, str]:
    la, lb = a.split("\n"), b.split("\n")
    for i in range(max(len(la), len(lb))):
        x = la[i] if i < len(la) else "<end of file>"
        y = lb[i] if i < len(lb) else "<end of file>"
        if x != y:
            return i + 1, x[:100], y[:100]
    return len(la), "", ""


def _load_inputs(load, inputs: Sequence[Path], task_id: str, labels: dict[str, str],
                 manifest_inputs: Sequence[InputFile], bundled: dict[str, bytes], accept_bundled: bool = False):
    """The Task ``check`` built, its ``--spec`` or model-written spec program (or None), its
    model-read demands (or None), the model-written inputs taken from the bundle, and whether the
    spec came from the given files: from the given files (every manifest input must be among them,
    else ``_Incomplete``) and, with ``accept_bundled``, the model files ``bundled`` in the bundle;
    with the manifest's display paths."""
    from specguard.errors import InputError
    spec_mi = next((mi for mi in manifest_inputs if mi.role == "spec"), None)
    demands_mi = next((mi for mi in manifest_inputs if mi.role == "demands"), None)
    loaded_inputs = [mi for mi in manifest_inputs if mi.role not in ("spec", "demands")]
    own = [mi for mi in manifest_inputs if "#" not in mi.path]          # files, not text inside a file
    given: list[tuple[Path, str | None]] = []                          # (path, sha or None for a folder)
    for p in inputs:
        if p.is_dir():
            if not (p / "task.toml").is_file():
                raise _Invalid("inputs", f"input {p} is a folder without task.toml; pass the task's files")
            given.append((p, None))
            continue
        try:
            with open(p, "rb") as f:
                data = f.read(load.MAX_FILE_BYTES + 1)
        except OSError as e:
            raise _Invalid("inputs", f"cannot read input {p}: {e.strerror or e}") from e
        given.append((p, _sha(data)))
    # match files to manifest inputs by sha256 (folders are matched by what they hold, below)
    unmatched = list(own)
    matched: dict[str, Path] = {}                                      # manifest path -> given file
    folder_inputs = [p for p, s in given if s is None]
    for p, sha in given:
        if sha is None:
            continue
        hit = next((mi for mi in unmatched if mi.sha256 == sha), None)
        if hit is None:
            if any(mi.sha256 == sha for mi in own):
                continue                                                 # the same file given twice
            raise _Invalid("inputs", f"input {p} (sha256 {sha[:16]}…) matches no input of the manifest: it is not "
                                     "a file the bundle was made from, or it was changed")
        unmatched.remove(hit)
        matched[hit.path] = p
    roles = {mi.role for mi in loaded_inputs}
    model_bytes: dict[str, bytes] = {}
    own_model: list[str] = []
    missing: list[InputFile] = []                                      # manifest inputs not given
    for mi in (spec_mi, demands_mi):
        if mi is None:
            continue
        if mi.path in matched:
            model_bytes[mi.path] = matched[mi.path].read_bytes()
        elif accept_bundled and mi.path in bundled and MODEL_FILE_RE.fullmatch(mi.path) \
                and _sha(bundled[mi.path]) == mi.sha256:
            model_bytes[mi.path] = bundled[mi.path]                       # a model's output, kept in the bundle
            own_model.append(mi.path)
            unmatched = [u for u in unmatched if u is not mi]
        else:
            missing.append(mi)
            unmatched = [u for u in unmatched if u is not mi]
    spec_given = spec_mi is not None and spec_mi.path in matched
    if missing:
        # nothing is loaded from the bundle in their place: report every input that is missing
        rest = [] if any(m.role in ("task", "instance") for m in manifest_inputs) else \
            [mi for mi in unmatched if mi.path != "<text>"]
        raise _incomplete(missing + rest, bundled)
    spec = None
    if spec_mi is not None:
        from specguard.formalize import speclang
        try:
            spec = speclang.SpecProgram(model_bytes[spec_mi.path].decode("utf-8"), spec_mi.path)
        except (SpecGuardError, UnicodeDecodeError) as e:
            raise _Invalid("inputs", f"the spec {spec_mi.path} cannot be read: {e}") from e
        desc = next((mi for mi in loaded_inputs if mi.role == "description"), None)
        # `check --spec S` with no description describes the task by this sentence
        said = f"(the function is described by the spec {Path(spec_mi.path).name})"
        if desc is not None and desc.path == "<text>" and desc.path not in matched and spec_given \
                and desc.sha256 == _sha(said.encode("utf-8")):
            matched[desc.path] = said                                    # type: ignore[assignment]
            unmatched = [u for u in unmatched if u is not desc]
    model_demands = None
    if demands_mi is not None:
        from specguard.model.reader_agent import ModelDemands
        try:
            text = model_bytes[demands_mi.path].decode("utf-8")
            model_demands = ModelDemands.model_validate(load_json(text, demands_mi.path))
        except (ValueError, UnicodeDecodeError) as e:
            detail = _first_error(e) if isinstance(e, ValidationError) else str(e)
            raise _Invalid("inputs", f"{demands_mi.path} is not a valid model-demands file: {detail}") from e
    try:
        if "instance" in roles:
            src = _one(matched, manifest_inputs, "instance")
            task = load.load_swebench(str(src), task_id)
        elif "task" in roles and any(mi.path.lower().endswith((".json", ".jsonl")) for mi in manifest_inputs
                                     if mi.role == "task"):
            src = _one(matched, manifest_inputs, "task")
            task = load.load_lcb(str(src), task_id, labels.get("suite", "auto"))
        elif "task" in roles:
            toml = next(mi for mi in manifest_inputs if mi.role == "task")
            if folder_inputs:
                folder = folder_inputs[0]
            elif toml.path in matched:
                folder = matched[toml.path].parent
            else:
                raise _incomplete([toml], bundled)
            task = load.load_task_dir(str(folder))
            for mi in task.inputs:
                if not any(u.sha256 == mi.sha256 and u.role == mi.role for u in manifest_inputs):
                    raise _Invalid("inputs", f"{mi.path} in the given task folder (sha256 {mi.sha256[:16]}…) matches no "
                                             "input of the manifest: it is not a file the bundle was made from, or "
                                             "it was changed")
            for mi in task.inputs:                                       # the folder's files count as given
                hit = next((u for u in unmatched if u.sha256 == mi.sha256 and u.role == mi.role), None)
                if hit is not None:
                    unmatched.remove(hit)
        else:
            desc = next((mi for mi in loaded_inputs if mi.role == "description"), None)
            tests = [mi for mi in loaded_inputs if mi.role == "tests"]
            if desc is None or not tests:
                raise _Invalid("inputs", "the manifest's inputs are not a description and test files, a task folder, "
                                         "a LiveCodeBench JSON or a SWE-bench instance")
            absent = [mi for mi in [desc, *tests] if mi.path not in matched]
            if absent:
                raise _incomplete(absent, bundled)
            if desc.path == "<text>":
                given_desc = matched[desc.path]
                d = given_desc if isinstance(given_desc, str) else given_desc.read_bytes().decode("utf-8")
            else:
                d = str(matched[desc.path])
            # a pytest.ini & co is found again beside the test files, as `check` found it (never a test path)
            paths = [str(matched[mi.path]) for mi in tests if not pytestcfg.is_config(mi.path)]
            task = load.load_from_parts(d, paths, None, task_id=task_id)
    except InputError as e:
        raise _Invalid("inputs", f"the inputs cannot be loaded: {e.message}") from e
    if unmatched:
        raise _incomplete(unmatched, bundled)
    got = sorted((i.sha256, i.role) for i in task.inputs)
    want = sorted((i.sha256, i.role) for i in loaded_inputs)
    if got != want:
        raise _Invalid("inputs", "the task rebuilt from the inputs does not have the manifest's inputs "
                                 "(same files, same roles)")
    return _remap(task, manifest_inputs), spec, model_demands, own_model, spec_given


def _one(matched: dict[str, Path], manifest_inputs: Sequence[InputFile], role: str) -> Path:
    mi = next(mi for mi in manifest_inputs if mi.role == role)
    if mi.path not in matched:
        raise _incomplete([mi], {})
    return matched[mi.path]


def _remap(task, manifest_inputs: Sequence[InputFile]):
    """Show the given files under the paths ``check`` saw (locations are part of the Lean text)."""
    pairs: list[tuple[str, str]] = []
    pool = list(manifest_inputs)
    for i in task.inputs:
        hit = next((m for m in pool if m.sha256 == i.sha256 and m.role == i.role), None)
        if hit is not None:
            pool.remove(hit)
            if "#" not in i.path and "#" not in hit.path:
                pairs.append((i.path, hit.path))

    def fix(s: str) -> str:
        for a, b in pairs:
            if s == a:
                return b
            if s.startswith(a + "#"):
                return b + s[len(a):]
        return s

    tests = tuple(t.model_copy(update={"path": fix(t.path)}) for t in task.tests)
    return task.model_copy(update={"description_path": fix(task.description_path), "tests": tests,
                                   "inputs": tuple(manifest_inputs)})


# =====================================================================================
# export: one self-contained Lean file
# =====================================================================================

_MARK = "-- specguard: "
_SECTIONS = ("spec", "tests", "claim", "certificate")
_SECTION_HEADERS = {"spec": emit.HEADER, "tests": emit.HEADER, "claim": CLAIM_HEADER, "certificate": CERT_IMPORTS}
_SECTION_FILES = {"spec": "spec.lean", "tests": "tests.lean", "claim": "claim.lean", "certificate": CERT}


def _scope_closers(text: str) -> str:
    """``end`` lines closing every section/namespace ``text`` leaves open (trusted text only)."""
    stack: list[str] = []
    depth = 0
    for line in text.split("\n"):
        if depth == 0:
            m = re.fullmatch(r"(?:noncomputable\s+)?section(?:\s+(\S+))?\s*", line)
            if m:
                stack.append(f"end {m.group(1)}" if m.group(1) else "end")
            m2 = re.fullmatch(r"namespace\s+(\S+)\s*", line)
            if m2:
                stack.append(f"end {m2.group(1)}")
            if re.fullmatch(r"end(?:\s+\S+)?\s*", line) and stack:
                stack.pop()
        i, in_str = 0, False
        while i < len(line):
            two = line[i:i + 2]
            if depth == 0 and in_str:
                if line[i] == "\\":
                    i += 2
                    continue
                if line[i] == '"':
                    in_str = False
            elif depth == 0 and line[i] == '"':
                in_str = True
            elif depth == 0 and two == "--":
                break
            elif two == "/-":
                depth += 1
                i += 2
                continue
            elif depth > 0 and two == "-/":
                depth -= 1
                i += 2
                continue
            i += 1
    return "".join(s + "\n" for s in reversed(stack))


def _core_body(text: str) -> str:
    lines = [ln for ln in text.split("\n") if ln != "prelude" and not ln.startswith("import ")]
    return "\n".join(lines)


def export_prefix() -> str:
    """The fixed start of every exported file: the header comment and SpecGuard's core theory."""
    src = lean_runner.lean_source_dir()
    out = [
        "prelude\n",
        f"-- SpecGuard certificate export ({EXPORT_FORMAT}): one self-contained Lean 4.35.0 file holding\n",
        "-- SpecGuard's core theory, the task's statements (sections spec, tests, claim), the certificate\n",
        "-- (section certificate) and one final theorem per claim.\n",
        "--\n",
        "-- What a plain `lean THIS_FILE.lean` checks (accept only exit code 0, no error, and\n",
        "-- \"'final_X' does not depend on any axioms\" for every claim): that the proofs typecheck, with no\n",
        "-- axioms, against the statements AS WRITTEN IN THIS FILE. It does not check that these statements\n",
        "-- are the ones SpecGuard generates from the task's inputs: whoever edits a statement together\n",
        "-- with its proof (say `def Consistent : Prop := True`) gets a file plain Lean still accepts.\n",
        "--\n",
        "-- What only `specguard verify THIS_FILE.lean` checks: everything outside the four sections is\n",
        "-- exactly what `specguard export` writes; the statements have SpecGuard's generated shape and\n",
        "-- claim.lean is the standard statement of each claim; the claim hash on the meta line is the\n",
        "-- sha256 of the statements; the certificate's tokens. With `--inputs` it also re-derives the\n",
        "-- statements from the task's files; with `--claim-hash H` it checks them against a published hash.\n",
    ]
    # the checker's command-line options (certcheck.LEAN_OPTIONS), so a plain `lean FILE` needs no flags
    for opt in getattr(certcheck, "LEAN_OPTIONS", ()):
        name, _, value = opt[2:].partition("=")
        if not (opt.startswith("-D") and re.fullmatch(r"[A-Za-z][A-Za-z0-9_.]*", name)
                and re.fullmatch(r"[0-9]+|true|false", value)):
            raise SpecGuardError(f"cannot express the checker option {opt!r} in an exported file",
                                 hint="this is a SpecGuard bug; please report it")
        out.append(f"set_option {name} {value}\n")
    out.append(f"{_MARK}core begin (library hash {lean_runner.library_hash()})\n")
    for mod in lean_runner.LIBRARY_MODULES:
        body = _core_body((src / (mod.replace(".", "/") + ".lean")).read_text(encoding="utf-8"))
        if not body.endswith("\n"):
            body += "\n"
        out += [f"-- module {mod}\n", "section\n", body, _scope_closers(body), "end\n"]
    out.append(f"{_MARK}core end\n")
    return "".join(out)


def _meta_line(meta: ExportMeta) -> str:
    return f"{_MARK}meta " + json.dumps(meta.model_dump(mode="json"), ensure_ascii=True) + "\n"


def _render_export(meta: ExportMeta, bodies: dict[str, str]) -> tuple[str, dict[str, int]]:
    """The exported file's text, and for each claim the line of its ``#print axioms``."""
    parts = [export_prefix(), _meta_line(meta)]
    for sec in _SECTIONS:
        body = bodies[sec]
        closers = "end\nend\n" if sec == "certificate" else _scope_closers(body) + "end\n"
        parts += ["section\n", f"{_MARK}{sec} begin\n", body, f"{_MARK}{sec} end\n", closers]
    parts.append(f"{_MARK}final: each claim, restated from the Claim section, proved by the certificate\n")
    text = "".join(parts)
    line = text.count("\n") + 1
    prints: dict[str, int] = {}
    finals = []
    for c in meta.claims:
        finals.append(f"theorem final_{c} : _root_.{NS}.{c} := _root_.{NS}.proof_{c}\n")
        finals.append(f"#print axioms _root_.final_{c}\n")
        prints[c] = line + 1
        line += 2
    return text + "".join(finals), prints


def _bodies_of(texts: dict[str, str]) -> dict[str, str]:
    bodies = {}
    for sec in _SECTIONS:
        t = texts[_SECTION_FILES[sec]]
        head = _SECTION_HEADERS[sec]
        if not t.startswith(head) or not t.endswith("\n"):
            raise _Invalid("export", f"{_SECTION_FILES[sec]} does not start with its standard header")
        body = t[len(head):]
        if any(ln.startswith(_MARK) for ln in body.split("\n")):
            raise _Invalid("export", f"{_SECTION_FILES[sec]} contains a line starting with {_MARK!r}")
        bodies[sec] = body
    return bodies


def export_text(bundle: Path, *, timeout: float = 60.0) -> tuple[str, VerifyReport]:
    """Verify ``bundle`` (folder or archive) and return its certificate as one self-contained
    Lean file (see :data:`EXPORT_FORMAT`), checked by compiling it on its own.

    Raises :class:`InvalidBundle` when the bundle is not VALID (invalid, or its verdict carries no
    kernel claim)."""
    run = _Run(Path(bundle), timeout, lean_runner.DEFAULT_MEMORY_MB)
    try:
        run.kind, files = read_bundle_files(Path(bundle))      # exported from the very bytes verified
        rep = _verify_files(run, files, ())
    except _Invalid as e:
        rep = run.report(e)
    if rep.status == "not-certified":
        raise InvalidBundle(f"{bundle}: not exported: {rep.reason}",
                            hint="export bundles whose verdict is certified (`specguard verify` says VALID)")
    if not rep.valid:
        raise InvalidBundle(f"{bundle}: invalid bundle, not exported: {rep.reason}",
                            hint="`specguard verify` shows every check")
    texts = {n: d.decode("utf-8") for n, d in files.items()}
    m = Manifest.model_validate(load_json(texts[MANIFEST], MANIFEST))
    r = _result_of(texts[RESULT])
    trusted = {kind: texts[fname] for kind, fname in TRUSTED_FILES.items()}
    meta = ExportMeta(task_id=m.task_id, verdict=m.verdict, evidence=m.evidence, claims=m.claims,
                      core_hash=m.core_hash, lean_version=m.lean_version, lean_commit=m.lean_commit,
                      specguard_version=m.specguard_version, inputs=m.inputs, labels=dict(r.labels), options=m.options,
                      model_files={n: t for n, t in sorted(texts.items()) if MODEL_FILE_RE.fullmatch(n)},
                      claim_hash=claim_hash(trusted))
    try:
        text, prints = _render_export(meta, _bodies_of(texts))
        _compile_export(text, meta.claims, prints, timeout)
    except _Invalid as e:
        raise InvalidBundle(f"{bundle}: cannot export: {e.detail}") from e
    return text, rep


def write_export(bundle: Path, out_file: Path, *, timeout: float = 60.0) -> VerifyReport:
    """:func:`export_text`, written atomically to ``out_file``."""
    text, rep = export_text(bundle, timeout=timeout)
    _write_atomic(Path(out_file), text.encode("utf-8"))
    return rep


def _compile_export(text: str, claims: Sequence[str], prints: dict[str, int], timeout: float,
                    memory_mb: int = lean_runner.DEFAULT_MEMORY_MB) -> float:
    """Compile the whole exported file on its own (no import path); every claim must depend on
    no axioms, reported at its own ``#print axioms`` line."""
    with tempfile.TemporaryDirectory(prefix="specguard-export-") as tmp:
        f = Path(tmp) / "Export.lean"
        f.write_text(text, encoding="utf-8")
        try:
            res = lean_runner.run_lean([str(f)], lean_path=(), cwd=Path(tmp), timeout=timeout, memory_mb=memory_mb)
        except (LeanTimeout, LeanCrash) as e:
            raise _Invalid("compile", f"Lean failed on the exported file: {e.message}") from e
    if not res.ok:
        first = res.errors[0] if res.errors else f"exit {res.exit_code}"
        raise _Invalid("compile", f"the exported file does not compile on its own: {first}")
    for c in claims:
        at = [m for m in res.messages if m.line == prints[c] and m.severity != "warning"]
        want = f"'final_{c}' does not depend on any axioms"
        if len(at) != 1 or at[0].text.strip() != want:
            got = "; ".join(m.text.strip()[:120] for m in at) or "no message"
            raise _Invalid("compile", f"#print axioms for final_{c} did not report 'no axioms': {got}")
    return res.seconds


def _verify_export(run: _Run, path: Path, inputs: Sequence[Path]) -> VerifyReport:
    try:
        size = path.stat().st_size
    except OSError as e:
        raise BundleError(f"{path}: cannot read: {e.strerror or e}", hint="check the path") from e
    if not path.is_file():
        raise BundleError(f"{path}: not a regular file", hint="pass an exported .lean file")
    if size > MAX_EXPORT_BYTES:
        raise _Invalid("export", f"the file is {size:,} bytes, over the {MAX_EXPORT_BYTES // 2**20} MB limit")
    with open(path, "rb") as f:
        raw = f.read(MAX_EXPORT_BYTES + 1)
    if len(raw) > MAX_EXPORT_BYTES:
        raise _Invalid("export", f"the file is over the {MAX_EXPORT_BYTES // 2**20} MB limit")
    text = _decode(path.name, raw)
    prefix = export_prefix()
    if not text.startswith(prefix):
        if not text.startswith("prelude\n"):
            raise _Invalid("export", "not a SpecGuard export: it does not start with `prelude` and SpecGuard's header")
        line, a, b = _first_diff(prefix, text[:len(prefix)])
        raise _Invalid("export", f"the core theory in this file is not SpecGuard's (library hash "
                                 f"{lean_runner.library_hash()[:16]}…): line {line} differs "
                                 f"(expected {a!r}, found {b!r})")
    run.ok("core", f"the file starts with SpecGuard's exact core theory (library hash "
                   f"{lean_runner.library_hash()[:16]}…)")
    rest = text[len(prefix):]
    first, _, rest_after = rest.partition("\n")
    if not first.startswith(f"{_MARK}meta "):
        raise _Invalid("export", f"line {prefix.count(chr(10)) + 1}: expected the `{_MARK}meta` line")
    try:
        meta = ExportMeta.model_validate(load_json(first[len(f"{_MARK}meta "):], "the meta line"))
    except ValueError as e:
        detail = _first_error(e) if isinstance(e, ValidationError) else str(e)
        raise _Invalid("export", f"the meta line is not valid: {detail}") from e
    run.task_id, run.verdict, run.evidence, run.claims = meta.task_id, meta.verdict, meta.evidence, tuple(meta.claims)
    bodies: dict[str, str] = {}
    for sec in _SECTIONS:
        b, e = f"\n{_MARK}{sec} begin\n", f"\n{_MARK}{sec} end\n"
        if text.count(b) != 1 or text.count(e) != 1:
            raise _Invalid("export", f"the file must hold exactly one `{_MARK}{sec} begin` and one `... end` line")
        i, j = text.index(b) + len(b), text.index(e) + 1
        if j < i:
            raise _Invalid("export", f"the {sec} section's markers are out of order")
        bodies[sec] = text[i:j]
    texts = {sec: _SECTION_HEADERS[sec] + bodies[sec] for sec in _SECTIONS}
    expected, prints = _render_export(meta, bodies)
    if expected != text:
        line, a, b = _first_diff(expected, text)
        raise _Invalid("export", f"outside its spec/tests/claim/certificate sections the file differs from what "
                                 f"`specguard export` writes: line {line} (expected {a!r}, found {b!r})")
    run.ok("export", "everything outside the sections is exactly what `specguard export` writes for these sections "
                     f"and claims ({', '.join(meta.claims) or 'none'})")
    run.runtime(meta.core_hash, meta.lean_version, meta.lean_commit, meta.specguard_version)
    if not meta.claims:
        raise _Invalid("claims", "the exported file states no claim")
    run.claims_consistent(meta.verdict, meta.evidence, meta.claims, True)
    trusted = {"Spec": texts["spec"], "Tests": texts["tests"], "Claim": texts["claim"]}
    run.ok("claims", f"{', '.join(meta.claims)} claimed, consistent with '{meta.verdict.value}, "
                     f"{meta.evidence.value}'")
    run.ok("trusted files", _check_trusted(trusted, meta.claims))
    run.every_test_entailed(trusted)
    run.statement_hash(trusted)
    if meta.claim_hash != run.claim_hash:
        raise _Invalid("claim hash", f"the meta line's claim hash {meta.claim_hash} is not the sha256 of the file's "
                                     f"statements ({run.claim_hash}): the statements were edited after export")
    run.ok("claim hash", f"the meta line's claim hash is the sha256 of the file's statements ({run.claim_hash})")
    cert = texts["certificate"].encode("utf-8")
    why = certcheck.scan_certificate(cert)
    if why:
        raise _Invalid("certificate", f"certificate section: {why}")
    run.ok("certificate", "the certificate section has the fixed header and no banned token")
    bundled = {n: t.encode("utf-8") for n, t in meta.model_files.items()}
    _check_model_files(bundled, meta.inputs, "export")
    run.inputs(inputs, meta.task_id, dict(meta.labels), meta.inputs, trusted, bundled, meta.options)
    run.kernel(trusted, cert, meta.claims)
    secs = _compile_export(text, meta.claims, prints, run.timeout, run.memory_mb)
    run.ok("compile", f"the whole file compiles on its own with no import path in {secs:.2f} s; every final_X "
                      "depends on no axioms")
    if run.derivation is not None:           # the verdict on the meta line, re-derived from the inputs
        mine = run.rederived_result(meta.claims)
        if (mine.verdict, mine.evidence) != (meta.verdict, meta.evidence):
            raise _Invalid("result", f"the meta line's verdict {meta.verdict.value} ({meta.evidence.value}) is not "
                                     f"what `check` derives from the inputs: {mine.verdict.value} "
                                     f"({mine.evidence.value})")
        run.ok("result", f"the verdict {meta.verdict.value} ({meta.evidence.value}) is what `check` derives from "
                         "the inputs")
    return run.report(None)
