"""Bootstrap distributions of system means and ranks (Ackerman et al. 2025, §3, "Exploratory
visualization").

Chain of named steps, as in ``scipy.stats._multicomp``:
validate options → resample examples (paired: one draw shared by every system;
unpaired: one draw per system; clustered: whole clusters, one draw shared by every system)
→ resampled means as a matrix product → ranks per resample → tidy summary.
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass
from typing import Any

import numpy as np
import pandas as pd
from scipy import stats

from .._matrix import ScoreMatrix, orient
from .._options import TestOptions, resolve
from ._clusters import ClusterDesign

__all__ = ["BOOTSTRAP_COLUMNS", "RankBootstrap", "bootstrap_ranks"]

BOOTSTRAP_COLUMNS = ("system", "mean", "ci_low", "ci_high", "rank", "rank_median", "rank_low",
                     "rank_high", "p_first")
# Resamples drawn per block: bounds the memory of the unpaired draw (systems × block × examples).
_CELLS_PER_BLOCK = 4_000_000


@dataclass(frozen=True)
class RankBootstrap:
    """Bootstrap means and ranks of every system, with the options that made them.

    ``means`` and ``ranks`` have shape (n_resamples, n_systems), columns in the
    order of ``systems``; means are in the metric's own units and direction,
    rank 1 is the best mean of that resample (ties share the best rank).
    ``summary`` has one row per system, best observed mean first, with the
    columns of ``BOOTSTRAP_COLUMNS``: observed ``mean``; percentile interval of
    the mean ``ci_low``/``ci_high``; observed ``rank``; ``rank_median`` and the
    percentile interval ``rank_low``/``rank_high`` of the bootstrap ranks; and
    ``p_first``, the share of resamples in which the system ranks first (a tie for
    first between k systems counts 1/k for each, so the column sums to 1).
    """

    summary: pd.DataFrame
    means: np.ndarray
    ranks: np.ndarray
    systems: tuple[str, ...]
    benchmark: str
    metric: str
    paired: bool
    n_resamples: int
    confidence: float
    higher_is_better: bool
    n_clusters: int | None = None
    """Clusters resampled (None: examples were)."""
    design_effect: np.ndarray | None = None
    """Per system (order of ``systems``), with clusters: the variance of its resampled means
    over the independent-examples variance s² / n."""

    def long(self) -> pd.DataFrame:
        """One row per (resample, system): columns resample, system, mean, rank (for plots)."""
        b, s = self.means.shape
        return pd.DataFrame({
            "resample": np.repeat(np.arange(b), s),
            "system": np.tile(np.asarray(self.systems, dtype=object), b),
            "mean": self.means.ravel(),
            "rank": self.ranks.ravel(),
        })


def _validate(matrix: ScoreMatrix, n_resamples: int, paired: bool | None) -> bool:
    if isinstance(n_resamples, bool) or not isinstance(n_resamples, int | np.integer) \
            or not 1 <= n_resamples <= 1_000_000:
        raise ValueError(f"n_resamples: must be an integer from 1 to 1,000,000; got {n_resamples!r}")
    if matrix.n_systems == 0:
        raise ValueError(f"matrix: {matrix.benchmark}/{matrix.metric} has no systems to resample")
    return matrix.use_paired(paired, what="bootstrap")


def _blocks(n_resamples: int, cells_per_resample: int) -> Iterator[int]:
    """Sizes of the resample blocks (each at most ``_CELLS_PER_BLOCK`` cells)."""
    size = max(1, _CELLS_PER_BLOCK // max(cells_per_resample, 1))
    for start in range(0, n_resamples, size):
        yield min(size, n_resamples - start)


def _paired_means(x: np.ndarray, n_resamples: int, rng: np.random.Generator) -> np.ndarray:
    """Means of every system over one shared resample of the examples: counts @ xᵀ / n."""
    n = x.shape[1]
    out = []
    for block in _blocks(n_resamples, n):
        idx = rng.integers(0, n, size=(block, n))  # the examples each resample draws
        counts = np.bincount((idx + n * np.arange(block)[:, None]).ravel(),
                             minlength=block * n).reshape(block, n)
        out.append(counts @ x.T / n)
    return np.vstack(out)


def _cluster_means(x: np.ndarray, design: ClusterDesign, n_resamples: int,
                   rng: np.random.Generator) -> np.ndarray:
    """Means of every system over one shared resample of the clusters (Davison & Hinkley
    1997, §3.8: resample the units that were sampled, here whole clusters): each resample
    draws G clusters with replacement; a mean is the drawn clusters' score sums over their
    examples (counts @ sumsᵀ / counts @ sizes)."""
    g = design.n_clusters
    member = np.zeros((x.shape[1], g))
    member[np.arange(x.shape[1]), design.codes] = 1.0
    sums = x @ member  # systems × clusters
    out = []
    for block in _blocks(n_resamples, g):
        idx = rng.integers(0, g, size=(block, g))
        counts = np.bincount((idx + g * np.arange(block)[:, None]).ravel(),
                             minlength=block * g).reshape(block, g).astype(float)
        out.append(counts @ sums.T / (counts @ design.sizes)[:, None])
    return np.vstack(out)


def _unpaired_means(values: np.ndarray, n_resamples: int, rng: np.random.Generator
                    ) -> np.ndarray:
    """Means over an independent resample of each system's own examples (NaN = not scored)."""
    has = ~np.isnan(values)
    n = has.sum(axis=1)
    # Scored cells first in every row, so index j < n_i picks among system i's own scores.
    packed = np.take_along_axis(values, np.argsort(~has, axis=1, kind="stable"), axis=1)
    width = int(n.max())
    rows = np.arange(len(values))[:, None, None]
    out = []
    for block in _blocks(n_resamples, len(values) * width):
        idx = (rng.random((len(values), block, width)) * n[:, None, None]).astype(np.intp)
        keep = np.arange(width)[None, None, :] < n[:, None, None]
        draws = np.where(keep, packed[rows, np.minimum(idx, width - 1)], 0.0)
        out.append((draws.sum(axis=2) / n[:, None]).T)
    return np.vstack(out)


