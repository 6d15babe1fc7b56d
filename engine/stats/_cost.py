"""Paired differences of cost and latency, cost per success and cost per point of score, with
intervals that keep their level on heavy-tailed data.

Cost and latency are paired by example like any metric (two systems answer the same
examples), but their per-example values are heavy-tailed: a few long answers or agent loops
carry much of the total. The quantity a team pays is the **mean** (total / examples), so
the tests here are about the mean difference, not the geometric mean: a paired t on the
logs of per-example ratios tests whether the geometric means differ, which answers another
question (a system can be cheaper on most examples and dearer in total).

- test and interval, one method: the **symmetric studentised paired bootstrap**
  (bootstrap-t) over examples. Resample examples, compute |t*| = |d̄* − d̄|/se*; the
  p-value is (1 + #{|t*| ≥ |d̄|/se}) / (1 + B) and the interval d̄ ± q·se, q the critical
  value of the same |t*| (Efron & Tibshirani 1993, *An Introduction to the Bootstrap*,
  §12.5 and §16.4; Hall 1988, "On symmetric bootstrap confidence intervals", JRSS B 50:35;
  Hall & Wilson 1991, Biometrics 47:757, on centring the resampled statistic at d̄). Its
  null is **equal means** — not exchangeable systems — and p < 1 − confidence exactly when
  the interval excludes 0 (:func:`bootstrap_t_test`): one answer, not two. The sign-flip
  permutation test used before is exact only for exchangeable systems (Fisher 1935, §21)
  and false-alarmed 0.071 (MC SE 0.008) on systems of equal means and unequal tails. The
  equal-tailed bootstrap-t was tried and dropped: on heavy-tailed differences (lognormal,
  σ = √2, 200 examples) it covered 0.90 (MC SE 0.009).
- cost per success and cost per point: total cost / successes (or / total score) = c̄/s̄,
  a ratio of means; its standard error is the **delta method** for a ratio (the linearised
  variance s²(c − R·s) / (n·s̄²); Cochran 1977, *Sampling Techniques*, §6.4) and its
  interval a symmetric bootstrap-t on log R studentised by it (:func:`ratio_of_means`). A
  point is one percentage point of a 0/1 score (cost per success / 100), else one unit.

Calibration (benchmarks/calibrate_cost.py; lognormal costs, 200 examples, no difference in
the mean, 1,000 replications, 1,999 resamples; false alarms at 0.05 and coverage of the 95%
interval, MC SE in brackets): exchangeable systems 0.030 (0.005) and 0.970 (0.005); unequal
tails (log-σ 1 and 0.5) 0.057 (0.007) and 0.943 (0.007); zeros and ties (cached answers
cost 0: 40% of a's examples, 20% of b's, 20% both) 0.060 (0.008) and 0.940 (0.008); p and
interval disagreed in 0 of 4,000 replications. The two non-exchangeable nulls sit 1 and 1.3
MC SE above 0.05 (the sign-flip test: 0.071 and 0.079; the paired t: 0.066 and 0.067): at 200
examples of so heavy a tail (a's costs LogNormal(0, √2) overall) the sample rarely holds the
few costs that carry the mean, and no resampling can see what is not there. Three
corrections were simulated on the same draws as the plain symmetric bootstrap-t (which
gave 0.064 and 0.071 there) and did not help: Hall's (1992, JRSS B 54:221)
skewness-removing transformation bootstrapped (Zhou & Dinh 2005, Biostatistics 6:187),
0.067 and 0.076; the studentised sign-flip test (Chung & Romano 2013, Ann. Statist.
41:484), 0.073 and 0.083; the double bootstrap (Beran 1988, JASA 83:687; 300 replications,
0.063 and 0.057 against 0.067 and 0.057) — so none is used. With still heavier tails
(log-σ 1.25 against 0.5) the rate is 0.075 (0.008): where a test of the mean at 200
examples ends. Coverage of the 95% ratio intervals (1,000 replications, against the
population ratio in closed form): cost per success 0.936 (0.008), cost per point of a
graded score (Beta(2, 3), correlated with the cost) 0.940 (0.008) — both 1–2 MC SE short
of 0.95; the plain delta-method interval covered 0.897 (0.010).
"""

from __future__ import annotations

from dataclasses import dataclass
from itertools import combinations

import numpy as np
import pandas as pd

from ._multitest import adjust_pvalues

__all__ = ["CostPairs", "MeanDifference", "RatioEstimate", "bootstrap_t_test", "cost_pairs",
           "cost_per_point", "cost_per_success", "paired_mean_difference", "ratio_of_means"]


