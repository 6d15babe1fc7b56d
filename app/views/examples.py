"""Examples: suspect examples, unsolved and single-solver examples, difficulty, the score heatmap."""

from __future__ import annotations

import streamlit as st

from app import cache, widgets
from app.charts.examples import difficulty_histogram
from app.ranked import MISSING, plain
from app.tables import fit_height
from engine import HealthReport

token, catalog, view = widgets.page_context()

widgets.title("Examples", view)
widgets.benchmark_metric(view, catalog)
widgets.test_settings(view)
matrix = cache.matrix(token, view.benchmark, view.metric)
report: HealthReport | None = None
if matrix.n_systems > widgets.MAX_SYSTEMS:
    st.info(f"Example diagnostics compare every pair of systems; this benchmark has "
            f"{matrix.n_systems:,} (more than {widgets.MAX_SYSTEMS:,}), so only the scores "
            "are shown.")
else:
    try:
        report = cache.health(token, view.benchmark, view.metric, view.alpha)
    except ValueError as exc:
        st.warning(f"Example diagnostics are not available for this metric: {plain(exc)}")


def _gap(value: float) -> str:
    """A gap between means: percentage points for 0/1 scores, else the metric's units."""
    if value != value:  # NaN: no such gap
        return MISSING
    return f"{100 * value:.1f} pts" if matrix.binary else f"{value:.3g}"


if report is not None:
    cols = [*st.columns(3), *st.columns(3)]  # two rows: labels and values are never cut off
    cols[0].metric("examples used", report.size, help=f"{report.n_dropped} left out (not scored "
                   "by every system)" if report.n_dropped else None)
    cols[1].metric("systems", len(report.systems))
    cols[2].metric("smallest significant gap", _gap(report.p5_min),
                   help="The smallest difference of means between two systems that is "
                        "significant (p5_min on the Methods page).")
    cols[3].metric("largest gap not significant", _gap(report.p5_max),
                   help="The largest difference of means between two systems that is not "
                        "significant (p5_max on the Methods page).")
    cols[4].metric("suspect examples", report.tau_neg,
                   help="Examples that worse systems solve more often than better ones "
                        "(Kendall's tau < 0).")
    cols[5].metric("smallest detectable gap", _gap(report.mdd),
                   help=f"at alpha {report.alpha:g} and power {report.power:g} (minimum "
                        "detectable difference)")

    suspects, none, one = st.columns([2, 1.4, 2])
    with suspects:
        st.subheader("Suspect examples")
        st.caption("Solved more often by worse systems (lowest agreement first): check their "
                   "labels and tests.")
        st.dataframe(report.suspects.rename(columns={"example_id": "example",
                                                     "tau": "agreement"}),
                     hide_index=True, width="stretch", height=fit_height(len(report.suspects)),
                     column_config={"agreement": st.column_config.NumberColumn(
                         format="%.3f", help="Kendall's tau between solving this example and "
                                             "the systems' ranks (below 0: suspect)")})
    with none:
        st.subheader("Solved by none")
        st.dataframe({"example": list(report.no_solve)}, hide_index=True, width="stretch",
                     height=fit_height(len(report.no_solve)))
    with one:
        st.subheader("Solved by exactly one")
        st.dataframe(report.solved_by_one.rename(columns={"example_id": "example"}),
                     hide_index=True, width="stretch",
                     height=fit_height(len(report.solved_by_one)),
                     column_config={"rating": st.column_config.NumberColumn(format="%.3f")})
    st.subheader("Difficulty")
    st.altair_chart(difficulty_histogram(report.difficulty), width="stretch")

st.subheader("Every score")
st.caption("Systems from best mean (top) to worst; examples from easiest (left) to hardest. "
           "When there are more examples than fit, each column averages neighbouring ones.")
st.vega_lite_chart(spec=cache.examples_spec(token, view.benchmark, view.metric), width="stretch")
