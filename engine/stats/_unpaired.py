"""Skewed unpaired scores: when Welch's t cannot be trusted, the
symmetric bootstrap-t test and interval.

Welch's t leans on the central limit theorem for each system's mean; with strongly
skewed scores (latency, cost, token counts, lognormal-like quality scores) and few
examples its tails are wrong exactly where a multiplicity correction looks (p around
0.001). The rule, Cochran's (1977, *Sampling Techniques*, §2.15; Boos & Hughes-Oliver
2000): the mean of a sample is close enough to normal when ``n > 25 · G1²``, G1 the
sample skewness (checked on sides of at least 10 scores; on fewer, neither Welch nor a
resampling distribution means much and Welch stays). A pair whose two samples do not both
pass gets the symmetric
bootstrap-t (Hall 1988, *Ann. Statist.* 16:927–953; Efron & Tibshirani 1993, §12.5,
§16.4): each sample recentred at its own mean and resampled on its own (the null of
equal means without assuming equal shapes), Welch's statistic recomputed, the p-value
the share of |t*| ≥ |t| and the interval ``d ± q_{1−α}(|t*|) · se`` — so the interval
excludes 0 when p < α (up to the resampling grid: the same |t*| decide both).

Where no unpaired test keeps α (the house rule: say so): when the two samples are skewed in
different ways, the difference of their means is itself skewed and even the bootstrap-t
overshoots (calibrate.py "lognormal, unequal shapes", 10 systems × 30 scores, σ 0.5–1.0:
family-wise false alarms 0.093 ± 0.033, Welch 0.103). The data's own evidence is the
estimated skewness of the difference of means (the third cumulant of mean_a − mean_b over
se³; Hall 1992, *The Bootstrap and Edgeworth Expansion*, §2.6: the leading error term of a
t statistic's tails), ``γ̂ = (k3_a / n_a² − k3_b / n_b²) / se³`` with ``k3 = G1 · s³``. A
bootstrap-t pair with ``|γ̂| ≥ SKEW_LIMIT`` whose smaller side has at most ``SKEW_MAX_N``
scores (past it the bootstrap-t held in the simulations) gets a warning starting with
``UNRELIABLE``; under it no bootstrap-t pair of at most ``SKEW_MAX_N`` scores a side is
marked significant (``engine.stats._pairwise``): a flag the test cannot back is withheld
rather than shown beside a warning that it may be false (unequal shapes: family-wise false
alarms 0.023 ± 0.017, from 0.080 withholding only the flagged pairs; calibrate.py).
Equal shapes (where the bootstrap-t held, 0.000) cannot be told from unequal ones on 10–40
scores a system (sample skewness is too noisy), so they are warned too; the limit is set
so normal scores rarely are (see calibrate.py and the Methods page for the figures).
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
from scipy import stats

__all__ = ["COCHRAN_FACTOR", "MIN_BOOTSTRAP", "SKEW_LIMIT", "SKEW_MAX_N", "UNRELIABLE", "BootT",
           "bootstrap_t", "difference_skewness", "needs_bootstrap", "skew_flagged",
           "skew_warning"]

#: Cochran's rule: a mean is near normal when n > COCHRAN_FACTOR · G1².
COCHRAN_FACTOR = 25.0
#: Fewest scores a side needs for its resampling distribution to mean anything; below it
#: Welch's t stays (neither can be trusted on so few skewed scores).
MIN_BOOTSTRAP = 10
#: |γ̂| (skewness of the difference of means) past which a bootstrap-t pair is warned:
#: 0.25 warned 0.99 of the unequal-shapes analyses and 0.10 of normal ones on 10–40 scores
#: (0.00 on 30) in a 600-replication pilot; 0.30 warned only 0.96 of the former.
SKEW_LIMIT = 0.25
#: ... on pairs whose smaller side has at most this many scores: with unequal shapes the
#: bootstrap-t overshot at 30 and 50 a side (0.063–0.093, 0.070 ± 0.035) and held at 70
#: and 100 (0.040 ± 0.027 both; calibrate.py lognormal-unequal-*), where |γ̂| ≥ 0.25
#: still fired in 0.90–0.91 of the analyses.
SKEW_MAX_N = 60
#: How the warning starts (the command line lifts notes starting so into JSON ``warnings``).
UNRELIABLE = "No unpaired test can be trusted"
_MAX_RESAMPLES = 4999  # per pair: p-values down to 2e-4, below a 45-pair Holm threshold


def needs_bootstrap(x: np.ndarray) -> np.ndarray:
    """Per system (row, NaN = missing): True when Cochran's rule fails (n ≤ 25 · G1²) on
    at least ``MIN_BOOTSTRAP`` scores."""
    out = np.zeros(len(x), dtype=bool)
    for s, row in enumerate(x):
        v = row[~np.isnan(row)]
        if len(v) >= MIN_BOOTSTRAP and np.ptp(v) > 0:
            g1 = float(stats.skew(v, bias=False))
            out[s] = len(v) <= COCHRAN_FACTOR * g1 * g1
    return out


def difference_skewness(x: np.ndarray, ia: np.ndarray, ja: np.ndarray) -> np.ndarray:
    """Per pair (rows of ``x``, NaN = missing): |γ̂|, the estimated skewness of
    mean_a − mean_b, ``|k3_a / n_a² − k3_b / n_b²| / se³`` (NaN with fewer than 3 scores or
    no spread on both sides)."""
    n = (~np.isnan(x)).sum(axis=1).astype(float)
    k3, var = np.full(len(x), np.nan), np.full(len(x), np.nan)
    for s, row in enumerate(x):
        v = row[~np.isnan(row)]
        if len(v) >= 3:
            var[s] = v.var(ddof=1)
            k3[s] = float(stats.skew(v, bias=False)) * var[s] ** 1.5 if var[s] > 0 else 0.0
    with np.errstate(divide="ignore", invalid="ignore"):
        se = np.sqrt(var[ia] / n[ia] + var[ja] / n[ja])
        gamma: np.ndarray = np.abs(k3[ia] / n[ia] ** 2 - k3[ja] / n[ja] ** 2) / se**3
    return gamma


def skew_flagged(x: np.ndarray, ia: np.ndarray, ja: np.ndarray) -> np.ndarray:
    """Per pair (``ia``, ``ja``): |γ̂| ≥ ``SKEW_LIMIT`` and the smaller side has at most
    ``SKEW_MAX_N`` scores — where no unpaired test kept α in simulation, so such a pair is
    never marked significant (its p-value and interval are still shown)."""
    gamma = difference_skewness(x, ia, ja)
    n = (~np.isnan(x)).sum(axis=1)
    few = np.minimum(n[ia], n[ja]) <= SKEW_MAX_N
    return np.asarray((np.nan_to_num(gamma) >= SKEW_LIMIT) & few, dtype=bool)


def skew_warning(x: np.ndarray, names: list[str], ia: np.ndarray, ja: np.ndarray,
                 alpha: float) -> str | None:
    """The warning for the pairs (``ia``, ``ja``) :func:`skew_flagged` flags."""
    gamma = difference_skewness(x, ia, ja)
    flagged = np.flatnonzero(skew_flagged(x, ia, ja))
    if not flagged.size:
        return None
    worst = flagged[np.argmax(gamma[flagged])]
    return (f"{UNRELIABLE} for {len(flagged)} pair(s) on different examples (e.g. "
            f"{names[ia[worst]]} vs {names[ja[worst]]}: skewness of the difference of means "
            f"{gamma[worst]:.2f} ≥ {SKEW_LIMIT}): their scores are too skewed for their number, "
            f"and on such data no unpaired test kept α = {alpha:g} in our simulations (false "
            "alarms 0.09–0.10 where 0.05 was promised), so no skewed unpaired pair of so few "
            "scores is marked significant. "
            "Score the systems on the same examples, or collect more.")


@dataclass(frozen=True)
class BootT:
    """Per pair: Welch's statistic, the bootstrap p-value and the symmetric interval."""

    statistic: np.ndarray
    pvalue: np.ndarray
    ci_low: np.ndarray
    ci_high: np.ndarray


