"""The order in which paired observations arrived: the stream a confidence sequence watches.

Rules (stated in the watch view and the ``watch`` command's help):

* An **example** arrives in the batch (upload, or DATA file) in which both systems
  first have a score for it; within a batch, in row order.
* **Runs**: its value for each system is the mean of that system's runs on it in the
  batches up to its arrival (per-example means per batch). Runs that come later do not
  change an observation already made: a sequence never revises its past.
* **Clusters** (a per-example column such as task family): the unit is the whole
  cluster, one observation = the mean difference over its examples that arrived in
  the batch where its first example arrived; its examples arriving in later batches
  are left out (counted in ``dropped``), so that each observation is independent of
  those before it. Upload clusters whole.
* The difference is candidate − baseline, oriented so positive = candidate better.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import numpy as np
import pandas as pd

__all__ = ["HISTORY_COLUMNS", "Advanced", "Arrivals", "advance", "arrivals"]


@dataclass(frozen=True)
class Arrivals:
    """Observations in arrival order: difference, batch of arrival, unit label."""

    d: np.ndarray
    batch: np.ndarray
    label: np.ndarray
    unit: str  # "example" or "cluster"
    dropped: int = 0  # examples of an already-observed cluster that arrived later

    def window(self, start: int, stop: int | None = None) -> Arrivals:
        """Observations ``start`` to ``stop`` (arrival positions; a new batch only ever
        appends: its examples arrive after every stored one)."""
        part = slice(start, stop)
        return Arrivals(self.d[part], self.batch[part], self.label[part], self.unit,
                        self.dropped)


def _example_arrivals(rows: pd.DataFrame, baseline: str, candidate: str) -> pd.DataFrame:
    """Per example present for both systems: arrival batch, order, and the run means."""
    rows = rows.assign(_pos=np.arange(len(rows)))
    first = rows.groupby(["system", "example_id"], sort=False).agg(
        first_batch=("batch", "min"), first_pos=("_pos", "min")).reset_index()
    wide = first.pivot(index="example_id", columns="system",
                       values=["first_batch", "first_pos"]).dropna()
    if wide.empty:
        return pd.DataFrame(columns=["example_id", "arrival", "order", "d_base", "d_cand"])
    arrival = wide["first_batch"].to_numpy(np.float64).max(axis=1).astype(np.int64)
    order = wide["first_pos"].to_numpy(np.float64).max(axis=1).astype(np.int64)
    done = pd.DataFrame({"example_id": wide.index, "arrival": arrival, "order": order})
    joined = rows.merge(done, on="example_id")
    counted = joined[joined["batch"] <= joined["arrival"]]
    means = counted.groupby(["example_id", "system"], sort=False)["value"].mean().unstack()
    done["d_base"] = means[baseline].reindex(done["example_id"]).to_numpy()
    done["d_cand"] = means[candidate].reindex(done["example_id"]).to_numpy()
    return done.sort_values(["arrival", "order"], kind="stable", ignore_index=True)


def arrivals(frame: pd.DataFrame, *, baseline: str, candidate: str,
             higher_is_better: bool = True, clusters: pd.Series | None = None) -> Arrivals:
    """The paired observations of ``frame`` (columns ``system, example_id, value, batch``,
    ``run`` optional; rows in arrival order within a batch) in arrival order.

    ``clusters`` maps example_id → cluster label (one per example) to stream clusters.
    """
    missing = {"system", "example_id", "value", "batch"} - set(frame.columns)
    if missing:
        raise ValueError(f"frame: columns {sorted(missing)} are needed to order arrivals")
    if baseline == candidate:
        raise ValueError(f"candidate: must differ from the baseline; got {candidate!r} for both")
    rows = frame.loc[frame["system"].isin([baseline, candidate]),
                     ["system", "example_id", "value", "batch"]]
    done = _example_arrivals(rows, baseline, candidate)
    sign = 1.0 if higher_is_better else -1.0
    d = sign * (done["d_cand"].to_numpy(np.float64) - done["d_base"].to_numpy(np.float64))
    batch = done["arrival"].to_numpy(np.int64)
    labels: Any = done["example_id"].to_numpy()
    if clusters is None:
        return Arrivals(d, batch, labels, "example")
    cl = clusters.reindex(done["example_id"]).to_numpy()
    if pd.isna(cl).any():
        bad = done["example_id"].to_numpy()[pd.isna(cl)][0]
        raise ValueError(f"cluster: example {bad!r} has no cluster label; give every "
                         "example one")
    by = pd.DataFrame({"cluster": cl, "batch": batch, "d": d})
    start = by.groupby("cluster", sort=False)["batch"].transform("min")
    kept = by[by["batch"] == start]
    units = kept.groupby("cluster", sort=False).agg(d=("d", "mean"), batch=("batch", "first"))
    return Arrivals(units["d"].to_numpy(np.float64), units["batch"].to_numpy(np.int64),
                    units.index.to_numpy(), "cluster", int(len(by) - len(kept)))


@dataclass(frozen=True)
class Advanced:
    """A sequence advanced batch by batch: the state, one history row per batch
    (``batch, n_seen, cs_low, cs_high, p_always_valid, log_e``) and the first
    observation (count) and batch at which the always-valid p-value reached alpha."""

    state: Any
    history: pd.DataFrame
    first_excluded_n: int | None
    first_excluded_batch: int | None


HISTORY_COLUMNS = ["batch", "n_seen", "cs_low", "cs_high", "p_always_valid", "log_e"]


def advance(state: Any, arr: Arrivals, *, first_n: int | None = None,
            first_batch: int | None = None) -> Advanced:
    """Feed ``arr`` to ``state`` one batch at a time (same result as one update: the
    bets are predictable, so batching changes nothing but the rows of the history)."""
    rows = []
    for batch in dict.fromkeys(arr.batch.tolist()):
        part = arr.d[arr.batch == batch]
        state, steps = state.update(part)
        hit = np.flatnonzero(steps.p_always_valid <= state.alpha)
        if first_n is None and len(hit):
            first_n, first_batch = int(steps.n[hit[0]]), int(batch)
        rows.append((int(batch), state.n, state.cs_low, state.cs_high,
                     float(steps.p_always_valid[-1]), state.log_e))
    history = pd.DataFrame(rows, columns=HISTORY_COLUMNS)
    return Advanced(state, history, first_n, first_batch)
