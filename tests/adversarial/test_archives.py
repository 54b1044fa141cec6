"""Bundle and archive layer: archive bombs (issue 11, items 19 and 21).

Every bomb is built here, small on disk and huge once read; the real CLI runs on it in a subprocess
under a 1 GB address-space limit and a time limit, and must refuse it with exit 3 and a message,
never a traceback or a MemoryError.  No Lean run: the archive is refused before any is started.
"""

from __future__ import annotations

import gzip
import io
import os
import resource
import struct
import subprocess
import sys
import tarfile
import time
import zipfile
from pathlib import Path

import pytest

from specguard.outputs import archive, verify
from specguard.cli import main
from specguard.errors import BundleError

ROOT = Path(__file__).resolve().parents[2]
GB = 1 << 30
LIMIT_AS = 1 * GB


def _limit_memory() -> None:
    resource.setrlimit(resource.RLIMIT_AS, (LIMIT_AS, LIMIT_AS))


def run_limited(*args: str, cwd: Path) -> tuple[subprocess.CompletedProcess, float]:
    """``python -m specguard ARGS`` under RLIMIT_AS = 1 GB, with its wall time."""
    env = dict(os.environ, PYTHONPATH=str(ROOT))
    t = time.monotonic()
    p = subprocess.run([sys.executable, "-m", "specguard", *args], capture_output=True, text=True, cwd=str(cwd),
                       env=env, timeout=120, preexec_fn=_limit_memory)
    return p, time.monotonic() - t


def _header(name: str, kind: bytes, size: int) -> bytes:
    ti = tarfile.TarInfo(name)
    ti.type, ti.size = kind, size
    return ti.tobuf(format=tarfile.GNU_FORMAT)


