"""UK AISI Inspect AI logs: ``.eval`` (a zip) and legacy ``.json``.

From ``inspect_ai/log/_recorders/eval.py`` and ``log/_log.py`` (FORMATS.md §2): a ``.eval``
holds ``header.json`` (or ``_journal/start.json`` while unfinished), ``samples/<id>_epoch_<n>.json``
and, once finished, ``summaries.json`` (id, epoch, scores with values intact, error). A legacy
``.json`` log is one object with ``eval``, ``results`` and ``samples``.

Mapping: benchmark = ``eval.task``; system = ``eval.model``; example_id = ``sample.id`` (from
the JSON, never the member name); run = ``sample.epoch``; one metric per scorer: numbers and
booleans as they are, ``C``/``P``/``I``/``N`` as 1/0.5/0/0 (Inspect's ``value_to_float``),
yes/no/true/false and numeric strings likewise, a dict as one metric per key
(``scorer/key``), a list as ``scorer/0``, ``scorer/1``…; anything else is skipped and
counted, never 0. Errored or unscored samples give no rows and are reported. When the
same (task, model, id, epoch) is in several logs (eval-set retries) the newest log wins.
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
from ._report import Skips
from ._walk import LogFile, open_zip, read_zip_members

__all__ = ["read_inspect", "score_value"]

_LETTERS = {"C": 1.0, "P": 0.5, "I": 0.0, "N": 0.0}
_WORDS = {"yes": 1.0, "true": 1.0, "no": 0.0, "false": 0.0}
_FAST_MEMBERS = frozenset({"header.json", "summaries.json"})
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
    try:
        return json.loads(data)
    except (json.JSONDecodeError, UnicodeDecodeError) as exc:
        raise DataContractError([Problem(
            label, rule=f"{member} is not valid JSON ({exc})",
            fix="upload the log as Inspect wrote it (re-run `inspect log convert` if it was edited)")
        ]) from None


def _eval_log(f: LogFile, *, fast: bool = True) -> tuple[dict[str, Any], list[dict[str, Any]]]:
    """(header, samples) of a ``.eval`` zip: summaries.json when finished, else samples/*.json."""
    data = f.loader()
    if fast:
        members = read_zip_members(data, _FAST_MEMBERS)
        if members and "header.json" in members and "summaries.json" in members:
            header = _load(members["header.json"], f.label, "header.json")
            summaries = _load(members["summaries.json"], f.label, "summaries.json")
            if isinstance(header, dict) and isinstance(summaries, list):
                return header, summaries
    archive = open_zip(data, f.label)
    names = archive.namelist()
    head = next((n for n in ("header.json", "_journal/start.json") if n in names), None)
    if head is None:
        raise f.problem("the .eval archive has neither header.json nor _journal/start.json, so "
                        "its task and model are unknown", "upload the complete log as Inspect wrote it")

    def read(member: str) -> Any:
        try:
            data = archive.read(member)
        except (OSError, ValueError, EOFError) as exc:  # zipfile.BadZipFile is an Exception too
            raise f.problem(f"zip member {member} cannot be read ({exc})",
                            "upload the complete log again (check it with `unzip -t`)") from None
        except Exception as exc:  # noqa: BLE001 - BadZipFile, zlib.error: all mean corrupt
            raise f.problem(f"zip member {member} cannot be read ({exc})",
                            "upload the complete log again (check it with `unzip -t`)") from None
        return _load(data, f.label, member)

    header = read(head)
    if fast and head == "header.json" and "summaries.json" in names:
        summaries = read("summaries.json")
        if isinstance(summaries, list):
            return header, summaries
    samples: dict[str, Any] = {}
    for n in names:  # a re-logged member appears again later: the last one wins
        if n.startswith("samples/") and n.endswith(".json"):
            samples[n] = read(n)
    return header, list(samples.values())


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


def _settings(header: dict[str, Any], spec: dict[str, Any]) -> tuple[dict[str, Any], dict[str, Any]]:
    steps = ((header.get("plan") or {}).get("steps")) or []
    solvers = [s.get("solver") for s in steps if isinstance(s, dict)]
    settings = {"model_args": spec.get("model_args") or None,
                "generate_config": spec.get("model_generate_config") or
                (header.get("plan") or {}).get("config") or None,
                "solver": " → ".join(map(str, solvers)) or None,
                "task_args": spec.get("task_args") or None}
    version = (spec.get("packages") or {}).get("inspect_ai")
    meta = {"harness_version": f"inspect_ai {version}" if version else "inspect_ai",
            "task_version": spec.get("task_version")}
    return ({k: v for k, v in settings.items() if v is not None},
            {k: v for k, v in meta.items() if v is not None})


def _sample_rows(samples: list[dict[str, Any]], task: str,
                 skips: Skips) -> tuple[pd.DataFrame, set[tuple[str, int]]]:
    """Rows of one log's samples, and the (id, epoch) keys it holds (errored ones too)."""
    ids: list[str] = []
    runs: list[int] = []
    metrics: list[str] = []
    values: list[float] = []
    keys: set[tuple[str, int]] = set()
    for sample in samples:
        sid, epoch = str(sample.get("id")), int(sample.get("epoch") or 1)
        keys.add((sid, epoch))
        scores = sample.get("scores")
        if not scores:
            skips.add("errored sample" if sample.get("error") else "unscored sample", task, "")
            continue
        for scorer, score in scores.items():
            raw = score.get("value") if isinstance(score, dict) else score
            if isinstance(raw, str) and raw in _LETTERS:  # the common case, without the checks
                pairs: Any = ((scorer, raw),)
            elif isinstance(raw, dict | list):
                pairs = _scores({"scores": {scorer: {"value": raw}}})
            else:
                pairs = ((scorer, raw),)
            for metric, leaf in pairs:
                value, reason = score_value(leaf)
                if reason is None:
                    ids.append(sid)
                    runs.append(epoch)
                    metrics.append(metric)
                    values.append(value)  # type: ignore[arg-type]
                else:
                    skips.add(reason, task, metric)
    rows = pd.DataFrame({"example_id": pd.Series(ids, dtype=object),
                         "metric": pd.Series(metrics, dtype=object),
                         "value": np.asarray(values, dtype=np.float64),
                         "run": np.asarray(runs, dtype=np.int64)})
    return rows, keys


def _newest_wins(logs: list[tuple[pd.DataFrame, set[tuple[str, int]]]], task: str,
                 skips: Skips) -> pd.DataFrame:
    """Eval-set retries: for each (id, epoch), only the newest log that holds it counts."""
    if len(logs) == 1:
        return logs[0][0]
    owner: dict[tuple[str, int], int] = {}
    for order, (_, keys) in enumerate(logs):
        for key in keys:
            if key in owner:
                skips.add("superseded", task, "")
            owner[key] = order
    kept = []
    for order, (rows, _) in enumerate(logs):
        mine = [owner[(i, r)] == order for i, r in zip(rows["example_id"], rows["run"], strict=True)]
        kept.append(rows[np.asarray(mine, dtype=bool)])
    return pd.concat(kept, ignore_index=True)


def read_inspect(logs: list[LogFile], files: list[LogFile],
                 skips: Skips) -> tuple[list[Part], dict[tuple[str, str], MetricSpec]]:
    """One part per (task, model), the newest log winning for each (id, epoch)."""
    del files
    loaded = []
    for f in logs:
        header, samples = _json_log(f) if f.name.lower().endswith((".json", ".json.gz")) else _eval_log(f)
        spec = _spec(header, f)
        loaded.append((str(spec.get("created") or ""), f.label, f, header, spec, samples))
    groups: dict[tuple[str, str], list[Any]] = {}
    for _, _, f, header, spec, samples in sorted(loaded, key=lambda t: (t[0], t[1])):
        task = str(spec["task"])
        groups.setdefault((task, str(spec["model"])), []).append(
            (f, header, spec, _sample_rows(samples, task, skips)))
    parts = []
    for (task, model), entries in groups.items():
        rows = _newest_wins([e[3] for e in entries], task, skips)
        f, header, spec, _ = entries[-1]
        settings, meta = _settings(header, spec)
        parts.append(Part(f.label, task, model, rows, settings=settings, meta=meta))
    return parts, {}
