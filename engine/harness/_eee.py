"""Every Eval Ever (EEE) records: aggregate ``{uuid}.json`` and instance-level ``{uuid}_samples.jsonl``.

The schema is the package's (every-eval-ever 0.3.0, ``schemas/eval.schema.json`` and
``schemas/instance_level_eval.schema.json``; docs/formats.md, "Every Eval Ever"). An
aggregate record (``EvaluationLog``) holds ``schema_version``, ``evaluation_id``,
``model_info`` and ``evaluation_results[]``, each with ``evaluation_result_id``,
``source_data.dataset_name``, ``metric_config.lower_is_better`` and ``score_details``; each
line of a samples file (``InstanceLevelEvaluationLog``) holds ``evaluation_id`` (the
aggregate's), ``evaluation_result_id`` (one of its results), ``model_id``, ``sample_id``,
``input``, ``output`` or ``messages``, and ``evaluation.score``.

Mapping, one row per instance record: benchmark = the linked result's
``source_data.dataset_name`` (without an aggregate: the record's ``evaluation_name``);
system = ``model_id``; example_id = ``sample_id``; metric = ``evaluation_result_id`` (else
``evaluation_name``); value = ``evaluation.score``; run = ``metadata.run`` (what sigboard
writes) or ``metadata.epoch`` (what the Inspect converter writes), when present;
``metadata.content_hash`` when sigboard wrote it, else the hash of prompt and reference;
``metadata["sigboard:<column>"]`` (what sigboard writes of example metadata) as that column. Texts:
prompt = ``input.raw``, reference = ``input.reference`` one per line, output = ``output.raw``
one per line (for multi-turn and agentic records, the last assistant message). Direction
from ``metric_config.lower_is_better``, binary when ``score_type`` is ``binary``. The
scalar ``generation_args`` (temperature, top_p, …) are settings (another value, another
system); ``model_info.additional_details`` (but the two required enums), the library and
the schema version (``eee_schema_version``) are system metadata. A record with ``error``
set is an errored sample (skipped, counted). Aggregate results without instance records
are not per-example data: they are named in the report and not imported.

With ``usage``: ``token_usage.input_tokens``/``output_tokens`` as ``tokens_in``/``tokens_out``
``performance.latency_ms`` as ``latency_ms`` and ``performance.generation_time_ms`` / 1000 as
``working_s`` (the Inspect converter writes Inspect's ``working_time`` there), lower-is-better,
once per sample and run.
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from typing import Any

import numpy as np
import pandas as pd

from .._contract import DataContractError, MetricSpec, Problem
from ._common import Part, to_score
from ._report import Skips
from ._texts import chat_text, content_hash
from ._walk import LogFile

__all__ = ["USAGE_SPECS", "is_aggregate", "is_instance", "read_eee"]

_COLUMNS = ("example_id", "metric", "value", "run", "prompt", "reference", "output", "content_hash")
#: model_info.additional_details keys the schema requires (not facts about the system)
_REQUIRED_DETAILS = frozenset({"deployment_type", "model_availability"})
#: instance ``metadata`` keys of example metadata columns (engine.report._eee writes them)
_EXAMPLE = "sigboard:"
#: usage metrics: fewer tokens, less time is better
USAGE_SPECS = {name: MetricSpec(higher_is_better=False, binary=False)
               for name in ("tokens_in", "tokens_out", "latency_ms", "working_s")}
_KIND = {str: "a string", dict: "an object", list: "a list", bool: "true or false"}
_FIX_AGGREGATE = ("upload the records as every-eval-ever wrote them, or check them with its "
                  "validator (python -m every_eval_ever validate FILE)")


def is_aggregate(obj: Any) -> bool:
    """An EEE aggregate record (``EvaluationLog``)."""
    return isinstance(obj, dict) and "schema_version" in obj and "evaluation_results" in obj \
        and "model_info" in obj


def is_instance(obj: Any) -> bool:
    """An EEE instance-level record (``InstanceLevelEvaluationLog``)."""
    return isinstance(obj, dict) and "schema_version" in obj and "sample_id" in obj \
        and "interaction_type" in obj


def _bad(f: LogFile, where: str, field: str, rule: str, fix: str = _FIX_AGGREGATE,
         row: int | None = None) -> DataContractError:
    return DataContractError([Problem(f.label, rule=f"{where}: field {field} {rule}", fix=fix,
                                      column=field, rows=(row,) if row else ())])


def _need(f: LogFile, obj: Mapping[str, Any], key: str, kind: type | tuple[type, ...],
          where: str, prefix: str = "", row: int | None = None) -> Any:
    value = obj.get(key)
    if not isinstance(value, kind) or isinstance(value, bool) and kind is not bool:
        kinds = kind if isinstance(kind, tuple) else (kind,)
        names = " or ".join(_KIND.get(t, t.__name__) for t in kinds)
        shown = "missing" if key not in obj else f"is {json.dumps(value, default=str)[:60]}"
        raise _bad(f, where, prefix + key, f"must be {names} ({shown})", row=row)
    return value


class _Result:
    """One aggregate ``evaluation_results[]`` entry, as the instance records need it."""

    def __init__(self, f: LogFile, result: Any, pos: int) -> None:
        where = f"evaluation_results[{pos}]"
        if not isinstance(result, dict):
            raise _bad(f, where, "", "must be an object")
        config = _need(f, result, "metric_config", dict, where)
        lower = _need(f, config, "lower_is_better", bool, where, "metric_config.")
        source = _object(result.get("source_data"))
        name = _need(f, result, "evaluation_name", str, where)
        self.benchmark = str(source.get("dataset_name") or name)
        self.metric = str(result.get("evaluation_result_id") or name)
        self.spec = MetricSpec(higher_is_better=not lower,
                               binary=True if config.get("score_type") == "binary" else None)
        gen = _object(_object(result.get("generation_config")).get("generation_args"))
        self.settings = {k: v for k, v in gen.items()
                         if isinstance(v, str | int | float | bool) or v is None}
        self.key = result.get("evaluation_result_id")
        self.name = name


class _Aggregate:
    def __init__(self, f: LogFile, obj: dict[str, Any]) -> None:
        where = f"aggregate record {obj.get('evaluation_id', '?')!s}"
        self.version = _need(f, obj, "schema_version", str, where)
        self.evaluation_id = _need(f, obj, "evaluation_id", str, where)
        model = _need(f, obj, "model_info", dict, where)
        self.system = _need(f, model, "id", str, where, "model_info.")
        results = _need(f, obj, "evaluation_results", list, where)
        self.results = [_Result(f, r, i) for i, r in enumerate(results)]
        # an instance record names its result by evaluation_result_id, else by evaluation_name
        self._by_key = {r.key: i for i, r in reversed(list(enumerate(self.results)))
                        if r.key is not None}
        self._by_name = {r.name: i for i, r in reversed(list(enumerate(self.results)))}
        details = model.get("additional_details")
        library = _object(obj.get("eval_library"))
        # the details last: a record sigboard wrote keeps the harness and schema version the
        # rows were first read with
        self.meta: dict[str, Any] = {
            "harness_version": " ".join(str(library[k]) for k in ("name", "version") if library.get(k)),
            "eee_schema_version": self.version,
            **{str(k): v for k, v in _object(details).items() if k not in _REQUIRED_DETAILS}}
        self.used: set[int] = set()

    def result(self, key: Any, name: Any) -> _Result | None:
        if not isinstance(key, str):  # none (or not an id): joined by name
            key = None
        i = self._by_key.get(key) if key is not None else \
            self._by_name.get(name) if isinstance(name, str) else None
        if i is None:
            return None
        self.used.add(i)
        return self.results[i]


def _lines(f: LogFile) -> list[tuple[int, Any]]:
    text = f.read()
    out = []
    for lineno, line in enumerate(text.splitlines(), start=1):
        if not line.strip():
            continue
        try:
            out.append((lineno, json.loads(line)))
        except (json.JSONDecodeError, UnicodeDecodeError) as exc:
            raise DataContractError([Problem(
                f.label, rule=f"line {lineno} is not valid JSON ({exc})", rows=(lineno,),
                fix="upload the samples file as every-eval-ever wrote it")]) from None
    return out


def _load(f: LogFile) -> tuple[_Aggregate | None, list[tuple[int, Any]]]:
    """An aggregate record, or the instance records (line number, record) of a file."""
    data = f.read()
    try:
        obj = json.loads(data)
    except (json.JSONDecodeError, UnicodeDecodeError):
        return None, _lines(f)
    if is_aggregate(obj):
        return _Aggregate(f, obj), []
    if isinstance(obj, dict):
        return None, [(1, obj)]
    raise f.problem("neither an EEE aggregate record nor instance-level records",
                    "upload the {uuid}.json and {uuid}_samples.jsonl files every-eval-ever wrote")


def _output(record: dict[str, Any]) -> str | None:
    out = record.get("output")
    if isinstance(out, dict) and isinstance(out.get("raw"), list):
        return chat_text([str(x) for x in out["raw"]]) if out["raw"] else None
    messages = record.get("messages")
    if isinstance(messages, list):
        said = [m.get("content") for m in messages
                if isinstance(m, dict) and m.get("role") == "assistant" and m.get("content")]
        return str(said[-1]) if said else None
    return None


def _run(record: dict[str, Any], f: LogFile, row: int) -> int | None:
    meta = record.get("metadata")
    if not isinstance(meta, dict):
        return None
    for key in ("run", "epoch"):
        if meta.get(key) is not None:
            try:
                return int(str(meta[key]))
            except ValueError:
                raise _bad(f, f"instance record on line {row}", f"metadata.{key}",
                           f"must be a whole number ({meta[key]!r})",
                           "write the run or epoch as a whole number", row) from None
    return None


def _object(value: Any) -> dict[str, Any]:
    return value if isinstance(value, dict) else {}


def _usage(record: dict[str, Any]) -> list[tuple[str, Any]]:
    tokens, perf = _object(record.get("token_usage")), _object(record.get("performance"))
    found = (("tokens_in", tokens.get("input_tokens")), ("tokens_out", tokens.get("output_tokens")),
             ("latency_ms", perf.get("latency_ms")), ("working_s", perf.get("generation_time_ms")))
    return [(k, v if k != "working_s" or isinstance(v, bool) or not isinstance(v, int | float)
             else v / 1000) for k, v in found if v is not None]


def read_eee(logs: list[LogFile], files: list[LogFile], skips: Skips, *,
             usage: bool = False) -> tuple[list[Part], dict[tuple[str, str], MetricSpec]]:
    """One part per (samples file, evaluation_id, benchmark); aggregates give the benchmark,
    direction, settings and system metadata of the instance records that name them."""
    del files
    aggregates: dict[str, _Aggregate] = {}
    instances: list[tuple[LogFile, list[tuple[int, Any]]]] = []
    for f in logs:
        agg, lines = _load(f)
        if agg is not None:
            if agg.evaluation_id in aggregates:
                raise _bad(f, f"aggregate record {agg.evaluation_id}", "evaluation_id",
                           "is also the id of another aggregate record of the upload",
                           "upload each evaluation's records once")
            aggregates[agg.evaluation_id] = agg
        else:
            instances.append((f, lines))
    specs: dict[tuple[str, str], MetricSpec] = {}
    groups: dict[tuple[str, str, str], dict[str, Any]] = {}
    for f, lines in instances:
        for row, rec in lines:
            where = f"instance record on line {row}"
            if not is_instance(rec):
                raise _bad(f, where, "sample_id", "is missing (not an EEE instance-level record)",
                           "upload the {uuid}_samples.jsonl file every-eval-ever wrote", row)
            eval_id = _need(f, rec, "evaluation_id", str, where, row=row)
            system = _need(f, rec, "model_id", str, where, row=row)
            sample = _need(f, rec, "sample_id", str, where, row=row)
            evaluation = _need(f, rec, "evaluation", dict, where, row=row)
            if "score" not in evaluation:
                raise _bad(f, where, "evaluation.score", "is missing",
                           "give every instance record its score", row)
            agg = aggregates.get(eval_id)
            result = agg.result(rec.get("evaluation_result_id"), rec.get("evaluation_name")) \
                if agg else None
            name = rec.get("evaluation_name")
            bench = result.benchmark if result else str(name or eval_id)
            metric = result.metric if result else str(rec.get("evaluation_result_id") or name or "score")
            if result is not None:
                specs[(bench, metric)] = result.spec
            group = groups.setdefault((f.label, eval_id, bench), {
                "file": f, "system": system, "agg": agg, "result": result, "seen": set(),
                "cols": {k: [] for k in _COLUMNS}, "meta_cols": {}})
            if rec.get("error"):
                skips.add("errored sample", bench, metric)
                continue
            inp = _object(rec.get("input"))
            prompt = inp.get("raw") if isinstance(inp.get("raw"), str) and inp.get("raw") else None
            refs = inp.get("reference")
            reference = chat_text([str(r) for r in refs]) if isinstance(refs, list) and refs else None
            run = _run(rec, f, row)
            extra = _object(rec.get("metadata"))
            digest = extra.get("content_hash")  # as sigboard wrote it
            texts = (prompt, reference, _output(rec),
                     str(digest) if digest else content_hash(prompt, reference))
            pairs: list[tuple[str, Any]] = [(metric, evaluation["score"])]
            if usage and (sample, run) not in group["seen"]:
                group["seen"].add((sample, run))
                used = _usage(rec)
                specs.update({(bench, m): USAGE_SPECS[m] for m, _ in used})
                pairs += used
            for met, raw in pairs:
                value, reason = to_score(raw)
                if reason is not None:
                    skips.add(reason, bench, met)
                    continue
                for key, item in zip(_COLUMNS, (sample, met, value, run, *texts), strict=True):
                    group["cols"][key].append(item)
                for key, item in extra.items():  # example metadata sigboard wrote
                    if isinstance(key, str) and key.startswith(_EXAMPLE):
                        column = group["meta_cols"].setdefault(key[len(_EXAMPLE):], {})
                        column[len(group["cols"]["value"]) - 1] = item
    parts = []
    for (label, eval_id, bench), g in groups.items():
        frame = pd.DataFrame({k: pd.Series(v, dtype=object) for k, v in g["cols"].items()})
        runs = frame["run"]
        if runs.isna().all():
            frame = frame.drop(columns="run")
        else:
            frame["run"] = runs.fillna(0).astype(np.int64)
        empty = [c for c in _COLUMNS[4:] if frame[c].isna().all()]
        frame = frame.astype({"value": np.float64}).drop(columns=empty)
        for name, cells in g["meta_cols"].items():
            if name not in frame.columns:
                frame[name] = pd.Series(cells, index=pd.Index(list(cells)), dtype=object) \
                    .reindex(frame.index)
        agg, result = g["agg"], g["result"]
        meta = dict(agg.meta) if agg else {}
        parts.append(Part(label, bench, g["system"], frame, invocation=eval_id,
                          settings=dict(result.settings) if result else {}, meta=meta,
                          retried=True))
    _name_aggregate_only(aggregates, skips)
    return parts, specs


def _name_aggregate_only(aggregates: Mapping[str, _Aggregate], skips: Skips) -> None:
    """Aggregate results no instance record links to: a sentence in the report."""
    alone = [(a, r) for a in aggregates.values() for i, r in enumerate(a.results) if i not in a.used]
    if alone:
        shown = "; ".join(f"{r.benchmark}/{r.metric} of {a.system}" for a, r in alone[:4])
        more = f" and {len(alone) - 4} more" if len(alone) > 4 else ""
        skips.decisions.append(
            f"{len(alone)} EEE aggregate result(s) have no instance-level records in the upload "
            f"({shown}{more}): an aggregate score is not per-example data, so they are not "
            "imported (upload the {uuid}_samples.jsonl beside each {uuid}.json)")
