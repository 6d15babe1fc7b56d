"""Cached figures of the engine's results: SVG text, Vega-Lite dicts and the interactive graph.

The first screens are SVG text written on the server (``app/charts/svg*.py``: no chart
library in the browser); the panels opened on demand are plain Vega-Lite dicts
(``app/charts/vl.py``) with their data already in Arrow; the Mechanisms and A/B compare
pages' charts are SVG too (``app/charts/mechanisms.py``, ``app/charts/svg_compare.py``).

Why Vega-Lite dicts written by hand rather than altair charts: altair's schema
validation and deep copies cost 0.2–0.5 s per chart on a busy machine — most of a
settings change on humaneval (the engine's own work: 0.05–0.15 s). Here a chart costs
milliseconds, and its datasets are converted to Arrow once per cache entry instead of on
every run (Streamlit passes Arrow bytes through untouched).

A chart a page shows next to a table takes the page's :class:`app.data.query.Query` and
draws :func:`app.data.results.board_of` (or the bootstrap, the P(A beats B), the A/B result)
of that query: the very object the table is made from, so the two cannot disagree. Only
the pair drill-down's charts are keyed on the scores they draw (a slice's scores get their
own).
"""

from __future__ import annotations

import numpy as np
import pandas as pd
import streamlit as st
from streamlit import dataframe_util

from app.charts.examples import example_system_heatmap_spec
from app.charts.graph import clique_spec as _clique_spec
from app.charts.mechanisms import LABELS, pbeats_svg, tau_svg
from app.charts.network import network_html
from app.charts.pairwise import effect_heatmap_spec, pwpp_spec
from app.charts.svg import rank_ci_svg, static_graph_svg
from app.charts.svg_boxes import box_svg
from app.charts.svg_compare import models_svg, variance_svg
from app.charts.svg_pairwise import difference_histogram_svg, pair_scatter_svg, pvalue_heatmap_svg
from app.charts.vl import Spec
from app.data import judge, results, store
from app.data.query import Query
from engine.app_support import box_stats, zero_one
from engine.results import BoxStats

_ENTRIES = 64
#: The Mechanisms and Compare pages' drawings keep fewer entries.
_FEWER = 32


def arrow(spec: Spec) -> Spec:
    """``spec`` with its datasets (frames) as Arrow IPC bytes, as Streamlit would send them."""
    return {**spec, "datasets": {name: dataframe_util.convert_anything_to_arrow_bytes(frame)
                                 for name, frame in spec.get("datasets", {}).items()}}


# ----------------------------------------------------------------- the Leaderboard's charts


@st.cache_resource(show_spinner=False, max_entries=_ENTRIES)
def rank_svg(q: Query, systems: tuple[str, ...] | None = None) -> str:
    """The rank/CI plot of the Leaderboard's board (:func:`app.data.judge.shown_board`: the
    PPI++ ranking when human labels correct a judge metric) as SVG (``systems``: the rows
    shown, default all; percent for 0/1 metrics)."""
    percent = zero_one(results.matrix(q.token, q.benchmark, q.metric))
    return rank_ci_svg(judge.shown_board(q), percent=percent, systems=systems)


@st.cache_resource(show_spinner=False, max_entries=_ENTRIES)
def graph_svg(q: Query, systems: tuple[str, ...]) -> str:
    """The static significance graph among ``systems`` as SVG: shown on the page and
    downloaded as it is (a standalone document)."""
    return static_graph_svg(judge.shown_board(q), systems)


@st.cache_resource(show_spinner="Drawing the significance graph…", max_entries=_ENTRIES)
def graph_html(q: Query, systems: tuple[str, ...]) -> str:
    """The self-contained interactive significance graph of
    :func:`app.data.judge.shown_board` among ``systems``."""
    return network_html(judge.shown_board(q), systems)


@st.cache_resource(show_spinner="Drawing the groups…", max_entries=_ENTRIES)
def clique_spec(q: Query) -> Spec:
    """The clique view of :func:`app.data.judge.shown_board`."""
    return arrow(_clique_spec(judge.shown_board(q)))


# ----------------------------------------------------------------- the Pairwise page's charts

#: The panels drawn with Vega-Lite on demand (the p-value heatmap is SVG: ``pvalue_svg``).
_PANELS = {"effects": effect_heatmap_spec, "pwpp": pwpp_spec}


@st.cache_resource(show_spinner=False, max_entries=_ENTRIES)
def panel_spec(q: Query, kind: str, systems: tuple[str, ...]) -> Spec:
    """The effect-size heatmap (``effects``) or the PWPP (``pwpp``) among ``systems``
    (the focus, best first), of :func:`app.data.results.pairwise_of`."""
    return arrow(_PANELS[kind](results.pairwise_of(q), list(systems)))


