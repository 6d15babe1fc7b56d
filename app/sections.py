"""Page sections with several widgets and charts, kept out of the page scripts."""

from __future__ import annotations

from typing import Any

import pandas as pd
import streamlit as st

from app import data, state, widgets
from app.across import MAX_ROWS, styled
from app.charts.graph import clique_frame
from app.charts.pairwise import difference_histogram, pair_scatter, two_by_two
from app.downloads import safe_csv
from app.pairs import PWPP_SYSTEMS, pair_scores, pair_summary
from app.ranked import ranked_html
from app.state import View
from app.tables import COLUMN_CONFIG, DEFAULT_COLUMNS, HELP, fit_height
from engine import Leaderboard, ScoreMatrix


def table_view(view: View, rows: pd.DataFrame) -> tuple[View, list[str]]:
    """Validate the table's URL parameters (columns, metadata filter); returns the columns shown."""
    meta_columns = _meta_columns(rows)
    all_columns = [*DEFAULT_COLUMNS, *meta_columns]
    view, problems = state.check_choices(view, "cols", all_columns)
    view, more = state.check_choices(view, "fcol", meta_columns)
    if view.fcol:
        view, bad = state.check_choices(view, "fval", _values(rows, view.fcol))
        more += bad
    state.warn(problems + more)
    state.set_view(view)
    return view, ["system", *(view.cols or all_columns)]


def _meta_columns(rows: pd.DataFrame) -> list[str]:
    return [c for c in rows.columns if c not in (*DEFAULT_COLUMNS, "system")]


def _values(rows: pd.DataFrame, column: str) -> list[str]:
    return sorted(rows[column].dropna().astype(str).unique())


def table_controls(view: View, rows: pd.DataFrame) -> None:
    """Search, then metadata filter and column choice in a popover (``view`` already valid).

    The popover's widgets are drawn only when it opens: the first screen stays light.
    """
    meta_columns = _meta_columns(rows)
    all_columns = [*DEFAULT_COLUMNS, *meta_columns]
    search, more = st.columns([3, 2], vertical_alignment="bottom")
    with search:
        state.bound(st.text_input, "Search systems", "q", view.q, placeholder="name contains…")
    # a fixed label: the popover keeps its identity (and stays open) across reruns
    with more.popover("Filter & columns", icon=":material/filter_list:", width="stretch"):
        state.bound(st.selectbox, "Filter on", "fcol", view.fcol, options=["", *meta_columns],
                    format_func=lambda c: c or "(no metadata filter)", clears=("fval",),
                    disabled=not meta_columns)
        if view.fcol:
            state.bound(st.multiselect, f"{view.fcol} is", "fval", view.fval,
                        options=_values(rows, view.fcol))
        state.bound(st.multiselect, "Columns", "cols", view.cols or all_columns,
                    options=all_columns)


def ranked_table(board: Leaderboard, view: View, shown: pd.DataFrame,
                 columns: list[str]) -> list[int] | None:
    """The table in two views: ranked HTML (default) or the sortable, selectable grid.

    Returns the selected row positions of the grid, or None when the ranked view is open.
    """
    tabs = state.bound_tabs("table", view.table, state.TABLE_TABS)
    if tabs["ranked"].open:
        t = board.table
        best = list(t["system"].astype(str).iloc[:2])
        names = list(shown["system"]) if len(best) == 2 else []
        pairs = [{"a": s, "b": best[1] if s == best[0] else best[0]} for s in names]
        links = dict(zip(names, state.hrefs("pairwise", pairs), strict=True))
        top = set(t.loc[t["rank_low"] == 1, "system"].astype(str))
        tabs["ranked"].html(ranked_html(shown, columns, top=top, links=links, help=HELP))
        if top:
            tabs["ranked"].caption("Shaded: systems that could rank first (no system is "
                                   "significantly better).")
        return None
    with tabs["grid"]:
        selection = st.dataframe(shown[columns], hide_index=True, column_config=COLUMN_CONFIG,
                                 on_select="rerun", selection_mode="multi-row",
                                 key="leaderboard_table", height=fit_height(len(shown), 560))
    return list(selection.selection.rows)


def significance_graph(board: Leaderboard, view: View, token: str,
                       options: tuple[tuple[str, Any], ...]) -> None:
    """The graph in three views (static, interactive, cliques); only the open one is drawn."""
    st.subheader("Significance graph")
    st.caption("Height = mean; an edge joins two systems whose difference is not significant, "
               "thicker when less significant; the best system is in red bold.")
    tabs = state.bound_tabs("graph", view.graph, state.GRAPH_TABS)
    if tabs["static"].open:
        with tabs["static"]:
            svg = data.graph_svg(token, view.benchmark, view.metric, options)
            st.image(svg, width="stretch")
            st.download_button("Download SVG", lambda: svg, icon=":material/download:",
                               file_name=f"{view.benchmark}-{view.metric}-graph.svg",
                               mime="image/svg+xml", on_click="ignore")
    if tabs["interactive"].open:
        tabs["interactive"].iframe(data.graph_html(token, view.benchmark, view.metric, options),
                                   height=560)
    if tabs["groups"].open:
        with tabs["groups"]:
            if board.pairwise.compare != "all":
                st.info("Groups need all pairs compared; with another comparison set they are "
                        "approximate.")
            st.vega_lite_chart(
                spec=data.clique_spec(token, view.benchmark, view.metric, options),
                width="stretch")
            groups = clique_frame(board).groupby("group")["system"].agg(", ".join)
            st.dataframe(groups.rename("systems").reset_index(), hide_index=True,
                         width="stretch")


