"""The statistics of :func:`engine.pairwise_tests`: every planned test on every pair at once.

Oriented scores in, per-pair arrays out: the paired tests on each pair's shared
examples (paired t from the overlap sums of :mod:`engine.stats._overlap`, exact
McNemar/sign from the win matrix, Wilcoxon and sign-flip permutation on the
differences), the unpaired tests on each system's own examples (Welch's t,
two-proportion z, permutation), the means in the metric's units, the effect size
the small/medium/large criterion applies to, and the interval of each difference.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import pandas as pd
from scipy import stats

from .._matrix import ScoreMatrix, orient
from .._options import TestOptions
from . import _kernels as k
from . import _overlap as ov
from ._pairwise_plan import Plan

__all__ = ["WIN_TESTS", "Computed", "difference_ci", "statistics"]

#: Paired tests on the win counts alone (binomial on the discordant examples).
WIN_TESTS = ("mcnemar", "mcnemar-midp", "sign")

def _wilcoxon(diffs: np.ndarray, alternative: str) -> tuple[np.ndarray, np.ndarray]:
    """scipy's Wilcoxon signed-rank test, batched over pairs; all-zero rows get p = 1.

    For n ≤ 13 with ties or zero differences scipy enumerates sign permutations
    (seconds per pair here), so those rows use its normal approximation
    (``method="approx"``); every other row uses scipy's default method.
    """
    stat = np.zeros(len(diffs))
    p = np.ones(len(diffs))
    live = (diffs != 0).any(axis=1)
    tied = np.zeros(len(diffs), dtype=bool)
    if diffs.shape[1] <= 13:
        mags = np.sort(np.abs(diffs), axis=1)
        tied = (mags == 0).any(axis=1) | (np.diff(mags, axis=1) == 0).any(axis=1)
    for rows_mask, method in ((live & ~tied, "auto"), (live & tied, "approx")):
        rows_all = np.flatnonzero(rows_mask)
        for start in range(0, len(rows_all), 2048):
            rows = rows_all[start:start + 2048]
            res = stats.wilcoxon(diffs[rows], alternative=alternative, axis=1, method=method)
            stat[rows], p[rows] = res.statistic, res.pvalue
    return stat, np.nan_to_num(p, nan=1.0)


def _unpaired_permutation(x: np.ndarray, ia: np.ndarray, ja: np.ndarray, alternative: str,
                          n_resamples: int, rng: np.random.Generator) -> np.ndarray:
    """scipy's two-sample permutation test of the mean difference, one pair at a time."""
    out = np.empty(len(ia))
    for idx, (i, j) in enumerate(zip(ia, ja, strict=True)):
        a, b = x[i][~np.isnan(x[i])], x[j][~np.isnan(x[j])]
        res = stats.permutation_test((a, b), lambda u, v, axis: u.mean(axis) - v.mean(axis),
                                     vectorized=True, n_resamples=n_resamples,
                                     alternative=alternative, rng=rng)
        out[idx] = res.pvalue
    return out


@dataclass(frozen=True)
class Computed:
    """Everything computed per pair before the multiplicity adjustment."""

    stats: k.PairStats
    n: np.ndarray
    mean_a: np.ndarray
    mean_b: np.ndarray
    sd_diff: np.ndarray
    crit_effect: np.ndarray
    crit_name: np.ndarray
    wins: np.ndarray
    ties: np.ndarray


def _own_means(matrix: ScoreMatrix) -> tuple[np.ndarray, np.ndarray]:
    """Scores per system and their mean (the matrix's moments, computed once)."""
    counts, mean, _ = matrix.moments
    return counts.astype(np.int64), mean


def _oriented_moments(matrix: ScoreMatrix) -> tuple[np.ndarray, np.ndarray, np.ndarray] | None:
    """The matrix's row moments on the oriented scale (means negated when lower is better),
    for complete numeric scores; None otherwise."""
    if matrix.pairing != "full" or matrix.binary:
        return None
    count, mean, var = matrix.moments
    return count, (mean if matrix.higher_is_better else -mean), var


def _exact_constant_difference(p: np.ndarray, mean_diff: np.ndarray, sd: np.ndarray,
                               n: np.ndarray, alternative: str) -> np.ndarray:
    """A non-zero difference with zero variance: the exact sign-flip p-value, not 0.

    Under the null every sign pattern of the n differences is equally likely; a constant
    difference is the single most extreme pattern in its direction (and its mirror the
    most extreme in the other), so p = 2^(1-n) two-sided and 2^-n one-sided
    (Fisher's exact randomisation test; it never reaches 0 for finite n).
    """
    constant = (sd == 0) & (mean_diff != 0) & (n >= 1)
    with np.errstate(over="ignore"):
        one_side = np.exp2(-n.astype(float))
    if alternative == "two-sided":
        exact = np.minimum(1.0, 2.0 * one_side)
    elif alternative == "greater":
        exact = np.where(mean_diff > 0, one_side, 1.0)
    else:
        exact = np.where(mean_diff < 0, one_side, 1.0)
    return np.where(constant, exact, p)


