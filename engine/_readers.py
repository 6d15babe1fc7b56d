"""Readers: result files (CSV/TSV, JSONL/JSON, Parquet; gzip too) → the canonical long table.

Everything that arrives from outside goes through :func:`read_results`, which

* detects gzip by its magic bytes (so an uploaded buffer without a name works too)
  and the format from the name, or from the content when there is no name;
* renames common aliases (``benchmark_id``/``dataset`` → ``benchmark``,
  ``model`` → ``system``, ``instance``/``seg_id`` → ``example_id``, ``score`` → ``value``);
* recognises the public formats in ``../shared/data``: eval-arena ``pass1`` records,
  bt-eval long CSV, WMT MQM segment TSVs (space-separated header, ``None`` = missing
  score → the row is dropped) and AlpacaEval (``preference`` metric);
* turns a wide file (one numeric column per metric) into the long form;
* keeps every other column as metadata (see :func:`split_metadata`);
* ends with :func:`engine._contract.validate_long` so the result is canonical, and
  every problem names the file, the column or rows, the rule and the fix.

Large CSV files are parsed by pyarrow's block-wise, multi-threaded reader (16 MB
blocks) and JSON Lines likewise; nothing is ever unpickled.
"""

from __future__ import annotations

import contextlib
import gzip
import io
import json
import re
import zlib
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import IO, Any

import numpy as np
import pandas as pd

from ._contract import KEY_COLUMNS, DataContractError, Problem, validate_long

__all__ = ["MetricSpec", "read_bytes", "read_results", "split_metadata", "metric_specs_of"]

#: How many bytes pyarrow parses per block (its unit of parallel, chunked work).
_BLOCK_SIZE = 16 << 20
#: Hard limit on one file after decompression (defends against gzip bombs).
MAX_BYTES = 2 << 30
#: Longest text accepted in a key column (system, example id, benchmark, metric), in
#: UTF-8 bytes: a PostgreSQL b-tree entry must stay under ~2.7 kB.
MAX_KEY_BYTES = 1000

_FORMATS = {".csv": "csv", ".tsv": "tsv", ".txt": "csv", ".jsonl": "jsonl", ".ndjson": "jsonl",
            ".json": "json", ".parquet": "parquet", ".pq": "parquet"}
_ALIASES: dict[str, tuple[str, ...]] = {
    "benchmark": ("benchmark_id", "dataset", "task"),
    "system": ("model", "model_name", "system_name"),
    "example_id": ("instance", "instance_id", "example", "item_id", "seg_id", "doc_id"),
    "metric": ("metric_name",),
    "value": ("score",),
}
#: Numeric columns with these names are metadata, never metrics, in a wide file.
_META_NAME = re.compile(
    r"(^|_)(index|idx|id|len|length|tokens|seed|size|params|year|date|time|count|n|"
    r"temperature|temp|top_p|top_k|max_tokens|version|release|batch|lr|epoch|step)($|_)", re.I)
#: Metrics of the public formats whose direction/modality we know.
_KNOWN_METRICS: dict[str, tuple[bool, bool | None]] = {
    "mqm_avg_score": (True, False),   # MQM penalties are negative: closer to 0 is better
    "preference": (True, False),      # AlpacaEval: in [1, 2], higher favours the system
}


@dataclass(frozen=True)
class MetricSpec:
    """What a metric means: its direction and (optionally declared) modality.

    ``binary=None`` means "detect from the values" (binary when all are 0 or 1).
    """

    higher_is_better: bool = True
    binary: bool | None = None


# --------------------------------------------------------------------------- bytes


def _source_name(source: str | Path | IO[bytes], name: str | None) -> str:
    if name:
        return str(name)
    if isinstance(source, str | Path):
        return Path(source).name
    return str(getattr(source, "name", "") or "<upload>")


def read_bytes(source: str | Path | IO[bytes], *, name: str | None = None) -> bytes:
    """Raw bytes of a path or a binary file object (rewound first when possible)."""
    label = _source_name(source, name)
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

    canon = _canonical_names(names)
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


