"""Pairwise significance tests between systems, chosen automatically and corrected for multiplicity.

Chain of named steps, as in ``scipy.stats._multicomp``:
validate options → choose pairing and test → compared pairs → statistics for
all pairs at once (:mod:`engine._kernels`) → multiplicity adjustment →
significance → tidy table.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field, replace
from typing import Any

import numpy as np
import pandas as pd
from scipy import stats

from . import _kernels as k
from . import _overlap as ov
from ._contract import MetricSpec
from ._matrix import ScoreMatrix, orient
from ._multitest import adjust_pvalues
from ._options import EFFECT_THRESHOLDS, TestOptions, compared_pairs, resolve
from ._overlap import MIN_PAIRED_OVERLAP

__all__ = ["TABLE_COLUMNS", "PairwiseResult", "pairwise_tests"]

_PAIRED_TESTS = ("paired-t", "mcnemar", "wilcoxon", "sign", "permutation")
_UNPAIRED_TESTS = ("t", "z", "permutation")
_EFFECT_NAMES = {"t": "cohen_d", "z": "cohen_h", "paired-t": "paired_d", "mcnemar": "paired_d",
                 "wilcoxon": "paired_d", "sign": "paired_d", "permutation": "none",
                 "vc-t": "paired_d"}
TABLE_COLUMNS = ("system_a", "system_b", "test", "statistic", "df", "pvalue", "pvalue_adj",
                 "effect_size", "effect_name", "criterion_effect", "criterion_effect_name",
                 "mean_a", "mean_b", "diff", "difference", "ci_low", "ci_high", "n", "paired",
                 "wins_a", "wins_b", "significant", "a_better")


@dataclass(frozen=True)
class PairwiseResult:
    """Tests for every compared pair of one (benchmark, metric), with the options that made them.

    ``table`` has one row per pair with the columns of ``TABLE_COLUMNS``:
    ``statistic`` and ``df`` of the test, raw and adjusted p-values, the effect
    size (positive = ``system_a`` better, whatever the metric's direction), raw
    means, ``diff = mean_a - mean_b``, ``n`` examples used (per pair for paired
    tests, ``n_a + n_b`` otherwise), example-level wins of each side (paired
    only), ``significant`` by the chosen criterion and ``a_better``.
    """

    table: pd.DataFrame
    systems: tuple[str, ...]
    benchmark: str
    metric: str
    test: str
    paired: bool
    reason: str
    options: TestOptions
    notes: tuple[str, ...] = field(default=())
    wins: np.ndarray | None = field(default=None, repr=False)
    """Example battles: ``wins[i, j]`` = examples (that i and j share) where i scores higher."""
    ties: np.ndarray | None = field(default=None, repr=False)
    """``ties[i, j]`` = examples that i and j share where they score the same."""

    # The options that made the table, by name (read-only views of ``options``).
    @property
    def alpha(self) -> float:
        return self.options.alpha

    @property
    def correction(self) -> str:
        return self.options.correction

    @property
    def compare(self) -> str:
        return self.options.compare

    @property
    def alternative(self) -> str:
        return self.options.alternative

    @property
    def criterion(self) -> str:
        return self.options.criterion

    @property
    def n_resamples(self) -> int:
        return self.options.n_resamples

    def matrix(self, column: str = "pvalue_adj") -> pd.DataFrame:
        """A systems × systems square of ``column``; signed columns are mirrored with a minus."""
        index = {s: i for i, s in enumerate(self.systems)}
        ia = self.table["system_a"].map(index).to_numpy(int)
        ja = self.table["system_b"].map(index).to_numpy(int)
        values = self.table[column].to_numpy(float)
        flip = -1.0 if column in ("statistic", "effect_size", "diff") else 1.0
        sq = np.full((len(self.systems), len(self.systems)), np.nan)
        sq[ia, ja] = values
        sq[ja, ia] = flip * values
        return pd.DataFrame(sq, index=list(self.systems), columns=list(self.systems))

    def significant_pairs(self) -> pd.DataFrame:
        """Rows of ``table`` judged significant."""
        return self.table[self.table["significant"]]


@dataclass(frozen=True)
class _Plan:
    """Which pairs are paired, which test runs on each kind, and why (said in the output)."""

    paired_rows: np.ndarray
    paired_test: str
    unpaired_test: str
    reason: str


def _pairing(matrix: ScoreMatrix, shared: np.ndarray, paired: bool | None) -> tuple[np.ndarray, str]:
    """Per pair: paired or not. Every pair is paired on the examples *it* shares."""
    if paired is False:
        return np.zeros(len(shared), dtype=bool), "unpaired, as chosen"
    if paired is True:
        few = shared < 2
        if few.any():
            raise ValueError(f"paired: {int(few.sum())} pair(s) share fewer than 2 examples, so "
                             "a paired test is impossible for them; use paired=None (automatic) "
                             "or paired=False")
        return np.ones(len(shared), dtype=bool), "paired, as chosen"
    if matrix.pairing == "full":
        if matrix.n_examples >= 2:
            return np.ones(len(shared), dtype=bool), "every system scored the same examples"
        return np.zeros(len(shared), dtype=bool), "fewer than 2 examples"
    rows = shared >= MIN_PAIRED_OVERLAP
    if rows.all():
        return rows, "each pair paired on the examples it shares"
    if not rows.any():
        return rows, (f"no pair shares {MIN_PAIRED_OVERLAP} examples, so pairs are tested unpaired"
                      if shared.max(initial=0) >= 2 else
                      "fewer than 2 examples are shared by any pair: unpaired")
    return rows, (f"each pair paired on the examples it shares; {int((~rows).sum())} pair(s) "
                  f"sharing fewer than {MIN_PAIRED_OVERLAP} examples tested unpaired")


def _choose(matrix: ScoreMatrix, test: str, rows: np.ndarray, why: str) -> _Plan:
    """Decide the test of paired and of unpaired pairs (seed paper, Table 1) and say why."""
    binary = matrix.binary
    design = "paired" if rows.all() else "unpaired" if not rows.any() else "partly paired"
    kind = f"{design} {'binary (0/1)' if binary else 'numeric'}"
    if test == "auto":
        paired_test, unpaired_test = ("mcnemar", "z") if binary else ("paired-t", "t")
        shown = ", ".join(t for t, used in ((paired_test, rows.any()), (unpaired_test,
                                                                           (~rows).any())) if used)
        return _Plan(rows, paired_test, unpaired_test, f"{kind} scores ({why}) → {shown}")
    needs = "paired" if test in _PAIRED_TESTS and test != "permutation" else \
        "unpaired" if test in _UNPAIRED_TESTS and test != "permutation" else "either"
    if (needs == "paired" and not rows.all()) or (needs == "unpaired" and rows.any()):
        have = "paired" if rows.all() else "unpaired" if not rows.any() else "partly paired"
        allowed = _PAIRED_TESTS if rows.all() else _UNPAIRED_TESTS if not rows.any() else \
            ("permutation",)
        raise ValueError(f"test: {test!r} needs {needs} data but the comparison is {have}; "
                         f"choose one of {', '.join(allowed)} (or set paired)")
    if test in ("mcnemar", "z") and not binary:
        raise ValueError(f"test: {test!r} needs binary (0/1) scores; this metric has other "
                         "values (use 'paired-t' or 't')")
    return _Plan(rows, test, test, f"{test} chosen by the user ({why})")


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
class _Computed:
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


def _own_means(raw: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Scores per system and their mean (blocks of rows: no full-size temporary)."""
    counts, mean, _ = k.row_moments(raw)
    return counts.astype(np.int64), mean


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
                  wins: np.ndarray, *, binary: bool = False
                  ) -> tuple[k.PairStats, np.ndarray, np.ndarray]:
    """``test`` on every pair's shared examples of oriented scores; also mean and SD of d.

    The paired t (whose d_z serves every paired test) comes from one Gram matrix when
    every system has every example (from the win matrix itself for 0/1 scores), else
    from the per-pair sums of :mod:`engine._overlap`.
    """
    sums = ov.binary_overlap(x, wins) if full and binary else ov.overlap(x)
    base, mean_d, sd_d, n = ov.masked_paired_t(sums, ia, ja, alternative)
    if test == "paired-t":
        p = _exact_constant_difference(base.pvalue, mean_d, sd_d, n, alternative)
        return k.PairStats(base.statistic, p, base.effect_size, base.df), mean_d, sd_d
    nan = np.full(len(ia), np.nan)
    wa, wb = wins[ia, ja].astype(float), wins[ja, ia].astype(float)
    if test in ("mcnemar", "sign"):
        stat = np.minimum(wa, wb)  # statsmodels' exact McNemar reports min(b, c)
        return (k.PairStats(stat, k.exact_sign_pvalues(wa, wb, alternative), base.effect_size,
                            nan), mean_d, sd_d)
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


