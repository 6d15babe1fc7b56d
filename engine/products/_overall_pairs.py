"""The overall leaderboard's pairs: which pairs, their benchmarks' correlation, and the
combined directional test (:mod:`engine.across._combine`) with its verdict.
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np
import pandas as pd
from scipy import stats

from .._options import EFFECT_THRESHOLDS, TestOptions
from ..across._combine import combine_differences, implied_se, shared_correlation
from ..across._hmp import hmp_rows
from ..across._meta import fixed_effect
from ..stats._multitest import adjust_pvalues
from ._overall_parts import BenchmarkPart
from ._overall_score import Scale

__all__ = ["BETTER", "MIXED", "PAIR_VERDICTS", "UNDECIDED", "combine_pairs", "correlations",
           "pair_positions"]

BETTER = "better"
MIXED = "differs by benchmark, no overall order"
UNDECIDED = "not shown to differ"
UNTESTED = "not tested"
#: A pair's verdict: system_a better overall; different on some benchmark without an
#: overall direction; not shown to differ; not in the tested set (compare first/successive).
PAIR_VERDICTS = (BETTER, MIXED, UNDECIDED, UNTESTED)


def pair_positions(ordered: Sequence[str], compare: str, order: Sequence[str] | None
                   ) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Every pair of ranked systems (a before b in rank), and which are tested, oriented how.

    Returns
    -------
    a, b : ndarray of int
        Positions in ``ordered`` (a < b): all pairs, row-major.
    tested_sign : ndarray of float
        +1 tested with H1 "a better", −1 tested with H1 "b better" (one-sided sets in the
        fixed ``order``), +1 for every pair with ``compare="all"`` (two-sided); 0 = not
        tested.
    """
    k = len(ordered)
    a, b = (x.astype(np.int64) for x in np.triu_indices(k, 1))
    if compare == "all" or order is None:
        return a, b, np.ones(len(a))
    where = {s: i for i, s in enumerate(ordered)}
    fixed = [where[s] for s in order if s in where]  # the ranked systems, in the given order
    tested = {}
    steps = ([(fixed[0], x) for x in fixed[1:]] if compare == "first" and fixed else
             list(zip(fixed[:-1], fixed[1:], strict=True)))
    for first, second in steps:  # H1: ``first`` better
        tested[(min(first, second), max(first, second))] = 1.0 if first < second else -1.0
    sign = np.array([tested.get((int(i), int(j)), 0.0) for i, j in zip(a, b, strict=True)])
    return a, b, sign


def correlations(parts: Sequence[BenchmarkPart], systems: Sequence[str]
                 ) -> tuple[dict[tuple[int, int], np.ndarray], dict[tuple[int, int], np.ndarray],
                            tuple[tuple[str, str, int], ...]]:
    """Per pair of benchmarks sharing example ids: the systems' and the pairs' correlations
    (rows/positions of ``systems``) and the list (benchmark, benchmark, shared ids)."""
    sys_corr: dict[tuple[int, int], np.ndarray] = {}
    pair_corr: dict[tuple[int, int], np.ndarray] = {}
    shared = []
    mats = []
    for p in parts:
        where = {s: i for i, s in enumerate(p.matrix.systems)}
        rows = [where[s] for s in systems]
        mats.append(p.matrix.oriented(paired=False)[rows])
    for j in range(len(parts)):
        for k in range(j + 1, len(parts)):
            common = len(set(parts[j].matrix.examples) & set(parts[k].matrix.examples))
            if common == 0:
                continue
            shared.append((parts[j].benchmark, parts[k].benchmark, common))
            s, pr = shared_correlation(mats[j], parts[j].matrix.examples, mats[k],
                                       parts[k].matrix.examples)
            sys_corr[(j, k)], pair_corr[(j, k)] = s, pr
    return sys_corr, pair_corr, tuple(shared)


def _pair_matrices(part: BenchmarkPart, systems: Sequence[str], z: float
                   ) -> dict[str, np.ndarray]:
    """The part's tests as antisymmetric (d, g) and symmetric (p, fallback se, v) matrices
    over ``systems``."""
    k = len(systems)
    out = {key: np.full((k, k), np.nan) for key in ("d", "p", "se", "g", "v")}
    if part.tests is None or part.pooling_inputs is None:
        return out
    where = {s: i for i, s in enumerate(systems)}
    ta = part.tests["system_a"].map(where)
    tb = part.tests["system_b"].map(where)
    keep = (ta.notna() & tb.notna()).to_numpy()
    ia, ib = ta[keep].to_numpy(np.int64), tb[keep].to_numpy(np.int64)
    t = part.tests[keep]
    half = (t["ci_high"].to_numpy(float) - t["ci_low"].to_numpy(float)) / (2 * z)
    for key, values, odd in (("d", t["difference"].to_numpy(float), True),
                             ("p", t["pvalue"].to_numpy(float), False),
                             ("se", half, False),
                             ("g", part.pooling_inputs["g"][keep], True),
                             ("v", part.pooling_inputs["v"][keep], False)):
        out[key][ia, ib] = values
        out[key][ib, ia] = -values if odd else values
    return out


