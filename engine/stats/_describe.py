"""Boxplot statistics per system, computed here so charts carry five numbers, not every sample."""

from __future__ import annotations

import warnings
from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np
import pandas as pd

__all__ = ["BOX_COLUMNS", "BoxStats", "box_stats"]

BOX_COLUMNS = ("system", "n", "mean", "whisker_low", "q1", "median", "q3", "whisker_high",
               "outliers")


@dataclass(frozen=True)
class BoxStats:
    """Tukey boxplot statistics of one sample per system, with the whisker reach used.

    ``table``: one row per system (input order) with the columns of
    ``BOX_COLUMNS``; ``outliers``: one row per point beyond the whiskers, with
    columns system and value.
    """

    table: pd.DataFrame
    outliers: pd.DataFrame
    whis: float


def _validate(samples: np.ndarray, systems: Sequence[str], whis: float) -> np.ndarray:
    x = np.asarray(samples, dtype=float)
    if x.ndim != 2:
        raise ValueError(f"samples: must be 2-D (samples × systems); got {x.ndim} dimension(s)")
    if x.shape[1] != len(systems):
        raise ValueError(f"systems: need one name per column of samples ({x.shape[1]}); "
                         f"got {len(systems)}")
    if not whis >= 0:
        raise ValueError(f"whis: must be a non-negative number of IQRs; got {whis!r}")
    return x


def box_stats(samples: np.ndarray, systems: Sequence[str], *, whis: float = 1.5) -> BoxStats:
    """Quartiles, whiskers and outliers of every column of ``samples`` (NaN = no sample).

    Parameters
    ----------
    samples : array, shape (n_samples, n_systems)
        Column j holds system j's sample: its per-example scores, or its
        bootstrap means or ranks.
    systems : sequence of str
        Column names.
    whis : float, keyword-only
        Whisker reach in interquartile ranges.

    Returns
    -------
    BoxStats
        ``table`` columns: system, n, mean, whisker_low, q1, median, q3,
        whisker_high, outliers (count).

    Notes
    -----
    Quartiles interpolate linearly (numpy's default percentile). Whiskers end
    at the most extreme sample within ``q1 − whis·IQR`` and ``q3 + whis·IQR``
    (Tukey 1977), as matplotlib's ``cbook.boxplot_stats`` and Vega-Lite's
    boxplot draw them.
    """
    x = _validate(samples, systems, whis)
    has = ~np.isnan(x)
    with warnings.catch_warnings():  # a system without samples gets NaN, not a warning
        warnings.simplefilter("ignore", RuntimeWarning)
        q1, median, q3 = np.nanpercentile(x, [25, 50, 75], axis=0)
        iqr = q3 - q1
        low_fence, high_fence = q1 - whis * iqr, q3 + whis * iqr
        inside = has & (x >= low_fence) & (x <= high_fence)
        whisker_low = np.where(inside, x, np.inf).min(axis=0)
        whisker_high = np.where(inside, x, -np.inf).max(axis=0)
        mean = np.nanmean(x, axis=0)
    outside = has & ~inside
    rows, cols = np.nonzero(outside)
    names = np.asarray(systems, dtype=object)
    table = pd.DataFrame({
        "system": list(systems), "n": has.sum(axis=0), "mean": mean,
        "whisker_low": np.where(np.isfinite(whisker_low), whisker_low, np.nan), "q1": q1,
        "median": median, "q3": q3,
        "whisker_high": np.where(np.isfinite(whisker_high), whisker_high, np.nan),
        "outliers": outside.sum(axis=0),
    })
    outliers = pd.DataFrame({"system": names[cols], "value": x[rows, cols]})
    return BoxStats(table, outliers.sort_values("system", kind="stable").reset_index(drop=True),
                    float(whis))

