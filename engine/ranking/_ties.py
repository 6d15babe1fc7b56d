"""Ranks with ties: the one rank every table of the engine shows beside an estimate.

Standard competition ranking ("1224"): rank 1 is the best value, tied values share the
best rank of their block and the next value's rank skips the block's size. It is
``scipy.stats.rankdata(-values, method="min")`` (``rankdata(values, method="min")`` when
lower is better) and pandas' ``Series.rank(method="min", ascending=False)``, written with
NumPy alone so that a table's ranks cost neither import.
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np

__all__ = ["competition_ranks"]


def competition_ranks(values: Sequence[float] | np.ndarray, *,
                      higher_is_better: bool = True) -> np.ndarray:
    """Rank of each value, 1 = best; equal values share the best rank of their block.

    Parameters
    ----------
    values : sequence of float
        One value per item (a system's estimate, score or quality), in any order; ±inf
        allowed, NaN not (leave unranked items out and rank the others).
    higher_is_better : bool, keyword-only
        True (default): the largest value ranks 1; False: the smallest does.

    Returns
    -------
    ndarray of int64
        Ranks in the order of ``values``: for k items, between 1 and k; values that
        compare equal (``==``, so 0.0 and -0.0 tie) get the same rank.

    Raises
    ------
    ValueError
        ``values`` is not one-dimensional or holds NaN.

    Examples
    --------
    >>> competition_ranks([0.7, 0.9, 0.7, 0.1]).tolist()
    [2, 1, 2, 4]
    >>> competition_ranks([0.7, 0.9, 0.7, 0.1], higher_is_better=False).tolist()
    [2, 4, 2, 1]
    """
    x = np.asarray(values, dtype=float)
    if x.ndim != 1:
        raise ValueError(f"values: must be one-dimensional; got shape {x.shape}")
    if np.isnan(x).any():
        raise ValueError(f"values: must not hold NaN; got NaN at position "
                         f"{int(np.flatnonzero(np.isnan(x))[0])} (rank the others alone)")
    key = -x if higher_is_better else x
    order = np.argsort(key, kind="stable")
    ordered = key[order]
    starts = np.ones(len(x), dtype=bool)
    starts[1:] = ordered[1:] != ordered[:-1]  # a new block of equal values begins here
    first = np.flatnonzero(starts)  # 0-based position where each block begins
    ranks = np.empty(len(x), dtype=np.int64)
    ranks[order] = first[np.cumsum(starts) - 1] + 1
    return ranks
