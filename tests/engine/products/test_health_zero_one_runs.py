"""Benchmark health of a 0/1 metric run several times: suspect examples are found on the runs'
0/1 scores (solved = solved in at least half of the runs), though the matrix holds the runs'
per-example means (fractions) and is not binary.

Data: 4 systems × 40 examples × 3 runs (seeded); examples e0–e2 are solved with the
complement of each system's probability (0.8, 0.6, 0.4, 0.3), so the worse systems solve
them: Kendall's tau between solving and the systems' ranks is negative by construction.
"""

from __future__ import annotations

import numpy as np
import pandas as pd

from engine import MetricSpec, build_matrix
from engine.products._health import benchmark_health

FLIPPED = {"e0", "e1", "e2"}


def _frame() -> pd.DataFrame:
    rng = np.random.default_rng(0)
    rows = []
    for system, p in (("a", 0.8), ("b", 0.6), ("c", 0.4), ("d", 0.3)):
        for e in range(40):
            for run in range(3):
                solve = 1 - p if f"e{e}" in FLIPPED else p
                rows.append({"system": system, "benchmark": "b", "metric": "m",
                             "example_id": f"e{e}", "run": run,
                             "value": float(rng.random() < solve)})
    return pd.DataFrame(rows)


def test_suspects_of_repeated_zero_one_runs() -> None:
    m = build_matrix(_frame(), benchmark="b", metric="m")
    assert not m.binary
    report = benchmark_health(m)
    assert report.solved_defined and report.solved_rule == "solved in at least half of the runs"
    assert set(report.suspects["example_id"]) >= FLIPPED
    assert report.tau_neg is not None and report.tau_neg >= len(FLIPPED)


def test_a_metric_declared_numeric_still_needs_a_threshold() -> None:
    m = build_matrix(_frame(), benchmark="b", metric="m", spec=MetricSpec(binary=False))
    report = benchmark_health(m)
    assert not report.solved_defined and report.tau_neg is None
