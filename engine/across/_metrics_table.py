"""The heatmap table across metrics (Ackerman et al. 2025, §5.2): one row per pair, one column
per metric.

Chain of named steps: validate → align every metric's pairs to one orientation
→ combine each pair's raw p-values over the metrics (Wilson's harmonic mean
p-value, asymptotically exact from the Landau distribution) → order → wide table.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np
import pandas as pd

from ..stats._pairwise import PairwiseTests
from ._hmp import hmp_rows

__all__ = ["ACROSS_VALUES", "MetricsTable", "pairs_across_metrics"]

ACROSS_VALUES = ("pvalue_adj", "effect_size")
_TABLE_COLUMNS = ("system_a", "system_b", "p_hmp", "p_hmp_adj", "hmp_stat", "significant_in",
                  "conflict")


@dataclass(frozen=True)
class MetricsTable:
    """Pairwise results of several metrics of one benchmark, side by side.

    ``table``: one row per pair, most significant across metrics first, with
    columns system_a, system_b, ``p_hmp`` (the pair's p-values combined over the
    metrics that tested it: Wilson's harmonic mean p-value, Landau-exact, in a
    family of L = pairs × metrics tests with equal weights), ``p_hmp_adj`` (the
    same adjusted for the pair's share of the family, ``p_hmp · L / k``; compare
    it with alpha), ``hmp_stat`` (the raw harmonic mean statistic k / Σ 1/p, an
    ordering statistic, not a p-value), ``significant_in`` (number of metrics where
    the pair differs significantly), ``conflict`` (significant in both directions),
    then one column per metric holding ``value`` where the pair is significant on
    that metric and NaN where it is not.
    ``cells``: the same in long form, one row per (pair, metric), with
    ``direction`` +1 when system_a is better on that metric, −1 when system_b
    is, 0 for a tie.
    """

    table: pd.DataFrame
    cells: pd.DataFrame
    metrics: tuple[str, ...]
    value: str
    benchmark: str


def _validate(results: Sequence[PairwiseTests], value: str) -> None:
    if value not in ACROSS_VALUES:
        raise ValueError(f"value: must be one of {', '.join(ACROSS_VALUES)}; got {value!r}")
    if not results:
        raise ValueError("results: need the pairwise results of at least one metric; got none")
    benchmarks = sorted({r.benchmark for r in results})
    if len(benchmarks) > 1:
        raise ValueError(f"results: all metrics must come from one benchmark; got {benchmarks!r}")
    metrics = [r.metric for r in results]
    clash = sorted(set(metrics) & set(_TABLE_COLUMNS))
    if clash:
        raise ValueError(f"results: metric names {clash!r} clash with the table's own columns "
                         f"{list(_TABLE_COLUMNS)!r}; rename those metrics")
    repeated = sorted({m for m in metrics if metrics.count(m) > 1})
    if repeated:
        raise ValueError(f"results: each metric may appear once; repeated: {repeated!r}")


def _cells(result: PairwiseTests) -> pd.DataFrame:
    """One metric's pairs in long form, in that metric's own orientation."""
    t = result.table
    a_better = t["a_better"].to_numpy(bool)
    return pd.DataFrame({
        "system_a": t["system_a"].astype(str).to_numpy(),
        "system_b": t["system_b"].astype(str).to_numpy(),
        "metric": result.metric, "pvalue": t["pvalue"].to_numpy(float),
        "pvalue_adj": t["pvalue_adj"].to_numpy(float),
        "effect_size": t["effect_size"].to_numpy(float),
        "significant": t["significant"].to_numpy(bool),
        "direction": np.where(a_better, 1, np.where(t["diff"].to_numpy(float) != 0, -1, 0)),
    })


def _align(cells: pd.DataFrame) -> pd.DataFrame:
    """Turn every pair to the orientation of the first metric that tests it."""
    a, b = cells["system_a"].to_numpy(object), cells["system_b"].to_numpy(object)
    unordered = np.where(a < b, a + "\x00" + b, b + "\x00" + a)
    first_a = cells["system_a"].groupby(unordered, sort=False).transform("first")
    flip = (cells["system_a"] != first_a).to_numpy()
    sign = np.where(flip, -1, 1)
    return cells.assign(system_a=np.where(flip, b, a), system_b=np.where(flip, a, b),
                        effect_size=sign * cells["effect_size"].to_numpy(float),
                        direction=sign * cells["direction"].to_numpy())


def _aggregate(cells: pd.DataFrame, n_metrics: int) -> pd.DataFrame:
    """Per pair: the combined p-value over metrics and the significance counts.

    The family is every (pair, metric) test, L = pairs × metrics, each with weight
    1/L; a pair's set holds its k tested metrics (Wilson 2019's multilevel test).
    """
    flagged = cells.assign(
        up=cells["significant"] & (cells["direction"] > 0),
        down=cells["significant"] & (cells["direction"] < 0),
    )
    grouped = flagged.groupby(["system_a", "system_b"], sort=False)
    out = grouped.agg(significant_in=("significant", "sum"), up=("up", "any"),
                      down=("down", "any")).reset_index()
    wide = flagged.pivot(index=["system_a", "system_b"], columns="metric", values="pvalue")
    wide = wide.reindex(pd.MultiIndex.from_frame(out[["system_a", "system_b"]]))
    p = wide.to_numpy(float).clip(min=np.finfo(float).tiny)
    family = max(len(out) * n_metrics, 1)
    stat, p_hmp, p_adj, _ = hmp_rows(p, np.full(p.shape, 1.0 / family), L=family)
    out["p_hmp"], out["p_hmp_adj"], out["hmp_stat"] = p_hmp, p_adj, stat
    out["conflict"] = out["up"] & out["down"]
    return out[list(_TABLE_COLUMNS)]


def pairs_across_metrics(results: Sequence[PairwiseTests], *, value: str = "pvalue_adj"
                         ) -> MetricsTable:
    """Compare every pair of systems on several metrics of one benchmark at once.

    Parameters
    ----------
    results : sequence of PairwiseTests
        One result per metric of the same benchmark (same test options), in the
        column order wanted.
    value : {"pvalue_adj", "effect_size"}, keyword-only
        What a significant cell shows: the adjusted p-value or the effect size
        (positive = system_a better).

    Returns
    -------
    MetricsTable
        ``table`` columns: system_a, system_b, p_hmp, p_hmp_adj, hmp_stat,
        significant_in, conflict, then one column per metric (NaN = not
        significant on that metric).

    Notes
    -----
    Rows are ordered by the combined p-value, smallest first, then by name (the
    order by aggregate significance of Ackerman et al. 2025, §5.2). With weights 1/L the
    harmonic mean statistic of a pair's k tests is ``k / Σ 1/p_k``; its
    asymptotically exact p-value is ``(k/L) · P(Landau > Σ (1/L)/p_k · L …)``, i.e.
    :func:`engine.across._hmp.hmp_rows` (R's ``harmonicmeanp::p.hmp``, version 3).
    A pair tested on some metrics only (systems missing from a metric) is
    combined over the metrics that tested it. Orientation: a pair keeps the
    order of the first metric that tests it.

    References
    ----------
    Wilson, D. J. (2019). The harmonic mean p-value for combining dependent
    tests. PNAS 116(4), 1195–1200. Ackerman, Farchi, Raz & Toledo (2025). Statistical multi-metric evaluation
    and visualization of LLM system predictive performance. arXiv:2501.18243,
    §5.2 (heatmap table) and §6.2.
    """
    _validate(results, value)
    cells = _align(pd.concat([_cells(r) for r in results], ignore_index=True))
    order = _aggregate(cells, len(results)).sort_values(["p_hmp", "system_a", "system_b"],
                                                        kind="stable")
    shown = cells.assign(shown=cells[value].where(cells["significant"]))
    wide = shown.pivot(index=["system_a", "system_b"], columns="metric", values="shown")
    metrics = tuple(r.metric for r in results)
    table = order.merge(wide.reindex(columns=list(metrics)).reset_index(),
                        on=["system_a", "system_b"], how="left").reset_index(drop=True)
    table.columns.name = None
    return MetricsTable(table, cells.reset_index(drop=True), metrics, value, results[0].benchmark)