def _tar_bomb(path: Path, kind: bytes, declared: int = 3 * GB) -> Path:
    """A .tar.gz of ~3 MB: an extension header declaring ``declared`` bytes, then that many zero
    bytes of data (concatenated gzip members of 64 MB of zeros each, as gzip allows)."""
    zeros = gzip.compress(b"\0" * (64 << 20), compresslevel=9, mtime=0)
    with open(path, "wb") as f:
        f.write(gzip.compress(_header("././@PaxHeader", kind, declared), mtime=0))
        for _ in range(declared // (64 << 20)):
            f.write(zeros)
    return path


def _zip_directory_bomb(path: Path, entries: int = 1_000_000, declared_entries: int = 20) -> Path:
    """A 47 MB zip whose central directory holds a million entries (its end record claims 20)."""
    name = b"a"
    cd = struct.pack("<4s4B4HL2L5H2L", b"PK\x01\x02", 20, 3, 20, 0, 0, 0, 0, 0, 0, 0, 0, len(name),
                     0, 0, 0, 0, 0, 0) + name
    body = cd * entries
    eocd = struct.pack("<4s4H2LH", b"PK\x05\x06", 0, 0, declared_entries, declared_entries, len(body), 0, 0)
    path.write_bytes(body + eocd)
    return path


@pytest.mark.parametrize("kind,what", [(tarfile.XHDTYPE, "pax extended"), (tarfile.GNUTYPE_LONGNAME, "GNU long-name")])
def test_tar_gz_header_bomb_is_refused_in_bounded_memory(tmp_path, kind, what):
    """#11.19/#11.21: a 3 MB .tar.gz whose pax (or GNU long-name) header declares 3 GB: refused before
    tarfile buffers it, exit 3 with a message, under a 1 GB address-space limit, in seconds (before:
    3 GB RSS, or a MemoryError traceback under a limit, and a minute)."""
    bomb = _tar_bomb(tmp_path / "bomb.tar.gz", kind)
    assert bomb.stat().st_size < 4 << 20
    p, seconds = run_limited("verify", str(bomb), cwd=tmp_path)
    assert p.returncode == 3, p.stderr + p.stdout
    assert f"a {what} header declares 3,221,225,472 bytes, over the 64 KB limit" in p.stderr
    assert "Traceback" not in p.stderr and "MemoryError" not in p.stderr
    assert seconds < 30


def test_zip_central_directory_bomb_is_refused_before_it_is_read(tmp_path):
    """#11.19: a 47 MB zip with a million central-directory entries: refused from its end record,
    before zipfile reads the directory (before: 400 MB and 9 s, then "more than 20 members")."""
    bomb = _zip_directory_bomb(tmp_path / "bomb.zip")
    p, seconds = run_limited("verify", str(bomb), cwd=tmp_path)
    assert p.returncode == 3, p.stderr + p.stdout
    assert "central directory declares 47,000,000 bytes, over the 1024 KB limit" in p.stderr
    assert "Traceback" not in p.stderr
    assert seconds < 30


def test_zip_declaring_too_many_entries_is_refused(tmp_path, capsys):
    """#11.19: the end record's entry count is checked before the directory is read."""
    bomb = _zip_directory_bomb(tmp_path / "many.zip", entries=100, declared_entries=65535)
    assert main(["verify", str(bomb)]) == 3
    assert "the zip declares 65,535 entries, more than 20" in capsys.readouterr().err


def _tar_gz(path: Path, blocks: list[bytes]) -> Path:
    path.write_bytes(gzip.compress(b"".join(blocks) + b"\0" * 1024, mtime=0))
    return path


def _member(name: str, data: bytes, **pax: str) -> bytes:
    ti = tarfile.TarInfo(name)
    ti.size = len(data)
    if pax:
        ti.pax_headers = pax
    pad = (-len(data)) % tarfile.BLOCKSIZE
    return ti.tobuf(format=tarfile.PAX_FORMAT) + data + b"\0" * pad


@pytest.mark.parametrize("kind", [tarfile.XGLTYPE, tarfile.GNUTYPE_LONGLINK, tarfile.SOLARIS_XHDTYPE])
def test_other_extension_headers_are_bounded_too(tmp_path, kind, capsys):
    """#11.19: a global pax header, a GNU long-link header or a Solaris extended header over 64 KB
    (here 1 MB, real bytes) is refused before tarfile reads it."""
    body = b"9" * (1 << 20)
    bomb = _tar_gz(tmp_path / "h.tar.gz", [_header("x", kind, len(body)), body])
    assert main(["verify", str(bomb)]) == 3
    assert "header declares 1,048,576 bytes, over the 64 KB limit" in capsys.readouterr().err


def test_many_small_extension_headers_are_refused(tmp_path):
    """#11.19: pax headers do not count as members in tarfile's loop; their number is capped."""
    rec = b"20 comment=aaaaaaaa\n"
    hdr = _header("././@PaxHeader", tarfile.XGLTYPE, len(rec)) + rec + b"\0" * (tarfile.BLOCKSIZE - len(rec))
    bomb = _tar_gz(tmp_path / "g.tar.gz", [hdr] * 200)
    with pytest.raises(BundleError, match="more than 64 pax / GNU long-name headers"):
        verify.read_bundle_files(bomb)


def test_sparse_member_is_refused_before_its_maps_are_read(tmp_path):
    """#11.19: a GNU sparse header (whose extension blocks tarfile reads in a loop) is refused."""
    bomb = _tar_gz(tmp_path / "s.tar.gz", [_header("spec.lean", tarfile.GNUTYPE_SPARSE, 10)])
    with pytest.raises(BundleError, match="GNU sparse member"):
        verify.read_bundle_files(bomb)


def test_member_data_past_the_budget_is_refused(tmp_path):
    """#11.19: reads and seeks of the decompressed tar data stop at the budget."""
    raw = io.BytesIO(b"\0" * 4096)
    g = archive._TarGuard(raw, "x.tar.gz", budget=2048, max_read=1024)
    with pytest.raises(BundleError, match="goes past 2,048 bytes"):
        g.seek(4096)
    with pytest.raises(BundleError, match="asks for 2,000 bytes at once"):
        g.read(2000)
    with pytest.raises(BundleError, match="unbounded read"):
        g.read()


def test_small_pax_headers_and_plain_zips_are_still_read(tmp_path):
    """#11.19: the guard refuses bombs only: a member with a small pax header (as macOS tar and
    Python's default format write) and an ordinary zip are read as before."""
    a = _tar_gz(tmp_path / "ok.tar.gz", [_member("result.json", b"{}", comment="hello", mtime="1.5"),
                                         _member("spec.lean", b"-- x\n")])
    kind, files = verify.read_bundle_files(a)
    assert kind == "archive" and files == {"result.json": b"{}", "spec.lean": b"-- x\n"}
    z = tmp_path / "ok.zip"
    with zipfile.ZipFile(z, "w", compression=zipfile.ZIP_DEFLATED) as zf:
        zf.writestr("result.json", "{}")
        zf.comment = b"an archive comment"
    assert verify.read_bundle_files(z) == ("archive", {"result.json": b"{}"})
