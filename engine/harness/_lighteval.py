"""Hugging Face lighteval ``--save-details`` parquet files.

From ``lighteval/logging/evaluation_tracker.py`` and ``info_loggers.py`` (FORMATS.md §4):
``details/<model>/<date_id>/details_<task>_<date_id>.parquet``; v0.11+ has struct columns
``doc`` (with ``id``), ``metric`` (one field per metric) and ``model_response``; v0.10 and
older have flat columns (``example``, ``full_prompt``, ``predictions``, ``metrics``, …) and
no id, so the example is identified by a hash of its ``example`` text (the query).

Mapping: system = the path between ``details/`` and ``/<date_id>/`` (or ``model_name`` of
``results/<model>/results_<date_id>.json``); benchmark = task from the file name
(``gsm8k|5``); example_id = ``doc.id``; metric = every numeric field of the metric struct
(ints and bools as floats; dicts and lists, the corpus-metric inputs, skipped and counted);
another date_id is another run; direction from ``config_tasks[task].metrics[].higher_is_better``.
"""

from __future__ import annotations

import io
import json
import re
from typing import Any

import numpy as np
import pandas as pd

from .._contract import DataContractError, MetricSpec, Problem
from ._common import Part, short_hash, to_score
from ._report import Skips
from ._walk import LogFile

__all__ = ["parquet_columns", "read_lighteval"]

_DETAILS = re.compile(r"^details_(?P<task>.+)_(?P<date>[^_]+?)\.parquet$")
_CURRENT = frozenset({"doc", "metric", "model_response"})
_LEGACY = frozenset({"example", "metrics"})
_CORPUS_NOTE = "corpus-level inputs, not scores"


def parquet_columns(data: bytes) -> list[str] | None:
    """Top-level column names of a Parquet file, or None when it is not readable Parquet."""
    import pyarrow as pa
    import pyarrow.parquet as pq

    try:
        return list(pq.read_schema(pa.BufferReader(data)).names)
    except (pa.ArrowException, OSError, ValueError):
        return None


def _table(f: LogFile) -> Any:
    import pyarrow as pa
    import pyarrow.parquet as pq

    try:
        return pq.read_table(io.BytesIO(f.read()))
    except (pa.ArrowException, OSError, ValueError) as exc:
        raise f.problem(f"not a readable Parquet file ({str(exc)[:200]})",
                        "upload the details parquet lighteval wrote (complete, not truncated)") from None


def _results(files: list[LogFile]) -> dict[str, tuple[LogFile, dict[str, Any]]]:
    out = {}
    for f in files:
        m = re.match(r"^results_(?P<date>[^_]+?)\.json$", f.name)
        if m and "/results/" in f"/{f.path}" or (m and f.path.startswith("results/")):
            try:
                obj = json.loads(f.read())
            except (json.JSONDecodeError, UnicodeDecodeError):
                continue  # not lighteval's; the details path still names the model
            if isinstance(obj, dict) and "config_general" in obj and m:
                out[m.group("date")] = (f, obj)
    return out


def _system_from_path(path: str, date: str) -> str | None:
    parts = path.split("/")
    if "details" in parts and date in parts:
        i, j = parts.index("details"), len(parts) - 1 - parts[::-1].index(date)
        if j > i + 1:
            return "/".join(parts[i + 1:j])
    return None


def _metric_rows(f: LogFile, table: Any, task: str,
                 skips: Skips) -> pd.DataFrame:
    names = set(table.column_names)
    if names >= _CURRENT:
        ids = [str(x) for x in table.column("doc").combine_chunks().field("id").to_pylist()]
        metric_col = table.column("metric").to_pylist()
    elif names >= _LEGACY:  # ≤ v0.10: no id; the query text identifies the example
        ids = [short_hash(str(x)) for x in table.column("example").to_pylist()]
        metric_col = table.column("metrics").to_pylist()
    else:
        want = _CURRENT if "doc" in names or "metric" in names or "model_response" in names else _LEGACY
        missing = sorted(want - names)
        raise DataContractError([Problem(
            f.label, rule=f"lighteval details without column(s) {', '.join(missing)} "
            f"(found: {', '.join(sorted(names))})", column=missing[0],
            fix="upload the details parquet lighteval wrote with --save-details (v0.11+: doc, "
            "metric, model_response; older: example, metrics, …)")])
    found: dict[tuple[str, str], float] = {}
    nulls: dict[tuple[str, str], int] = {}
    for example_id, metrics in zip(ids, metric_col, strict=True):
        for metric, raw in (metrics or {}).items():
            value, reason = to_score(raw)
            if reason is None:
                if (example_id, metric) in found:
                    raise DataContractError([Problem(
                        f.label, rule=f"example {example_id} has two scores for metric {metric}",
                        fix="upload each details file once; for ≤ v0.10 files, two docs with the "
                        "same query text cannot be told apart")])
                found[(example_id, metric)] = value  # type: ignore[assignment]
            elif reason == "null":
                nulls[(example_id, metric)] = nulls.get((example_id, metric), 0) + 1
            else:
                skips.add(reason, task, metric, note=_CORPUS_NOTE if reason in ("list", "dict") else None)
    for (example_id, metric), n in nulls.items():
        # a doc scored by two sampling methods has two rows; the other row's fields are null
        if (example_id, metric) not in found:
            skips.add("null", task, metric, n)
    keys = list(found)
    return pd.DataFrame({"example_id": [k[0] for k in keys], "metric": [k[1] for k in keys],
                         "value": np.fromiter(found.values(), dtype=np.float64, count=len(found))})


def read_lighteval(logs: list[LogFile], files: list[LogFile],
                   skips: Skips) -> tuple[list[Part], dict[tuple[str, str], MetricSpec]]:
    """One part per details parquet."""
    results = _results(files)
    parts, specs = [], {}
    for f in logs:
        m = _DETAILS.match(f.name)
        task, date = (m.group("task"), m.group("date")) if m else (f.name.rsplit(".", 1)[0], "")
        rows = _metric_rows(f, _table(f), task, skips)
        found = results.get(date)
        res = found[1] if found else {}
        general = res.get("config_general") or {}
        system = general.get("model_name") or _system_from_path(f.path, date) if date else None
        task_config = (res.get("config_tasks") or {}).get(task) or {}
        model_config = general.get("model_config") or {}
        settings = {"num_fewshot": task_config.get("num_fewshots", task.rsplit("|", 1)[-1]
                                                   if "|" in task else None),
                    "model_config": {k: v for k, v in model_config.items() if k != "model_name"}
                    or None}
        meta = {"harness_version": f"lighteval {general['lighteval_sha'][:7]}"
                if general.get("lighteval_sha") else "lighteval",
                "max_samples": general.get("max_samples")}
        parts.append(Part(f.label, task, system, rows, invocation=date,
                          settings={k: v for k, v in settings.items() if v is not None},
                          meta={k: v for k, v in meta.items() if v is not None},
                          system_hint=_system_from_path(f.path, date)))
        for spec in task_config.get("metrics") or []:
            if isinstance(spec, dict) and isinstance(spec.get("higher_is_better"), bool):
                specs[(task, str(spec.get("metric_name")))] = MetricSpec(
                    higher_is_better=spec["higher_is_better"])
    return parts, specs
