"""Numeric kernels for all-pairs tests: arrays in, arrays out, no labels.

Every kernel takes a systems × examples array already *oriented* (larger is
better) and index arrays ``ia``/``ja`` naming the compared pairs, and works on
all pairs at once through matrix products or broadcasting. The public tests
in :mod:`engine._pairwise` attach labels and multiplicity corrections.

Degenerate pairs have fixed answers (documented in :mod:`engine._pairwise`):
a pair with no difference at all gets statistic 0 and p = 1; a pair whose
differences are a non-zero constant (zero variance) gets statistic ±inf and
p = 0 in the direction of the difference.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
from scipy import stats

__all__ = [
    "PairStats",
    "exact_sign_pvalues",
    "paired_t",
    "sign_flip_permutation",
    "two_proportion_z",
    "welch_t",
    "win_matrix",
]

# Variances below this fraction of the systems' own variance are rounding noise
# of the Gram-matrix identity var(a-b) = var(a) + var(b) - 2 cov(a, b).
_RELATIVE_ZERO = 1e-12
_FEW_LEVELS = 4  # up to this many distinct scores, win_matrix uses matrix products (one each)


@dataclass(frozen=True)
class PairStats:
    """Per-pair arrays returned by a kernel (one entry per compared pair)."""

    statistic: np.ndarray
    pvalue: np.ndarray
    effect_size: np.ndarray
    df: np.ndarray


def _p_from_t(t: np.ndarray, df: np.ndarray | float, alternative: str) -> np.ndarray:
    with np.errstate(invalid="ignore"):
        if alternative == "greater":
            p = stats.t.sf(t, df)
        elif alternative == "less":
            p = stats.t.cdf(t, df)
        else:
            p = 2.0 * stats.t.sf(np.abs(t), df)
    return np.asarray(np.clip(p, 0.0, 1.0), dtype=float)


def _p_from_z(z: np.ndarray, alternative: str) -> np.ndarray:
    if alternative == "greater":
        return np.asarray(stats.norm.sf(z), dtype=float)
    if alternative == "less":
        return np.asarray(stats.norm.cdf(z), dtype=float)
    return np.asarray(np.minimum(1.0, 2.0 * stats.norm.sf(np.abs(z))), dtype=float)


def _safe_ratio(num: np.ndarray, den: np.ndarray) -> np.ndarray:
    """num / den with 0/0 → 0 and x/0 → ±inf (the documented degenerate answers)."""
    with np.errstate(divide="ignore", invalid="ignore"):
        out = num / den
    out = np.where((den == 0) & (num == 0), 0.0, out)
    return np.where((den == 0) & (num != 0), np.copysign(np.inf, num), out)


def _no_difference_is_p1(p: np.ndarray, spread: np.ndarray, diff: np.ndarray) -> np.ndarray:
    """Identical scores carry no evidence for any alternative: p = 1 (not the 0.5 of t = 0)."""
    return np.where((spread == 0) & (diff == 0), 1.0, p)


def paired_t(x: np.ndarray, ia: np.ndarray, ja: np.ndarray, alternative: str) -> PairStats:
    """Paired t-test and paired Cohen's d (d_z) for every pair, from one Gram matrix.

    Notes
    -----
    With centred rows ``c_i = x_i - mean(x_i)`` and ``G = c c^T``, the variance of
    the paired differences is ``(G_ii + G_jj - 2 G_ij) / (n - 1)`` and their mean
    is ``mean_i - mean_j``; t = mean / sqrt(var / n) with n - 1 degrees of freedom.
    """
    n = x.shape[1]
    means = x.mean(axis=1)
    centred = x - means[:, None]
    gram = centred @ centred.T
    own = np.diag(gram)
    var = (own[ia] + own[ja] - 2.0 * gram[ia, ja]) / max(n - 1, 1)
    scale = (own[ia] + own[ja]) / max(n - 1, 1)
    var = np.where(var <= _RELATIVE_ZERO * scale, 0.0, var)
    mean_diff = means[ia] - means[ja]
    sd = np.sqrt(var)
    t = _safe_ratio(mean_diff, sd / np.sqrt(n))
    df = np.full(len(ia), float(n - 1))
    p = _no_difference_is_p1(_p_from_t(t, df, alternative), sd, mean_diff)
    return PairStats(t, p, _safe_ratio(mean_diff, sd), df)


def _summaries(x: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Per-system count, mean and variance (ddof=1) ignoring NaN."""
    has = ~np.isnan(x)
    n = has.sum(axis=1).astype(float)
    filled = np.where(has, x, 0.0)
    mean = filled.sum(axis=1) / np.maximum(n, 1)
    sq = (np.where(has, x - mean[:, None], 0.0) ** 2).sum(axis=1)
    var = sq / np.maximum(n - 1, 1)
    return n, mean, var


