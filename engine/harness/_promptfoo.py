"""promptfoo ``promptfoo eval -o output.json`` (or ``results.json``) and ``-o results.jsonl``.

From ``src/util/output.ts`` and ``src/types/index.ts`` (docs/formats.md, "promptfoo"): ``{evalId, results:
{version: 3, results: EvaluateResult[], prompts}, config, metadata}``; JSON Lines hold one
EvaluateResult per line and nothing else. Mapping: system = ``provider.label`` or
``provider.id`` (with the prompt label, ``name [label]``, when the eval has several prompts:
from ``results.prompts``, or in JSON Lines from each result's ``prompt.label`` by
``promptIdx``, so both outputs of one eval name the same systems); benchmark =
``config.description`` or ``evalId`` (the file name for JSON Lines); example_id =
``testCase.description`` or a hash of ``vars`` (``testIdx`` is not an example id: every
repeat gets a new one); metrics ``pass`` (= ``success``), ``score`` and each
``namedScores`` key; ``failureReason == 2`` (an error, not a failed assertion) gives no
rows and is reported; run = the occurrence per (system, example), from 0. A result id read
from one file of an upload is not read again from another (``-o results.json -o
results.jsonl`` writes every result twice).

Texts (:mod:`engine.harness._texts`): output = ``response.output``; reference = the values
of the test's assertions that state an expected answer (``equals``, ``contains``, …);
prompt = the rendered ``prompt.raw`` when the file has one prompt template, else the test's
``vars`` as ``name: value`` lines (with several templates the template is the system's, the
vars are the example's). The content hash is of the vars and the reference, so the systems
of two prompt templates stay paired on each example.
"""

from __future__ import annotations

import json
from typing import Any

import numpy as np
import pandas as pd

from .._contract import DataContractError, MetricSpec, Problem
from ._common import Part, short_hash, to_score
from ._report import Skips
from ._texts import content_hash
from ._walk import LogFile

__all__ = ["USAGE_SPECS", "read_promptfoo", "usage_values"]

_ERROR = 2  # ResultFailureReason.ERROR
#: assertion types whose ``value`` is the expected answer (src/assertions/index.ts)
_EXPECTING = frozenset({"equals", "contains", "icontains", "contains-any", "icontains-any",
                        "contains-all", "icontains-all", "starts-with", "regex", "similar",
                        "levenshtein", "rouge-n", "bleu", "meteor", "gleu", "f-score"})
_COLUMNS = ("example_id", "metric", "value", "run", "prompt", "reference", "output", "content_hash")


#: usage metrics and their direction: fewer tokens, less time, less money is better
USAGE_SPECS = {name: MetricSpec(higher_is_better=False, binary=False)
               for name in ("tokens_in", "tokens_out", "latency_ms", "cost")}


def usage_values(result: dict[str, Any]) -> list[tuple[str, Any]]:
    """A result's usage as metrics (src/types/index.ts, EvaluateResult): ``cost``,
    ``latency_ms`` = ``latencyMs``, ``tokens_in``/``tokens_out`` = the provider's
    ``response.tokenUsage.prompt``/``completion`` (the result's own ``tokenUsage`` when the
    response has none; grading tokens, under ``assertions``, are not the system's). A field
    the result does not record gives no metric, never 0.

    >>> usage_values({"cost": 0.002, "latencyMs": 31, "response": {"tokenUsage": {"prompt": 12}}})
    [('cost', 0.002), ('latency_ms', 31), ('tokens_in', 12)]
    """
    response = result.get("response")
    tokens = response.get("tokenUsage") if isinstance(response, dict) else None
    tokens = tokens if isinstance(tokens, dict) else result.get("tokenUsage")
    tokens = tokens if isinstance(tokens, dict) else {}
    found = (("cost", result.get("cost")), ("latency_ms", result.get("latencyMs")),
             ("tokens_in", tokens.get("prompt")), ("tokens_out", tokens.get("completion")))
    return [(k, v) for k, v in found if v is not None]


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


def _prompt_labels(obj: dict[str, Any], results: list[Any]) -> dict[int, str]:
    """The prompt label per ``promptIdx``: from ``results.prompts`` (JSON), else from the
    results' own ``prompt`` (JSON Lines, which has no list of prompts)."""
    prompts = (obj.get("results") or {}).get("prompts")
    if isinstance(prompts, list) and prompts:
        return {i: str(p.get("label") or p.get("raw")) for i, p in enumerate(prompts)
                if isinstance(p, dict)}
    labels: dict[int, str] = {}
    for r in results:
        prompt = r.get("prompt") if isinstance(r, dict) else None
        idx = r.get("promptIdx") if isinstance(r, dict) else None
        if isinstance(idx, int) and isinstance(prompt, dict):
            label = prompt.get("label") or r.get("promptId")  # the label promptfoo shows
            if label:
                labels.setdefault(idx, str(label))
    return labels


