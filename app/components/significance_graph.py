"""The Leaderboard's charts in one set of tabs — the rank/CI plot, then the significance graph
(static SVG, interactive) and the groups (cliques); only the open one is drawn, so the first
screen carries one picture.

The rank/CI plot and the static graph are SVG written on the server (``app/charts/svg.py``):
the Leaderboard's first screen loads no chart library, so the ranked table is not held up
by the browser compiling Vega. Only the cliques view draws with Vega-Lite, when opened.
"""

from __future__ import annotations

import streamlit as st
from streamlit.delta_generator import DeltaGenerator

from app import state, widgets
from app.charts.graph import clique_frame
from app.data import figures, judge
from app.data.query import Query
from app.ranked import NARROW
from app.url import GRAPH_TABS, View
from engine.app_support import html_text
from engine.results import Leaderboard

#: Charts in a container with this key are hidden below NARROW pixels: the table above has
#: the means and intervals, and a chart shrunk to a phone is unreadable.
_WIDE = "sb_wide"
#: The rank/CI plot shows at most this many systems (best first); the table shows all.
RANK_ROWS = 100
_WIDE_ONLY = (f"<style>@media (max-width:{NARROW}px){{[class*=st-key-{_WIDE}]"
              "{display:none}}</style>")


def _wide(name: str) -> DeltaGenerator:
    """A container hidden on narrow screens (Streamlit gives it the class st-key-<key>)."""
    st.html(_WIDE_ONLY)
    return st.container(key=f"{_WIDE}_{name}")


def _rank_tab(q: Query, board: Leaderboard) -> None:
    """Every system's mean with its interval, best first, its rank range beside it (the best
    :data:`RANK_ROWS` past that many systems: the table above has every one)."""
    order = list(board.table["system"])
    shown = tuple(order[:RANK_ROWS]) if len(order) > RANK_ROWS else None
    st.caption("Each system's mean with its confidence interval, best first; red: systems that "
               "could rank first (the confidence set for the best). *Rank range*: each system's "
               "rank confidence set, as in the table."
               + (f" The best {RANK_ROWS} of {len(order)} systems; the table has every one."
                  if shown else ""))
    with _wide("ranks"):
        widgets.picture(figures.rank_svg(q, shown))


def _clique_table(board: Leaderboard) -> str:
    """Groups and their members as an HTML table whose member lists wrap (nothing cut off)."""
    groups = clique_frame(board).groupby("group")["system"].agg(list)
    rows = "".join(
        f"<tr><td>{g}</td><td>{len(m)}</td><td>"
        + ", ".join(f"<bdi>{html_text(s)}</bdi>" for s in m) + "</td></tr>"
        for g, m in groups.items())
    # only the member lists wrap: the narrow number columns keep their headers whole
    # ("grou|p" and "syste|ms" when every cell could break anywhere)
    return ('<style>.sb-cliques td,.sb-cliques th{white-space:nowrap;vertical-align:top;'
            'padding:.25rem .5rem;text-align:left}.sb-cliques td:last-child{white-space:normal;'
            'overflow-wrap:anywhere}</style>'
            '<table class="sb-cliques" aria-label="groups"><thead><tr><th>group</th>'
            f"<th>systems</th><th>members</th></tr></thead><tbody>{rows}</tbody></table>")


def leaderboard_charts(q: Query, view: View) -> None:
    """The Leaderboard's charts in tabs (URL ``graph``), only the open one drawn: the rank/CI
    plot first, then the significance graph (Ackerman et al. 2025, §5.1: systems at the
    height of their mean, edges between ties) as a picture or interactive, and the groups
    (cliques). Every one is drawn from the board the table shows (:func:`app.data.judge.shown_board`;
    ``view``: the tab and the focus)."""
    board = judge.shown_board(q)
    st.subheader("Charts")
    tabs = state.bound_tabs("graph", view.graph, GRAPH_TABS)
    if tabs["ranks"].open:
        with tabs["ranks"]:
            _rank_tab(q, board)
    for kind in ("static", "interactive"):
        if tabs[kind].open:
            with tabs[kind]:
                _graph_tab(q, board, view, kind)
    if tabs["groups"].open:
        with tabs["groups"]:
            if board.pairwise.compare != "all":
                st.info("Groups need all pairs compared; with another comparison set they are "
                        "approximate.")
            st.vega_lite_chart(spec=figures.clique_spec(q), width="stretch")
            st.html(_clique_table(board))


def _graph_tab(q: Query, board: Leaderboard, view: View, kind: str) -> None:
    """The significance graph of the focused systems, as a picture or interactive."""
    order = list(board.table["system"])
    shown = widgets.focus_controls(view, order)
    st.caption("Height = mean; an edge joins two systems whose difference is not significant, "
               f"thicker when less significant; the best system is in red bold. Showing "
               f"{len(shown)} of {len(order)} systems.")
    if kind == "interactive":
        st.iframe(figures.graph_html(q, shown), height=560)
        return
    picture = figures.graph_svg(q, shown)
    with _wide("graph"):
        widgets.picture(picture)
    st.download_button("Download SVG", picture, icon=":material/download:",
                       file_name="significance-graph.svg", mime="image/svg+xml",
                       on_click="ignore")


__all__ = ["leaderboard_charts"]
