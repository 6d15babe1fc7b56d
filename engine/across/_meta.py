"""Combining results across benchmarks: fixed-effect meta-analysis and standardised means.

Two chains of named steps:

* effect sizes: small-sample correction (Hedges' J) and sampling variance per
  study → inverse-variance weights → pooled effect, interval, Cochran's Q and I²;
* system means from summary statistics (Ackerman et al. 2025, §6.3): pooled SD per
  benchmark → standardised means → weighted average with an interval.

Every function works on many rows at once (rows = pairs or systems, columns =
benchmarks); NaN marks a benchmark missing from a row.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np
from scipy import stats

__all__ = [
    "EFFECT_KINDS",
    "MetaResult",
    "StandardizedMeans",
    "corrected_effect",
    "fixed_effect",
    "hedges_j",
    "standardized_means",
]

#: Effect sizes whose sampling variance is known from n alone (engine.stats._pairwise effect names).
EFFECT_KINDS = ("paired_d", "cohen_d", "cohen_h")


@dataclass(frozen=True)
class MetaResult:
    """Fixed-effect (inverse-variance) pooled effects, one per row.

    Attributes
    ----------
    effect, se, ci_low, ci_high, z, pvalue : ndarray
        Pooled effect M = Σ wᵢyᵢ / Σ wᵢ (wᵢ = 1/vᵢ), its standard error
        1/√Σwᵢ, the normal interval at 1 − alpha, Z = M/SE, two-sided p.
    q, df, i2 : ndarray
        Cochran's Q = Σ wᵢ(yᵢ − M)², df = k − 1, I² = max(0, (Q − df)/Q).
    k : ndarray of int
        Studies (benchmarks) that entered each row.
    alpha : float
    """

    effect: np.ndarray
    se: np.ndarray
    ci_low: np.ndarray
    ci_high: np.ndarray
    z: np.ndarray
    pvalue: np.ndarray
    q: np.ndarray
    df: np.ndarray
    i2: np.ndarray
    k: np.ndarray
    alpha: float


@dataclass(frozen=True)
class StandardizedMeans:
    """System scores across unpaired benchmarks (Ackerman et al. 2025, §6.3).

    ``standardized[b, j]`` is system b's mean on benchmark j divided by the
    t-test denominator ``Ŝ_j √(Σ_b 1/n_bj)`` after centring on the benchmark's
    mean of system means; ``score`` its weighted average over the benchmarks a
    system has (weights renormalised), with a normal interval ``ci_low``/``ci_high``.
    """

    score: np.ndarray
    ci_low: np.ndarray
    ci_high: np.ndarray
    standardized: np.ndarray
    pooled_sd: np.ndarray
    weights: np.ndarray
    alpha: float


def hedges_j(df: np.ndarray | float) -> np.ndarray:
    """Hedges' small-sample correction J = 1 − 3 / (4·df − 1) (Borenstein et al. 2009, eq. 4.22).

    Examples
    --------
    >>> round(float(hedges_j(118)), 6)
    0.993631
    """
    df = np.asarray(df, dtype=float)
    with np.errstate(divide="ignore", invalid="ignore"):
        return np.where(df > 1, 1.0 - 3.0 / (4.0 * df - 1.0), np.nan)


def corrected_effect(effect: np.ndarray, n: np.ndarray, kind: str | np.ndarray
                     ) -> tuple[np.ndarray, np.ndarray]:
    """Small-sample corrected effect sizes and their sampling variances.

    Parameters
    ----------
    effect : ndarray
        Effect sizes as reported by :func:`engine.pairwise_tests` (positive = system_a better).
    n : ndarray
        Examples behind each: paired n, or n_a + n_b when unpaired (taken as equal halves).
    kind : str or ndarray of str
        ``paired_d`` (d_z = mean difference / SD of differences), ``cohen_d``
        (pooled SD) or ``cohen_h`` (arcsine difference); anything else → NaN.

    Returns
    -------
    g, variance : ndarray
        ``paired_d``: g = J(n−1)·d and the variance of the noncentral t,
        v = J²·(n−1)/(n−3)·(1/n + g²) − g² (Hedges 1981; more accurate than
        1/n + d²/(2n) below ~100 examples); ``cohen_d``: g = J(n−2)·d,
        v = J²(4/n + d²/(2n)) (Borenstein eq. 4.20 with n₁ = n₂ = n/2);
        ``cohen_h``: g = h, v = 4/n (1/n₁ + 1/n₂). Non-finite effects (a constant
        non-zero difference) and unknown kinds give NaN, so they drop out of a pooling.

    Examples
    --------
    >>> g, v = corrected_effect(np.array([0.5]), np.array([50]), "paired_d")
    >>> round(float(g[0]), 4), round(float(v[0]), 5)
    (0.4923, 0.02281)
    """
    d = np.asarray(effect, dtype=float)
    n = np.asarray(n, dtype=float)
    kinds = np.broadcast_to(np.asarray(kind, dtype=object), d.shape)
    with np.errstate(divide="ignore", invalid="ignore"):
        j_paired, j_unpaired = hedges_j(n - 1), hedges_j(n - 2)
        g = np.select([kinds == "paired_d", kinds == "cohen_d", kinds == "cohen_h"],
                      [j_paired * d, j_unpaired * d, d], np.nan)
        v = np.select([kinds == "paired_d", kinds == "cohen_d", kinds == "cohen_h"],
                      [j_paired ** 2 * (n - 1) / (n - 3) * (1 / n + (j_paired * d) ** 2)
                       - (j_paired * d) ** 2,
                       j_unpaired ** 2 * (4 / n + d ** 2 / (2 * n)), 4 / n], np.nan)
    bad = ~np.isfinite(g) | ~np.isfinite(v) | (v <= 0)
    return np.where(bad, np.nan, g), np.where(bad, np.nan, v)


def fixed_effect(effect: np.ndarray | Sequence[float], variance: np.ndarray | Sequence[float],
                 *, alpha: float = 0.05) -> MetaResult:
    """Pool effect sizes by inverse-variance weights (fixed effect), one pooling per row.

    Parameters
    ----------
    effect, variance : array_like, shape (k,) or (rows, k)
        Study effects and their sampling variances; NaN in either leaves the study out.
    alpha : float, keyword-only
        Intervals at 1 − alpha.

    Returns
    -------
    MetaResult
        Arrays of shape (rows,) (or 0-d for 1-D input); rows with no study are NaN.

    Notes
    -----
    wᵢ = 1/vᵢ, M = Σwᵢyᵢ/Σwᵢ, SE = (Σwᵢ)^−½, interval M ± z₁₋α/₂·SE,
    Q = Σwᵢ(yᵢ − M)², I² = max(0, (Q − (k − 1))/Q) (0 when k = 1 or Q = 0).
    The fixed-effect model asks which effect is common to the benchmarks;
    I² says how much of the spread is beyond sampling noise.

    References
    ----------
    Borenstein, Hedges, Higgins & Rothstein (2009). Introduction to
    Meta-Analysis. Wiley, ch. 11 (fixed effect) and ch. 16 (Q, I²).
    Higgins & Thompson (2002), Stat Med 21:1539–1558.

    Examples
    --------
    >>> res = fixed_effect([0.2, 0.4], [0.01, 0.01])
    >>> round(float(res.effect), 3), round(float(res.i2), 3)
    (0.3, 0.5)
    """
    if not 0.0 < alpha < 1.0:
        raise ValueError(f"alpha: must be strictly between 0 and 1; got {alpha!r}")
    y = np.asarray(effect, dtype=float)
    v = np.asarray(variance, dtype=float)
    if y.shape != v.shape:
        raise ValueError(f"variance: must have the shape of effect {y.shape}; got {v.shape}")
    if (v[~np.isnan(v)] <= 0).any():
        raise ValueError("variance: sampling variances must be positive")
    y2, v2 = np.atleast_2d(y), np.atleast_2d(v)
    use = ~np.isnan(y2) & ~np.isnan(v2)
    w = np.where(use, 1.0 / np.where(use, v2, 1.0), 0.0)
    yz = np.where(use, y2, 0.0)
    with np.errstate(divide="ignore", invalid="ignore"):
        total = w.sum(axis=1)
        mean = np.where(total > 0, (w * yz).sum(axis=1) / total, np.nan)
        se = 1.0 / np.sqrt(total)
        q = np.where(total > 0, (w * (yz - mean[:, None]) ** 2).sum(axis=1), np.nan)
        k = use.sum(axis=1)
        df = np.maximum(k - 1, 0).astype(float)
        i2 = np.where(q > 0, np.maximum(0.0, (q - df) / q), np.where(total > 0, 0.0, np.nan))
        z = mean / se
    crit = stats.norm.isf(alpha / 2)
    pvalue = 2 * stats.norm.sf(np.abs(z))
    shape = y.shape[:-1] if y.ndim > 1 else ()
    def shaped(a: np.ndarray) -> np.ndarray:
        return np.reshape(a, shape)

    return MetaResult(effect=shaped(mean), se=shaped(se), ci_low=shaped(mean - crit * se),
                      ci_high=shaped(mean + crit * se), z=shaped(z), pvalue=shaped(pvalue),
                      q=shaped(q), df=shaped(df), i2=shaped(i2), k=shaped(k), alpha=alpha)


def standardized_means(means: np.ndarray, sds: np.ndarray, counts: np.ndarray, *,
                       weights: np.ndarray | Sequence[float] | None = None,
                       alpha: float = 0.05) -> StandardizedMeans:
    """System scores across unpaired benchmarks from per-benchmark summary statistics.

    Parameters
    ----------
    means, sds, counts : ndarray, shape (systems, benchmarks)
        Per system and benchmark: mean (oriented so larger is better), sample SD
        and number of examples; NaN (or count 0) = the system is missing there.
    weights : array_like, shape (benchmarks,), keyword-only
        Benchmark weights (non-negative; normalised to sum 1 over the benchmarks
        a system has). Default equal.
    alpha : float, keyword-only
        Intervals at 1 − alpha.

    Returns
    -------
    StandardizedMeans
        score, ci_low, ci_high per system; standardized (systems × benchmarks);
        pooled_sd per benchmark; the normalised weights.

    Notes
    -----
    Ackerman, Farchi, Raz & Toledo (2025), arXiv:2501.18243, §6.3: per
    benchmark j, the pooled SD
    ``Ŝ_j = √(Σ_b (n_bj − 1) S²_bj / (Σ_b n_bj − B_j))`` and
    ``Ṽ_bj = (V̄_bj − c_j) / (Ŝ_j √(Σ_b 1/n_bj))`` with c_j the mean of the
    system means on j (centring does not change any comparison, but makes a
    system missing a benchmark comparable with the others); the score is
    ``Σ_j w_j Ṽ_bj``. Treating c_j and the denominators as fixed, its variance
    is ``Σ_j w_j² S²_bj / (n_bj D_j²)`` and the interval is normal. A benchmark
    where the pooled SD is 0 (every score equal) carries no information and is
    left out.

    Examples
    --------
    >>> res = standardized_means(np.array([[0.6], [0.4]]), np.array([[0.5], [0.5]]),
    ...                          np.array([[100], [100]]))
    >>> np.round(res.score, 3).tolist()
    [1.414, -1.414]
    """
    m = np.asarray(means, dtype=float)
    s = np.asarray(sds, dtype=float)
    n = np.asarray(counts, dtype=float)
    if not (m.shape == s.shape == n.shape) or m.ndim != 2:
        raise ValueError(f"means, sds, counts: must be 2-D arrays of one shape; got "
                         f"{m.shape}, {s.shape}, {n.shape}")
    if not 0.0 < alpha < 1.0:
        raise ValueError(f"alpha: must be strictly between 0 and 1; got {alpha!r}")
    w = np.ones(m.shape[1]) if weights is None else np.asarray(weights, dtype=float)
    if w.shape != (m.shape[1],) or not np.isfinite(w).all() or (w < 0).any() or w.sum() <= 0:
        raise ValueError(f"weights: need {m.shape[1]} non-negative weights, not all zero; got {w!r}")
    has = ~np.isnan(m) & (n > 0)
    sd = np.where(has & (n > 1), np.nan_to_num(s), 0.0)
    with np.errstate(divide="ignore", invalid="ignore"):
        pooled = np.sqrt(((n - 1) * sd ** 2 * has).sum(axis=0)
                         / ((n * has).sum(axis=0) - has.sum(axis=0)))
        denominator = pooled * np.sqrt(np.where(has, 1.0 / n, 0.0).sum(axis=0))
        centre = np.where(has, m, 0.0).sum(axis=0) / has.sum(axis=0)
        usable = has & (denominator > 0)[None, :] & np.isfinite(denominator)[None, :]
        standardized = np.where(usable, (m - centre) / denominator, np.nan)
        wb = np.where(usable, w[None, :], 0.0)
        wb = wb / wb.sum(axis=1, keepdims=True)
        score = np.where(usable, wb * np.nan_to_num(standardized), 0.0).sum(axis=1)
        variance = np.where(usable, wb ** 2 * sd ** 2 / (n * denominator ** 2), 0.0).sum(axis=1)
    none = ~usable.any(axis=1)
    score = np.where(none, np.nan, score)
    half = stats.norm.isf(alpha / 2) * np.sqrt(np.where(none, np.nan, variance))
    return StandardizedMeans(score, score - half, score + half, standardized, pooled,
                             w / w.sum(), alpha)
