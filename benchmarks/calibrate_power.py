"""Power at the reported smallest detectable difference, simulated independently.

For each benchmark (one run of 0/1 scores, so the default test is the exact McNemar):
``engine.power`` reports the MDD, a mean gain in success probability produced by a shift
of every example's logit (the Rasch model of :mod:`engine.stats._power`). This script
simulates that model on its own — θ solved with ``scipy.optimize.brentq`` so that the mean
gain is the MDD, McNemar by ``scipy.stats.binomtest`` — and prints the power, which should
be the target 0.80 within Monte Carlo error.

Usage: ``.venv/bin/python benchmarks/calibrate_power.py [--reps 2000]``.
Prints figures; asserts nothing.
"""

from __future__ import annotations

import argparse
import math
import sys
import time
from pathlib import Path

import numpy as np
from scipy import optimize, special, stats

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))
from engine import power, read_results  # noqa: E402

BENCHMARKS = ("humaneval+", "humaneval", "mbpp+")


def rasch_power(means: np.ndarray, var_interaction: float, gain: float, reps: int,
                seed: int) -> float:
    g = np.random.default_rng(seed)
    sd = math.sqrt(var_interaction)
    base = np.clip(means[None, :] + g.normal(0, sd, (reps, len(means))), 0.0, 1.0)
    p = np.clip(means[None, :] + g.normal(0, sd, (reps, len(means))), 0.0, 1.0)
    with np.errstate(divide="ignore"):
        logit = special.logit(p)
    theta = optimize.brentq(lambda t: float(np.mean(special.expit(logit + t) - p)) - gain,
                            0.0, 30.0, xtol=1e-12)
    a = g.random(p.shape) < base
    b = g.random(p.shape) < special.expit(logit + theta)
    wins_b, wins_a = (b & ~a).sum(axis=1), (a & ~b).sum(axis=1)
    return float(np.mean([stats.binomtest(int(x), int(x + y)).pvalue < 0.05 if x + y else False
                          for x, y in zip(wins_b, wins_a, strict=True)]))


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--reps", type=int, default=2000)
    args = ap.parse_args()
    start = time.perf_counter()
    for name in BENCHMARKS:
        df = read_results(ROOT / "data" / f"{name}.jsonl.gz")
        res = power(df, benchmark=name, n_sim=2000, rng=0)
        rate = rasch_power(res.scenario.example_means, res.scenario.var_interaction, res.mdd,
                           args.reps, seed=11)
        se = math.sqrt(rate * (1 - rate) / args.reps)
        print(f"{name:<12} MDD {res.mdd:.4f} ({res.default_test}); independent power there "
              f"{rate:.3f} ± {se:.3f} (MC SE, {args.reps} replications; target "
              f"{res.target_power:.2f})")
    print(f"total {time.perf_counter() - start:.0f} s")


if __name__ == "__main__":
    main()
