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

from ._aggregate import Weights, metric_weights
from ._contract import MetricSpec
from ._groups import Groups, find_groups
from ._hmp import hmp_rows
from ._meta import StandardizedMeans, fixed_effect, standardized_means
from ._options import EFFECT_THRESHOLDS, TestOptions
from ._overall_parts import (
    CELL_COLUMNS,
    BenchmarkPart,
    benchmark_part,
    choose_overall,
    pair_codes,
    pooling_inputs,
    result_cells,
)
from ._pairwise import PairwiseResult, pairwise_tests

__all__ = ["ACROSS", "PAIRS_ACROSS_COLUMNS", "BenchmarkPart", "Overall", "benchmark_part",
           "overall", "overall_from_parts", "pairs_across"]

ACROSS = ("metrics", "benchmarks")
PAIRS_ACROSS_COLUMNS = ("system_a", "system_b", "p_hmp", "p_hmp_adj", "effect", "effect_ci_low",
                        "effect_ci_high", "i2", "significant")
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

def _omega_ranks(k: int, compare: str) -> tuple[np.ndarray, np.ndarray]:
    """The compared pairs of ``k`` ordered systems as positions (a before b), in row order."""
    if compare == "first":
        return np.zeros(max(k - 1, 0), dtype=np.int64), np.arange(1, k, dtype=np.int64)
    if compare == "successive":
        return np.arange(max(k - 1, 0), dtype=np.int64), np.arange(1, k, dtype=np.int64)
    lo, hi = np.triu_indices(k, 1)  # (0, 1), (0, 2), …, (1, 2), …: row-major
    return lo.astype(np.int64), hi.astype(np.int64)