def _vars_text(values: Any) -> str | None:
    if not isinstance(values, dict) or not values:
        return None
    return "\n".join(f"{k}: {v if isinstance(v, str) else json.dumps(v, default=str)}"
                     for k, v in values.items())


def _expected(asserts: Any) -> str | None:
    """The expected answers the test's assertions state, one per line (None: none do)."""
    found: list[str] = []
    for a in asserts if isinstance(asserts, list) else []:
        if not isinstance(a, dict):
            continue
        if a.get("type") == "assert-set":
            inner = _expected(a.get("assert"))
            found.extend(inner.split("\n") if inner else [])
            continue
        if a.get("type") not in _EXPECTING:
            continue
        value = a.get("value")
        values: list[Any] = value if isinstance(value, list) else [value]
        found.extend(str(v) for v in values if isinstance(v, str | int | float) and not isinstance(v, bool))
    return "\n".join(dict.fromkeys(found)) or None


def _output(response: Any) -> str | None:
    out = response.get("output") if isinstance(response, dict) else None
    if out is None or isinstance(out, str):
        return out
    return json.dumps(out, default=str)  # a structured output (JSON, tool calls)


def read_promptfoo(logs: list[LogFile], files: list[LogFile], skips: Skips, *,
                   usage: bool = False) -> tuple[list[Part], dict[tuple[str, str], MetricSpec]]:
    """One part per (file, system); with ``usage``, each result's cost, latency and tokens
    too (:func:`usage_values`)."""
    del files
    specs: dict[tuple[str, str], MetricSpec] = {}
    parts = []
    read_ids: set[str] = set()
    for f in logs:
        obj, results = _load(f)
        bench = str((obj.get("config") or {}).get("description") or obj.get("evalId")
                    or f.name.rsplit(".", 1)[0])
        labels = _prompt_labels(obj, results)
        several_prompts = len(set(labels.values())) > 1
        by_system: dict[str, dict[str, list[Any]]] = {}
        seen: dict[tuple[str, str], int] = {}
        for pos, r in enumerate(results, start=1):
            provider = r.get("provider") if isinstance(r, dict) else None
            if not isinstance(provider, dict) or not (provider.get("label") or provider.get("id")):
                raise DataContractError([Problem(
                    f.label, rule=f"result {pos} has no provider id or label", rows=(pos,),
                    fix="upload the output promptfoo wrote (every result names its provider)")])
            if isinstance(r.get("id"), str):
                if r["id"] in read_ids:  # the same result in another output of this eval
                    continue
                read_ids.add(r["id"])
            system = str(provider.get("label") or provider.get("id"))
            idx = r.get("promptIdx")
            if several_prompts and isinstance(idx, int) and idx in labels:
                system = f"{system} [{labels[idx]}]"
            test = r.get("testCase") or {}
            values = r.get("vars") or test.get("vars") or {}
            example = str(test.get("description") or short_hash(json.dumps(values, sort_keys=True)))
            if r.get("failureReason") == _ERROR:
                skips.add("errored sample", bench, "")
                continue
            run = seen.get((system, example), 0)
            seen[(system, example)] = run + 1
            example_text, reference = _vars_text(values), _expected(test.get("assert"))
            raw = (r.get("prompt") or {}).get("raw") if isinstance(r.get("prompt"), dict) else None
            prompt = example_text if several_prompts or not isinstance(raw, str) else raw
            texts = (prompt, reference, _output(r.get("response")), content_hash(example_text, reference))
            used = usage_values(r) if usage else []
            specs.update({(bench, m): USAGE_SPECS[m] for m, _ in used})
            pairs = [("pass", r.get("success")), ("score", r.get("score")),
                     *((r.get("namedScores") or {}).items()), *used]
            cols = by_system.setdefault(system, {k: [] for k in _COLUMNS})
            for metric, raw_value in pairs:
                value, reason = to_score(raw_value)
                if reason is not None:
                    skips.add(reason, bench, str(metric))
                    continue
                for key, item in zip(_COLUMNS, (example, str(metric), value, run, *texts), strict=True):
                    cols[key].append(item)
        version = (obj.get("metadata") or {}).get("promptfooVersion")
        for system, cols in by_system.items():
            frame = pd.DataFrame({k: pd.Series(v, dtype=object) for k, v in cols.items()})
            empty = [c for c in _COLUMNS[4:] if frame[c].isna().all()]  # texts not in the log
            frame = frame.astype({"value": np.float64, "run": np.int64}).drop(columns=empty)
            parts.append(Part(f.label, bench, system, frame,
                              invocation=str(obj.get("evalId") or ""),
                              meta={"harness_version": f"promptfoo {version}" if version else "promptfoo"}))
    return parts, specs
