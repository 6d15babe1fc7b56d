"""A pair's tests combined across metrics or benchmarks (:func:`pairs_across`), and the
pooling step the overall leaderboard shares: the harmonic mean p-value (Wilson 2019) over
the pair's p-values and the fixed-effect pooled effect size with I² (Ackerman et al. 2025,
§6.2).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence

import numpy as np
import pandas as pd

from .._options import EFFECT_THRESHOLDS
from ..stats._pairwise import PairwiseTests
from ._aggregate import Weights, metric_weights
from ._hmp import hmp_rows
from ._meta import corrected_effect, fixed_effect

__all__ = ["ACROSS", "PAIRS_ACROSS_COLUMNS", "pairs_across", "pooling_inputs", "result_cells"]

ACROSS = ("metrics", "benchmarks")
PAIRS_ACROSS_COLUMNS = ("system_a", "system_b", "p_hmp", "p_hmp_adj", "effect", "effect_ci_low",
                        "effect_ci_high", "i2", "significant")


def result_cells(result: PairwiseTests, unit: str) -> pd.DataFrame:
    """A pairwise result as the rows the HMP and fixed-effect combination read."""
    t = result.table
    return pd.DataFrame({"unit": unit, "system_a": t["system_a"].astype(str).to_numpy(),
                         "system_b": t["system_b"].astype(str).to_numpy(),
                         "pvalue": t["pvalue"].to_numpy(float),
                         "effect_size": t["effect_size"].to_numpy(float),
                         "effect_name": t["effect_name"].to_numpy(object),
                         "n": t["n"].to_numpy(float),
                         "difference": t["difference"].to_numpy(float),
                         "ci_low": t["ci_low"].to_numpy(float),
                         "ci_high": t["ci_high"].to_numpy(float)})


def pooling_inputs(tests: pd.DataFrame) -> dict[str, np.ndarray]:
    """The p-values, corrected effects g and their variances v of :func:`result_cells` rows."""
    g, v = corrected_effect(tests["effect_size"].to_numpy(float), tests["n"].to_numpy(float),
                            tests["effect_name"].to_numpy(object))
    return {"pvalue": tests["pvalue"].to_numpy(float), "g": g, "v": v}


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
    variance: :func:`engine.across._meta.corrected_effect`) — sits at (row[i], col[i]).
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


def _validate_across(results: Sequence[PairwiseTests], across: str) -> list[str]:
    if across not in ACROSS:
        raise ValueError(f"across: must be one of {', '.join(ACROSS)}; got {across!r}")
    if not results:
        raise ValueError("results: need at least one PairwiseTests; got none")
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


def pairs_across(results: Sequence[PairwiseTests], *, across: str = "metrics",
                 weights: Weights = None) -> pd.DataFrame:
    """Combine each pair's tests over several metrics of a benchmark, or over benchmarks.

    Parameters
    ----------
    results : sequence of PairwiseTests
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
    Ackerman, Farchi, Raz & Toledo (2025). Statistical multi-metric evaluation
    and visualization of LLM system predictive performance. arXiv:2501.18243, §6.2;
    Wilson (2019), PNAS 116(4):1195–1200; Borenstein et al.
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
