"""HELM ``benchmark_output/runs/<suite>/<run_spec>/per_instance_stats.json`` + ``run_spec.json``.

From ``helm/benchmark/runner.py``, ``metrics/metric.py`` (``PerInstanceStats``) and
``metrics/statistic.py`` (``Stat``) (docs/formats.md, "HELM"). Mapping: system =
``run_spec.adapter_spec.model``; benchmark = the run-spec name without its ``model=`` and
``model_deployment=`` arguments wherever they stand (right after the colon in
``gsm:model=…``; run expanders may also put arguments before it, ``name,stop=hash:model=…``,
which move behind it); a perturbed variant is its own benchmark
(``…,perturbation=<name>``, with a ``perturbation`` metadata column); example_id =
``instance_id``; run = ``train_trial_index``; metric = ``stat.name.name`` (``[split]`` added
when the split is not ``test``); value = ``sum / count``. Stats with count 0 are skipped and
counted; efficiency and bookkeeping stats (``num_*``, ``finish_reason_*``, ``logprob``,
``@k`` variants, …) are left out of the scores and counted as such. Texts, when
``helm-summarize`` wrote them beside the stats: ``prompt`` = the instance's input
(``instances.json``), ``reference`` = its correct references, ``output`` = the predicted
text as HELM wrote it, leading space included (``display_predictions.json``),
``content_hash`` of input and references. A perturbed instance keeps the id of the one it
perturbed, with a ``perturbation`` object, in both files: its texts are looked up by
(instance id, perturbation name), as its scores are.

With ``usage`` (:mod:`engine.harness._usage`), each instance and trial's efficiency stats
are imported too, as lower-is-better metrics (``metrics/efficiency_metrics.py``):
``tokens_in`` = ``num_prompt_tokens``, ``tokens_out`` = ``num_completion_tokens`` (the
tokens of every completion, what a provider bills; ``num_output_tokens`` counts the first
only), ``latency_s`` = ``inference_runtime`` (seconds). Each is the stat's ``sum``: an
instance answered by several requests (one per choice) used all of them.
"""

from __future__ import annotations

import json
import posixpath
import re
from typing import Any

import pandas as pd

from .._contract import DataContractError, MetricSpec, Problem
from ._common import Part, to_score
from ._report import Skips
from ._texts import content_hash
from ._walk import LogFile

__all__ = ["USAGE_SPECS", "USAGE_STATS", "is_score_stat", "read_helm"]

#: HELM efficiency stat -> usage metric (its sum over the instance's requests)
USAGE_STATS = {"num_prompt_tokens": "tokens_in", "num_completion_tokens": "tokens_out",
               "inference_runtime": "latency_s"}
#: usage metrics and their direction: fewer tokens, less time is better
USAGE_SPECS = {name: MetricSpec(higher_is_better=False, binary=False)
               for name in USAGE_STATS.values()}

#: Accuracy-type stat names imported by default (basic_metrics, reference metrics, annotators).
_SCORE = re.compile(r"^(.*exact_match.*|f1_score|.*_f1|rouge_.+|bleu_\d|math_equiv.*|.*accuracy.*|"
                    r".*_score|.*correctness.*|pass|ifeval_.*|chain_of_thought_correct.*)$")
_NOT_SCORE = re.compile(r"^(num_.*|finish_reason_.*|training_.*|inference_.*|batch_size|"
                        r"prompt_truncated|logprob|max_prob|.*@\d+)$")


def is_score_stat(name: str, declared: frozenset[str] = frozenset()) -> bool:
    """Whether a HELM stat is a per-instance score (not efficiency/bookkeeping).

    >>> is_score_stat("exact_match"), is_score_stat("exact_match@5"), is_score_stat("num_bytes")
    (True, False, False)
    """
    if _NOT_SCORE.match(name):
        return False
    return name in declared or bool(_SCORE.match(name))


def _json(f: LogFile) -> Any:
    try:
        return json.loads(f.read())
    except (json.JSONDecodeError, UnicodeDecodeError) as exc:
        raise f.problem(f"not valid JSON ({exc})", "upload the file as HELM wrote it") from None


_MODEL_ARG = re.compile(r"^(model|model_deployment)=")


