"""Opening untrusted ``.tar.gz`` and ``.zip`` archives with bounded memory and time.

Python's ``tarfile`` reads a pax extended header or a GNU long-name header in one ``read`` of the
size the header declares (a 3 MB ``.tar.gz`` can declare 3 GB), before any member check can run;
``zipfile`` reads the whole central directory, of the size the end record declares, and builds an
object per entry in its constructor.  So the checks must come first:

* :func:`open_tar_gz` gives ``tarfile`` a stream that refuses, before the bytes are read, any
  extension header (pax ``x``/``g``/``X``, GNU ``L``/``K``) over :data:`MAX_EXT_HEADER_BYTES`, more
  than :data:`MAX_EXT_HEADERS` of them, GNU sparse headers, and any read or seek past a total
  budget of decompressed bytes;
* :func:`zip_directory_checked` reads the end-of-central-directory record (found exactly as
  ``zipfile`` finds it, zip64 included) and refuses a declared entry count or directory size over
  the limits before ``zipfile.ZipFile`` is constructed on the same open file.

A refusal is a :class:`~specguard.errors.BundleError` (exit 3): the file is not a bundle at all.
"""

from __future__ import annotations

import contextlib
import gzip
import struct
import tarfile
import zipfile
import zlib
from pathlib import Path
from typing import BinaryIO, Iterator

from specguard.errors import BundleError

MAX_EXT_HEADER_BYTES = 64 * 1024
"""Largest pax or GNU long-name header accepted (bytes)."""

MAX_EXT_HEADERS = 64
"""Most pax / GNU long-name headers accepted in one archive."""

MAX_ZIP_DIRECTORY_BYTES = 1024 * 1024
"""Largest zip central directory accepted (bytes)."""

_BLOCK = tarfile.BLOCKSIZE
_EXT_TYPES = {tarfile.XHDTYPE: "pax extended", tarfile.XGLTYPE: "pax global", tarfile.SOLARIS_XHDTYPE: "pax extended",
              tarfile.GNUTYPE_LONGNAME: "GNU long-name", tarfile.GNUTYPE_LONGLINK: "GNU long-link"}
_HINT = "a bundle archive is small: re-create it with `specguard export BUNDLE --archive FILE`"


def _header_size(block: bytes) -> int | None:
    """The size field of a tar header block (octal or GNU base-256), or None if it is not a valid
    header (checksum mismatch) - the same reading as ``tarfile``'s."""
    try:
        chksum = tarfile.nti(block[148:156])
    except tarfile.InvalidHeaderError:
        return None
    if chksum not in tarfile.calc_chksums(block):
        return None
    try:
        return tarfile.nti(block[124:136])
    except tarfile.InvalidHeaderError:
        return None


class _TarGuard:
    """A read-only, seekable stream over the decompressed tar data that ``tarfile`` reads through:
    every header block is checked before ``tarfile`` acts on it, and no read or seek goes past
    ``budget`` bytes or asks for more than ``max_read`` at once."""

    def __init__(self, raw: BinaryIO, display: str, budget: int, max_read: int) -> None:
        self._raw = raw
        self._display = display
        self._budget = budget
        self._max_read = max_read
        self._ext = 0

    def _refuse(self, why: str) -> BundleError:
        return BundleError(f"{self._display}: refused: {why}", hint=_HINT)

    def _io(self, fn, *a):
        try:
            return fn(*a)
        except (zlib.error, EOFError, gzip.BadGzipFile) as e:
            raise tarfile.ReadError(f"damaged gzip data: {e}") from e

    def tell(self) -> int:
        return self._raw.tell()

    def seek(self, pos: int, whence: int = 0) -> int:
        target = pos if whence == 0 else (self._raw.tell() + pos if whence == 1 else None)
        if target is None:
            raise OSError("the archive stream can only seek to absolute or relative positions")
        if target > self._budget:
            raise self._refuse(f"the tar data goes past {self._budget:,} bytes (decompressed)")
        return self._io(self._raw.seek, target)

    def read(self, n: int = -1) -> bytes:
        if n is None or n < 0 or n > self._max_read:
            raise self._refuse(f"a tar header or member asks for {n:,} bytes at once, over {self._max_read:,}"
                               if n is not None and n >= 0 else "an unbounded read of the tar data")
        if self._raw.tell() + n > self._budget:
            raise self._refuse(f"the tar data goes past {self._budget:,} bytes (decompressed)")
        data = self._io(self._raw.read, n)
        if n == _BLOCK and len(data) == _BLOCK:
            self._check_header(data)
        return data

    def _check_header(self, block: bytes) -> None:
        kind = block[156:157]
        if kind not in _EXT_TYPES and kind != tarfile.GNUTYPE_SPARSE:
            return
        size = _header_size(block)
        if size is None:
            return  # not a header: tarfile will not act on it either
        if kind == tarfile.GNUTYPE_SPARSE:
            raise self._refuse("the archive holds a GNU sparse member (a bundle holds plain files only)")
        self._ext += 1
        if self._ext > MAX_EXT_HEADERS:
            raise self._refuse(f"the archive holds more than {MAX_EXT_HEADERS} pax / GNU long-name headers")
        if size > MAX_EXT_HEADER_BYTES:
            raise self._refuse(f"a {_EXT_TYPES[kind]} header declares {size:,} bytes, over the "
                               f"{MAX_EXT_HEADER_BYTES // 1024} KB limit (an archive bomb?)")


@contextlib.contextmanager
def open_tar_gz(path: Path, *, budget: int, max_read: int) -> Iterator[tarfile.TarFile]:
    """``tarfile`` over the gzip-compressed file ``path``, guarded as the module says: at most
    ``budget`` decompressed bytes are ever read, no single read over ``max_read`` (the largest
    member a caller accepts, plus a block)."""
    with open(path, "rb") as fh, gzip.GzipFile(fileobj=fh, mode="rb") as gz:
        guard = _TarGuard(gz, str(path), budget, max_read)
        with tarfile.open(fileobj=guard, mode="r:") as tf:  # type: ignore[call-overload]
            yield tf


def zip_directory_checked(fh: BinaryIO, display: str, max_entries: int,
                          max_bytes: int = MAX_ZIP_DIRECTORY_BYTES) -> BinaryIO:
    """Refuse a zip whose end-of-central-directory record (the one ``zipfile`` would use) declares
    more than ``max_entries`` entries or a central directory over ``max_bytes``, before
    ``zipfile.ZipFile(fh)`` reads that directory.  A file with no end record is left to
    ``zipfile`` (which refuses it as not a zip).  Returns ``fh``, at its position."""
    pos = fh.tell()
    try:
        endrec = zipfile._EndRecData(fh)  # noqa: SLF001 - exactly the record ZipFile will read
    except zipfile.BadZipFile:
        endrec = None  # zipfile refuses it the same way
    except (OSError, struct.error) as e:
        raise BundleError(f"{display}: the archive cannot be read as .zip: {e}", hint=_HINT) from e
    finally:
        fh.seek(pos)
    if not endrec:
        return fh
    entries, size = endrec[zipfile._ECD_ENTRIES_TOTAL], endrec[zipfile._ECD_SIZE]  # noqa: SLF001
    if entries > max_entries:
        raise BundleError(f"{display}: refused: the zip declares {entries:,} entries, more than {max_entries}",
                          hint=_HINT)
    if size > max_bytes:
        raise BundleError(f"{display}: refused: the zip's central directory declares {size:,} bytes, over the "
                          f"{max_bytes // 1024} KB limit (an archive bomb?)", hint=_HINT)
    return fh
