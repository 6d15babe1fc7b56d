"""Speed of the rank confidence sets: 100 × 1,000 ≤ 1 s, 1,000 × 10,000 ≤ 10 s.

Run: ``.venv/bin/python benchmarks/bench_rank_sets.py [--repeat 1] [--skip-large]``

For a random binary systems × examples matrix (systems of different accuracy, shared
examples), prints the wall-clock and CPU seconds of

* the covariance of the means (:func:`engine.ranking._mean_covariance.mean_covariance`),
* the simultaneous rank sets with the τ = 1 best set, from the matrix
  (:func:`rank_sets_of`, 1,000 bootstrap draws, stepdown) — the figure the targets are about,
* the marginal rank sets from the matrix (every system's own stepdown),
* for 100 systems, the Tukey rank intervals already in the engine
  (:func:`engine.ranking._rank_intervals.rank_intervals_of`, independent estimates; at
  1,000 systems its Monte Carlo holds 2,000 × 1,000 × 1,000 doubles at once and runs out
  of memory, so it is not timed there),
* the ratio of the simultaneous sets to the baseline measured in the same run: the
  covariance of the means (one systems × examples matrix product, the least any method
  on paired data does).

The load average is printed: on a busy 2-core machine wall-clock grows, CPU time does not.
The max over pairs of each stepdown round runs compiled (engine._jit.pair_max) once the
work is worth loading Numba: 1,000 × 10,000 went from 5.25 to 1.88 s CPU (load 11-13).
"""

from __future__ import annotations

import argparse
import os
import sys
import time
from collections.abc import Callable
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from engine._matrix import ScoreMatrix  # noqa: E402
from engine.ranking._mean_covariance import mean_covariance, rank_sets_of  # noqa: E402
from engine.ranking._rank_intervals import rank_intervals_of  # noqa: E402


def _matrix(systems: int, examples: int, seed: int = 0) -> ScoreMatrix:
    """Binary scores: example difficulty shared by all systems, system skill spread out."""
    rng = np.random.default_rng(seed)
    skill = rng.normal(0.0, 0.5, size=(systems, 1))
    difficulty = rng.normal(0.0, 1.5, size=(1, examples))
    p = 1.0 / (1.0 + np.exp(-(skill - difficulty)))
    values = (rng.random((systems, examples)) < p).astype(float)
    return ScoreMatrix("bench", "acc", tuple(f"s{i:04d}" for i in range(systems)),
                       tuple(f"e{j:05d}" for j in range(examples)), values,
                       np.ones_like(values, dtype=np.int64), binary=True, pairing="full",
                       common=np.ones(examples, dtype=bool))


def _time(fn: Callable[[], object], repeat: int) -> tuple[float, float]:
    best_wall, best_cpu = float("inf"), float("inf")
    for _ in range(repeat):
        start, cpu = time.perf_counter(), time.process_time()
        fn()
        best_wall = min(best_wall, time.perf_counter() - start)
        best_cpu = min(best_cpu, time.process_time() - cpu)
    return best_wall, best_cpu


def _case(systems: int, examples: int, target: float, repeat: int, marginal: bool) -> None:
    m = _matrix(systems, examples)
    print(f"\n{systems} systems × {examples} examples (target: simultaneous ≤ {target:g} s)")
    rows = [("covariance of the means", lambda: mean_covariance(m)),
            ("simultaneous rank sets + best set", lambda: rank_sets_of(m, kind="simultaneous")),
            ]
    if marginal:
        rows += [("marginal rank sets", lambda: rank_sets_of(m, kind="marginal")),
                 ("Tukey rank intervals", lambda: rank_intervals_of(m))]
    seconds = {}
    for label, fn in rows:
        wall, cpu = _time(fn, repeat)
        seconds[label] = wall
        print(f"  {label:<36} {wall:7.3f} s wall  {cpu:7.3f} s CPU")
    simul = seconds["simultaneous rank sets + best set"]
    base = seconds["covariance of the means"]
    verdict = "meets" if simul <= target else "MISSES"
    print(f"  simultaneous / covariance = {simul / base:.1f}x; {verdict} the {target:g} s target "
          "(wall-clock)")
    res = rank_sets_of(m)
    print(f"  stepdown rounds {res.steps}; best set size {len(res.best_set)}")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--repeat", type=int, default=1)
    parser.add_argument("--skip-large", action="store_true", help="only 100 × 1,000")
    args = parser.parse_args()
    print(f"load average {os.getloadavg()[0]:.2f} on {os.cpu_count()} cores")
    _case(100, 1_000, 1.0, args.repeat, marginal=True)
    if not args.skip_large:
        _case(1_000, 10_000, 10.0, args.repeat, marginal=False)


if __name__ == "__main__":
    main()