def _paired_stats(x: np.ndarray, ia: np.ndarray, ja: np.ndarray, full: bool, test: str,
                  alternative: str, n_resamples: int, rng: np.random.Generator,
                  wins: np.ndarray, *, binary: bool = False,
                  moments: tuple[np.ndarray, np.ndarray, np.ndarray] | None = None
                  ) -> tuple[k.PairStats, np.ndarray, np.ndarray]:
    """``test`` on every pair's shared examples of oriented scores; also mean and SD of d.

    The paired t (whose d_z serves every paired test) comes from one Gram matrix when
    every system has every example (from the win matrix itself for 0/1 scores), else
    from the per-pair sums of :mod:`engine.stats._overlap`. ``moments``: the rows' count,
    mean and variance of complete ``x`` (the Gram product then needs no pass for them).
    """
    sums = ov.binary_overlap(x, wins) if full and binary else ov.overlap(x, moments=moments)
    base, mean_d, sd_d, n = ov.masked_paired_t(sums, ia, ja, alternative)
    if test == "paired-t":
        p = _exact_constant_difference(base.pvalue, mean_d, sd_d, n, alternative)
        return k.PairStats(base.statistic, p, base.effect_size, base.df), mean_d, sd_d
    nan = np.full(len(ia), np.nan)
    wa, wb = wins[ia, ja].astype(float), wins[ja, ia].astype(float)
    if test in WIN_TESTS:
        stat = np.minimum(wa, wb)  # statsmodels' exact McNemar reports min(b, c)
        pvalues = k.midp_sign_pvalues if test == "mcnemar-midp" else k.exact_sign_pvalues
        return k.PairStats(stat, pvalues(wa, wb, alternative), base.effect_size, nan), mean_d, sd_d
    stat, p = np.zeros(len(ia)), np.ones(len(ia))
    for rows, diffs in _difference_blocks(x, ia, ja, full):
        if test == "wilcoxon":
            stat[rows], p[rows] = _wilcoxon(diffs, alternative)
        else:
            p[rows] = k.sign_flip_permutation(diffs, alternative, n_resamples, rng)
            stat[rows] = diffs.mean(axis=1)
    effect = base.effect_size if test == "wilcoxon" else nan
    return k.PairStats(stat, p, effect, nan), mean_d, sd_d


def _difference_blocks(x: np.ndarray, ia: np.ndarray, ja: np.ndarray, full: bool
                       ) -> list[tuple[np.ndarray, np.ndarray]]:
    """Paired differences as (rows, diffs) blocks: one block when every system has every
    example, else one per pair (each on the examples that pair shares)."""
    if full:
        return [(np.arange(len(ia)), x[ia] - x[ja])]
    out = []
    for row, (i, j) in enumerate(zip(ia, ja, strict=True)):
        shared = ~np.isnan(x[i]) & ~np.isnan(x[j])
        if shared.sum() >= 1:
            out.append((np.array([row]), (x[i, shared] - x[j, shared])[None, :]))
    return out


def _unpaired_stats(x: np.ndarray, ia: np.ndarray, ja: np.ndarray, test: str, alternative: str,
                    n_resamples: int, rng: np.random.Generator) -> k.PairStats:
    if test == "t":
        return k.welch_t(x, ia, ja, alternative)
    if test == "z":
        return k.two_proportion_z(x, ia, ja, alternative)
    nan = np.full(len(ia), np.nan)
    return k.PairStats(nan, _unpaired_permutation(x, ia, ja, alternative, n_resamples, rng),
                       nan, nan)


def _cohen_h(pa: np.ndarray, pb: np.ndarray) -> np.ndarray:
    """Cohen's h = 2 asin √p_a − 2 asin √p_b (Cohen 1988, ch. 6)."""
    with np.errstate(invalid="ignore"):
        return np.asarray(2 * np.arcsin(np.sqrt(np.clip(pa, 0, 1)))
                          - 2 * np.arcsin(np.sqrt(np.clip(pb, 0, 1))))


def statistics(matrix: ScoreMatrix, plan: Plan, ia: np.ndarray, ja: np.ndarray,
                opts: TestOptions) -> Computed:
    """Run the planned tests on oriented scores: paired rows on their shared examples,
    unpaired rows on each system's own examples."""
    full = matrix.pairing == "full"
    x = orient(matrix.values, higher_is_better=matrix.higher_is_better, binary=matrix.binary)
    rows = plan.paired_rows
    if full:
        wins = k.win_matrix(x, binary=matrix.binary)
        ties = matrix.n_examples - wins - wins.T
    else:
        wins, ties = ov.masked_wins(x)
    rng = opts.rng()
    sel = np.flatnonzero(rows)
    stat, p, eff, df = (np.full(len(ia), np.nan) for _ in range(4))
    sd_diff = np.full(len(ia), np.nan)
    if sel.size:
        ps, _, sd_d = _paired_stats(x, ia[sel], ja[sel], full, plan.paired_test,
                                    opts.alternative, opts.n_resamples, rng, wins,
                                    binary=matrix.binary, moments=_oriented_moments(matrix))
        stat[sel], p[sel], eff[sel], df[sel], sd_diff[sel] = (ps.statistic, ps.pvalue,
                                                              ps.effect_size, ps.df, sd_d)
    other = np.flatnonzero(~rows)
    if other.size:
        us = _unpaired_stats(x, ia[other], ja[other], plan.unpaired_test, opts.alternative,
                             opts.n_resamples, rng)
        stat[other], p[other], eff[other], df[other] = us.statistic, us.pvalue, us.effect_size, us.df
    # means in the metric's units: on the shared examples for paired pairs, own examples else
    n_sh, ma_sh, mb_sh, sa_sh, sb_sh = ov.shared_moments(
        matrix.values, ia, ja, moments=matrix.moments if full else None)
    counts, own = _own_means(matrix)
    n = np.where(rows, n_sh, counts[ia] + counts[ja]).astype(np.int64)
    mean_a, mean_b = np.where(rows, ma_sh, own[ia]), np.where(rows, mb_sh, own[ja])
    crit, crit_name = _criterion_effect(matrix, rows, mean_a, mean_b, sa_sh, sb_sh, eff)
    return Computed(k.PairStats(stat, p, eff, df), n, mean_a, mean_b, sd_diff, crit, crit_name,
                     wins, ties)


