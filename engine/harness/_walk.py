"""An upload as a flat list of files: one file, a directory tree, or a zip of one.

Nothing is extracted to disk. Members are read lazily, so detection by name is free;
zip members (stored, DEFLATE, Zstandard) are inflated by :mod:`engine.io._zip` and gzip
files by :mod:`engine.io._bytes`, both within the size limit. An Inspect ``.eval`` log is
itself a zip: it stays one file, never a directory.
"""

from __future__ import annotations

import io
import posixpath
import re
import struct
import zipfile
import zlib
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import IO

import numpy as np

from .._contract import DataContractError, Problem
from ..io._bytes import decompress
from ..io._limits import reading
from ..io._zip import ZSTD, inflate, member_bytes

__all__ = ["LogFile", "Source", "certainly_shallow", "is_inspect_zip", "open_zip",
           "read_zip_members", "walk"]

#: What :func:`engine.harness.read_harness` accepts as ``source``.
Source = str | Path | bytes | tuple[str, bytes] | IO[bytes]

_ZIP_MAGIC = b"PK\x03\x04"
_EMPTY_ZIP = b"PK\x05\x06"
_INSPECT_MEMBERS = ("header.json", "_journal/start.json")
#: Files beside a single uploaded file that name its system or describe its run.
_COMPANION = re.compile(r"^(results(_.*)?\.json|run_spec\.json|"
                        r"(?!samples_).+_\d{4}-\d\d-\d\dT[\d.-]+\.json)$")  # lm-eval --output_path x.json


@dataclass(frozen=True)
class LogFile:
    """One file of an upload. ``path`` is relative to the upload's root (posix)."""

    path: str
    label: str
    loader: Callable[[], bytes]

    @property
    def name(self) -> str:
        return posixpath.basename(self.path)

    @property
    def parent(self) -> str:
        return posixpath.dirname(self.path)

    def read(self) -> bytes:
        """The bytes, gzip-decompressed when they start with the gzip magic."""
        reading(self.label)
        return decompress(self.loader(), self.label)

    def problem(self, rule: str, fix: str, **where: object) -> DataContractError:
        return DataContractError([Problem(self.label, rule=rule, fix=fix, **where)])  # type: ignore[arg-type]


_NOT_SPECIAL = bytes(b for b in range(256) if b not in b'[]{}"\n')
_STEP = np.zeros(256, np.int8)
_STEP[list(b"[{")] = 1
_STEP[list(b"]}")] = -1


def certainly_shallow(data: bytes, limit: int) -> bool:
    """True when the bracket depth of ``data`` is at most ``limit``, told fast; False when
    it is deeper *or* the fast way cannot tell (then :func:`engine.io._limits.nesting_depth`
    decides).

    The depth is :func:`~engine.io._limits.nesting_depth`'s (brackets inside strings do not
    count, a newline ends a string), computed on the bracket, quote and newline bytes
    alone (``bytes.translate`` drops the rest in C) when the text is plain: no quote right
    after a backslash (so none is escaped), an even number of quotes on every line (no
    string crosses a newline) and no closing bracket before its opener (no reflection at
    zero). Valid JSON Lines without escaped quotes always are.

    >>> certainly_shallow(b'{"a": [1, "]]"]}', 2), certainly_shallow(b'[[[1]]]', 2)
    (True, False)
    """
    if b'\\"' in data:
        return False
    special = np.frombuffer(data.translate(None, _NOT_SPECIAL), np.uint8)
    # after an odd number of quotes: inside a string (the parity survives uint8 wrap-around)
    odd = (np.cumsum(special == 0x22, dtype=np.uint8) & 1).view(bool)
    if odd[special == 0x0A].any():
        return False
    walk = np.cumsum(np.where(odd, 0, _STEP[special]), dtype=np.int64)
    return len(walk) == 0 or (int(walk.min()) >= 0 and int(walk.max()) <= limit)


def is_inspect_zip(names: list[str]) -> bool:
    return any(n in names for n in _INSPECT_MEMBERS) or any(n.startswith("samples/") for n in names)


