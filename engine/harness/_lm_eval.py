"""EleutherAI lm-evaluation-harness ``--log_samples`` output.

Layouts (docs/formats.md, "lm-evaluation-harness"; from ``lm_eval/evaluator.py`` and
``loggers/evaluation_tracker.py``):

* v0.4.7+: ``<model_sanitized>/samples_<task>_<date_id>.jsonl``, one line per
  (filter, doc) with ``filter``, ``metrics`` and one top-level key per metric, beside
  ``results_<date_id>.json`` (``model_name``, ``configs``, ``higher_is_better``, …);
* v0.4.3–0.4.6: the same files, lines without ``filter``/``metrics``: the k-th
  occurrence of a ``doc_id`` belongs to the k-th filter of ``configs[task].filter_list``;
* v0.4.0–0.4.2: ``<model_args>_<task>.jsonl`` holding a pretty-printed JSON *array*,
  beside ``results.json``.

Mapping: benchmark = task; system = ``model_name`` (else ``model_args``' ``pretrained=``…,
else the directory name with ``__`` read as ``/``); example_id = ``doc_id``; metric = ``m``
for filter ``none``, else ``m,filter``; separate invocations (date_ids) are runs; repeats
collapsed by filters (``maj@k``) are metrics. Lists (corpus-level inputs such as f1's
``[gold, pred]``), strings, null and NaN are skipped and counted.

Log-likelihoods (``lm_eval/api/task.py``, ``ConfigurableTask.process_results``): per sample
lm-eval writes the *log-likelihood* of the target, not a perplexity: ``perplexity: ll`` for
``output_type: loglikelihood`` tasks (aggregated as exp(−mean ll)) and
``word_perplexity``/``byte_perplexity``/``bits_per_byte: [ll, n]`` for
``loglikelihood_rolling`` ones (aggregated as exp(−Σll/Σn), bits_per_byte −Σll/(Σn·ln 2)).
Both are imported as the metric ``loglikelihood`` (nats, **higher is better**), kept as
lm-eval wrote it, never converted per example: the aggregates are monotone decreasing in
Σll for fixed docs, so on shared examples the system lm-eval reports at the lower
perplexity has the higher mean log-likelihood and ranks first. The results json's
``higher_is_better: false`` belongs to the aggregate and is not applied to it.

Multiple choice texts: the output is the choice lm-eval's own rule picks, argmax of the
conditional log-likelihoods (``acc``), or of conditional − unconditional when the task
scores ``acc_mutual_info`` (its extra ``("", choice)`` requests are never choices).

System names: the same model under other settings is one system per setting, named by
what differs (:mod:`engine.harness._lm_eval_names`).
"""

from __future__ import annotations

import json
import re
from collections.abc import Iterator
from typing import Any

import numpy as np
import pandas as pd

from .._contract import DataContractError, MetricSpec, Problem
from ._common import Part, to_score
from ._lm_eval_names import name_variants
from ._report import Skips
from ._walk import LogFile

__all__ = ["read_lm_eval"]

#: Keys of a samples line that are not metrics (lm_eval/evaluator.py's example dict).
FIXED_KEYS = frozenset({"doc_id", "doc", "target", "arguments", "resps", "filtered_resps",
                        "filter", "metrics", "doc_hash", "prompt_hash", "target_hash"})
_MODEL_ARG_KEYS = ("pretrained", "model", "path", "engine", "peft")  # lm-eval's own order
_SAMPLES = re.compile(r"^samples_(?P<task>.+)_(?P<date>[^_]+?)\.jsonl?(\.gz)?$")
_RESULTS = re.compile(r"^results(_(?P<date>[^_]+?))?\.json(\.gz)?$")
#: ``--output_path x.json`` writes ``x_<date_id>.json`` beside the samples files
_NAMED = re.compile(r"^(?!samples_).+_(?P<date>\d{4}-\d\d-\d\dT[\d.-]+)\.json(\.gz)?$")
#: lm-eval's ``random_name_id()``: the model name when model_args name no model
_RANDOM_NAME = re.compile(r"^[a-z0-9]{8}$")
_CORPUS_NOTE = "corpus-level inputs, not scores"
#: the per-example log-likelihood's metric name (from perplexity and the rolling metrics)
LOGLIK = "loglikelihood"
#: loglikelihood_rolling's per-sample ``[loglikelihood, words or bytes]`` metrics
_ROLLING = ("word_perplexity", "byte_perplexity", "bits_per_byte")


