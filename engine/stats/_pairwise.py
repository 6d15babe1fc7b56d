"""Pairwise significance tests between systems, chosen automatically and corrected for multiplicity.

Chain of named steps, as in ``scipy.stats._multicomp``:
validate options → choose pairing and test (:mod:`engine.stats._pairwise_plan`) →
compared pairs → statistics for all pairs at once (:mod:`engine.stats._pairwise_stats`,
on :mod:`engine.stats._kernels`) → multiplicity adjustment → significance → tidy table
(here, with :class:`PairwiseTests` and :func:`pairwise_tests`).
"""

from __future__ import annotations

import zlib
from collections.abc import Sequence
from dataclasses import dataclass, field, replace
from typing import Any

import numpy as np
import pandas as pd
from scipy import stats

from .._matrix import ScoreMatrix
from .._notes import Note
from .._options import EFFECT_THRESHOLDS, TestOptions, compared_pairs, resolve
from . import _overlap as ov
from ._clusters import ClusterDesign, clustered_pairs
from ._multitest import adjust_pvalues
from ._overlap import MIN_PAIRED_OVERLAP
from ._pairwise_plan import Plan, choose, pairing, run_aware_tests, wants_runs
from ._pairwise_stats import WIN_TESTS, Computed, difference_ci, statistics
from ._resolution import Resolution, resolution
from ._runs import PooledRuns
from ._unpaired import SKEW_MAX_N, bootstrap_t, needs_bootstrap, skew_flagged, skew_warning

__all__ = ["TABLE_COLUMNS", "PairwiseTests", "pairwise_tests"]

_EFFECT_NAMES = {"t": "cohen_d", "z": "cohen_h", "paired-t": "paired_d", "mcnemar": "paired_d",
                 "mcnemar-midp": "paired_d", "wilcoxon": "paired_d", "sign": "paired_d",
                 "permutation": "none",
                 "vc-t": "paired_d"}
TABLE_COLUMNS = ("system_a", "system_b", "test", "statistic", "df", "pvalue", "pvalue_adj",
                 "effect_size", "effect_name", "criterion_effect", "criterion_effect_name",
                 "mean_a", "mean_b", "diff", "difference", "ci_low", "ci_high", "n", "paired",
                 "wins_a", "wins_b", "significant", "a_better")


