"""Timings of repeated runs (best of 3): compare (5 runs × 1,000 examples) ≤ 1 s; power simulation
(6 tests × 1,000 replications × 500 examples) ≤ 5 s; the leaderboard of 50 systems × 1,000
examples × 5 runs through the path users take, ``leaderboard(build_matrix(df))`` (the matrix
keeps the runs, so the run-aware tests run), ≤ 2 s; the A/B reports; and the calibration of
the non-inferiority gate (``compare_ab(margin=)``): on the H0 boundary (true difference =
−margin) "non-inferior" must come out at most alpha of the time.

    .venv/bin/python benchmarks/bench_runs.py
"""

from __future__ import annotations

import sys
from pathlib import Path

import numpy as np
import pandas as pd
from _table import best_of

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
from engine._matrix import build_matrix  # noqa: E402
from engine.products._leaderboard import leaderboard  # noqa: E402
from engine.report._reports import compare_report, leaderboard_report  # noqa: E402
from engine.stats._ab import compare_ab, noninferiority_test  # noqa: E402
from engine.stats._power import power  # noqa: E402
from engine.stats._runs import RunCube  # noqa: E402
from engine.stats._runs_pairs import pair_run_test  # noqa: E402


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


def boundary_pair(rng: np.random.Generator, n: int, runs: int, margin: float, binary: bool,
                  sweep: float) -> RunCube:
    """Baseline and candidate with true mean difference −margin, runs as seed sweeps."""
    values = np.empty((2, runs, n))
    if binary:
        p = 0.1 + 0.8 * rng.beta(2, 2, n)
        for s, shift in ((0, 0.0), (1, -margin)):
            level = p + shift + rng.normal(0, sweep, (runs, 1))
            values[s] = rng.random((runs, n)) < np.clip(level, 0, 1)
    else:
        level = rng.normal(0, 1, n)
        for s, shift in ((0, 0.0), (1, -margin)):
            values[s] = (level + shift + rng.normal(0, 0.3, n) + rng.normal(0, sweep, (runs, 1))
                         + rng.normal(0, 0.3, (runs, n)))
    return RunCube("b", "m", ("A", "B"), tuple(map(str, range(n))), values.astype(float),
                   np.array([runs, runs]))


def calibrate_margin(reps: int = 2000, alpha: float = 0.05) -> None:
    print(f"\nnon-inferiority on the H0 boundary, {reps} replications each (alpha {alpha}, "
          f"3 MC SE = {3 * np.sqrt(alpha * (1 - alpha) / reps):.3f}):")
    for binary, n, runs, sweep in ((False, 30, 1, 0.0), (False, 200, 1, 0.0), (False, 100, 5, 0.05),
                                   (True, 200, 1, 0.0), (True, 500, 5, 0.02)):
        rng = np.random.default_rng(n + runs)
        margin = 0.05 if binary else 0.1
        hits = sum(noninferiority_test(pair_run_test(boundary_pair(rng, n, runs, margin, binary,
                                                                   sweep)),
                                       margin=margin, alpha=alpha).non_inferior
                   for _ in range(reps))
        kind = "binary " if binary else "numeric"
        print(f"  {kind} n={n:4d} runs={runs} sweep sd={sweep:.2f}: false 'non-inferior' "
              f"{hits / reps:.3f}")


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
    calibrate_margin()


if __name__ == "__main__":
    main()
