"""The slice a Leaderboard or Pairwise page is restricted to (``scol``/``sval`` in the URL).

:func:`restrict` validates the URL's slice against the benchmark's per-example
columns and returns the data key of the slice (``app/data/slices.py``: every cached
result of the page is then the slice's); :func:`scope_note` says which examples are
shown and links back to all of them.
"""

from __future__ import annotations

import streamlit as st

from app import state
from app.data import results, slices
from app.data.query import Query
from app.url import View, check_slice
from engine.app_support import md_isolated


def restrict(view: View, token: str) -> tuple[View, str]:
    """The view with an unknown slice dropped (a message says so) and the page's data key.

    Without ``sval`` nothing is read or checked: a page that shows every example loads
    no example attributes, and a column kept from the Slices page (``scol`` alone) is left
    for that page to check.
    """
    if not view.sval:
        return view, token
    choices = slices.slice_choices(token, view.benchmark, view.sbins)
    checked, problems = check_slice(view, choices.names)
    if problems:
        state.warn(problems)
        state.set_view(checked)
    return checked, slices.sliced(token, checked.scol, checked.sval, checked.sbins)


def slice_text(view: View, shown: int, total: int) -> str:
    """"Only examples with subset = koala (156 of 805)" (names inert)."""
    return (f"Only examples with {md_isolated(view.scol)} = {md_isolated(view.sval)} "
            f"({shown:,} of {total:,})")


def scope_note(view: View, q: Query, shown: int) -> None:
    """The restriction in words ("… (41 of 164)"), with a link that shows every example again.

    ``q`` is the page's query (its data key from :func:`restrict`); ``shown`` the slice's
    examples.
    """
    if not view.sval:
        return
    total = results.matrix(q.store_token, q.benchmark, q.metric).n_examples
    left, right = st.columns([3, 1], vertical_alignment="center")
    with left:
        st.info(slice_text(view, shown, total), icon=":material/filter_alt:")
    with right:
        page = state.page_name() or "leaderboard"
        state.link(page, "Show all examples", icon=":material/filter_alt_off:", sval="")
        state.link("slices", "Compare the slices", icon=":material/splitscreen:")
