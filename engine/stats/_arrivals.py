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

import math
from dataclasses import dataclass
from typing import Any

import numpy as np
import pandas as pd

from .._options import TestOptions, resolve

__all__ = ["HISTORY_COLUMNS", "Advanced", "Arrivals", "WatchReport", "advance", "arrivals",
           "choose_bounds", "pair_report", "watch_frame"]


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
    """Per example present for both systems: arrival batch, order, and the run means.

    Arrays indexed by (system, example) instead of a pivot and a merge when each system
    scored each counted example once: the Watch page computes this once per challenger (77
    on humaneval: 2.7 s of its first view in pandas). With several runs the means
    are pandas' (:func:`_example_arrivals_runs`), so that the observations stay the same bit
    for bit: a stored watch fingerprints them.
    """
    examples, names = pd.factorize(rows["example_id"], sort=True)
    n_ex = len(names)
    key = np.where((rows["system"] == candidate).to_numpy(), n_ex, 0) + examples
    batch = rows["batch"].to_numpy(np.int64)
    never = np.iinfo(np.int64).max
    first_batch, first_pos = np.full(2 * n_ex, never), np.full(2 * n_ex, never)
    np.minimum.at(first_batch, key, batch)
    np.minimum.at(first_pos, key, np.arange(len(rows)))
    both = (first_batch[:n_ex] < never) & (first_batch[n_ex:] < never)
    arrival = np.maximum(first_batch[:n_ex], first_batch[n_ex:])
    counted = both[examples] & (batch <= arrival[examples])
    if np.bincount(key[counted], minlength=2 * n_ex).max(initial=0) > 1:  # runs: mean them
        return _example_arrivals_runs(rows, baseline, candidate)
    means = np.full(2 * n_ex, np.nan)
    means[key[counted]] = rows["value"].to_numpy(np.float64)[counted]
    keep = np.flatnonzero(both)
    done = pd.DataFrame({"example_id": names[keep], "arrival": arrival[keep],
                         "order": np.maximum(first_pos[:n_ex], first_pos[n_ex:])[keep],
                         "d_base": means[keep], "d_cand": means[n_ex + keep]})
    return done.sort_values(["arrival", "order"], kind="stable", ignore_index=True)


def _example_arrivals_runs(rows: pd.DataFrame, baseline: str, candidate: str) -> pd.DataFrame:
    """:func:`_example_arrivals` when some system has several counted runs of an example."""
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


@dataclass(frozen=True)
class WatchReport:
    """A watch after its update: where the sequence stands and how it got there.

    ``history`` has one row per upload that brought observations
    (``upload_id, n_seen, cs_low, cs_high, p_always_valid, log_e``); differences are
    candidate − baseline, positive = candidate better.
    """

    watch_id: int
    benchmark: str
    metric: str
    baseline: str
    candidate: str
    cluster: str | None
    settings: dict[str, Any]
    method: str
    n_seen: int
    cs_low: float
    cs_high: float
    p_always_valid: float
    e_value: float
    first_excluded_n: int | None
    first_excluded_upload: int | None
    history: pd.DataFrame
    rebuilt: bool = False
    dropped: int = 0

    @property
    def alpha(self) -> float:
        return float(self.settings["alpha"])

    @property
    def stopped_at(self) -> int | None:
        """The observation count at which the sequence stopped: the first exclusion of 0,
        else the budget ``max_n`` once reached; None while it runs."""
        if self.first_excluded_n is not None:
            return self.first_excluded_n
        budget = self.settings.get("max_n")
        return int(budget) if budget is not None and self.n_seen >= budget else None


def choose_bounds(values: pd.Series | bool, binary: bool | None,
                  bounds: tuple[float, float] | None | str) -> tuple[float, float] | None:
    """"auto": [0, 1] for a binary metric or scores all in [0, 1] (a missing one is not),
    else None (unbounded). ``values``: the scores, or whether they all lie in [0, 1]."""
    if bounds != "auto":
        return None if bounds is None else (float(bounds[0]), float(bounds[1]))  # type: ignore[index]
    if binary:
        return (0.0, 1.0)
    in_unit = values if isinstance(values, bool) else bool(values.between(0.0, 1.0).all())
    return (0.0, 1.0) if in_unit else None


def watch_frame(frame: pd.DataFrame, *, baseline: str, candidate: str, benchmark: str,
                metric: str, higher_is_better: bool = True, binary: bool | None = None,
                cluster: str | None = None, options: TestOptions | None = None,
                bounds: tuple[float, float] | None | str = "auto", breaks: int = 1000,
                sigma: float | None = None, max_n: int | None = None) -> WatchReport:
    """The sequence of a table whose ``batch`` column gives the arrival batches (e.g. one
    per DATA file), computed from the start: what a watch in the store holds after the
    same uploads (:meth:`engine.store.ResultsStore.watch`). ``options``: its ``alpha``, the
    level of the sequence (default ``TestOptions()``)."""
    alpha = resolve(options, {}).alpha
    part = frame[(frame["benchmark"] == benchmark) & (frame["metric"] == metric)]
    clusters = None
    if cluster is not None:
        if cluster not in part.columns:
            raise ValueError(f"cluster: column {cluster!r} not in the data; columns: "
                             f"{list(frame.columns)!r}")
        labels = part.groupby("example_id")[cluster].agg(["first", "nunique"])
        if (labels["nunique"] > 1).any():
            raise ValueError(f"cluster: column {cluster!r} must hold one value per example")
        clusters = labels["first"]
    arr = arrivals(part, baseline=baseline, candidate=candidate,
                   higher_is_better=higher_is_better, clusters=clusters)
    chosen = choose_bounds(part.loc[part["system"].isin([baseline, candidate]), "value"],
                           binary, bounds)
    return pair_report(arr, chosen, baseline=baseline, candidate=candidate,
                       benchmark=benchmark, metric=metric, cluster=cluster, alpha=alpha,
                       breaks=breaks, sigma=sigma, max_n=max_n)


def pair_report(arr: Arrivals, chosen: tuple[float, float] | None, *, baseline: str,
                candidate: str, benchmark: str, metric: str, cluster: str | None,
                alpha: float, breaks: int, sigma: float | None,
                max_n: int | None) -> WatchReport:
    """The report of a sequence started afresh with the ``chosen`` bounds and fed ``arr``."""
    from ._confseq import start_sequence

    if max_n is not None and max_n < 1:
        raise ValueError(f"max_n: must be ≥ 1; got {max_n!r}")
    state = start_sequence(bounds=chosen, alpha=alpha, breaks=breaks, sigma=sigma)
    moved = advance(state, arr.window(0, max_n))
    s = moved.state
    settings = {"alpha": alpha, "bounds": None if chosen is None else list(chosen),
                "breaks": breaks, "sigma": sigma, "max_n": max_n}
    history = moved.history
    history.columns = ["upload_id", *HISTORY_COLUMNS[1:]]  # a new frame: renamed in place
    return WatchReport(0, benchmark, metric, baseline, candidate, cluster, settings, s.method,
                       s.n, s.cs_low, s.cs_high, float(min(1.0, math.exp(-s.max_log_e))),
                       float(math.exp(s.log_e)), moved.first_excluded_n,
                       moved.first_excluded_batch, history, False, arr.dropped)
