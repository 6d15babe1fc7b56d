"""Leaderboard: ranked systems with groups, the significance graph and the clique view."""

from __future__ import annotations

import streamlit as st

from app import data, state, widgets
from app.charts.graph import clique_chart, clique_frame, static_graph
from app.downloads import safe_csv
from app.tables import COLUMN_CONFIG, DEFAULT_COLUMNS, filter_rows, fit_height, leaderboard_rows

token = data.token()
catalog = data.catalog(token)
view = state.view()
if catalog.empty:
    st.info("The store is empty: upload results on the Upload page.")
    st.stop()

st.title(f"Leaderboard · {view.benchmark}")
widgets.benchmark_metric(view, catalog)
widgets.test_settings(view)

options = tuple(view.test_options().items())
try:
    board = data.board(token, view.benchmark, view.metric, options)
except ValueError as exc:
    st.error(f"These settings cannot be tested on this benchmark: {exc}")
    st.stop()

direction = "higher" if board.higher_is_better else "lower"
st.caption(f"{len(board.table)} systems · {direction} {view.metric} is better · "
           + widgets.describe_test(view, board.test, board.paired, board.pairwise.reason))
widgets.notes(board.notes)

rows = leaderboard_rows(board, data.system_metadata(token, view.benchmark))
meta_columns = [c for c in rows.columns if c not in (*DEFAULT_COLUMNS, "system")]
all_columns = [*DEFAULT_COLUMNS, *meta_columns]
view, problems = state.check_choices(view, "cols", all_columns)
view, more = state.check_choices(view, "fcol", meta_columns)
state.warn(problems + more)

search, meta, chosen = st.columns([2, 2, 3])
with search:
    state.bound(st.text_input, "Search systems", "q", view.q, placeholder="name contains…")
with meta:
    state.bound(st.selectbox, "Filter on", "fcol", view.fcol, options=["", *meta_columns],
                format_func=lambda c: c or "(no metadata filter)", clears=("fval",),
                disabled=not meta_columns)
    if view.fcol:
        values = sorted(rows[view.fcol].dropna().astype(str).unique())
        view, bad = state.check_choices(view, "fval", values)
        state.warn(bad)
        state.bound(st.multiselect, f"{view.fcol} is", "fval", view.fval, options=values)
with chosen:
    state.bound(st.multiselect, "Columns", "cols", view.cols or all_columns, options=all_columns)
state.set_view(view)

shown = filter_rows(rows, view)
columns = ["system", *(view.cols or all_columns)]
if len(shown) < len(rows):
    st.caption(f"Showing {len(shown)} of {len(rows)} systems; tests cover all {len(rows)}.")
selection = st.dataframe(shown[columns], hide_index=True, column_config=COLUMN_CONFIG,
                         on_select="rerun", selection_mode="multi-row", key="leaderboard_table",
                         height=fit_height(len(shown), 560))
picked = [shown["system"].iloc[i] for i in selection.selection.rows][:2]
left, right = st.columns([3, 2])
with left:
    if len(picked) == 2 or (len(picked) == 1 and picked[0] != rows["system"].iloc[0]):
        a, b = (picked + [rows["system"].iloc[0]])[:2]
        state.link("pairwise", f"Compare {a} with {b}", icon=":material/compare_arrows:", a=a, b=b)
    else:
        st.caption("Select one or two rows to compare them on the Pairwise page.")
with right:
    st.download_button("Download CSV", safe_csv(shown[columns]), icon=":material/download:",
                       file_name=f"{view.benchmark}-{view.metric}-leaderboard.csv",
                       mime="text/csv", on_click="ignore")

st.subheader("Significance graph")
st.caption("Height = mean; an edge joins two systems whose difference is not significant, thicker "
           "when less significant; the best system is in red bold.")
tabs = state.bound_tabs("graph", view.graph, state.GRAPH_TABS)
if tabs["static"].open:
    tabs["static"].altair_chart(static_graph(board), width="stretch")
if tabs["interactive"].open:
    tabs["interactive"].iframe(data.graph_html(token, view.benchmark, view.metric, options),
                               height=560)
if tabs["groups"].open:
    with tabs["groups"]:
        if board.pairwise.compare != "all":
            st.info("Groups need all pairs compared; with another comparison set they are "
                    "approximate.")
        st.altair_chart(clique_chart(board), width="stretch")
        groups = clique_frame(board).groupby("group")["system"].agg(", ".join)
        st.dataframe(groups.rename("systems").reset_index(), hide_index=True, width="stretch")
