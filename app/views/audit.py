"""Audit a board: which differences of a public board (or a stored benchmark) are real, from
its per-item results (``engine.app_support.audit_board``, over the Leaderboard of the same
data and test settings; ``sigboard audit`` prints the same report)."""

from __future__ import annotations

import tempfile
from pathlib import Path

import pandas as pd
import streamlit as st

from app import config, state, widgets
from app.data import results, store
from app.data.query import Query
from engine import ScoreMatrix, TestOptions, build_matrix
from engine.app_support import (
    audit_board,
    difference_text,
    md_text,
    read_board,
    score_text,
    zero_one,
)

SOURCES = {"store": "A benchmark in the store", "files": "Per-system files of a public board"}
SPLITS_HELP = ("The items are split at random into two halves this many times (seeded by the "
               "test settings' seed); the share of splits whose top system is also top on the "
               "other half is shown, ties for top broken at random.")


def _from_files() -> tuple[ScoreMatrix, TestOptions] | None:
    """The uploaded per-system files as one board's matrix (read by the engine's board
    reader, within the upload limits), or None before any file is given."""
    files = st.file_uploader(
        "One file per system, and the item list", accept_multiple_files=True,
        type=["json", "txt"], key="audit_files",
        help="SWE-bench: `<system>.json` holding the JSON list of resolved instance ids, with "
             "`instances.json` (every instance id); or each system's `results.json` / harness "
             "report (`resolved_ids`, `unresolved_ids`); BigCodeBench `eval_results.json`; "
             "LiveCodeBench-style records (`question_id`, `pass@1`). The file name is the "
             "system's name. Nothing is stored.")
    name = st.text_input("Board name", value="board", key="audit_board_name")
    if not files:
        st.info("Give at least two systems' files (and the item list for resolved lists).")
        return None
    with tempfile.TemporaryDirectory() as tmp:
        folder = Path(tmp) / "board"
        folder.mkdir()
        for f in files:
            own = Path(f.name).name  # never a path the browser chose
            if not own or own.startswith("."):
                st.error(f"{md_text(f.name)}: not a file name; rename the file.")
                st.stop()
            (folder / own).write_bytes(f.getvalue())
        try:
            board = read_board(folder, benchmark=name.strip() or "board",
                               limits=config.current().limits, isolated=True)
        except ValueError as exc:
            st.error(md_text(str(exc).replace(str(folder) + "/", "")))
            st.stop()
    if board is None:
        st.error("None of these files is a board's per-system file: see the uploader's help "
                 "for the shapes read.")
        st.stop()
    return build_matrix(board.frame), TestOptions()


def _from_store() -> tuple[ScoreMatrix, TestOptions]:
    token = store.token()
    catalog = store.catalog(token)
    view = state.view()
    if catalog.empty:
        st.info("The store is empty: upload results on the Upload page, or audit files.")
        st.stop()
    widgets.benchmark_metric(view, catalog)
    widgets.test_settings(view)
    query = Query.of(view, token)
    declared = results.default_query(token, view.benchmark, view.metric).cluster
    if declared:  # the Leaderboard groups the examples; the audit counts each one alone
        st.caption(f"The Leaderboard groups this benchmark's examples by "
                   f"{md_text(declared)}; this audit treats every item as independent, so "
                   "its groups can be narrower than the Leaderboard's.")
    return results.matrix(token, view.benchmark, view.metric), query.options


st.title("Audit a board")
st.caption("Is the #1 of a leaderboard really first? From per-item results: which systems "
           "cannot be told apart from the leader, how many neighbouring ranks are really "
           "different, the range of ranks each system may hold, and how often the #1 of one "
           "random half of the items is the #1 of the other half.")
headline = st.empty()
source = st.radio("Board", list(SOURCES), format_func=SOURCES.__getitem__, horizontal=True,
                  key="audit_source")
got = _from_files() if source == "files" else _from_store()
if got is None:
    st.stop()
matrix, options = got
splits = int(st.number_input("Random halves", min_value=100, max_value=10_000, value=1000,
                             step=100, key="audit_splits", help=SPLITS_HELP))
widgets.system_limit(matrix.n_systems, None)
with st.spinner(f"Testing every pair of the {matrix.n_systems} systems"):
    try:
        audit = audit_board(matrix, options, n_splits=splits, seed=options.seed)
    except ValueError as exc:
        st.error(f"This board cannot be audited: {md_text(exc)}")
        st.stop()
headline.markdown(f"**{md_text(audit.headline)}**")
percent = zero_one(matrix)
cols = st.columns(3)
cols[0].metric("Cannot be told apart from #1", len(audit.tied_with_leader),
               help=f"Systems whose difference from the leader ({audit.leader}) is not "
                    "significant (the Leaderboard's groups: they share a letter with it).")
cols[1].metric("Neighbouring ranks told apart",
               f"{audit.adjacent_separable} of {audit.adjacent_total}",
               help="Pairs of adjacent rows of the ranked table whose difference is significant.")
cols[2].metric("#1 stable across halves", f"{audit.top_split_half_stability:.0%}",
               help=f"{SPLITS_HELP} ± {audit.split_half_se:.1%} from drawing {audit.n_splits:,} "
                    "splits (Monte Carlo standard error).")
table = audit.board.table
sets = audit.board.rank_sets
low = high = None
if sets is not None:
    by = sets.table.assign(system=sets.table["system"].astype(str)).set_index("system")
    low = by["rank_set_low"].reindex(table["system"].astype(str)).to_numpy()
    high = by["rank_set_high"].reindex(table["system"].astype(str)).to_numpy()
ranges = ([f"{a}–{b}" if a != b else str(a) for a, b in zip(low, high, strict=True)]
          if low is not None and high is not None else
          [f"{a}–{b}" for a, b in zip(table["rank_low"], table["rank_high"], strict=True)])
# the columns a phone shows first: who, where they may rank, their score, tied with #1
shown = pd.DataFrame({
    "System": table["system"].astype(str), "Rank range": ranges,
    "Score": [score_text(m, percent=percent) for m in table["mean"]],
    "Told apart from #1": ["leader" if s == audit.leader else
                           ("no" if s in audit.tied_with_leader else "yes")
                           for s in table["system"].astype(str)],
    "Rank": table["rank"], "Group": table["group"]})
st.dataframe(shown, hide_index=True, width="stretch")
gap = audit.smallest_separable_gap_uncorrected
st.caption(f"{matrix.n_examples:,} items, {matrix.n_systems} systems. Rank range: the "
           f"{1 - audit.board.pairwise.alpha:.0%} simultaneous confidence set of each rank. "
           + ("" if gap is None else
              "The smallest difference significant when each pair is tested alone is "
              f"{difference_text(gap, percent=percent, signed=False)}."))
with st.expander("Neighbouring ranks"):
    adj = audit.adjacent
    st.dataframe(pd.DataFrame({
        "Higher": adj["upper"], "Lower": adj["lower"],
        "Difference": [difference_text(d, percent=percent, signed=False)
                       for d in adj["difference"]],
        "Told apart": ["yes" if s else "no" for s in adj["separable"]]}),
        hide_index=True, width="stretch")
