"""Writes a small clustered Inspect log offline (run by scripts/harness_logs.py with
inspect-ai's own venv, harness ``inspect_clustered``).

Usage: python inspect_clustered_run.py OUT_DIR

Task `passages` (inspect_run.PASSAGES): 16 samples, 4 passages × 4 questions, each sample's
``metadata.passage`` naming its passage; scorer `match` with the task's metrics
``[accuracy(), stderr(cluster="passage")]``, so Inspect itself writes the clustered standard
error of each model's mean into the log's results (``metrics.stderr.params.cluster``). The
`sigtest` model API of inspect_run.py answers a passage's questions mostly right, or mostly
wrong when a hash of (model, passage) makes the passage hard for that model: the questions of
one passage fail together. Logs: eval/, models sigtest/model-a and sigtest/model-b, 1 epoch,
temperature 0, in the default `.eval` format (a few KB each).
"""

from __future__ import annotations

import sys
from pathlib import Path
from typing import Any

from inspect_ai import Task, eval, task
from inspect_ai.dataset import json_dataset
from inspect_ai.scorer import accuracy, match, stderr
from inspect_ai.solver import generate
from inspect_run import PASSAGES, _write  # registers the sigtest model API


@task
def passages() -> Task:
    return Task(dataset=json_dataset(_write("passages", PASSAGES)), solver=generate(),
                scorer=match(), metrics=[accuracy(), stderr(cluster="passage")])


def main(out: Path) -> None:
    common: dict[str, Any] = {"display": "none", "max_samples": 1, "max_tasks": 1}
    for model in ("sigtest/model-a", "sigtest/model-b"):
        eval(passages(), model=model, temperature=0.0, log_dir=str(out / "eval"), **common)


if __name__ == "__main__":
    main(Path(sys.argv[1]).resolve())