def _benchmark(name: str) -> str:
    """The run-spec name without ``model=``/``model_deployment=``, arguments after the colon.

    >>> _benchmark("gsm:model=openai_gpt-4o"), _benchmark("mmlu:subject=anatomy,model=a_b")
    ('gsm', 'mmlu:subject=anatomy')
    >>> _benchmark("simple_classification,stop=hash:model=org_m,model_deployment=org_m")
    'simple_classification:stop=hash'
    """
    head, colon, tail = name.partition(":")
    scenario, *before = head.split(",")
    args = [a for a in [*(tail.split(",") if colon else []), *before]
            if a and not _MODEL_ARG.match(a)]
    return f"{scenario}:{','.join(args)}" if args else scenario


def _declared(run_spec: dict[str, Any]) -> frozenset[str]:
    names = set()
    for m in run_spec.get("metric_specs") or []:
        for n in ((m or {}).get("args") or {}).get("names") or []:
            names.add(str(n))
    return frozenset(names)


def _perturbation(entry: dict[str, Any]) -> str | None:
    p = entry.get("perturbation")
    return str(p.get("name")) if isinstance(p, dict) and p.get("name") else None


#: (instance id, perturbation name or None): HELM writes a perturbed instance under the id of
#: the instance it perturbed, with a ``perturbation`` object (``data_augmenter.py``).
_TextKey = tuple[str, str | None]


def _texts(by_dir: dict[str, dict[str, LogFile]], parent: str) -> tuple[
        dict[_TextKey, tuple[str | None, str | None]], dict[tuple[str, str | None, int], str]]:
    """((id, perturbation) → (input, correct references)), ((id, perturbation, trial) →
    predicted text, as HELM wrote it: a completion's leading space is part of it)."""
    inputs: dict[_TextKey, tuple[str | None, str | None]] = {}
    found = by_dir.get(parent, {})
    if "instances.json" in found:
        listed = _json(found["instances.json"])
        for inst in listed if isinstance(listed, list) else []:
            if not isinstance(inst, dict) or "id" not in inst:
                continue
            refs = [r.get("output", {}).get("text") for r in inst.get("references") or []
                    if isinstance(r, dict) and "correct" in (r.get("tags") or [])]
            inputs.setdefault((str(inst["id"]), _perturbation(inst)),
                              ((inst.get("input") or {}).get("text"),
                               "\n".join(str(r) for r in refs) or None))
    outputs: dict[tuple[str, str | None, int], str] = {}
    if "display_predictions.json" in found:
        listed = _json(found["display_predictions.json"])
        for pred in listed if isinstance(listed, list) else []:
            if isinstance(pred, dict) and "instance_id" in pred:
                text = str(pred.get("predicted_text") or "")
                mapped = pred.get("mapped_output")
                outputs[(str(pred["instance_id"]), _perturbation(pred),
                         int(pred.get("train_trial_index") or 0))] = \
                    f"{text} → {mapped}" if mapped and mapped != text.strip() else text
    return inputs, outputs


def _with_texts(frame: pd.DataFrame, variant: str | None,
                inputs: dict[_TextKey, tuple[str | None, str | None]],
                outputs: dict[tuple[str, str | None, int], str]) -> pd.DataFrame:
    if inputs:
        pairs = [inputs.get((i, variant), (None, None)) for i in frame["example_id"]]
        frame["prompt"] = pd.Series([p[0] for p in pairs], index=frame.index, dtype=object)
        frame["reference"] = pd.Series([p[1] for p in pairs], index=frame.index, dtype=object)
        frame["content_hash"] = pd.Series([content_hash(*p) for p in pairs], index=frame.index,
                                          dtype=object)
    if outputs:
        frame["output"] = pd.Series([outputs.get((i, variant, int(r))) for i, r in
                                     zip(frame["example_id"], frame["run"], strict=True)],
                                    index=frame.index, dtype=object)
    return frame