def _statistics(matrix: ScoreMatrix, plan: _Plan, ia: np.ndarray, ja: np.ndarray,
                opts: TestOptions) -> _Computed:
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
                                    binary=matrix.binary)
        stat[sel], p[sel], eff[sel], df[sel], sd_diff[sel] = (ps.statistic, ps.pvalue,
                                                              ps.effect_size, ps.df, sd_d)
    other = np.flatnonzero(~rows)
    if other.size:
        us = _unpaired_stats(x, ia[other], ja[other], plan.unpaired_test, opts.alternative,
                             opts.n_resamples, rng)
        stat[other], p[other], eff[other], df[other] = us.statistic, us.pvalue, us.effect_size, us.df
    # means in the metric's units: on the shared examples for paired pairs, own examples else
    n_sh, ma_sh, mb_sh, sa_sh, sb_sh = ov.shared_moments(matrix.values, ia, ja)
    counts, own = _own_means(matrix.values)
    n = np.where(rows, n_sh, counts[ia] + counts[ja]).astype(np.int64)
    mean_a, mean_b = np.where(rows, ma_sh, own[ia]), np.where(rows, mb_sh, own[ja])
    crit, crit_name = _criterion_effect(matrix, rows, mean_a, mean_b, sa_sh, sb_sh, eff)
    return _Computed(k.PairStats(stat, p, eff, df), n, mean_a, mean_b, sd_diff, crit, crit_name,
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


def _adjust(p: np.ndarray, correction: str, alpha: float) -> np.ndarray:
    return adjust_pvalues(p, method=correction, alpha=alpha)


def _significant(p_adj: np.ndarray, effect: np.ndarray, criterion: str, alternative: str,
                 alpha: float) -> np.ndarray:
    """Significant = adjusted p < alpha; an effect-size criterion adds a minimum |effect|
    on top (it never makes a pair significant that the test does not)."""
    by_test = np.asarray(p_adj < alpha)
    if criterion == "pvalue":
        return by_test
    thr = EFFECT_THRESHOLDS[criterion]
    with np.errstate(invalid="ignore"):
        if alternative == "greater":
            big = effect >= thr
        elif alternative == "less":
            big = effect <= -thr
        else:
            big = np.abs(effect) >= thr
    return by_test & np.asarray(big)


def _difference_ci(matrix: ScoreMatrix, table: pd.DataFrame, c: _Computed, alpha: float,
                   ia: np.ndarray, ja: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Interval at 1 - alpha of ``difference`` (metric units, positive = system_a better).

    Paired numeric: t interval of the mean difference; paired binary: Newcombe's score
    interval for paired proportions; unpaired numeric: Welch's; unpaired binary:
    Newcombe's hybrid score interval. See :mod:`engine._intervals`. ``ia``/``ja``
    are the table's pairs as system positions.
    """
    from . import _intervals as iv

    rows = table["paired"].to_numpy(bool)
    n = table["n"].to_numpy(float)
    diff = table["difference"].to_numpy(float)
    own_n, own_mean, own_var = k.row_moments(matrix.values)
    low, high = np.full(len(table), np.nan), np.full(len(table), np.nan)
    # each interval on the rows it is for: at 1,000 systems a kind is 500k pairs
    p, u = np.flatnonzero(rows), np.flatnonzero(~rows)
    ua, ub = ia[u], ja[u]
    if matrix.binary:
        wa, wb = table["wins_a"].to_numpy(float), table["wins_b"].to_numpy(float)
        low[p], high[p] = iv.paired_binary_ci(wa[p], wb[p], n[p], alpha=alpha)
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


def pairwise_tests(
    matrix: ScoreMatrix,
    options: TestOptions | None = None,
    /,
    *,
    order: Sequence[str] | None = None,
    **overrides: Any,
) -> PairwiseResult:
    """Test every compared pair of systems with the test the data calls for.

    Parameters
    ----------
    matrix : ScoreMatrix
        Scores of one benchmark and metric (direction and modality from its spec).
    options : TestOptions, optional
        Test, alternative, comparisons, correction, alpha, criterion, pairing,
        permutation resamples and seed (see :class:`engine.TestOptions`; defaults:
        automatic test, two-sided, all pairs, Holm–Šídák, alpha 0.05).
    order : sequence of str, optional
        Order of systems for ``first``/``successive`` (default: data order).
    **overrides
        Any :class:`TestOptions` field by name, applied on top of ``options``
        (``pairwise_tests(m, alpha=0.01)``); validated the same way.

    Returns
    -------
    PairwiseResult
        ``table`` with columns system_a, system_b, test, statistic, df, pvalue,
        pvalue_adj, effect_size, effect_name, mean_a, mean_b, diff, n, wins_a,
        wins_b, significant, a_better; ``options`` records what made it.

    Notes
    -----
    ``auto`` follows the seed paper's Table 1: paired numeric → paired t, paired
    binary → exact McNemar, unpaired numeric → Welch's t, unpaired binary →
    two-proportion z. All pairs are computed at once: paired t from the Gram
    matrix of centred scores, exact McNemar from discordant counts
    ``X (1 - X)^T``, Welch's t and the z-test by broadcasting per-system
    summaries. Degenerate pairs: identical paired scores (every difference 0), or
    two constant unpaired samples with the same value → statistic 0, p = 1 for
    every alternative, effect 0; a constant non-zero difference (zero variance)
    → statistic ±inf, p = 0 in its direction, effect ±inf (as scipy's
    ``ttest_rel``); no discordant example in McNemar/sign (ties only) →
    statistic 0, p = 1; Welch's t with a system scored on a single example →
    statistic NaN, p = 1; a single system → ValueError; fewer than 2 shared
    examples → unpaired tests.

    References
    ----------
    Seed paper §4 (Table 1); Fagerland, Lydersen & Laake (2013), BMC Med Res
    Methodol 13:91 (exact McNemar); Holm (1979); Šidák (1967).

    Examples
    --------
    >>> from engine import ScoreMatrix, TestOptions
    >>> m = ScoreMatrix.from_array([[1] * 30 + [0] * 10, [1] * 12 + [0] * 28],
    ...                            systems=["A", "B"])
    >>> res = pairwise_tests(m, TestOptions(alpha=0.01))
    >>> res.test, bool(res.table.loc[0, "significant"])
    ('mcnemar', True)
    """
    opts = resolve(options, overrides)
    if order is not None:
        matrix = matrix.subset(list(order))
    if matrix.n_systems < 2:
        raise ValueError(f"matrix: at least 2 systems are needed to compare; got {matrix.n_systems}")
    ia, ja = compared_pairs(matrix.n_systems, opts.compare)
    shared = (ov.overlap_counts(matrix.values)[ia, ja] if matrix.pairing != "full"
              else np.full(len(ia), matrix.n_examples))
    rows, why = _pairing(matrix, shared, opts.paired)
    plan = _choose(matrix, opts.test, rows, why)
    computed = _statistics(matrix, plan, ia, ja, opts)
    run_aware = _run_aware(matrix, opts, ia, ja) if _wants_runs(matrix, opts, rows) else None
    if run_aware is not None:
        computed = replace(computed, stats=run_aware.stats)
    p_adj = _adjust(computed.stats.pvalue, opts.correction, opts.alpha)
    table = _table(matrix, ia, ja, plan, computed, p_adj)
    table["significant"] = _significant(p_adj, computed.crit_effect, opts.criterion,
                                        opts.alternative, opts.alpha)
    low, high = _difference_ci(matrix, table, computed, opts.alpha, ia, ja)
    table["ci_low"], table["ci_high"] = low, high
    test, reason = plan.paired_test if rows.any() else plan.unpaired_test, plan.reason
    notes = _notes(matrix, rows, shared)
    if run_aware is not None:
        table["test"] = run_aware.tests
        half = stats.t.ppf(1 - opts.alpha / 2, run_aware.stats.df) * run_aware.se
        table["ci_low"], table["ci_high"] = table["difference"] - half, table["difference"] + half
        test, reason = run_aware.name, run_aware.reason
        notes += (run_aware.reason,)
    return PairwiseResult(table[list(TABLE_COLUMNS)], matrix.systems, matrix.benchmark,
                          matrix.metric, test, bool(rows.all()), reason, opts, notes,
                          computed.wins, computed.ties)


@dataclass(frozen=True)
class _RunAware:
    stats: k.PairStats
    se: np.ndarray
    tests: np.ndarray
    name: str
    reason: str


def _wants_runs(matrix: ScoreMatrix, opts: TestOptions, rows: np.ndarray) -> bool:
    """Repeated runs enter the test when they exist, the test is automatic and paired, and
    every system scored every example (the run-variance model is paired on them all)."""
    return (matrix.has_runs and opts.test == "auto" and bool(rows.all())
            and matrix.pairing == "full")


def _run_aware(matrix: ScoreMatrix, opts: TestOptions, ia: np.ndarray, ja: np.ndarray
               ) -> _RunAware:
    """Each pair's paired t on per-example means with the run-to-run variance added
    (:func:`engine._runs.runs_pairwise`): when a run is a seed that shifts a whole sweep,
    averaging runs would hide that variance and inflate false alarms."""
    from ._runs import runs_pairwise

    assert matrix.run_scores is not None  # checked by _wants_runs
    order = {s: i for i, s in enumerate(matrix.systems)}
    frame = matrix.run_scores.assign(benchmark=matrix.benchmark, metric=matrix.metric,
                                     _order=matrix.run_scores["system"].map(order))
    frame = frame.sort_values("_order", kind="stable").drop(columns="_order")
    spec = MetricSpec(higher_is_better=matrix.higher_is_better)
    rt = runs_pairwise(frame, spec=spec, options=opts).table  # same systems order and pairs
    tests = rt["test"].to_numpy(object)
    with_var = int((tests == "vc-t").sum())
    reason = ("repeated runs: each pair's paired t on per-example means, with the run-to-run "
              f"variance added where the runs differ as a whole (seed sweeps; {with_var} of "
              f"{len(tests)} pair(s)), Satterthwaite degrees of freedom")
    stats_ = k.PairStats(rt["statistic"].to_numpy(float), rt["pvalue"].to_numpy(float),
                         rt["effect_size"].to_numpy(float), rt["df"].to_numpy(float))
    if len(rt) != len(ia):
        raise RuntimeError("run-aware tests: pairs do not line up with the matrix")
    return _RunAware(stats_, rt["se"].to_numpy(float), tests,
                     "vc-t" if with_var else "paired-t", reason)


def _table(matrix: ScoreMatrix, ia: np.ndarray, ja: np.ndarray, plan: _Plan, c: _Computed,
           p_adj: np.ndarray) -> pd.DataFrame:
    names = np.asarray(matrix.systems, dtype=object)
    rows = plan.paired_rows
    tests = np.where(rows, plan.paired_test, plan.unpaired_test).astype(object)
    sign = 1.0 if matrix.higher_is_better else -1.0
    difference = sign * (c.mean_a - c.mean_b)  # in the metric's units, positive = a better
    direction = np.sign(difference)
    by_wins = np.isin(tests, ("mcnemar", "sign"))
    direction = np.where(by_wins, np.sign(c.wins[ia, ja] - c.wins[ja, ia]), direction)
    zeros = np.zeros(len(ia), dtype=np.int64)
    return pd.DataFrame({
        "system_a": names[ia], "system_b": names[ja], "test": tests,
        "statistic": c.stats.statistic, "df": c.stats.df, "pvalue": c.stats.pvalue,
        "pvalue_adj": p_adj, "effect_size": c.stats.effect_size,
        "effect_name": np.where(rows, _EFFECT_NAMES[plan.paired_test],
                                _EFFECT_NAMES[plan.unpaired_test]).astype(object),
        "criterion_effect": c.crit_effect, "criterion_effect_name": c.crit_name,
        "mean_a": c.mean_a, "mean_b": c.mean_b, "diff": c.mean_a - c.mean_b,
        "difference": difference, "n": c.n, "paired": rows,
        "wins_a": np.where(rows, c.wins[ia, ja], zeros),
        "wins_b": np.where(rows, c.wins[ja, ia], zeros),
        "a_better": direction > 0,
    })


def _notes(matrix: ScoreMatrix, rows: np.ndarray, shared: np.ndarray) -> tuple[str, ...]:
    notes = []
    if matrix.pairing == "partial" and rows.any():
        counts = (~np.isnan(matrix.values)).sum(axis=1)
        short = {s: matrix.n_examples - int(n) for s, n in zip(matrix.systems, counts, strict=True)
                 if n < matrix.n_examples}
        listed = ", ".join(f"{s}: {n}" for s, n in list(short.items())[:10])
        notes.append(f"Not every system scored every example, so each pair is paired on the "
                     f"examples it shares (n per pair: {int(shared[rows].min())}–"
                     f"{int(shared[rows].max())}); examples missing per system — {listed}"
                     + (" …" if len(short) > 10 else ""))
    if (~rows).any() and matrix.pairing == "partial" and rows.any():
        notes.append(f"{int((~rows).sum())} pair(s) share fewer than {MIN_PAIRED_OVERLAP} "
                     "examples and were tested unpaired, on each system's own examples.")
    if not rows.any() and matrix.pairing != "none":
        notes.append("Unpaired tests on data that shares examples: paired tests are usually "
                     "more powerful.")
    return tuple(notes)
