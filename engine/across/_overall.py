"""The team's overall leaderboard across metrics and benchmarks (seed paper §6–7).

The ordered-ranking procedure, as a chain of named steps:
aggregate the metrics of each benchmark (§6.1) → per-benchmark leaderboards →
standardised system scores across benchmarks (§6.3) → order systems by score →
test each benchmark (all pairs two-sided, or the ordered set right-tailed) →
combine each pair's p-values with the harmonic mean p-value and its effect
sizes by inverse variance (§6.2) → graph of non-significant pairs → cliques,
rank ranges and letters (as for one benchmark).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np
import pandas as pd

from .._contract import MetricSpec
from .._options import TestOptions
from ..ranking._groups import Groups, find_groups
from ..stats._pairwise import pairwise_tests
from ._aggregate import Weights, metric_weights
from ._meta import StandardizedMeans, standardized_means
from ._overall_parts import (
    CELL_COLUMNS,
    BenchmarkPart,
    benchmark_part,
    choose_overall,
    pair_codes,
    pooling_inputs,
    result_cells,
)
from ._pairs_across import _omega_ranks, _omega_rows, _pool

__all__ = ["BenchmarkPart", "Overall", "benchmark_part", "overall", "overall_from_parts"]

_CELL_KEYS = ("mean", "ci_low", "ci_high", "group")


@dataclass(frozen=True)
class Overall:
    """One ranking of systems across benchmarks, with what produced it.

    ``table``: one row per system, best first: system, score (§6.3
    standardised mean, higher = better), ci_low, ci_high, rank, rank_low,
    rank_high, group. ``cells``: one row per (system, benchmark) the system
    was scored on: mean, ci_low, ci_high of the benchmark's (aggregate) metric
    and its group letters on that benchmark alone. ``pairs``: one row per
    compared pair with the columns of :func:`pairs_across` plus a_better,
    pvalue_adj (= p_hmp_adj) and tested (benchmarks that tested the pair).
    ``metrics``: the metrics aggregated per benchmark; ``benchmark_weights``
    the normalised weights; ``n_tests``: L = compared pairs × benchmarks.
    ``cliques`` (the groups' maximal cliques, best first) are listed on first
    access: listing can cost more than the rest of the combination.
    """

    table: pd.DataFrame
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

    @property
    def cliques(self) -> tuple[tuple[str, ...], ...]:
        """Maximal cliques of systems that cannot be told apart, best first (listed lazily)."""
        return self.groups.cliques

    def to_dict(self) -> dict[str, object]:
        """The JSON object of ``python -m engine overall --format json`` (SPEC)."""
        cells = {(r["system"], r["benchmark"]): r for r in self.cells.to_dict(orient="records")}
        systems = []
        for row in self.table.to_dict(orient="records"):
            per = {}
            for b in self.benchmarks:
                c = cells.get((row["system"], b))
                per[b] = ({k: None for k in _CELL_KEYS} if c is None else
                          {"mean": _num(c["mean"]), "ci_low": _num(c["ci_low"]),
                           "ci_high": _num(c["ci_high"]), "group": c["group"]})
            systems.append({"system": row["system"], "score": _num(row["score"]),
                            "ci_low": _num(row["ci_low"]), "ci_high": _num(row["ci_high"]),
                            "rank": int(row["rank"]), "rank_low": int(row["rank_low"]),
                            "rank_high": int(row["rank_high"]), "group": row["group"],
                            "cells": per})
        return {"benchmarks": list(self.benchmarks), "systems": systems,
                "cliques": [list(c) for c in self.cliques]}


def _num(x: Any) -> float | None:
    return None if x is None or pd.isna(x) else float(x)


# ----------------------------------------------------------------- combining p-values and effects

def overall(
    df: pd.DataFrame,
    *,
    benchmarks: Sequence[str] | None = None,
    metrics: Sequence[str] | None = None,
    weights: Weights = None,
    specs: Mapping[tuple[str, str], MetricSpec] | None = None,
    options: TestOptions | None = None,
    benchmark_weights: Mapping[str, float] | Sequence[float] | None = None,
) -> Overall:
    """Rank systems across benchmarks and metrics, with groups that cannot be told apart.

    Parameters
    ----------
    df : DataFrame
        Canonical long table (:func:`engine.validate_long`).
    benchmarks : sequence of str, optional
        Benchmarks to combine (default: all, in data order).
    metrics : sequence of str, optional
        Metrics to use on each benchmark where measured (default: all of each).
    weights : mapping metric → weight, or sequence aligned with ``metrics``, optional
        Metric weights inside each benchmark's aggregate (equal by default).
    specs : mapping (benchmark, metric) → MetricSpec, optional
        Directions (default higher is better).
    options : TestOptions, optional
        How each benchmark is tested. ``compare="all"`` → two-sided tests of all
        pairs; ``first``/``successive`` → right-tailed tests of that set in the
        order of the overall score. ``alternative`` is set by this rule.
    benchmark_weights : mapping benchmark → weight, or sequence aligned with the benchmarks
        Weights of the benchmarks in the score and in the HMP (equal by default).

    Returns
    -------
    Overall
        ``to_dict()`` is SPEC's ``overall`` JSON.

    Notes
    -----
    1. Per benchmark: several metrics → the §6.1 aggregate (each metric
       z-scored over the benchmark, flipped by direction, weighted average per
       example); one metric → used as is. ``cells`` is that metric's
       leaderboard (two-sided, all pairs, the options' correction).
    2. Score (§6.3): per benchmark, system means over the pooled within-system
       SD times √Σ1/n, centred; weighted average over the benchmarks a system
       has, with a normal interval. Systems are ordered by score.
    3. Each pair's raw p-values on the benchmarks are combined by the
       asymptotically exact harmonic mean p-value with L = pairs × benchmarks
       and weights w_benchmark / pairs; significant when p_hmp_adj < alpha.
       The effect is the fixed-effect pooled Hedges-corrected effect size.
    4. Groups, letters and rank ranges come from :func:`engine.find_groups`
       on the combined significance, exactly as for one benchmark.
    A system missing from a benchmark is kept: its cell there is empty, its
    score averages the benchmarks it has, and its pairs are combined over the
    benchmarks where both systems were tested.

    References
    ----------
    Seed paper §6–7 (ordered-ranking procedure); Wilson (2019); Borenstein et
    al. (2009).

    Examples
    --------
    >>> rng = np.random.default_rng(0)
    >>> rows = [(b, s, f"e{i}", m, float(rng.normal(k * 0.5, 1)))
    ...         for b in ("b1", "b2") for k, s in enumerate(["low", "mid", "top"])
    ...         for i in range(40) for m in ("m1", "m2")]
    >>> long = pd.DataFrame(rows, columns=["benchmark", "system", "example_id", "metric", "value"])
    >>> [row["system"] for row in overall(long).to_dict()["systems"]]
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
    parts = [benchmark_part(df, b, metrics=per[b], weights=weights, specs=specs, options=options)
             for b in chosen]
    return overall_from_parts(parts, options=options, benchmark_weights=benchmark_weights)


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


def _scores(parts: Sequence[BenchmarkPart], bw: np.ndarray, alpha: float
            ) -> tuple[list[str], StandardizedMeans]:
    """Systems in data order and their §6.3 standardised scores (weights ``bw``)."""
    systems = list(dict.fromkeys(s for p in parts for s in p.matrix.systems))
    if len(systems) < 2:
        raise ValueError(f"df: at least 2 systems are needed to rank; got {systems!r}")
    shape = (len(systems), len(parts))
    means, sds, counts = np.full(shape, np.nan), np.full(shape, np.nan), np.zeros(shape)
    where = {s: i for i, s in enumerate(systems)}
    for j, p in enumerate(parts):
        rows = [where[s] for s in p.matrix.systems]
        means[rows, j], sds[rows, j], counts[rows, j] = p.mean, p.sd, p.count
    return systems, standardized_means(means, sds, counts, weights=bw, alpha=alpha)


def overall_from_parts(parts: Sequence[BenchmarkPart], *, options: TestOptions | None = None,
                       benchmark_weights: Mapping[str, float] | Sequence[float] | None = None,
                       ) -> Overall:
    """The overall leaderboard from benchmark parts computed once (:func:`benchmark_part`).

    Parameters
    ----------
    parts : sequence of BenchmarkPart
        One per benchmark, in the order to show, all computed with ``options``.
    options : TestOptions, optional
        As in :func:`overall`.
    benchmark_weights : mapping benchmark → weight, or sequence aligned with ``parts``
        As in :func:`overall`.

    Returns
    -------
    Overall
        Identical to :func:`overall` on the same data and choices.

    Notes
    -----
    Only the weighted steps run here: scores, order, the HMP and fixed-effect
    combination, groups. With ``compare`` first/successive the right-tailed
    tests of the ordered set depend on the order, so they are run here too.

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
    bw = metric_weights(chosen, benchmark_weights)
    systems, scores = _scores(parts, bw, options.alpha)
    order = sorted(range(len(systems)), key=lambda i: (-np.nan_to_num(scores.score[i], nan=-np.inf),
                                                      systems[i]))
    ordered = [systems[i] for i in order]
    rank_of = {s: i for i, s in enumerate(ordered)}
    alternative = "two-sided" if options.compare == "all" else "greater"
    position = np.asarray(order, dtype=np.int64)  # index into systems, best first
    rank = np.empty(len(systems), dtype=np.int64)
    rank[position] = np.arange(len(systems))  # systems[i] is rank[i]-th best
    cells, notes = [], []
    ends, cols, columns = [], [], []
    for j, part in enumerate(parts):
        if part.note is not None:
            notes.append(part.note)
            continue
        cells.append(part.cells)
        if alternative == "two-sided":
            tests, codes, arrays = part.tests, part.pair_codes, part.pooling_inputs
        else:  # the ordered set, right-tailed: each benchmark's systems in the overall order
            present = sorted(part.matrix.systems, key=rank_of.__getitem__)
            result = pairwise_tests(part.matrix.subset(present),
                                    part.options.with_(alternative="greater"))
            tests = result_cells(result, part.benchmark)
            codes, arrays = pair_codes(tests, part.matrix.systems), pooling_inputs(tests)
        if tests is None or codes is None or arrays is None:  # only a part with a note
            continue
        ends.append(rank[_positions(part, systems)[codes]])
        cols.append(np.full(len(tests), j))
        columns.append(arrays)
    pairs = _combine_ranked(ends, cols, columns, ordered, options.compare, bw, options)
    position = np.asarray(order, dtype=int)  # index into systems, best first
    quality = [float(np.nan_to_num(scores.score[i], nan=-np.inf)) for i in position]
    groups = find_groups(ordered, quality, pairs)
    table = pd.DataFrame({
        "system": ordered,
        "score": scores.score[position],
        "ci_low": scores.ci_low[position],
        "ci_high": scores.ci_high[position],
        "rank": pd.Series(quality).rank(method="min", ascending=False).astype(int).to_numpy(),
        "rank_low": [groups.rank_low[s] for s in ordered],
        "rank_high": [groups.rank_high[s] for s in ordered],
        "group": [groups.letters[s] for s in ordered],
    })
    cell_table = (pd.concat(cells, ignore_index=True) if cells else
                  pd.DataFrame(columns=list(CELL_COLUMNS)))
    cell_table = cell_table[["system", "benchmark", "mean", "ci_low", "ci_high", "group"]]
    return Overall(table, cell_table, pairs, groups, tuple(chosen),
                   {p.benchmark: p.metrics for p in parts}, tuple(float(x) for x in bw), options,
                   alternative, len(pairs) * len(chosen), tuple(notes))


def _positions(part: BenchmarkPart, systems: Sequence[str]) -> np.ndarray:
    """Position in ``systems`` of each of the part's systems."""
    where = {s: i for i, s in enumerate(systems)}
    return np.array([where[s] for s in part.matrix.systems], dtype=np.int64)


def _combine_ranked(ends: Sequence[np.ndarray], cols: Sequence[np.ndarray],
                    columns: Sequence[Mapping[str, np.ndarray]], ordered: Sequence[str],
                    compare: str, bw: np.ndarray, options: TestOptions) -> pd.DataFrame:
    """Pool every compared pair of ``ordered`` over the benchmarks.

    ``ends[j]``: ranks (2 × tests) of each test's system_a and system_b on part j; a
    pair is turned so that the better-ranked system comes first (effect negated).
    """
    k = len(ordered)
    lo, hi = _omega_ranks(k, compare)
    alternative = "two-sided" if compare == "all" else "greater"
    if ends:
        a, b = np.concatenate([e[0] for e in ends]), np.concatenate([e[1] for e in ends])
        col = np.concatenate(cols)
        cells = {key: np.concatenate([c[key] for c in columns]) for key in columns[0]}
    else:
        a = b = col = np.zeros(0, dtype=np.int64)
        cells = {"pvalue": np.zeros(0), "g": np.zeros(0), "v": np.zeros(0)}
    flip = a > b
    cells["g"] = np.where(flip, -1.0, 1.0) * cells["g"]  # g is odd in d, v even: exact
    row = _omega_rows(np.minimum(a, b), np.maximum(a, b), k, compare)
    keep = row >= 0
    pooled = _pool(row[keep], col[keep], {key: v[keep] for key, v in cells.items()},
                   (len(lo), len(bw)), bw, alpha=options.alpha, criterion=options.criterion,
                   alternative=alternative)
    names = np.asarray(ordered, dtype=object)
    return pd.DataFrame({"system_a": list(names[lo]), "system_b": list(names[hi]), **pooled})
