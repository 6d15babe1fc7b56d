"""Examples: suspect examples, unsolved and single-solver examples, difficulty, the score heatmap."""

from __future__ import annotations

from dataclasses import replace
from typing import Any

import pandas as pd
import streamlit as st

from app import state, widgets
from app.charts.svg_examples import difficulty_svg
from app.components import example_drilldown
from app.components.reliability import flaky_section
from app.data import figures, results
from app.data import reliability as reliability_data
from app.data.query import Query
from app.ranked import MISSING, html_table
from app.url import EXAMPLE_TABS, check_example
from engine.app_support import difference_text, md_isolated, zero_one
from engine.results import HealthReport, PowerAnalysis

_PAGE = "examples"

token, catalog, view = widgets.page_context()

widgets.title("Examples", view)
widgets.benchmark_metric(view, catalog)
widgets.test_settings(view)
# the one question of the page: the health report, its charts and the example shown answer it
query = Query.of(view, token)
matrix = results.matrix(token, view.benchmark, view.metric)
# a 0/1 metric (its runs' own scores, when several runs are averaged) reads in percent
percent = zero_one(matrix)
report: HealthReport | None = None
if matrix.n_systems > widgets.MAX_SYSTEMS:
    st.info(f"Example diagnostics compare every pair of systems; this benchmark has "
            f"{matrix.n_systems:,} (more than {widgets.MAX_SYSTEMS:,}), so only the scores "
            "are shown.")
else:
    steps = widgets.Progress(1)  # a bar naming what is computed
    steps.step(f"Checking each of the {matrix.n_examples:,} examples against every system")
    try:
        report = results.health(query)
    except ValueError as exc:
        st.warning(f"Example diagnostics are not available for this metric: {md_isolated(exc)}")
    steps.done()


def _gap(value: float) -> str:
    """A gap between means: percentage points for 0/1 scores, else the metric's units (as
    A/B compare and Plan write a difference)."""
    return difference_text(value, percent=percent, signed=False)


def _picked(key: str) -> None:
    """The example picked becomes the one shown in detail (the address bar's ``ex``)."""
    value: Any = st.session_state[key]
    state.set_params({"ex": str(value)})


def _detail() -> None:
    """One example in detail: picked from the suspects list, the selectbox or ``ex``."""
    suspects = [] if report is None else [str(e) for e in report.suspects["example_id"]]
    flagged = set(suspects)
    examples = suspects + [e for e in matrix.examples if e not in flagged]
    if not examples:
        return
    shown, problems = check_example(view, examples, examples[0])
    state.warn(problems)
    state.set_view(shown)  # the example shown goes to the address bar
    example = shown.ex
    st.subheader("One example in detail")
    st.caption("Every system's score on one example, best system first, the example's text "
               "and each system's output when uploaded. Click a suspect example above, or "
               "pick any example here.")
    st.session_state["examples_ex"] = example
    # in a popover: the select box is drawn only when it opens (a lighter first screen)
    suspect = " · suspect" if example in flagged else ""
    with st.popover(f"Example {md_isolated(example)}{suspect}", icon=":material/quiz:",
                    help="Pick any example: suspects first (lowest agreement first)."):
        st.selectbox("Example", examples, key="examples_ex", format_func=lambda e: (
            f"{e} · suspect" if e in flagged else str(e)), on_change=_picked,
            args=("examples_ex",),
            help="Suspect examples first (lowest agreement first), then every other example.")
    try:
        detail = results.drilldown(replace(query, example=example))
    except ValueError as exc:
        st.warning(f"This example cannot be shown: {md_isolated(exc)}")
        return
    example_drilldown.show(detail, percent=percent)


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
    # the A/B compare and Plan pages' figure, from the same simulation (one answer)
    pw: PowerAnalysis | None
    try:
        pw = results.power_of(query)
    except ValueError:
        pw = None
    cols[5].metric("smallest detectable difference", MISSING if pw is None else _gap(pw.mdd),
                   help=None if pw is None else
                   f"With {pw.target_power:.0%} power at alpha {pw.alpha:g}, {pw.examples:,} "
                   f"examples and {pw.runs} run(s), as on A/B compare and Plan "
                   f"({pw.n_sim:,} simulations).")

    suspects, none, one = st.columns([1.7, 1.1, 2.6])  # the last holds system names
    with suspects:
        st.subheader("Suspect examples")
        st.caption("Solved more often by worse systems (lowest agreement first): check their "
                   "labels and tests." + ("" if matrix.binary or not report.solved_rule else
                                          f" Solved: {report.solved_rule}."))
        # static HTML with a link per example (the grid's code is ~1.7 MB to fetch and
        # compile on a first visit); a link opens the example in detail below
        shown = report.suspects.rename(columns={"example_id": "example", "tau": "agreement"})
        ids = [str(e) for e in shown["example"]]
        st.html(html_table(shown, label="suspect examples", formats={"agreement": ".3f"},
                           help={"agreement": "Kendall's tau between solving this example and "
                                              "the systems' ranks (below 0: suspect)",
                                 "example": "Open the example in detail below."},
                           links=dict(zip(ids, state.hrefs(_PAGE, [{"ex": e} for e in ids]),
                                          strict=True))))
    with none:
        st.subheader("Solved by none")
        st.html(html_table(pd.DataFrame({"example": list(report.no_solve)}),
                           label="solved by none"))
    with one:
        st.subheader("Solved by exactly one")
        # the solver's "rating" is its mean score (or a rating uploaded with the results):
        # named and in the page's units, not a bare "rating"
        by_mean = report.rating_source == "mean"
        rating = "solver's mean" if by_mean else "solver's rating"
        share = by_mean and percent
        st.html(html_table(report.solved_by_one.rename(columns={"example_id": "example",
                                                                "rating": rating}),
                           label="solved by exactly one",
                           formats={rating: ".1%" if share else ".3f"},
                           help={rating: "The mean score of the one system that solves it"
                                 + (" (percent of examples solved)" if share else "")
                                 if by_mean else "The rating uploaded for that system"}))

# repeated 0/1 tries: the flaky tasks of each system beside the suspects, one answer
tries = reliability_data.tries_of(token, view.benchmark, view.metric)
if tries.available:
    try:
        flaky_section(query, tries, dict(zip(matrix.examples, state.hrefs(
            _PAGE, [{"ex": str(e)} for e in matrix.examples]), strict=True)))
    except ValueError as exc:
        st.warning(f"Flaky examples are not available for this metric: {md_isolated(exc)}")

_detail()
charts = state.bound_tabs("etab", view.etab, EXAMPLE_TABS)
if charts["difficulty"].open:
    if report is None:
        charts["difficulty"].caption("No difficulty histogram for these settings.")
    else:
        charts["difficulty"].caption("How many examples each share of systems solves "
                                     "(0: solved by none, 1: by all).")
        widgets.picture(difficulty_svg(report.difficulty), charts["difficulty"])
if charts["scores"].open:
    # a heatmap of every system × example needs the chart library: drawn only when asked for
    charts["scores"].caption("Systems from best mean (top) to worst; examples from easiest "
                             "(left) to hardest. When there are more examples than fit, each "
                             "column averages neighbouring ones.")
    charts["scores"].vega_lite_chart(spec=figures.examples_spec(query),
                                     width="stretch")
