"""UK AISI Inspect AI logs: ``.eval`` (a zip) and legacy ``.json``.

From ``inspect_ai/log/_recorders/eval.py`` and ``log/_log.py`` (docs/formats.md, "Inspect AI"): a
``.eval`` holds ``header.json`` (or ``_journal/start.json`` while unfinished),
``samples/<id>_epoch_<n>.json`` and, once finished, ``summaries.json`` (id, epoch, input,
target, scores with values intact, error). Since inspect-ai 0.3.206 its members are
Zstandard-compressed (zip method 93), read by :mod:`engine.io._zip`. A legacy ``.json`` log
is one object with ``eval``, ``results`` and ``samples``.

Mapping: benchmark = ``eval.task``; system = ``eval.model``; example_id = ``sample.id`` (from
the JSON, never the member name); run = ``sample.epoch``; one metric per scorer: numbers and
booleans as they are, ``C``/``P``/``I``/``N`` as 1/0.5/0/0 (Inspect's ``value_to_float``),
yes/no/true/false and numeric strings likewise, a dict as one metric per key
(``scorer/key``), a list as ``scorer/0``, ``scorer/1``…; anything else is skipped and
counted, never 0. Errored or unscored samples give no rows and are reported. Texts:
``prompt`` = the sample's input, ``reference`` = its target, ``output`` = the model's
completion (:mod:`engine.harness._texts`). Several logs of one (task, model) are retries,
re-runs or other systems (:mod:`engine.harness._reruns`); the generation settings are
system settings, one column each (``temperature``, …), the seed is not (another seed is
another run). In an upload of several logs, one that cannot be read is skipped and named in
the report; a single unreadable log is an error.

An example is the dataset's sample: its id and its input and target without the system
messages a task puts around it (``inspect eval -T hint=true`` may add one to every input).
The content hash that keeps different examples apart is taken without them, so task-argument
variants of one dataset pair on the same ids; the variants differ in ``task_args`` (a
setting, so each variant is a system) and the system messages every sample of a log shares
are that system's ``system_prompt``, not the example's prompt. A log that did not finish
(``status`` cancelled, error or started, or a ``.eval`` without ``header.json``: the run was
killed) says so in the report with the sample-epochs that never ran (``eval.dataset.sample_ids``
× ``eval.config.epochs``, as Inspect counts its total), unless a retry ran them.
"""

from __future__ import annotations

import json
import re
from collections.abc import Iterator
from typing import Any

import numpy as np
import pandas as pd

from .._contract import DataContractError, MetricSpec, Problem
from ..io._limits import reading
from ..io._zip import member_bytes
from ._common import Part, metadata_text, to_score
from ._report import Skips
from ._reruns import Log, chains, newest_wins
from ._texts import chat_text, content_hash
from ._walk import LogFile, open_zip, read_zip_members

__all__ = ["USAGE_SPECS", "cluster_field", "read_inspect", "score_value", "usage_values"]

_LETTERS = {"C": 1.0, "P": 0.5, "I": 0.0, "N": 0.0}
_WORDS = {"yes": 1.0, "true": 1.0, "no": 0.0, "false": 0.0}
_NUMBER = re.compile(r"^\s*[-+]?(\d+\.?\d*|\.\d+)([eE][-+]?\d+)?\s*$")


def score_value(value: Any) -> tuple[float | None, str | None]:
    """A scalar Score value as a float (Inspect's ``value_to_float`` minus its silent 0).

    >>> score_value("C"), score_value("P"), score_value("maybe")
    ((1.0, None), (0.5, None), (None, 'string'))
    """
    if isinstance(value, str):
        if value in _LETTERS:
            return _LETTERS[value], None
        if value.strip().lower() in _WORDS:
            return _WORDS[value.strip().lower()], None
        if _NUMBER.match(value):
            return float(value), None
        return None, "string"
    return to_score(value)


#: usage metrics and their direction: fewer tokens, less time, less money is better
USAGE_SPECS = {name: MetricSpec(higher_is_better=False, binary=False)
               for name in ("tokens_in", "tokens_out", "latency_s", "working_s", "cost")}


