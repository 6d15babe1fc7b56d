"""File formats: raw bytes of a result file → a DataFrame, before any canonical shaping.

Decompression (gzip detected by its magic bytes, inflated in bounded chunks across
every gzip member), encoding checks, format detection from the name or the content,
and the parsers: CSV/TSV through pyarrow's block-wise multi-threaded reader, JSON
Lines, JSON and Parquet. :mod:`engine._readers` turns their output into the canonical
table.

Every function takes ``limits`` (:class:`engine._limits.Limits`, default
``Limits()``): the size after decompression, the lines and the JSON nesting depth
are checked on the bytes before any parser runs; Parquet's row count and column
types from its metadata; systems, metrics and benchmarks right after parsing. A
parser that runs out of memory or recursion depth becomes a
:class:`~engine._contract.DataContractError` too. To survive a parser that crashes
outright, parse in a child process: :func:`engine._parse_worker.parse_isolated`.
"""

from __future__ import annotations

import contextlib
import csv
import io
import json
import re
import zlib
from collections import Counter
from collections.abc import Iterator
from pathlib import Path
from typing import IO, Any

import numpy as np
import pandas as pd

from ._contract import KEY_COLUMNS, DataContractError, Problem
from ._limits import Limits, count_lines, limit_error, nesting_depth

__all__ = [
    "MAX_BYTES",
    "benchmark_from_name",
    "canonical_names",
    "frame_from_bytes",
    "parse",
    "read_bytes",
    "source_name",
]

#: How many bytes pyarrow parses per block (its unit of parallel, chunked work).
_BLOCK_SIZE = 16 << 20
#: Default limit on one file after decompression (``Limits().max_bytes``).
MAX_BYTES = Limits().max_bytes
#: Compressed bytes fed to zlib at a time, and the most it may return per call.
_INFLATE_IN, _INFLATE_OUT = 1 << 16, 1 << 20
_FORMATS = {".csv": "csv", ".tsv": "tsv", ".txt": "csv", ".jsonl": "jsonl", ".ndjson": "jsonl",
            ".json": "json", ".parquet": "parquet", ".pq": "parquet"}

_ALIASES: dict[str, tuple[str, ...]] = {
    "benchmark": ("benchmark_id", "dataset", "task"),
    "system": ("model", "model_name", "system_name"),
    "example_id": ("instance", "instance_id", "example", "item_id", "seg_id", "doc_id"),
    "metric": ("metric_name",),
    "value": ("score",),
}


def canonical_names(columns: list[str]) -> list[str]:
    """Column names with the common aliases renamed (the first alias present wins)."""
    present = {c.strip() for c in columns}
    out = []
    for col in columns:
        new = col.strip()
        for canon, aliases in _ALIASES.items():
            if new in aliases and canon not in present:
                # the first alias present wins; others stay metadata
                first = next(a for a in aliases if a in present)
                if first == new:
                    new = canon
                break
        out.append(new)
    return out


# --------------------------------------------------------------------------- bytes


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


def _decompress(data: bytes, label: str, limits: Limits | None = None,
                fmt: str | None = None) -> bytes:
    """Inflate gzip data (every member) in bounded chunks; other data is returned as is.

    The size limit is checked after every chunk of every member, and for line formats
    (known from the name, ``fmt`` or the first bytes) so is the number of lines.
    """
    if data[:2] != b"\x1f\x8b":
        return data
    limits = limits or Limits()
    out = io.BytesIO()
    allowed_lines: int | None = None
    newlines = 0
    try:
        for member, chunk in _inflate_members(data):
            if out.tell() + len(chunk) > limits.max_bytes:
                where = f" in gzip member {member}" if member > 1 else ""
                raise limit_error(label, "max_bytes", limits,
                                  f"the file grows past the size limit{where} once decompressed")
            out.write(chunk)
            if allowed_lines is None and out.tell() >= 4096:
                allowed_lines = _allowed_lines(out.getbuffer()[:4096].tobytes(), label, fmt,
                                               limits)
            if allowed_lines is not None and allowed_lines >= 0:
                newlines += chunk.count(b"\n")
                if newlines > allowed_lines:
                    raise _too_many_rows(label, limits)
    except (EOFError, zlib.error) as exc:
        raise DataContractError([Problem(
            label, rule=f"the gzip data is truncated or corrupt ({exc})",
            fix="upload the complete file again (check `gzip -t FILE`)")]) from None
    return out.getvalue()