# --------------------------------------------------------------------------- shaping


def _canonical_names(columns: list[str]) -> list[str]:
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


def _is_mostly_numeric(col: pd.Series) -> bool:
    if pd.api.types.is_bool_dtype(col.dtype):
        return True
    if pd.api.types.is_numeric_dtype(col.dtype):
        return True
    nonempty = col.dropna()
    nonempty = nonempty[nonempty.astype(str).str.strip() != ""]
    if len(nonempty) == 0:
        return False
    numeric = pd.to_numeric(nonempty, errors="coerce").notna()
    return bool(numeric.mean() > 0.5)


def _metric_columns(frame: pd.DataFrame, label: str,
                    metrics: Mapping[str, MetricSpec] | None) -> list[str]:
    cols = [c for c in frame.columns if c not in (*KEY_COLUMNS, "run")]
    if metrics:
        declared = [m for m in metrics if m in cols]
        if declared:
            return declared
    for known in ("pass1", "preference", "mqm_avg_score"):
        if known in cols:
            return [known]
    found = [c for c in cols if not _META_NAME.search(str(c)) and _is_mostly_numeric(frame[c])]
    if not found:
        raise DataContractError([Problem(
            label, rule="no value column: neither 'value'/'score' nor a numeric metric column "
            f"(found: {', '.join(map(str, frame.columns))})", column="value",
            fix="add a 'metric' and a 'value' column, or one numeric column per metric")])
    return found


def _remap(exc: DataContractError, rownums: np.ndarray | None, value_column: str | None,
           ) -> DataContractError:
    fixed = []
    for p in exc.problems:
        rows = p.rows
        if rownums is not None and rows:
            rows = tuple(int(rownums[r - 1]) for r in rows if 0 < r <= len(rownums))
        column = value_column if (value_column and p.column == "value") else p.column
        fixed.append(Problem(p.source, rule=p.rule, fix=p.fix, column=column, rows=rows))
    return DataContractError(fixed)


def _validate(frame: pd.DataFrame, label: str, rownums: np.ndarray | None,
              value_column: str | None = None) -> pd.DataFrame:
    try:
        return validate_long(frame, source=label, require_comparison=False)
    except DataContractError as exc:
        raise _remap(exc, rownums, value_column) from None


def _check_binary(df: pd.DataFrame, label: str, specs: Mapping[str, MetricSpec],
                  rownums: np.ndarray | None, wide: bool) -> None:
    problems = []
    for metric, spec in specs.items():
        if spec.binary is not True:
            continue
        mask = (df["metric"] == metric).to_numpy() & ~np.isin(df["value"].to_numpy(), (0.0, 1.0))
        if mask.any():
            positions = np.flatnonzero(mask)
            if wide and rownums is not None:
                rows = tuple(sorted({int(rownums[p % len(rownums)]) for p in positions}))
            elif rownums is not None:
                rows = tuple(int(rownums[p]) for p in positions)
            else:
                rows = tuple(int(p) + 1 for p in positions)
            example = df["value"].to_numpy()[positions[0]]
            problems.append(Problem(
                label, rule=f"metric {metric!r} is declared binary but has the value {example:g}",
                column=metric if wide else "value", rows=rows,
                fix="score binary metrics as 0 or 1, or declare the metric numeric"))
    if problems:
        raise DataContractError(problems)


