"""Coverage of the Leaderboard's mean intervals when systems lack examples at random.

Each replication: 8 systems × 150 examples of varied difficulty (normal, SD 1), no true
difference between systems; numeric scores difficulty + N(0, 1), 0/1 scores Bernoulli at
logistic(0.3 − difficulty); every system but the first loses each score with probability
0.2 (missing completely at random). The leaderboard's interval of each incomplete system
(the adjusted mean, :mod:`engine.stats._additive`) should cover the systems' common
population mean (0, or the mean success probability over the difficulty distribution,
from 200,000 draws) in ≥ 0.93 of cases.

Usage: ``.venv/bin/python benchmarks/calibrate_partial_intervals.py [--reps 300]``.
Prints figures; asserts nothing.
"""

from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
from engine import leaderboard  # noqa: E402
from engine._matrix import ScoreMatrix  # noqa: E402


def coverage(reps: int, *, binary: bool, systems: int = 8, examples: int = 150,
             missing: float = 0.2, seed: int = 0) -> tuple[float, float]:
    rng = np.random.default_rng(seed)
    draws = rng.normal(0, 1, 200_000)
    truth = float(np.mean(1 / (1 + np.exp(-(0.3 - draws))))) if binary else 0.0
    hits: list[bool] = []
    for _ in range(reps):
        difficulty = rng.normal(0, 1, examples)
        if binary:
            p = 1 / (1 + np.exp(-(0.3 - difficulty)))
            x = (rng.random((systems, examples)) < p).astype(float)
        else:
            x = difficulty[None, :] + rng.normal(0, 1, (systems, examples))
        lost = rng.random((systems, examples)) < missing
        lost[0] = False  # one complete system: the others are compared with it
        x[lost] = np.nan
        t = leaderboard(ScoreMatrix.from_array(x), bt_resamples=0).table
        t = t[t["system"] != "s0"]
        hits += list((t["ci_low"] <= truth) & (t["ci_high"] >= truth))
    rate = float(np.mean(hits))
    return rate, float(np.sqrt(rate * (1 - rate) / len(hits)))


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--reps", type=int, default=300)
    args = ap.parse_args()
    start = time.perf_counter()
    for binary in (False, True):
        rate, se = coverage(args.reps, binary=binary)
        print(f"{'0/1' if binary else 'numeric':<8} 20% missing at random: coverage "
              f"{rate:.3f} ± {se:.3f} (MC SE as if the 7 incomplete systems of a "
              f"replication were independent; {args.reps} replications)")
    print(f"total {time.perf_counter() - start:.0f} s")


if __name__ == "__main__":
    main()