def is_samples_name(name: str) -> bool:
    return bool(_SAMPLES.match(name))


def _json(f: LogFile) -> Any:
    try:
        return json.loads(f.read())
    except (json.JSONDecodeError, UnicodeDecodeError) as exc:
        raise f.problem(f"not valid JSON ({exc})", "upload the file as the harness wrote it") from None


def _records(f: LogFile) -> Iterator[tuple[int, dict[str, Any]]]:
    data = f.read()
    if data.lstrip()[:1] == b"[":  # v0.4.0–0.4.2: one JSON array
        array = _json(f)
        if not isinstance(array, list):
            raise f.problem("not a JSON array of samples", "upload the samples file lm-eval wrote")
        yield from enumerate(array, start=1)
        return
    for lineno, line in enumerate(data.splitlines(), start=1):
        if not line.strip():
            continue
        try:
            yield lineno, json.loads(line)
        except (json.JSONDecodeError, UnicodeDecodeError) as exc:
            raise DataContractError([Problem(
                f.label, rule=f"line {lineno} is not valid JSON ({exc}); the file may be truncated",
                rows=(lineno,), fix="upload the complete samples file, or delete the broken line")]) from None


def _model_arg_name(results: dict[str, Any]) -> str | None:
    args = (results.get("config") or {}).get("model_args")
    if isinstance(args, dict):  # lm-eval 0.4.13 writes a dict
        pairs = {str(k): str(v) for k, v in args.items()}
    elif isinstance(args, str):
        pairs = dict(kv.split("=", 1) for kv in args.split(",") if "=" in kv)
    else:
        return None
    return next((pairs[k].strip() for k in _MODEL_ARG_KEYS if pairs.get(k, "").strip()), None)


def _system_from(results: dict[str, Any]) -> str | None:
    """The model: ``model_name``, unless lm-eval made it up (a random 8-character id, which
    it writes when model_args have no name-like key: then None, and the user names it);
    else ``model_args``' name-like key."""
    named = _model_arg_name(results)
    name = results.get("model_name")
    if isinstance(name, str) and name.strip() and (named or not _RANDOM_NAME.match(name.strip())):
        return name.strip()
    return named


class _Companions:
    """``results*.json`` (or ``--output_path``'s ``<name>_<date_id>.json``) files indexed by
    (directory, date_id), parsed on first use."""

    def __init__(self, files: list[LogFile]) -> None:
        self._files: dict[tuple[str, str], LogFile] = {}
        for f in files:
            m = _RESULTS.match(f.name) or _NAMED.match(f.name)
            if m:
                self._files.setdefault((f.parent, m.group("date") or ""), f)
        self._parsed: dict[tuple[str, str], dict[str, Any]] = {}

    def get(self, parent: str, date: str, task: str) -> tuple[LogFile, dict[str, Any]] | None:
        keys = [(parent, date)] if date else [k for k in self._files if k[0] == parent]
        for key in keys:
            f = self._files.get(key)
            if f is None:
                continue
            if key not in self._parsed:
                obj = _json(f)
                if not isinstance(obj, dict):
                    raise f.problem("not an lm-eval results file (a JSON object is expected)",
                                    "upload the results_<date_id>.json lm-eval wrote")
                self._parsed[key] = obj
            res = self._parsed[key]
            if date or not task or task in (res.get("configs") or {}):
                return f, res
        return None


def _task_of(f: LogFile, companions: _Companions) -> tuple[str, str]:
    m = _SAMPLES.match(f.name)
    if m:
        return m.group("task"), m.group("date")
    stem = re.sub(r"\.jsonl?(\.gz)?$", "", f.name)
    found = companions.get(f.parent, "", "")
    if found is not None:  # v0.4.0–0.4.2: '<model_args>_<task>', task from configs
        tasks = sorted((t for t in found[1].get("configs") or {} if stem.endswith("_" + t)),
                       key=len, reverse=True)
        if tasks:
            return tasks[0], ""
    if "_" not in stem:
        raise f.problem("cannot tell the task from the file name (expected samples_<task>_<date>.jsonl)",
                        "keep lm-eval's file names, or upload the directory with its results json")
    return stem[stem.rfind("_") + 1:], ""


def _filters(results: dict[str, Any] | None, task: str) -> list[str]:
    config = ((results or {}).get("configs") or {}).get(task) or {}
    names = [str(x.get("name")) for x in config.get("filter_list") or [] if isinstance(x, dict)]
    return names or ["none"]


