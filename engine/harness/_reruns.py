"""Several logs of one (task, model): retries, re-runs and other systems (docs/formats.md,
"Re-runs and retries").

* A **retry** continues the same run: the same settings (generation config, model and
  task arguments, solver, few-shot…), the same seed, and the same data (the examples'
  content hashes agree on the ids both logs hold); for Inspect also the same task id
  (``inspect eval-retry`` and eval sets keep it; each ``inspect eval`` makes a new one).
  For each (example, run) the newest log wins; the samples it supersedes are counted and
  named in the report.
* A **re-run** (another seed, a seed the log does not record, other data, or for Inspect
  another task id) with the same settings is another run of the same system, numbered
  after the first one's.
* Logs with **other settings** are other systems (``model [temperature=0.9]``, see
  :func:`engine.harness._common.assemble`).

Inspect's reader applies this to its logs itself (:func:`chains`); for every other harness
:func:`merge_retries` applies it to the separate invocations of one system on one benchmark
(lm-eval and lighteval date ids, HELM suites, promptfoo and OpenAI evals files). Nothing
is dropped without a sentence in the report saying which log and why.
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field, replace
from typing import TYPE_CHECKING, Any

import pandas as pd

if TYPE_CHECKING:
    from ._common import Part
    from ._report import Skips

__all__ = ["Log", "chains", "merge_retries", "newest_wins", "settings_sentences"]
#: Columns that say what an example is (as :data:`engine.harness._pairing.HASH_COLUMNS`).
_HASHES = ("doc_hash", "content_hash")


@dataclass
class Log:
    """One log of a (task, model): its rows and what decides how it relates to the others."""

    label: str
    created: str
    settings: dict[str, Any]
    seed: Any
    task_id: str | None
    rows: pd.DataFrame
    keys: set[tuple[str, int]]
    hashes: dict[str, str] = field(default_factory=dict)
    #: (id, epoch) of samples without scores → why ("errored sample", "unscored sample")
    unscored: dict[tuple[str, int], str] = field(default_factory=dict)


def _sig(settings: dict[str, Any]) -> str:
    return json.dumps(settings, sort_keys=True, default=str)


def _same_data(a: Log, b: Log) -> bool:
    shared = a.hashes.keys() & b.hashes.keys()
    return all(a.hashes[k] == b.hashes[k] for k in shared)


def chains(logs: list[Log], *, seed_needed: bool = False) -> tuple[list[list[Log]], list[str]]:
    """Logs grouped into runs (each a retry chain, oldest first), and what was decided.

    ``logs`` are sorted by creation time. A log joins the first earlier chain with the
    same task id (when both logs have one), settings, seed and data; otherwise it starts a
    chain. ``seed_needed``: a log without a recorded seed (None) is never a retry (the
    harnesses without a retry marker: the same unrecorded seed cannot be told).
    """
    out: list[list[Log]] = []
    said: list[str] = []
    what = "settings, seed and data" if seed_needed else "task id, settings, seed and data"
    for log in logs:
        for chain in out:
            head = chain[0]
            same_id = head.task_id is None or log.task_id is None or head.task_id == log.task_id
            if same_id and _sig(head.settings) == _sig(log.settings) and head.seed == log.seed \
                    and not (seed_needed and log.seed is None) \
                    and all(_same_data(x, log) for x in chain):
                said.append(f"{log.label} is a retry of {chain[-1].label} (same {what}): for "
                            "each sample and run the newer log counts")
                chain.append(log)
                break
        else:
            out.append([log])
    return out, said


def newest_wins(chain: list[Log]) -> tuple[pd.DataFrame, int, dict[str, int]]:
    """The rows of a retry chain, each (example, epoch) from the newest log holding it, how
    many samples of older logs that supersedes, and the samples left without scores by
    reason (only those no newer log scored)."""
    owner: dict[tuple[str, int], int] = {}
    unscored: dict[str, int] = {}
    for order, log in enumerate(chain):
        for key in log.keys:
            owner[key] = order
    for order, log in enumerate(chain):
        for key, why in log.unscored.items():
            if owner[key] == order:
                unscored[why] = unscored.get(why, 0) + 1
    if len(chain) == 1:
        return chain[0].rows, 0, unscored
    owner = {}
    superseded = 0
    for order, log in enumerate(chain):
        for key in log.keys:
            superseded += key in owner
            owner[key] = order
    kept = []
    for order, log in enumerate(chain):
        rows = log.rows
        mine = [owner[(i, r)] == order for i, r in zip(rows["example_id"], rows["run"], strict=True)]
        kept.append(rows[pd.Series(mine, index=rows.index, dtype=bool)])
    return pd.concat(kept, ignore_index=True), superseded, unscored


def _as_log(part: Part) -> Log:
    rows = part.rows if "run" in part.rows.columns else part.rows.assign(run=0)
    column = next((c for c in _HASHES if c in rows.columns), None)
    hashes: dict[str, str] = {}
    if column is not None:
        held = rows.loc[rows[column].notna(), ["example_id", column]].drop_duplicates("example_id")
        hashes = dict(zip(held["example_id"].astype(str), held[column].astype(str), strict=True))
    keys = set(zip(rows["example_id"].astype(str), rows["run"].astype(int), strict=True))
    return Log(part.source, part.invocation, {}, part.seed, None, rows, keys, hashes)


def _why_new(first: Log, log: Log) -> str:
    if log.seed is None or first.seed is None:
        return "no seed recorded"
    if log.seed != first.seed:
        return f"seed {log.seed}"
    return "other data"


def merge_retries(parts: list[Part], systems: list[str],
                  skips: Skips) -> tuple[list[Part], list[str]]:
    """Separate invocations of one system on one benchmark: retries merged (newest wins per
    example and run), re-runs kept as parts of their own; the parts and system names left,
    and one sentence per decision in ``skips.decisions``.

    The parts of one (benchmark, system name) have the same settings (other settings get
    other names); parts whose reader decided already (``Part.retried``, Inspect) are left.
    """
    groups: dict[tuple[str, str], list[int]] = {}
    for i, part in enumerate(parts):
        if not part.retried:
            groups.setdefault((part.benchmark, systems[i]), []).append(i)
    merged: dict[int, Part] = {}
    gone: set[int] = set()
    for (bench, system), idx in groups.items():
        if len(idx) < 2:
            continue
        order = sorted(idx, key=lambda j: (parts[j].invocation, parts[j].source))
        logs = [_as_log(parts[j]) for j in order]
        runs, said = chains(logs, seed_needed=True)
        skips.decisions += [f"{bench}, {system}: {line}" for line in said]
        where = {id(log): j for log, j in zip(logs, order, strict=True)}
        for chain in runs:
            first, last = where[id(chain[0])], where[id(chain[-1])]
            if len(chain) > 1:
                rows, superseded, _ = newest_wins(chain)
                if "run" not in parts[last].rows.columns:
                    rows = rows.drop(columns="run")
                skips.add("superseded", bench, "", superseded)
                merged[first] = replace(parts[last], rows=rows, invocation=parts[first].invocation)
                gone.update(where[id(log)] for log in chain[1:])
        if len(runs) > 1:
            reasons = [_why_new(runs[0][0], c[0]) for c in runs[1:]]
            why = "; ".join(f"{c[0].label}: {r}" for c, r in zip(runs[1:], reasons, strict=True))
            hint = ("; a log that records its seed is a retry when the seed, settings and data "
                    "agree" if "no seed recorded" in reasons else "")
            skips.decisions.append(f"{bench}, {system}: {len(runs)} invocations with the same "
                                   f"settings are {len(runs)} runs ({why}){hint}")
    kept = [i for i in range(len(parts)) if i not in gone]
    return [merged.get(i, parts[i]) for i in kept], [systems[i] for i in kept]


def settings_sentences(parts: list[Part], named: list[str], split: list[str]) -> list[str]:
    """One sentence per model whose invocations had other settings and so became several
    systems (``named``: the names before :func:`engine.harness._common.assemble` split them,
    ``split``: after). Inspect's reader says it itself."""
    by: dict[str, set[str]] = {}
    for part, before, after in zip(parts, named, split, strict=True):
        if not part.retried and before != after:
            by.setdefault(before, set()).add(after)
    return [f"{model}: invocations with other settings are {len(names)} systems, each named "
            f"after the settings that differ ({', '.join(sorted(names))})"
            for model, names in by.items() if len(names) > 1]
