"""Hugging Face lighteval ``--save-details`` parquet files.

From ``lighteval/logging/evaluation_tracker.py`` and ``info_loggers.py`` (docs/formats.md, "lighteval"):
``details/<model>/<date_id>/details_<task>_<date_id>.parquet``; v0.11+ has struct columns
``doc`` (with ``id``), ``metric`` (one field per metric) and ``model_response``; v0.10 and
older have flat columns (``example``, ``full_prompt``, ``predictions``, ``metrics``, …) and
no id, so the example is identified by a hash of its ``example`` text (the query).

Mapping: system = the path between ``details/`` and ``/<date_id>/`` (or ``model_name`` of
``results/<model>/results_<date_id>.json``); benchmark = task from the file name
(``gsm8k|5``); example_id = ``doc.id``; metric = every numeric field of the metric struct
(ints and bools as floats; dicts and lists, the corpus-metric inputs, skipped and counted);
another date_id is another run; direction from ``config_tasks[task].metrics[].higher_is_better``.
Texts (v0.11+): ``prompt`` = ``doc.query``, ``reference`` = the gold choice(s), ``output`` =
the model's text (for log-likelihood tasks, the choice it scored highest), ``content_hash``
of query and gold. The version is ``config_general.lighteval_sha`` when it is one ("unknown"
for the ``"?"`` a pip install writes).
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
from ._texts import content_hash
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

    from ..io._parquet import check_parquet_sizes

    data = f.read()
    try:
        # a few KB of Parquet can decode to gigabytes: sizes checked from the metadata first
        check_parquet_sizes(pq.ParquetFile(pa.BufferReader(data)), f.label, data=data)
        return pq.read_table(io.BytesIO(data))
    except DataContractError:
        raise
    except (pa.ArrowException, OSError, ValueError) as exc:
        raise f.problem(f"not a readable Parquet file ({str(exc)[:200]})",
                        "upload the details parquet lighteval wrote (complete, not truncated)") from None


def _results(files: list[LogFile]) -> dict[str, tuple[LogFile, dict[str, Any]]]:
    out = {}
    for f in files:
        m = re.match(r"^results_(?P<date>[^_]+?)\.json$", f.name)
        # anywhere, not only under results/: files uploaded one by one arrive without their
        # folders, and the content (config_general) tells lighteval's from lm-eval's
        if m:
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


def _doc_texts(doc: dict[str, Any], response: dict[str, Any] | None) -> tuple[
        str | None, str | None, str | None]:
    choices = [str(c) for c in doc.get("choices") or []]
    gold = doc.get("gold_index")
    golds = gold if isinstance(gold, list) else [gold]
    reference = "\n".join(choices[g].strip() for g in golds
                          if isinstance(g, int) and 0 <= g < len(choices)) or None
    response = response or {}
    texts = response.get("text") or []
    output = str(texts[0]) if texts else None
    logprobs = response.get("logprobs") or []
    if output is None and choices and len(logprobs) == len(choices):
        output = choices[max(range(len(logprobs)), key=lambda i: float(logprobs[i]))].strip()
    query = doc.get("query")
    return (str(query) if query is not None else None), reference, output


def _texts_of(table: Any) -> dict[str, tuple[str | None, str | None, str | None]]:
    if "model_response" not in table.column_names or "doc" not in table.column_names:
        return {}
    docs = table.column("doc").combine_chunks()
    keep = [n for n in ("id", "query", "choices", "gold_index") if docs.type.get_field_index(n) >= 0]
    rows = [dict(zip(keep, values, strict=True)) for values in
            zip(*(docs.field(n).to_pylist() for n in keep), strict=True)]
    responses = table.column("model_response").combine_chunks()
    fields = [n for n in ("text", "logprobs") if responses.type.get_field_index(n) >= 0]
    answers = [dict(zip(fields, values, strict=True)) for values in
               zip(*(responses.field(n).to_pylist() for n in fields), strict=True)] if fields \
        else [{} for _ in rows]
    out: dict[str, tuple[str | None, str | None, str | None]] = {}
    for doc, answer in zip(rows, answers, strict=True):
        found = _doc_texts(doc, answer)
        if str(doc.get("id")) not in out or (found[2] and not out[str(doc.get("id"))][2]):
            out[str(doc.get("id"))] = found
    return out


def _with_texts(rows: pd.DataFrame, texts: dict[str, tuple[str | None, str | None, str | None]]
                ) -> pd.DataFrame:
    if not texts or rows.empty:
        return rows
    found = [texts.get(i, (None, None, None)) for i in rows["example_id"]]
    for j, name in enumerate(("prompt", "reference", "output")):
        rows[name] = pd.Series([t[j] for t in found], index=rows.index, dtype=object)
    rows["content_hash"] = pd.Series([content_hash(t[0], t[1]) for t in found], index=rows.index,
                                     dtype=object)
    return rows


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
        table = _table(f)
        rows = _with_texts(_metric_rows(f, table, task, skips), _texts_of(table))
        found = results.get(date)
        res = found[1] if found else {}
        general = res.get("config_general") or {}
        system = general.get("model_name") or _system_from_path(f.path, date) if date else None
        task_config = (res.get("config_tasks") or {}).get(task) or {}
        model_config = dict(general.get("model_config") or {})
        generation = dict(model_config.get("generation_parameters") or {})
        seed = generation.pop("seed", None)  # another seed is another run, not another system
        if "generation_parameters" in model_config:
            model_config["generation_parameters"] = generation
        settings = {"num_fewshot": task_config.get("num_fewshots", task.rsplit("|", 1)[-1]
                                                   if "|" in task else None),
                    "model_config": {k: v for k, v in model_config.items() if k != "model_name"}
                    or None}
        sha = str(general.get("lighteval_sha") or "").strip()
        meta = {"harness_version": f"lighteval {sha[:7] if sha and sha != '?' else 'unknown'}",
                "max_samples": general.get("max_samples")}
        parts.append(Part(f.label, task, system, rows, invocation=date,
                          settings={k: v for k, v in settings.items() if v is not None},
                          meta={k: v for k, v in meta.items() if v is not None},
                          system_hint=_system_from_path(f.path, date), seed=seed))
        for spec in task_config.get("metrics") or []:
            if isinstance(spec, dict) and isinstance(spec.get("higher_is_better"), bool):
                specs[(task, str(spec.get("metric_name")))] = MetricSpec(
                    higher_is_better=spec["higher_is_better"])
    return parts, specs