def _welch(a: np.ndarray, b: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Welch's t and its standard error along the last axis."""
    se = np.sqrt(a.var(axis=-1, ddof=1) / a.shape[-1] + b.var(axis=-1, ddof=1) / b.shape[-1])
    with np.errstate(divide="ignore", invalid="ignore"):
        return (a.mean(axis=-1) - b.mean(axis=-1)) / se, se


def bootstrap_t(x: np.ndarray, ia: np.ndarray, ja: np.ndarray, *, alpha: float,
                alternative: str, n_resamples: int, rng: np.random.Generator) -> BootT:
    """Symmetric bootstrap-t of mean_a − mean_b for each pair (rows of oriented ``x``, NaN
    where missing); see the module docstring. One-sided alternatives use the signed t*."""
    b = min(int(n_resamples), _MAX_RESAMPLES)
    stat, p = np.full(len(ia), np.nan), np.ones(len(ia))
    low, high = np.full(len(ia), np.nan), np.full(len(ia), np.nan)
    for k, (i, j) in enumerate(zip(ia, ja, strict=True)):
        a, c = x[i][~np.isnan(x[i])], x[j][~np.isnan(x[j])]
        if len(a) < 2 or len(c) < 2:
            continue
        t, se = _welch(a, c)
        stat[k] = t
        ra = (a - a.mean())[rng.integers(0, len(a), (b, len(a)))]
        rc = (c - c.mean())[rng.integers(0, len(c), (b, len(c)))]
        tb, _ = _welch(ra, rc)
        tb = tb[np.isfinite(tb)]
        if not np.isfinite(t) or not tb.size:
            continue
        if alternative == "greater":
            hits = (tb >= t).sum()
        elif alternative == "less":
            hits = (tb <= t).sum()
        else:
            hits = (np.abs(tb) >= abs(t)).sum()
        p[k] = (hits + 1) / (len(tb) + 1)
        q = float(np.quantile(np.abs(tb), 1 - alpha))
        d = float(a.mean() - c.mean())
        low[k], high[k] = d - q * float(se), d + q * float(se)
    return BootT(stat, p, low, high)