def combine_pairs(parts: Sequence[BenchmarkPart], complete: Sequence[str], by_rank: Sequence[int],
                  positions: tuple[np.ndarray, np.ndarray, np.ndarray], weights: np.ndarray,
                  scale: Scale, corr_pairs: dict[tuple[int, int], np.ndarray],
                  options: TestOptions) -> pd.DataFrame:
    """One row per pair of ranked systems: the combined difference, its test and verdict."""
    a, b, sign = positions
    ordered = [complete[i] for i in by_rank]
    ia, ib = np.asarray(by_rank, dtype=np.int64)[a], np.asarray(by_rank, dtype=np.int64)[b]
    z = float(stats.norm.isf(options.alpha / 2))
    n_b = len(parts)
    cols: dict[str, np.ndarray] = {key: np.full((len(a), n_b), np.nan)
                                   for key in ("d", "p", "se", "g", "v")}
    for j, part in enumerate(parts):
        m = _pair_matrices(part, complete, z)
        for key in cols:
            cols[key][:, j] = m[key][ia, ib]
    se = implied_se(cols["d"], cols["p"], cols["se"])
    rho = {jk: r[ia, ib] for jk, r in corr_pairs.items()}
    a_j = weights * scale.factor
    two = combine_differences(cols["d"], se, a_j, rho, alternative="two-sided",
                              alpha=options.alpha, own_pvalue=cols["p"])
    pvalue = two.pvalue
    if options.compare != "all":  # one-sided in the fixed order, toward its H1
        flip = np.where(sign < 0, -1.0, 1.0)[:, None]
        one = combine_differences(cols["d"] * flip, se, a_j, rho, alternative="greater",
                                  alpha=options.alpha, own_pvalue=cols["p"])
        pvalue = np.where(sign != 0, one.pvalue, np.nan)
    effect, e_low, e_high, i2 = _pooled_effect(cols["g"], cols["v"], weights, rho,
                                               options.alpha)
    tested = (sign != 0) & ~np.isnan(pvalue)
    p_adj = np.full(len(a), np.nan)
    if tested.any():
        p_adj[tested] = adjust_pvalues(pvalue[tested], method=options.correction,
                                       alpha=options.alpha)
    significant = tested & (p_adj < options.alpha) & _big_enough(effect, options)
    # two-sided: the direction is the difference's sign (a is ranked higher, so a
    # significant pair is never ranked backwards); one-sided: the fixed order's H1
    a_better = two.difference >= 0 if options.compare == "all" else sign >= 0
    p_hmp, p_hmp_adj = _hmp(cols["p"], weights)
    verdict = np.where(significant, BETTER,
                       np.where(~tested, UNTESTED,
                                np.where(p_hmp_adj < options.alpha, MIXED, UNDECIDED)))
    names = np.asarray(ordered, dtype=object)
    return pd.DataFrame({
        "system_a": list(names[a]), "system_b": list(names[b]),
        "difference": two.difference, "ci_low": two.ci_low, "ci_high": two.ci_high,
        "pvalue": pvalue, "pvalue_adj": p_adj, "significant": significant,
        "a_better": a_better, "verdict": verdict, "p_hmp": p_hmp, "p_hmp_adj": p_hmp_adj,
        "effect": effect, "effect_ci_low": e_low, "effect_ci_high": e_high, "i2": i2,
        "tested": np.where(tested, two.tested, 0)})


def _big_enough(effect: np.ndarray, options: TestOptions) -> np.ndarray:
    """The effect-size criterion on top of the test (never makes a pair significant)."""
    if options.criterion == "pvalue":
        return np.ones(len(effect), dtype=bool)
    with np.errstate(invalid="ignore"):
        return np.asarray(np.abs(effect) >= EFFECT_THRESHOLDS[options.criterion])


def _hmp(p: np.ndarray, weights: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Harmonic mean p of each pair's benchmark p-values, L = pairs × benchmarks (Wilson
    2019): does the pair differ on some benchmark (either direction)?"""
    rows = max(p.shape[0], 1)
    w = np.broadcast_to(weights / rows, p.shape)
    _, p_hmp, p_adj, _ = hmp_rows(p, w, L=max(p.size, 1))
    return p_hmp, p_adj


def _pooled_effect(g: np.ndarray, v: np.ndarray, weights: np.ndarray,
                   rho: dict[tuple[int, int], np.ndarray], alpha: float
                   ) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    """The benchmarks' standardised effects (Hedges g) averaged with the score's weights —
    so its sign follows the score difference's, not the most precise benchmark's — with an
    interval that includes the benchmarks' correlation (Borenstein et al. 2009, ch. 24),
    and the fixed-effect I² of their spread."""
    if g.shape[0] == 0:
        empty = np.zeros(0)
        return empty, empty, empty, empty
    use = ~np.isnan(g) & ~np.isnan(v)
    w = np.where(use, weights[None, :], 0.0)
    with np.errstate(divide="ignore", invalid="ignore"):
        u = w / w.sum(axis=1, keepdims=True)
        effect = (u * np.where(use, g, 0.0)).sum(axis=1)
        sd = np.sqrt(np.where(use, v, 0.0))
        variance = (u ** 2 * sd ** 2).sum(axis=1)
        for (j, k), r in rho.items():
            variance = variance + 2 * r * u[:, j] * u[:, k] * sd[:, j] * sd[:, k]
    effect = np.where(use.any(axis=1), effect, np.nan)
    half = stats.norm.isf(alpha / 2) * np.sqrt(np.maximum(variance, 0.0))
    i2 = np.atleast_1d(fixed_effect(g, v, alpha=alpha).i2)
    return effect, effect - half, effect + half, i2
