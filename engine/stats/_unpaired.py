"""Skewed unpaired scores (issue #26 item 6): when Welch's t cannot be trusted, the
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
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
from scipy import stats

__all__ = ["COCHRAN_FACTOR", "MIN_BOOTSTRAP", "BootT", "bootstrap_t", "needs_bootstrap"]

#: Cochran's rule: a mean is near normal when n > COCHRAN_FACTOR · G1².
COCHRAN_FACTOR = 25.0
#: Fewest scores a side needs for its resampling distribution to mean anything; below it
#: Welch's t stays (neither can be trusted on so few skewed scores).
MIN_BOOTSTRAP = 10
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