def _criterion_effect(matrix: ScoreMatrix, rows: np.ndarray, mean_a: np.ndarray,
                      mean_b: np.ndarray, sd_a: np.ndarray, sd_b: np.ndarray, eff: np.ndarray
                      ) -> tuple[np.ndarray, np.ndarray]:
    """The effect size the small/medium/large criterion applies to, on which Cohen's
    conventions are defined: Cohen's h of the two proportions for binary scores, d_av
    (mean difference over the average SD; Cumming 2012) for paired numeric scores, and
    Cohen's d with the pooled SD for unpaired numeric scores. Positive = system_a better."""
    sign = 1.0 if matrix.higher_is_better else -1.0
    if matrix.binary:
        pa = mean_a if matrix.higher_is_better else 1.0 - mean_a
        pb = mean_b if matrix.higher_is_better else 1.0 - mean_b
        return _cohen_h(pa, pb), np.full(len(rows), "cohen_h", dtype=object)
    with np.errstate(invalid="ignore", divide="ignore"):
        d_av = k._safe_ratio(sign * (mean_a - mean_b), (sd_a + sd_b) / 2.0)
    effect = np.where(rows, d_av, eff)
    names = np.where(rows, "d_av", "cohen_d").astype(object)
    return np.asarray(effect, dtype=float), names


def difference_ci(matrix: ScoreMatrix, table: pd.DataFrame, c: Computed, alpha: float,
                  ia: np.ndarray, ja: np.ndarray, *, alternative: str = "two-sided"
                  ) -> tuple[np.ndarray, np.ndarray]:
    """Interval at 1 - alpha of ``difference`` (metric units, positive = system_a better).

    Paired numeric: t interval of the mean difference; paired binary: Tango's score
    interval for paired proportions, made to agree at 0 with the McNemar test (exact or
    mid-p) reported beside it when the test is two-sided
    (:func:`engine.stats._intervals.agree_with_test`); unpaired numeric: Welch's; unpaired binary:
    Newcombe's hybrid score interval. See :mod:`engine.stats._intervals`. ``ia``/``ja``
    are the table's pairs as system positions.
    """
    from . import _intervals as iv

    rows = table["paired"].to_numpy(bool)
    n = table["n"].to_numpy(float)
    diff = table["difference"].to_numpy(float)
    own_n, own_mean, own_var = matrix.moments
    low, high = np.full(len(table), np.nan), np.full(len(table), np.nan)
    # each interval on the rows it is for: at 1,000 systems a kind is 500k pairs
    p, u = np.flatnonzero(rows), np.flatnonzero(~rows)
    ua, ub = ia[u], ja[u]
    if matrix.binary:
        wa, wb = table["wins_a"].to_numpy(float), table["wins_b"].to_numpy(float)
        low[p], high[p] = iv.paired_binary_ci(wa[p], wb[p], n[p], alpha=alpha)
        by_wins = p[np.isin(table["test"].to_numpy(object)[p], WIN_TESTS)]
        if alternative == "two-sided" and by_wins.size:
            pvalue = table["pvalue"].to_numpy(float)
            low[by_wins], high[by_wins] = iv.agree_with_test(low[by_wins], high[by_wins],
                                                             pvalue[by_wins], alpha=alpha)
        pa = own_mean if matrix.higher_is_better else 1.0 - own_mean
        low[u], high[u] = iv.newcombe_unpaired_ci(pa[ua] * own_n[ua], own_n[ua],
                                                  pa[ub] * own_n[ub], own_n[ub], alpha=alpha)
    else:
        low[p], high[p] = iv.paired_numeric_ci(diff[p], c.sd_diff[p], n[p], alpha=alpha)
        # row_moments gives 0 below 2 scores where nanvar gives NaN: Welch's interval is
        # NaN there either way (it needs 2 scores a side)
        low[u], high[u] = iv.welch_ci(diff[u], own_var[ua], own_n[ua], own_var[ub], own_n[ub],
                                      alpha=alpha)
    return low, high