@dataclass(frozen=True)
class MeanDifference:
    """Paired difference of means ``mean_a − mean_b`` over ``n`` shared examples."""

    n: int
    mean_a: float
    mean_b: float
    difference: float
    low: float
    high: float
    p_value: float
    confidence: float
    test: str = "symmetric studentised paired bootstrap test of the mean difference"
    interval: str = "symmetric studentised paired bootstrap (bootstrap-t) over examples"


@dataclass(frozen=True)
class RatioEstimate:
    """A ratio of totals (total cost / successes, or per point of score) with its interval;
    ``ratio`` and its bounds include the ratio's scale (1/100 per percentage point)."""

    n: int
    total: float
    successes: float
    ratio: float
    low: float
    high: float
    confidence: float
    interval: str = "bootstrap-t on log R, delta-method standard error"


def _paired(a: object, b: object) -> tuple[np.ndarray, np.ndarray]:
    x = np.asarray(a, dtype=float)
    y = np.asarray(b, dtype=float)
    if x.ndim != 1 or x.shape != y.shape:
        raise ValueError(f"a, b: must be 1-D arrays of one length (paired by example); "
                         f"got shapes {x.shape} and {y.shape}")
    if len(x) < 2:
        raise ValueError(f"a, b: need at least 2 shared examples; got {len(x)}")
    if not (np.isfinite(x).all() and np.isfinite(y).all()):
        raise ValueError("a, b: every value must be finite (drop or fill missing examples first)")
    return x, y


def _check_level(confidence: float, n_resamples: int) -> None:
    if not 0 < confidence < 1:
        raise ValueError(f"confidence: must be in (0, 1); got {confidence!r}")
    if n_resamples < 99:
        raise ValueError(f"n_resamples: must be at least 99; got {n_resamples!r}")


def _t_star(d: np.ndarray, n_resamples: int, rng: np.random.Generator) -> np.ndarray:
    """|t*| = |d̄* − d̄| / se* over ``n_resamples`` example resamples of ``d``."""
    n = len(d)
    mean = float(d.mean())
    t_star = np.empty(n_resamples)
    for start in range(0, n_resamples, 1024):  # in blocks: memory stays n × 1024
        m = min(1024, n_resamples - start)
        sample = d[rng.integers(0, n, size=(m, n))]
        se_star = sample.std(axis=1, ddof=1) / np.sqrt(n)
        with np.errstate(divide="ignore", invalid="ignore"):
            # a resample of equal values (se* = 0) says nothing about the spread: as far
            # out as it can be (conservative)
            t_star[start:start + m] = np.where(se_star > 0, np.abs(sample.mean(axis=1) - mean)
                                               / se_star, np.inf)
    return t_star


def _critical(t_star: np.ndarray, alpha: float) -> float:
    """The q with ``p < alpha`` ⇔ |t_obs| > q for the p-value (1 + #{|t*| ≥ |t_obs|})/(1 + B):
    p < α ⇔ #{|t*| ≥ |t_obs|} ≤ m, m the largest integer below α(1 + B) − 1, ⇔ |t_obs|
    exceeds the (m + 1)-th largest |t*|. So the interval d̄ ± q·se excludes 0 exactly when
    p < α (one answer, not two)."""
    b = len(t_star)
    # rounded: 1 − 0.95 is 0.050000000000000044 in binary, which must not move m by one
    m = int(np.ceil(round(alpha * (1 + b) - 1, 9))) - 1
    if m < 0:  # too few resamples to reach alpha
        return float("inf")
    return float(np.sort(t_star)[::-1][m])


def bootstrap_t_test(d: np.ndarray, confidence: float, n_resamples: int,
                     rng: np.random.Generator) -> tuple[float, float, float]:
    """Symmetric studentised bootstrap test and interval of ``mean(d) = 0``: (p, low, high).

    p = (1 + #{|t*| ≥ |t_obs|}) / (1 + B), t_obs = d̄/se, |t*| = |d̄* − d̄|/se* (the
    resampled statistic centred at the sample mean is the null distribution of the
    studentised mean: Hall & Wilson 1991, "Two guidelines for bootstrap hypothesis
    testing", Biometrics 47:757, guideline 1 and 2); the interval d̄ ± q·se (Hall 1988, JRSS
    B 50:35, eq. 2.3) with q from :func:`_critical`, so that p < 1 − ``confidence`` exactly
    when the interval excludes 0. A constant difference (se = 0) is its own interval:
    p = 1 when it is 0, else 1/(1 + B)."""
    mean = float(d.mean())
    se = float(d.std(ddof=1)) / np.sqrt(len(d))
    if se == 0:
        return (1.0 if mean == 0 else 1 / (1 + n_resamples)), mean, mean
    t_star = _t_star(d, n_resamples, rng)
    q = _critical(t_star, 1 - confidence)
    t_obs = abs(mean) / se
    p = (1 + int((t_star >= t_obs).sum())) / (1 + n_resamples)
    return p, mean - q * se, mean + q * se