def _share_first(ranks: np.ndarray) -> np.ndarray:
    """P(first) per system: a resample where k systems tie for first gives each 1/k, so
    the shares sum to 1 over systems (counting each tied system fully would exceed 1)."""
    first = ranks == 1
    per_resample = np.maximum(first.sum(axis=1, keepdims=True), 1)
    return np.asarray((first / per_resample).mean(axis=0), dtype=float)


def _ranks(quality: np.ndarray) -> np.ndarray:
    """Rank 1 = largest quality, per row; ties share the best rank (as the leaderboard)."""
    ranks: np.ndarray = stats.rankdata(-quality, method="min", axis=-1).astype(np.int64)
    return ranks


def _summary(matrix: ScoreMatrix, raw: np.ndarray, means: np.ndarray, ranks: np.ndarray,
             confidence: float) -> pd.DataFrame:
    tail = (1 - confidence) / 2 * 100
    observed = np.nanmean(raw, axis=1)
    quality = orient(observed, higher_is_better=matrix.higher_is_better, binary=False)
    low, high = np.percentile(means, [tail, 100 - tail], axis=0)
    rank_low, rank_median, rank_high = np.percentile(ranks, [tail, 50, 100 - tail], axis=0,
                                                     method="inverted_cdf")
    table = pd.DataFrame({
        "system": list(matrix.systems), "mean": observed, "ci_low": low, "ci_high": high,
        "rank": _ranks(quality), "rank_median": rank_median.astype(np.int64),
        "rank_low": rank_low.astype(np.int64), "rank_high": rank_high.astype(np.int64),
        "p_first": _share_first(ranks),
    })
    return table.sort_values(["rank", "system"], kind="stable").reset_index(drop=True)


