"""Stage 6: write a check's outputs as a bundle folder, atomically.

A bundle (format ``specguard-bundle/1``) is a folder holding ``result.json``,
``manifest.json``, ``spec.lean``, ``tests.lean``, ``claim.lean``, when a
certificate was accepted, ``cert.lean``, and when the claim rests on what a model
wrote, that file (``model-spec-N.py``, ``model-demands.json``; manifest inputs).  ``manifest.json`` binds them together:
the sha256 of every input and output file, the core theory's hash and the Lean
version and commit.  The folder is written under a temporary name and renamed
into place, so a reader never sees half a bundle.
"""

from __future__ import annotations

import datetime as _dt
import hashlib
import os
import re
import shutil
import tempfile
from pathlib import Path

from specguard import __version__
from specguard.kernel import runner as lean_runner
from specguard.check import Bundle
from specguard.errors import SpecGuardError
from specguard.models import Task
from specguard.outputs.results import MODEL_FILE_RE, Manifest, load_json

RESULT = "result.json"
MANIFEST = "manifest.json"
LEAN_FILES = ("spec.lean", "tests.lean", "claim.lean", "cert.lean")


def sha256_text(text: str) -> str:
    return hashlib.sha256(text.encode("utf-8")).hexdigest()


def default_out_dir(task_id: str, base: Path | None = None) -> Path:
    safe = re.sub(r"[^A-Za-z0-9_.-]+", "_", task_id)[:80] or "task"
    stamp = _dt.datetime.now().strftime("%Y%m%d-%H%M%S-%f")
    return (base or Path("specguard-out")) / f"{safe}-{stamp}"


def bundle_texts(task: Task, b: Bundle) -> dict[str, str]:
    """Every file of the bundle, manifest included, as text."""
    files = {name: b.files[name] for name in LEAN_FILES if name in b.files}
    files.update({name: text for name, text in b.files.items() if MODEL_FILE_RE.fullmatch(name)})
    files[RESULT] = b.result.model_dump_json(indent=2) + "\n"
    rt = lean_runner.find_runtime()
    manifest = Manifest(task_id=task.id, specguard_version=__version__, lean_version=rt.version,
                        lean_commit=rt.commit, core_hash=lean_runner.library_hash(), inputs=task.inputs + tuple(b.inputs),
                        outputs={n: sha256_text(t) for n, t in sorted(files.items())}, claims=b.claims,
                        verdict=b.result.verdict, evidence=b.result.evidence, options=b.options)
    files[MANIFEST] = manifest.model_dump_json(indent=2) + "\n"
    return files


def with_spec(task: Task, spec_path: str) -> Task:
    """``task`` with the ``--spec`` file added to its inputs (role spec, by sha256), as the bundle's
    manifest records it."""
    from specguard.models import InputFile
    try:
        digest = hashlib.sha256(Path(spec_path).read_bytes()).hexdigest()
    except OSError as e:
        raise SpecGuardError(f"{spec_path}: cannot read the spec: {e.strerror or e}", hint="check the path") from e
    return task.model_copy(update={"inputs": task.inputs + (InputFile(path=spec_path, sha256=digest, role="spec"),)})


def umask() -> int:
    """The process's umask (read without changing it for longer than the call)."""
    mask = os.umask(0o022)
    os.umask(mask)
    return mask


def replaceable_problem(out: Path) -> str | None:
    """Why the existing folder ``out`` may not be replaced by a new bundle (replacing removes it
    whole), or None: an empty folder, or an earlier bundle, holding nothing but a bundle's regular
    files and a ``manifest.json`` of the bundle format.  A folder that merely holds a file named
    ``manifest.json`` (a web app's, a browser extension's) is not a bundle."""
    try:
        if out.is_symlink():
            return "a symbolic link"
        if not out.is_dir():
            return "not a folder"
        names = sorted(os.listdir(out))
        if not names:
            return None
        for name in names:
            if name not in (RESULT, MANIFEST, *LEAN_FILES) and not MODEL_FILE_RE.fullmatch(name):
                return f"it holds {name!r}"
            if not (out / name).is_file() or (out / name).is_symlink():
                return f"{name} is not a regular file"
        if MANIFEST not in names or (out / MANIFEST).stat().st_size > 8 << 20:
            return f"no {MANIFEST} of a bundle"
        head = load_json((out / MANIFEST).read_text(encoding="utf-8"), str(out / MANIFEST))
    except (OSError, ValueError) as e:
        return f"its {MANIFEST} cannot be read: {e}"
    if not isinstance(head, dict) or head.get("bundle_format") != Manifest.model_fields["bundle_format"].default:
        return f"its {MANIFEST} is not a SpecGuard manifest"
    return None


def check_replaceable(out: Path) -> None:
    """Raise unless a bundle may be written to ``out`` (a new folder, or one :func:`replaceable_problem`
    allows): checked before any work, and again when the bundle is written."""
    why = replaceable_problem(out) if (out.exists() or out.is_symlink()) else None
    if why:
        raise SpecGuardError(f"{out} exists and is not a SpecGuard bundle ({why}); refusing to replace it",
                             hint="choose another --out folder (a new one, or an earlier bundle)")


def write_bundle(out: Path, task: Task, b: Bundle) -> Path:
    """Write the bundle to ``out`` (replacing an earlier bundle there) atomically."""
    out = Path(out)
    files = bundle_texts(task, b)
    try:
        out.parent.mkdir(parents=True, exist_ok=True)
        tmp = Path(tempfile.mkdtemp(dir=out.parent, prefix=f".{out.name}.tmp"))
    except OSError as e:
        raise SpecGuardError(f"cannot create the output folder {out}: {e}",
                             hint="choose a writable --out folder") from e
    try:
        # mkdtemp makes the folder 0700: give it the mode a plain mkdir would (the umask decides
        # who may read bundles; the files are written with open(), which respects it already)
        os.chmod(tmp, 0o777 & ~umask())
        for name, text in files.items():
            (tmp / name).write_text(text, encoding="utf-8")
        if out.exists():
            check_replaceable(out)
            old = Path(tempfile.mkdtemp(dir=out.parent, prefix=f".{out.name}.old"))
            os.replace(out, old / "b")
            os.replace(tmp, out)
            shutil.rmtree(old, ignore_errors=True)
        else:
            os.replace(tmp, out)
    finally:
        if tmp.exists():
            shutil.rmtree(tmp, ignore_errors=True)
    return out
