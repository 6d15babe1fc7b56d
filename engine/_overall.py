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

from ._aggregate import Weights, aggregate_metric, metric_weights, spec_of
from ._contract import REQUIRED_COLUMNS, MetricSpec
from ._groups import Groups, find_groups
from ._hmp import hmp_rows
from ._leaderboard import leaderboard
from ._matrix import ScoreMatrix, build_matrix
from ._meta import corrected_effect, fixed_effect, standardized_means
from ._options import EFFECT_THRESHOLDS, TestOptions
from ._pairwise import PairwiseResult, pairwise_tests

__all__ = ["ACROSS", "PAIRS_ACROSS_COLUMNS", "Overall", "overall", "pairs_across"]

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
    """

    table: pd.DataFrame
    cells: pd.DataFrame
    pairs: pd.DataFrame
    groups: Groups
    cliques: tuple[tuple[str, ...], ...]
    benchmarks: tuple[str, ...]
    metrics: dict[str, tuple[str, ...]]
    benchmark_weights: tuple[float, ...]
    options: TestOptions
    alternative: str
    n_tests: int
    notes: tuple[str, ...]

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

def _omega(order: Sequence[str], compare: str) -> list[tuple[str, str]]:
    if compare == "first":
        return [(order[0], s) for s in order[1:]]
    if compare == "successive":
        return list(zip(order[:-1], order[1:], strict=True))
    return [(order[i], order[j]) for i in range(len(order)) for j in range(i + 1, len(order))]


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


def _combine(cells: pd.DataFrame, pairs: Sequence[tuple[str, str]], units: Sequence[str],
             unit_weights: np.ndarray, *, alpha: float, criterion: str, alternative: str
             ) -> pd.DataFrame:
    """HMP and fixed-effect pooling of each pair over the units (benchmarks or metrics) that tested it.

    ``cells`` rows: unit, system_a, system_b (oriented as in ``pairs``),
    pvalue, effect_size, effect_name, n. Weights: w = unit weight / |pairs|
    per test, so the L = |pairs| × |units| weights sum to 1.
    """
    index = pd.MultiIndex.from_tuples(list(pairs), names=["system_a", "system_b"])
    shape = (len(pairs), len(units))
    row = index.get_indexer(pd.MultiIndex.from_arrays([cells["system_a"], cells["system_b"]]))
    col = pd.Index(list(units)).get_indexer(pd.Index(cells["unit"]))
    keep = (row >= 0) & (col >= 0)
    row, col, kept = row[keep], col[keep], cells[keep]
    p = np.full(shape, np.nan)
    p[row, col] = kept["pvalue"].to_numpy(float)
    g, v = corrected_effect(kept["effect_size"].to_numpy(float), kept["n"].to_numpy(float),
                            kept["effect_name"].to_numpy(object))
    eff, var = np.full(shape, np.nan), np.full(shape, np.nan)
    eff[row, col], var[row, col] = g, v
    w = np.broadcast_to(unit_weights / max(len(pairs), 1), shape)
    statistic, p_hmp, p_adj, _ = hmp_rows(p, w, L=max(shape[0] * shape[1], 1))
    meta = fixed_effect(eff, var, alpha=alpha)
    significant = _significant(p_adj, meta.effect, criterion, alternative, alpha) & ~np.isnan(p_adj)
    a_better = np.where(np.isfinite(meta.effect), meta.effect > 0, True)
    if alternative == "greater":
        a_better = np.ones(len(pairs), dtype=bool)
    return pd.DataFrame({
        "system_a": [a for a, _ in pairs], "system_b": [b for _, b in pairs],
        "p_hmp": p_hmp, "p_hmp_adj": p_adj, "effect": meta.effect,
        "effect_ci_low": meta.ci_low, "effect_ci_high": meta.ci_high, "i2": meta.i2,
        "significant": significant, "hmp": statistic, "pvalue_adj": p_adj,
        "a_better": a_better, "tested": (~np.isnan(p)).sum(axis=1),
    })


def _result_cells(result: PairwiseResult, unit: str) -> pd.DataFrame:
    t = result.table
    return pd.DataFrame({"unit": unit, "system_a": t["system_a"].astype(str).to_numpy(),
                         "system_b": t["system_b"].astype(str).to_numpy(),
                         "pvalue": t["pvalue"].to_numpy(float),
                         "effect_size": t["effect_size"].to_numpy(float),
                         "effect_name": t["effect_name"].to_numpy(object),
                         "n": t["n"].to_numpy(float)})


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
    cells = pd.concat([_result_cells(r, u) for r, u in zip(results, units, strict=True)],
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

def _choose(df: pd.DataFrame, benchmarks: Sequence[str] | None, metrics: Sequence[str] | None
            ) -> tuple[list[str], dict[str, list[str]]]:
    missing = [c for c in REQUIRED_COLUMNS if c not in df.columns]
    if missing:
        raise ValueError(f"df: must be a long table with columns {list(REQUIRED_COLUMNS)}; "
                         f"missing {missing}")
    present = [str(b) for b in pd.unique(df["benchmark"])]
    chosen = present if benchmarks is None else list(benchmarks)
    unknown = [b for b in chosen if b not in present]
    if unknown or not chosen or len(set(chosen)) != len(chosen):
        raise ValueError(f"benchmarks: need distinct benchmarks of the table {present!r}; "
                         f"got {chosen!r}")
    per: dict[str, list[str]] = {}
    for b in chosen:
        on_b = [str(m) for m in pd.unique(df.loc[df["benchmark"] == b, "metric"])]
        per[b] = on_b if metrics is None else [m for m in metrics if m in on_b]
        if not per[b]:
            raise ValueError(f"metrics: none of {list(metrics or [])!r} is measured on "
                             f"benchmark {b!r} (it has {on_b!r})")
    return chosen, per


def _benchmark_matrix(df: pd.DataFrame, benchmark: str, metrics: list[str],
                      weights: Mapping[str, float] | None,
                      specs: Mapping[tuple[str, str], MetricSpec]) -> ScoreMatrix:
    """The benchmark's one metric, or the §6.1 aggregate of its several metrics."""
    if len(metrics) == 1:
        return build_matrix(df, benchmark=benchmark, metric=metrics[0],
                            spec=spec_of(df, benchmark, metrics[0], specs))
    taken = set(df.loc[df["benchmark"] == benchmark, "metric"])
    name = next(n for n in ("aggregate", *(f"aggregate_{i}" for i in range(1, 100)))
                if n not in taken)
    mine = {m: weights.get(m, 0.0) for m in metrics} if weights is not None else None
    rows = aggregate_metric(df, benchmark=benchmark, metrics=metrics, weights=mine,
                            specs=specs, name=name)
    return build_matrix(rows, benchmark=benchmark, metric=name,
                        spec=MetricSpec(higher_is_better=True, binary=False))