def usage_values(sample: dict[str, Any]) -> list[tuple[str, float]]:
    """A sample's usage as metrics: ``tokens_in``/``tokens_out`` = the sums of
    ``model_usage[*].input_tokens``/``output_tokens`` over the models it called (cache reads
    and writes are Inspect's own counts beside them, not added), ``cost`` = the sum of
    ``model_usage[*].total_cost`` when every model records one, ``latency_s`` =
    ``total_time`` (wall clock) and ``working_s`` = ``working_time`` (without waits on rate
    limits and retries). A field the log does not record gives no metric, never 0.

    >>> usage_values({"model_usage": {"m": {"input_tokens": 9, "output_tokens": 2}},
    ...               "total_time": 1.5})
    [('tokens_in', 9.0), ('tokens_out', 2.0), ('latency_s', 1.5)]
    """
    usage = sample.get("model_usage")
    models = [u for u in usage.values() if isinstance(u, dict)] if isinstance(usage, dict) else []
    out: list[tuple[str, float]] = []
    for metric, key in (("tokens_in", "input_tokens"), ("tokens_out", "output_tokens"),
                        ("cost", "total_cost")):
        values = [to_score(u.get(key))[0] for u in models]
        if models and all(v is not None for v in values):
            out.append((metric, float(sum(v for v in values if v is not None))))
    for metric, key in (("latency_s", "total_time"), ("working_s", "working_time")):
        value, _ = to_score(sample.get(key))
        if value is not None and not isinstance(sample.get(key), bool):
            out.append((metric, value))
    return out


def _scores(sample: dict[str, Any]) -> Iterator[tuple[str, Any]]:
    for scorer, score in (sample.get("scores") or {}).items():
        value = score.get("value") if isinstance(score, dict) else score
        if isinstance(value, dict):
            for key, leaf in value.items():
                yield f"{scorer}/{key}", leaf
        elif isinstance(value, list):
            for i, leaf in enumerate(value):
                yield f"{scorer}/{i}", leaf
        else:
            yield scorer, value


def _load(data: bytes, label: str, member: str) -> Any:
    reading(label if member == "the log" else f"zip member {member}")
    try:
        return json.loads(data)
    except (json.JSONDecodeError, UnicodeDecodeError) as exc:
        raise DataContractError([Problem(
            label, rule=f"{member} is not valid JSON ({exc})",
            fix="upload the log as Inspect wrote it (re-run `inspect log convert` if it was edited)")
        ]) from None


def _members(f: LogFile) -> dict[str, bytes]:
    """Every member of a ``.eval`` zip, inflated within the size limit (last duplicate wins)."""
    data = f.loader()
    found = read_zip_members(data, None, f.label)
    if found is not None:
        return found
    archive = open_zip(data, f.label)  # zip64, a bad CRC, …: the precise reader and messages
    return {i.filename: member_bytes(data, archive, i, f.label) for i in archive.infolist()
            if not i.is_dir()}


def _eval_log(f: LogFile, *, fast: bool = True) -> tuple[dict[str, Any], list[dict[str, Any]]]:
    """(header, samples) of a ``.eval`` zip: the ``samples/*.json`` members (the only ones
    with the model's output); ``summaries.json`` when there are none and ``fast`` allows."""
    members = _members(f)
    head = next((n for n in ("header.json", "_journal/start.json") if n in members), None)
    if head is None:
        raise f.problem("the .eval archive has neither header.json nor _journal/start.json, so "
                        "its task and model are unknown", "upload the complete log as Inspect wrote it")
    header = _load(members[head], f.label, head)
    samples = [_load(b, f.label, n) for n, b in members.items()
               if n.startswith("samples/") and n.endswith(".json")]
    if not samples and fast and "summaries.json" in members:
        summaries = _load(members["summaries.json"], f.label, "summaries.json")
        if isinstance(summaries, list):
            return header, summaries
    return header, samples


def _json_log(f: LogFile) -> tuple[dict[str, Any], list[dict[str, Any]]]:
    obj = _load(f.read(), f.label, "the log")
    if not isinstance(obj, dict):
        raise f.problem("not an Inspect log (a JSON object with 'eval' is expected)",
                        "upload the .json log Inspect wrote, or choose the right --format")
    return obj, list(obj.get("samples") or [])


def _spec(header: dict[str, Any], f: LogFile) -> dict[str, Any]:
    spec = header.get("eval")
    if not isinstance(spec, dict) or not spec.get("task") or not spec.get("model"):
        missing = "eval" if not isinstance(spec, dict) else ("eval.task" if not spec.get("task")
                                                             else "eval.model")
        raise f.problem(f"the log has no {missing}", "upload an Inspect log (it names its task "
                        "and model in 'eval'), or choose the right --format")
    return spec