def _check_key_text(df: pd.DataFrame, label: str, rownums: np.ndarray | None) -> None:
    """Key texts must fit an index entry (UTF-8 bytes) and hold no NUL character."""
    for col in KEY_COLUMNS:
        codes, uniques = pd.factorize(df[col], sort=False)
        sizes = np.fromiter((len(str(u).encode("utf-8")) for u in uniques), dtype=np.int64,
                            count=len(uniques))
        nul = np.fromiter(("\x00" in str(u) for u in uniques), dtype=bool, count=len(uniques))
        for bad, rule, fix in (
            (sizes > MAX_KEY_BYTES, f"a {col} is {int(sizes.max(initial=0))} bytes long "
             f"(limit {MAX_KEY_BYTES} bytes in UTF-8)",
             f"shorten the {col}; put long text in a metadata column"),
            (nul, f"a {col} contains a NUL character (\\x00)",
             f"remove control characters from the {col}"),
        ):
            if bad.any():
                pos = np.flatnonzero(bad[codes])
                rows = tuple(int(rownums[p]) if rownums is not None else int(p) + 1 for p in pos)
                raise DataContractError([Problem(label, rule=rule, column=col, rows=rows, fix=fix)])


def _to_long(
    frame: pd.DataFrame, label: str, metrics: Mapping[str, MetricSpec] | None
) -> tuple[pd.DataFrame, dict[str, MetricSpec]]:
    frame.columns = _canonical_names([str(c) for c in frame.columns])
    specs: dict[str, MetricSpec] = {}
    rownums: np.ndarray | None = None
    if "benchmark" not in frame.columns and len(frame.columns) > 0 and len(frame) > 0:
        frame.insert(0, "benchmark", benchmark_from_name(label))
    if "mqm_avg_score" in frame.columns and "value" not in frame.columns:
        # WMT MQM: the text None marks a segment that was not rated → not an observation.
        cells = frame["mqm_avg_score"].astype("string").str.strip()
        missing = cells.isin(["None", ""]).fillna(True).to_numpy(dtype=bool)
        if missing.any():
            rownums = np.flatnonzero(~missing) + 1
            frame = frame.loc[~missing].reset_index(drop=True)
    wide = "value" not in frame.columns and "metric" not in frame.columns
    if len(frame) == 0 or len(frame.columns) == 0:
        out = _validate(frame, label, rownums)  # raises the empty-table problem
        return out, specs
    if not wide and ("value" not in frame.columns or "metric" not in frame.columns):
        if "value" in frame.columns:
            frame.insert(len(frame.columns), "metric", "value")  # one unnamed metric
        else:
            out = _validate(frame, label, rownums)  # raises "missing column"
            return out, specs
    if wide:
        value_cols = _metric_columns(frame, label, metrics)
        meta = [c for c in frame.columns if c not in value_cols]
        parts = []
        problems: list[Problem] = []
        for m in value_cols:
            part = frame[meta].copy()
            part["metric"] = m
            part["value"] = frame[m].to_numpy()
            try:
                parts.append(_validate(part, label, rownums, value_column=str(m)))
            except DataContractError as exc:
                problems.extend(p for p in exc.problems if p not in problems)
        if problems:
            raise DataContractError(problems)
        out = parts[0] if len(parts) == 1 else pd.concat(parts, ignore_index=True)
        cols = ["benchmark", "system", "example_id", "metric", "value"]
        cols += ["run"] if "run" in out.columns else []
        out = out[cols + [c for c in out.columns if c not in cols]]
    else:
        out = _validate(frame, label, rownums)
    for m in out["metric"].unique():
        if metrics and m in metrics:
            specs[m] = metrics[m]
        elif m in _KNOWN_METRICS:
            hib, binary = _KNOWN_METRICS[m]
            specs[m] = MetricSpec(higher_is_better=hib, binary=binary)
    _check_key_text(out, label, rownums)
    _check_binary(out, label, specs, rownums, wide)
    return out, specs


