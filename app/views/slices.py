"""Slices: each system's mean per slice of an example attribute, and the pairs whose verdict
changes between slices (tests of every slice adjusted together)."""

from __future__ import annotations

from dataclasses import replace

import numpy as np
import streamlit as st

from app import state, widgets
from app.components.slices_table import changes_frame, changes_html, estimates_html
from app.data import results, slices
from app.data.query import Query
from app.downloads import file_name, safe_csv
from app.url import SLICE_BINS, check_slice
from engine.app_support import md_isolated, zero_one

token, catalog, view = widgets.page_context()

widgets.title("Slices", view)
widgets.benchmark_metric(view, catalog)
widgets.test_settings(view)
choices = slices.slice_choices(token, view.benchmark, view.sbins)
skipped = [f"{md_isolated(c)} {why}" for c, why in choices.skipped.items()]
if not choices.counts:
    st.info(f"{md_isolated(view.benchmark)} has no information about its examples to split it by: "
            "no column such as a category, a language or a difficulty, with one value per "
            "example. Upload results with such a column to compare the systems on each part "
            "of the benchmark.", icon=":material/info:")
    if skipped:
        st.caption("Not usable here: " + "; ".join(skipped) + ".")
    st.stop()

view, problems = check_slice(replace(view, sval=""), choices.names)
state.warn(problems)
# categories first (a language, a subset), then numbers cut into bins (a length, a difficulty)
columns = sorted(choices.counts, key=lambda c: c in choices.numeric)
view = replace(view, scol=view.scol or columns[0])
state.set_view(view)
left, right = st.columns([3, 2])
with left:
    state.bound(st.selectbox, "Split the examples by", "scol", view.scol, options=columns,
                format_func=widgets.names,
                help="An attribute with one value per example; a numeric one is cut at its "
                     "quantiles into slices of about equal size.")

# the one question of the page: the slice table and the verdict changes are its answer
query = Query.of(view, token, split=(view.scol, view.sbins))
steps = widgets.Progress(1)  # a bar naming what is computed
steps.step(f"Testing every pair within each slice of {md_isolated(view.scol)}")
try:
    result = results.slice_result(query)
except ValueError as exc:
    steps.done()
    st.error(f"These settings cannot be tested on these slices: {md_isolated(exc)}")
    st.stop()
steps.done()
if result.binned:
    with right:
        state.bound(st.selectbox, "Number of slices", "sbins", view.sbins, options=SLICE_BINS,
                    help="The numeric attribute is cut at its quantiles into this many slices.")

matrix = results.matrix(token, view.benchmark, view.metric)
means = np.nanmean(matrix.values, axis=1) * (1 if matrix.higher_is_better else -1)
order = [matrix.systems[i] for i in np.argsort(-means, kind="stable")]
counts = {str(k): int(v) for k, v in choices.counts[view.scol].items()}
links = dict(zip(result.slices, state.hrefs("leaderboard", [
    {"scol": view.scol, "sval": name, "sbins": str(view.sbins)} for name in result.slices]),
    strict=True))
direction = "higher" if matrix.higher_is_better else "lower"
percent = zero_one(matrix)  # on the runs' own scores: averaged 0/1 runs stay in percent
level = f"{1 - query.options.alpha:.0%}"
st.caption(f"{len(result.slices)} slices of {md_isolated(view.scol)} · mean {md_isolated(view.metric)} and "
           f"its {level} interval per slice ({direction} is better"
           f"{'; 0/1 scores in percent' if percent else ''}) · systems from best to "
           "worst on the whole benchmark · a slice's name opens its leaderboard.")
if result.binned:  # the engine's note says "quantile bins": here in plain words
    st.caption(f":material/info: {md_isolated(view.scol)} is a number: the examples are split into "
               f"{len(result.slices)} slices of about equal size, from its smallest values (q1) "
               "to its largest; the brackets give each slice's range.")
widgets.notes([n for n in result.notes if "quantile bins" not in n])
st.html(estimates_html(result, order, counts=counts, links=links, percent=percent))
st.download_button("Download CSV", lambda: safe_csv(result.estimates),
                   icon=":material/download:", on_click="ignore",
                   file_name=file_name(view.benchmark, view.metric, f"slices-{view.scol}"),
                   mime="text/csv")

st.subheader("Pairs whose verdict changes between slices")
changes = changes_frame(result)
n_tests = len(result.pairs)
st.caption(f"The {n_tests:,} tests (every pair in every slice) are adjusted together, so testing "
           "many slices does not make changes appear by chance. A pair counts when it is "
           "significantly different in at least one slice and not the same way in all of them.")
if changes.empty:
    st.success("No pair of systems changes its verdict between these slices.",
               icon=":material/check_circle:")
else:
    reversed_ = int((changes["kind of change"] == "reverses").sum())
    st.markdown(f"**{len(changes):,}** pairs change; **{reversed_:,}** reverse (each system "
                "significantly better in some slice). The others are significant in some slices "
                "only, which a smaller slice's lower power alone can explain.")
    st.html(changes_html(changes))
    if len(changes) > 100:
        st.caption(f"The first 100 of {len(changes):,} pairs; the CSV has all of them.")
    st.download_button("Download changes (CSV)", lambda: safe_csv(changes),
                       icon=":material/download:", on_click="ignore",
                       file_name=file_name(view.benchmark, view.metric,
                                           f"slice-changes-{view.scol}"), mime="text/csv")
if skipped:
    st.caption("Not offered as a split: " + "; ".join(skipped) + ".")
