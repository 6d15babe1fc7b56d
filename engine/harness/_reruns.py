"""Several logs of one (task, model): retries, re-runs and other systems (docs/formats.md,
"Re-runs and retries").

* A **retry** continues the same run: the same task id (``inspect eval-retry`` and eval
  sets keep it; each ``inspect eval`` makes a new one), the same settings (generation
  config including the seed, model and task arguments, solver) and the same data (the
  examples' content hashes agree on the ids both logs hold). For each (example, epoch)
  the newest log wins; the samples it supersedes are counted and named in the report.
* A **re-run** (another task id, or another seed, or other data) with the same settings
  is another run of the same system, numbered after the first one's.
* Logs with **other settings** are other systems (``model [temperature=0.9]``, see
  :func:`engine.harness._common.assemble`).

Nothing is dropped without a sentence in the report saying which log and why.
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from typing import Any

import pandas as pd

__all__ = ["Log", "chains"]


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


def chains(logs: list[Log]) -> tuple[list[list[Log]], list[str]]:
    """Logs grouped into runs (each a retry chain, oldest first), and what was decided.

    ``logs`` are sorted by creation time. A log joins the first earlier chain with the
    same task id (when both logs have one), settings, seed and data; otherwise it starts a
    chain.
    """
    out: list[list[Log]] = []
    said: list[str] = []
    for log in logs:
        for chain in out:
            head = chain[0]
            same_id = head.task_id is None or log.task_id is None or head.task_id == log.task_id
            if same_id and _sig(head.settings) == _sig(log.settings) and head.seed == log.seed \
                    and all(_same_data(x, log) for x in chain):
                said.append(f"{log.label} is a retry of {chain[-1].label} (same task id, "
                            "settings, seed and data): for each sample and epoch the newer log counts")
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
