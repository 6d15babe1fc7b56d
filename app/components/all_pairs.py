"""All pairs: adjusted p-values, effect sizes, the PWPP, the table across metrics and the raw
table; only the open tab is drawn."""

from __future__ import annotations

from app import cache, state
from app.charts.pairwise import PWPP_SYSTEMS
from app.components.metrics_table import metrics_table
from app.url import MATRIX_TABS, View
from engine import Leaderboard, TestOptions


def all_pairs(board: Leaderboard, view: View, token: str, options: TestOptions) -> None:
    """The all-pairs tabs of the Pairwise page, bound to URL parameter ``panel``."""
    tabs = state.bound_tabs("panel", view.panel, MATRIX_TABS)
    n = len(board.table)
    if tabs["effects"].open:
        tabs["effects"].caption("Positive (red): the row system is better than the column one.")
    if tabs["pwpp"].open and n > PWPP_SYSTEMS:
        tabs["pwpp"].caption(f"Pairs among the best {PWPP_SYSTEMS} of {n} systems.")
    for kind in ("pvalues", "effects", "pwpp"):
        if tabs[kind].open:
            spec = cache.panel_spec(token, view.benchmark, view.metric, options, kind)
            tabs[kind].vega_lite_chart(spec=spec, width="stretch" if kind == "pwpp" else "content")
    if tabs["metrics"].open:
        with tabs["metrics"]:
            metrics_table(view, token, options)
    if tabs["table"].open:
        tabs["table"].dataframe(board.pairwise.table, hide_index=True, width="stretch")
