"""Calibration of the paired cost test and interval (:mod:`engine.stats._cost`).

Each replication draws 200 examples. An example's difficulty is lognormal,
``u ~ LogNormal(0, 1)`` (some examples cost far more than others, for every system); each
system's cost on it is ``u · LogNormal(0, σ)`` with its own noise. Nulls (no difference in
the mean cost — the null of the test, which does not assume exchangeable systems):

- ``exchangeable``: both systems σ = 1 (the same distribution on every example);
- ``unequal shape``: σ = 1 for a, σ = 0.5 for b, b scaled so both means are equal
  (heavier tail for a: not exchangeable, the mean difference is still 0);
- ``zeros and ties``: cached answers cost 0 — 20% of the examples for both systems (a
  difference of exactly 0, tied), a further 25% of the rest for a only; a's other costs
  σ = 1, b's σ = 0.5, both scaled so the means are equal;
- ``very unequal``: σ = 1.25 for a, σ = 0.5 for b (a's costs LogNormal(0, 1.6) overall:
  a few examples carry most of the total; shown to say where the method ends).

False-alarm rate = share of replications with p < 0.05; coverage = share whose 95% interval
holds the true mean difference 0; "disagree" counts replications where p < 0.05 and the
interval holding 0 say different things (0 by construction: one bootstrap gives both).
Beside them, the sign-flip permutation test (the former p-value, exact only for
exchangeable systems), the paired t test and t interval, and the paired t on log-ratios (a
test of the geometric mean: on the unequal nulls its null is false, and it "finds" a
difference the mean does not have). Every rate is printed with its Monte Carlo standard
error √(r(1−r)/reps).

    .venv/bin/python benchmarks/calibrate_cost.py [--reps 1000] [--resamples 1999]

Last run (``--reps 1000``, 1,999 resamples, 91 s):

    exchangeable   bootstrap-t false alarms 0.030 (MC SE 0.005), coverage 0.970 (0.005),
                   disagree 0; sign-flip 0.046 (0.007); paired t 0.038 (0.006)
    unequal shape  bootstrap-t false alarms 0.057 (MC SE 0.007), coverage 0.943 (0.007),
                   disagree 0; sign-flip 0.071 (0.008); paired t 0.066 (0.008)
    zeros and ties bootstrap-t false alarms 0.060 (MC SE 0.008), coverage 0.940 (0.008),
                   disagree 0; sign-flip 0.079 (0.009); paired t 0.067 (0.008)
    very unequal   bootstrap-t false alarms 0.075 (MC SE 0.008), coverage 0.925 (0.008),
                   disagree 0; sign-flip 0.091 (0.009); paired t 0.081 (0.009)
    cost per success n=200 reps=1000: bootstrap-t (log R) coverage 0.936 (MC SE 0.008)
    cost per point (graded score) n=200 reps=1000: bootstrap-t (log R) coverage 0.940 (MC SE 0.008)

(the log-ratio t rejects 0.994, 0.122 and 1.000 on the non-exchangeable nulls, where the
geometric means differ and the means do not.)

Cost per success: 200 examples, success ~ Bernoulli(0.6) correlated with the cost
(successful answers cost 1.5× more), coverage of the 95% interval (bootstrap-t on log R) of
Σcost/Σsuccess against the population value E[c]/E[s] (computed in closed form). Cost per
point of a graded score: s ~ Beta(2, 3), cost ``u · LogNormal(0, 1) · (1 + s)``, against
E[c]/E[s] = 1.4e/0.4. (For a 0/1 score, cost per percentage point is cost per success / 100:
the same coverage.)
"""

from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path

import numpy as np
from scipy import stats

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from engine.stats._cost import (  # noqa: E402
    cost_per_point,
    cost_per_success,
    paired_mean_difference,
)

N = 200


def _rate(hits: int, reps: int) -> str:
    r = hits / reps
    return f"{r:.3f} (MC SE {np.sqrt(r * (1 - r) / reps):.3f})"


def _draw(rng: np.random.Generator, null: str) -> tuple[np.ndarray, np.ndarray]:
    u = rng.lognormal(0.0, 1.0, N)
    if null == "exchangeable":
        return u * rng.lognormal(0.0, 1.0, N), u * rng.lognormal(0.0, 1.0, N)
    if null == "zeros and ties":
        # cached answers cost 0: 20% of examples cached for both (d = 0 exactly, ties),
        # a further 25% of the rest cached for a only (a costs 0 on 40%, b on 20%); a's
        # uncached costs ×0.8/0.6 and b's ×e^{3/8}, so that E[a] = 0.6·(0.8/0.6)·e^{1/2}·e^{1/2}
        # = 0.8·e = E[b] = 0.8·e^{1/2}·e^{1/8}·e^{3/8}: equal means, unequal shapes, ties
        both = rng.random(N) < 0.2
        only_a = ~both & (rng.random(N) < 0.25)
        a = np.where(both | only_a, 0.0, u * rng.lognormal(0.0, 1.0, N) * 0.8 / 0.6)
        b = np.where(both, 0.0, u * rng.lognormal(0.0, 0.5, N) * np.exp((1 - 0.25) / 2))
        return a, b
    sa, sb = (1.0, 0.5) if null == "unequal shape" else (1.25, 0.5)
    # E[LogNormal(0, σ)] = exp(σ²/2): scale b so E[a] = E[b]
    scale = np.exp((sa**2 - sb**2) / 2)
    return u * rng.lognormal(0.0, sa, N), scale * u * rng.lognormal(0.0, sb, N)


