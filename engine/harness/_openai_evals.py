"""openai/evals ``oaieval`` record JSONL (``evals/record.py``'s ``LocalRecorder``).

The first line is ``{"spec": RunSpec}``, the last ``{"final_report": …}``; between them,
events ``{run_id, event_id, sample_id, type, data, …}``. Mapping (docs/formats.md, "OpenAI evals"):
system = ``spec.completion_fns`` joined with ``+``; benchmark = ``spec.eval_name``;
example_id = ``sample_id``; metric ``correct`` from ``match`` events (bool → 0/1) plus the
numeric keys of ``metrics`` events. A sample with several match events gets runs 0, 1, ….
"""

from __future__ import annotations

import json
from typing import Any

from .._contract import DataContractError, MetricSpec, Problem
from ._common import Part, long_rows
from ._report import Skips
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
        triples: list[tuple[str, str, Any]] = []
        for event in lines[1:]:
            data = event.get("data")
            if "sample_id" not in event or not isinstance(data, dict):
                continue
            if event.get("type") == "match":
                triples.append((str(event["sample_id"]), "correct", data.get("correct")))
            elif event.get("type") == "metrics":
                triples.extend((str(event["sample_id"]), str(k), raw) for k, raw in data.items())
        rows = long_rows(triples, benchmark=bench, skips=skips)
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