def _primary(results: dict[str, Any] | None, task: str) -> str | None:
    """lm-eval's primary metric of ``task``: the first ``metric_list`` entry of the task's
    config under its first filter (``exact_match,strict-match``), as sigboard names it."""
    config = ((results or {}).get("configs") or {}).get(task) or {}
    first = (config.get("metric_list") or [None])[0]
    name = first.get("metric") if isinstance(first, dict) else None
    if not isinstance(name, str) or not name:
        return None
    filt = _filters(results, task)[0]
    return name if filt == "none" else f"{name},{filt}"


#: lm-eval's seeds (``--seed``: Python, NumPy, torch, few-shot sampling), in its results json
_SEEDS = ("random_seed", "numpy_seed", "torch_seed", "fewshot_seed")


def _seed(results: dict[str, Any] | None) -> Any:
    """The invocation's seeds as lm-eval records them (and a ``seed`` in ``--gen_kwargs``),
    or None when the results file records none (then no invocation is a retry)."""
    config = (results or {}).get("config") or {}
    gen = config.get("gen_kwargs")
    seeds = {k: config[k] for k in _SEEDS if config.get(k) is not None}
    if isinstance(gen, dict) and gen.get("seed") is not None:
        seeds["gen_kwargs.seed"] = gen["seed"]
    return ",".join(f"{v}" for v in seeds.values()) if seeds else None


def _settings(results: dict[str, Any] | None, task: str) -> tuple[dict[str, Any], dict[str, Any]]:
    if not results:
        return {}, {}
    config = results.get("config") or {}
    gen_kwargs = config.get("gen_kwargs")
    if isinstance(gen_kwargs, dict):  # the seed tells runs apart, not systems (_seed)
        gen_kwargs = {k: v for k, v in gen_kwargs.items() if k != "seed"}
    task_config = (results.get("configs") or {}).get(task) or {}
    settings = {  # one invocation's: the same on every task it ran (gen_kwargs given on the
        # command line, not the task's own generation_kwargs, which every model shares)
        "model_args": config.get("model_args"),
        "num_fewshot": (results.get("n-shot") or {}).get(task, task_config.get("num_fewshot")),
        "chat_template_sha": results.get("chat_template_sha"),
        "system_instruction_sha": results.get("system_instruction_sha"),
        "fewshot_as_multiturn": results.get("fewshot_as_multiturn"),
        "gen_kwargs": gen_kwargs or None,
    }
    version = results.get("lm_eval_version")
    meta = {
        "harness_version": f"lm-eval {version or 'unknown'}",
        "task_version": (results.get("versions") or {}).get(task),
        "limit": config.get("limit"),
        "model_sha": config.get("model_sha"),
    }
    return ({k: v for k, v in settings.items() if v is not None},
            {k: v for k, v in meta.items() if v is not None})


_METRIC_LISTS = re.compile(rb'"metrics": \[([^\]]*)\]')


