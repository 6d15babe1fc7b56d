"""Leaderboard: ranked systems with rank ranges, means with intervals, the significance graph.

The table is sent before the widgets above it (they go into containers placed
earlier), so it is on screen first; widgets take their values from the URL, so
the table does not need them first. Its default view is static HTML, which needs
no new browser code (see ``app/ranked.py``).
"""

from __future__ import annotations

from dataclasses import replace

import pandas as pd
import streamlit as st

from app import state, widgets
from app.components.arena import arena_boards
from app.components.cluster_choice import (
    DEFF_HELP,
    cluster_select,
    cluster_sentence,
    resolve_cluster,
)
from app.components.judge_note import judge_systems
from app.components.leaderboard_table import ranked_table, table_controls, table_view
from app.components.reliability import reliability_view, report_parts
from app.components.significance_graph import leaderboard_charts
from app.components.slices_scope import restrict, scope_note
from app.components.watch_note import several_uploads
from app.data import judge, results, store
from app.data import reliability as reliability_data
from app.data.query import Query
from app.downloads import file_name, safe_csv
from app.tables import filter_rows, leaderboard_rows
from app.url import MANY_ROWS, RELIABILITY_TABS
from engine import leaderboard_report
from engine.app_support import leaderboard_headline, md_isolated, md_text, zero_one
from engine.results import Leaderboard

#: Above the ranked table when a judge metric is corrected with human labels: what it ranks.
CORRECTED_TABLE = ("**Below: ranked on the corrected scores.** The ranked table's ranks, means, "
                   "intervals, groups and rank ranges are the PPI++ estimates of the human-label "
                   "means and their pair tests, the headline's; win rate, strength and Elo rank "
                   "the judge's own example battles, with no corrected version, so they are "
                   "empty.")

token, catalog, view = widgets.page_context()
view, token = restrict(view, token)  # a slice in the URL: every result below is the slice's

widgets.title("Leaderboard", view)
headline_slot = st.empty()  # the answer in one sentence, first (filled once it is computed)
# one row of buttons (benchmark, search & filter, downloads), each opening its widgets only
# when clicked: the first screen is the table, with no widget code for the browser to fetch
bar = st.container(horizontal=True, vertical_alignment="center")
summary, controls = st.container(), st.container()
corrected = st.container()  # a judge metric's scores corrected with human labels
options = view.test_options()
view, cluster, cluster_columns, cluster_problems = resolve_cluster(view, token)
state.warn(cluster_problems)
# the one question of the page: its table and every chart below are this query's answer
query = Query.of(view, token, cluster=cluster)
steps = widgets.Progress(2, headline_slot)  # a bar where the headline will be
try:
    steps.step("Loading the scores")
    matrix = results.matrix(token, view.benchmark, view.metric)
    widgets.system_limit(matrix.n_systems, steps)
    steps.step(f"Testing every pair of the {matrix.n_systems} systems")
    board = results.board_of(query)
except ValueError as exc:
    steps.done()
    with bar:
        widgets.benchmark_metric(view, catalog)
        cluster_select(view, cluster_columns)
    widgets.test_settings(view)
    st.error(f"These settings cannot be tested on this benchmark: {md_isolated(exc)}")
    st.stop()
# the headline ends with the confidence set for the best
headline_slot.markdown(f"**{md_text(leaderboard_headline(board))}**")
with corrected:  # the judge's figures corrected with the human labels, first
    # one answer per page: the headline, its count of differing pairs and the ranked table
    # below all come from the one judge board (PPI++), as the Judge page and the CLI
    lead = judge_systems(query)
    if lead is not None:
        headline_slot.markdown(f"**{lead}.**")
        st.markdown(CORRECTED_TABLE)
# the table's board: the judge's ranked on the PPI++ estimates when human labels correct it
ranked_board = (judge.corrected_leaderboard(query) if lead is not None else None) or board
if ranked_board is not board:
    st.caption("*Rank range*: from 1 + the systems significantly better to the systems not "
               "significantly worse, by the PPI++ pair tests the headline counts; shaded rows "
               "may be the best. How they are computed: Methods.")
elif board.rank_sets is not None:
    st.caption(f"*Rank range*: each system's rank confidence set; shaded rows may be the best "
               f"(the {1 - board.rank_sets.alpha:.0%} confidence set for the best, "
               f"{len(board.rank_sets.best_set)} systems). How they are computed: Methods.")
resolution = board.pairwise.resolution
if resolution is not None and not resolution.can_separate:  # in plain words
    more = (f" At least {resolution.examples_needed:,} examples per pair would be needed."
            if resolution.examples_needed else " More examples would be needed.")
    st.warning(f"This benchmark is too small to tell any two of these {len(board.table)} systems "
               f"apart: with {resolution.examples:,} examples no difference could be significant, "
               f"whatever the scores, so every system shares one group.{more}",
               icon=":material/straighten:")
    st.caption("Why: the smallest p-value these examples allow", help=md_text(resolution.message))


def _downloads(table: pd.DataFrame, board: Leaderboard) -> None:
    """The table as shown as CSV and the leaderboard as a Markdown report, in a popover."""
    with st.popover("Download", icon=":material/download:"):
        st.download_button("Download CSV", lambda: safe_csv(table),
                           icon=":material/download:",
                           file_name=file_name(view.benchmark, view.metric, "leaderboard"),
                           mime="text/csv", on_click="ignore")
        st.download_button("Download Markdown report",
                           lambda: leaderboard_report(board, fmt="markdown",
                                                      reliability=report_parts(query, view,
                                                                               tries)),
                           icon=":material/article:",
                           file_name=file_name(view.benchmark, view.metric, "leaderboard",
                                               suffix=".md"), mime="text/markdown",
                           on_click="ignore",
                           help="Ranks, rank ranges, groups and intervals of every system as "
                                "Markdown tables, with the test that grouped them.")