def _settings(header: dict[str, Any], spec: dict[str, Any]) -> tuple[dict[str, Any], dict[str, Any], Any]:
    """(settings, other metadata, seed): each generation setting is its own setting."""
    steps = ((header.get("plan") or {}).get("steps")) or []
    solvers = [s.get("solver") for s in steps if isinstance(s, dict)]
    generate = dict(spec.get("model_generate_config") or (header.get("plan") or {}).get("config") or {})
    seed = generate.pop("seed", None)
    settings = {"model_args": spec.get("model_args") or None,
                **{k: v for k, v in sorted(generate.items()) if v is not None},
                "solver": " → ".join(map(str, solvers)) or None,
                "task_args": spec.get("task_args") or None}
    version = (spec.get("packages") or {}).get("inspect_ai")
    meta = {"harness_version": f"inspect_ai {version or 'unknown'}",
            "task_version": spec.get("task_version")}
    return ({k: v for k, v in settings.items() if v is not None},
            {k: v for k, v in meta.items() if v is not None}, seed)


def _texts(sample: dict[str, Any]) -> tuple[str | None, str | None, str | None]:
    output = sample.get("output")
    text = output.get("completion") if isinstance(output, dict) else None
    if not text and isinstance(output, dict) and output.get("choices"):
        text = chat_text([(output["choices"][0] or {}).get("message")])
        text = text.split(": ", 1)[-1] if text else None
    return chat_text(sample.get("input")), chat_text(sample.get("target")), text or None


def _is_system(message: Any) -> bool:
    return isinstance(message, dict) and message.get("role") == "system"


def split_system(value: Any) -> tuple[str | None, tuple[str, ...]]:
    """A sample's input as the dataset's text without its system messages, and their texts.

    A task renders instructions around the dataset's question as system messages (a hint,
    a persona, a format): they belong to the variant of the task, not to the example.

    >>> split_system([{"role": "system", "content": "Hint."}, {"role": "user", "content": "2+3?"}])
    ('user: 2+3?', ('Hint.',))
    >>> split_system("2+3?")
    ('2+3?', ())
    """
    if not isinstance(value, list) or not any(_is_system(m) for m in value):
        return chat_text(value), ()
    system = tuple((chat_text([m]) or "").split(": ", 1)[-1] for m in value if _is_system(m))
    return chat_text([m for m in value if not _is_system(m)]), system


def shared_system(samples: list[dict[str, Any]]) -> tuple[str, ...]:
    """The system messages every sample of a log has in its input (none: ``()``)."""
    found = {split_system(s.get("input"))[1] for s in samples}
    return found.pop() if len(found) == 1 else ()


def cluster_field(header: dict[str, Any]) -> str | None:
    """The sample metadata field a scorer's ``stderr(cluster="FIELD")`` names:
    Inspect writes it as ``results.scores[i].metrics.stderr.params.cluster``."""
    for score in ((header.get("results") or {}).get("scores") or []):
        metric = ((score or {}).get("metrics") or {}).get("stderr") if isinstance(score, dict) else None
        field = ((metric or {}).get("params") or {}).get("cluster") if isinstance(metric, dict) else None
        if isinstance(field, str) and field.strip():
            return field.strip()
    return None


def first_scorer(header: dict[str, Any]) -> str | None:
    """Inspect's primary metric: the first scorer (``results.scores[0].name``, else
    ``eval.scorers[0].name`` of a log that has no results yet)."""
    for listed in (((header.get("results") or {}).get("scores")),
                   ((header.get("eval") or {}).get("scorers"))):
        first = listed[0] if isinstance(listed, list) and listed else None
        name = first.get("name") if isinstance(first, dict) else None
        if isinstance(name, str) and name:
            return name
    return None


