"""Zip members read within the size limit: stored, DEFLATE and Zstandard (zip method 93).

Python 3.11's :mod:`zipfile` cannot read Zstandard members, which Inspect has written in
its ``.eval`` logs since inspect-ai 0.3.206 (docs/formats.md, "Inspect AI"). This reads a
member's compressed bytes straight from its local header and inflates them here, in
bounded chunks, as :func:`engine.io._bytes.decompress` does for gzip: the output is
checked against the size limit after every chunk (at most 1 MiB), so a bomb stops at the
limit, and its CRC-32 against the central directory. bzip2 and LZMA members go through
:mod:`zipfile` (which stops at the declared size). A member that cannot be read names
itself and the real cause; nothing here calls a readable format "incomplete".
"""

from __future__ import annotations

import io
import struct
import zipfile
import zlib
from collections.abc import Iterator

from .._contract import DataContractError, Problem
from ._limits import InflateRoom, Limits, active_limits, limit_error, reading

__all__ = ["ZSTD", "inflate", "member_bytes"]

#: Zip compression method of Zstandard (APPNOTE 4.4.5).
ZSTD = 93
_METHODS = {0: "stored", 8: "DEFLATE", 9: "DEFLATE64", 12: "bzip2", 14: "LZMA", ZSTD: "Zstandard",
            95: "xz", 98: "PPMd"}
_LOCAL = struct.Struct("<4s5H3L2H")
_IN, _OUT = 1 << 16, 1 << 20
#: Largest Zstandard window accepted (zstd's own default limit, 2**27): a frame asking for
#: more would make the decoder allocate it; zstd writes such frames only with --long.
ZSTD_MAX_WINDOW = 1 << 27


def _chunks_deflate(raw: bytes) -> Iterator[bytes]:
    inflater = zlib.decompressobj(-15)
    view, pos = memoryview(raw), 0
    while not inflater.eof:
        if inflater.unconsumed_tail:
            piece: bytes | memoryview = inflater.unconsumed_tail
        elif pos < len(view):
            piece, pos = view[pos:pos + _IN], pos + _IN
        else:
            raise EOFError("the DEFLATE stream ends before its end marker")
        chunk = inflater.decompress(piece, _OUT)
        if chunk:
            yield chunk


def _chunks_zstd(raw: bytes) -> Iterator[bytes]:
    import zstandard

    dctx = zstandard.ZstdDecompressor(max_window_size=ZSTD_MAX_WINDOW)
    with dctx.stream_reader(raw, read_across_frames=True) as reader:  # every frame
        while chunk := reader.read(_OUT):
            yield chunk


def inflate(raw: bytes, method: int, *, name: str, label: str, declared: int | None = None,
            limits: Limits | None = None) -> bytes:
    """The decompressed bytes of one member (``method`` 0, 8 or 93), within the size limit.

    Raises
    ------
    DataContractError
        Past the size limit (or past ``declared``, the size the central directory states),
        or corrupt data; each message names the member and the cause.

    Examples
    --------
    >>> import zstandard
    >>> inflate(zstandard.ZstdCompressor().compress(b"{}"), 93, name="header.json", label="a.eval")
    b'{}'
    """
    import zstandard

    limits = limits or active_limits()
    reading(f"zip member {name}")
    if method == 0:
        chunks: Iterator[bytes] = iter([raw])
    elif method == 8:
        chunks = _chunks_deflate(raw)
    elif method == ZSTD:
        chunks = _chunks_zstd(raw)
    else:
        raise unsupported(method, name, label)
    room = InflateRoom(name, declared)  # MemoryError for a member the capped child cannot hold
    out = bytearray()
    try:
        for chunk in chunks:
            out += chunk
            if len(out) > limits.max_bytes:
                raise limit_error(label, "max_bytes", limits,
                                  f"zip member {name} grows past the size limit once decompressed")
            if declared is not None and len(out) > declared:
                raise _corrupt(name, label, f"it inflates to more than the {declared:,} bytes "
                               "its directory entry states")
            room.add(chunk)
    except (zlib.error, EOFError, zstandard.ZstdError) as exc:
        kind = _METHODS.get(method, str(method))
        raise _corrupt(name, label, f"its {kind} data is damaged ({exc})") from None
    return bytes(out)


