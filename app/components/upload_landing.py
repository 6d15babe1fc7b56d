"""Where a committed upload lands: the uploaded systems' rows on each leaderboard it
touched, the systems significantly better or worse than them, and links to the full view.
"""

from __future__ import annotations

import pandas as pd
import streamlit as st

from app import state
from app.data import results, store
from app.rank_span import rank_span, span_texts
from app.tables import group_cells, interval
from app.widgets import MAX_SYSTEMS
from engine.app_support import md_text
from engine.results import Leaderboard

__all__ = ["LANDING_BOARDS", "LANDING_NAMES", "LANDING_SYSTEMS", "landing", "landing_rows",
           "significant_neighbours"]

#: After a commit, the leaderboards shown for the (benchmark, metric) pairs the upload
#: touched, the uploaded systems shown on each, and the names listed per direction.
LANDING_BOARDS = 6
LANDING_SYSTEMS = 10
LANDING_NAMES = 8


def _names_list(names: list[str]) -> str:
    shown = ", ".join(md_text(n) for n in names[:LANDING_NAMES])
    return shown + (f" and {len(names) - LANDING_NAMES} more" if len(names) > LANDING_NAMES
                    else "")


def significant_neighbours(board: Leaderboard, system: str) -> tuple[list[str], list[str]]:
    """The systems significantly better and significantly worse than ``system`` on ``board``
    (its pairwise tests; ``difference`` is system_a − system_b, positive = system_a better),
    each in leaderboard order."""
    t = board.pairwise.table
    sig = t["significant"].astype(bool)
    as_a, as_b = sig & (t["system_a"] == system), sig & (t["system_b"] == system)
    better = set(t.loc[as_a & (t["difference"] < 0), "system_b"]) | \
        set(t.loc[as_b & (t["difference"] > 0), "system_a"])
    worse = set(t.loc[as_a & (t["difference"] > 0), "system_b"]) | \
        set(t.loc[as_b & (t["difference"] < 0), "system_a"])
    order = [str(s) for s in board.table["system"]]
    return [s for s in order if s in better], [s for s in order if s in worse]


def landing_rows(board: Leaderboard, systems: list[str]) -> pd.DataFrame:
    """The leaderboard rows of ``systems``: rank, rank range, group, mean with its interval,
    and how many systems are significantly better or worse."""
    keep = board.table["system"].isin(systems).to_numpy()
    table = board.table[keep]
    counts = [significant_neighbours(board, str(s)) for s in table["system"]]
    # the Leaderboard's cells: short letters or "ties with N" (long letters were cut off in
    # the grid), the interval as one "[low, high]" (no ci_low/ci_high jargon)
    groups = [g for g, kept in zip(group_cells(board), keep, strict=True) if kept]
    return pd.DataFrame({
        "system": table["system"].astype(str), "rank": table["rank"],
        "rank range": span_texts(rank_span(table, board.rank_sets)),  # the rank set
        "group": groups, "mean": table["mean"],
        "CI": [interval(lo, hi, percent=False)
               for lo, hi in zip(table["ci_low"], table["ci_high"], strict=True)],
        "better than it (sig.)": [len(b) for b, _ in counts],
        "worse than it (sig.)": [len(w) for _, w in counts]})


def landing(frame: pd.DataFrame) -> None:
    """Where the new run lands: on each leaderboard the upload touched, the uploaded systems'
    rows (rank range, group) and the systems significantly better or worse than them, with a
    link to the full view."""
    pairs = frame[["benchmark", "metric"]].drop_duplicates().astype(str)
    token = store.token()  # the store's new version: the boards include this upload
    st.markdown("##### Where the new results land")
    for bench, metric in pairs.head(LANDING_BOARDS).itertuples(index=False):
        systems = list(dict.fromkeys(frame.loc[(frame["benchmark"] == bench)
                                               & (frame["metric"] == metric), "system"]
                                     .astype(str)))
        with st.container(border=True):
            st.markdown(f"**{md_text(bench)} · {md_text(metric)}**")
            try:
                # the Leaderboard's first view (the link below): its default settings, the
                # cluster column declared on upload as its grouping
                board = results.board_of(results.default_query(token, bench, metric))
            except ValueError as exc:
                st.caption(f"No leaderboard here: {md_text(exc)}")
                continue
            if len(board.table) > MAX_SYSTEMS:
                st.caption(f"{len(board.table):,} systems: open the leaderboard to see them.")
            else:
                rows = landing_rows(board, systems[:LANDING_SYSTEMS])
                st.dataframe(rows, hide_index=True, width="stretch", column_config={
                    "mean": st.column_config.NumberColumn(format="%.4g"),
                    # wide enough for "ties with 21" (the grid sized it for letters: cut off)
                    "group": st.column_config.TextColumn(width="medium"),
                    "CI": st.column_config.TextColumn(
                        help="95% confidence interval of the mean")})
                for system in rows["system"]:
                    better, worse = significant_neighbours(board, system)
                    st.caption(f"{md_text(system)} — significantly worse than: "
                               f"{_names_list(better) or 'none'}; significantly better than: "
                               f"{_names_list(worse) or 'none'}; not told apart from "
                               f"{len(board.table) - 1 - len(better) - len(worse)} system(s).")
                if len(systems) > LANDING_SYSTEMS:
                    st.caption(f"…and {len(systems) - LANDING_SYSTEMS} more uploaded systems.")
            state.link("leaderboard", f"Full leaderboard of {md_text(bench)} · {md_text(metric)}",
                       icon=":material/leaderboard:", benchmark=bench, metric=metric, a="", b="",
                       q="", fcol="", fval=(), cols=(), focus=())
    if len(pairs) > LANDING_BOARDS:
        st.caption(f"This upload touched {len(pairs)} benchmark/metric pairs; the first "
                   f"{LANDING_BOARDS} are shown. The Overview lists them all.")