def _allowed_lines(head: bytes, label: str, fmt: str | None, limits: Limits) -> int:
    """Most lines a file of this format may have (-1: not a line format)."""
    try:
        kind = _detect_format(head, label, fmt)
    except DataContractError:
        return -1  # an unknown format is reported once the data is complete
    if kind in ("csv", "tsv"):
        return limits.max_rows + 1  # the header
    return limits.max_rows if kind == "jsonl" else -1


def _too_many_rows(label: str, limits: Limits) -> DataContractError:
    return limit_error(label, "max_rows", limits, f"the file has more than {limits.max_rows:,} rows")


def _detect_format(data: bytes, label: str, fmt: str | None) -> str:
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


def _check_utf8(data: bytes, label: str, header: bool) -> str:
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


# --------------------------------------------------------------------------- parsing


def _parse_csv(text_bytes: bytes, label: str, sep: str) -> pd.DataFrame:
    """Parse delimited text (the header must be on the first line)."""
    text = _check_utf8(text_bytes, label, header=True)
    if text.startswith("\ufeff"):
        text = text[1:]
        text_bytes = text_bytes[3:]
    first_line = re.split(r"\r\n|\r|\n", text, maxsplit=1)[0]  # any newline ends the header
    if not first_line.strip():
        if not text.strip():
            return pd.DataFrame()
        raise DataContractError([Problem(label, rule="the first line (the header) is empty",
                                         fix="put the column names on the first line")])
    if sep == "\t" and "\t" not in first_line and " " in first_line.strip():
        # WMT MQM style: space-separated header, rows separated by tabs and/or spaces.
        frame = pd.read_csv(io.StringIO(text), sep=r"\s+", dtype=str, keep_default_na=False,
                            na_values=[], engine="c")
        return frame
    try:
        names = next(csv.reader([first_line], delimiter=sep))  # a wide header costs O(columns)
    except csv.Error as exc:
        raise DataContractError([Problem(label, rule=f"the header line cannot be read ({exc})",
                                         fix="write the column names on the first line, "
                                         "separated by commas (or tabs in a .tsv)")]) from None
    dup = sorted(n for n, count in Counter(names).items() if count > 1)
    if dup:
        raise DataContractError([Problem(label, rule=f"duplicate column name(s): {', '.join(dup)}",
                                         column=dup[0], fix="give every column its own name")])
    return _parse_delimited_fast(text_bytes, text, label, sep, names)


def _parse_delimited_fast(data: bytes, text: str, label: str, sep: str,
                          names: list[str]) -> pd.DataFrame:
    import pyarrow as pa
    import pyarrow.csv as pacsv

    canon = canonical_names(names)
    types = {orig: pa.string() for orig, new in zip(names, canon, strict=True)
             if new in (*KEY_COLUMNS, "run") and new != "value"}
    try:
        table = pacsv.read_csv(
            pa.py_buffer(data),
            read_options=pacsv.ReadOptions(block_size=_BLOCK_SIZE, use_threads=True),
            parse_options=pacsv.ParseOptions(delimiter=sep, newlines_in_values=False),
            convert_options=pacsv.ConvertOptions(
                column_types=types, strings_can_be_null=False,
                null_values=["", "NaN", "nan", "NA", "N/A", "null", "NULL", "None"],
                quoted_strings_can_be_null=False),
        )
        frame: pd.DataFrame = table.to_pandas()
        return frame
    except (pa.ArrowInvalid, pa.ArrowTypeError, pa.ArrowNotImplementedError):
        pass  # fall back to the slow, forgiving reader below for a precise message
    try:
        return pd.read_csv(io.StringIO(text), sep=sep, dtype=str, keep_default_na=False,
                           na_values=[""], engine="python", on_bad_lines="error")
    except pd.errors.ParserError as exc:
        match = re.search(r"line (\d+)", str(exc))
        row = int(match.group(1)) - 1 if match else None
        raise DataContractError([Problem(
            label, rule=f"the row cannot be parsed ({str(exc).strip()[:200]})",
            rows=(row,) if row else (),
            fix="check that every row has as many fields as the header and quotes are closed")
        ]) from None


