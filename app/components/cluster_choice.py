""""Group examples by": the example attribute whose examples may fail
together, on Leaderboard, Pairwise and A/B compare, and the sentence saying what it did.

The URL's ``cluster`` is the choice; without one, the benchmark's cluster column declared
on upload is the default, and ``cluster=-`` (:data:`app.url.NO_CLUSTER`) is "(no grouping)"
chosen against it.
"""

from __future__ import annotations

from dataclasses import replace
from typing import Any

import numpy as np
import pandas as pd
import streamlit as st

from app import state
from app.data import results
from app.data.query import Query
from app.url import NO_CLUSTER, View
from engine.app_support import md_text
from engine.results import PairRunTest

HELP = ("An example attribute (e.g. passage, task family): examples of one group may fail "
        "together, so tests and intervals are computed from the groups (cluster-robust "
        "errors). The default is the column declared on upload.")


def resolve_cluster(view: View, token: str) -> tuple[View, str, list[str], list[str]]:
    """(view with ``cluster`` as the widget shows it, the column in use or "", the
    benchmark's example attributes, URL problems). An unknown column is reported and the
    default used."""
    columns = results.cluster_columns(token, view.benchmark)
    problems = []
    wanted = view.cluster
    if wanted and wanted != NO_CLUSTER and wanted not in columns:
        problems.append(f"URL parameter `cluster`: “{md_text(wanted)}” is not an example "
                        "attribute of this benchmark; ignored.")
        wanted = ""
    if not wanted:
        declared = results.declared_cluster(token, view.benchmark)
        wanted = declared if declared in columns else ""
    return replace(view, cluster=wanted), (wanted if wanted in columns else ""), columns, \
        problems


def cluster_select(view: View, columns: list[str]) -> Any:
    """The "Group examples by" selectbox, bound to the URL's ``cluster``."""
    current = view.cluster if view.cluster in columns else NO_CLUSTER
    return state.bound(st.selectbox, "Group examples by", "cluster", current,
                       options=[NO_CLUSTER, *columns],
                       format_func=lambda c: "(no grouping)" if c == NO_CLUSTER else c,
                       disabled=not columns, help=HELP)


#: The caption's tooltip: what the design effect is.
DEFF_HELP = ("Design effect: the variance of a mean (or of a difference) computed from the "
             "clusters (CR2, Bell–McCaffrey degrees of freedom) over the variance that treats "
             "every example as independent; interval widths grow by its square root.")


def cluster_sentence(n_clusters: int, design_effects: pd.Series | np.ndarray | None) -> str:
    """"N clusters of examples; intervals widened by the design effect D" (D: the median
    over the intervals shown; below 1 the intervals are narrowed)."""
    deff = np.asarray([] if design_effects is None else design_effects, dtype=float)
    deff = deff[np.isfinite(deff)]
    if not deff.size:
        return f"{n_clusters} clusters of examples; intervals computed from the clusters."
    d = float(np.median(deff))
    return (f"{n_clusters} clusters of examples; intervals "
            f"{'widened' if d >= 1 else 'narrowed'} by the design effect {d:.2f}.")


def clustered_pairwise_note(q: Query, test: PairRunTest) -> str:
    """A/B compare's line on the Pairwise page's answer for the query's pair (baseline,
    candidate) grouped by the same column (the query's board: its raw p-value and interval;
    Pairwise corrects p for the other pairs)."""
    cluster = q.cluster
    if q.pair is None:
        return ""
    base, cand = q.pair
    try:
        table = results.board_of(q).pairwise.table
    except ValueError:
        return ""
    rows = table[((table["system_a"] == cand) & (table["system_b"] == base))
                 | ((table["system_a"] == base) & (table["system_b"] == cand))]
    if rows.empty:
        return ""
    row = rows.iloc[0]
    sign = 1.0 if row["system_a"] == cand else -1.0  # candidate − baseline
    low, high = sorted((sign * float(row["ci_low"]), sign * float(row["ci_high"])))
    same = np.allclose([row["pvalue"], low, high], [test.pvalue, test.ci_low, test.ci_high],
                       rtol=1e-9, atol=1e-12)
    if same:
        return (f":material/check: The Pairwise page grouped by {md_text(cluster)}: same "
                "p-value and interval.")
    return (f":material/info: The Pairwise page grouped by {md_text(cluster)}: difference "
            f"{sign * float(row['difference']):+.4g} (interval {low:+.4g} to {high:+.4g}), "
            f"p = {float(row['pvalue']):.3g} before correcting for the other pairs.")
