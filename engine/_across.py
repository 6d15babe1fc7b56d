"""The heatmap table across metrics (seed paper §5.2): one row per pair, one column per metric.

Chain of named steps: validate → align every metric's pairs to one orientation
→ aggregate significance per pair (harmonic mean of the raw p-values) → order
→ wide table.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np
import pandas as pd

from ._pairwise import PairwiseResult

__all__ = ["ACROSS_VALUES", "MetricsTable", "pairs_across_metrics"]

ACROSS_VALUES = ("pvalue_adj", "effect_size")
_TABLE_COLUMNS = ("system_a", "system_b", "hmp", "significant_in", "conflict")


@dataclass(frozen=True)
class MetricsTable:
    """Pairwise results of several metrics of one benchmark, side by side.

    ``table``: one row per pair, most significant across metrics first, with
    columns system_a, system_b, ``hmp`` (harmonic mean of the pair's raw
    p-values over the metrics that tested it), ``significant_in`` (number of
    metrics where the pair differs significantly), ``conflict`` (significant
    in both directions), then one column per metric holding ``value`` where the
    pair is significant on that metric and NaN where it is not.
    ``cells``: the same in long form, one row per (pair, metric), with
    ``direction`` +1 when system_a is better on that metric, −1 when system_b
    is, 0 for a tie.
    """

    table: pd.DataFrame
    cells: pd.DataFrame
    metrics: tuple[str, ...]
    value: str
    benchmark: str


def _validate(results: Sequence[PairwiseResult], value: str) -> None:
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


def _cells(result: PairwiseResult) -> pd.DataFrame:
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


def _aggregate(cells: pd.DataFrame) -> pd.DataFrame:
    """Per pair: the harmonic mean p-value (equal weights) and the significance counts."""
    grouped = cells.assign(
        inverse=1.0 / cells["pvalue"].clip(lower=np.finfo(float).tiny),
        up=cells["significant"] & (cells["direction"] > 0),
        down=cells["significant"] & (cells["direction"] < 0),
    ).groupby(["system_a", "system_b"], sort=False)
    out = grouped.agg(tested=("metric", "size"), inverse=("inverse", "sum"),
                      significant_in=("significant", "sum"), up=("up", "any"),
                      down=("down", "any")).reset_index()
    out["hmp"] = out["tested"] / out["inverse"]
    out["conflict"] = out["up"] & out["down"]
    return out[list(_TABLE_COLUMNS)]


def pairs_across_metrics(results: Sequence[PairwiseResult], *, value: str = "pvalue_adj"
                         ) -> MetricsTable:
    """Compare every pair of systems on several metrics of one benchmark at once.

    Parameters
    ----------
    results : sequence of PairwiseResult
        One result per metric of the same benchmark (same test options), in the
        column order wanted.
    value : {"pvalue_adj", "effect_size"}, keyword-only
        What a significant cell shows: the adjusted p-value or the effect size
        (positive = system_a better).

    Returns
    -------
    MetricsTable
        ``table`` columns: system_a, system_b, hmp, significant_in, conflict,
        then one column per metric (NaN = not significant on that metric).

    Notes
    -----
    Rows are ordered by the harmonic mean of each pair's raw p-values over the
    metrics, ``HMP = K / Σ 1/p_k`` (Wilson 2019, equal weights), smallest first,
    then by name. Wilson's multiplicity-adjusted p̊ is a decreasing function of
    1/HMP for a fixed number of tests, so this is also the order by adjusted
    aggregate significance that the seed paper's §5.2 uses; ``hmp`` itself is
    shown as an ordering statistic, not as an adjusted p-value. A pair tested
    on some metrics only (systems missing from a metric) is aggregated over the
    metrics that tested it. Orientation: a pair keeps the order of the first
    metric that tests it.

    References
    ----------
    Wilson, D. J. (2019). The harmonic mean p-value for combining dependent
    tests. PNAS 116(4), 1195–1200. Seed paper §5.2 (heatmap table) and §6.2.
    """
    _validate(results, value)
    cells = _align(pd.concat([_cells(r) for r in results], ignore_index=True))
    order = _aggregate(cells).sort_values(["hmp", "system_a", "system_b"], kind="stable")
    shown = cells.assign(shown=cells[value].where(cells["significant"]))
    wide = shown.pivot(index=["system_a", "system_b"], columns="metric", values="shown")
    metrics = tuple(r.metric for r in results)
    table = order.merge(wide.reindex(columns=list(metrics)).reset_index(),
                        on=["system_a", "system_b"], how="left").reset_index(drop=True)
    table.columns.name = None
    return MetricsTable(table, cells.reset_index(drop=True), metrics, value, results[0].benchmark)