def _fast_rows(data: bytes, task: str, skips: Skips) -> pd.DataFrame | None:
    """v0.4.7+ lines through pyarrow's JSON reader (C++, only the needed keys), or None.

    Only the keys sigboard needs are parsed (``doc_id``, ``filter``, ``metrics``,
    ``doc_hash`` and the metric keys, found by scanning the ``"metrics": [...]`` lists).
    Any surprise (bools, lists, NaN, a broken line, no ``filter`` key) returns None and
    the exact line-by-line reader below takes over, with its precise messages.
    """
    import pyarrow as pa
    import pyarrow.compute as pc
    import pyarrow.json as pajson

    if data.lstrip()[:1] != b"{":
        return None
    names: set[str] = set()
    for listed in set(_METRIC_LISTS.findall(data)):  # group texts, no match objects
        try:
            names.update(json.loads(b"[" + listed + b"]"))
        except (json.JSONDecodeError, TypeError):
            return None
    if not names or names & FIXED_KEYS or not all(isinstance(n, str) for n in names):
        return None
    schema = pa.schema([("doc_id", pa.int64()), ("filter", pa.string()), ("doc_hash", pa.string()),
                        ("metrics", pa.list_(pa.string())),
                        *((n, pa.float64()) for n in sorted(names))])
    try:
        table = pajson.read_json(pa.py_buffer(data), parse_options=pajson.ParseOptions(
            explicit_schema=schema, unexpected_field_behavior="ignore"))
    except (pa.ArrowException, ValueError):
        return None
    if table.num_rows == 0 or table.column("filter").null_count or table.column("doc_id").null_count:
        return None
    # texts stay in Arrow and are dictionary-encoded there: Python strings are made once
    # per distinct value (filters, metric names, doc ids), then gathered by integer codes
    metrics = table.column("metrics").combine_chunks()
    listed_names = pc.dictionary_encode(pc.list_flatten(metrics))
    name_codes = listed_names.indices.to_numpy(zero_copy_only=False)
    name_index = {str(n): i for i, n in enumerate(listed_names.dictionary.to_pylist())}
    parents = pc.list_parent_indices(metrics).to_numpy()
    doc_codes, doc_uniques = pd.factorize(table.column("doc_id").to_numpy())
    doc_text = np.array([str(d) for d in doc_uniques], dtype=object)
    filters = pc.dictionary_encode(table.column("filter").combine_chunks())
    filt_codes = filters.indices.to_numpy(zero_copy_only=False).astype(np.intp)
    filt_uniques = [str(f) for f in filters.dictionary.to_pylist()]
    hashes = table.column("doc_hash").to_numpy(zero_copy_only=False)
    # one frame for every metric (sorted by name, each in line order), built at the end
    takes, metric_labels, values_kept = [], [], []
    for name in sorted(names):
        labels = np.array([name if f == "none" else f"{name},{f}" for f in filt_uniques], dtype=object)
        listed = np.zeros(table.num_rows, dtype=bool)
        listed[parents[name_codes == name_index.get(name, -1)]] = True
        values = table.column(name).to_numpy(zero_copy_only=False).astype(np.float64)
        isnull = np.isnan(values)  # JSON null: a NaN token would have failed the parse
        if (listed & isnull).any():
            counts = np.bincount(filt_codes[listed & isnull], minlength=len(labels))
            for label, n in zip(labels, counts, strict=True):
                skips.add("null", task, str(label), int(n))
        take = np.flatnonzero(listed & ~isnull)
        takes.append(take)
        metric_labels.append(labels[filt_codes[take]])
        values_kept.append(values[take])
    take = np.concatenate(takes)
    kept_hashes = hashes[take]
    texts = [doc_text[doc_codes[take]], np.concatenate(metric_labels)]
    names_out = ["example_id", "metric"]
    if not pd.isna(kept_hashes).all():
        texts.append(kept_hashes)
        names_out.append("doc_hash")
    block = np.empty((len(take), len(texts)), dtype=object)  # one object block, no inference
    for j, column in enumerate(texts):
        block[:, j] = column
    rows = pd.DataFrame(block, columns=names_out, dtype=object)
    rows.insert(2, "value", np.concatenate(values_kept))
    return rows


def _read_samples(f: LogFile, task: str, results: dict[str, Any] | None,
                  skips: Skips) -> pd.DataFrame:
    fast = _fast_rows(f.read(), task, skips)
    if fast is not None:
        return fast
    filter_names = _filters(results, task)
    seen: dict[Any, int] = {}
    ids: list[str] = []
    metrics: list[str] = []
    values: list[float] = []
    hashes: dict[str, str] = {}
    for lineno, rec in _records(f):
        if not isinstance(rec, dict) or "doc_id" not in rec:
            raise DataContractError([Problem(
                f.label, rule=f"line {lineno} has no doc_id: not an lm-eval samples line",
                rows=(lineno,), fix="upload the samples_<task>_<date>.jsonl files lm-eval wrote "
                "with --log_samples (or choose the right --format)")])
        doc_id = str(rec["doc_id"])
        if "filter" in rec:
            filt = str(rec["filter"])
        else:  # v0.4.3–0.4.6: the k-th occurrence of a doc is the k-th filter
            k = seen.get(doc_id, 0)
            seen[doc_id] = k + 1
            if k >= len(filter_names):
                fix = ("upload the results_<date_id>.json written with it (its filter_list names the "
                       "filters)" if results is None else "upload the results file of the same run")
                raise DataContractError([Problem(
                    f.label, rule=f"doc_id {doc_id} appears {k + 1} times but the task has "
                    f"{len(filter_names)} filter(s) and the lines have no 'filter' key",
                    rows=(lineno,), fix=fix)])
            filt = filter_names[k]
        names = rec.get("metrics")
        if not isinstance(names, list):
            names = [key for key in rec if key not in FIXED_KEYS]
        if "doc_hash" in rec:
            hashes[doc_id] = str(rec["doc_hash"])
        rolled = False
        for m in names:
            metric = m if filt == "none" else f"{m},{filt}"
            ll = _rolling_loglik(m, rec.get(m)) if LOGLIK not in names else None
            if ll is not None:  # one log-likelihood per line, whichever metric carries it
                if not rolled:
                    ids.append(doc_id)
                    metrics.append(LOGLIK if filt == "none" else f"{LOGLIK},{filt}")
                    values.append(ll)
                rolled = True
                continue
            value, reason = to_score(rec.get(m))
            if reason is None:
                ids.append(doc_id)
                metrics.append(metric)
                values.append(value)  # type: ignore[arg-type]
            else:
                skips.add(reason, task, metric, note=_CORPUS_NOTE if reason == "list" else None)
    rows = pd.DataFrame({"example_id": ids, "metric": metrics,
                         "value": np.asarray(values, dtype=np.float64)})
    if hashes:
        rows["doc_hash"] = rows["example_id"].map(hashes)
    return rows