@dataclass(frozen=True)
class PairwiseTests:
    """Tests for every compared pair of one (benchmark, metric), with the options that made them.

    ``table`` has one row per pair with the columns of ``TABLE_COLUMNS`` (each described
    in :func:`pairwise_tests`' Returns), plus ``design_effect`` when the examples are
    clustered.
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
    resolution: Resolution | None = field(default=None, repr=False)
    """Whether any pair can be significant at all (:mod:`engine.stats._resolution`)."""
    pooled_runs: PooledRuns | None = field(default=None, repr=False)
    """With repeated runs: the run (seed) variance pooled over every system with runs."""
    clusters: ClusterDesign | None = field(default=None, repr=False)
    """With a cluster column: the clusters every test and interval is robust to."""
    warnings: tuple[Note, ...] = field(default=(), repr=False)
    """The notes that are warnings, each with its kind (their sentences are in ``notes`` too)."""

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


def pairwise_tests(
    matrix: ScoreMatrix,
    options: TestOptions | None = None,
    /,
    *,
    order: Sequence[str] | None = None,
    cluster: ClusterDesign | None = None,
    **overrides: Any,
) -> PairwiseTests:
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
    cluster : ClusterDesign, optional
        The cluster of each example (:func:`engine.stats._clusters.cluster_codes`): every
        pair gets the cluster-robust paired t (CR2, Bell–McCaffrey df) on per-example
        scores, 0/1 included (McNemar assumes independent examples), with its interval and
        the design effect (column ``design_effect``). Needs every system on every example.
    **overrides
        Any :class:`TestOptions` field by name, applied on top of ``options``
        (``pairwise_tests(m, alpha=0.01)``); validated the same way.

    Returns
    -------
    PairwiseTests
        ``table``, one row per compared pair, with the 23 columns of ``TABLE_COLUMNS``:

        - ``system_a``, ``system_b`` — the pair (``a`` before ``b`` in the matrix's order);
        - ``test`` — the test this pair got (a :data:`engine.TESTS` name; ``vc-t`` with
          repeated runs, ``boot-t`` for skewed unpaired scores, ``cluster-t`` with
          ``cluster``);
        - ``statistic``, ``df`` — its statistic and degrees of freedom (NaN where the test
          has none);
        - ``pvalue``, ``pvalue_adj`` — raw, and adjusted by ``options.correction`` over
          every row;
        - ``effect_size``, ``effect_name`` — the test's effect size (positive = system_a
          better, whatever the metric's direction) and its kind (``cohen_d``,
          ``cohen_h``, ``paired_d``, or ``none`` for the permutation test);
        - ``criterion_effect``, ``criterion_effect_name`` — the effect size an effect-size
          ``criterion`` applies Cohen's thresholds to: ``cohen_h`` for 0/1 scores,
          ``d_av`` paired, ``cohen_d`` unpaired;
        - ``mean_a``, ``mean_b``, ``diff`` — the raw means on the examples the pair's test
          used and ``diff = mean_a − mean_b``;
        - ``difference`` — ``diff`` oriented so that positive = system_a better (``−diff``
          when lower is better), in the metric's units;
        - ``ci_low``, ``ci_high`` — the two-sided interval of ``difference`` at level
          1 − alpha (Tango's score interval, agreeing with McNemar; t; Welch; Newcombe;
          cluster-robust or run-aware t where those tests ran);
        - ``n`` — examples used (shared examples for a paired test, ``n_a + n_b``
          otherwise);
        - ``paired`` — whether the pair was tested paired;
        - ``wins_a``, ``wins_b`` — shared examples where each side scores higher (0 when
          unpaired);
        - ``significant`` — adjusted p < alpha, and the criterion's minimum effect when
          it is an effect-size criterion;
        - ``a_better`` — the direction (by wins for the win-count tests, else by
          ``difference``);

        and, with ``cluster``, ``design_effect`` (the cluster-robust variance of the
        difference over its independent-examples variance). ``options`` records what
        made the table; ``notes``, ``resolution``, ``pooled_runs`` and ``clusters`` what
        the pages say about it.

    Notes
    -----
    ``auto`` follows Table 1 of Ackerman et al. (2025): paired numeric → paired t, paired
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
    Ackerman, Farchi, Raz & Toledo (2025). Statistical multi-metric evaluation
    and visualization of LLM system predictive performance. arXiv:2501.18243,
    §4 (Table 1); Fagerland, Lydersen & Laake (2013), BMC Med Res
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
    rows, why = pairing(matrix, shared, opts.paired)
    plan = choose(matrix, opts.test, rows, why)
    computed = statistics(matrix, plan, ia, ja, opts)
    run_aware = run_aware_tests(matrix, opts, ia, ja) if wants_runs(matrix, opts, rows) else None
    if run_aware is not None:
        computed = replace(computed, stats=run_aware.stats)
    p_adj = _adjust(computed.stats.pvalue, opts.correction, opts.alpha)
    table = _table(matrix, ia, ja, plan, computed, p_adj)
    table["significant"] = _significant(p_adj, computed.crit_effect, opts.criterion,
                                        opts.alternative, opts.alpha)
    low, high = difference_ci(matrix, table, computed, opts.alpha, ia, ja,
                              alternative=opts.alternative)
    table["ci_low"], table["ci_high"] = low, high
    test, reason = plan.paired_test if rows.any() else plan.unpaired_test, plan.reason
    notes = _notes(matrix, rows, shared)
    if run_aware is not None:
        table["test"] = run_aware.tests
        half = stats.t.ppf(1 - opts.alpha / 2, run_aware.stats.df) * run_aware.se
        table["ci_low"], table["ci_high"] = table["difference"] - half, table["difference"] + half
        test, reason = run_aware.name, run_aware.reason
        notes += (run_aware.reason,)
    unreliable: str | None = None
    if opts.test == "auto" and plan.unpaired_test == "t" and (~rows).any():
        table, skew_note, unreliable = _skewed_unpaired(matrix, table, opts, ia, ja)
        notes += skew_note
    elif plan.unpaired_test == "t" and (~rows).any():  # Welch forced: the same warning
        forced, unreliable = _forced_welch_notes(matrix, table, opts, ia, ja)
        notes += forced
        if unreliable is not None:  # the pairs the warning is about, as in _forced_welch_notes
            x = matrix.values if matrix.higher_is_better else -matrix.values
            skewed = needs_bootstrap(x)
            table = _withheld(table, x, ia, ja, np.flatnonzero(
                ~table["paired"].to_numpy(bool) & (skewed[ia] | skewed[ja])))
    if cluster is not None:
        table, test, reason = _clustered(matrix, table, cluster, opts, ia, ja)
    res = _resolution(matrix, table, test, opts, computed)
    if not res.can_separate:
        notes = (res.message, *notes)
    columns = list(TABLE_COLUMNS) + (["design_effect"] if cluster is not None else [])
    return PairwiseTests(table[columns], matrix.systems, matrix.benchmark,
                          matrix.metric, test, bool(rows.all()), reason, opts, notes,
                          computed.wins, computed.ties, res,
                          None if run_aware is None else run_aware.pooled, cluster,
                          () if unreliable is None else (Note("unpaired-unreliable", unreliable),))


def _skewed_unpaired(matrix: ScoreMatrix, table: pd.DataFrame, opts: TestOptions,
                     ia: np.ndarray, ja: np.ndarray
                     ) -> tuple[pd.DataFrame, tuple[str, ...], str | None]:
    """Unpaired numeric pairs whose samples fail Cochran's rule get the symmetric bootstrap-t
    test and interval instead of Welch's (:mod:`engine.stats._unpaired`); the notes, and the
    skew warning among them (None without one)."""
    x = matrix.values if matrix.higher_is_better else -matrix.values
    skewed = needs_bootstrap(x)
    rows = np.flatnonzero(~table["paired"].to_numpy(bool) & (skewed[ia] | skewed[ja]))
    if not rows.size:
        return table, (), None
    names = np.asarray(matrix.systems, dtype=object)
    p, low, high = (np.empty(len(rows)) for _ in range(3))
    for k, r in enumerate(rows):
        # each pair in name order with its own seed: same pair, same answer, whatever the
        # order of the systems or of the pair
        i, j = (ia[r], ja[r]) if names[ia[r]] <= names[ja[r]] else (ja[r], ia[r])
        flip = 1.0 if i == ia[r] else -1.0
        alternative = opts.alternative if flip > 0 else \
            {"greater": "less", "less": "greater"}.get(opts.alternative, opts.alternative)
        seed = [opts.seed, *(zlib.crc32(str(names[s]).encode()) for s in (i, j))]
        boot = bootstrap_t(x, np.array([i]), np.array([j]), alpha=opts.alpha,
                           alternative=alternative, n_resamples=opts.n_resamples,
                           rng=np.random.default_rng(seed))
        p[k] = boot.pvalue[0]
        low[k], high[k] = sorted((flip * boot.ci_low[0], flip * boot.ci_high[0]))
    table = table.copy()
    for column, values in (("test", "boot-t"), ("pvalue", p), ("ci_low", low),
                           ("ci_high", high)):
        table.loc[table.index[rows], column] = values
    p_adj = _adjust(table["pvalue"].to_numpy(float), opts.correction, opts.alpha)
    table["pvalue_adj"] = p_adj
    table["significant"] = _significant(p_adj, table["criterion_effect"].to_numpy(float),
                                        opts.criterion, opts.alternative, opts.alpha)
    table = _withheld(table, x, ia, ja, rows)
    listed = ", ".join(names[skewed][:10])
    # where even the bootstrap-t does not keep alpha, say so
    warning = skew_warning(x, list(names), ia[rows], ja[rows], opts.alpha)
    return table, (f"{len(rows)} unpaired pair(s) use the symmetric bootstrap-t test and "
                   f"interval instead of Welch's: the scores of {listed} are too skewed for "
                   f"their number (Cochran's rule n > 25 G1² fails), so Welch's tails are "
                   f"unreliable there.",) + (() if warning is None else (warning,)), warning


def _withheld(table: pd.DataFrame, x: np.ndarray, ia: np.ndarray, ja: np.ndarray,
              rows: np.ndarray) -> pd.DataFrame:
    """Under the skew warning (some pair :func:`skew_flagged`), none of the skewed unpaired
    ``rows`` whose smaller side has at most ``SKEW_MAX_N`` scores is marked significant
    (their p-values and intervals stay). Not only the flagged ones: on 30 scores a system
    the estimated skewness is too noisy to tell which pairs overshoot, and withholding the
    flagged pairs alone still left 0.080 ± 0.031 family-wise false alarms with unequal
    lognormal shapes (benchmarks/calibrate.py, 300 replications)."""
    if not skew_flagged(x, ia[rows], ja[rows]).any():
        return table
    n = (~np.isnan(x)).sum(axis=1)
    off = rows[np.minimum(n[ia[rows]], n[ja[rows]]) <= SKEW_MAX_N]
    if off.size and table["significant"].to_numpy(bool)[off].any():
        table = table.copy()
        table.loc[table.index[off], "significant"] = False
    return table


def _forced_welch_notes(matrix: ScoreMatrix, table: pd.DataFrame, opts: TestOptions,
                        ia: np.ndarray, ja: np.ndarray) -> tuple[tuple[str, ...], str | None]:
    """``test="t"`` chosen by the user on unpaired pairs that fail Cochran's rule: Welch's t
    stays (it was asked for), but the pairs are named and the skew warning is given by the
    rule that gives it after the automatic bootstrap-t (Welch overshot more there: 0.103
    against 0.093 in calibrate.py's lognormal-unequal scenario)."""
    x = matrix.values if matrix.higher_is_better else -matrix.values
    skewed = needs_bootstrap(x)
    rows = np.flatnonzero(~table["paired"].to_numpy(bool) & (skewed[ia] | skewed[ja]))
    if not rows.size:
        return (), None
    names = np.asarray(matrix.systems, dtype=object)
    warning = skew_warning(x, list(names), ia[rows], ja[rows], opts.alpha)
    return (f"{len(rows)} unpaired pair(s) use Welch's t as asked (test t), though the scores "
            f"of {', '.join(names[skewed][:10])} are too skewed for their number (Cochran's "
            "rule n > 25 G1² fails): Welch's tails are unreliable there; the automatic "
            "choice would use the symmetric bootstrap-t.",) + (
        () if warning is None else (warning,)), warning


def _clustered(matrix: ScoreMatrix, table: pd.DataFrame, design: ClusterDesign,
               opts: TestOptions, ia: np.ndarray, ja: np.ndarray
               ) -> tuple[pd.DataFrame, str, str]:
    """Every pair's cluster-robust paired t (:mod:`engine.stats._clusters`), its interval
    and design effect, in place of the per-example test."""
    if matrix.pairing != "full" or len(design.codes) != matrix.n_examples:
        raise ValueError("cluster: cluster-robust tests need every system scored on every "
                         f"example; {matrix.benchmark!r} has missing scores (compare the "
                         "systems pair by pair, or without --cluster)")
    x = matrix.values if matrix.higher_is_better else -matrix.values
    cp = clustered_pairs(x, design, ia, ja, opts.alternative)
    p_adj = _adjust(cp.pvalue, opts.correction, opts.alpha)
    half = stats.t.ppf(1 - opts.alpha / 2, cp.df) * cp.se
    table = table.assign(test="cluster-t", statistic=cp.statistic, df=cp.df, pvalue=cp.pvalue,
                         pvalue_adj=p_adj, ci_low=cp.diff - half, ci_high=cp.diff + half,
                         a_better=cp.diff > 0, design_effect=cp.design_effect)
    table["significant"] = _significant(p_adj, table["criterion_effect"].to_numpy(float),
                                        opts.criterion, opts.alternative, opts.alpha)
    deff = cp.design_effect[np.isfinite(cp.design_effect)]
    shown = (f"design effect median {np.median(deff):.2f} (range {deff.min():.2f}–"
             f"{deff.max():.2f})" if deff.size else "design effect undefined")
    reason = (f"clustered examples ({design.name}: {design.n_clusters} clusters of "
              f"{int(design.sizes.min())}–{int(design.sizes.max())}) → cluster-robust paired t "
              f"(CR2, Bell–McCaffrey df {design.df:.1f}) on every pair; {shown}")
    return table, "cluster-t", reason


def _resolution(matrix: ScoreMatrix, table: pd.DataFrame, test: str, opts: TestOptions,
                computed: Computed) -> Resolution:
    """Can any pair be significant? The test's smallest p on these examples against the
    correction's first threshold."""
    paired = table["paired"].to_numpy(bool)
    if paired.all():  # no per-system counts needed (at 1,000 systems: 500k names mapped twice)
        n_a, n_b = table["n"].to_numpy(int), np.zeros(len(table), dtype=int)
    else:
        counts = matrix.moments[0].astype(int)  # scores per system, computed once
        index = {s: i for i, s in enumerate(matrix.systems)}
        n_a = np.where(paired, table["n"].to_numpy(int),
                       counts[table["system_a"].map(index).to_numpy(int)])
        n_b = np.where(paired, 0, counts[table["system_b"].map(index).to_numpy(int)])
    sd = computed.sd_diff[paired]
    sd = sd[np.isfinite(sd) & (sd > 0)]  # identical pairs say nothing about the spread
    return resolution(test=test, examples=n_a, examples_b=n_b, alternative=opts.alternative,
                      alpha=opts.alpha, correction=opts.correction, systems=matrix.n_systems,
                      sd_difference=float(np.median(sd)) if sd.size else float("nan"),
                      n_resamples=opts.n_resamples)


def _labels(choices: Sequence[str], picks: np.ndarray) -> pd.api.extensions.ExtensionArray:
    """``choices[picks]`` as the string column pandas would make of it, taken from the few
    choices: 8 ms for 500,000 pairs instead of ~50 ms converting as many Python strings."""
    return pd.Series(list(choices)).array.take(picks)


def _table(matrix: ScoreMatrix, ia: np.ndarray, ja: np.ndarray, plan: Plan, c: Computed,
           p_adj: np.ndarray) -> pd.DataFrame:
    rows = plan.paired_rows
    unpaired = (~rows).astype(np.int64)  # 0: the paired test's label, 1: the unpaired one's
    sign = 1.0 if matrix.higher_is_better else -1.0
    difference = sign * (c.mean_a - c.mean_b)  # in the metric's units, positive = a better
    direction = np.sign(difference)
    by_wins = np.isin(np.where(rows, plan.paired_test, plan.unpaired_test), WIN_TESTS)
    direction = np.where(by_wins, np.sign(c.wins[ia, ja] - c.wins[ja, ia]), direction)
    zeros = np.zeros(len(ia), dtype=np.int64)
    return pd.DataFrame({
        "system_a": _labels(matrix.systems, ia), "system_b": _labels(matrix.systems, ja),
        "test": _labels((plan.paired_test, plan.unpaired_test), unpaired),
        "statistic": c.stats.statistic, "df": c.stats.df, "pvalue": c.stats.pvalue,
        "pvalue_adj": p_adj, "effect_size": c.stats.effect_size,
        "effect_name": _labels((_EFFECT_NAMES[plan.paired_test],
                                _EFFECT_NAMES[plan.unpaired_test]), unpaired),
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
