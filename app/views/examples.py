"""Examples: suspect examples, unsolved and single-solver examples, difficulty, the score heatmap."""

from __future__ import annotations

import streamlit as st

from app import cache, widgets
from app.charts.examples import difficulty_histogram, example_system_heatmap
from app.tables import fit_height
from engine import HealthReport

token, catalog, view = widgets.page_context()

st.title(f"Examples · {view.benchmark}")
widgets.benchmark_metric(view, catalog)
widgets.test_settings(view)
matrix = cache.matrix(token, view.benchmark, view.metric)
report: HealthReport | None
try:
    report = cache.health(token, view.benchmark, view.metric, view.alpha)
except ValueError as exc:
    st.warning(f"Example diagnostics are not available for this metric: {exc}")
    report = None

if report is not None:
    cols = st.columns(6)
    cols[0].metric("examples used", report.size, help=f"{report.n_dropped} left out (not scored "
                   "by every system)" if report.n_dropped else None)
    cols[1].metric("systems", len(report.systems))
    cols[2].metric("p5_min", f"{report.p5_min:.1%}", help="smallest significant gap")
    cols[3].metric("p5_max", f"{report.p5_max:.1%}", help="largest non-significant gap")
    cols[4].metric("suspects", report.tau_neg, help="examples with Kendall tau < 0")
    cols[5].metric("min. detectable diff.", f"{report.mdd:.3f}",
                   help=f"at alpha {report.alpha:g}, power {report.power:g}")

    suspects, none, one = st.columns([2, 1.4, 2])
    with suspects:
        st.subheader("Suspect examples")
        st.caption("Solved more often by worse systems (tau < 0, lowest first): check their "
                   "labels and tests.")
        st.dataframe(report.suspects, hide_index=True, width="stretch",
                     height=fit_height(len(report.suspects)),
                     column_config={"tau": st.column_config.NumberColumn(format="%.3f")})
    with none:
        st.subheader("Solved by none")
        st.dataframe({"example_id": list(report.no_solve)}, hide_index=True, width="stretch",
                     height=fit_height(len(report.no_solve)))
    with one:
        st.subheader("Solved by exactly one")
        st.dataframe(report.solved_by_one, hide_index=True, width="stretch",
                     height=fit_height(len(report.solved_by_one)),
                     column_config={"rating": st.column_config.NumberColumn(format="%.3f")})
    st.subheader("Difficulty")
    st.altair_chart(difficulty_histogram(report.difficulty), width="stretch")

st.subheader("Every score")
st.caption("Systems from best (top) to worst; examples from easiest (left) to hardest.")
try:
    order = list(cache.board(token, view.benchmark, view.metric,
                             view.test_options()).table["system"])
except ValueError:
    order = list(matrix.systems)
st.altair_chart(example_system_heatmap(matrix, order), width="content")