def _rolling_loglik(metric: str, value: Any) -> float | None:
    """The log-likelihood of a ``loglikelihood_rolling`` sample's ``[ll, n]``, else None."""
    if metric not in _ROLLING or not isinstance(value, list | tuple) or len(value) != 2:
        return None
    ll, n = to_score(value[0])[0], to_score(value[1])[0]
    return ll if ll is not None and n is not None and ll <= 0 else None


def _as_loglik(rows: pd.DataFrame, task: str, results: dict[str, Any] | None,
               skips: Skips) -> tuple[pd.DataFrame, set[str]]:
    """``perplexity`` values that are log-likelihoods renamed ``loglikelihood`` (see the
    module docstring), and the metric names that are log-likelihoods.

    They are when the task is a built-in ``output_type: loglikelihood`` (no custom
    ``process_results``), or, without its results json, when every value is ≤ 0 (a
    perplexity is ≥ 1, a log-probability ≤ 0).
    """
    metric = rows["metric"].astype(str)
    base = metric.str.split(",", n=1).str[0]
    config = ((results or {}).get("configs") or {}).get(task) or {}
    out = set(metric[base == LOGLIK].unique())
    perp = (base == "perplexity").to_numpy()
    if perp.any():
        builtin = config.get("output_type") == "loglikelihood" and not config.get("process_results")
        if (builtin or not config) and (rows.loc[perp, "value"] <= 0).all() \
                and not (base == LOGLIK).any():
            renamed = LOGLIK + metric[perp].str[len("perplexity"):]
            rows = rows.copy()
            rows.loc[perp, "metric"] = renamed.to_numpy(dtype=object)
            out |= set(renamed.unique())
            said = (f"{task}: lm-eval's per-example perplexity values are log-likelihoods (its "
                    "perplexity is exp(-mean) of them): imported as metric loglikelihood, "
                    "higher is better, so the system with the lower perplexity ranks first")
            if said not in skips.decisions:
                skips.decisions.append(said)
    if out and not perp.any() and config.get("output_type") == "loglikelihood_rolling":
        said = (f"{task}: lm-eval's per-example [loglikelihood, count] of word_perplexity, "
                "byte_perplexity and bits_per_byte imported as metric loglikelihood, higher is "
                "better (the perplexities fall as the summed log-likelihood rises on the same "
                "docs, so the system with the lower perplexity ranks first)")
        if said not in skips.decisions:
            skips.decisions.append(said)
    return rows, out


def _number(text: Any) -> float:
    try:
        return float(text)
    except (TypeError, ValueError):
        return float("-inf")


