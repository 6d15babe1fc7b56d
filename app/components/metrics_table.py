"""The table across metrics (Ackerman et al. 2025, §5.2): every pair (rows) on every metric (columns).

White = not significant on that metric; otherwise the cell shows the adjusted
p-value (or the effect size) on a background that is red when the row's first
system is better and blue when the second is, darker when more significant.
The styling helpers are pure; :func:`metrics_table` draws the section.
"""

from __future__ import annotations

import math
from collections.abc import Callable
from typing import TYPE_CHECKING, Any

import numpy as np
import pandas as pd
import streamlit as st

from app import widgets
from app.data import results
from app.data.query import Query
from app.downloads import safe_csv
from app.tables import fit_height
from engine.app_support import md_isolated
from engine.results import MetricsTable

if TYPE_CHECKING:  # pandas' Styler (and jinja2) only when a table is styled: ~0.15 s of a
    from pandas.io.formats.style import Styler  # first view that shows none

MAX_ROWS = 200  # pairs shown on the page (all of them go into the CSV download)
_RED, _BLUE = (192, 34, 34), (38, 84, 176)
_DARKEST_P = 8.0  # orders of magnitude below alpha at which the colour is darkest
_DARKEST_EFFECT = 2.0  # effect size at which the colour is darkest
#: the combined p-value adjusted for the pair's share of the family is the one to read
#: against alpha; the unadjusted combined p and the raw HMP statistic stay in the CSV
_NAMES = {"p_hmp_adj": "combined p", "significant_in": "significant in"}
_HIDDEN = ["p_hmp", "hmp_stat"]


def strength(values: pd.Series, *, value: str, alpha: float) -> pd.Series:
    """0..1 darkness of each significant cell: p far below alpha, or a large effect."""
    x = values.astype(float)
    depth: np.ndarray
    if value == "pvalue_adj":
        with np.errstate(divide="ignore"):
            depth = np.log10(alpha / x.clip(lower=np.finfo(float).tiny).to_numpy()) / _DARKEST_P
    else:
        depth = x.abs().to_numpy() / _DARKEST_EFFECT
    return pd.Series(np.clip(depth, 0.0, 1.0), index=values.index)


def cell_css(direction: int, darkness: float) -> str:
    """Background (red: first system better, blue: second) and a readable text colour."""
    if math.isnan(darkness) or direction == 0:
        return ""
    r, g, b = _RED if direction > 0 else _BLUE
    opacity = 0.15 + 0.75 * darkness
    text = "white" if opacity > 0.55 else "black"
    return f"background-color: rgba({r}, {g}, {b}, {opacity:.2f}); color: {text}"


def css_frame(result: MetricsTable, shown: pd.DataFrame, *, alpha: float) -> pd.DataFrame:
    """One CSS string per metric cell of ``shown`` (rows of ``result.table``)."""
    keys = pd.MultiIndex.from_frame(shown[["system_a", "system_b"]])
    directions = result.cells.pivot(index=["system_a", "system_b"], columns="metric",
                                    values="direction").reindex(keys).fillna(0)
    out = pd.DataFrame("", index=shown.index, columns=shown.columns)
    for metric in result.metrics:
        darkness = strength(shown[metric], value=result.value, alpha=alpha)
        out[metric] = [cell_css(int(d), float(s))
                       for d, s in zip(directions[metric], darkness, strict=True)]
    return out


def format_cell(x: float, value: str) -> str:
    """Adjusted p-values as 0.012 / 3.4e-07; effect sizes signed (+0.45); blank if not significant."""
    if pd.isna(x):
        return ""
    if value == "effect_size":
        return f"{x:+.2f}"
    return f"{x:.3f}" if x >= 0.001 else f"{x:.1e}"


def styled(result: MetricsTable, *, alpha: float, rows: int = MAX_ROWS) -> Styler:
    """The first ``rows`` pairs (most significant first) as a coloured, formatted table."""
    head = result.table.head(rows).drop(columns=_HIDDEN)
    css = css_frame(result, head, alpha=alpha).rename(columns=_NAMES)
    def cell(x: object) -> str:
        return format_cell(float(x), result.value)  # type: ignore[arg-type]

    formats: dict[Any, str | Callable[[object], str] | None] = dict.fromkeys(result.metrics, cell)
    formats["combined p"] = "{:.2g}".format
    return head.rename(columns=_NAMES).style.apply(lambda _: css, axis=None).format(formats)


def metrics_table(q: Query) -> None:
    """Every pair of the benchmark's systems on each of its metrics, with the query's options
    and cluster column (its own metric's cells are the Pairwise page's pairs)."""
    options = q.options
    value = "pvalue_adj" if options.criterion == "pvalue" else "effect_size"
    try:
        result, skipped = results.across(q, value)
    except ValueError as exc:
        st.warning(f"No metric of this benchmark can be tested with these settings: {exc}")
        return
    shown = "adjusted p-value" if value == "pvalue_adj" else "effect size (+: first system better)"
    st.caption(f"Each cell: the {shown} where the pair differs significantly on that metric, "
               "blank where it does not. Red: the first system is better; blue: the second; "
               "darker = more significant. Rows: most significant across metrics first. *combined "
               "p*: the pair's p-values over all metrics combined (harmonic mean p-value, "
               "Wilson 2019), adjusted for every pair and metric tested; below alpha, the pair "
               "differs on the metrics taken together. *conflict*: metrics disagree on the winner.")
    if len(result.metrics) == 1:
        st.info(f"{md_isolated(q.benchmark)} has one metric, "
                f"{md_isolated(result.metrics[0])}: upload more metrics for the same examples "
                "to compare them side by side.", icon=":material/info:")
    widgets.notes(list(skipped))
    n = len(result.table)
    if n > MAX_ROWS:
        st.caption(f"The {MAX_ROWS} most significant of {n:,} pairs; the CSV has all of them.")
    # placeholder "": a pair not significant on a metric is a blank (white) cell, not "None"
    st.dataframe(styled(result, alpha=options.alpha), hide_index=True, width="stretch",
                 height=fit_height(min(n, MAX_ROWS), 560), placeholder="")
    st.download_button("Download CSV", lambda: safe_csv(result.table), icon=":material/download:",
                       file_name="pairs-across-metrics.csv", mime="text/csv",
                       on_click="ignore")
