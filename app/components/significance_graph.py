"""The significance graph in three views (static SVG, interactive, cliques); only the open one
is drawn."""

from __future__ import annotations

import streamlit as st

from app import cache, state
from app.charts.graph import clique_frame
from app.url import GRAPH_TABS, View
from engine import Leaderboard, TestOptions


def significance_graph(board: Leaderboard, view: View, token: str, options: TestOptions) -> None:
    """Seed paper §5.1: systems at the height of their mean, edges between ties."""
    st.subheader("Significance graph")
    st.caption("Height = mean; an edge joins two systems whose difference is not significant, "
               "thicker when less significant; the best system is in red bold.")
    tabs = state.bound_tabs("graph", view.graph, GRAPH_TABS)
    if tabs["static"].open:
        with tabs["static"]:
            svg = cache.graph_svg(token, view.benchmark, view.metric, options)
            st.image(svg, width="stretch")
            st.download_button("Download SVG", lambda: svg, icon=":material/download:",
                               file_name=f"{view.benchmark}-{view.metric}-graph.svg",
                               mime="image/svg+xml", on_click="ignore")
    if tabs["interactive"].open:
        tabs["interactive"].iframe(cache.graph_html(token, view.benchmark, view.metric, options),
                                   height=560)
    if tabs["groups"].open:
        with tabs["groups"]:
            if board.pairwise.compare != "all":
                st.info("Groups need all pairs compared; with another comparison set they are "
                        "approximate.")
            st.vega_lite_chart(spec=cache.clique_spec(token, view.benchmark, view.metric, options),
                               width="stretch")
            groups = clique_frame(board).groupby("group")["system"].agg(", ".join)
            st.dataframe(groups.rename("systems").reset_index(), hide_index=True,
                         width="stretch")