def _summaries(matrices: Sequence[ScoreMatrix], systems: Sequence[str]
               ) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Oriented means, SDs and counts, systems × benchmarks (NaN where a system is missing)."""
    shape = (len(systems), len(matrices))
    means, sds, counts = np.full(shape, np.nan), np.full(shape, np.nan), np.zeros(shape)
    where = {s: i for i, s in enumerate(systems)}
    for j, m in enumerate(matrices):
        x = m.oriented(paired=False)
        has = ~np.isnan(x)
        n = has.sum(axis=1)
        mean = np.where(has, x, 0.0).sum(axis=1) / np.maximum(n, 1)
        spread = (np.where(has, x - mean[:, None], 0.0) ** 2).sum(axis=1)
        rows = [where[s] for s in m.systems]
        means[rows, j] = mean
        sds[rows, j] = np.where(n > 1, np.sqrt(spread / np.maximum(n - 1, 1)), np.nan)
        counts[rows, j] = n
    return means, sds, counts


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
    specs = specs or {}
    chosen, per = _choose(df, benchmarks, metrics)
    if weights is not None and not isinstance(weights, Mapping):
        if metrics is None:
            raise ValueError("weights: a list of weights needs the metrics it belongs to; "
                             "pass metrics=[...] or a mapping metric → weight")
        weights = dict(zip(metrics, metric_weights(list(metrics), weights), strict=True))
    bw = metric_weights(chosen, benchmark_weights)
    matrices = [_benchmark_matrix(df, b, per[b], weights, specs) for b in chosen]
    systems = list(dict.fromkeys(s for m in matrices for s in m.systems))
    if len(systems) < 2:
        raise ValueError(f"df: at least 2 systems are needed to rank; got {systems!r}")
    means, sds, counts = _summaries(matrices, systems)
    scores = standardized_means(means, sds, counts, weights=bw, alpha=options.alpha)
    order = sorted(range(len(systems)), key=lambda i: (-np.nan_to_num(scores.score[i], nan=-np.inf),
                                                      systems[i]))
    ordered = [systems[i] for i in order]
    rank_of = {s: i for i, s in enumerate(ordered)}
    alternative = "two-sided" if options.compare == "all" else "greater"
    two_sided = options.with_(compare="all", alternative="two-sided")
    cells, tests, notes = [], [], []
    for b, m in zip(chosen, matrices, strict=True):
        if m.n_systems < 2:
            notes.append(f"{b}: only one system ({m.systems[0]}), nothing to compare there.")
            continue
        board = leaderboard(m, two_sided, bt_resamples=0)  # rating intervals are not shown here
        cells.append(board.table[["system", "mean", "ci_low", "ci_high", "group"]].assign(benchmark=b))
        if alternative == "two-sided":
            result = board.pairwise
        else:  # the ordered set, right-tailed: each benchmark's systems in the overall order
            present = sorted(m.systems, key=rank_of.__getitem__)
            result = pairwise_tests(m.subset(present), two_sided.with_(alternative="greater"))
        tests.append(_result_cells(result, b))
    omega = _omega(ordered, options.compare)
    tested = _orient(pd.concat(tests, ignore_index=True), rank_of) if tests else \
        pd.DataFrame(columns=["unit", "system_a", "system_b", "pvalue", "effect_size",
                              "effect_name", "n"])
    pairs = _combine(tested, omega, chosen, bw, alpha=options.alpha, criterion=options.criterion,
                     alternative=alternative)
    quality = [float(np.nan_to_num(scores.score[systems.index(s)], nan=-np.inf)) for s in ordered]
    groups = find_groups(ordered, quality, pairs)
    table = pd.DataFrame({
        "system": ordered,
        "score": [scores.score[systems.index(s)] for s in ordered],
        "ci_low": [scores.ci_low[systems.index(s)] for s in ordered],
        "ci_high": [scores.ci_high[systems.index(s)] for s in ordered],
        "rank": pd.Series(quality).rank(method="min", ascending=False).astype(int).to_numpy(),
        "rank_low": [groups.rank_low[s] for s in ordered],
        "rank_high": [groups.rank_high[s] for s in ordered],
        "group": [groups.letters[s] for s in ordered],
    })
    cell_table = (pd.concat(cells, ignore_index=True) if cells else
                  pd.DataFrame(columns=["system", "mean", "ci_low", "ci_high", "group", "benchmark"]))
    cell_table = cell_table[["system", "benchmark", "mean", "ci_low", "ci_high", "group"]]
    if not groups.complete:
        notes.append("Groups are not shown: too many maximal cliques.")
    return Overall(table, cell_table, pairs, groups, groups.cliques, tuple(chosen),
                   {b: tuple(per[b]) for b in chosen}, tuple(float(x) for x in bw), options,
                   alternative, len(omega) * len(chosen), tuple(notes))