def welch_t(x: np.ndarray, ia: np.ndarray, ja: np.ndarray, alternative: str) -> PairStats:
    """Welch's unequal-variance t-test and Cohen's d (pooled SD) for every pair.

    Notes
    -----
    t = (m_a - m_b) / sqrt(v_a/n_a + v_b/n_b); Welch–Satterthwaite degrees of freedom;
    d = (m_a - m_b) / s_p with s_p² = ((n_a-1) v_a + (n_b-1) v_b) / (n_a + n_b - 2).
    """
    n, mean, var = _summaries(x)
    na, nb, va, vb = n[ia], n[ja], var[ia], var[ja]
    diff = mean[ia] - mean[ja]
    sa, sb = va / na, vb / nb
    se = np.sqrt(sa + sb)
    t = _safe_ratio(diff, se)
    with np.errstate(divide="ignore", invalid="ignore"):
        df = (sa + sb) ** 2 / (sa**2 / np.maximum(na - 1, 1) + sb**2 / np.maximum(nb - 1, 1))
    df = np.where(np.isfinite(df), df, na + nb - 2)
    pooled = np.sqrt(((na - 1) * va + (nb - 1) * vb) / np.maximum(na + nb - 2, 1))
    p = _no_difference_is_p1(_p_from_t(t, df, alternative), se, diff)
    effect = _safe_ratio(diff, pooled)
    # A side with a single score has no variance estimate: no evidence either way.
    too_small = (na < 2) | (nb < 2)
    t, p = np.where(too_small, np.nan, t), np.where(too_small, 1.0, p)
    return PairStats(t, p, np.where(too_small, np.nan, effect), df)


def two_proportion_z(x: np.ndarray, ia: np.ndarray, ja: np.ndarray, alternative: str) -> PairStats:
    """Two-proportion z-test (pooled SE, as statsmodels ``proportions_ztest``) and Cohen's h.

    Notes
    -----
    z = (p_a - p_b) / sqrt(p (1 - p) (1/n_a + 1/n_b)) with p the pooled proportion;
    h = 2 asin(sqrt p_a) - 2 asin(sqrt p_b).
    """
    n, mean, _ = _summaries(x)
    na, nb, pa, pb = n[ia], n[ja], mean[ia], mean[ja]
    pooled = (pa * na + pb * nb) / (na + nb)
    se = np.sqrt(pooled * (1 - pooled) * (1 / na + 1 / nb))
    z = _safe_ratio(pa - pb, se)
    h = 2 * np.arcsin(np.sqrt(pa)) - 2 * np.arcsin(np.sqrt(pb))
    p = _no_difference_is_p1(_p_from_z(z, alternative), se, pa - pb)
    return PairStats(z, p, h, np.full(len(ia), np.nan))