def _sample_rows(samples: list[dict[str, Any]], task: str, skips: Skips,
                 cluster: str | None = None, usage: bool = False) -> tuple[
        pd.DataFrame, set[tuple[str, int]], dict[str, str], dict[tuple[str, int], str]]:
    """Rows of one log's samples with their texts, the (id, epoch) keys it holds (errored
    ones too), each example's content hash, and the samples without scores (and why); the
    metadata field ``cluster`` (when the log clusters its stderr) as an example attribute."""
    base = ("example_id", "run", "metric", "value", "prompt", "reference", "output", "content_hash")
    cluster = None if cluster in base else cluster  # a field named like a column: not kept
    names = (*base, *([cluster] if cluster else []))
    cols: dict[str, list[Any]] = {k: [] for k in names}
    keys: set[tuple[str, int]] = set()
    hashes: dict[str, str] = {}
    unscored: dict[tuple[str, int], str] = {}
    shared = shared_system(samples)
    for sample in samples:
        sid, epoch = str(sample.get("id")), int(sample.get("epoch") or 1)
        keys.add((sid, epoch))
        prompt, reference, output = _texts(sample)
        question, system = split_system(sample.get("input"))
        if system == shared:  # the log's own system prompt: the system's, not the example's
            prompt = question
        group = _metadata_value(sample, cluster)
        digest = content_hash(question, reference)
        if digest is not None:
            hashes[sid] = digest
        scores = sample.get("scores")
        if not scores:  # counted once the retries are known (a newer log may score it)
            unscored[(sid, epoch)] = "errored sample" if sample.get("error") else "unscored sample"
            continue
        for scorer, score in scores.items():
            raw = score.get("value") if isinstance(score, dict) else score
            if isinstance(raw, str) and raw in _LETTERS:  # the common case, without the checks
                pairs: Any = ((scorer, raw),)
            elif isinstance(raw, dict | list):
                pairs = _scores({"scores": {scorer: {"value": raw}}})
            else:
                pairs = ((scorer, raw),)
            if usage and scorer == next(iter(scores)):  # once per sample, beside its scores
                pairs = (*pairs, *usage_values(sample))
            for metric, leaf in pairs:
                value, reason = score_value(leaf)
                if reason is not None:
                    skips.add(reason, task, metric)
                    continue
                for key, item in (("example_id", sid), ("run", epoch), ("metric", metric),
                                  ("value", value), ("prompt", prompt), ("reference", reference),
                                  ("output", output), ("content_hash", digest)):
                    cols[key].append(item)
                if cluster:
                    cols[cluster].append(group)
    rows = pd.DataFrame({k: pd.Series(v, dtype=object) for k, v in cols.items()})
    rows = rows.astype({"value": np.float64, "run": np.int64})
    return rows.dropna(axis=1, how="all"), keys, hashes, unscored


def _metadata_value(sample: dict[str, Any], field: str | None) -> Any:
    """The sample's metadata ``field`` as an example attribute cell (None: absent)."""
    if not field:
        return None
    value = (sample.get("metadata") or {}).get(field)
    return None if value is None else metadata_text(value)


def _read_one(f: LogFile) -> tuple[dict[str, Any], dict[str, Any], list[dict[str, Any]]]:
    header, samples = _json_log(f) if f.name.lower().endswith((".json", ".json.gz")) else _eval_log(f)
    return header, _spec(header, f), samples


def _loaded(logs: list[LogFile], skips: Skips) -> list[tuple[LogFile, dict[str, Any], dict[str, Any],
                                                               list[dict[str, Any]]]]:
    """Every log read; in an upload of several, an unreadable one is skipped and named."""
    out = []
    for f in logs:
        try:
            out.append((f, *_read_one(f)))
        except DataContractError as exc:
            if len(logs) == 1:
                raise
            skips.unreadable.append((f.label, "; ".join(p.rule for p in exc.problems)))
    if not out:
        raise DataContractError([Problem(
            logs[0].label, rule="none of the Inspect logs can be read ("
            + "; ".join(f"{label}: {why}" for label, why in skips.unreadable[:3]) + ")",
            fix="upload the logs as Inspect wrote them")])
    return out


