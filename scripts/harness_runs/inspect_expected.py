"""Writes expected.csv beside the Inspect logs: every score as inspect-ai's own reader sees it.

Usage (with inspect-ai's venv): python inspect_expected.py tests/data/harness-logs-real/inspect

For each log, ``inspect_ai.log.read_eval_log`` (the release that wrote it) gives every sample;
each scorer's value goes through Inspect's own ``value_to_float``. Columns: ``file, status,
task, model, temperature, seed, id, epoch, scorer, value, input, target, completion``. The
tests compare sigboard's import with it (tests/engine/harness/test_harness_real_logs.py).
"""

from __future__ import annotations

import csv
import sys
from pathlib import Path

from inspect_ai.log import read_eval_log
from inspect_ai.scorer import value_to_float

COLUMNS = ["file", "status", "task", "model", "temperature", "seed", "id", "epoch", "scorer",
           "value", "input", "target", "completion"]


def main(root: Path) -> None:
    to_float = value_to_float()
    rows = []
    for path in sorted(p for p in root.rglob("*") if p.suffix in (".eval", ".json")):
        log = read_eval_log(str(path))
        config = log.eval.model_generate_config
        for sample in log.samples or []:
            for scorer, score in (sample.scores or {}).items():
                rows.append({
                    "file": path.relative_to(root).as_posix(), "status": log.status,
                    "task": log.eval.task, "model": log.eval.model,
                    "temperature": config.temperature, "seed": config.seed, "id": sample.id,
                    "epoch": sample.epoch, "scorer": scorer, "value": to_float(score.value),
                    "input": sample.input, "target": sample.target,
                    "completion": sample.output.completion})
    with open(root / "expected.csv", "w", newline="") as out:
        writer = csv.DictWriter(out, COLUMNS, lineterminator="\n")
        writer.writeheader()
        writer.writerows(rows)


if __name__ == "__main__":
    main(Path(sys.argv[1]).resolve())
