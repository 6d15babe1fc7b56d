"""Calibration of the A/B gate on a judge metric with human labels: false alarms of the
PPI++ paired difference by the number of examples labelled for both systems.

Two systems with the same human-label mean; the judge favours one by 5 points and penalises
the other by 5 (0-100 scale, human SD 20, judge noise SD 8 or 20 around the human label);
``n`` of 400 examples labelled (the same examples for both systems), drawn at random. Per n,
the share of R replications in which the gate's two-sided test (the PPI++ difference, t with
n - 2 df and the variance times n / (n - 2), :func:`engine.stats._ppi.ppi_means` on the
per-example differences, equal to the judge board's pair row) rejects at alpha 0.05, beside
the judge-only paired t (which alarms almost always: the judge's biases differ).

Run: ``.venv/bin/python benchmarks/calibrate_ppi_gate.py [--reps 20000]``.

Measured (20,000 replications, seed 31; MC error 2 SE = 0.0031; load ~6), false alarms at
10 / 15 / 20 / 25 / 30 / 40 / 60 / 100 labels:
judge noise SD 8:  0.048 / 0.046 / 0.050 / 0.046 / 0.049 / 0.051 / 0.051 / 0.048
judge noise SD 20: 0.049 / 0.050 / 0.053 / 0.052 / 0.051 / 0.055 / 0.050 / 0.052
(judge-only paired t: 0.998-1.000). Before the n / (n - 2) correction (t with n - 1 df, 1/n
moments) the same run gave 0.075 / 0.062 / 0.064 / 0.055 / 0.057 / 0.058 / 0.055 / 0.050 and
0.077 / 0.068 / 0.065 / 0.062 / 0.060 / 0.060 / 0.054 / 0.054.

Weighted scenario (labels with known inclusion probabilities, :func:`weighted_false_alarms`;
``--weighted-only``): 20,000 replications, seed 31, 2 SE = 0.0031, load ~6.5; false alarms at
~12 / 20 / 33 / 60 expected labels (below 10 labels the gate refuses: 24% of replications at
12, 0.4% at 20), t with m - 2 df and the variance times m / (m - 2), m the effective labels:
judge noise SD 8:  0.014 / 0.036 / 0.038 / 0.043
judge noise SD 20: 0.018 / 0.045 / 0.049 / 0.048
and before (t with m - 1 df, no variance factor): 0.036 / 0.062 / 0.052 / 0.051 and
0.044 / 0.074 / 0.067 / 0.057.
"""

from __future__ import annotations

import argparse

import numpy as np
from scipy import stats

from engine.products._judge_gate import MIN_GATE_LABELS
from engine.stats._ppi import ppi_means
from engine.stats._ppi_ipw import ppi_ipw_means

LABELS = (10, 15, 20, 25, 30, 40, 60, 100)
WEIGHTED_LABELS = (12, 20, 33, 60)  # expected labels of the weighted design
_CHUNK = 5000  # replications per array (memory: a few 5000 x 400 arrays)


def false_alarms(rng: np.random.Generator, reps: int, n: int, noise: float,
                 examples: int = 400, alpha: float = 0.05) -> tuple[float, float]:
    """(PPI++ gate, judge-only paired t) false-alarm rates at ``n`` labels for both."""
    h = 60.0 + 20.0 * rng.standard_normal((reps, 2, examples))
    j = h + np.array([5.0, -5.0])[None, :, None] + noise * rng.standard_normal(h.shape)
    d_h, d_j = h[:, 0] - h[:, 1], j[:, 0] - j[:, 1]
    keys = rng.random((reps, examples))
    lab = keys <= np.sort(keys, axis=1)[:, n - 1 : n]  # n random examples per replication
    res = ppi_means(d_j, np.where(lab, d_h, np.nan), alpha=alpha, small_sample=True)
    judge_p = stats.ttest_1samp(d_j, 0.0, axis=1).pvalue
    return float(np.mean(res.pvalue < alpha)), float(np.mean(judge_p < alpha))


def weighted_false_alarms(rng: np.random.Generator, reps: int, n: int, noise: float,
                          examples: int = 400, alpha: float = 0.05) -> tuple[float, float]:
    """(weighted PPI++ gate, share refused) at ``n`` expected labels: the same two systems,
    each example labelled (for both) with probability proportional to 0.5 + |z|, z the judge
    difference standardised (more labels where the judge sees a large difference; chances up
    to ~6x apart), scaled to ``n`` expected labels; the gate's test is
    :func:`engine.stats._ppi_ipw.ppi_ipw_means` on the differences (the board's pair row,
    :func:`engine.stats._ppi_ipw.ppi_ipw_pairs`), refused below MIN_GATE_LABELS labels."""
    alarms = refused = 0
    for start in range(0, reps, _CHUNK):
        r = min(_CHUNK, reps - start)
        h = 60.0 + 20.0 * rng.standard_normal((r, 2, examples))
        j = h + np.array([5.0, -5.0])[None, :, None] + noise * rng.standard_normal(h.shape)
        d_h, d_j = h[:, 0] - h[:, 1], j[:, 0] - j[:, 1]
        z = (d_j - d_j.mean(1, keepdims=True)) / d_j.std(1, keepdims=True)
        shape = 0.5 + np.abs(z)
        pi = np.minimum(1.0, n * shape / shape.sum(1, keepdims=True))
        lab = rng.random(pi.shape) < pi
        res = ppi_ipw_means(d_j, np.where(lab, d_h, np.nan), pi, alpha=alpha,
                            small_sample=True)
        decided = lab.sum(1) >= MIN_GATE_LABELS
        alarms += int(np.sum(decided & (res.pvalue < alpha)))
        refused += int(np.sum(~decided))
    return alarms / reps, refused / reps


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--reps", type=int, default=20000)
    parser.add_argument("--seed", type=int, default=31)
    parser.add_argument("--weighted-only", action="store_true",
                        help="only the weighted scenario (labels with inclusion probabilities)")
    args = parser.parse_args()
    rng = np.random.default_rng(args.seed)
    mc = 2 * np.sqrt(0.05 * 0.95 / args.reps)
    print(f"{args.reps} replications, 2 SE = {mc:.4f}")
    print("labels  noise  ppi_gate  judge_only")
    for noise in () if args.weighted_only else (8.0, 20.0):
        for n in LABELS:
            gate, judge = false_alarms(rng, args.reps, n, noise)
            flag = "" if gate <= 0.05 + mc else "  > alpha"
            print(f"{n:6d}  {noise:5.0f}  {gate:8.4f}  {judge:10.3f}{flag}", flush=True)
    print("weighted (inclusion probabilities): expected labels  noise  ppi_gate  refused")
    for noise in (8.0, 20.0):
        for n in WEIGHTED_LABELS:
            gate, refused = weighted_false_alarms(rng, args.reps, n, noise)
            flag = "" if gate <= 0.05 + mc else "  > alpha"
            print(f"{n:6d}  {noise:5.0f}  {gate:8.4f}  {refused:7.3f}{flag}", flush=True)


if __name__ == "__main__":
    main()