def read_inspect(logs: list[LogFile], files: list[LogFile], skips: Skips, *,
                 usage: bool = False) -> tuple[list[Part], dict[tuple[str, str], MetricSpec]]:
    """One part per (task, model, run): retries merged, re-runs and other settings kept;
    with ``usage``, each scored sample's tokens, times and cost too (:func:`usage_values`)."""
    del files
    specs: dict[tuple[str, str], MetricSpec] = {}
    groups: dict[tuple[str, str], list[Any]] = {}
    status: dict[int, tuple[Any, set[tuple[str, int]] | None]] = {}
    for f, header, spec, samples in sorted(_loaded(logs, skips),
                                           key=lambda t: (str(t[2].get("created") or ""), t[0].label)):
        task = str(spec["task"])
        groups.setdefault((task, str(spec["model"])), []).append((f, header, spec, samples))
    parts = []
    for (task, model), entries in groups.items():
        found = []
        for f, header, spec, samples in entries:
            settings, meta, seed = _settings(header, spec)
            if prompt := "\n".join(shared_system(samples)):
                meta["system_prompt"] = prompt
            cluster = cluster_field(header)
            if cluster:
                skips.clusters[task] = cluster
            rows, keys, hashes, unscored = _sample_rows(samples, task, skips, cluster, usage)
            specs.update({(task, m): USAGE_SPECS[m] for m in set(rows.get("metric", ()))
                          if usage and m in USAGE_SPECS})
            found.append((Log(f.label, str(spec.get("created") or ""), settings, seed,
                              spec.get("task_id"), rows, keys, hashes, unscored), meta))
            status[id(found[-1][0])] = (header.get("status"), _planned(spec))
        runs, said = chains([log for log, _ in found])
        skips.decisions += [f"{task}, {model}: {line}" for line in said]
        metas = {id(log): meta for log, meta in found}
        primaries = {id(log): first_scorer(header) for (log, _), (_, header, _, _)
                     in zip(found, entries, strict=True)}
        for chain in runs:
            rows, superseded, left = newest_wins(chain)
            if superseded:
                skips.add("superseded", task, "", superseded)
            for why, count in left.items():
                skips.add(why, task, "", count)
            last = chain[-1]
            ran = set().union(*(c.keys for c in chain))
            meta = metas[id(last)]
            if line := _unfinished(last, *status[id(last)], ran):
                skips.decisions.append(f"{task}, {model}: {line}")
                # kept as system metadata, so the store keeps it with the upload and the
                # Leaderboard can say it too, not only this import's report
                meta = {**meta, **_unfinished_meta(*status[id(last)], ran)}
            parts.append(Part(last.label, task, model, rows, invocation=chain[0].created,
                              settings=last.settings, meta=meta, seed=last.seed,
                              retried=True, primary=primaries.get(id(last))))
        skips.decisions += _runs_sentences(task, model, [c[-1] for c in runs])
    return parts, specs


def _planned(spec: dict[str, Any]) -> set[tuple[str, int]] | None:
    """The (id, epoch) pairs the run meant to do: ``dataset.sample_ids`` × ``config.epochs``
    (Inspect's own total, ``_eval/task/log.py``); None when the log does not list its ids."""
    ids = (spec.get("dataset") or {}).get("sample_ids")
    epochs = (spec.get("config") or {}).get("epochs") or 1
    if not isinstance(ids, list) or not isinstance(epochs, int) or epochs < 1:
        return None
    return {(str(i), e) for i in ids for e in range(1, epochs + 1)}


def _unfinished_meta(status: Any, planned: set[tuple[str, int]] | None,
                     ran: set[tuple[str, int]]) -> dict[str, Any]:
    """The log's status ("killed": no header.json) and, when the log lists its ids, how
    many planned sample-epochs never ran: the facts of :func:`_unfinished`'s sentence, as
    system metadata (``engine.store._reads.RUN_FIELDS`` names them for the pages)."""
    out: dict[str, Any] = {"run_status": "killed" if status is None else str(status)}
    if planned is not None:
        out |= {"sample_epochs_planned": len(planned),
                "sample_epochs_never_ran": len(planned - ran)}
    return out


def _unfinished(log: Log, status: Any, planned: set[tuple[str, int]] | None,
                ran: set[tuple[str, int]]) -> str | None:
    """A sentence when the newest log of a run did not finish, or left sample-epochs unrun
    that no retry ran: its scores are a part of the run, not the run (None: nothing to say)."""
    missing = len(planned - ran) if planned is not None else 0
    if status == "success" and not missing:
        return None
    if status is None:
        state = "did not finish (no header.json: the run was killed or is still running)"
    elif status == "success":
        state = "finished"
    else:
        state = {"cancelled": "was cancelled", "error": "stopped on an error",
                 "started": "did not finish"}.get(str(status), f"has status {status}")
    if planned is None:
        return f"log {log.label} {state}; it does not list its sample ids, so how many never ran is unknown"
    if not missing:
        return f"log {log.label} {state}, but every planned sample-epoch ran"
    return (f"log {log.label} {state}: {missing} of {len(planned)} sample-epochs never ran "
            "(no scores for them, and none counted as 0)")


def _runs_sentences(task: str, model: str, logs: list[Log]) -> list[str]:
    """What several runs of one (task, model) became: runs of one system, or systems."""
    by: dict[str, list[Log]] = {}
    for log in logs:
        by.setdefault(json.dumps(log.settings, sort_keys=True, default=str), []).append(log)
    said = []
    if len(by) > 1:
        said.append(f"{task}, {model}: {len(logs)} logs with {len(by)} different settings are "
                    f"{len(by)} systems, each named after the setting that differs")
    for same in by.values():
        if len(same) > 1:
            seeds = ", ".join("none" if log.seed is None else str(log.seed) for log in same)
            said.append(f"{task}, {model}: {len(same)} logs with the same settings (seeds {seeds}) "
                        f"are {len(same)} runs of one system")
    return said
