"""Parsers for result files: CSV/TSV, JSON Lines, JSON and Parquet bytes → a raw DataFrame.

Part of the file-format layer behind :func:`engine.io._formats.frame_from_bytes`,
which calls :func:`parse` on bytes already decompressed, size-checked and
format-detected. CSV/TSV and JSON Lines go through pyarrow's block-wise
multi-threaded readers first and fall back to exact, slower parsers that name the
offending line; Parquet's row count and column types are checked from its metadata
before the table is read.
"""

from __future__ import annotations

import csv
import io
import json
import re
from collections import Counter
from typing import Any

import pandas as pd

from .._contract import KEY_COLUMNS, DataContractError, Problem
from ._bytes import check_utf8, too_many_rows
from ._checks import TEXT_NAMES, canonical_names, check_counts, check_parquet_types
from ._limits import Limits, active_limits
from ._parquet import check_parquet_sizes

__all__ = ["parse"]

#: How many bytes pyarrow parses per block (its unit of parallel, chunked work).
_BLOCK_SIZE = 16 << 20


def _parse_csv(text_bytes: bytes, label: str, sep: str) -> pd.DataFrame:
    """Parse delimited text (the header must be on the first line)."""
    text = check_utf8(text_bytes, label, header=True)
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
             if (new in (*KEY_COLUMNS, "run") and new != "value") or new.lower() in TEXT_NAMES}
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
    text = check_utf8(data, label, header=False)
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
    text = check_utf8(data, label, header=False).lstrip("\ufeff")
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
    """Types, rows and sizes from the metadata (:mod:`engine.io._parquet`: a Parquet bomb is
    refused before it is decoded), then the key columns counted, then the table."""
    import pyarrow as pa
    import pyarrow.parquet as pq

    limits = limits or active_limits()
    try:
        source = pq.ParquetFile(pa.BufferReader(data))
        schema = source.schema_arrow
        check_parquet_types(schema, label)
        if source.metadata.num_rows > limits.max_rows:
            raise too_many_rows(label, limits)
        check_parquet_sizes(source, label, limits, data=data)
        canon = dict(zip(canonical_names(schema.names), schema.names, strict=True))
        keys = [canon[c] for c in ("system", "metric", "benchmark") if c in canon]
        if keys:
            check_counts(source.read(columns=keys).to_pandas(), label, limits)
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