def zip_member_count(data: bytes) -> int | None:
    """Members a zip declares in its end-of-central-directory record (read from the last
    64 KiB, before any member or directory entry is parsed); None if not found or Zip64."""
    tail = data[-(_EOCD.size + 0xFFFF):]
    at = tail.rfind(b"PK\x05\x06")
    if at < 0 or len(tail) - at < _EOCD.size:
        return None
    count = _EOCD.unpack_from(tail, at)[4]
    if count != 0xFFFF:
        return int(count)
    at64 = tail.rfind(b"PK\x06\x06", 0, at)  # Zip64: the count is in its own end record
    if at64 < 0 or at - at64 < _EOCD64.size:
        return None
    return int(_EOCD64.unpack_from(tail, at64)[7])


def _too_many_members(count: int, label: str) -> DataContractError:
    from ..io._limits import active_limits, limit_error

    return limit_error(label, "max_members", active_limits(),
                       f"the archive holds {count:,} files")


def open_zip(data: bytes, label: str) -> zipfile.ZipFile:
    """A readable zip, or a problem saying it is truncated/corrupt, too large or holds too
    many files (refused from its end record: a 100,000-file zip took minutes to walk)."""
    from ..io._limits import active_limits

    limits = active_limits()  # the caller's (SIGBOARD_MAX_MEMBERS, …), else the defaults
    declared = zip_member_count(data)
    if declared is not None and declared > limits.max_members:
        raise _too_many_members(declared, label)
    try:
        archive = zipfile.ZipFile(io.BytesIO(data))
        infos = archive.infolist()
    except (zipfile.BadZipFile, EOFError, ValueError) as exc:
        raise DataContractError([Problem(
            label, rule=f"the zip archive is truncated or corrupt ({exc})",
            fix="upload the complete file again (check it with `unzip -t`)")]) from None
    if len(infos) > limits.max_members:
        raise _too_many_members(len(infos), label)
    if sum(i.file_size for i in infos) > limits.max_bytes:
        raise DataContractError([Problem(
            label, rule=f"the archive holds more than {limits.max_bytes >> 20} MB once unpacked",
            fix="split it into several uploads")])
    return archive


_EOCD = struct.Struct("<4s4H2LH")
_EOCD64 = struct.Struct("<4sQ2H2L4Q")
_CENTRAL = struct.Struct("<4s6H3L5H2L")
_LOCAL = struct.Struct("<4s5H3L2H")


def read_zip_members(data: bytes, wanted: frozenset[str] | None,
                     label: str = "<zip>") -> dict[str, bytes] | None:
    """The ``wanted`` members of a zip (None: every member), reading only their entries
    (last duplicate wins).

    :class:`zipfile.ZipFile` builds an object per member, which dominates the cost of an
    Inspect log with thousands of samples when only ``header.json`` and ``summaries.json``
    are needed. This walks the central directory with :mod:`struct` instead and inflates
    stored, DEFLATE and Zstandard members within the size limit
    (:func:`engine.io._zip.inflate`, which raises for a damaged or oversized member).
    Anything unusual (zip64, encryption, another method, a bad CRC) returns None, and the
    caller falls back to :func:`member_bytes` and its precise messages.
    """
    at = data.rfind(b"PK\x05\x06", max(0, len(data) - 65_557))
    if at < 0 or len(data) - at < _EOCD.size:
        return None
    _, _, _, _, total, size, offset, _ = _EOCD.unpack_from(data, at)
    if total == 0xFFFF or offset == 0xFFFFFFFF or offset + size > at:
        return None
    from ..io._limits import active_limits

    if total > active_limits().max_members:  # before walking the directory
        raise _too_many_members(total, label)
    found: dict[str, tuple[int, int, int, int, int, int]] = {}
    pos = offset
    for _ in range(total):
        if data[pos:pos + 4] != b"PK\x01\x02":
            return None
        (_, _, _, flags, method, _, _, crc, csize, usize, nlen, elen, clen, _, _, _,
         local) = _CENTRAL.unpack_from(data, pos)
        name = data[pos + 46:pos + 46 + nlen].decode("utf-8", "replace")
        if wanted is None or name in wanted:
            found[name] = (flags, method, crc, csize, usize, local)
            if usize > active_limits().max_bytes:
                return None
        pos += 46 + nlen + elen + clen
    out = {}
    for name, (flags, method, crc, csize, usize, local) in found.items():
        if flags & 1 or method not in (0, 8, ZSTD) or data[local:local + 4] != b"PK\x03\x04":
            return None
        *_, nlen, elen = _LOCAL.unpack_from(data, local)
        start = local + _LOCAL.size + nlen + elen
        raw = data[start:start + csize]
        if len(raw) < csize:
            return None
        body = inflate(raw, method, name=name, label=label, declared=usize)
        if zlib.crc32(body) != crc:
            return None
        out[name] = body
    return out