def bootstrap_ranks(
    matrix: ScoreMatrix,
    options: TestOptions | None = None,
    /,
    *,
    n_resamples: int = 1000,
    cluster: ClusterDesign | None = None,
    **overrides: Any,
) -> RankBootstrap:
    """Bootstrap distributions of every system's mean score and rank.

    Parameters
    ----------
    matrix : ScoreMatrix
        Scores of one benchmark and metric.
    options : TestOptions, optional
        Three of its fields apply: ``alpha`` (intervals of means and ranks at
        1 - alpha, as on the leaderboard), ``paired`` and ``seed``. Paired: each
        resample draws examples once, shared by every system, from the examples
        all systems scored (ranks then reflect the same example draw, as the
        paired tests do). Unpaired: each system's own scored examples are
        resampled independently. Default: paired when at least 2 examples are
        shared by all systems.
    n_resamples : int, keyword-only
        Bootstrap resamples (1 to 1,000,000).
    cluster : ClusterDesign, optional
        The cluster of each example (every system on every example): each resample then
        draws whole clusters, shared by every system, instead of examples (paired only).
    **overrides
        Any :class:`TestOptions` field by name, applied on top of ``options``.

    Returns
    -------
    RankBootstrap
        ``summary`` columns: system, mean, ci_low, ci_high, rank, rank_median,
        rank_low, rank_high, p_first (see the class).

    Notes
    -----
    Paired means of a block of B resamples are one product ``C @ Xᵀ / n`` of the
    B × n matrix C (how often each resample drew each example) with the systems ×
    examples scores X; ranks are taken per resample with ties sharing the best rank. Intervals are
    percentile intervals (marginal per system, not simultaneous).

    References
    ----------
    Efron & Tibshirani (1993), *An Introduction to the Bootstrap*, ch. 13.
    Ackerman, Farchi, Raz & Toledo (2025). Statistical multi-metric evaluation
    and visualization of LLM system predictive performance. arXiv:2501.18243,
    §3: rank distributions "estimated by bootstrapping (either paired
    or unpaired) of the score samples, and calculating the ranks of the
    resampling means".

    Examples
    --------
    >>> from engine import ScoreMatrix
    >>> m = ScoreMatrix.from_array([[1] * 30 + [0] * 10, [1] * 12 + [0] * 28],
    ...                            systems=["A", "B"])
    >>> result = bootstrap_ranks(m, n_resamples=200, seed=0)
    >>> result.summary[["system", "rank_low", "rank_high", "p_first"]].to_dict("list")
    {'system': ['A', 'B'], 'rank_low': [1, 2], 'rank_high': [1, 2], 'p_first': [1.0, 0.0]}
    """
    opts = resolve(options, overrides)
    confidence = opts.confidence
    is_paired = _validate(matrix, n_resamples, opts.paired)
    generator = opts.rng()
    raw = matrix.paired_values() if is_paired else matrix.values
    if cluster is not None:
        if not is_paired or matrix.pairing != "full" or len(cluster.codes) != matrix.n_examples:
            raise ValueError("cluster: resampling clusters needs every system scored on every "
                             "example (paired)")
        means = _cluster_means(raw, cluster, n_resamples, generator)
    else:
        means = (_paired_means(raw, n_resamples, generator) if is_paired
                 else _unpaired_means(raw, n_resamples, generator))
    ranks = _ranks(orient(means, higher_is_better=matrix.higher_is_better, binary=False))
    summary = _summary(matrix, raw, means, ranks, confidence)
    deff = None
    if cluster is not None:
        with np.errstate(divide="ignore", invalid="ignore"):
            deff = means.var(axis=0, ddof=1) / (raw.var(axis=1, ddof=1) / raw.shape[1])
    return RankBootstrap(summary, means, ranks, matrix.systems, matrix.benchmark, matrix.metric,
                           is_paired, int(n_resamples), float(confidence),
                           matrix.higher_is_better,
                           None if cluster is None else cluster.n_clusters, deff)