def read_results(
    source: str | Path | IO[bytes],
    *,
    name: str | None = None,
    fmt: str | None = None,
    metrics: Mapping[str, MetricSpec] | None = None,
) -> pd.DataFrame:
    """Read a results file into the validated canonical long table.

    Parameters
    ----------
    source : path or binary file object
        CSV/TSV, JSON Lines/JSON or Parquet, optionally gzip-compressed (detected by
        magic bytes). A Streamlit ``UploadedFile`` works as is.
    name : str, optional
        File name for messages, format detection and the default benchmark name
        (defaults to the path's name or the buffer's ``.name``).
    fmt : {"csv", "tsv", "jsonl", "json", "parquet"}, optional
        Overrides format detection.
    metrics : mapping of metric name → :class:`MetricSpec`, optional
        Declared direction/modality. In a wide file the declared names choose the
        metric columns. A metric declared binary with other values than 0/1 is rejected.

    Returns
    -------
    DataFrame
        As :func:`validate_long` returns it (``require_comparison=False``);
        ``df.attrs["metric_specs"]`` maps metric → :class:`MetricSpec` for every
        metric declared or known (e.g. WMT's ``mqm_avg_score``, higher is better).

    Raises
    ------
    DataContractError
        For every kind of bad input, never a half-read table.
    """
    label = _source_name(source, name)
    data = read_bytes(source, name=name)
    return read_results_bytes(data, label=label, fmt=fmt, metrics=metrics)


def read_results_bytes(data: bytes, *, label: str, fmt: str | None = None,
                       metrics: Mapping[str, MetricSpec] | None = None) -> pd.DataFrame:
    """:func:`read_results` for bytes already in memory (``label`` names the file)."""
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
        frame = _parse(data, label, kind)
    except DataContractError:
        raise
    except (ValueError, TypeError, pd.errors.ParserError, OverflowError) as exc:
        # pyarrow's errors derive from ValueError too; nothing unparsed gets through
        raise DataContractError([Problem(
            label, rule=f"the file cannot be read as {kind.upper()} ({str(exc).strip()[:200]})",
            fix=f"check that the file is valid {kind.upper()} (quotes closed, one record "
            "per line), or name it with the right extension")]) from None
    out, specs = _to_long(frame, label, metrics)
    out.attrs["metric_specs"] = specs
    return out


def _parse(data: bytes, label: str, kind: str) -> pd.DataFrame:
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


def metric_specs_of(df: pd.DataFrame) -> dict[str, MetricSpec]:
    """The metric declarations a reader attached to ``df`` (empty when none)."""
    specs = df.attrs.get("metric_specs") or {}
    return {str(k): v for k, v in specs.items() if isinstance(v, MetricSpec)}


# --------------------------------------------------------------------------- metadata


def split_metadata(df: pd.DataFrame) -> tuple[pd.DataFrame, pd.DataFrame, pd.DataFrame]:
    """Split a canonical long table into results, system metadata and example metadata.

    A metadata column that is constant within every (benchmark, system) is system
    metadata; otherwise, when constant within every (benchmark, example_id), it is
    example metadata. Columns that vary per observation stay in the results frame.

    Returns
    -------
    results : DataFrame
        Canonical columns (with ``run`` when present) plus per-observation columns.
    system_meta : DataFrame
        ``benchmark, system`` plus system columns, one row per (benchmark, system).
    example_meta : DataFrame
        ``benchmark, example_id`` plus example columns, one row per (benchmark, example_id).
    """
    canon = ["benchmark", "system", "example_id", "metric", "value"]
    canon += ["run"] if "run" in df.columns else []
    extra = [c for c in df.columns if c not in canon]
    sys_cols: list[str] = []
    ex_cols: list[str] = []
    row_cols: list[str] = []
    if extra:
        by_sys = df.groupby(["benchmark", "system"], sort=False, observed=True)
        by_ex = df.groupby(["benchmark", "example_id"], sort=False, observed=True)
        for col in extra:
            if (by_sys[col].nunique(dropna=False) <= 1).all():
                sys_cols.append(col)
            elif (by_ex[col].nunique(dropna=False) <= 1).all():
                ex_cols.append(col)
            else:
                row_cols.append(col)
    results = df[canon + row_cols]
    sys_meta = (df[["benchmark", "system", *sys_cols]]
                .drop_duplicates(["benchmark", "system"]).reset_index(drop=True))
    ex_meta = (df[["benchmark", "example_id", *ex_cols]]
               .drop_duplicates(["benchmark", "example_id"]).reset_index(drop=True))
    return results, sys_meta, ex_meta