def bootstrap_t_interval(d: np.ndarray, confidence: float, n_resamples: int,
                         rng: np.random.Generator) -> tuple[float, float]:
    """Symmetric studentised bootstrap interval of ``mean(d)``: d̄ ± q·se, q the
    ``confidence`` critical value of |t*| (Hall 1988, JRSS B 50:35, eq. 2.3;
    :func:`bootstrap_t_test`)."""
    _, low, high = bootstrap_t_test(d, confidence, n_resamples, rng)
    return low, high


def paired_mean_difference(a: object, b: object, *, confidence: float = 0.95,
                           n_resamples: int = 9999, seed: int = 0) -> MeanDifference:
    """Paired difference of the mean cost (or latency) of two systems on the same examples.

    Parameters
    ----------
    a, b : array_like
        Per-example values of the two systems, aligned by example (one value per example:
        average repeated tries first).
    confidence : float
        Level of the interval; the interval excludes 0 exactly when ``p_value < 1 −
        confidence`` (both from one bootstrap).
    n_resamples : int
        Bootstrap resamples of the examples.
    seed : int
        Seed of the resampling (the result is reproducible).

    Examples
    --------
    >>> r = paired_mean_difference([1.0, 2.0, 9.0, 1.5], [1.0, 1.0, 1.0, 1.0], n_resamples=999)
    >>> r.difference, r.mean_a
    (2.375, 3.375)
    """
    x, y = _paired(a, b)
    _check_level(confidence, n_resamples)
    d = x - y
    p, low, high = bootstrap_t_test(d, confidence, n_resamples, np.random.default_rng(seed))
    return MeanDifference(len(d), float(x.mean()), float(y.mean()), float(d.mean()),
                          low, high, p, confidence)


def _ratio_se(c: np.ndarray, s: np.ndarray, ratio: np.ndarray) -> np.ndarray:
    """Delta-method standard error of Σc/Σs (rows of resamples or one sample)."""
    n = c.shape[-1]
    resid = c - np.expand_dims(ratio, -1) * s
    out: np.ndarray = np.std(resid, axis=-1, ddof=1) / (np.sqrt(n) * s.mean(axis=-1))
    return out


def ratio_of_means(numerator: object, denominator: object, *, confidence: float = 0.95,
                   n_resamples: int = 1999, seed: int = 0, scale: float = 1.0) -> RatioEstimate:
    """R = scale · Σnumerator / Σdenominator (= scale · ratio of means) with its interval,
    examples as units.

    The interval is a symmetric bootstrap-t on log R, studentised by the delta-method
    standard error of R divided by R (Cochran 1977, §6.4): exp(log R ± q·se/R), q the
    ``confidence`` quantile of |log R* − log R| / (se*/R*) over example resamples. It stays
    positive and is skewed as a ratio of heavy-tailed totals is (the plain delta-method
    interval R ± z·se covered 0.897, MC SE 0.010, in benchmarks/calibrate_cost.py).
    ``numerator`` must be ≥ 0 and the denominator's total > 0.

    Examples
    --------
    >>> r = ratio_of_means([2.0, 2.0, 4.0, 4.0], [0.5, 0.5, 1.0, 1.0], n_resamples=199)
    >>> r.ratio
    4.0
    """
    c, s = _paired(numerator, denominator)
    _check_level(confidence, n_resamples)
    if s.sum() <= 0:
        raise ValueError(f"denominator: its total must be > 0 for a ratio; got {s.sum()!r}")
    if (c < 0).any():
        raise ValueError("cost: every value must be ≥ 0")
    if not scale > 0:
        raise ValueError(f"scale: must be > 0; got {scale!r}")
    n = len(c)
    ratio = float(c.sum() / s.sum())
    se = float(_ratio_se(c, s, np.asarray(ratio)))
    if ratio == 0 or se == 0:
        r = scale * ratio
        return RatioEstimate(n, float(c.sum()), float(s.sum()), r, r, r, confidence)
    rng = np.random.default_rng(seed)
    idx = rng.integers(0, n, size=(n_resamples, n))
    cs, ss = c[idx], s[idx]
    with np.errstate(divide="ignore", invalid="ignore"):
        rs = cs.sum(axis=1) / ss.sum(axis=1)
        t = np.abs(np.log(rs) - np.log(ratio)) / (_ratio_se(cs, ss, rs) / rs)
    t = np.where(np.isfinite(t) & (ss.sum(axis=1) > 0), t, np.inf)  # no denominator or no
    # cost in a resample: far out (conservative)
    q = float(np.quantile(t, confidence, method="higher"))
    half = q * se / ratio
    r = scale * ratio
    return RatioEstimate(n, float(c.sum()), float(s.sum()), r, r * float(np.exp(-half)),
                         r * float(np.exp(half)), confidence)