def _parse_jsonl(data: bytes, label: str) -> pd.DataFrame:
    text = _check_utf8(data, label, header=False)
    if text.startswith("\ufeff"):
        text = text[1:]
        data = data[3:]
    if not text.strip():
        return pd.DataFrame()
    try:
        import pyarrow as pa
        import pyarrow.json as pajson

        options = pajson.ReadOptions(block_size=_BLOCK_SIZE)
        table = pajson.read_json(pa.py_buffer(data), read_options=options)
        stamped = [name for name, canon in zip(table.column_names,
                                               canonical_names(table.column_names), strict=True)
                   if canon in (*KEY_COLUMNS, "run")
                   and pa.types.is_temporal(table.schema.field(name).type)]
        if stamped:  # pyarrow infers timestamps from ISO dates; a key is text as written
            table = pajson.read_json(pa.py_buffer(data), read_options=options,
                                     parse_options=pajson.ParseOptions(
                                         explicit_schema=pa.schema([(n, pa.string())
                                                                    for n in stamped]),
                                         unexpected_field_behavior="infer"))
        frame: pd.DataFrame = table.to_pandas()
        if not any(isinstance(t, pa.StructType | pa.ListType) for t in table.schema.types):
            return frame
    except Exception:  # noqa: BLE001,S110 - any pyarrow failure → exact per-line parser below
        pass
    records: list[dict[str, Any]] = []
    for lineno, line in enumerate(text.splitlines(), start=1):
        if not line.strip():
            continue
        try:
            obj = json.loads(line)
        except json.JSONDecodeError as exc:
            raise DataContractError([Problem(
                label, rule=f"line {lineno} is not valid JSON ({exc.msg})", rows=(lineno,),
                fix="write one complete JSON object per line")]) from None
        if not isinstance(obj, dict):
            raise DataContractError([Problem(
                label, rule=f"line {lineno} is a JSON {type(obj).__name__}, not an object",
                rows=(lineno,), fix="write one JSON object per line")])
        records.append(obj)
    return _records_frame(records, label)


def _records_frame(records: list[dict[str, Any]], label: str) -> pd.DataFrame:
    frame = pd.DataFrame.from_records(records)
    for col in frame.columns:
        if frame[col].map(lambda v: isinstance(v, dict | list)).any():
            frame[col] = frame[col].map(
                lambda v: json.dumps(v, sort_keys=True) if isinstance(v, dict | list) else v)
    return frame


def _parse_json(data: bytes, label: str) -> pd.DataFrame:
    text = _check_utf8(data, label, header=False).lstrip("\ufeff")
    if not text.strip():
        return pd.DataFrame()
    try:
        obj = json.loads(text)
    except json.JSONDecodeError as exc:
        if text.lstrip().startswith("{"):
            return _parse_jsonl(data, label)
        raise DataContractError([Problem(
            label, rule=f"not valid JSON ({exc.msg} at line {exc.lineno})",
            fix="write a JSON list of objects, or JSON Lines")]) from None
    if isinstance(obj, dict):
        lists = [v for v in obj.values() if isinstance(v, list)]
        obj = lists[0] if len(lists) == 1 else [obj]
    if not isinstance(obj, list) or not all(isinstance(r, dict) for r in obj):
        raise DataContractError([Problem(label, rule="the JSON is not a list of objects",
                                         fix="write one object per observation")])
    return _records_frame(obj, label)


