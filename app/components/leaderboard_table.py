"""The leaderboard table: URL-validated columns and filter, its controls, ranked HTML or grid.

Columns are named by key in the URL (``cols=win_rate``, see ``app/url.py``) and by
label on screen (``win rate``); metadata columns are their own key and label.
"""

from __future__ import annotations

from collections.abc import Callable

import pandas as pd
import streamlit as st

from app import state
from app.rank_span import rank_span
from app.ranked import ranked_html
from app.tables import HELP, column_config, in_points, label
from app.url import RELIABILITY_TABS, TABLE_COLUMNS, TABLE_TABS, View, check_choices
from engine.app_support import md_isolated
from engine.results import Leaderboard


def _meta_columns(rows: pd.DataFrame) -> list[str]:
    shown = {"system", *TABLE_COLUMNS.values()}
    return [c for c in rows.columns if c not in shown]


def _default_columns(view: View, meta_columns: list[str]) -> list[str]:
    """The columns shown when none are chosen: the statistics, and the metadata column
    filtered on; other system metadata (lm-eval's seven columns) waits in the chooser."""
    return [*TABLE_COLUMNS, *([view.fcol] if view.fcol in meta_columns else [])]


def _values(rows: pd.DataFrame, column: str) -> list[str]:
    return sorted(rows[column].dropna().astype(str).unique())


def table_view(view: View, rows: pd.DataFrame) -> tuple[View, list[str]]:
    """Validate the table's URL parameters (columns, metadata filter).

    Returns the valid view and the labels of the columns to show, ``system`` first.
    """
    meta_columns = _meta_columns(rows)
    keys = [*TABLE_COLUMNS, *meta_columns]
    view, problems = check_choices(view, "cols", keys)
    view, more = check_choices(view, "fcol", meta_columns)
    if view.fcol:
        view, bad = check_choices(view, "fval", _values(rows, view.fcol))
        more += bad
    state.warn(problems + more)
    state.set_view(view)
    return view, ["system", *(label(k) for k in view.cols or _default_columns(view, meta_columns))]


def table_controls(view: View, rows: pd.DataFrame) -> None:
    """Search, metadata filter and column choice in one popover (``view`` already valid).

    The popover's widgets are drawn only when it opens: the first screen stays light (no text
    box or select box code for the browser to fetch before the table is done).
    """
    meta_columns = _meta_columns(rows)
    keys = [*TABLE_COLUMNS, *meta_columns]
    # a fixed label: the popover keeps its identity (and stays open) across reruns
    with st.popover("Search, filter & columns", icon=":material/filter_list:"):
        state.bound(st.text_input, "Search systems", "q", view.q, placeholder="name contains…")
        state.bound(st.selectbox, "Filter on", "fcol", view.fcol, options=["", *meta_columns],
                    format_func=lambda c: c or "(no metadata filter)",
                    clears=("fval",),
                    disabled=not meta_columns)
        if view.fcol:
            state.bound(st.multiselect, f"{md_isolated(view.fcol)} is", "fval", view.fval,
                        options=_values(rows, view.fcol))
        state.bound(st.multiselect, "Columns", "cols",
                    view.cols or tuple(_default_columns(view, meta_columns)), options=keys,
                    format_func=label, help="System metadata columns are hidden until chosen.")


def ranked_table(board: Leaderboard, view: View, shown: pd.DataFrame,
                 columns: list[str], *, percent: bool = False,
                 reliability: Callable[[], None] | None = None) -> list[int] | None:
    """The table in two views: ranked HTML (default) or the sortable, selectable grid, and a
    third, ``reliability`` (drawn by that function), for a benchmark with repeated tries.

    Returns the selected row positions of the grid, or None when another view is open.
    """
    tabs = state.bound_tabs("table", view.table,
                            TABLE_TABS | (RELIABILITY_TABS if reliability else {}))
    if reliability is not None and tabs["reliability"].open:
        with tabs["reliability"]:
            reliability()
        return None
    if tabs["ranked"].open:
        t = board.table
        best = list(t["system"].astype(str).iloc[:2])
        names = list(shown["system"]) if len(best) == 2 else []
        pairs = [{"a": s, "b": best[1] if s == best[0] else best[0]} for s in names]
        links = dict(zip(names, state.hrefs("pairwise", pairs), strict=True))
        spans = rank_span(t, board.rank_sets)  # the confidence set for the best
        top = set(spans.loc[spans["best"], "system"])
        tabs["ranked"].html(ranked_html(shown, columns, top=top, links=links, help=HELP,
                                        percent=("mean",) if percent else ()))
        if top:
            tabs["ranked"].caption("Shaded: systems that could rank first (the confidence "
                                   "set for the best, at the level of the rank sets).")
        return None
    with tabs["grid"]:
        # every row in the page (no inner scroll box): height "content"
        selection = st.dataframe(in_points(shown[columns], percent=percent), hide_index=True,
                                 column_config=column_config(percent=percent),
                                 on_select="rerun", selection_mode="multi-row",
                                 key="leaderboard_table", height="content")
    return list(selection.selection.rows)
