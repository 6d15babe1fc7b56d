"""File formats: raw bytes of a result file → a DataFrame, before any canonical shaping.

Decompression (gzip detected by its magic bytes, with a size cap against gzip
bombs), encoding checks, format detection from the name or the content, and the
parsers: CSV/TSV through pyarrow's block-wise multi-threaded reader, JSON Lines,
JSON and Parquet. :mod:`engine._readers` turns their output into the canonical table.
"""

from __future__ import annotations

import contextlib
import gzip
import io
import json
import re
import zlib
from pathlib import Path
from typing import IO, Any

import pandas as pd

from ._contract import KEY_COLUMNS, DataContractError, Problem

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
#: Hard limit on one file after decompression (defends against gzip bombs).
MAX_BYTES = 2 << 30
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


def _decompress(data: bytes, label: str) -> bytes:
    if data[:2] != b"\x1f\x8b":
        return data
    try:
        d = zlib.decompressobj(wbits=31)
        out = d.decompress(data, MAX_BYTES)
        if d.unconsumed_tail:
            raise DataContractError([Problem(
                label, rule=f"the file is larger than {MAX_BYTES >> 20} MB once decompressed",
                fix="split it into several uploads")])
        if not d.eof:
            raise EOFError("compressed stream ended before the end-of-stream marker")
        rest = d.unused_data
        if rest.strip(b"\x00"):  # concatenated gzip members
            out += gzip.decompress(rest)
        return out
    except (EOFError, zlib.error, gzip.BadGzipFile) as exc:
        raise DataContractError([Problem(
            label, rule=f"the gzip data is truncated or corrupt ({exc})",
            fix="upload the complete file again (check `gzip -t FILE`)")]) from None


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
    first_line = text.split("\n", 1)[0].rstrip("\r")
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
    header = next(iter(pd.read_csv(io.StringIO(first_line + "\n"), sep=sep, dtype=str,
                                   header=None).iloc[0:1].itertuples(index=False)), ())
    names = [str(h) for h in header]
    dup = sorted({n for n in names if names.count(n) > 1})
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

        table = pajson.read_json(pa.py_buffer(data),
                                 read_options=pajson.ReadOptions(block_size=_BLOCK_SIZE))
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


def _parse_parquet(data: bytes, label: str) -> pd.DataFrame:
    import pyarrow as pa
    import pyarrow.parquet as pq

    try:
        frame: pd.DataFrame = pq.read_table(pa.py_buffer(data)).to_pandas()
        return frame
    except (pa.ArrowException, OSError) as exc:
        raise DataContractError([Problem(
            label, rule=f"not a readable Parquet file ({str(exc)[:200]})",
            fix="write it again with pandas.DataFrame.to_parquet or pyarrow")]) from None


def parse(data: bytes, label: str, kind: str) -> pd.DataFrame:
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
    return _parse_parquet(data, label)


def frame_from_bytes(data: bytes, label: str, fmt: str | None = None) -> pd.DataFrame:
    """Size check, decompression, format detection and parsing; every failure a DataContractError."""
    if len(data) > MAX_BYTES:
        raise DataContractError([Problem(
            label, rule=f"the file is larger than {MAX_BYTES >> 20} MB",
            fix="split it into several uploads")])
    data = _decompress(data, label)
    if data[:4] == b"PK\x03\x04":
        raise DataContractError([Problem(
            label, rule="the file is a ZIP archive (an Excel workbook?), not CSV, JSON Lines "
            "or Parquet", fix="export the sheet as CSV, or unzip the archive first")])
    kind = _detect_format(data, label, fmt)
    try:
        frame = parse(data, label, kind)
    except DataContractError:
        raise
    except (ValueError, TypeError, pd.errors.ParserError, OverflowError) as exc:
        # pyarrow's errors derive from ValueError too; nothing unparsed gets through
        raise DataContractError([Problem(
            label, rule=f"the file cannot be read as {kind.upper()} ({str(exc).strip()[:200]})",
            fix=f"check that the file is valid {kind.upper()} (quotes closed, one record "
            "per line), or name it with the right extension")]) from None
    return frame