def _sign_flip_p(d: np.ndarray, rng: np.random.Generator, b: int) -> float:
    """The former p-value, kept for comparison: Monte Carlo sign-flip test of mean(d) = 0
    (exact only when the two systems are exchangeable)."""
    signs = rng.integers(0, 2, size=(b, len(d))) * 2 - 1
    return (1 + int((np.abs(signs @ d) >= abs(d.sum()) - 1e-12).sum())) / (1 + b)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--reps", type=int, default=1000)
    parser.add_argument("--resamples", type=int, default=1999)
    args = parser.parse_args()
    rng = np.random.default_rng(20261203)
    start = time.time()
    for null in ("exchangeable", "unequal shape", "zeros and ties", "very unequal"):
        fa = cover = t_fa = t_cover = log_fa = sf_fa = disagree = 0
        for rep in range(args.reps):
            a, b = _draw(rng, null)
            r = paired_mean_difference(a, b, n_resamples=args.resamples, seed=rep)
            fa += r.p_value < 0.05
            cover += r.low <= 0 <= r.high
            disagree += (r.p_value < 0.05) != (not r.low <= 0 <= r.high)
            d = a - b
            sf_fa += _sign_flip_p(d, rng, args.resamples) < 0.05
            t = stats.ttest_1samp(d, 0.0)
            t_fa += t.pvalue < 0.05
            half = stats.t.ppf(0.975, N - 1) * d.std(ddof=1) / np.sqrt(N)
            t_cover += abs(d.mean()) <= half
            with np.errstate(divide="ignore", invalid="ignore"):
                pos = (a > 0) & (b > 0)
                log_fa += stats.ttest_1samp(np.log(a[pos] / b[pos]), 0.0).pvalue < 0.05
        print(f"{null:14s} n={N} reps={args.reps}: bootstrap-t false alarms "
              f"{_rate(fa, args.reps)}, coverage {_rate(cover, args.reps)}, p and interval "
              f"disagree {disagree}; sign-flip false alarms {_rate(sf_fa, args.reps)}; paired t "
              f"false alarms {_rate(t_fa, args.reps)}, t coverage {_rate(t_cover, args.reps)}; "
              f"log-ratio t 'false alarms' {_rate(log_fa, args.reps)}")
    # cost per success: c = u·LogNormal(0,1)·(1 + 0.5·s), s ~ Bernoulli(0.6), u ~ LogNormal(0,1)
    # E[c] = e^{1/2}·e^{1/2}·(1 + 0.5·0.6), E[s] = 0.6
    truth = np.exp(1.0) * 1.3 / 0.6
    cover = 0
    for rep in range(args.reps):
        s = (rng.random(N) < 0.6).astype(float)
        c = rng.lognormal(0, 1, N) * rng.lognormal(0, 1, N) * (1 + 0.5 * s)
        ratio = cost_per_success(c, s, n_resamples=args.resamples, seed=rep)
        cover += ratio.low <= truth <= ratio.high
    print(f"cost per success n={N} reps={args.reps}: bootstrap-t (log R) coverage {_rate(cover, args.reps)}")
    # cost per point of a graded score: s ~ Beta(2, 3) (E[s] = 0.4), c = u·LogNormal(0,1)·(1 + s)
    # with u ~ LogNormal(0,1): E[c] = e·(1 + 0.4); one point = one unit of the score
    truth = np.exp(1.0) * 1.4 / 0.4
    cover = 0
    for rep in range(args.reps):
        s = rng.beta(2.0, 3.0, N)
        c = rng.lognormal(0, 1, N) * rng.lognormal(0, 1, N) * (1 + s)
        ratio = cost_per_point(c, s, percent=False, n_resamples=args.resamples, seed=rep)
        cover += ratio.low <= truth <= ratio.high
    print(f"cost per point (graded score) n={N} reps={args.reps}: bootstrap-t (log R) coverage "
          f"{_rate(cover, args.reps)}")
    print(f"({time.time() - start:.0f} s)")


if __name__ == "__main__":
    main()