def pair_drilldown(board: Leaderboard, view: View, matrix: ScoreMatrix) -> None:
    """Pick two systems; their test, per-example scatter, differences and 2×2 table."""
    order = list(board.table["system"])
    left, right = st.columns(2)
    with left:
        state.bound(st.selectbox, "System A", "a", view.a, options=order)
    with right:
        state.bound(st.selectbox, "System B", "b", view.b,
                    options=[s for s in order if s != view.a] or order)
    paired = board.pairwise.paired
    x, y = pair_scores(matrix, view.a, view.b, paired=paired)
    st.markdown(pair_summary(board.pairwise, view.a, view.b, len(x),
                             higher_is_better=board.higher_is_better))
    scatter, histogram = st.columns(2)
    with scatter:
        st.altair_chart(pair_scatter(x, y, view.a, view.b, binary=matrix.binary),
                        width="stretch")
    with histogram:
        if paired:
            st.altair_chart(difference_histogram(x - y, view.a, view.b, binary=matrix.binary),
                            width="stretch")
        else:
            st.caption("Unpaired comparison: there are no per-example differences to show.")
    if matrix.binary and paired:
        st.markdown("**2×2 table** (discordant cells drive McNemar's test)")
        st.table(two_by_two(x, y, view.a, view.b))


def all_pairs(board: Leaderboard, view: View, token: str,
              options: tuple[tuple[str, Any], ...]) -> None:
    """Adjusted p-values, effect sizes, the PWPP and the raw table; only the open tab is drawn."""
    tabs = state.bound_tabs("panel", view.panel, state.MATRIX_TABS)
    n = len(board.table)
    if tabs["effects"].open:
        tabs["effects"].caption("Positive (red): the row system is better than the column one.")
    if tabs["pwpp"].open and n > PWPP_SYSTEMS:
        tabs["pwpp"].caption(f"Pairs among the best {PWPP_SYSTEMS} of {n} systems.")
    for kind in ("pvalues", "effects", "pwpp"):
        if tabs[kind].open:
            spec = data.panel_spec(token, view.benchmark, view.metric, options, kind)
            tabs[kind].vega_lite_chart(spec=spec, width="stretch" if kind == "pwpp" else "content")
    if tabs["metrics"].open:
        with tabs["metrics"]:
            metrics_table(view, token, options)
    if tabs["table"].open:
        tabs["table"].dataframe(board.pairwise.table, hide_index=True, width="stretch")


def metrics_table(view: View, token: str, options: tuple[tuple[str, Any], ...]) -> None:
    """Seed paper §5.2: every pair (rows) on every metric of the benchmark (columns)."""
    value = "pvalue_adj" if view.criterion == "pvalue" else "effect_size"
    try:
        result, skipped = data.across(token, view.benchmark, options, value)
    except ValueError as exc:
        st.warning(f"No metric of this benchmark can be tested with these settings: {exc}")
        return
    shown = "adjusted p-value" if value == "pvalue_adj" else "effect size (+: first system better)"
    st.caption(f"Each cell: the {shown} where the pair differs significantly on that metric, "
               "blank where it does not. Red: the first system is better; blue: the second; "
               "darker = more significant. Rows: most significant across metrics first (HMP = "
               "harmonic mean of the raw p-values). *conflict*: metrics disagree on the winner.")
    if len(result.metrics) == 1:
        st.info(f"`{view.benchmark}` has one metric, {result.metrics[0]}: upload more metrics "
                "for the same examples to compare them side by side.", icon=":material/info:")
    widgets.notes(list(skipped))
    n = len(result.table)
    if n > MAX_ROWS:
        st.caption(f"The {MAX_ROWS} most significant of {n:,} pairs; the CSV has all of them.")
    # placeholder "": a pair not significant on a metric is a blank (white) cell, not "None"
    st.dataframe(styled(result, alpha=view.alpha), hide_index=True, width="stretch",
                 height=fit_height(min(n, MAX_ROWS), 560), placeholder="")
    st.download_button("Download CSV", lambda: safe_csv(result.table), icon=":material/download:",
                       file_name=f"{view.benchmark}-pairs-across-metrics.csv", mime="text/csv",
                       on_click="ignore")
