"""Timings of issue #16 (best of 3): compare (5 runs × 1,000 examples) ≤ 1 s; power simulation
(6 tests × 1,000 replications × 500 examples) ≤ 5 s; the leaderboard of 50 systems × 1,000
examples × 5 runs through the path users take, ``leaderboard(build_matrix(df))`` (the matrix
keeps the runs, so the run-aware tests run), ≤ 2 s; and the A/B reports.

    .venv/bin/python benchmarks/bench_runs.py
"""

from __future__ import annotations

import sys
import time
from collections.abc import Callable
from pathlib import Path

import numpy as np
import pandas as pd

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
from engine._ab import compare_ab  # noqa: E402
from engine._leaderboard import leaderboard  # noqa: E402
from engine._matrix import build_matrix  # noqa: E402
from engine._power import power  # noqa: E402
from engine._report import compare_report, leaderboard_report  # noqa: E402


def long_table(systems: int, examples: int, runs: int, seed: int = 0) -> pd.DataFrame:
    rng = np.random.default_rng(seed)
    p = rng.beta(2, 2, examples)
    s, r, e = np.meshgrid(np.arange(systems), np.arange(runs), np.arange(examples), indexing="ij")
    shift = rng.normal(0, 0.02, (systems, runs, 1))
    value = (rng.random(s.shape) < np.clip(p[None, None, :] + shift, 0, 1)).astype(float)
    return pd.DataFrame({"benchmark": "b", "metric": "pass1",
                         "system": pd.Series(s.ravel()).map("sys{:02d}".format).astype(object),
                         "example_id": pd.Series(e.ravel()).map("ex{:04d}".format).astype(object),
                         "run": r.ravel(), "value": value.ravel()})


def best_of(fn: Callable[[], object], k: int = 3) -> float:
    times = []
    for _ in range(k):
        t0 = time.perf_counter()
        fn()
        times.append(time.perf_counter() - t0)
    return min(times)


def main() -> None:
    two = long_table(2, 1000, 5)
    t = best_of(lambda: compare_ab(two, baseline="sys00", candidate="sys01"))
    print(f"compare_ab, 5 runs × 1,000 examples:                 {t:6.3f} s (budget 1 s)")
    bench = long_table(4, 500, 5)
    t = best_of(lambda: power(bench, benchmark="b", n_sim=1000, rng=0))
    print(f"power, 6 tests × 1,000 reps × 500 examples × 5 runs: {t:6.3f} s (budget 5 s)")
    t = best_of(lambda: power(bench, benchmark="b", runs=1, n_sim=1000, rng=0))
    print(f"power, same with 1 run:                              {t:6.3f} s (budget 5 s)")
    big = long_table(50, 1000, 5)
    board = leaderboard(build_matrix(big))
    assert board.pairwise.test == "vc-t", board.pairwise.test  # the run-aware model ran
    t = best_of(lambda: leaderboard(build_matrix(big)))
    print(f"leaderboard(build_matrix), 50 × 1,000 × 5 runs:     {t:6.3f} s (budget 2 s)")
    t = best_of(lambda: leaderboard_report(board, fmt="html"))
    print(f"leaderboard HTML report, 50 systems:                {t:6.3f} s")
    ab = compare_ab(two, baseline="sys00", candidate="sys01")
    t = best_of(lambda: compare_report(ab, fmt="html"))
    print(f"A/B HTML report, 1,000 examples:                    {t:6.3f} s")


if __name__ == "__main__":
    main()
