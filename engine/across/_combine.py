"""A pair's (or a system's) benchmarks combined into one weighted figure with a directional test.

The overall score of a system is a weighted sum of its benchmark scores; the overall
difference of a pair is the same weighted sum of its benchmark differences, so a pair is
"better overall" exactly when that difference — the difference of the two scores — is
shown to be above zero. Chain of named steps:

each benchmark's difference and the standard error its own test implies
(|d| / z_{p/2}, Altman & Bland 2011) → correlation of two benchmarks' differences where
they share example ids → weighted difference D = Σ a_j d_j with variance Σ a_j a_k ρ_jk
se_j se_k → Z = D / SE → p-value (two-sided, or one-sided for an order fixed in advance)
→ interval D ± z·SE.

With one benchmark, Z is that benchmark's own test statistic and the p-value is its own:
the overall leaderboard of one benchmark is that benchmark's leaderboard. A pair better on
one benchmark and worse on another by as much has D = 0 and p = 1: no overall order.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
from scipy import stats

__all__ = ["Combined", "combine_differences", "implied_se", "shared_correlation"]


@dataclass(frozen=True)
class Combined:
    """Weighted differences over benchmarks, one per row (pair), with their test.

    Attributes
    ----------
    difference, se, z, pvalue, ci_low, ci_high : ndarray, shape (rows,)
        D = Σ a_j d_j, its standard error, Z = D / SE, the p-value of ``alternative``,
        and the interval D ± z_{1−α/2}·SE (two-sided at 1 − alpha).
    tested : ndarray of int
        Benchmarks that entered each row.
    alternative : str
    alpha : float
    """

    difference: np.ndarray
    se: np.ndarray
    z: np.ndarray
    pvalue: np.ndarray
    ci_low: np.ndarray
    ci_high: np.ndarray
    tested: np.ndarray
    alternative: str
    alpha: float


def implied_se(difference: np.ndarray, pvalue: np.ndarray, fallback: np.ndarray) -> np.ndarray:
    """The standard error each benchmark's own two-sided test implies: |d| / z_{1−p/2}.

    Parameters
    ----------
    difference, pvalue, fallback : ndarray of one shape
        Differences, their two-sided p-values and a standard error to use where the
        p-value says nothing about the scale (p = 0 or 1, d = 0): the interval's
        half-width over z_{1−α/2}.

    Returns
    -------
    ndarray
        So that d / se reproduces the test's own p-value: a combination of one benchmark
        is that benchmark's test (exact McNemar included). Where d = 0 and no fallback
        exists: 0 (the benchmark adds nothing, in either direction).

    References
    ----------
    Altman & Bland (2011), "How to obtain the confidence interval from a P value",
    BMJ 343:d2090.

    Examples
    --------
    >>> round(float(implied_se(np.array([0.1]), np.array([0.05]), np.array([np.nan]))[0]), 5)
    0.05102
    """
    d = np.abs(np.asarray(difference, dtype=float))
    p = np.asarray(pvalue, dtype=float)
    with np.errstate(divide="ignore", invalid="ignore"):
        z = stats.norm.isf(p / 2)
        se = d / z
    usable = np.isfinite(se) & (se > 0) & (p > 0) & (p < 1)
    out = np.where(usable, se, np.asarray(fallback, dtype=float))
    return np.where(np.isnan(out) & (d == 0), 0.0, out)


def shared_correlation(x_j: np.ndarray, ids_j: tuple[str, ...], x_k: np.ndarray,
                       ids_k: tuple[str, ...]) -> tuple[np.ndarray, np.ndarray]:
    """Correlation of two benchmarks' means and mean differences through shared example ids.

    Parameters
    ----------
    x_j, x_k : ndarray, shape (systems, examples_j) and (systems, examples_k)
        Oriented scores of the same systems (same rows) on benchmarks j and k.
    ids_j, ids_k : tuple of str
        Their example ids.

    Returns
    -------
    systems : ndarray, shape (systems,)
        corr(mean_j, mean_k) of each system's two benchmark means.
    pairs : ndarray, shape (systems, systems)
        corr(d_j, d_k) of each pair's two mean differences (symmetric; 0 on the diagonal).

    Notes
    -----
    Over the m examples both benchmarks scored (complete in both), cov(mean_j, mean_k) =
    m·c / (n_j n_k) with c the per-example covariance; divided by the two standard errors
    this is (m / √(n_j n_k))·c / (s_j s_k). All pairs at once: the pair covariances are
    C_aa − C_ab − C_ba + C_bb of the systems' cross-covariance matrix C (one matrix
    product). No shared example (or fewer than 3): 0, the benchmarks are independent.

    Examples
    --------
    >>> rng = np.random.default_rng(0)
    >>> x = rng.normal(size=(2, 200))
    >>> ids = tuple(str(i) for i in range(200))
    >>> s, p = shared_correlation(x, ids, x + 0.1, ids)
    >>> np.round(s, 6).tolist(), round(float(p[0, 1]), 6)
    ([1.0, 1.0], 1.0)
    """
    pos_k = {e: i for i, e in enumerate(ids_k)}
    both = [(i, pos_k[e]) for i, e in enumerate(ids_j) if e in pos_k]
    n_sys = x_j.shape[0]
    zeros = np.zeros(n_sys), np.zeros((n_sys, n_sys))
    if len(both) < 3 or n_sys == 0:
        return zeros
    cj, ck = (np.array(c, dtype=np.int64) for c in zip(*both, strict=True))
    a, b = x_j[:, cj], x_k[:, ck]
    full = ~np.isnan(a).any(axis=0) & ~np.isnan(b).any(axis=0)
    m = int(full.sum())
    if m < 3:
        return zeros
    a, b = a[:, full], b[:, full]
    cross = (a - a.mean(axis=1, keepdims=True)) @ (b - b.mean(axis=1, keepdims=True)).T / (m - 1)
    v_j, v_k = _covariance(x_j), _covariance(x_k)
    scale = m / np.sqrt(x_j.shape[1] * x_k.shape[1])
    with np.errstate(divide="ignore", invalid="ignore"):
        systems = scale * np.diag(cross) / np.sqrt(np.diag(v_j) * np.diag(v_k))
        pair_cov = _pair_variance(cross)
        pairs = scale * pair_cov / np.sqrt(_pair_variance(v_j) * _pair_variance(v_k))
    systems = np.clip(np.nan_to_num(systems, nan=0.0, posinf=0.0, neginf=0.0), -1, 1)
    pairs = np.clip(np.nan_to_num(pairs, nan=0.0, posinf=0.0, neginf=0.0), -1, 1)
    np.fill_diagonal(pairs, 0.0)
    return systems, pairs


def _covariance(x: np.ndarray) -> np.ndarray:
    """Covariance matrix of the rows over the columns every row has."""
    full = x[:, ~np.isnan(x).any(axis=0)]
    if full.shape[1] < 2:
        return np.full((x.shape[0], x.shape[0]), np.nan)
    return np.atleast_2d(np.cov(full))


def _pair_variance(c: np.ndarray) -> np.ndarray:
    """(Co)variance of the differences a − b for every pair: C_aa − C_ab − C_ba + C_bb."""
    d = np.diag(c)
    return np.asarray(d[:, None] + d[None, :] - c - c.T, dtype=float)


def combine_differences(difference: np.ndarray, se: np.ndarray, weights: np.ndarray,
                        correlation: dict[tuple[int, int], np.ndarray], *,
                        alternative: str = "two-sided", alpha: float = 0.05,
                        own_pvalue: np.ndarray | None = None) -> Combined:
    """Weighted sum of each row's benchmark differences with a z test and interval.

    Parameters
    ----------
    difference, se : ndarray, shape (rows, benchmarks)
        Each benchmark's difference (positive = first system better) and standard
        error; NaN = the benchmark did not test the row (left out, weights kept).
    weights : ndarray, shape (benchmarks,)
        a_j: benchmark weight × the benchmark's scale (the score's units per metric unit).
    correlation : dict (j, k) → ndarray, shape (rows,)
        corr(d_j, d_k) for benchmarks sharing example ids (others: independent).
    alternative : {"two-sided", "greater"}, keyword-only
        "greater": H1 first system better, for an order fixed before the results.
    alpha : float, keyword-only
    own_pvalue : ndarray, shape (rows, benchmarks), optional
        Each benchmark's two-sided p-value: a row tested on one benchmark gets exactly it
        (halved toward its sign for "greater") instead of its round trip through z.

    Returns
    -------
    Combined

    Examples
    --------
    >>> res = combine_differences(np.array([[0.3, -0.3]]), np.array([[0.05, 0.05]]),
    ...                           np.array([0.5, 0.5]), {})
    >>> float(res.difference[0]), float(res.pvalue[0])
    (0.0, 1.0)
    """
    if alternative not in ("two-sided", "greater"):
        raise ValueError(f"alternative: must be 'two-sided' or 'greater'; got {alternative!r}")
    d = np.asarray(difference, dtype=float)
    s = np.asarray(se, dtype=float)
    present = ~np.isnan(d) & ~np.isnan(s)
    a = np.where(present, np.asarray(weights, dtype=float)[None, :], 0.0)
    ad, as_ = a * np.where(present, d, 0.0), a * np.where(present, s, 0.0)
    total = ad.sum(axis=1)
    variance = (as_ ** 2).sum(axis=1)
    for (j, k), rho in correlation.items():
        variance = variance + 2 * np.nan_to_num(rho) * as_[:, j] * as_[:, k]
    se_total = np.sqrt(np.maximum(variance, 0.0))
    with np.errstate(divide="ignore", invalid="ignore"):
        z = np.where(se_total > 0, total / se_total,
                     np.where(total == 0, 0.0, np.sign(total) * np.inf))
    tested = present.sum(axis=1)
    p = stats.norm.sf(z) if alternative == "greater" else 2 * stats.norm.sf(np.abs(z))
    if own_pvalue is not None:
        p = _own_where_single(p, d, np.asarray(own_pvalue, dtype=float), present, alternative)
    p = np.where(tested > 0, np.minimum(p, 1.0), np.nan)
    half = stats.norm.isf(alpha / 2) * se_total
    return Combined(total, se_total, z, p, total - half, total + half, tested, alternative,
                    alpha)


def _own_where_single(p: np.ndarray, d: np.ndarray, own: np.ndarray, present: np.ndarray,
                      alternative: str) -> np.ndarray:
    """The benchmark's own p-value for rows it alone tested (no float round trip)."""
    single = present.sum(axis=1) == 1
    if not single.any():
        return p
    j = np.argmax(present, axis=1)
    rows = np.arange(len(p))
    mine, sign = own[rows, j], np.sign(d[rows, j])
    if alternative == "greater":
        mine = np.where(sign > 0, mine / 2, 1 - mine / 2)
    return np.where(single & ~np.isnan(mine), mine, p)