#: How a harness log that did not finish ended (its stored ``run_status``), as the import
#: report words it.
_ENDED = {"cancelled": "was cancelled", "error": "stopped on an error",
          "started": "did not finish", "killed": "was killed before it finished",
          "success": "finished"}


def _unfinished_runs(meta: pd.DataFrame, systems: pd.Series) -> str | None:
    """One note for the systems on the board whose harness run did not finish (the
    upload's run status, kept with the upload): a part of a run, not the run. Markdown,
    with the upload's texts inert."""
    if "run_status" not in meta.columns:
        return None
    cut = meta[meta["system"].astype(str).isin(systems.astype(str)) & meta["run_status"].notna()]
    if cut.empty:
        return None
    said, never = [], 0
    for row in cut.to_dict("records"):
        ended = _ENDED.get(str(row["run_status"]), f"has status {md_text(row['run_status'])}")
        planned, missing = row.get("sample_epochs_planned"), row.get("sample_epochs_never_ran")
        if pd.notna(planned) and pd.notna(missing):
            never += int(missing)
            ended += f": {int(missing)} of {int(planned)} planned sample-epochs never ran"
        else:
            ended += ": how many sample-epochs never ran is unknown"
        said.append(f"{md_isolated(row['system'])}'s run {ended}")
    count = (f"{len(cut)} of these {len(systems)} systems' runs did not finish"
             if len(cut) > 1 else "One of these systems' runs did not finish")
    total = f"; {never} sample-epochs never ran in all" if never and len(cut) > 1 else ""
    return (f"{count}, so their scores are a part of a run, not the run (a sample-epoch is "
            f"one example in one epoch of the run): {'; '.join(said)}"
            f"{total} (no scores for them, and none counted as 0).")


percent = zero_one(matrix)  # a 0/1 metric in percent, its runs averaged too
metadata = store.system_metadata(token, view.benchmark)
unfinished = _unfinished_runs(metadata, board.table["system"])
rows = leaderboard_rows(ranked_board, metadata, percent=percent)
view, columns = table_view(view, rows)
matching = filter_rows(rows, view)
# past MANY_ROWS systems the table starts with the best ones (a 300-row table took the browser
# over a second to redraw on every settings change); one link shows them all
limited = view.rows != "all" and len(matching) > MANY_ROWS
shown = matching.iloc[:MANY_ROWS] if limited else matching
# repeated 0/1 tries: a reliability view (pass@k, pass^k, k-curves) beside the ranked table
tries = reliability_data.tries_of(token, view.benchmark, view.metric)
if view.table in RELIABILITY_TABS and not tries.available:
    state.warn([f"URL parameter `table`={view.table}: this benchmark has no repeated tries "
                "scored 0/1; showing the ranked table."])
    view = replace(view, table="ranked")
    state.set_view(view)
selection = ranked_table(ranked_board, view, shown, columns, percent=percent,
                         reliability=(lambda: reliability_view(query, view, tries))
                         if tries.available else None)

with bar:
    widgets.benchmark_metric(view, catalog)
    cluster_select(view, cluster_columns)
    table_controls(view, rows)
    _downloads(matching[columns], ranked_board)  # every matching row, also past MANY_ROWS
with summary:
    scope_note(view, query, matrix.n_examples)
    direction = "higher" if board.higher_is_better else "lower"
    scale = " (0/1 scores: means in percent)" if percent else ""
    plain, technical = widgets.plain_test(view, board)
    if lead is not None:
        plain = (f"{len(ranked_board.table)} systems ranked on judge scores corrected with "
                 "human labels: groups and rank ranges from the PPI++ pair tests, as the "
                 "headline counts them.")
    st.caption(f"{direction.capitalize()} {md_isolated(view.metric)} is better{scale}. {plain}",
               help=technical)
    if board.pairwise.clusters is not None:  # next to the intervals
        st.caption(cluster_sentence(board.pairwise.clusters.n_clusters,
                                    board.table.get("design_effect")),
                   help=DEFF_HELP)
    widgets.notes(board.notes)
    if unfinished is not None:  # as the upload's preview and the CLI's import said
        st.warning(unfinished, icon=":material/hourglass_disabled:")
with controls:
    if len(shown) < len(rows):
        st.caption(f"Showing {len(shown)} of {len(rows)} systems; tests cover all {len(rows)}.")
    if limited:
        state.link("leaderboard", f"Show all {len(matching)} systems",
                   icon=":material/unfold_more:",
                   rows="all")
widgets.test_settings(view)
several_uploads(query)

if view.table in RELIABILITY_TABS:
    pass  # its rows do not link: the reliability view says what it shows itself
elif selection is None:
    st.caption("Click a system to compare it with the best one on the Pairwise page; "
               "*Sort & select* sorts the table and picks any two.")
else:
    picked = [shown["system"].iloc[i] for i in selection][:2]
    best = rows["system"].iloc[0]
    if len(picked) == 2 or (len(picked) == 1 and picked[0] != best):
        a, b = (picked + [best])[:2]
        state.link("pairwise", f"Compare {md_isolated(a)} with {md_isolated(b)}",
                   icon=":material/compare_arrows:", a=a, b=b)
    else:
        st.caption("Select one or two rows to compare them on the Pairwise page.")

leaderboard_charts(query, view)
arena_boards()  # battle lists in the store: their own leaderboards
