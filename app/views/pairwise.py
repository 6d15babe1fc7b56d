"""Pairwise: p-value and effect-size matrices, the PWPP, and a drill-down into one pair."""

from __future__ import annotations

import streamlit as st

from app import data, state, widgets
from app.charts.pairwise import (
    difference_histogram,
    effect_heatmap,
    pair_scatter,
    pvalue_heatmap,
    pwpp,
    two_by_two,
)
from app.pairs import PWPP_SYSTEMS, pair_scores, pair_summary

token = data.token()
catalog = data.catalog(token)
view = state.view()
if catalog.empty:
    st.info("The store is empty: upload results on the Upload page.")
    st.stop()

st.title(f"Pairwise · {view.benchmark}")
widgets.benchmark_metric(view, catalog)
widgets.test_settings(view)
try:
    board = data.board(token, view.benchmark, view.metric, tuple(view.test_options().items()))
except ValueError as exc:
    st.error(f"These settings cannot be tested on this benchmark: {exc}")
    st.stop()
result = board.pairwise
order = list(board.table["system"])

st.info(widgets.describe_test(view, result.test, result.paired, result.reason),
        icon=":material/science:")
widgets.notes(result.notes)

st.subheader("One pair")
view, problems = state.check_pair(view, order)
state.warn(problems)
state.set_view(view)
if len(order) < 2:
    st.info("This benchmark has a single system: there is no pair to compare.")
    st.stop()
left, right = st.columns(2)
with left:
    state.bound(st.selectbox, "System A", "a", view.a, options=order)
with right:
    state.bound(st.selectbox, "System B", "b", view.b,
                options=[s for s in order if s != view.a] or order)
matrix = data.matrix(token, view.benchmark, view.metric)
x, y = pair_scores(matrix, view.a, view.b, paired=result.paired)
st.markdown(pair_summary(result, view.a, view.b, len(x), higher_is_better=board.higher_is_better))
scatter, histogram = st.columns(2)
with scatter:
    st.altair_chart(pair_scatter(x, y, view.a, view.b, binary=matrix.binary), width="stretch")
with histogram:
    if result.paired:
        st.altair_chart(difference_histogram(x - y, view.a, view.b, binary=matrix.binary),
                        width="stretch")
    else:
        st.caption("Unpaired comparison: there are no per-example differences to show.")
if matrix.binary and result.paired:
    st.markdown("**2×2 table** (discordant cells drive McNemar's test)")
    st.table(two_by_two(x, y, view.a, view.b))

st.subheader("All pairs")
tabs = state.bound_tabs("panel", view.panel, state.MATRIX_TABS)
if tabs["pvalues"].open:
    tabs["pvalues"].altair_chart(pvalue_heatmap(result, order), width="content")
if tabs["effects"].open:
    tabs["effects"].caption("Positive (red) when the row system is better than the column one.")
    tabs["effects"].altair_chart(effect_heatmap(result, order), width="content")
if tabs["pwpp"].open:
    top = order[:PWPP_SYSTEMS]
    if len(order) > PWPP_SYSTEMS:
        tabs["pwpp"].caption(f"Pairs among the best {PWPP_SYSTEMS} of {len(order)} systems.")
    tabs["pwpp"].altair_chart(pwpp(result, top), width="stretch")
if tabs["table"].open:
    tabs["table"].dataframe(result.table, hide_index=True, width="stretch")
