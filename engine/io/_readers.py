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

Bytes, decompression and parsing live in :mod:`engine.io._formats` (large CSV files
are parsed by pyarrow's block-wise, multi-threaded reader, 16 MB blocks); this
module shapes what they return. Nothing is ever unpickled.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from pathlib import Path
from typing import IO

import numpy as np
import pandas as pd

from .._contract import KEY_COLUMNS, DataContractError, MetricSpec, Problem, validate_long
from ._checks import OUTPUT_NAMES
from ._formats import (
    benchmark_from_name,
    canonical_names,
    frame_from_bytes,
    read_bytes,
    source_name,
)
from ._judge import INCLUSION_COLUMN, is_human_metric
from ._limits import Limits

__all__ = ["OUTPUT_NAMES", "metric_specs_of", "read_bytes", "read_results", "split_metadata"]

#: Longest text accepted in a key column (system, example id, benchmark, metric), in
#: UTF-8 bytes: a PostgreSQL b-tree entry must stay under ~2.7 kB.
MAX_KEY_BYTES = 1000

#: Numeric columns with these names are metadata, never metrics, in a wide file.
_META_NAME = re.compile(
    r"(^|_)(index|idx|id|len|length|tokens|seed|size|params|year|date|time|count|n|"
    r"temperature|temp|top_p|top_k|max_tokens|version|release|batch|lr|epoch|step)($|_)", re.I)
#: Metrics of the public formats whose direction/modality we know.
_KNOWN_METRICS: dict[str, tuple[bool, bool | None]] = {
    "mqm_avg_score": (True, False),   # MQM penalties are negative: closer to 0 is better
    "preference": (True, False),      # AlpacaEval: in [1, 2], higher favours the system
}


# --------------------------------------------------------------------------- shaping


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


def is_text(col: pd.Series) -> bool:
    """Whether a column holds text (not a numeric or boolean dtype)."""
    return not (pd.api.types.is_numeric_dtype(col.dtype) or pd.api.types.is_bool_dtype(col.dtype))


def _metric_columns(frame: pd.DataFrame, label: str,
                    metrics: Mapping[str, MetricSpec] | None) -> list[str]:
    # inclusion probabilities are a per-example design column (PPI++ weights), never a metric
    cols = [c for c in frame.columns if c not in (*KEY_COLUMNS, "run", INCLUSION_COLUMN)]
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
    frame.columns = canonical_names([str(c) for c in frame.columns])
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
            part_rows = rownums
            if is_human_metric(m):  # human labels on a random subset: empty cells are unlabelled
                keep = pd.notna(part["value"]).to_numpy(dtype=bool)
                part_rows = (rownums if rownums is not None else np.arange(1, len(keep) + 1))[keep]
                part = part.loc[keep].reset_index(drop=True)
            try:
                parts.append(_validate(part, label, part_rows, value_column=str(m)))
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
    limits: Limits | None = None,
    isolated: bool = False,
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
    limits : Limits, optional
        Upload limits (bytes after decompression, rows, systems, metrics, benchmarks,
        nesting depth), checked before anything heavy runs; default ``Limits()``.
    isolated : bool
        Parse in a child process with a memory cap (for servers).

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
    label = source_name(source, name)
    if isolated and isinstance(source, str | Path):
        # the child reads the file from disk: this process never holds its bytes
        from ._worker import parse_isolated

        if not Path(source).is_file():
            read_bytes(source, name=name)  # raises the "no such file" problem
        return _shaped(parse_isolated(None, label, fmt=fmt, limits=limits, path=source),
                       label, metrics)
    data = read_bytes(source, name=name)
    return read_results_bytes(data, label=label, fmt=fmt, metrics=metrics, limits=limits,
                              isolated=isolated)


def read_results_bytes(data: bytes, *, label: str, fmt: str | None = None,
                       metrics: Mapping[str, MetricSpec] | None = None,
                       limits: Limits | None = None, isolated: bool = False) -> pd.DataFrame:
    """:func:`read_results` for bytes already in memory (``label`` names the file).

    ``limits`` bounds bytes, rows, systems, metrics, benchmarks and nesting depth
    (default :class:`engine.Limits`); ``isolated`` parses in a child process with a
    memory cap (:func:`engine.parse_isolated`), so that a crash in a native parser
    cannot take a server down.
    """
    if isolated:
        from ._worker import parse_isolated

        frame = parse_isolated(data, label, fmt=fmt, limits=limits)
    else:
        frame = frame_from_bytes(data, label, fmt, limits=limits)
    return _shaped(frame, label, metrics)


def _shaped(frame: pd.DataFrame, label: str,
            metrics: Mapping[str, MetricSpec] | None) -> pd.DataFrame:
    """A parsed frame as the canonical long table, its metric declarations attached."""
    out, specs = _to_long(frame, label, metrics)
    out.attrs["metric_specs"] = specs
    return out


def metric_specs_of(df: pd.DataFrame) -> dict[str, MetricSpec]:
    """The metric declarations a reader attached to ``df`` (empty when none)."""
    specs = df.attrs.get("metric_specs") or {}
    return {str(k): v for k, v in specs.items() if isinstance(v, MetricSpec)}


# --------------------------------------------------------------------------- metadata


def split_metadata(df: pd.DataFrame) -> tuple[pd.DataFrame, pd.DataFrame, pd.DataFrame]:
    """Split a canonical long table into results, system metadata and example metadata.

    A metadata column that is constant within every (benchmark, system) is system
    metadata; otherwise, when constant within every (benchmark, example_id), it is
    example metadata. Columns that vary per observation stay in the results frame, and
    so does a text column named like a system's output (:data:`OUTPUT_NAMES`, e.g.
    ``output``, ``completion``, ``response``) whatever its values.

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
            if str(col).lower() in OUTPUT_NAMES and is_text(df[col]):
                row_cols.append(col)
            elif (by_sys[col].nunique(dropna=False) <= 1).all():
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