def _key_type_ok(t: Any) -> bool:
    """A key column holds text or numbers (dictionary-encoded too)."""
    import pyarrow as pa

    if pa.types.is_dictionary(t):
        return _key_type_ok(t.value_type)
    return bool(pa.types.is_string(t) or pa.types.is_large_string(t) or pa.types.is_integer(t)
                or pa.types.is_floating(t) or pa.types.is_boolean(t) or pa.types.is_null(t)
                or getattr(pa.types, "is_string_view", lambda _: False)(t))


def _value_type_ok(t: Any) -> bool:
    """A score column holds numbers (booleans count as 0/1)."""
    import pyarrow as pa

    if pa.types.is_dictionary(t):
        return _value_type_ok(t.value_type)
    return bool(pa.types.is_integer(t) or pa.types.is_floating(t) or pa.types.is_boolean(t)
                or pa.types.is_decimal(t) or pa.types.is_null(t))


def _check_parquet_types(schema: Any, label: str) -> None:
    """Key and score columns must be plain text/numbers; a timestamp is not a score."""
    problems = []
    for field, canon in zip(schema, canonical_names(schema.names), strict=True):
        if canon == "value" and not _value_type_ok(field.type):
            problems.append(Problem(
                label, rule=f"the score column has the type {field.type}, not a number",
                column=field.name, fix="store scores as numbers (int, float or bool)"))
        elif canon in (*KEY_COLUMNS, "run") and canon != "value" and not _key_type_ok(field.type):
            problems.append(Problem(
                label, rule=f"the key column has the type {field.type}, not text or a number",
                column=field.name, fix=f"store the {canon} as text (a string column)"))
    if problems:
        raise DataContractError(problems)


def _nested_to_json(table: Any) -> Any:
    """Struct/list/map metadata columns as JSON text (as nested values in JSON Lines)."""
    import pyarrow as pa

    for i, field in enumerate(table.schema):
        if pa.types.is_nested(field.type):
            texts = [None if v is None else json.dumps(v, sort_keys=True, default=str)
                     for v in table.column(i).to_pylist()]
            table = table.set_column(i, field.name, pa.array(texts, pa.string()))
    return table


def _parse_parquet(data: bytes, label: str, limits: Limits | None = None) -> pd.DataFrame:
    """Types and rows from the metadata, then the key columns counted, then the table."""
    import pyarrow as pa
    import pyarrow.parquet as pq

    limits = limits or Limits()
    try:
        source = pq.ParquetFile(pa.BufferReader(data))
        schema = source.schema_arrow
        _check_parquet_types(schema, label)
        if source.metadata.num_rows > limits.max_rows:
            raise _too_many_rows(label, limits)
        canon = dict(zip(canonical_names(schema.names), schema.names, strict=True))
        keys = [canon[c] for c in ("system", "metric", "benchmark") if c in canon]
        if keys:
            _check_counts(source.read(columns=keys).to_pandas(), label, limits)
        frame: pd.DataFrame = _nested_to_json(source.read()).to_pandas()
        return frame
    except (pa.ArrowException, OSError) as exc:
        if isinstance(exc, MemoryError):
            raise
        raise DataContractError([Problem(
            label, rule=f"not a readable Parquet file ({str(exc)[:200]})",
            fix="write it again with pandas.DataFrame.to_parquet or pyarrow")]) from None


def parse(data: bytes, label: str, kind: str, *, limits: Limits | None = None) -> pd.DataFrame:
    """Parse decompressed, format-detected bytes into a raw DataFrame."""
    if kind in ("csv", "tsv"):
        sep = "\t" if kind == "tsv" else ","
        if kind == "csv":
            first = data[:4096].split(b"\n", 1)[0]
            if b"," not in first and b"\t" in first:
                sep = "\t"
            elif b"," not in first and b";" in first:
                sep = ";"
        return _parse_csv(data, label, sep)
    if kind == "jsonl":
        return _parse_jsonl(data, label)
    if kind == "json":
        return _parse_json(data, label)
    return _parse_parquet(data, label, limits)


