"""openai/evals ``oaieval`` record JSONL (``evals/record.py``'s ``LocalRecorder``).

The first line is ``{"spec": RunSpec}``, the last ``{"final_report": …}``; between them,
events ``{run_id, event_id, sample_id, type, data, …}``. Mapping (docs/formats.md, "OpenAI evals"):
system = ``spec.completion_fns`` joined with ``+``; benchmark = ``spec.eval_name``;
example_id = ``sample_id``; metric ``correct`` from ``match`` events (bool → 0/1) plus the
numeric keys of ``metrics`` events. A sample with several match events gets runs 0, 1, ….
(evals 3.0.1 writes ``{"final_report": …}`` as the second line, before the events; it is not
an event and is skipped wherever it stands.)

Texts (:mod:`engine.harness._texts`): prompt = the sample's first ``sampling`` event's
``prompt`` (chat messages as ``role: text`` lines); reference = the match event's
``expected`` (a list of acceptable answers one per line); output = its ``sampled``, else
``picked``, else the sampling event's first ``sampled``.
"""

from __future__ import annotations

import json
from typing import Any

import numpy as np
import pandas as pd

from .._contract import DataContractError, MetricSpec, Problem
from ._common import Part, to_score
from ._report import Skips
from ._texts import chat_text, content_hash
from ._walk import LogFile

__all__ = ["read_openai_evals"]


def _lines(f: LogFile) -> list[dict[str, Any]]:
    out = []
    for lineno, line in enumerate(f.read().splitlines(), start=1):
        if not line.strip():
            continue
        try:
            obj = json.loads(line)
        except (json.JSONDecodeError, UnicodeDecodeError) as exc:
            raise DataContractError([Problem(
                f.label, rule=f"line {lineno} is not valid JSON ({exc})", rows=(lineno,),
                fix="upload the complete record file oaieval wrote")]) from None
        if not isinstance(obj, dict):
            raise DataContractError([Problem(f.label, rule=f"line {lineno} is not a JSON object",
                                             rows=(lineno,), fix="upload the record file oaieval wrote")])
        out.append(obj)
    return out


def _text(value: Any) -> str | None:
    return chat_text(value) if isinstance(value, str | list | tuple) else None


def _rows(events: list[dict[str, Any]], bench: str, skips: Skips) -> pd.DataFrame:
    """Rows of the match and metrics events, each with its sample's texts."""
    prompts: dict[str, str | None] = {}
    sampled: dict[str, str | None] = {}
    references: dict[str, str | None] = {}
    for event in events:
        data, sid = event.get("data"), str(event.get("sample_id"))
        if event.get("type") == "sampling" and isinstance(data, dict) and sid not in prompts:
            prompts[sid] = _text(data.get("prompt"))
            first = data.get("sampled")
            sampled[sid] = _text(first[0] if isinstance(first, list) and first else first)
        elif event.get("type") == "match" and isinstance(data, dict):
            references.setdefault(sid, _text(data.get("expected")))
    names = ("example_id", "metric", "value", "prompt", "reference", "output", "content_hash")
    cols: dict[str, list[Any]] = {k: [] for k in names}
    for event in events:
        data = event.get("data")
        if "sample_id" not in event or not isinstance(data, dict):
            continue
        sid = str(event["sample_id"])
        if event.get("type") == "match":
            output = _text(data.get("sampled")) or _text(data.get("picked")) or sampled.get(sid)
            pairs: list[tuple[str, Any]] = [("correct", data.get("correct"))]
        elif event.get("type") == "metrics":
            output, pairs = sampled.get(sid), [(str(k), raw) for k, raw in data.items()]
        else:
            continue
        prompt, reference = prompts.get(sid), references.get(sid)
        for metric, raw in pairs:
            value, reason = to_score(raw)
            if reason is not None:
                skips.add(reason, bench, metric)
                continue
            for key, item in zip(names, (sid, metric, value, prompt, reference, output,
                                         content_hash(prompt, reference)), strict=True):
                cols[key].append(item)
    frame = pd.DataFrame({k: pd.Series(v, dtype=object) for k, v in cols.items()})
    empty = [c for c in names[3:] if frame[c].isna().all()]  # texts the log does not hold
    return frame.astype({"value": np.float64}).drop(columns=empty)


def read_openai_evals(logs: list[LogFile], files: list[LogFile],
                      skips: Skips) -> tuple[list[Part], dict[tuple[str, str], MetricSpec]]:
    """One part per record file."""
    del files
    parts = []
    for f in logs:
        lines = _lines(f)
        spec = lines[0].get("spec") if lines else None
        if not isinstance(spec, dict) or not spec.get("completion_fns") or not spec.get("eval_name"):
            raise f.problem("the first line is not a {\"spec\": …} with completion_fns and eval_name",
                            "upload the record JSONL oaieval wrote (its first line is the run spec)")
        bench = str(spec["eval_name"])
        system = "+".join(map(str, spec["completion_fns"]))
        rows = _rows(lines[1:], bench, skips)
        runs = rows.groupby(["example_id", "metric"], sort=False).cumcount()
        if len(runs) and runs.max() > 0:  # a sample matched several times: one run each
            rows["run"] = runs.to_numpy()
        run_config = spec.get("run_config") or {}
        settings = {"eval_spec": (run_config.get("eval_spec") or {}).get("args")}
        seed = run_config.get("seed")  # oaieval --seed (20220722 unless given)
        parts.append(Part(f.label, bench, system, rows, invocation=str(spec.get("created_at") or ""),
                          settings={k: v for k, v in settings.items() if v is not None},
                          meta={"harness_version": "openai-evals"}, seed=seed))
    return parts, {}