def win_matrix(x: np.ndarray, *, binary: bool | None = None) -> np.ndarray:
    """``W[i, j]`` = number of examples on which system i scores strictly higher than j.

    Binary scores use one matrix product, ``x (1 - x)^T``; scores with few distinct
    values (fractions of k samples) one product per value; other scores compare
    one row at a time on exact integer codes of the values, so memory stays
    O(S · E). ``binary`` may be passed when already known.
    """
    s, e = x.shape
    if s == 0 or e == 0:
        return np.zeros((s, s), dtype=np.int64)
    if binary is None:
        binary = bool(((x == 0.0) | (x == 1.0)).all())
    if binary:
        xf = x.astype(np.float64)
        return np.rint(xf @ (1.0 - xf).T).astype(np.int64)
    # Exact order-preserving integer codes: comparing small ints is faster than floats.
    levels, codes = np.unique(x, return_inverse=True)
    codes = codes.reshape(x.shape)
    if len(levels) <= _FEW_LEVELS:
        # W = Σ_k [x_i = v_k] · [x_j < v_k]^T: one matrix product per distinct score.
        out_f = np.zeros((s, s))
        for level in range(1, len(levels)):
            out_f += (codes == level).astype(float) @ (codes < level).astype(float).T
        return np.rint(out_f).astype(np.int64)
    codes = codes.astype(np.int16 if len(levels) < 2**15 else np.int32)
    out = np.empty((s, s), dtype=np.int64)
    for i in range(s):
        out[i] = (codes[i] > codes).sum(axis=1, dtype=np.int64)
    return out


def exact_sign_pvalues(wins_a: np.ndarray, wins_b: np.ndarray, alternative: str) -> np.ndarray:
    """Exact binomial (sign / exact McNemar) p-values for win counts, p0 = 1/2.

    Two-sided: min(1, 2 · P(X ≤ min(b, c))) with X ~ Bin(b + c, 1/2), which equals
    ``scipy.stats.binomtest(b, b + c).pvalue`` because the null is symmetric.
    No decisive pair (b + c = 0) gives p = 1.
    """
    n = wins_a + wins_b
    if alternative == "greater":
        p = stats.binom.sf(wins_a - 1, n, 0.5)
    elif alternative == "less":
        p = stats.binom.cdf(wins_a, n, 0.5)
    else:
        p = 2.0 * stats.binom.cdf(np.minimum(wins_a, wins_b), n, 0.5)
    return np.where(n == 0, 1.0, np.clip(p, 0.0, 1.0))


def sign_flip_permutation(
    diffs: np.ndarray, alternative: str, n_resamples: int, rng: np.random.Generator
) -> np.ndarray:
    """Paired permutation test of the mean difference by random sign flips, for every row.

    One matrix of sign flips is shared by all pairs, so the null distribution of
    every pair is a single product ``diffs @ signs.T``. When 2^n ≤ n_resamples
    all sign patterns are enumerated and the p-value is exact (as
    ``scipy.stats.permutation_test`` with ``permutation_type="samples"``);
    otherwise p = (1 + #{null at least as extreme}) / (n_resamples + 1).
    """
    n = diffs.shape[1]
    exact = n <= 20 and 2**n <= n_resamples
    if exact:
        patterns = (np.arange(2**n)[:, None] >> np.arange(n)[None, :]) & 1
        signs = 1.0 - 2.0 * patterns
    else:
        signs = rng.choice([-1.0, 1.0], size=(n_resamples, n))
    observed = diffs.mean(axis=1)
    pvalues = np.empty(len(diffs))
    chunk = max(1, 10_000_000 // max(len(signs), 1))
    # Ties in the null are counted as "at least as extreme" up to rounding.
    tol = 1e-12 * np.maximum(np.abs(diffs).max(axis=1, initial=0.0), 1.0)
    for start in range(0, len(diffs), chunk):
        d = diffs[start:start + chunk]
        null = d @ signs.T / n
        obs = observed[start:start + chunk, None]
        t = tol[start:start + chunk, None]
        if alternative == "greater":
            hits = (null >= obs - t).sum(axis=1)
        elif alternative == "less":
            hits = (null <= obs + t).sum(axis=1)
        else:
            hits = (np.abs(null) >= np.abs(obs) - t).sum(axis=1)
        pvalues[start:start + chunk] = hits / len(signs) if exact else (hits + 1) / (len(signs) + 1)
    return np.clip(pvalues, 0.0, 1.0)