def _check_bytes(data: bytes, label: str, kind: str, limits: Limits) -> None:
    """Limits measured on the bytes: lines (line formats) and bracket depth (JSON)."""
    header = 1 if kind in ("csv", "tsv") else 0
    if kind in ("csv", "tsv", "jsonl") and count_lines(data) - header > limits.max_rows:
        raise _too_many_rows(label, limits)
    if kind in ("json", "jsonl"):
        depth = nesting_depth(data, stop_above=limits.max_depth)
        if depth > limits.max_depth:
            what = "JSON Lines record" if kind == "jsonl" else "JSON document"
            raise limit_error(label, "max_depth", limits,
                              f"a {what} nests brackets more than {limits.max_depth} levels deep")


def _check_counts(frame: pd.DataFrame, label: str, limits: Limits) -> None:
    """Rows, systems, metrics and benchmarks, counted on the key columns (before pivoting)."""
    columns = dict(zip(canonical_names([str(c) for c in frame.columns]), frame.columns,
                       strict=True))
    problems: list[Problem] = []
    if len(frame) > limits.max_rows:
        problems += _too_many_rows(label, limits).problems
    if "metric" in columns or "value" in columns:
        metrics = frame[columns["metric"]].nunique() if "metric" in columns else 1
        metric_column: str | None = "metric"
    else:  # wide: every numeric column that is not a key may be a metric
        metric_column = None
        names = canonical_names([str(c) for c in frame.columns])
        metrics = sum(1 for canon, dtype in zip(names, frame.dtypes, strict=True)
                      if canon not in (*KEY_COLUMNS, "run")
                      and pd.api.types.is_numeric_dtype(dtype))
    counted = [("max_systems", "system", frame[columns["system"]].nunique()
                if "system" in columns else 0),
               ("max_metrics", metric_column, metrics),
               ("max_benchmarks", "benchmark", frame[columns["benchmark"]].nunique()
                if "benchmark" in columns else 1)]
    for field, column, found in counted:
        if found > getattr(limits, field):
            noun = field.removeprefix("max_")
            what = f"the file has {found:,} {noun}" + ("" if column else " (metric columns)")
            problems += limit_error(label, field, limits, what,
                                    column=columns.get(column) if column else None).problems
    if problems:
        raise DataContractError(problems)


def _check_frame_types(frame: pd.DataFrame, label: str) -> None:
    """Key and score columns that parsed as dates or durations are not text nor scores."""
    names = canonical_names([str(c) for c in frame.columns])
    for col, canon, dtype in zip(frame.columns, names, frame.dtypes, strict=True):
        if canon not in (*KEY_COLUMNS, "value", "run"):
            continue
        temporal = (pd.api.types.is_datetime64_any_dtype(dtype)
                    or pd.api.types.is_timedelta64_dtype(dtype)
                    or isinstance(dtype, pd.PeriodDtype))
        if temporal and canon == "value":
            raise DataContractError([Problem(
                label, rule=f"the score column holds dates or times ({dtype}), not numbers",
                column=str(col), fix="write scores as plain numbers such as 0, 1 or 0.75")])
        if temporal and canon in (*KEY_COLUMNS, "run"):
            raise DataContractError([Problem(
                label, rule=f"the key column holds dates or times ({dtype})", column=str(col),
                fix=f"store the {canon} as text")])


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
    limits = limits or Limits()
    if len(data) > limits.max_bytes:
        raise limit_error(label, "max_bytes", limits,
                          f"the file is {len(data) >> 20:,} MiB, larger than the size limit")
    data = _decompress(data, label, limits, fmt)
    if data[:4] == b"PK\x03\x04":
        raise DataContractError([Problem(
            label, rule="the file is a ZIP archive (an Excel workbook?), not CSV, JSON Lines "
            "or Parquet", fix="export the sheet as CSV, or unzip the archive first")])
    kind = _detect_format(data, label, fmt)
    _check_bytes(data, label, kind, limits)
    frame = _parse_guarded(data, label, kind, limits)
    _check_frame_types(frame, label)
    _check_counts(frame, label, limits)
    return frame
