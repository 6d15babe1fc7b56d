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

Each function takes the data key first, like ``app/data/results.py`` (whose results it
draws: a slice's key draws the slice).
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
from app.data import results, store
from engine import BoxStats, TestOptions, box_stats

_ENTRIES = 64
#: The Mechanisms and Compare pages' drawings keep fewer entries.
_FEWER = 32


def arrow(spec: Spec) -> Spec:
    """``spec`` with its datasets (frames) as Arrow IPC bytes, as Streamlit would send them."""
    return {**spec, "datasets": {name: dataframe_util.convert_anything_to_arrow_bytes(frame)
                                 for name, frame in spec.get("datasets", {}).items()}}


# ----------------------------------------------------------------- the Leaderboard's charts


@st.cache_resource(show_spinner=False, max_entries=_ENTRIES)
def rank_svg(token: str, benchmark: str, metric: str, options: TestOptions,
             systems: tuple[str, ...] | None = None) -> str:
    """The rank/CI plot of :func:`app.data.results.board` as SVG (``systems``: the rows shown,
    default all; percent for 0/1 metrics)."""
    percent = results.matrix(token, benchmark, metric).binary
    board = results.board(token, benchmark, metric, options)
    return rank_ci_svg(board, percent=percent, systems=systems)


@st.cache_resource(show_spinner=False, max_entries=_ENTRIES)
def graph_svg(token: str, benchmark: str, metric: str, options: TestOptions,
              systems: tuple[str, ...]) -> str:
    """The static significance graph among ``systems`` as SVG: shown on the page and
    downloaded as it is (a standalone document)."""
    return static_graph_svg(results.board(token, benchmark, metric, options), systems)


@st.cache_resource(show_spinner="Drawing the significance graph…", max_entries=_ENTRIES)
def graph_html(token: str, benchmark: str, metric: str, options: TestOptions,
               systems: tuple[str, ...]) -> str:
    """The self-contained interactive significance graph of :func:`app.data.results.board`
    among ``systems``."""
    return network_html(results.board(token, benchmark, metric, options), systems)


@st.cache_resource(show_spinner="Drawing the groups…", max_entries=_ENTRIES)
def clique_spec(token: str, benchmark: str, metric: str, options: TestOptions) -> Spec:
    """The clique view of :func:`app.data.results.board`."""
    return arrow(_clique_spec(results.board(token, benchmark, metric, options)))


# ----------------------------------------------------------------- the Pairwise page's charts

#: The panels drawn with Vega-Lite on demand (the p-value heatmap is SVG: ``pvalue_svg``).
_PANELS = {"effects": effect_heatmap_spec, "pwpp": pwpp_spec}


@st.cache_resource(show_spinner=False, max_entries=_ENTRIES)
def panel_spec(token: str, benchmark: str, metric: str, options: TestOptions,
               kind: str, systems: tuple[str, ...]) -> Spec:
    """The effect-size heatmap (``effects``) or the PWPP (``pwpp``) among ``systems``
    (the focus, best first)."""
    result = results.board(token, benchmark, metric, options).pairwise
    return arrow(_PANELS[kind](result, list(systems)))


@st.cache_resource(show_spinner=False, max_entries=_ENTRIES)
def pvalue_svg(token: str, benchmark: str, metric: str, options: TestOptions,
               systems: tuple[str, ...]) -> str:
    """The adjusted p-value heatmap among ``systems`` (the focus, best first) as SVG."""
    result = results.board(token, benchmark, metric, options).pairwise
    return pvalue_heatmap_svg(result, systems)


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
def examples_spec(token: str, benchmark: str, metric: str) -> Spec:
    """The example × system heatmap (examples binned to fit)."""
    return arrow(example_system_heatmap_spec(results.matrix(token, benchmark, metric)))


def _box_data(token: str, benchmark: str, metric: str, kind: str, n_resamples: int,
              options: TestOptions, cluster: str = "") -> tuple[BoxStats, list[str], str]:
    """The boxplot statistics of one view (``values``: per-example scores; ``ranks``:
    bootstrap ranks; otherwise bootstrap means, of clusters when ``cluster`` groups the
    examples), its rows (best observed mean first) and its axis title."""
    result = results.bootstrap(token, benchmark, metric, n_resamples, options, cluster)
    if kind == "values":
        m = results.matrix(token, benchmark, metric)
        stats, title = box_stats(m.values.T, m.systems), f"{metric} per example"
    elif kind == "ranks":
        stats, title = box_stats(result.ranks, result.systems), "rank (1 = best)"
    else:
        stats, title = box_stats(result.means, result.systems), f"mean {metric}"
    return stats, [str(s) for s in result.summary["system"]], title


@st.cache_resource(show_spinner="Drawing the boxplots…", max_entries=_ENTRIES)
def _distribution_svg(token: str, benchmark: str, metric: str, kind: str, n_resamples: int,
                      options: TestOptions, color: str, cluster: str = "") -> str:
    stats, order, title = _box_data(token, benchmark, metric, kind, n_resamples, options,
                                    cluster)
    meta = store.system_metadata(token, benchmark)
    hue: pd.Series | None = meta.set_index("system")[color] if color else None
    return box_svg(stats, order, title=title, color=hue, integer=kind == "ranks")


def distribution_svg(token: str, benchmark: str, metric: str, kind: str, n_resamples: int,
                     options: TestOptions, color: str, cluster: str = "") -> str:
    """Boxplots of per-example scores, bootstrap means or bootstrap ranks as SVG (``kind``:
    ``values``, ``means`` or ``ranks``; ``color``: a metadata column, or "" for one colour;
    ``cluster``: the example attribute whose clusters the bootstrap resamples)."""
    return _distribution_svg(token, benchmark, metric, kind, n_resamples,
                             results.bootstrap_options(options), color, cluster)


# ----------------------------------------------------------------- Mechanisms, A/B compare


@st.cache_resource(show_spinner=False, max_entries=_FEWER)
def mechanisms_svgs(token: str, benchmark: str, metric: str, correction: str, alpha: float,
                    seed: int, more: bool = False, cluster: str = "",
                    systems: tuple[str, ...] = ()) -> tuple[str, str]:
    """SVG drawings of the agreement matrix and of the P(A beats B) heatmap among ``systems``
    (the focus, in the order of the mean; default all; its faded cells from cluster-robust
    sign tests when ``cluster`` groups the examples), written here in SVG (#27 item 3)."""
    result = results.mechanisms_result(token, benchmark, metric, correction, alpha, seed, more)
    tau = tau_svg(result.kendall_tau, list(LABELS), LABELS)
    pbeats = pbeats_svg(result.p_beats if not cluster else results.p_beats_by(
        token, benchmark, metric, correction, alpha, cluster),
        list(systems or result.rankings["mean"]))
    return tau, pbeats


@st.cache_resource(show_spinner="Drawing…", max_entries=_FEWER)
def ab_svgs(token: str, benchmark: str, metric: str, baseline: str, candidate: str,
            cluster: str, options: TestOptions) -> tuple[str, str]:
    """SVG drawings of the difference by model and of the variance shares (both also
    embedded in the report), written here in milliseconds (#27 item 3)."""
    ab = results.ab_result(token, benchmark, metric, baseline, candidate, cluster, options)
    level = f"{1 - options.alpha:.0%}"
    return (models_svg(ab.models, metric=metric, level=level, width=560),
            variance_svg(ab.variance, width=360))
