"""Pairwise significance tests between systems, chosen automatically and corrected for multiplicity.

Chain of named steps, as in ``scipy.stats._multicomp``:
validate options → choose pairing and test → compared pairs → statistics for
all pairs at once (:mod:`engine._kernels`) → multiplicity adjustment →
significance → tidy table.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

import numpy as np
import pandas as pd
from scipy import stats
from statsmodels.stats.multitest import multipletests

from . import _kernels as k
from ._matrix import ScoreMatrix, orient
from ._options import EFFECT_THRESHOLDS, TestOptions, resolve

__all__ = ["TABLE_COLUMNS", "PairwiseResult", "pairwise_tests"]

_PAIRED_TESTS = ("paired-t", "mcnemar", "wilcoxon", "sign", "permutation")
_UNPAIRED_TESTS = ("t", "z", "permutation")
_EFFECT_NAMES = {"t": "cohen_d", "z": "cohen_h", "paired-t": "paired_d", "mcnemar": "paired_d",
                 "wilcoxon": "paired_d", "sign": "paired_d", "permutation": "none"}
TABLE_COLUMNS = ("system_a", "system_b", "test", "statistic", "df", "pvalue", "pvalue_adj",
                 "effect_size", "effect_name", "mean_a", "mean_b", "diff", "n", "wins_a",
                 "wins_b", "significant", "a_better")


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
    """Example battles ``wins[i, j]`` on the paired examples (None when unpaired)."""

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


def _choose(matrix: ScoreMatrix, test: str, paired: bool | None) -> tuple[bool, str, str]:
    """Decide pairing and test (seed paper, Table 1) and say why."""
    if paired is None:
        why_pair = ("every system scored the same examples" if matrix.pairing == "full" else
                    f"paired on the {matrix.n_common} examples every system has"
                    if matrix.can_pair else "fewer than 2 examples are shared by all systems")
    else:
        why_pair = "pairing chosen by the user"
    paired = matrix.use_paired(paired, what="test")
    binary = matrix.binary
    if test == "auto":
        test = ("mcnemar" if binary else "paired-t") if paired else ("z" if binary else "t")
        kind = "binary (0/1)" if binary else "numeric"
        reason = f"{'paired' if paired else 'unpaired'} {kind} scores ({why_pair}) → {test}"
    else:
        allowed = _PAIRED_TESTS if paired else _UNPAIRED_TESTS
        if test not in allowed:
            raise ValueError(f"test: {test!r} needs {'unpaired' if paired else 'paired'} data "
                             f"but the comparison is {'paired' if paired else 'unpaired'}; "
                             f"choose one of {', '.join(allowed)}")
        if test in ("mcnemar", "z") and not binary:
            raise ValueError(f"test: {test!r} needs binary (0/1) scores; this metric has other "
                             "values (use 'paired-t' or 't')")
        reason = f"{test} chosen by the user ({why_pair})"
    return paired, test, reason


def _pairs(n: int, compare: str) -> tuple[np.ndarray, np.ndarray]:
    if compare == "first":
        return np.zeros(n - 1, dtype=int), np.arange(1, n)
    if compare == "successive":
        return np.arange(n - 1), np.arange(1, n)
    ia, ja = np.triu_indices(n, k=1)
    return ia, ja


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


def _statistics(x: np.ndarray, ia: np.ndarray, ja: np.ndarray, test: str, paired: bool,
                alternative: str, n_resamples: int, rng: np.random.Generator
                ) -> tuple[k.PairStats, np.ndarray]:
    """Run ``test`` on oriented scores; returns the pair statistics and the win matrix."""
    binary = bool(((x == 0.0) | (x == 1.0)).all()) if paired else False
    wins = k.win_matrix(x, binary=binary) if paired else np.zeros((len(x), len(x)), dtype=np.int64)
    if test == "t":
        return k.welch_t(x, ia, ja, alternative), wins
    if test == "z":
        return k.two_proportion_z(x, ia, ja, alternative), wins
    if test == "permutation" and not paired:
        p = _unpaired_permutation(x, ia, ja, alternative, n_resamples, rng)
        nan = np.full(len(ia), np.nan)
        return k.PairStats(nan, p, nan, nan), wins
    base = k.paired_t(x, ia, ja, alternative)  # its effect size (d_z) serves every paired test
    if test == "paired-t":
        return base, wins
    nan = np.full(len(ia), np.nan)
    wa, wb = wins[ia, ja].astype(float), wins[ja, ia].astype(float)
    if test in ("mcnemar", "sign"):
        stat = np.minimum(wa, wb)  # statsmodels' exact McNemar reports min(b, c)
        return k.PairStats(stat, k.exact_sign_pvalues(wa, wb, alternative), base.effect_size,
                           nan), wins
    diffs = x[ia] - x[ja]
    if test == "wilcoxon":
        stat, p = _wilcoxon(diffs, alternative)
        return k.PairStats(stat, p, base.effect_size, nan), wins
    p = k.sign_flip_permutation(diffs, alternative, n_resamples, rng)
    return k.PairStats(diffs.mean(axis=1), p, nan, nan), wins


def _adjust(p: np.ndarray, correction: str, alpha: float) -> np.ndarray:
    if correction == "none" or len(p) == 0:
        return np.asarray(p, dtype=float).copy()
    with np.errstate(divide="ignore", invalid="ignore"):  # p = 1 makes Šidák take log(0)
        adjusted = multipletests(p, alpha=alpha, method=correction)[1]
    return np.asarray(np.maximum(adjusted, p), dtype=float)  # guard against float round-down


def _significant(p_adj: np.ndarray, effect: np.ndarray, criterion: str, alternative: str,
                 alpha: float) -> np.ndarray:
    if criterion == "pvalue":
        return np.asarray(p_adj < alpha)
    thr = EFFECT_THRESHOLDS[criterion]
    if alternative == "greater":
        return np.asarray(effect >= thr)
    if alternative == "less":
        return np.asarray(effect <= -thr)
    return np.asarray(np.abs(effect) >= thr)


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
    is_paired, test, reason = _choose(matrix, opts.test, opts.paired)
    x = matrix.oriented(paired=is_paired)
    ia, ja = _pairs(matrix.n_systems, opts.compare)
    res, wins = _statistics(x, ia, ja, test, is_paired, opts.alternative, opts.n_resamples,
                            opts.rng())
    p_adj = _adjust(res.pvalue, opts.correction, opts.alpha)
    raw = matrix.paired_values() if is_paired else matrix.values
    table = _table(matrix, raw, x, ia, ja, test, res, p_adj, wins, is_paired)
    table["significant"] = _significant(p_adj, res.effect_size, opts.criterion,
                                        opts.alternative, opts.alpha)
    notes = _notes(matrix, is_paired)
    return PairwiseResult(table[list(TABLE_COLUMNS)], matrix.systems, matrix.benchmark,
                          matrix.metric, test, is_paired, reason, opts, notes,
                          wins if is_paired else None)


def _table(matrix: ScoreMatrix, raw: np.ndarray, x: np.ndarray, ia: np.ndarray, ja: np.ndarray,
           test: str, res: k.PairStats, p_adj: np.ndarray, wins: np.ndarray,
           paired: bool) -> pd.DataFrame:
    names = np.asarray(matrix.systems, dtype=object)
    has = ~np.isnan(raw)
    counts = has.sum(axis=1)
    means = np.where(has, raw, 0.0).sum(axis=1) / np.maximum(counts, 1)
    oriented_means = orient(means, higher_is_better=matrix.higher_is_better, binary=matrix.binary)
    n = np.full(len(ia), x.shape[1]) if paired else counts[ia] + counts[ja]
    direction = np.sign(oriented_means[ia] - oriented_means[ja])
    if test in ("mcnemar", "sign"):
        direction = np.sign(wins[ia, ja] - wins[ja, ia])
    return pd.DataFrame({
        "system_a": names[ia], "system_b": names[ja], "test": test,
        "statistic": res.statistic, "df": res.df, "pvalue": res.pvalue, "pvalue_adj": p_adj,
        "effect_size": res.effect_size, "effect_name": _EFFECT_NAMES[test],
        "mean_a": means[ia], "mean_b": means[ja], "diff": means[ia] - means[ja],
        "n": n.astype(np.int64),
        "wins_a": wins[ia, ja] if paired else np.zeros(len(ia), dtype=np.int64),
        "wins_b": wins[ja, ia] if paired else np.zeros(len(ia), dtype=np.int64),
        "a_better": direction > 0,
    })


def _notes(matrix: ScoreMatrix, paired: bool) -> tuple[str, ...]:
    notes = []
    if paired and matrix.pairing != "full":
        lost = {s: n for s, n in matrix.dropped_when_paired().items() if n}
        listed = ", ".join(f"{s}: {n}" for s, n in list(lost.items())[:10])
        notes.append(f"Paired on the {matrix.n_common} of {matrix.n_examples} examples that every "
                     f"system has; examples left out per system — {listed}"
                     + (" …" if len(lost) > 10 else ""))
    if not paired and matrix.pairing != "none":
        notes.append("Unpaired tests on data that shares examples: paired tests are usually "
                     "more powerful.")
    return tuple(notes)