def _omega_rows(lo: np.ndarray, hi: np.ndarray, k: int, compare: str) -> np.ndarray:
    """Row of each pair (positions lo < hi) in :func:`_omega_ranks`; −1 when not compared."""
    if compare == "first":
        return np.where(lo == 0, hi - 1, -1)
    if compare == "successive":
        return np.where(hi == lo + 1, lo, -1)
    return np.asarray(lo * k - lo * (lo + 1) // 2 + (hi - lo - 1))


def _orient(cells: pd.DataFrame, rank: Mapping[str, int]) -> pd.DataFrame:
    """Turn every pair so that system_a comes first in ``rank`` (effect negated on a flip)."""
    a, b = cells["system_a"].map(rank).to_numpy(), cells["system_b"].map(rank).to_numpy()
    flip = a > b
    return cells.assign(
        system_a=np.where(flip, cells["system_b"], cells["system_a"]),
        system_b=np.where(flip, cells["system_a"], cells["system_b"]),
        effect_size=np.where(flip, -1.0, 1.0) * cells["effect_size"].to_numpy(float),
        flipped=flip)


def _significant(p_adj: np.ndarray, effect: np.ndarray, criterion: str, alternative: str,
                 alpha: float) -> np.ndarray:
    if criterion == "pvalue":
        return np.asarray(p_adj < alpha)
    threshold = EFFECT_THRESHOLDS[criterion]
    with np.errstate(invalid="ignore"):
        return np.asarray(effect >= threshold if alternative == "greater"
                          else np.abs(effect) >= threshold)


def _pool(row: np.ndarray, col: np.ndarray, cells: Mapping[str, np.ndarray],
          shape: tuple[int, int], unit_weights: np.ndarray, *, alpha: float, criterion: str,
          alternative: str) -> dict[str, np.ndarray]:
    """HMP and fixed-effect pooling of ``shape[0]`` pairs over ``shape[1]`` units.

    Cell i — pvalue, g and v (Hedges-corrected effect oriented as its pair, and its
    variance: :func:`engine._meta.corrected_effect`) — sits at (row[i], col[i]).
    Weights: w = unit weight / pairs per test, so the L = pairs × units weights sum to 1.
    """
    p = np.full(shape, np.nan)
    p[row, col] = cells["pvalue"]
    eff, var = np.full(shape, np.nan), np.full(shape, np.nan)
    eff[row, col], var[row, col] = cells["g"], cells["v"]
    w = np.broadcast_to(unit_weights / max(shape[0], 1), shape)
    statistic, p_hmp, p_adj, _ = hmp_rows(p, w, L=max(shape[0] * shape[1], 1))
    meta = fixed_effect(eff, var, alpha=alpha)
    significant = _significant(p_adj, meta.effect, criterion, alternative, alpha) & ~np.isnan(p_adj)
    a_better = np.where(np.isfinite(meta.effect), meta.effect > 0, True)
    if alternative == "greater":
        a_better = np.ones(shape[0], dtype=bool)
    return {"p_hmp": p_hmp, "p_hmp_adj": p_adj, "effect": meta.effect,
            "effect_ci_low": meta.ci_low, "effect_ci_high": meta.ci_high, "i2": meta.i2,
            "significant": significant, "hmp": statistic, "pvalue_adj": p_adj,
            "a_better": a_better, "tested": (~np.isnan(p)).sum(axis=1)}


def _combine(cells: pd.DataFrame, pairs: Sequence[tuple[str, str]], units: Sequence[str],
             unit_weights: np.ndarray, *, alpha: float, criterion: str, alternative: str
             ) -> pd.DataFrame:
    """HMP and fixed-effect pooling of each pair over the units (benchmarks or metrics) that tested it.

    ``cells`` rows: unit, system_a, system_b (oriented as in ``pairs``),
    pvalue, effect_size, effect_name, n.
    """
    index = pd.MultiIndex.from_tuples(list(pairs), names=["system_a", "system_b"])
    row = index.get_indexer(pd.MultiIndex.from_arrays([cells["system_a"], cells["system_b"]]))
    col = pd.Index(list(units)).get_indexer(pd.Index(cells["unit"]))
    keep = (row >= 0) & (col >= 0)
    pooled = _pool(row[keep], col[keep], pooling_inputs(cells[keep]), (len(pairs), len(units)),
                   unit_weights, alpha=alpha, criterion=criterion, alternative=alternative)
    return pd.DataFrame({"system_a": [a for a, _ in pairs], "system_b": [b for _, b in pairs],
                         **pooled})


def _validate_across(results: Sequence[PairwiseResult], across: str) -> list[str]:
    if across not in ACROSS:
        raise ValueError(f"across: must be one of {', '.join(ACROSS)}; got {across!r}")
    if not results:
        raise ValueError("results: need at least one PairwiseResult; got none")
    if across == "metrics":
        benchmarks = sorted({r.benchmark for r in results})
        if len(benchmarks) > 1:
            raise ValueError(f"results: across metrics needs one benchmark; got {benchmarks!r}")
    units = [r.metric if across == "metrics" else r.benchmark for r in results]
    repeated = sorted({u for u in units if units.count(u) > 1})
    if repeated:
        raise ValueError(f"results: each {across[:-1]} may appear once; repeated: {repeated!r}")
    alternatives = sorted({r.alternative for r in results})
    if len(alternatives) > 1:
        raise ValueError(f"results: all must use one alternative; got {alternatives!r}")
    return units


def pairs_across(results: Sequence[PairwiseResult], *, across: str = "metrics",
                 weights: Weights = None) -> pd.DataFrame:
    """Combine each pair's tests over several metrics of a benchmark, or over benchmarks.

    Parameters
    ----------
    results : sequence of PairwiseResult
        One per metric (same benchmark) or one per benchmark, with one set of options.
    across : {"metrics", "benchmarks"}, keyword-only
        What the results differ by.
    weights : mapping name → weight or sequence aligned with ``results``, optional
        Importance of each metric/benchmark (normalised; equal by default).

    Returns
    -------
    DataFrame
        One row per pair, most significant first: system_a, system_b, p_hmp
        (asymptotically exact harmonic-mean p of the pair's raw p-values),
        p_hmp_adj (= p_hmp / w_pair, compare with alpha), effect (fixed-effect
        pooled Hedges-corrected effect size, positive = system_a better),
        effect_ci_low, effect_ci_high, i2, significant.

    Notes
    -----
    L = compared pairs × metrics (or benchmarks); each test gets weight
    ``w_unit / pairs`` so the L weights sum to 1, and a pair is significant
    when ``p_hmp ≤ alpha · w_pair`` (Wilson 2019): this controls the
    familywise error rate over all pairs and units at once, whatever the
    dependence between metrics. A pair tested on only some units uses those
    (smaller w_pair, so a harder threshold). Effects are pooled by inverse
    variance; across the metrics of one benchmark they share examples, so
    their interval (which assumes independent estimates) is too narrow and
    I² is descriptive only. Orientation: a pair keeps the order of the first
    result that tests it.

    References
    ----------
    Seed paper §6.2; Wilson (2019), PNAS 116(4):1195–1200; Borenstein et al.
    (2009), Introduction to Meta-Analysis, ch. 11 and 16.
    """
    units = _validate_across(results, across)
    w = metric_weights(units, weights)
    cells = pd.concat([result_cells(r, u) for r, u in zip(results, units, strict=True)],
                      ignore_index=True)
    first: dict[str, int] = {}
    for s in pd.unique(pd.concat([cells["system_a"], cells["system_b"]], ignore_index=True)):
        first.setdefault(str(s), len(first))
    pairs_seen = _orient(cells, first)
    if results[0].alternative != "two-sided" and pairs_seen["flipped"].any():
        raise ValueError("results: one-sided tests must list every pair in the same orientation")
    pairs = list(dict.fromkeys(zip(pairs_seen["system_a"], pairs_seen["system_b"], strict=True)))
    out = _combine(pairs_seen, pairs, units, w, alpha=results[0].alpha,
                   criterion=results[0].criterion, alternative=results[0].alternative)
    out = out.sort_values(["p_hmp", "system_a", "system_b"], kind="stable", na_position="last")
    return out[list(PAIRS_ACROSS_COLUMNS)].reset_index(drop=True)


# ------------------------------------------------------------------------ the overall procedure

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