def unsupported(method: int, name: str, label: str) -> DataContractError:
    kind = _METHODS.get(method, "unknown")
    return DataContractError([Problem(
        label, rule=f"zip member {name} is compressed with method {method} ({kind}), which "
        "sigboard cannot decompress (it reads stored, DEFLATE, bzip2, LZMA and Zstandard members)",
        fix="re-create the archive with DEFLATE (`zip -r`), or upload the files unzipped")])


def _corrupt(name: str, label: str, why: str) -> DataContractError:
    return DataContractError([Problem(
        label, rule=f"zip member {name} cannot be read: {why}",
        fix="upload the file again as it was written (check it with `unzip -t`, or "
        "`python -m zipfile -t` for Zstandard members)")])


def member_bytes(data: bytes, archive: zipfile.ZipFile, info: zipfile.ZipInfo, label: str,
                 limits: Limits | None = None) -> bytes:
    """One member of a zip held in ``data`` (``archive`` is it opened), checked and inflated."""
    limits = limits or active_limits()
    name = info.filename
    if info.file_size > limits.max_bytes:
        raise limit_error(label, "max_bytes", limits,
                          f"zip member {name} holds {info.file_size:,} bytes once decompressed")
    if info.flag_bits & 1:
        raise DataContractError([Problem(label, rule=f"zip member {name} is encrypted",
                                         fix="upload the archive without a password")])
    if info.compress_type not in (0, 8, ZSTD):
        if info.compress_type not in (12, 14):
            raise unsupported(info.compress_type, name, label)
        try:  # bzip2, LZMA: zipfile reads them and stops at the declared size
            return archive.read(info)
        except Exception as exc:  # noqa: BLE001 - BadZipFile, EOFError, lzma/bz2 errors
            raise _corrupt(name, label, str(exc)) from None
    at = info.header_offset
    head = data[at:at + _LOCAL.size]
    if len(head) < _LOCAL.size or head[:4] != b"PK\x03\x04":
        raise _corrupt(name, label, "its local header is missing (the archive is truncated or "
                       "was cut and pasted together)")
    *_, nlen, elen = _LOCAL.unpack(head)
    start = at + _LOCAL.size + nlen + elen
    raw = data[start:start + info.compress_size]
    if len(raw) < info.compress_size:
        raise _corrupt(name, label, f"the archive ends {info.compress_size - len(raw):,} bytes "
                       "into its data (truncated)")
    body = inflate(raw, info.compress_type, name=name, label=label, declared=info.file_size,
                   limits=limits)
    if len(body) != info.file_size or zlib.crc32(body) != info.CRC:
        raise _corrupt(name, label, "its CRC-32 or size does not match its directory entry")
    return body


def only_member(data: bytes, label: str, limits: Limits | None = None) -> tuple[str, bytes]:
    """The one file of a zip that holds a single table (folders and macOS's ``__MACOSX/``
    entries aside): its name and its bytes, inflated within the size limit."""
    try:
        archive = zipfile.ZipFile(io.BytesIO(data))
    except (zipfile.BadZipFile, ValueError) as exc:
        raise _corrupt("(directory)", label, str(exc)) from None
    files = [i for i in archive.infolist()
             if not i.is_dir() and not i.filename.startswith("__MACOSX/")]
    if len(files) != 1:
        raise DataContractError([Problem(
            label, rule=f"a zipped table holds one file; this zip holds {len(files)}",
            fix="zip one table per upload, or upload the table itself")])
    return files[0].filename, member_bytes(data, archive, files[0], label, limits)
