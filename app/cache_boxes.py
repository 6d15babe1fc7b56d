"""Cached boxplots of the Distributions page as SVG text (``app/charts/svg_boxes.py``).

Why beside ``app/cache_fast.py``: the page's first screen no longer ships the Vega
bundle (about 1.9 MB for the browser to fetch and compile), so its chart is written
here as SVG. The
engine results come from ``app/cache.py`` with the same keys, so a slice key works
here too; only the options the bootstrap reads (``cache.bootstrap_options``) are part
of this cache's key, so another correction or test does not redraw the boxes.
"""

from __future__ import annotations

import pandas as pd
import streamlit as st

from app import cache
from app.charts.svg_boxes import box_svg
from engine import BoxStats, TestOptions, box_stats

_ENTRIES = 64


def box_data(token: str, benchmark: str, metric: str, kind: str, n_resamples: int,
             options: TestOptions) -> tuple[BoxStats, list[str], str]:
    """The boxplot statistics of one view (``values``: per-example scores; ``ranks``:
    bootstrap ranks; otherwise bootstrap means), its rows (best observed mean first) and
    its axis title."""
    result = cache.bootstrap(token, benchmark, metric, n_resamples, options)
    if kind == "values":
        m = cache.matrix(token, benchmark, metric)
        stats, title = box_stats(m.values.T, m.systems), f"{metric} per example"
    elif kind == "ranks":
        stats, title = box_stats(result.ranks, result.systems), "rank (1 = best)"
    else:
        stats, title = box_stats(result.means, result.systems), f"mean {metric}"
    return stats, [str(s) for s in result.summary["system"]], title


@st.cache_resource(show_spinner="Drawing the boxplots…", max_entries=_ENTRIES)
def _distribution_svg(token: str, benchmark: str, metric: str, kind: str, n_resamples: int,
                      options: TestOptions, color: str) -> str:
    stats, order, title = box_data(token, benchmark, metric, kind, n_resamples, options)
    meta = cache.system_metadata(token, benchmark)
    hue: pd.Series | None = meta.set_index("system")[color] if color else None
    return box_svg(stats, order, title=title, color=hue, integer=kind == "ranks")


def distribution_svg(token: str, benchmark: str, metric: str, kind: str, n_resamples: int,
                     options: TestOptions, color: str) -> str:
    """Boxplots of per-example scores, bootstrap means or bootstrap ranks as SVG (``kind``:
    ``values``, ``means`` or ``ranks``; ``color``: a metadata column, or "" for one colour)."""
    return _distribution_svg(token, benchmark, metric, kind, n_resamples,
                             cache.bootstrap_options(options), color)
