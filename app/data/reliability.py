"""Repeated tries of one benchmark, cached: what its tries allow, and the one reliability answer.

A benchmark whose systems ran each example (task) several times, every try scored 0 or 1,
has a reliability view: pass@k (at least one of k tries succeeds) and pass^k (all k tries
succeed) per system with intervals, the k-curves for k = 1…n with simultaneous bands, the
flaky tasks and the outcome consistency (:func:`engine.app_support.reliability`). The
Leaderboard's table and chart of that view and the Examples page's flaky list are drawn
from one :class:`ReliabilityAnswer` of one :class:`app.data.query.Query` (its ``k``).
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import pandas as pd
import streamlit as st

from app.data import slices, store
from app.data.query import Query
from engine import TestOptions
from engine.app_support import (
    PassKCurves,
    Reliability,
    pass_k_curves,
    reliability,
    restrict_to_slice,
)

_ENTRIES = 32


@dataclass(frozen=True)
class Tries:
    """How often each system tried each task of one (benchmark, metric).

    ``common``: the most frequent number of tries of a system on a task (the view's
    default k); ``fewest`` / ``most``: the extremes over the cells with at least one try;
    ``binary``: every score is 0 or 1 (pass or fail).
    """

    common: int
    fewest: int
    most: int
    binary: bool

    @property
    def repeated(self) -> bool:
        """Some system tried some task more than once."""
        return self.most > 1

    @property
    def available(self) -> bool:
        """The reliability view applies: repeated tries scored 0/1."""
        return self.repeated and self.binary

    def default_k(self) -> int:
        """The k a view opens with: the most frequent number of tries (no task excluded
        for most systems); at least 2 when any task has two tries."""
        return max(min(self.common, self.most), min(2, self.most))


def _rows(token: str, benchmark: str, metric: str, cluster: str = "") -> pd.DataFrame:
    """The rows of the data key's (benchmark, metric), a slice's only when the key names one,
    with the example attribute ``cluster`` joined on when chosen."""
    base, part = slices.split_key(token)
    if part is None:
        frame = store.metric_rows(token, benchmark, metric)
    else:
        column, value, bins = part
        rows = restrict_to_slice(slices.numbers_typed(store.example_frame(base, benchmark)),
                                 column=column, value=value, bins=bins)
        frame = rows.loc[rows["metric"] == metric, store.CANONICAL]
    if cluster and cluster not in frame.columns:
        meta = store.example_metadata(base, benchmark)[["example_id", cluster]]
        frame = frame.merge(meta.astype({"example_id": str}), on="example_id", how="left")
    return frame


@st.cache_resource(show_spinner=False, max_entries=_ENTRIES)
def tries_of(token: str, benchmark: str, metric: str) -> Tries:
    """The tries of the data key's (benchmark, metric): whether the reliability view applies."""
    frame = _rows(token, benchmark, metric)
    values = pd.to_numeric(frame["value"], errors="coerce").dropna().to_numpy(float)
    binary = bool(values.size) and bool(np.isin(values, (0.0, 1.0)).all())
    counts = frame.groupby(["system", "example_id"], sort=False).size().to_numpy()
    if not counts.size:
        return Tries(0, 0, 0, binary)
    common = int(pd.Series(counts).mode().max())
    return Tries(common, int(counts.min()), int(counts.max()), binary)


@dataclass(frozen=True)
class ReliabilityAnswer:
    """The one answer of a reliability view: the engine's :class:`Reliability` at ``k`` and
    the k-curves (k = 1…``most`` tries) of the same tries and tasks.

    ``table`` (ranked by pass^k, then pass@k) is what the Leaderboard's reliability table
    shows; :attr:`curves` at ``k`` holds the same numbers (the chart beside it).
    """

    result: Reliability
    curves: PassKCurves

    @property
    def k(self) -> int:
        return self.result.k

    @property
    def table(self) -> pd.DataFrame:
        """One row per system, best pass^k first, with its rank (1 = best)."""
        t = self.result.estimates.table.sort_values(
            ["pass_hat_k", "pass_at_k", "system"], ascending=[False, False, True],
            na_position="last", kind="stable").reset_index(drop=True)
        return t.assign(rank=np.arange(1, len(t) + 1))


def reliability_options(options: TestOptions) -> TestOptions:
    """Only the options the reliability view reads: alpha and the pairs' correction."""
    return TestOptions(alpha=options.alpha, correction=options.correction)


def resolved_k(q: Query) -> int:
    """The query's k, or the benchmark's default (:meth:`Tries.default_k`) when it is 0."""
    return q.k or tries_of(q.token, q.benchmark, q.metric).default_k()


def reliability_query(q: Query) -> Query:
    """The query holding only what the reliability answer reads: alpha and correction, the
    cluster column and the (resolved) k."""
    return q.narrowed(options=reliability_options(q.options), cluster=q.cluster,
                      k=resolved_k(q))


@st.cache_resource(show_spinner="Counting tries and estimating pass@k and pass^k…",
                   max_entries=_ENTRIES)
def _answer(q: Query) -> ReliabilityAnswer:
    frame = _rows(q.token, q.benchmark, q.metric, q.cluster)
    result = reliability(frame, k=q.k, benchmark=q.benchmark, metric=q.metric,
                         cluster=q.cluster or None, options=q.options)
    curves = pass_k_curves(result.counts, alpha=q.options.alpha)
    return ReliabilityAnswer(result, curves)


def reliability_of(q: Query) -> ReliabilityAnswer:
    """pass@k and pass^k per system at the query's k (its default when 0), every pair's
    difference, the k-curves, flaky tasks and outcome consistency: one cached object,
    under :func:`reliability_query`. ValueError when the tries are not 0/1."""
    return _answer(reliability_query(q))


def pair_difference(answer: ReliabilityAnswer, a: str, b: str) -> pd.Series | None:
    """The engine's paired pass^k / pass@k difference of one pair oriented ``a − b`` (the
    row of :attr:`Reliability.pairs`, mirrored when the engine holds it as b − a: the
    differences and interval ends negated and swapped, the p-values unchanged), or None
    when the pair is not among the answer's systems."""
    t = answer.result.pairs.table
    hit = t[(t["system_a"] == a) & (t["system_b"] == b)]
    if len(hit):
        return hit.iloc[0]
    hit = t[(t["system_a"] == b) & (t["system_b"] == a)]
    if not len(hit):
        return None
    row = hit.iloc[0].copy()
    row["system_a"], row["system_b"] = a, b
    for stat in ("diff_pass_hat_k", "diff_pass_at_k"):
        d, low, high = row[stat], row[f"{stat}_low"], row[f"{stat}_high"]
        row[stat], row[f"{stat}_low"], row[f"{stat}_high"] = -d, -high, -low
    return row