def read_helm(logs: list[LogFile], files: list[LogFile], skips: Skips, *,
              usage: bool = False) -> tuple[list[Part], dict[tuple[str, str], MetricSpec]]:
    """One part per run directory and perturbation variant; with ``usage``, each
    instance's tokens and inference runtime too (:data:`USAGE_STATS`)."""
    specs: dict[tuple[str, str], MetricSpec] = {}
    specs_by_dir = {f.parent: f for f in files if f.name == "run_spec.json"}
    by_dir: dict[str, dict[str, LogFile]] = {}
    for f in files:
        if f.name in ("instances.json", "display_predictions.json"):
            by_dir.setdefault(f.parent, {})[f.name] = f
    parts: list[Part] = []
    for f in logs:
        spec_file = specs_by_dir.get(f.parent)
        if spec_file is None:
            raise f.problem("run_spec.json is missing beside per_instance_stats.json, so the "
                            "model and the run are unknown", "upload the whole run directory "
                            "(benchmark_output/runs/<suite>/<run>/), or zip it")
        run_spec = _json(spec_file)
        adapter = (run_spec.get("adapter_spec") or {}) if isinstance(run_spec, dict) else {}
        if not adapter.get("model") or not run_spec.get("name"):
            raise spec_file.problem("run_spec.json has no name or adapter_spec.model",
                                    "upload the run_spec.json HELM wrote for this run")
        entries = _json(f)
        if not isinstance(entries, list):
            raise f.problem("per_instance_stats.json is not a list of instances",
                            "upload the per_instance_stats.json HELM wrote")
        base = _benchmark(str(run_spec["name"]))
        declared = _declared(run_spec)
        rows: dict[str | None, dict[tuple[str, int, str], float]] = {}
        for pos, entry in enumerate(entries, start=1):
            if not isinstance(entry, dict) or "instance_id" not in entry or "stats" not in entry:
                raise DataContractError([Problem(
                    f.label, rule=f"entry {pos} has no instance_id or stats", rows=(pos,),
                    fix="upload the per_instance_stats.json HELM wrote (a list of PerInstanceStats)")])
            variant = _perturbation(entry)
            bench = base if variant is None else f"{base},perturbation={variant}"
            bucket = rows.setdefault(variant, {})
            for stat in entry["stats"]:
                name_obj = stat.get("name") or {}
                name = str(name_obj.get("name"))
                split = name_obj.get("split")
                metric = name if split in (None, "test") else f"{name}[{split}]"
                if usage and name in USAGE_STATS and split in (None, "test"):
                    total, reason = to_score(stat.get("sum"))
                    if (stat.get("count") or 0) and reason is None and total is not None:
                        used = USAGE_STATS[name]
                        bucket[(str(entry["instance_id"]),
                                int(entry.get("train_trial_index") or 0), used)] = total
                        specs[(bench, used)] = USAGE_SPECS[used]
                        continue
                if not is_score_stat(name, declared):
                    skips.add("not a score", bench, "")
                    continue
                count = stat.get("count") or 0
                if not count:
                    skips.add("empty stat", bench, metric)
                    continue
                value, reason = to_score(stat.get("sum"))
                if reason is not None:
                    skips.add(reason, bench, metric)
                    continue
                # several metric classes may emit the same key: merge (run_display.py does too)
                bucket[(str(entry["instance_id"]), int(entry.get("train_trial_index") or 0),
                        metric)] = value / count  # type: ignore[operator]
        suite = posixpath.basename(posixpath.dirname(f.parent)) if f.parent else ""
        settings = {k: adapter.get(k) for k in ("method", "max_train_instances", "num_outputs",
                                                 "temperature", "max_tokens", "instructions")
                    if adapter.get(k) is not None}
        inputs, outputs = _texts(by_dir, f.parent)
        for variant, bucket in rows.items():
            # the scores first, the usage after them (a reader's first metric leads)
            ordered = sorted(bucket.items(), key=lambda kv: kv[0][2] in USAGE_SPECS)
            frame = pd.DataFrame([(i, m, v, r) for (i, r, m), v in ordered],
                                 columns=["example_id", "metric", "value", "run"])
            frame = _with_texts(frame, variant, inputs, outputs)
            meta: dict[str, Any] = {"harness_version": f"helm suite {suite}" if suite else "helm"}
            if variant is not None:
                meta["perturbation"] = variant
            bench = base if variant is None else f"{base},perturbation={variant}"
            # HELM draws train trial i's in-context examples with seed i: the seed of each
            # run is its trial index, so two suites agree on it (a second suite is a retry)
            parts.append(Part(f.label, bench, str(adapter["model"]),
                              frame.astype({"value": "float64", "run": "int64"}),
                              invocation=suite, settings=settings, meta=meta,
                              seed="train_trial_index"))
    return parts, specs
