"""Pairwise: p-value and effect-size matrices, the PWPP, and a drill-down into one pair."""

from __future__ import annotations

from dataclasses import replace

import streamlit as st

from app import state, widgets
from app.components.all_pairs import all_pairs
from app.components.cluster_choice import (
    DEFF_HELP,
    cluster_select,
    cluster_sentence,
    resolve_cluster,
)
from app.components.judge_note import judge_pair
from app.components.pair_drilldown import pair_drilldown, pair_row
from app.components.pair_reliability import pair_reliability
from app.components.slices_scope import restrict, scope_note
from app.components.watch_note import several_uploads
from app.data import results
from app.data.query import Query
from app.url import check_pair
from engine.app_support import md_isolated, md_text, pair_headline, zero_one

#: Why a pair says "cannot decide", in words (the A/B page and `sigboard compare` agree).
UNDECIDED_WHY = ("one system lacks examples the other has, and with those counted at their "
                 "worst score the difference could vanish; A/B compare says the same. Rerun "
                 "the missing examples to decide.")

token, catalog, view = widgets.page_context()
view, token = restrict(view, token)  # a slice in the URL: every result below is the slice's

widgets.title("Pairwise", view)
headline_slot = st.empty()  # the chosen pair's answer in one sentence, first
widgets.benchmark_metric(view, catalog)
widgets.test_settings(view)
view, cluster, cluster_columns, cluster_problems = resolve_cluster(view, token)
# the one question of the page: the pair, the matrices and the table are this query's answer
query = Query.of(view, token, cluster=cluster)
several_uploads(query)
state.warn(cluster_problems)
cluster_select(view, cluster_columns)
steps = widgets.Progress(3)
try:
    steps.step("Loading the scores")
    matrix = results.matrix(token, view.benchmark, view.metric)
    scope_note(view, query, matrix.n_examples)
    widgets.system_limit(matrix.n_systems, steps)
    steps.step(f"Testing every pair of the {matrix.n_systems} systems")
    board = results.board_of(query)
except ValueError as exc:
    steps.done()
    st.error(f"These settings cannot be tested on this benchmark: {md_isolated(exc)}")
    st.stop()
steps.step("Drawing the pairs")
# the board's tests with the pairs the missing examples leave open marked, as `compare`
# decides them: the headline, the drill-down, the matrices and the table all draw this
result = results.pairwise_of(query)
order = list(board.table["system"])
if result.resolution is not None and not result.resolution.can_separate:
    st.info(f"**No pair can be significant on this benchmark, whatever the scores.** "
            f"{md_text(result.resolution.message)}", icon=":material/block:")

plain, technical = widgets.plain_test(view, replace(board, pairwise=result))
undecided = int((result.table["undecided"] != "").sum()) if "undecided" in result.table else 0
if undecided:
    plain += (f" {undecided:,} of the pairs that would differ cannot be decided: "
              f"{UNDECIDED_WHY}")
st.markdown(f":material/science: {plain}", help=technical)
if result.clusters is not None:  # next to the intervals
    st.caption(cluster_sentence(result.clusters.n_clusters, result.table.get("design_effect")),
               help=DEFF_HELP)
widgets.notes(result.notes)

st.subheader("One pair")
view, problems = check_pair(view, order)
state.warn(problems)
state.set_view(view)
if len(order) < 2:
    steps.done()
    st.info("This benchmark has a single system: there is no pair to compare.")
    st.stop()
row, _ = pair_row(result, view.a, view.b)
if row is not None and str(row.get("undecided") or ""):
    headline_slot.markdown(f"**{md_isolated(view.a)} vs {md_isolated(view.b)}: "
                           f"{md_text(row['undecided'])}.** "
                           f"{UNDECIDED_WHY[0].upper()}{UNDECIDED_WHY[1:]}")
elif row is not None:
    headline_slot.markdown("**" + md_text(pair_headline(
        row, binary=zero_one(matrix), alpha=result.alpha, correction=result.correction)) + "**")
judge_pair(query, view.a, view.b)  # the judge's difference corrected with human labels
pair_drilldown(board, view, matrix, result)
pair_reliability(query, view.a, view.b)  # repeated 0/1 tries: the pass^k difference

st.subheader("All pairs")
all_pairs(query, view)
steps.done()