def _member_loader(data: bytes, archive: zipfile.ZipFile, info: zipfile.ZipInfo,
                   label: str) -> Callable[[], bytes]:
    return lambda: member_bytes(data, archive, info, label)


def _skip(rel: str) -> bool:
    parts = rel.split("/")
    return any(p.startswith(".") or p == "__MACOSX" for p in parts)


def _zip_files(data: bytes, label: str) -> list[LogFile]:
    archive = open_zip(data, label)
    infos = {i.filename: i for i in archive.infolist() if not i.is_dir()}  # last duplicate wins
    if is_inspect_zip(list(infos)):
        return [LogFile(label, label, lambda: data)]
    return [LogFile(n, f"{label}:{n}", _member_loader(data, archive, infos[n], label))
            for n in sorted(infos) if not _skip(n)]


def _read_source(source: Source, name: str | None) -> tuple[str, bytes]:
    if isinstance(source, tuple):
        label, data = source
        return str(label), bytes(data)
    if isinstance(source, bytes | bytearray):
        return name or "<upload>", bytes(source)
    if hasattr(source, "read"):
        from ..io._formats import read_bytes, source_name

        return name or source_name(source, None), read_bytes(source)
    raise TypeError(f"source: must be a path, bytes, (name, bytes) or a binary file; got "
                    f"{type(source).__name__}")


def _check_size_on_disk(path: Path, label: str, size: int) -> None:
    """Refuse files over the size limit from their size on disk, before reading a byte."""
    from ..io._limits import active_limits, limit_error

    limits = active_limits()
    if size > limits.max_bytes:
        raise limit_error(label, "max_bytes", limits, f"it holds {size:,} bytes")


def _dir_files(path: Path) -> list[LogFile]:
    """A folder's files, refused past the member or size limit (a folder is an archive that
    is already unpacked) before any file is read."""
    from ..io._limits import active_limits, limit_error

    files, size, limits = [], 0, active_limits()
    for p in sorted(path.rglob("*")):
        rel = p.relative_to(path).as_posix()
        if p.is_file() and not _skip(rel):
            files.append(LogFile(rel, f"{path.name}/{rel}", p.read_bytes))
            size += p.stat().st_size
            if len(files) > limits.max_members:  # counting stops here
                raise limit_error(path.name, "max_members", limits, "the folder holds more "
                                  f"than {limits.max_members:,} files")
    _check_size_on_disk(path, path.name, size)
    return files


def walk(source: Source, *, name: str | None = None) -> tuple[str, list[LogFile]]:
    """The upload's label and its files (hidden files and ``__MACOSX`` left out).

    Raises
    ------
    DataContractError
        For a missing path, a truncated or corrupt zip, or an upload above the size cap.
    """
    if isinstance(source, str | Path):
        path = Path(source)
        if path.is_dir():
            return path.name, _dir_files(path)
        if not path.is_file():
            raise DataContractError([Problem(str(path), rule=f"no such file or directory: {path}",
                                             fix="check the path")])
        _check_size_on_disk(path, name or path.name, path.stat().st_size)
        label, data = name or path.name, path.read_bytes()
        if data[:4] not in (_ZIP_MAGIC, _EMPTY_ZIP):
            # the parent directory may name the system, siblings may be companions
            rel = f"{path.parent.name}/{path.name}" if path.parent.name else path.name
            files = [LogFile(rel, label, lambda: data)]
            for p in sorted(path.parent.glob("*.json")):
                if p != path and _COMPANION.match(p.name):
                    files.append(LogFile(f"{path.parent.name}/{p.name}", p.name, p.read_bytes))
            return label, files
    else:
        label, data = _read_source(source, name)
    if data[:4] in (_ZIP_MAGIC, _EMPTY_ZIP) or label.lower().endswith((".zip", ".eval")):
        return label, _zip_files(data, label)
    return label, [LogFile(label.replace("\\", "/").lstrip("/"), label, lambda: data)]
