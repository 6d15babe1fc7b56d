"""promptfoo ``promptfoo eval -o output.json`` (and ``-o results.jsonl``).

From ``src/util/output.ts`` and ``src/types/index.ts`` (docs/formats.md, "promptfoo"): ``{evalId, results:
{version: 3, results: EvaluateResult[], prompts}, config, metadata}``. Mapping: system =
``provider.label`` or ``provider.id`` (with the prompt label when the eval has several
prompts); benchmark = ``config.description`` or ``evalId``; example_id =
``testCase.description`` or a hash of ``vars`` (``testIdx`` is not an example id: every
repeat gets a new one); metrics ``pass`` (= ``success``), ``score`` and each
``namedScores`` key; ``failureReason == 2`` (an error, not a failed assertion) gives no
rows and is reported; run = the occurrence per (system, example), from 0.
"""

from __future__ import annotations

import json
from typing import Any

import pandas as pd

from .._contract import DataContractError, MetricSpec, Problem
from ._common import Part, short_hash, to_score
from ._report import Skips
from ._walk import LogFile

__all__ = ["read_promptfoo"]

_ERROR = 2  # ResultFailureReason.ERROR


def _load(f: LogFile) -> tuple[dict[str, Any], list[Any]]:
    data = f.read()
    try:
        obj = json.loads(data)
        if isinstance(obj, dict) and "results" in obj:
            results = obj.get("results")
            inner = results.get("results") if isinstance(results, dict) else None
            if not isinstance(inner, list):
                raise f.problem("results.results is not a list of test results",
                                "upload the output.json written by `promptfoo eval -o output.json`")
            return obj, inner
    except json.JSONDecodeError:
        pass
    out = []  # -o results.jsonl: one EvaluateResult per line
    for lineno, line in enumerate(data.splitlines(), start=1):
        if line.strip():
            try:
                out.append(json.loads(line))
            except json.JSONDecodeError as exc:
                raise DataContractError([Problem(
                    f.label, rule=f"line {lineno} is not valid JSON ({exc})", rows=(lineno,),
                    fix="upload the complete output promptfoo wrote")]) from None
    return {}, out


def read_promptfoo(logs: list[LogFile], files: list[LogFile],
                   skips: Skips) -> tuple[list[Part], dict[tuple[str, str], MetricSpec]]:
    """One part per (file, system)."""
    del files
    parts = []
    for f in logs:
        obj, results = _load(f)
        bench = str((obj.get("config") or {}).get("description") or obj.get("evalId")
                    or f.name.rsplit(".", 1)[0])
        prompts = (obj.get("results") or {}).get("prompts") or []
        labels = [p.get("label") or p.get("raw") for p in prompts if isinstance(p, dict)]
        several_prompts = len(set(labels)) > 1
        by_system: dict[str, list[tuple[str, str, float, int]]] = {}
        seen: dict[tuple[str, str], int] = {}
        for pos, r in enumerate(results, start=1):
            provider = r.get("provider") if isinstance(r, dict) else None
            if not isinstance(provider, dict) or not (provider.get("label") or provider.get("id")):
                raise DataContractError([Problem(
                    f.label, rule=f"result {pos} has no provider id or label", rows=(pos,),
                    fix="upload the output promptfoo wrote (every result names its provider)")])
            system = str(provider.get("label") or provider.get("id"))
            idx = r.get("promptIdx")
            if several_prompts and isinstance(idx, int) and idx < len(labels):
                system = f"{system} [{labels[idx]}]"
            test = r.get("testCase") or {}
            example = str(test.get("description") or short_hash(json.dumps(
                r.get("vars") or test.get("vars") or {}, sort_keys=True)))
            if r.get("failureReason") == _ERROR:
                skips.add("errored sample", bench, "")
                continue
            run = seen.get((system, example), 0)
            seen[(system, example)] = run + 1
            pairs = [("pass", r.get("success")), ("score", r.get("score")),
                     *((r.get("namedScores") or {}).items())]
            rows = by_system.setdefault(system, [])
            for metric, raw in pairs:
                value, reason = to_score(raw)
                if reason is None:
                    rows.append((example, str(metric), value, run))  # type: ignore[arg-type]
                else:
                    skips.add(reason, bench, str(metric))
        version = (obj.get("metadata") or {}).get("promptfooVersion")
        for system, rows in by_system.items():
            frame = pd.DataFrame(rows, columns=["example_id", "metric", "value", "run"])
            parts.append(Part(f.label, bench, system,
                              frame.astype({"value": "float64", "run": "int64"}),
                              invocation=str(obj.get("evalId") or ""),
                              meta={"harness_version": f"promptfoo {version}" if version else "promptfoo"}))
    return parts, {}