@st.cache_resource(show_spinner=False, max_entries=_ENTRIES)
def pvalue_svg(q: Query, systems: tuple[str, ...]) -> str:
    """The adjusted p-value heatmap among ``systems`` (the focus, best first) as SVG, the
    pairs the missing examples leave open marked (:func:`app.data.results.pairwise_of`)."""
    return pvalue_heatmap_svg(results.pairwise_of(q), systems)


@st.cache_resource(show_spinner=False, max_entries=_ENTRIES)
def pair_svgs(x: np.ndarray, y: np.ndarray, a: str, b: str, *, binary: bool, paired: bool
              ) -> tuple[str, str | None]:
    """The drill-down charts of one pair from its scores (``x``: A's, ``y``: B's; the same
    examples in the same order when ``paired``), as SVG: A's vs B's scores per example, and
    the histogram of the differences (None when unpaired: there are none). Keyed on the
    scores themselves, so a slice of the data gets its own charts."""
    scatter = pair_scatter_svg(x, y, a, b, binary=binary)
    if not paired:
        return scatter, None
    return scatter, difference_histogram_svg(x - y, a, b, binary=binary)


# ----------------------------------------------------------------- Examples, Distributions


@st.cache_resource(show_spinner="Drawing every score…", max_entries=_ENTRIES)
def _examples_spec(q: Query) -> Spec:
    return arrow(example_system_heatmap_spec(results.matrix(q.token, q.benchmark, q.metric)))


def examples_spec(q: Query) -> Spec:
    """The example × system heatmap of the query's matrix (examples binned to fit)."""
    return _examples_spec(q.narrowed())


def _box_data(q: Query, kind: str) -> tuple[BoxStats, list[str], str]:
    """The boxplot statistics of one view (``values``: per-example scores; ``ranks``:
    bootstrap ranks; otherwise bootstrap means, of clusters when ``q.cluster`` groups the
    examples), its rows (best observed mean first) and its axis title."""
    result = results.bootstrap(q)
    if kind == "values":
        m = results.matrix(q.token, q.benchmark, q.metric)
        stats, title = box_stats(m.values.T, m.systems), f"{q.metric} per example"
    elif kind == "ranks":
        stats, title = box_stats(result.ranks, result.systems), "rank (1 = best)"
    else:
        stats, title = box_stats(result.means, result.systems), f"mean {q.metric}"
    return stats, [str(s) for s in result.summary["system"]], title


@st.cache_resource(show_spinner="Drawing the boxplots…", max_entries=_ENTRIES)
def _distribution_svg(q: Query, kind: str, color: str) -> str:
    stats, order, title = _box_data(q, kind)
    meta = store.system_metadata(q.token, q.benchmark)
    hue: pd.Series | None = meta.set_index("system")[color] if color else None
    return box_svg(stats, order, title=title, color=hue, integer=kind == "ranks")


def distribution_svg(q: Query, kind: str, color: str) -> str:
    """Boxplots of per-example scores, bootstrap means or bootstrap ranks as SVG (``kind``:
    ``values``, ``means`` or ``ranks``; ``color``: a metadata column, or "" for one colour),
    from :func:`app.data.results.bootstrap` of the query, the page's table's (cached under
    what the bootstrap reads, :func:`app.data.results.bootstrap_query`)."""
    return _distribution_svg(results.bootstrap_query(q), kind, color)


# ----------------------------------------------------------------- Mechanisms, A/B compare


@st.cache_resource(show_spinner=False, max_entries=_FEWER)
def mechanisms_svgs(q: Query, systems: tuple[str, ...] = ()) -> tuple[str, str]:
    """SVG drawings of the agreement matrix and of the P(A beats B) heatmap among ``systems``
    (the focus, in the order of the mean; default all; its faded cells from cluster-robust
    sign tests when ``q.cluster`` groups the examples): the same P(A beats B) as the page's
    table (:func:`app.data.results.mechanisms_p_beats`)."""
    result = results.mechanisms_of(q)
    tau = tau_svg(result.kendall_tau, list(LABELS), LABELS)
    order = list(systems or result.rankings["mean"])
    pbeats = pbeats_svg(results.mechanisms_p_beats(q), order)
    return tau, pbeats


def ab_svgs(q: Query) -> tuple[str, str]:
    """SVG drawings of the difference by model and of the variance shares (both also
    embedded in the report) of the page's :func:`app.data.results.ab_result` (the query's
    pair), written here in milliseconds; cached under what the result reads."""
    return _ab_svgs(q.narrowed(options=q.options, cluster=q.cluster, pair=q.pair))


@st.cache_resource(show_spinner="Drawing…", max_entries=_FEWER)
def _ab_svgs(q: Query) -> tuple[str, str]:
    ab = results.ab_result(q)
    level = f"{1 - q.options.alpha:.0%}"
    return (models_svg(ab.models, metric=q.metric, level=level, width=560, percent=ab.binary),
            variance_svg(ab.variance, width=360))
