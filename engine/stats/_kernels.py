"""Numeric kernels for all-pairs tests: arrays in, arrays out, no labels.

Every kernel takes a systems × examples array already *oriented* (larger is
better) and index arrays ``ia``/``ja`` naming the compared pairs, and works on
all pairs at once through matrix products or broadcasting. The public tests
in :mod:`engine.stats._pairwise` attach labels and multiplicity corrections.

Degenerate pairs have fixed answers (documented in :mod:`engine.stats._pairwise`):
a pair with no difference at all gets statistic 0 and p = 1; a pair whose
differences are a non-zero constant (zero variance) gets statistic ±inf and
p = 0 in the direction of the difference.
"""

from __future__ import annotations

from dataclasses import dataclass
from types import SimpleNamespace

import numpy as np
from scipy import stats

from .. import _jit, _moments

__all__ = [
    "PairStats",
    "row_moments",
    "exact_sign_pvalues",
    "midp_sign_pvalues",
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
# Working memory: blocks of about this many cells (8 bytes each: 16 MB), whatever the size
# of the systems × examples matrix, so no step holds a full-size temporary.
_BLOCK_CELLS = _moments.BLOCK_CELLS
# Integer counts in float32 matrix products are exact while every partial sum stays below
# 2^24; column blocks of at most this many examples guarantee it.
_EXACT_F32_COLUMNS = 1 << 23
# Examples per block of the compiled counts: uint16 counters cannot overflow.
_UINT16_COUNTS = 65_535
# Examples per block of the comparison counts: ≤ 255 so a byte lane cannot overflow.
_BYTE_ROWS = 255


@dataclass(frozen=True)
class PairStats:
    """Per-pair arrays returned by a kernel (one entry per compared pair)."""

    statistic: np.ndarray
    pvalue: np.ndarray
    effect_size: np.ndarray
    df: np.ndarray


def _p_from_t(t: np.ndarray, df: np.ndarray | float, alternative: str) -> np.ndarray:
    """The t test's p-value of every statistic; one that cannot be computed (no degrees of
    freedom, an undefined statistic) is no evidence, p = 1, as the engine's other
    degenerate answers are (and :func:`engine.adjust_pvalues` accepts no NaN). Identical
    scores (0/0) are the callers' :func:`_no_difference_is_p1`: their t of 0 gives 0.5
    one-sided."""
    with np.errstate(invalid="ignore"):
        if alternative == "greater":
            p = stats.t.sf(t, df)
        elif alternative == "less":
            p = stats.t.cdf(t, df)
        else:
            p = 2.0 * stats.t.sf(np.abs(t), df)
    return np.asarray(np.nan_to_num(np.clip(p, 0.0, 1.0), nan=1.0), dtype=float)


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


def _column_blocks(n_rows: int, n_cols: int, cells: int | None = None) -> list[slice]:
    """Slices of columns holding at most ``cells`` (default ``_BLOCK_CELLS``, read at call
    time so that tests can shrink it) cells of ``n_rows`` rows; at least one column."""
    cells = _BLOCK_CELLS if cells is None else cells
    width = max(1, min(n_cols, cells // max(n_rows, 1)))
    return [slice(start, min(start + width, n_cols)) for start in range(0, n_cols, width)]


def _row_blocks(n_rows: int, n_cols: int, cells: int | None = None) -> list[slice]:
    """Slices of rows holding at most ``cells`` (default ``_BLOCK_CELLS``) cells each."""
    return _moments.row_blocks(n_rows, n_cols, _BLOCK_CELLS if cells is None else cells)


def paired_t(x: np.ndarray, ia: np.ndarray, ja: np.ndarray, alternative: str) -> PairStats:
    """Paired t-test and paired Cohen's d (d_z) for every pair, from one Gram matrix.

    Notes
    -----
    With centred rows ``c_i = x_i - mean(x_i)`` and ``G = c c^T``, the variance of
    the paired differences is ``(G_ii + G_jj - 2 G_ij) / (n - 1)`` and their mean
    is ``mean_i - mean_j``; t = mean / sqrt(var / n) with n - 1 degrees of freedom.
    ``G`` is summed over blocks of examples (float64), so the working memory is
    O(S² + S · block), not a centred copy of the whole matrix.
    """
    n = x.shape[1]
    means = x.mean(axis=1)
    gram = np.zeros((len(x), len(x)))
    for cols in _column_blocks(len(x), n):
        centred = x[:, cols] - means[:, None]
        gram += centred @ centred.T
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


def row_moments(x: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Per-row count, mean and variance (ddof=1) ignoring NaN: :func:`engine._moments.row_moments`
    in blocks of this module's ``_BLOCK_CELLS`` (read at call time so that tests can shrink it)."""
    return _moments.row_moments(x, cells=_BLOCK_CELLS)


_summaries = row_moments


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

    Parameters
    ----------
    x : ndarray (S, E)
        Oriented scores without NaN.
    binary : bool, keyword-only, optional
        Pass when already known (every score 0 or 1).

    Returns
    -------
    ndarray of int64 (S, S)

    Notes
    -----
    Binary scores: ``W = x (1 - x)^T = x 1ᵀ − x xᵀ`` (a symmetric product, half the
    work of a general one); scores with at most 4 distinct values:
    ``W = Σ_v [x = v] [x < v]^T``; both as float32 matrix products over blocks of
    examples, exact because every partial sum is an integer below 2^24. Other
    scores: ranks per example (no sort of all values), then for blocks of ≤ 255
    examples and each system i the comparisons ``rank_i > rank`` counted in byte
    lanes of 64-bit words (a count ≤ 255 cannot carry into the next byte).
    Working memory is O(S² + S · block) in every case.
    """
    s, e = x.shape
    if s == 0 or e == 0:
        return np.zeros((s, s), dtype=np.int64)
    if binary:
        return _level_products(x, np.array([0.0, 1.0]))
    levels = _levels(x, _FEW_LEVELS)  # binary scores are found here too: levels (0, 1)
    if levels is not None:
        return _level_products(x, levels)
    return _rank_comparisons(x)


def _levels(x: np.ndarray, at_most: int) -> np.ndarray | None:
    """The distinct values of ``x`` when there are at most ``at_most``, else None.

    Guessed from the first examples, then checked on every cell block by block,
    so the common case (many values) costs one small sort.
    """
    guess = np.unique(x[:, : min(x.shape[1], 64)])
    if len(guess) > at_most:
        return None
    for rows in _row_blocks(*x.shape):
        if not np.isin(x[rows], guess).all():
            return None
    return guess


def _level_products(x: np.ndarray, levels: np.ndarray) -> np.ndarray:
    """W = Σ_v [x = v] [x < v]^T over the distinct values v, float32 products per block.

    Two levels: [x = high] [x = low]^T = rowsum(H) − H Hᵀ, one symmetric product, or
    (large matrices, compiled kernels loaded) :func:`_two_level_popcounts`: the same counts.
    """
    s, e = x.shape
    out = np.zeros((s, s))
    blocks = _column_blocks(s, e, min(_BLOCK_CELLS, s * _EXACT_F32_COLUMNS))
    if len(levels) == 2:
        # the float32 product costs ~1.5·10⁻¹¹ s CPU per S²·E (1.5 s at 1,000 × 100,000)
        compiled = _jit.kernels_for(s * s * e * 1.5e-11)
        if compiled is not None:
            return _two_level_popcounts(x, levels[1], compiled)
        ones = np.zeros(s)
        for cols in blocks:  # exact integers in float32, summed exactly in float64
            high = (x[:, cols] == levels[1]).astype(np.float32)
            ones += high.sum(axis=1, dtype=np.float64)
            out -= high @ high.T
        out += ones[:, None]
    else:
        for cols in blocks:
            block = x[:, cols]
            for v in levels[1:]:
                out += np.rint((block == v).astype(np.float32) @ (block < v).astype(np.float32).T)
    return np.rint(out).astype(np.int64)


def _two_level_popcounts(x: np.ndarray, high: float, compiled: SimpleNamespace) -> np.ndarray:
    """W = rowsum(H) − H Hᵀ with H = [x = high], H Hᵀ by population counts of bit-packed
    rows (:func:`engine._jit._both_ones`): 12.5 MB packed at 1,000 × 100,000, packed a block
    of rows at a time (no full-size temporary)."""
    s, e = x.shape
    packed = np.zeros((s, -(-e // 64) * 8), dtype=np.uint8)  # whole 64-bit words, padding 0
    for rows in _row_blocks(s, e):
        packed[rows, : -(-e // 8)] = np.packbits(x[rows] == high, axis=1)
    both = np.zeros((s, s), dtype=np.uint64)
    compiled.both_ones(packed.view(np.uint64), both)
    upper = np.triu(both).astype(np.int64)  # j ≥ i filled; the diagonal is each row's ones
    both_all = upper + np.triu(upper, 1).T
    return np.diag(upper)[:, None] - both_all


def _dense_ranks(block: np.ndarray) -> np.ndarray:
    """Per row, 0-based dense ranks (equal values share a rank), as small integers."""
    order = np.argsort(block, axis=1)  # ties share a rank whatever their order
    ordered = np.take_along_axis(block, order, axis=1)
    steps = np.zeros(block.shape, dtype=np.int32)
    steps[:, 1:] = ordered[:, 1:] != ordered[:, :-1]
    ranks = np.empty_like(steps)
    np.put_along_axis(ranks, order, np.cumsum(steps, axis=1), axis=1)
    return ranks.astype(np.uint8 if block.shape[1] <= 256 else np.int16)


def _rank_comparisons(x: np.ndarray) -> np.ndarray:
    """W from dense ranks per example, counted by the compiled loop of :mod:`engine._jit`
    (numpy byte lanes without Numba: :func:`_rank_comparisons_numpy`, same counts).

    Each block of examples is ranked per example by the compiled bucket sort (examples ×
    systems, contiguous); ranks are int16 (uint8 up to 256 systems). On an example
    without ties only the pairs i < j are compared and W_ji = (such examples) − W_ij:
    half the comparisons.
    """
    s, e = x.shape
    # numpy's byte lanes do ~5·10⁹ comparisons a second: Numba is loaded past ~1.5·10⁹
    compiled = _jit.kernels_for(s * s * e * 2e-10)
    if compiled is None:
        return _rank_comparisons_numpy(x)
    kind = np.uint8 if s <= 256 else np.int16
    out = np.zeros((s, s), dtype=np.int64)
    upper = np.zeros((s, s), dtype=np.int64)  # counts of the tie-free examples, i < j only
    n_distinct = 0
    blocks = _column_blocks(s, e, min(_BLOCK_CELLS, s * _UINT16_COUNTS))
    # one buffer each, reused by every block: a fresh 16 MB array per block cost its page
    # faults again (0.2-0.5 s CPU of copies at 1,000 × 100,000 against 0.15-0.2 s)
    width = blocks[0].stop - blocks[0].start if blocks else 0
    block_buf, rank_buf = np.empty((width, s)), np.empty((width, s), dtype=kind)
    distinct_buf, counts = np.empty(width, dtype=np.bool_), np.empty((s, s), dtype=np.uint16)
    for cols in blocks:
        block, ranks = block_buf[: cols.stop - cols.start], rank_buf[: cols.stop - cols.start]
        distinct = distinct_buf[: len(block)]
        np.copyto(block, x[:, cols].T)  # examples × systems, contiguous
        compiled.dense_ranks(block, ranks, distinct)
        n_distinct += int(distinct.sum())
        # tie-free examples in the upper triangle only, tied ones in full (< 2^16 per block)
        for rows, into in ((distinct, upper), (~distinct, out)):
            if not rows.any():
                continue
            counts.fill(0)
            # every example of the block (the usual case): the ranks themselves, no copy
            compiled.count_greater(ranks if rows.all() else ranks[rows], into is upper, counts)
            into += counts
    upper = np.triu(upper, 1)
    return out + upper + np.tril(n_distinct - upper.T, -1)


def _rank_comparisons_numpy(x: np.ndarray) -> np.ndarray:
    """W from ranks per example: byte-lane counts of ``rank_i > rank`` over ≤ 255 examples."""
    s, e = x.shape
    padded = -(-s // 8) * 8  # a row of counts fills whole 64-bit words
    rows_per_pass = max(1, min(s, (_BLOCK_CELLS // 4) // (_BYTE_ROWS * padded)))
    hits = np.zeros((rows_per_pass, _BYTE_ROWS, padded), dtype=bool)
    out = np.zeros((s, s), dtype=np.int64)
    for start in range(0, e, _BYTE_ROWS):
        # examples × systems, contiguous: each example's systems ranked in one row
        ranks = _dense_ranks(np.ascontiguousarray(x[:, start:start + _BYTE_ROWS].T))
        m = len(ranks)
        for first in range(0, s, rows_per_pass):
            last = min(first + rows_per_pass, s)
            for i in range(first, last):
                np.greater(ranks[:, i:i + 1], ranks, out=hits[i - first, :m, :s])
            words = hits[: last - first, :m].view(np.uint64)
            counts = np.add.reduce(words, axis=1).view(np.uint8)
            out[first:last] += counts[:, :s]
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


def midp_sign_pvalues(wins_a: np.ndarray, wins_b: np.ndarray, alternative: str) -> np.ndarray:
    """Mid-p binomial (mid-p McNemar / sign) p-values for win counts, p0 = 1/2.

    The exact p-value with half the probability of the observed count:
    two-sided ``min(1, 2 · (P(X < k) + P(X = k)/2))`` with k = min(b, c) and
    X ~ Bin(b + c, 1/2); one-sided the same tail on its side. Less conservative
    than the exact test, whose size is well below alpha on few discordant
    examples (Fagerland, Lydersen & Laake 2013, BMC Med Res Methodol 13:91,
    recommend it). No decisive pair (b + c = 0) gives p = 1.
    """
    n = wins_a + wins_b
    if alternative == "greater":
        p = stats.binom.sf(wins_a, n, 0.5) + 0.5 * stats.binom.pmf(wins_a, n, 0.5)
    elif alternative == "less":
        p = stats.binom.cdf(wins_a - 1, n, 0.5) + 0.5 * stats.binom.pmf(wins_a, n, 0.5)
    else:
        k = np.minimum(wins_a, wins_b)
        p = 2.0 * (stats.binom.cdf(k - 1, n, 0.5) + 0.5 * stats.binom.pmf(k, n, 0.5))
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
