"""Simultaneous confidence intervals for ranks, Tukey-based (Al Mohamad, Goeman & van Zwet 2022).

From each system's estimate and standard error, every pair is compared with
Tukey's honest significant difference; a system's rank interval runs from
1 + (systems significantly better) to (systems not significantly worse). The
intervals hold for all systems together with probability at least 1 − alpha.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from functools import lru_cache

import numpy as np
import pandas as pd
from scipy import stats

from .._matrix import ScoreMatrix, orient
from .._options import TestOptions, resolve
from ..stats._clusters import ClusterDesign, clustered_mean_se
from ._max_t import _family_max
from ._ties import competition_ranks

__all__ = ["RANK_INTERVAL_COLUMNS", "RankIntervals", "rank_intervals", "rank_intervals_of"]

RANK_INTERVAL_COLUMNS = ("system", "estimate", "se", "rank", "rank_ci_low", "rank_ci_high")


@dataclass(frozen=True)
class RankIntervals:
    """Simultaneous rank intervals and what produced them.

    ``table`` columns: system, estimate, se, rank (1 = best; ties share the best
    rank), rank_ci_low, rank_ci_high; rows best first. ``critical_value`` is the
    1 − alpha quantile of max_{i<j} |Z_i − Z_j| / √(σ_i² + σ_j²) under no difference.
    """

    table: pd.DataFrame
    critical_value: float
    alpha: float
    higher_is_better: bool
    equal_se: bool
    n_draws: int | None
    seed: int | None


def _validate(estimates: np.ndarray, ses: np.ndarray, alpha: float,
              labels: Sequence[str] | None) -> list[str]:
    if not 0.0 < alpha < 1.0:
        raise ValueError(f"alpha: must be strictly between 0 and 1; got {alpha}")
    if estimates.ndim != 1 or len(estimates) == 0:
        raise ValueError(f"estimates: must be a non-empty 1-D array; got shape {estimates.shape}")
    if ses.shape != estimates.shape:
        raise ValueError(f"ses: must have one value per estimate ({len(estimates)}); "
                         f"got shape {ses.shape}")
    if not np.isfinite(estimates).all():
        raise ValueError("estimates: must be finite numbers; got NaN or infinity")
    if not (np.isfinite(ses).all() and (ses > 0).all()):
        raise ValueError(f"ses: must be positive finite numbers; got {ses[~(ses > 0)][:3].tolist()} "
                         "among them")
    names = [str(i) for i in range(len(estimates))] if labels is None else [str(s) for s in labels]
    if len(names) != len(estimates):
        raise ValueError(f"labels: must have one label per estimate ({len(estimates)}); "
                         f"got {len(names)}")
    return names


@lru_cache(maxsize=256)
def _studentized_range_crit(alpha: float, s: int) -> float:
    """q(1 − α; S, ∞) / √2, cached: scipy integrates numerically (~10 ms a call)."""
    return float(stats.studentized_range.ppf(1.0 - alpha, s, np.inf) / np.sqrt(2.0))


def tukey_critical_value(ses: np.ndarray, alpha: float, *, n_draws: int = 10_000,
                         rng: np.random.Generator | int | None = 0) -> tuple[float, bool]:
    """The 1 − alpha quantile of the largest standardised pairwise difference under no effect.

    Equal standard errors: the studentized range quantile q(1 − α; S, ∞) / √2
    (exact, scipy.stats.studentized_range). Unequal: Monte Carlo with
    ``n_draws`` draws of Z ~ N(0, diag(σ²)), as ICRanks does. Returns
    (critical value, whether the exact formula was used).
    """
    s = len(ses)
    if s < 2:
        return 0.0, True
    if np.allclose(ses, ses[0], rtol=1e-12, atol=0.0):
        return _studentized_range_crit(float(alpha), s), True
    if n_draws < 100:
        raise ValueError(f"n_draws: must be at least 100; got {n_draws}")
    z = np.random.default_rng(rng).standard_normal((n_draws, s)) * ses
    # the rank sets' pair maximum (compiled when worth it; each unordered pair once), in
    # single precision: its rounding (~1e-7) is far below the Monte Carlo error (~1e-2)
    # and it took the Mechanisms page's first view 0.3 s on humaneval in double
    draws = np.ascontiguousarray(z.T, dtype=np.float32)
    inv = (1.0 / np.sqrt(ses[:, None] ** 2 + ses[None, :] ** 2)).astype(np.float32)
    maxima = _family_max(draws, inv, ~np.eye(s, dtype=bool))
    return float(np.quantile(maxima, 1.0 - alpha)), False


def rank_intervals(
    estimates: Sequence[float] | np.ndarray,
    ses: Sequence[float] | np.ndarray,
    *,
    alpha: float = 0.05,
    labels: Sequence[str] | None = None,
    higher_is_better: bool = True,
    n_draws: int = 10_000,
    rng: np.random.Generator | int | None = 0,
) -> RankIntervals:
    """Simultaneous 1 − alpha confidence intervals for the ranks of all systems.

    Parameters
    ----------
    estimates, ses : array-like (S,)
        Each system's estimate (e.g. its mean score) and its standard error.
    alpha : float, keyword-only
        The intervals cover all true ranks together with probability ≥ 1 − alpha.
    labels : sequence of str, optional
        System names (default "0", "1", …).
    higher_is_better : bool, keyword-only
        Rank 1 = the largest estimate (False: the smallest, as ICRanks).
    n_draws, rng : keyword-only
        Monte Carlo draws and seed of the critical value when the SEs differ.

    Returns
    -------
    RankIntervals
        ``table`` with columns system, estimate, se, rank, rank_ci_low,
        rank_ci_high, best first.

    Notes
    -----
    With T_ij = (y_i − y_j) / √(σ_i² + σ_j²) and c the critical value,
    rank_ci_low(i) = 1 + #{j : T_ji > c} and rank_ci_high(i) = S − #{j : T_ij > c}
    (for higher-is-better). Tukey's HSD controls the familywise error of all
    pairwise decisions, hence the simultaneous coverage. It assumes independent
    estimates; means on shared examples are usually positively correlated,
    which makes these intervals conservative (wider), never too narrow.

    References
    ----------
    Al Mohamad, Goeman & van Zwet (2022), Simultaneous confidence intervals for
    ranks with application to ranking institutions, Biometrics 78(1):238–247;
    R package ICRanks 3.1, ``ic.ranks(..., Method = "Tukey")``.

    Examples
    --------
    >>> res = rank_intervals([4.96, 4.37, 2.64, 2.31, 0.82], [0.5] * 5, labels=list("ABCDE"))
    >>> res.table[["system", "rank_ci_low", "rank_ci_high"]].values.tolist()
    [['A', 1, 2], ['B', 1, 3], ['C', 2, 5], ['D', 3, 5], ['E', 3, 5]]
    """
    y = np.asarray(estimates, dtype=float)
    sd = np.asarray(ses, dtype=float)
    names = _validate(y, sd, alpha, labels)
    crit, exact = tukey_critical_value(sd, alpha, n_draws=n_draws, rng=rng)
    quality = y if higher_is_better else -y
    t = (quality[:, None] - quality[None, :]) / np.sqrt(sd[:, None] ** 2 + sd[None, :] ** 2)
    better_than = (t > crit).sum(axis=1)  # row i significantly better than column j
    worse_than = (t > crit).sum(axis=0)
    table = pd.DataFrame({
        "system": names, "estimate": y, "se": sd,
        "rank": competition_ranks(quality),
        "rank_ci_low": 1 + worse_than, "rank_ci_high": len(y) - better_than,
    })
    table = table.assign(_q=quality).sort_values(["rank", "_q", "system"],
                                                   ascending=[True, False, True])
    table = table.drop(columns="_q").reset_index(drop=True)
    return RankIntervals(table, crit, alpha, higher_is_better, exact,
                         None if exact else n_draws, rng if isinstance(rng, int) else None)


def rank_intervals_of(matrix: ScoreMatrix, *, options: TestOptions | None = None,
                      n_draws: int = 10_000,
                      rng: np.random.Generator | int | None = 0,
                      cluster: ClusterDesign | None = None) -> RankIntervals:
    """:func:`rank_intervals` of each system's mean score and its standard error s / √n.

    Each system's mean uses every example it has (as the leaderboard); a system
    with fewer than 2 examples or zero variance gets the smallest positive
    standard error among the others so that it can still be compared.
    The metric's direction decides which end is rank 1. ``cluster`` (every system on
    every example): each standard error is the cluster-robust one of the leaderboard's
    clustered mean interval (CR2, :func:`engine.stats._clusters.clustered_mean_se`).
    ``options``: its ``alpha`` (intervals at 1 − alpha; default ``TestOptions()``).
    """
    alpha = resolve(options, {}).alpha
    values = matrix.values
    has = ~np.isnan(values)
    n = has.sum(axis=1)
    mean = np.where(has, values, 0.0).sum(axis=1) / np.maximum(n, 1)
    var = (np.where(has, values - mean[:, None], 0.0) ** 2).sum(axis=1) / np.maximum(n - 1, 1)
    se = np.sqrt(var / np.maximum(n, 1))
    if cluster is not None:
        if matrix.pairing != "full" or len(cluster.codes) != matrix.n_examples:
            raise ValueError("cluster: cluster-robust rank intervals need every system scored "
                             "on every example")
        se = clustered_mean_se(values, cluster)
    positive = se[se > 0]
    se = np.where(se > 0, se, positive.min() if positive.size else 1.0)
    quality = orient(mean, higher_is_better=matrix.higher_is_better, binary=matrix.binary)
    res = rank_intervals(quality, se, alpha=alpha, labels=matrix.systems, n_draws=n_draws, rng=rng)
    table = res.table.assign(estimate=mean[[matrix.systems.index(s) for s in res.table["system"]]])
    return RankIntervals(table, res.critical_value, alpha, matrix.higher_is_better, res.equal_se,
                         res.n_draws, res.seed)