def _line_texts(rec: dict[str, Any]) -> tuple[str | None, str | None, str | None]:
    """(prompt, reference, output) of one samples line: the first request's context, the
    target (for multiple choice, the choice it indexes) and the raw answer (for multiple
    choice, the choice with the highest log-likelihood)."""
    args = rec.get("arguments")
    if isinstance(args, dict):
        reqs = [args[k] for k in sorted(args, key=lambda k: int(re.sub(r"\D", "", k) or 0))]
        reqs = [[r.get(f"arg_{j}") for j in range(len(r))] if isinstance(r, dict) else r for r in reqs]
    else:
        reqs = args if isinstance(args, list) else []
    prompt = reqs[0][0] if reqs and isinstance(reqs[0], list) and reqs[0] else None
    target = rec.get("target")
    reference = None if target is None else str(target)
    resps = rec.get("resps") or []
    choices = [r[1] for r in reqs if isinstance(r, list) and len(r) > 1 and isinstance(r[1], str)]
    output = None
    if len(choices) == len(reqs) > 1:  # multiple choice: one (context, continuation) per choice
        scores = [_number(r[0][0]) if isinstance(r, list) and r and isinstance(r[0], list) and r[0]
                  else float("-inf") for r in resps]
        half = len(reqs) // 2
        if len(reqs) % 2 == 0 and choices[:half] == choices[half:] \
                and all(r[0] == "" for r in reqs[half:]) and any(r[0] != "" for r in reqs[:half]):
            # acc_mutual_info's unconditional ("", choice) requests follow the choices
            # (ConfigurableTask.construct_requests); lm-eval picks argmax of conditional
            # minus unconditional for it, argmax of the conditional ones for acc
            choices = choices[:half]
            if len(scores) == 2 * half:
                mutual = "acc_mutual_info" in (rec.get("metrics") or rec)
                scores = [c - u if mutual else c
                          for c, u in zip(scores[:half], scores[half:], strict=True)]
        if reference is not None and reference.isdigit() and int(reference) < len(choices):
            reference = choices[int(reference)].strip()
        if len(scores) == len(choices):
            output = choices[max(range(len(scores)), key=scores.__getitem__)].strip()
    elif resps and isinstance(resps[0], list) and resps[0] and isinstance(resps[0][0], str):
        output = resps[0][0]
    return (prompt if isinstance(prompt, str) else None), reference, output


def _doc_texts(data: bytes) -> dict[str, tuple[str | None, str | None, str | None]]:
    """Texts per doc_id, from the first filter's lines (each doc is on one line per filter)."""
    out: dict[str, tuple[str | None, str | None, str | None]] = {}
    if data.lstrip()[:1] != b"{":
        return out  # v0.4.0–0.4.2 arrays: scores only
    for line in data.splitlines():
        if not line.strip():
            continue
        try:
            rec = json.loads(line)
        except (json.JSONDecodeError, UnicodeDecodeError):
            break  # the score reader says where
        if not isinstance(rec, dict) or "doc_id" not in rec or str(rec["doc_id"]) in out:
            break
        out[str(rec["doc_id"])] = _line_texts(rec)
    return out


def _with_texts(rows: pd.DataFrame, data: bytes) -> pd.DataFrame:
    texts = _doc_texts(data)
    if not texts or rows.empty:
        return rows
    for j, name in enumerate(("prompt", "reference", "output")):
        column = rows["example_id"].map({k: v[j] for k, v in texts.items()})
        if column.notna().any():
            rows[name] = column.astype(object)
    return rows


def read_lm_eval(logs: list[LogFile], files: list[LogFile],
                 skips: Skips) -> tuple[list[Part], dict[tuple[str, str], MetricSpec]]:
    """Parts and directions from lm-eval samples files (``files``: the whole upload)."""
    companions = _Companions(files)
    parts: list[Part] = []
    specs: dict[tuple[str, str], MetricSpec] = {}
    for f in logs:
        task, date = _task_of(f, companions)
        found = companions.get(f.parent, date, task)
        results = found[1] if found else None
        if found and date and task not in (results or {}).get("configs", {}) \
                and task not in (results or {}).get("results", {}):
            raise DataContractError([Problem(
                found[0].label, rule=f"this results file has no entry for task {task!r} of "
                f"{f.name}: it belongs to another run", fix="upload the results_<date_id>.json "
                "written by the same run as the samples file, or remove the mismatched one")])
        rows, logliks = _as_loglik(_read_samples(f, task, results, skips), task, results, skips)
        rows = _with_texts(rows, f.read())
        settings, meta = _settings(results, task)
        hint = f.parent.rsplit("/", 1)[-1].replace("__", "/") if f.parent else None
        if results and _system_from(results) is None:
            hint = None  # the folder is named after lm-eval's made-up model name
        parts.append(Part(f.label, task, _system_from(results) if results else None, rows,
                          invocation=date, settings=settings, meta=meta, system_hint=hint,
                          seed=_seed(results), primary=_primary(results, task)))
        for m, hib in ((results or {}).get("higher_is_better") or {}).get(task, {}).items():
            if isinstance(hib, bool):
                for metric in rows["metric"].unique():
                    if metric == m or metric.startswith(f"{m},"):
                        specs[(task, metric)] = MetricSpec(higher_is_better=hib)
        for metric in logliks:  # the aggregate's direction is not the log-likelihood's
            specs[(task, metric)] = MetricSpec(higher_is_better=True)
    return name_variants(parts, skips), specs
