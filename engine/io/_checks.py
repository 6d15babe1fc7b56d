"""Checks on a parsed result file: canonical column names, limits and column types.

Part of the file-format layer behind :func:`engine.io._formats.frame_from_bytes`:
the common column aliases (``model`` → ``system``, ``score`` → ``value``, …), the
limits measured on the bytes (lines, JSON depth) and on the parsed key columns
(rows, systems, metrics, benchmarks), and the types a key or score column may have
(Parquet schemas, and columns pandas parsed as dates).
"""

from __future__ import annotations

from typing import Any

import pandas as pd

from .._contract import KEY_COLUMNS, DataContractError, Problem
from ._bytes import too_many_rows
from ._limits import Limits, count_lines, limit_error, nesting_depth

__all__ = [
    "OUTPUT_NAMES",
    "TEXT_NAMES",
    "canonical_names",
    "check_bytes",
    "check_counts",
    "check_frame_types",
    "check_parquet_types",
]

_ALIASES: dict[str, tuple[str, ...]] = {
    "benchmark": ("benchmark_id", "dataset", "task"),
    "system": ("model", "model_name", "system_name"),
    "example_id": ("instance", "instance_id", "example", "item_id", "seg_id", "doc_id"),
    "metric": ("metric_name",),
    "value": ("score",),
}


#: Text columns with these names hold a system's output on an example: kept per
#: observation by :func:`engine.io._readers.split_metadata` even when an upload has one
#: system (where an output would otherwise look like per-example text).
OUTPUT_NAMES = frozenset({"output", "outputs", "completion", "response", "generation",
                          "generated_text", "prediction", "model_output", "model_response",
                          "model_answer", "hypothesis"})
#: Columns always read as text, whatever their values look like: outputs, the example's
#: texts and content hashes (an answer "42" or a hash "1234" is not a number).
TEXT_NAMES = OUTPUT_NAMES | {"prompt", "reference", "input", "target", "content_hash", "doc_hash"}

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


def check_parquet_types(schema: Any, label: str) -> None:
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


def check_bytes(data: bytes, label: str, kind: str, limits: Limits) -> None:
    """Limits measured on the bytes: lines (line formats) and bracket depth (JSON)."""
    header = 1 if kind in ("csv", "tsv") else 0
    if kind in ("csv", "tsv", "jsonl") and count_lines(data) - header > limits.max_rows:
        raise too_many_rows(label, limits)
    if kind in ("json", "jsonl"):
        depth = nesting_depth(data, stop_above=limits.max_depth)
        if depth > limits.max_depth:
            what = "JSON Lines record" if kind == "jsonl" else "JSON document"
            raise limit_error(label, "max_depth", limits,
                              f"a {what} nests brackets more than {limits.max_depth} levels deep")


def check_counts(frame: pd.DataFrame, label: str, limits: Limits) -> None:
    """Rows, systems, metrics and benchmarks, counted on the key columns (before pivoting)."""
    columns = dict(zip(canonical_names([str(c) for c in frame.columns]), frame.columns,
                       strict=True))
    problems: list[Problem] = []
    if len(frame) > limits.max_rows:
        problems += too_many_rows(label, limits).problems
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


def check_frame_types(frame: pd.DataFrame, label: str) -> None:
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
