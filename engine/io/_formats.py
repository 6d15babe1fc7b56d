"""File formats: raw bytes of a result file → a DataFrame, before any canonical shaping.

:func:`frame_from_bytes` is the whole pipeline: the size check, decompression (gzip
detected by its magic bytes, inflated in bounded chunks across every gzip member),
format detection from the name or the content, limits on the bytes, parsing, and
the checks on the parsed columns. The pieces live in :mod:`engine.io._bytes`
(bytes, gzip, encoding, format detection), :mod:`engine.io._parse` (CSV/TSV
through pyarrow's block-wise multi-threaded reader, JSON Lines, JSON and Parquet)
and :mod:`engine.io._checks` (column aliases, limits, column types); the
public names are re-exported here. :mod:`engine.io._readers` turns the output into
the canonical table.

Every function takes ``limits`` (:class:`engine.io._limits.Limits`, default
``Limits()``): the size after decompression, the lines and the JSON nesting depth
are checked on the bytes before any parser runs; Parquet's row count and column
types from its metadata; systems, metrics and benchmarks right after parsing. A
parser that runs out of memory or recursion depth becomes a
:class:`~engine._contract.DataContractError` too. To survive a parser that crashes
outright, parse in a child process: :func:`engine.io._worker.parse_isolated`.
"""

from __future__ import annotations

import pandas as pd

from .._contract import DataContractError, Problem
from ._bytes import MAX_BYTES, benchmark_from_name, decompress, detect_format, read_bytes, source_name
from ._checks import canonical_names, check_bytes, check_counts, check_frame_types
from ._limits import Limits, active_limits, limit_error
from ._parse import parse

__all__ = [
    "MAX_BYTES",
    "benchmark_from_name",
    "canonical_names",
    "frame_from_bytes",
    "parse",
    "read_bytes",
    "source_name",
]

def _parse_guarded(data: bytes, label: str, kind: str, limits: Limits) -> pd.DataFrame:
    """:func:`parse` with every failure turned into a DataContractError."""
    try:
        return parse(data, label, kind, limits=limits)
    except DataContractError:
        raise
    except MemoryError:
        raise DataContractError([Problem(
            label, rule=f"the file is too large to parse in memory ({len(data) >> 20:,} MiB "
            f"as {kind.upper()})",
            fix="split it into several uploads, or raise SIGBOARD_MAX_PARSE_MEMORY (and lower "
            "SIGBOARD_MAX_BYTES) on the server")]) from None
    except RecursionError:
        raise DataContractError([Problem(
            label, rule="the data is nested too deeply to parse",
            fix="flatten nested values; one record per row")]) from None
    except (ValueError, TypeError, pd.errors.ParserError, OverflowError) as exc:
        # pyarrow's errors derive from ValueError too; nothing unparsed gets through
        raise DataContractError([Problem(
            label, rule=f"the file cannot be read as {kind.upper()} ({str(exc).strip()[:200]})",
            fix=f"check that the file is valid {kind.upper()} (quotes closed, one record "
            "per line), or name it with the right extension")]) from None


def frame_from_bytes(data: bytes, label: str, fmt: str | None = None, *,
                     limits: Limits | None = None) -> pd.DataFrame:
    """Size check, decompression, format detection and parsing; every failure a DataContractError.

    ``limits`` (default ``Limits()``) are checked in the cheapest place first: the size
    while inflating, lines and JSON depth on the bytes, Parquet metadata, then the
    distinct systems, metrics and benchmarks right after parsing.
    """
    limits = limits or active_limits()
    if len(data) > limits.max_bytes:
        raise limit_error(label, "max_bytes", limits,
                          f"the file is {len(data) >> 20:,} MiB, larger than the size limit")
    data = decompress(data, label, limits, fmt)
    if data[:4] == b"PK\x03\x04":
        raise DataContractError([Problem(
            label, rule="the file is a ZIP archive (an Excel workbook?), not CSV, JSON Lines "
            "or Parquet", fix="export the sheet as CSV, or unzip the archive first")])
    kind = detect_format(data, label, fmt)
    check_bytes(data, label, kind, limits)
    frame = _parse_guarded(data, label, kind, limits)
    check_frame_types(frame, label)
    check_counts(frame, label, limits)
    return frame
