"""Calibration of the paired cost test and interval (:mod:`engine.stats._cost`).

Each replication draws 200 examples. An example's difficulty is lognormal,
``u ~ LogNormal(0, 1)`` (some examples cost far more than others, for every system); each
system's cost on it is ``u · LogNormal(0, σ)`` with its own noise. Nulls (no difference in
the mean cost):

- ``exchangeable``: both systems σ = 1 (the same distribution on every example: the
  sign-flip test is exact here);
- ``unequal shape``: σ = 1 for a, σ = 0.5 for b, b scaled so both means are equal
  (heavier tail for a: not exchangeable, the mean difference is still 0; the sign-flip test
  is then only approximately valid, the bootstrap-t interval still targets the mean);
- ``very unequal``: σ = 1.25 for a, σ = 0.5 for b (a's costs LogNormal(0, 1.6) overall:
  a few examples carry most of the total; no test of the mean at 200 examples keeps its
  level here, shown to say where the method ends).

False-alarm rate = share of replications with p < 0.05; coverage = share whose 95% interval
holds the true mean difference 0. Beside them, the paired t test and t interval on the same
differences, and the paired t on log-ratios (a test of the geometric mean: on ``unequal
shape`` its null is false, and it "finds" a difference the mean does not have). Every rate
is printed with its Monte Carlo standard error √(r(1−r)/reps).

    .venv/bin/python benchmarks/calibrate_cost.py [--reps 500] [--resamples 1999]

Last run (``--reps 1000``, 1,999 resamples, ~1 min):

    exchangeable   n=200 reps=1000: sign-flip false alarms 0.049 (MC SE 0.007),
                   bootstrap-t coverage 0.980 (MC SE 0.004); ...
    unequal shape  n=200 reps=1000: sign-flip false alarms 0.073 (MC SE 0.008),
                   bootstrap-t coverage 0.944 (MC SE 0.007); ...
    very unequal   n=200 reps=1000: sign-flip false alarms 0.096 (MC SE 0.009),
                   bootstrap-t coverage 0.918 (MC SE 0.009); ...
    cost per success n=200 reps=1000: bootstrap-t (log R) coverage 0.928 (MC SE 0.008)

(paired t: 0.036/0.964, 0.064/0.936, 0.088/0.912; the log-ratio t rejects 0.997 and 1.000
on the unequal nulls, where the geometric means differ and the means do not.)

Cost per success: 200 examples, success ~ Bernoulli(0.6) correlated with the cost
(successful answers cost 1.5× more), coverage of the 95% interval (bootstrap-t on log R) of
Σcost/Σsuccess against the population value E[c]/E[s] (computed in closed form).
"""

from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path

import numpy as np
from scipy import stats

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from engine.stats._cost import cost_per_success, paired_mean_difference  # noqa: E402

N = 200


def _rate(hits: int, reps: int) -> str:
    r = hits / reps
    return f"{r:.3f} (MC SE {np.sqrt(r * (1 - r) / reps):.3f})"


def _draw(rng: np.random.Generator, null: str) -> tuple[np.ndarray, np.ndarray]:
    u = rng.lognormal(0.0, 1.0, N)
    if null == "exchangeable":
        return u * rng.lognormal(0.0, 1.0, N), u * rng.lognormal(0.0, 1.0, N)
    sa, sb = (1.0, 0.5) if null == "unequal shape" else (1.25, 0.5)
    # E[LogNormal(0, σ)] = exp(σ²/2): scale b so E[a] = E[b]
    scale = np.exp((sa**2 - sb**2) / 2)
    return u * rng.lognormal(0.0, sa, N), scale * u * rng.lognormal(0.0, sb, N)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--reps", type=int, default=500)
    parser.add_argument("--resamples", type=int, default=1999)
    args = parser.parse_args()
    rng = np.random.default_rng(20261203)
    start = time.time()
    for null in ("exchangeable", "unequal shape", "very unequal"):
        fa = cover = t_fa = t_cover = log_fa = 0
        for rep in range(args.reps):
            a, b = _draw(rng, null)
            r = paired_mean_difference(a, b, n_resamples=args.resamples, seed=rep)
            fa += r.p_value < 0.05
            cover += r.low <= 0 <= r.high
            d = a - b
            t = stats.ttest_1samp(d, 0.0)
            t_fa += t.pvalue < 0.05
            half = stats.t.ppf(0.975, N - 1) * d.std(ddof=1) / np.sqrt(N)
            t_cover += abs(d.mean()) <= half
            log_fa += stats.ttest_1samp(np.log(a / b), 0.0).pvalue < 0.05
        print(f"{null:14s} n={N} reps={args.reps}: sign-flip false alarms {_rate(fa, args.reps)}, "
              f"bootstrap-t coverage {_rate(cover, args.reps)}; paired t false alarms "
              f"{_rate(t_fa, args.reps)}, t coverage {_rate(t_cover, args.reps)}; "
              f"log-ratio t 'false alarms' {_rate(log_fa, args.reps)}")
    # cost per success: c = u·LogNormal(0,1)·(1 + 0.5·s), s ~ Bernoulli(0.6), u ~ LogNormal(0,1)
    # E[c] = e^{1/2}·e^{1/2}·(1 + 0.5·0.6), E[s] = 0.6
    truth = np.exp(1.0) * 1.3 / 0.6
    cover = 0
    for rep in range(args.reps):
        s = (rng.random(N) < 0.6).astype(float)
        c = rng.lognormal(0, 1, N) * rng.lognormal(0, 1, N) * (1 + 0.5 * s)
        r = cost_per_success(c, s, n_resamples=args.resamples, seed=rep)
        cover += r.low <= truth <= r.high
    print(f"cost per success n={N} reps={args.reps}: bootstrap-t (log R) coverage {_rate(cover, args.reps)}")
    print(f"({time.time() - start:.0f} s)")


if __name__ == "__main__":
    main()
