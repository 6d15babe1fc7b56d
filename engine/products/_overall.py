"""The team's overall leaderboard across benchmarks (Ackerman et al. 2025, §6–7, with
coverage and an earned direction).

The procedure, as a chain of named steps:
per-benchmark leaderboards (each benchmark's primary metric, or the aggregate of the
metrics named) → coverage: the systems that ran every selected benchmark are ranked, the
others listed by what they ran → score in the benchmarks' own units (percent) or
standardised → each pair's weighted difference over the benchmarks, tested as one
directional figure (:mod:`engine.across._combine`; benchmarks sharing example ids enter
with their correlation) → multiplicity adjustment over the pairs (the leaderboard's
correction) → graph of non-significant pairs → letters and rank ranges, exactly as for one
benchmark. The harmonic mean p-value of each pair's benchmark p-values (Wilson 2019) says
whether the pair differs on *some* benchmark: a pair that does, without an overall
direction, is "differs by benchmark, no overall order".
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING

import numpy as np
import pandas as pd

from .._contract import MetricSpec
from .._options import TestOptions
from ..across._aggregate import Weights, metric_weights
from ..across._coverage import coverage_groups
from ..ranking._groups import Groups, find_groups
from ..ranking._mean_covariance import overall_rank_sets
from ..ranking._rank_sets import RankSets
from ..ranking._ties import competition_ranks
from ._leaderboard import _snap
from ._overall_pairs import PAIR_VERDICTS, combine_pairs, correlations, pair_positions
from ._overall_parts import CELL_COLUMNS, BenchmarkPart, benchmark_part, choose_overall
from ._overall_score import Scale, choose_scale, system_scores

if TYPE_CHECKING:
    from ._judge import JudgeBoard

__all__ = ["BenchmarkPart", "Overall", "PAIR_VERDICTS", "benchmark_part", "overall",
           "overall_from_parts"]

_CELL_KEYS = ("mean", "ci_low", "ci_high", "group")


@dataclass(frozen=True)
class Overall:
    """One ranking of systems across benchmarks, with what produced it.

    ``table``: the ranked systems — those that ran every selected benchmark — best
    first: system, score (in ``scale.label``'s units), ci_low, ci_high, rank, rank_low,
    rank_high, group. ``unranked``: the others, grouped by the benchmarks they ran
    (system, coverage, ran): never ranked, since a score over fewer benchmarks is not
    comparable. ``coverage``: every system's benchmarks. ``cells``: one row per
    (system, benchmark) the system was scored on: mean, ci_low, ci_high of the
    benchmark's metric in its units and its group letters there (the benchmark's own
    leaderboard). ``pairs``: one row per compared pair of ranked systems, system_a
    ranked higher: difference (score difference in the score's units) and its interval,
    pvalue (the directional combined test), pvalue_adj, significant, a_better, verdict
    (:data:`PAIR_VERDICTS`), p_hmp / p_hmp_adj (does the pair differ on some benchmark),
    the pooled standardised effect (effect, effect_ci_low, effect_ci_high, i2) and
    tested (benchmarks that tested the pair). ``correlated``: benchmark pairs that share
    example ids (their correlation enters intervals and tests); ``order``: the order
    fixed in advance for a one-sided set (``compare`` first/successive), else None.
    """

    table: pd.DataFrame
    unranked: pd.DataFrame
    cells: pd.DataFrame
    pairs: pd.DataFrame
    groups: Groups
    benchmarks: tuple[str, ...]
    metrics: dict[str, tuple[str, ...]]
    benchmark_weights: tuple[float, ...]
    options: TestOptions
    alternative: str
    n_tests: int
    notes: tuple[str, ...]
    coverage: dict[str, tuple[str, ...]]
    scale: Scale
    correlated: tuple[tuple[str, str, int], ...]
    order: tuple[str, ...] | None = None
    rank_sets: RankSets | None = None
    """Simultaneous rank confidence sets and the 1-best set of the ranked systems' scores."""

    @property
    def cliques(self) -> tuple[tuple[str, ...], ...]:
        """Maximal cliques of ranked systems that cannot be told apart, best first (lazy)."""
        return self.groups.cliques


def overall(
    df: pd.DataFrame,
    *,
    benchmarks: Sequence[str] | None = None,
    metrics: Sequence[str] | None = None,
    weights: Weights = None,
    specs: Mapping[tuple[str, str], MetricSpec] | None = None,
    options: TestOptions | None = None,
    benchmark_weights: Mapping[str, float] | Sequence[float] | None = None,
    order: Sequence[str] | None = None,
    cluster: str | Mapping[str, str] | None = None,
    judges: Mapping[str, JudgeBoard] | None = None,
) -> Overall:
    """Rank systems across benchmarks, with groups that cannot be told apart.

    Parameters
    ----------
    df : DataFrame
        Canonical long table (:func:`engine.validate_long`).
    benchmarks : sequence of str, optional
        Benchmarks to combine (default: all, in data order; the pages and the CLI start
        from :func:`engine.across._coverage.default_selection`).
    metrics : sequence of str, optional
        Metrics to use on each benchmark where measured (default: each benchmark's
        primary metric, its first; several on one benchmark → their aggregate).
    weights : mapping metric → weight, or sequence aligned with ``metrics``, optional
        Metric weights inside each benchmark's aggregate (equal by default).
    specs : mapping (benchmark, metric) → MetricSpec, optional
        Directions (default higher is better).
    options : TestOptions, optional
        ``compare="all"`` (default): every pair of ranked systems, two-sided.
        ``first``/``successive``: one-sided tests of that set in ``order``.
    benchmark_weights : mapping benchmark → weight, or sequence aligned with the benchmarks
        Weights of the benchmarks in the score and in every pair's difference.
    order : sequence of str, optional
        For ``first``/``successive`` only: the order fixed before looking at the results
        (a stored champion first, or the user's). The observed order is never used for a
        one-sided set: it would test the direction it was chosen by.
    cluster : str or mapping benchmark → str, optional
        Per-example column (e.g. passage, task family): each benchmark whose rows give it
        is tested cluster-robustly, so the pairs' standard errors Overall combines are
        too (:func:`engine.products._overall_parts.benchmark_part`). A mapping gives each
        benchmark its own column (a store's declared ones); benchmarks not in it are not
        clustered.
    judges : mapping benchmark → JudgeBoard, optional
        Judge metrics with human labels: a benchmark whose one metric is its board's
        judge metric enters with the board's PPI++ means, intervals and pair tests
        (:func:`engine.products._overall_judge.judged_part`), as on its Leaderboard.

    Returns
    -------
    Overall
        Its JSON (SPEC's ``overall``) is :func:`engine.report._overall_json.overall_document`.

    Notes
    -----
    1. Coverage: only systems that ran every selected benchmark are ranked; the others
       are listed by what they ran (``unranked``), never above a complete one.
    2. Score: every benchmark a 0–1 score (higher = better) → the weighted mean of the
       benchmarks' own scores in percent; otherwise standardised (labelled so).
    3. A pair's overall difference is the difference of the two scores, Σ a_j d_j, with
       each benchmark's standard error the one its own test implies; benchmarks that
       share example ids enter with the correlation of their differences there. The
       directional z test of that difference is the pair's p-value (with one benchmark:
       exactly that benchmark's p-value), adjusted over the pairs with the options'
       correction — so one benchmark's Overall is its Leaderboard, a significant pair
       is never ranked backwards, and opposite effects cancel instead of adding up.
    4. Groups, letters and rank ranges: :func:`engine.find_groups`, as for one benchmark.

    References
    ----------
    Ackerman, Farchi, Raz & Toledo (2025). Statistical multi-metric evaluation and
    visualization of LLM system predictive performance. arXiv:2501.18243, §6–7;
    Wilson (2019), PNAS 116(4):1195–1200 (harmonic mean p); Altman &
    Bland (2011), BMJ 343:d2090 (standard error from a p-value); Borenstein et al.
    (2009), Introduction to Meta-Analysis, ch. 24 (correlated outcomes).

    Examples
    --------
    >>> rng = np.random.default_rng(0)
    >>> rows = [(b, s, f"e{i}", "m", float(rng.normal(k * 0.5, 1)))
    ...         for b in ("b1", "b2") for k, s in enumerate(["low", "mid", "top"])
    ...         for i in range(40)]
    >>> long = pd.DataFrame(rows, columns=["benchmark", "system", "example_id", "metric", "value"])
    >>> overall(long).table["system"].tolist()
    ['top', 'mid', 'low']
    """
    options = options if options is not None else TestOptions()
    chosen, per = choose_overall(df, benchmarks, metrics)
    if weights is not None and not isinstance(weights, Mapping):
        if metrics is None:
            raise ValueError("weights: a list of weights needs the metrics it belongs to; "
                             "pass metrics=[...] or a mapping metric → weight")
        weights = dict(zip(metrics, metric_weights(list(metrics), weights), strict=True))
    metric_weights(chosen, benchmark_weights)  # checked before the work
    _check_order(options, order)
    by = cluster if isinstance(cluster, Mapping) else dict.fromkeys(chosen, cluster)
    parts = [benchmark_part(df, b, metrics=per[b], weights=weights, specs=specs, options=options,
                            cluster=by.get(b)) for b in chosen]
    if judges:
        from ._overall_judge import judged_part

        parts = [judged_part(p, judges[p.benchmark])
                 if p.benchmark in judges and p.metrics == (judges[p.benchmark].judge,) else p
                 for p in parts]
    return overall_from_parts(parts, options=options, benchmark_weights=benchmark_weights,
                              order=order)


def _check_order(options: TestOptions, order: Sequence[str] | None) -> None:
    if options.compare != "all" and order is None:
        raise ValueError(
            f"order: compare={options.compare!r} tests one-sided in an order fixed before "
            "looking at the results; pass order=[...] (e.g. the stored champion first), or "
            "use compare='all' (the observed order is never used: it would test the "
            "direction it was chosen by)")
    if options.compare == "all" and order is not None:
        raise ValueError("order: only for compare='first' or 'successive'; got compare='all'")


def _check_parts(parts: Sequence[BenchmarkPart], options: TestOptions) -> list[str]:
    if not parts:
        raise ValueError("parts: need at least one BenchmarkPart; got none")
    chosen = [p.benchmark for p in parts]
    if len(set(chosen)) != len(chosen):
        raise ValueError(f"parts: each benchmark may appear once; got {chosen!r}")
    two_sided = options.with_(compare="all", alternative="two-sided")
    stale = [p.benchmark for p in parts if p.options != two_sided]
    if stale:
        raise ValueError(f"parts: {stale!r} were tested with other options than {options!r}; "
                         "compute them with benchmark_part(..., options=options)")
    return chosen


def _coverage(parts: Sequence[BenchmarkPart]) -> dict[str, tuple[str, ...]]:
    """Each system (data order) → the benchmarks it ran (selection order)."""
    ran: dict[str, list[str]] = {}
    for p in parts:
        for s in p.matrix.systems:
            ran.setdefault(s, []).append(p.benchmark)
    if len(ran) < 2:
        raise ValueError(f"df: at least 2 systems are needed to rank; got {list(ran)!r}")
    return {s: tuple(b) for s, b in ran.items()}


def _cell_arrays(parts: Sequence[BenchmarkPart], systems: Sequence[str]
                 ) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Means and intervals (systems × benchmarks) from each benchmark's leaderboard."""
    shape = (len(systems), len(parts))
    means, lows, highs = np.full(shape, np.nan), np.full(shape, np.nan), np.full(shape, np.nan)
    for j, p in enumerate(parts):
        if p.cells is None:
            where = {s: i for i, s in enumerate(p.matrix.systems)}
            means[:, j] = [p.mean[where[s]] for s in systems]
            continue
        cells = p.cells.set_index("system").loc[list(systems)]
        means[:, j] = cells["mean"].to_numpy(float)
        lows[:, j], highs[:, j] = cells["ci_low"].to_numpy(float), cells["ci_high"].to_numpy(float)
    return means, lows, highs


def _counts(parts: Sequence[BenchmarkPart], systems: Sequence[str]
            ) -> tuple[np.ndarray, np.ndarray]:
    """Examples behind each (system, benchmark) mean, and the SD of its scores."""
    counts, sds = np.ones((len(systems), len(parts))), np.full((len(systems), len(parts)), np.nan)
    for j, p in enumerate(parts):
        where = {s: i for i, s in enumerate(p.matrix.systems)}
        counts[:, j] = [float(p.count[where[s]]) for s in systems]
        sds[:, j] = [float(p.sd[where[s]]) for s in systems]
    return counts, sds


def overall_from_parts(parts: Sequence[BenchmarkPart], *, options: TestOptions | None = None,
                       benchmark_weights: Mapping[str, float] | Sequence[float] | None = None,
                       order: Sequence[str] | None = None) -> Overall:
    """The overall leaderboard from benchmark parts computed once (:func:`benchmark_part`).

    Parameters
    ----------
    parts : sequence of BenchmarkPart
        One per benchmark, in the order to show, all computed with ``options``.
    options, benchmark_weights, order
        As in :func:`overall`.

    Returns
    -------
    Overall
        Identical to :func:`overall` on the same data and choices.

    Examples
    --------
    >>> rng = np.random.default_rng(0)
    >>> long = pd.DataFrame([(b, s, f"e{i}", "m", float(rng.normal(k, 1)))
    ...                      for b in ("b1", "b2") for k, s in enumerate(["x", "y", "z"])
    ...                      for i in range(30)],
    ...                     columns=["benchmark", "system", "example_id", "metric", "value"])
    >>> parts = [benchmark_part(long, b, metrics=["m"]) for b in ("b1", "b2")]
    >>> list(overall_from_parts(parts, benchmark_weights=[3, 1]).table["system"])
    ['z', 'y', 'x']
    """
    options = options if options is not None else TestOptions()
    chosen = _check_parts(parts, options)
    _check_order(options, order)
    bw = metric_weights(chosen, benchmark_weights)
    coverage = _coverage(parts)
    complete = [s for s, ran in coverage.items() if len(ran) == len(parts)]
    scale = choose_scale(parts, complete)
    means, lows, highs = _cell_arrays(parts, complete)
    corr_sys, corr_pairs, correlated = correlations(parts, complete)
    counts, sds = _counts(parts, complete)
    score, ci_low, ci_high = system_scores(means, lows, highs, bw, scale, corr_sys, options.alpha,
                                           counts, sds)
    quality = _snap(score) if len(score) else score
    by_rank = sorted(range(len(complete)), key=lambda i: (-np.nan_to_num(quality[i], nan=-np.inf),
                                                         complete[i]))
    ordered = [complete[i] for i in by_rank]
    positions = pair_positions(ordered, options.compare, order)
    pairs = combine_pairs(parts, complete, by_rank, positions, bw, scale, corr_pairs, options)
    q = quality[by_rank]
    groups = find_groups(ordered, q.tolist(), pairs)
    rank = competition_ranks(q)
    low = np.array([groups.rank_low[s] for s in ordered], dtype=int)
    high = np.array([groups.rank_high[s] for s in ordered], dtype=int)
    notes = [p.note for p in parts if p.note is not None]
    if ((rank < low) | (rank > high)).any():
        notes.append("Rank range widened to include the row's rank: a pair's difference on "
                     "the examples it shares and the order of the estimates disagree.")
        low, high = np.minimum(low, rank), np.maximum(high, rank)
    table = pd.DataFrame({"system": ordered, "score": score[by_rank],
                          "ci_low": ci_low[by_rank], "ci_high": ci_high[by_rank],
                          "rank": rank, "rank_low": low, "rank_high": high,
                          "group": [groups.letters[s] for s in ordered]})
    unranked = _unranked(coverage, chosen, parts)
    notes += _notes(unranked, len(chosen), correlated, len(complete))
    cells = [p.cells for p in parts if p.cells is not None]
    cell_table = (pd.concat(cells, ignore_index=True) if cells else
                  pd.DataFrame(columns=list(CELL_COLUMNS)))
    cell_table = cell_table[["system", "benchmark", "mean", "ci_low", "ci_high", "group"]]
    alternative = "two-sided" if options.compare == "all" else "greater"
    return Overall(table, unranked, cell_table, pairs, groups, tuple(chosen),
                   {p.benchmark: p.metrics for p in parts}, tuple(float(x) for x in bw),
                   options, alternative, int(pairs["tested"].gt(0).sum()) * len(chosen),
                   tuple(notes), coverage, scale, correlated,
                   None if order is None else tuple(order),
                   overall_rank_sets([p.matrix for p in parts], ordered, score[by_rank],
                                     bw * scale.factor, alpha=options.alpha, pairs=pairs))


def _unranked(coverage: Mapping[str, tuple[str, ...]], chosen: Sequence[str],
              parts: Sequence[BenchmarkPart]) -> pd.DataFrame:
    """Systems that did not run every benchmark, grouped by what they ran (most first),
    each group by name (they are not ranked, so no order among them is claimed)."""
    partial = {s: ran for s, ran in coverage.items() if len(ran) < len(chosen)}
    rows = [(s, ran, len(ran)) for ran, systems in coverage_groups(partial, chosen)
            for s in sorted(systems)]
    return pd.DataFrame(rows, columns=["system", "coverage", "ran"])


def _notes(unranked: pd.DataFrame, n_benchmarks: int,
           correlated: Sequence[tuple[str, str, int]], n_complete: int) -> list[str]:
    notes = []
    if n_complete < 2:
        notes.append(f"Fewer than 2 systems ran all {n_benchmarks} selected benchmarks: "
                     "nothing can be ranked; choose fewer benchmarks.")
    if len(unranked):
        notes.append(f"{len(unranked)} system(s) did not run all {n_benchmarks} selected "
                     "benchmarks: they are listed by what they ran, not ranked (a score over "
                     "fewer benchmarks is not comparable).")
    if correlated:
        shared = "; ".join(f"{a} and {b} share {n} example ids" for a, b, n in correlated)
        notes.append(f"{shared}: the intervals and tests account for their correlation.")
    elif n_benchmarks > 1:
        notes.append("The benchmarks share no example ids: they are treated as independent.")
    return notes
