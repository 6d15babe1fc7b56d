"""Pair statistics under partial overlap: every pair on the examples *that pair* shares.

When some systems lack some examples, the examples shared by *all* systems can be
far fewer than those any two systems share (one system scored on 40 of 500
examples would leave every other pair 40). Here each pair is paired on its own
shared examples, all pairs at once: with the presence mask ``M`` (1 where a
system has a score) and the scores ``X`` (0 where missing), every per-pair sum over
the shared examples is one matrix product:

* ``N = M Mᵀ`` — examples each pair shares;
* ``S = X Mᵀ`` — ``S[i, j]`` = sum of system i's scores on the examples it shares with j;
* ``Q = X² Mᵀ`` and ``G = X Xᵀ`` — sums of squares and cross-products on them.

The differences d = x_i − x_j on the shared examples then have
``Σd = S[i,j] − S[j,i]`` and ``Σd² = Q[i,j] + Q[j,i] − 2 G[i,j]``. Rows are
centred on each system's own mean first, which changes every d of a pair by the
same constant (so not its variance) and keeps the sums well conditioned.

Arrays in, arrays out, no labels: :mod:`engine.stats._pairwise` attaches them.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from . import _kernels as k

__all__ = ["MIN_PAIRED_OVERLAP", "PairOverlap", "binary_overlap", "masked_paired_t",
           "masked_wins", "overlap", "overlap_counts", "shared_moments"]

#: A pair is tested paired on its shared examples when it shares at least this many;
#: below it, the pair is tested unpaired on each system's own examples. Ten keeps the
#: paired t's degrees of freedom (≥ 9) and McNemar's discordant counts meaningful.
MIN_PAIRED_OVERLAP = 10

# Variances below this fraction of the pair's own spread are rounding noise (as in _kernels).
_RELATIVE_ZERO = 1e-12


@dataclass(frozen=True)
class PairOverlap:
    """Shared examples of every pair: counts ``n[i, j]`` and the centred per-pair sums."""

    n: np.ndarray
    sums: np.ndarray
    squares: np.ndarray
    cross: np.ndarray
    centre: np.ndarray


def overlap_counts(x: np.ndarray) -> np.ndarray:
    """``n[i, j]`` = examples systems i and j both scored (NaN = not scored)."""
    mask = (~np.isnan(x)).astype(np.float64)
    counts: np.ndarray = np.rint(mask @ mask.T).astype(np.int64)
    return counts


def overlap(x: np.ndarray, *, moments: tuple[np.ndarray, np.ndarray, np.ndarray] | None = None
            ) -> PairOverlap:
    """Per-pair sums over shared examples of a systems × examples array (NaN = missing).

    Summed over blocks of examples (:func:`engine.stats._kernels.row_moments` for the
    centres), so no step holds a full-size temporary: at 1,000 × 100,000 a
    centred copy alone would take 800 MB. ``moments``: the rows' count, mean and
    variance when the caller has them and every system has every example; a large
    Gram product (S²·E ≥ 10¹⁰) is then formed in float32 (:func:`_gram_float32`).
    """
    s, e = x.shape
    if moments is not None and s * s * e >= _FLOAT32_GRAM_WORK:
        return _gram_float32(x, moments)
    if _complete(x):  # every pair shares every example: one product (the Gram matrix) suffices
        centre = x.mean(axis=1) if e else np.zeros(s)
        squares = np.zeros(s)
        cross = np.zeros((s, s))
        for cols in k._column_blocks(s, e):
            c = x[:, cols] - centre[:, None]
            squares += (c * c).sum(axis=1)
            cross += c @ c.T
        return PairOverlap(n=np.full((s, s), e, dtype=np.int64), sums=np.zeros((s, s)),
                           squares=np.broadcast_to(squares[:, None], (s, s)), cross=cross,
                           centre=centre)
    n, sums, squares, centre = _shared_sums(x)
    cross = np.zeros((s, s))
    for cols in k._column_blocks(s, e):
        block = x[:, cols]
        c = np.where(np.isnan(block), 0.0, block - centre[:, None])
        cross += c @ c.T
    return PairOverlap(n=n, sums=sums, squares=squares, cross=cross, centre=centre)


#: From this many multiply-adds (systems² × examples) a complete matrix's Gram product is
#: formed in float32: the float64 one would cost ≥ 0.25 s CPU (2.5 s at 1,000 × 100,000,
#: the float32 one 1.7 s with the centring and conversion). Below it nothing changes.
_FLOAT32_GRAM_WORK = 1e10
#: Examples per float32 product (then summed in float64): the error bound's m.
_FLOAT32_COLUMNS = 2048
#: Pairs whose variance of differences is below 1/8 of the sum of their two variances
#: (correlation above 0.875 for equal variances) get their cross-products in float64.
_KAPPA_MAX = 8.0


def _gram_float32(x: np.ndarray, moments: tuple[np.ndarray, np.ndarray, np.ndarray]
                  ) -> PairOverlap:
    """:func:`overlap` of complete rows with the cross-products in float32, the sums of
    squares and centres from ``moments`` (float64, no pass over ``x``).

    Error bound: a float32 product of length m = 2,048 has |error| ≤ γ Σ_k |c_ik c_jk|
    ≤ γ √(G_ii G_jj), γ = (m + 2)·2⁻²⁴ ≈ 1.2·10⁻⁴ (Higham 2002, *Accuracy and Stability of
    Numerical Algorithms*, 2nd ed., §3.1, plus the rounding of c to float32), so the
    variance of a pair's differences, G_ii + G_jj − 2 G_ij, is off by at most
    2γκ of itself with κ = (G_ii + G_jj) / (G_ii + G_jj − 2 G_ij). Pairs with κ > 8 (the
    close, correlated pairs where the cancellation would show) get every cross-product of
    the systems they involve recomputed in float64, so the worst case is 2·10⁻³ relative
    (t within 10⁻³, |Δp| ≤ 5·10⁻⁴); measured on 1,000 × 100,000 synthetic scores the
    variances agree with float64 to 1.6·10⁻⁷ (rounding errors cancel, ~√m·2⁻²⁴).
    """
    s, e = x.shape
    _, centre, var = moments
    squares = var * max(e - 1, 0)
    cross = np.zeros((s, s))
    blocks = k._column_blocks(s, e, s * _FLOAT32_COLUMNS)
    width = blocks[0].stop - blocks[0].start if blocks else 0
    buffer = np.empty((s, width), dtype=np.float32)  # reused: no page faults per block
    for cols in blocks:  # a narrower last block gets its own contiguous array
        c = buffer if cols.stop - cols.start == width else np.empty((s, cols.stop - cols.start),
                                                                    dtype=np.float32)
        np.subtract(x[:, cols], centre[:, None], out=c, casting="same_kind")
        cross += c @ c.T
    total = squares[:, None] + squares[None, :]
    close = ~(_KAPPA_MAX * (total - 2.0 * cross) > total)  # NaN and 0/0 are close too
    np.fill_diagonal(close, False)
    rows = np.flatnonzero(close.any(axis=1))
    if rows.size:
        exact = np.zeros((rows.size, rows.size))
        for cols in k._column_blocks(rows.size, e):
            c = x[rows, cols] - centre[rows, None]
            exact += c @ c.T
        cross[np.ix_(rows, rows)] = exact
    return PairOverlap(n=np.full((s, s), e, dtype=np.int64), sums=np.zeros((s, s)),
                       squares=np.broadcast_to(squares[:, None], (s, s)), cross=cross,
                       centre=centre)


def binary_overlap(x: np.ndarray, wins: np.ndarray) -> PairOverlap:
    """:func:`overlap` of complete 0/1 scores from their win matrix, without a Gram product.

    With o_i ones in row i and both_ij = o_i − wins_ij examples where i and j both
    score 1, the centred sums are Σ c_i² = o_i − o_i²/n and Σ c_i c_j = both_ij −
    o_i o_j / n, so the paired t needs only the counts the win matrix already holds.
    """
    s, e = x.shape
    ones = x.sum(axis=1)
    centre = x.mean(axis=1) if e else np.zeros(s)
    size = max(e, 1)
    squares = ones - ones * ones / size
    cross = (ones[:, None] - wins) - np.outer(ones, ones) / size
    return PairOverlap(n=np.full((s, s), e, dtype=np.int64), sums=np.zeros((s, s)),
                       squares=np.broadcast_to(squares[:, None], (s, s)), cross=cross,
                       centre=centre)


def _complete(x: np.ndarray) -> bool:
    """No NaN anywhere (checked a block of rows at a time)."""
    return not any(np.isnan(x[rows]).any() for rows in k._row_blocks(*x.shape))


def _shared_sums(x: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    """n, S = X Mᵀ and Q = X² Mᵀ on rows centred at their own means, and the centres."""
    s, e = x.shape
    counts, centre, _ = k.row_moments(x)
    centre = np.where(counts > 0, centre, 0.0)
    n = np.zeros((s, s))
    sums = np.zeros((s, s))
    squares = np.zeros((s, s))
    for cols in k._column_blocks(s, e):
        block = x[:, cols]
        has = ~np.isnan(block)
        mask = has.astype(np.float64)
        c = np.where(has, block - centre[:, None], 0.0)
        n += mask @ mask.T
        sums += c @ mask.T
        squares += (c * c) @ mask.T
    return np.rint(n).astype(np.int64), sums, squares, centre


def shared_moments(x: np.ndarray, ia: np.ndarray, ja: np.ndarray, *,
                   moments: tuple[np.ndarray, np.ndarray, np.ndarray] | None = None
                   ) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    """Per pair, on the examples it shares: n, both means and both SDs (ddof 1; NaN below 2).

    Complete rows need no pair sums: every pair shares every example, so these are
    each system's own mean and SD (``moments``, :func:`engine.stats._kernels.row_moments`
    of complete rows when the caller has them: no pass over ``x``).
    """
    s, e = x.shape
    if moments is not None or _complete(x):
        _, mean, var = k.row_moments(x) if moments is None else moments
        sd = np.sqrt(var) if e > 1 else np.full(s, np.nan)
        return np.full(len(ia), float(e)), mean[ia], mean[ja], sd[ia], sd[ja]
    n_all, sums, squares, centre = _shared_sums(x)
    n = n_all[ia, ja].astype(float)
    with np.errstate(invalid="ignore", divide="ignore"):
        ma, mb = sums[ia, ja] / n, sums[ja, ia] / n
        va = np.maximum(squares[ia, ja] - n * ma**2, 0.0) / (n - 1)
        vb = np.maximum(squares[ja, ia] - n * mb**2, 0.0) / (n - 1)
    return n, ma + centre[ia], mb + centre[ja], np.sqrt(va), np.sqrt(vb)


def masked_paired_t(ov: PairOverlap, ia: np.ndarray, ja: np.ndarray, alternative: str
                    ) -> tuple[k.PairStats, np.ndarray, np.ndarray, np.ndarray]:
    """Paired t on each pair's shared examples; also the mean, SD and n of the differences.

    Returns ``(stats, mean_diff, sd_diff, n)`` with one entry per pair. A pair with
    fewer than 2 shared examples gets NaN statistics and p = 1 (no paired evidence);
    the caller tests such pairs unpaired. Degenerate answers follow :mod:`engine.stats._kernels`
    except zero-variance non-zero differences, which the caller turns into the exact
    sign-flip p-value.
    """
    n = ov.n[ia, ja].astype(float)
    # centred sums: d_c = c_i - c_j; d = d_c + (centre_i - centre_j)
    sum_dc = ov.sums[ia, ja] - ov.sums[ja, ia]
    sq_dc = ov.squares[ia, ja] + ov.squares[ja, ia] - 2.0 * ov.cross[ia, ja]
    with np.errstate(invalid="ignore", divide="ignore"):
        mean_dc = sum_dc / n
        var = (sq_dc - n * mean_dc**2) / (n - 1)
        scale = (ov.squares[ia, ja] + ov.squares[ja, ia]) / (n - 1)
    var = np.where(var <= _RELATIVE_ZERO * scale, 0.0, var)
    mean_diff = mean_dc + (ov.centre[ia] - ov.centre[ja])
    # a shared difference that is exactly constant: the centring may leave rounding noise
    mean_diff = np.where(np.abs(mean_diff) <= 1e-12 * np.maximum(np.abs(ov.centre[ia]) +
                                                                 np.abs(ov.centre[ja]), 1.0),
                         0.0, mean_diff)
    sd = np.sqrt(var)
    with np.errstate(invalid="ignore", divide="ignore"):
        t = k._safe_ratio(mean_diff, sd / np.sqrt(n))
        df = n - 1
        p = k._no_difference_is_p1(k._p_from_t(t, df, alternative), sd, mean_diff)
        effect = k._safe_ratio(mean_diff, sd)
    few = n < 2
    stats = k.PairStats(np.where(few, np.nan, t), np.where(few, 1.0, p),
                        np.where(few, np.nan, effect), np.where(few, np.nan, df))
    return stats, np.where(few, np.nan, mean_diff), np.where(few, np.nan, sd), n.astype(np.int64)


def masked_wins(x: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """``wins[i, j]`` = shared examples where i scores strictly higher than j; ``ties[i, j]``
    = shared examples where they score the same (NaN = missing, never compared)."""
    s = x.shape[0]
    has = ~np.isnan(x)
    binary = bool(np.isin(x[has], (0.0, 1.0)).all())
    if binary:
        ones = np.where(has, x, 0.0)
        zeros = np.where(has, 1.0 - x, 0.0)
        wins = np.rint(ones @ zeros.T).astype(np.int64)
        ties = np.rint(ones @ ones.T + zeros @ zeros.T).astype(np.int64)
        return wins, ties
    wins = np.empty((s, s), dtype=np.int64)
    ties = np.empty((s, s), dtype=np.int64)
    for i in range(s):  # one row of comparisons at a time: memory O(systems · examples)
        wins[i] = (x[i] > x).sum(axis=1)  # NaN compares False: only shared examples count
        ties[i] = (x[i] == x).sum(axis=1)
    return wins, ties
