"""Every challenger's sequence against one baseline, their observations found together.

:func:`watch_frames` gives, for each candidate, what :func:`~._arrivals.watch_frame` gives
for the pair — the same observations in the same order, hence the same sequence — but when
every system scored each example once (no runs) and no clusters are streamed, it lays the
rows out once as systems × examples arrays of arrival batch, row position and score: a
pair's arrivals are then an element-wise maximum and one sort, not a pair of pandas
selections, a factorisation and a sorted frame (the Watch page's 77 challengers on
humaneval). Otherwise it runs :func:`~._arrivals.watch_frame` per pair.
"""

from __future__ import annotations

from typing import Any

import numpy as np
import pandas as pd

from .._options import TestOptions, resolve
from ._arrivals import Arrivals, WatchReport, choose_bounds, pair_report, watch_frame

__all__ = ["watch_frames"]

_NEVER = np.iinfo(np.int64).max


def watch_frames(frame: pd.DataFrame, *, baseline: str, candidates: list[str], benchmark: str,
                 metric: str, higher_is_better: bool = True, binary: bool | None = None,
                 cluster: str | None = None, options: TestOptions | None = None,
                 bounds: tuple[float, float] | None | str = "auto", breaks: int = 1000,
                 sigma: float | None = None, max_n: int | None = None) -> list[WatchReport]:
    """:func:`~._arrivals.watch_frame` of each of ``candidates`` against ``baseline`` on
    ``frame`` (one benchmark and metric: columns ``system, example_id, value, batch``, rows
    in arrival order within a batch); ``options``: its ``alpha`` (default ``TestOptions()``)."""
    opts = resolve(options, {})
    settings: dict[str, Any] = {"benchmark": benchmark, "metric": metric,
                                "breaks": breaks, "sigma": sigma, "max_n": max_n}
    layout = None if cluster is not None else _layout(frame)
    if layout is None:  # each pair on its own rows, as the store reads one watch's
        rows = frame.groupby("system", sort=False).indices
        return [watch_frame(frame.iloc[np.sort(np.concatenate([rows[baseline], rows[c]]))],
                            baseline=baseline, candidate=c, binary=binary, bounds=bounds,
                            higher_is_better=higher_is_better, cluster=cluster, options=opts,
                            **settings)
                for c in candidates]
    systems, names, batch, pos, value = layout
    row = {str(s): i for i, s in enumerate(systems)}
    present = batch < _NEVER
    # choose_bounds' "auto" rule per system, on the layout: every score in [0, 1] (NaN is not)
    in_unit = np.all(~present | ((value >= 0.0) & (value <= 1.0)), axis=1)
    sign = 1.0 if higher_is_better else -1.0
    b = row[baseline]
    reports = []
    for c in candidates:
        if c == baseline:
            raise ValueError(f"candidate: must differ from the baseline; got {c!r} for both")
        k = row[c]
        keep = np.flatnonzero(present[b] & present[k])
        arrival = np.maximum(batch[b, keep], batch[k, keep])
        order = np.lexsort((np.maximum(pos[b, keep], pos[k, keep]), arrival))
        arr = Arrivals(sign * (value[k, keep] - value[b, keep])[order], arrival[order],
                       names[keep][order], "example")
        chosen = choose_bounds(bool(in_unit[b] and in_unit[k]), binary, bounds)
        reports.append(pair_report(arr, chosen, baseline=baseline, candidate=c, cluster=None,
                                   alpha=opts.alpha, **settings))
    return reports


def _layout(frame: pd.DataFrame) -> tuple[pd.Index, np.ndarray, np.ndarray, np.ndarray,
                                           np.ndarray] | None:
    """Systems, example names (sorted) and systems × examples arrays of each score's batch
    (``_NEVER`` where missing), row position and value; None when some system scored an
    example more than once (runs: the pair path averages them per batch)."""
    systems_code, systems = pd.factorize(frame["system"])
    examples, names = pd.factorize(frame["example_id"], sort=True)
    cell = systems_code * len(names) + examples
    if np.bincount(cell, minlength=1).max(initial=0) > 1:
        return None
    shape = (len(systems), len(names))
    batch = np.full(shape, _NEVER, dtype=np.int64)
    pos = np.full(shape, _NEVER, dtype=np.int64)
    value = np.full(shape, np.nan)
    batch.flat[cell] = frame["batch"].to_numpy(np.int64)
    pos.flat[cell] = np.arange(len(frame))
    value.flat[cell] = frame["value"].to_numpy(np.float64)
    return systems, np.asarray(names), batch, pos, value
