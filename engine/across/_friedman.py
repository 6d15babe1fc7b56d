"""Friedman test, mean ranks and the Nemenyi critical difference across benchmarks (Demšar 2006).

Systems are ranked within each benchmark (1 = best, ties share the mean
rank); the Friedman test asks whether the mean ranks differ more than chance
allows, and the Nemenyi critical difference says which pairs of mean ranks
are far enough apart to call the systems different.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np
import pandas as pd
from scipy import stats

from .._matrix import ScoreMatrix, orient
from .._options import TestOptions, resolve
from ..ranking._rank_intervals import _studentized_range_crit

__all__ = ["Friedman", "friedman", "friedman_of"]


@dataclass(frozen=True)
class Friedman:
    """Friedman test across blocks (benchmarks) and the Nemenyi post-hoc comparison.

    ``mean_ranks``: system → mean rank (1 = best), best first. ``statistic`` is
    the tie-corrected chi-square (= scipy.stats.friedmanchisquare);
    ``statistic_uncorrected`` is Demšar's χ²_F without the tie correction;
    ``f_statistic`` / ``f_pvalue`` are Iman & Davenport's F_F on the corrected
    chi-square (``f_statistic_uncorrected``: on Demšar's χ²_F). ``pairs``
    columns: system_a, system_b, rank_difference, significant
    (|difference| > critical_difference).
    """

    mean_ranks: pd.Series
    statistic: float
    pvalue: float
    statistic_uncorrected: float
    f_statistic: float
    f_pvalue: float
    f_statistic_uncorrected: float
    critical_difference: float
    q_alpha: float
    pairs: pd.DataFrame
    n_blocks: int
    alpha: float
    blocks: tuple[str, ...]


def friedman(
    scores: pd.DataFrame | np.ndarray,
    *,
    alpha: float = 0.05,
    higher_is_better: bool = True,
    systems: Sequence[str] | None = None,
) -> Friedman:
    """Friedman test and Nemenyi critical difference on a blocks × systems table.

    Parameters
    ----------
    scores : DataFrame or ndarray (N blocks, k systems)
        One row per benchmark (block), one column per system; no missing cells.
    alpha : float, keyword-only
        Level of the Nemenyi comparison.
    higher_is_better : bool, keyword-only
        Rank 1 = the highest score in a block (False: the lowest).
    systems : sequence of str, optional
        Column names when ``scores`` is an array.

    Returns
    -------
    Friedman

    Notes
    -----
    With R_j the mean rank of system j over N blocks and k systems,
    χ²_F = 12N / (k(k+1)) · (Σ_j R_j² − k(k+1)²/4) (Demšar eq. 1), divided by
    1 − Σ(t³ − t) / (N(k³ − k)) over tie groups t for the corrected version;
    F_F = (N − 1) χ²_F / (N(k − 1) − χ²_F) ~ F(k − 1, (k − 1)(N − 1)).
    Nemenyi: CD = q_α √(k(k+1) / (6N)) with q_α the studentized range
    quantile q(1 − α; k, ∞) / √2.

    References
    ----------
    Demšar (2006), Statistical comparisons of classifiers over multiple data
    sets, JMLR 7:1–30, §3.2.2 and Table 5; Friedman (1937); Iman & Davenport (1980).

    Examples
    --------
    >>> import numpy as np
    >>> res = friedman(np.array([[0.9, 0.8, 0.7], [0.8, 0.9, 0.6], [0.9, 0.7, 0.8]]),
    ...                systems=["A", "B", "C"])
    >>> res.mean_ranks.round(3).to_dict()
    {'A': 1.333, 'B': 2.0, 'C': 2.667}
    """
    table = _as_table(scores, systems)
    if not 0.0 < alpha < 1.0:
        raise ValueError(f"alpha: must be strictly between 0 and 1; got {alpha}")
    x = table.to_numpy(dtype=float)
    n, k = x.shape
    if n < 2 or k < 2:
        raise ValueError(f"scores: need at least 2 blocks and 2 systems; got {n} × {k}")
    ranks = stats.rankdata(-x if higher_is_better else x, axis=1)  # 1 = best, ties averaged
    mean_ranks = ranks.mean(axis=0)
    chi2 = 12.0 * n / (k * (k + 1)) * ((mean_ranks**2).sum() - k * (k + 1) ** 2 / 4.0)
    chi2_corrected = chi2 / _tie_correction(ranks)
    pvalue = float(stats.chi2.sf(chi2_corrected, k - 1))
    df1, df2 = k - 1, (k - 1) * (n - 1)
    f, f_uncorrected = _iman_davenport(chi2_corrected, n, k), _iman_davenport(chi2, n, k)
    q = _studentized_range_crit(float(alpha), k)
    cd = q * np.sqrt(k * (k + 1) / (6.0 * n))
    names = list(table.columns)
    ia, ja = np.triu_indices(k, 1)
    diff = mean_ranks[ia] - mean_ranks[ja]
    pairs = pd.DataFrame({"system_a": [names[i] for i in ia], "system_b": [names[j] for j in ja],
                          "rank_difference": diff, "significant": np.abs(diff) > cd})
    order = np.argsort(mean_ranks, kind="stable")
    series = pd.Series(mean_ranks[order], index=[names[i] for i in order], name="mean_rank")
    return Friedman(series, float(chi2_corrected), pvalue, float(chi2), float(f),
                    float(stats.f.sf(f, df1, df2)) if np.isfinite(f) else 0.0, f_uncorrected,
                    float(cd), q,
                    pairs, n, alpha, tuple(str(b) for b in table.index))


def _iman_davenport(chi2: float, n: int, k: int) -> float:
    """F_F = (N − 1) χ² / (N(k − 1) − χ²); infinite when every block ranks the same."""
    denom = n * (k - 1) - chi2
    return float((n - 1) * chi2 / denom) if denom > 1e-12 else float("inf")


def _tie_correction(ranks: np.ndarray) -> float:
    """1 − Σ(t³ − t) / (N(k³ − k)) over the tie groups of every block (as scipy)."""
    n, k = ranks.shape
    ties = 0.0
    for row in ranks:  # one call per block: blocks are few (benchmarks)
        _, counts = np.unique(row, return_counts=True)
        ties += float((counts**3 - counts).sum())
    correction = 1.0 - ties / (n * (k**3 - k))
    return correction if correction > 0 else 1.0


def _as_table(scores: pd.DataFrame | np.ndarray, systems: Sequence[str] | None) -> pd.DataFrame:
    if isinstance(scores, pd.DataFrame):
        table = scores
    else:
        arr = np.asarray(scores, dtype=float)
        if arr.ndim != 2:
            raise ValueError(f"scores: must be a 2-D blocks × systems table; got {arr.ndim} dimension(s)")
        cols = list(systems) if systems is not None else [str(i) for i in range(arr.shape[1])]
        if len(cols) != arr.shape[1]:
            raise ValueError(f"systems: must name the {arr.shape[1]} columns; got {len(cols)}")
        table = pd.DataFrame(arr, columns=cols)
    if table.isna().to_numpy().any():
        raise ValueError("scores: must have a score for every system in every block; "
                         "drop the systems or blocks with missing cells")
    return table


def friedman_of(matrices: Sequence[ScoreMatrix], *, options: TestOptions | None = None
                ) -> Friedman:
    """:func:`friedman` over benchmarks, on each system's mean score per benchmark.

    Each matrix is one benchmark (and metric), oriented by its own direction.
    Only systems present in every benchmark are compared; a ValueError names
    the benchmarks when fewer than 2 systems are shared. ``options``: its ``alpha`` (default
    ``TestOptions()``).
    """
    alpha = resolve(options, {}).alpha
    if len(matrices) < 2:
        raise ValueError(f"matrices: need at least 2 benchmarks; got {len(matrices)}")
    rows = {}
    for m in matrices:  # one entry per benchmark
        has = ~np.isnan(m.values)
        mean = np.where(has, m.values, 0.0).sum(axis=1) / np.maximum(has.sum(axis=1), 1)
        quality = orient(mean, higher_is_better=m.higher_is_better, binary=m.binary)
        rows[f"{m.benchmark}/{m.metric}"] = pd.Series(quality, index=list(m.systems))
    table = pd.DataFrame(rows).T.dropna(axis=1)
    if table.shape[1] < 2:
        raise ValueError(f"matrices: fewer than 2 systems are scored on every benchmark "
                         f"({', '.join(rows)})")
    return friedman(table, alpha=alpha)