def cost_per_success(cost: object, success: object, *, confidence: float = 0.95,
                     n_resamples: int = 1999, seed: int = 0) -> RatioEstimate:
    """Total cost / number of successes with its interval (examples as units;
    :func:`ratio_of_means`).

    Examples
    --------
    >>> r = cost_per_success([2.0, 2.0, 4.0, 4.0], [1, 0, 1, 1], n_resamples=199)
    >>> r.ratio
    4.0
    """
    c, s = _paired(cost, success)
    if ((s != 0) & (s != 1)).any():
        raise ValueError("success: every value must be 0 or 1 (one success flag per example)")
    if s.sum() <= 0:
        raise ValueError("success: no example succeeded, so cost per success is undefined")
    return ratio_of_means(c, s, confidence=confidence, n_resamples=n_resamples, seed=seed)


def cost_per_point(cost: object, score: object, *, percent: bool, confidence: float = 0.95,
                   n_resamples: int = 1999, seed: int = 0) -> RatioEstimate:
    """Mean cost per point of mean score, with its interval (:func:`ratio_of_means`).

    A point is one percentage point when ``percent`` (a 0/1 score, whose mean is a share:
    cost per point = cost per success / 100), else one unit of the score. The mean score
    must be > 0 (a cost per point of a score at or below 0 has no meaning).

    Examples
    --------
    >>> cost_per_point([2.0, 2.0, 4.0, 4.0], [1, 0, 1, 1], percent=True, n_resamples=199).ratio
    0.04
    """
    c, s = _paired(cost, score)
    if s.mean() <= 0:
        raise ValueError(f"score: the mean score must be > 0 for a cost per point; got "
                         f"{s.mean()!r}")
    return ratio_of_means(c, s, confidence=confidence, n_resamples=n_resamples, seed=seed,
                          scale=0.01 if percent else 1.0)


@dataclass(frozen=True)
class CostPairs:
    """Every pair's paired mean difference of one metric on one benchmark.

    ``table`` columns: ``system_a, system_b, n, mean_a, mean_b, difference, low, high,
    p_value, p_holm`` (Holm over the pairs).
    """

    benchmark: str
    metric: str
    table: pd.DataFrame
    confidence: float


def cost_pairs(frame: pd.DataFrame, metric: str, *, benchmark: str | None = None,
               confidence: float = 0.95, n_resamples: int = 9999, seed: int = 0) -> CostPairs:
    """Paired mean differences of ``metric`` (cost, latency) for every pair of systems, on
    the examples both have (repeated tries averaged per example first)."""
    if metric not in set(frame["metric"]):
        raise ValueError(f"metric: {metric!r} is not in the data; metrics: "
                         f"{', '.join(sorted(map(str, frame['metric'].unique())))}")
    rows = frame[frame["metric"] == metric]
    benches = sorted(map(str, rows["benchmark"].unique()))
    if benchmark is None:
        if len(benches) != 1:
            raise ValueError(f"benchmark: {metric!r} is on {len(benches)} benchmarks "
                             f"({', '.join(benches)}); name one")
        benchmark = benches[0]
    rows = rows[rows["benchmark"].astype(str) == benchmark]
    if rows.empty:
        raise ValueError(f"benchmark: {benchmark!r} has no {metric!r} values")
    wide = rows.groupby(["example_id", "system"])["value"].mean().unstack("system")
    out = []
    for i, (sa, sb) in enumerate(combinations(sorted(map(str, wide.columns)), 2)):
        both = wide[[sa, sb]].dropna()
        if len(both) < 2:
            continue
        r = paired_mean_difference(both[sa], both[sb], confidence=confidence,
                                   n_resamples=n_resamples, seed=seed + i)
        out.append((sa, sb, r.n, r.mean_a, r.mean_b, r.difference, r.low, r.high, r.p_value))
    table = pd.DataFrame(out, columns=["system_a", "system_b", "n", "mean_a", "mean_b",
                                       "difference", "low", "high", "p_value"])
    table["p_holm"] = (adjust_pvalues(table["p_value"].to_numpy(float), method="holm")
                       if len(table) else [])
    return CostPairs(benchmark, metric, table, confidence)
