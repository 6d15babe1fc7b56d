"""Result-file bytes before parsing: reading, gzip inflation, encoding and format detection.

Part of the file-format layer behind :func:`engine.io._formats.frame_from_bytes`:
the raw bytes of a path or file object, gzip members inflated in bounded chunks
(the size limit, and for line formats the row limit, checked after every chunk),
the format named by the file name or sniffed from the first bytes, the UTF-8
check, and the benchmark name implied by a file name.
"""

from __future__ import annotations

import contextlib
import io
import re
import zlib
from collections.abc import Iterator
from pathlib import Path
from typing import IO

import numpy as np

from .._contract import DataContractError, Problem
from ._limits import InflateRoom, Limits, active_limits, limit_error

__all__ = [
    "MAX_BYTES",
    "benchmark_from_name",
    "check_utf8",
    "decompress",
    "detect_format",
    "read_bytes",
    "source_name",
    "too_many_rows",
]

#: Default limit on one file after decompression (``Limits().max_bytes``).
MAX_BYTES = Limits().max_bytes
#: Compressed bytes fed to zlib at a time, and the most it may return per call.
_INFLATE_IN, _INFLATE_OUT = 1 << 16, 1 << 20
_FORMATS = {".csv": "csv", ".tsv": "tsv", ".txt": "csv", ".jsonl": "jsonl", ".ndjson": "jsonl",
            ".json": "json", ".parquet": "parquet", ".pq": "parquet"}


def source_name(source: str | Path | IO[bytes], name: str | None) -> str:
    if name:
        return str(name)
    if isinstance(source, str | Path):
        return Path(source).name
    return str(getattr(source, "name", "") or "<upload>")


def read_bytes(source: str | Path | IO[bytes], *, name: str | None = None) -> bytes:
    """Raw bytes of a path or a binary file object (rewound first when possible)."""
    label = source_name(source, name)
    if isinstance(source, str | Path):
        path = Path(source)
        if not path.is_file():
            raise DataContractError([Problem(label, rule=f"no such file: {path}",
                                             fix="check the path")])
        return path.read_bytes()
    if hasattr(source, "seek"):
        with contextlib.suppress(OSError, ValueError):
            source.seek(0)
    data = source.read()
    if isinstance(data, str):
        return data.encode("utf-8")
    return bytes(data)


def _inflate_members(data: bytes) -> Iterator[tuple[int, bytes]]:
    """(member number, chunk of at most 1 MiB) over every concatenated gzip member."""
    view = memoryview(data)
    pos, member = 0, 0
    while True:
        member += 1
        inflater = zlib.decompressobj(wbits=31)
        while not inflater.eof:
            if inflater.unconsumed_tail:
                piece: bytes | memoryview = inflater.unconsumed_tail
            elif pos < len(view):
                piece = view[pos:pos + _INFLATE_IN]
                pos += len(piece)
            else:
                raise EOFError("compressed stream ended before the end-of-stream marker")
            chunk = inflater.decompress(piece, _INFLATE_OUT)
            if chunk:
                yield member, chunk
        pos -= len(inflater.unused_data)
        rest = view[pos:]
        if bytes(rest[:2]) == b"\x1f\x8b":
            continue  # another member (`cat a.gz b.gz` is valid gzip)
        if np.frombuffer(rest, np.uint8).any():  # zero padding is allowed, anything else not
            raise zlib.error("unexpected data after the end of the gzip stream")
        return


def decompress(data: bytes, label: str, limits: Limits | None = None,
                fmt: str | None = None) -> bytes:
    """Inflate gzip data (every member) in bounded chunks; other data is returned as is.

    The size limit is checked after every chunk of every member, and for line formats
    (known from the name, ``fmt`` or the first bytes) so is the number of lines.
    """
    if data[:2] != b"\x1f\x8b":
        return data
    limits = limits or active_limits()
    room = InflateRoom(label, None)  # MemoryError for JSON the capped child cannot hold
    out = io.BytesIO()
    allowed_lines: int | None = None
    newlines = 0
    try:
        for member, chunk in _inflate_members(data):
            if out.tell() + len(chunk) > limits.max_bytes:
                where = f" in gzip member {member}" if member > 1 else ""
                raise limit_error(label, "max_bytes", limits,
                                  f"the file grows past the size limit{where} once decompressed")
            room.add(chunk)
            out.write(chunk)
            if allowed_lines is None and out.tell() >= 4096:
                allowed_lines = _allowed_lines(out.getbuffer()[:4096].tobytes(), label, fmt,
                                               limits)
            if allowed_lines is not None and allowed_lines >= 0:
                newlines += chunk.count(b"\n")
                if newlines > allowed_lines:
                    raise too_many_rows(label, limits)
    except (EOFError, zlib.error) as exc:
        raise DataContractError([Problem(
            label, rule=f"the gzip data is truncated or corrupt ({exc})",
            fix="upload the complete file again (check `gzip -t FILE`)")]) from None
    return out.getvalue()


def _allowed_lines(head: bytes, label: str, fmt: str | None, limits: Limits) -> int:
    """Most lines a file of this format may have (-1: not a line format)."""
    try:
        kind = detect_format(head, label, fmt)
    except DataContractError:
        return -1  # an unknown format is reported once the data is complete
    if kind in ("csv", "tsv"):
        return limits.max_rows + 1  # the header
    return limits.max_rows if kind == "jsonl" else -1


def too_many_rows(label: str, limits: Limits) -> DataContractError:
    return limit_error(label, "max_rows", limits, f"the file has more than {limits.max_rows:,} rows")


def detect_format(data: bytes, label: str, fmt: str | None) -> str:
    if fmt:
        fmt = fmt.lower().lstrip(".")
        if fmt not in set(_FORMATS.values()):
            raise DataContractError([Problem(
                label, rule=f"unknown format {fmt!r}",
                fix="use one of csv, tsv, jsonl, json, parquet")])
        return fmt
    suffixes = [s.lower() for s in Path(label).suffixes if s.lower() not in (".gz", ".gzip")]
    if suffixes and suffixes[-1] in _FORMATS:
        return _FORMATS[suffixes[-1]]
    if data[:4] == b"PAR1":
        return "parquet"
    head = data[:4096].lstrip(b"\xef\xbb\xbf \t\r\n")
    if head[:1] == b"[":
        return "json"
    if head[:1] == b"{":
        return "jsonl"
    return "csv"


def check_utf8(data: bytes, label: str, header: bool) -> str:
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError as exc:
        line = data.count(b"\n", 0, exc.start) + 1
        utf16 = data[:2] in (b"\xff\xfe", b"\xfe\xff")
        hint = " (it looks like UTF-16)" if utf16 else ""
        row = line - 1 if header else line
        raise DataContractError([Problem(
            label, rule=f"the text is not valid UTF-8{hint}: byte 0x{data[exc.start]:02x} "
            f"on line {line}", rows=(row,) if row >= 1 else (),
            fix="save the file with UTF-8 encoding")]) from None


def benchmark_from_name(label: str) -> str:
    """Benchmark name implied by a file name: the stem without format suffixes.

    ``mqm_newstest2021_ende.avg_seg_scores.tsv.gz`` → ``mqm_newstest2021_ende``.
    """
    stem = Path(label).name
    for _ in range(3):
        lower = stem.lower()
        for suffix in (".gz", ".gzip", *_FORMATS):
            if lower.endswith(suffix):
                stem = stem[: -len(suffix)]
                break
    stem = re.sub(r"\.avg_seg_scores$", "", stem)
    return stem or "benchmark"
