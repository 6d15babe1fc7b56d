"""System aliases on the Upload page: one model stored under several names read as one system.

A stored name is read as another system's name on every page and in the CLI (the store
applies the mapping on every read; its rows become further runs of the system). Every
change is kept with who made it and when (the history below the form).
"""

from __future__ import annotations

import pandas as pd
import streamlit as st

from app.components.upload_history import local_times
from app.data import store
from engine.app_support import md_text


def _set(who: str) -> None:
    alias = str(st.session_state.get("alias-name") or "")
    system = str(st.session_state.get("alias-system") or "").strip()
    try:
        store.writer().set_alias(alias, system, set_by=who)
    except (ValueError, PermissionError) as exc:
        st.session_state["alias_flash"] = ("error", str(exc))
        return
    st.session_state["alias_flash"] = ("success", f"{alias} is now read as {system} on every "
                                       "page.")


def _remove(alias: str, who: str) -> None:
    try:
        store.writer().remove_alias(alias, removed_by=who)
    except (ValueError, PermissionError) as exc:
        st.session_state["alias_flash"] = ("error", str(exc))
        return
    st.session_state["alias_flash"] = ("success", f"{alias} is read as its own name again.")


def aliases(*, may_edit: bool, who: str = "") -> None:
    """The live aliases, a form to add or remove one (``may_edit``), and their history."""
    current = store.current().aliases()
    with st.expander(f"System names: aliases ({len(current)})", expanded=bool(current)):
        kind, message = st.session_state.pop("alias_flash", (None, ""))
        if kind is not None:
            (st.error if kind == "error" else st.success)(md_text(message))
        st.caption("When one model was uploaded under several names (`gpt-4o`, "
                   "`GPT-4O-2024-05-13`), read the others as one name: every page and the CLI "
                   "then show one system, the other name's results as further runs of it.")
        if current:
            st.dataframe(pd.DataFrame({"stored name": list(current),
                                       "read as": list(current.values())}),
                         hide_index=True, width="stretch")
        if may_edit:
            names = store.current().system_names()
            left, right = st.columns(2)
            left.selectbox("Stored name", [n for n in names if n not in current],
                           key="alias-name", help="The name to read as another system's.")
            right.text_input("Read as", key="alias-system",
                             help="The one system name (e.g. the name most uploads use).")
            st.button("Merge the names", icon=":material/merge:", key="alias-set",
                      on_click=_set, args=(who,))
            if current:
                which = st.selectbox("Undo an alias", list(current), key="alias-undo")
                st.button(f"Read {which} as its own name again", key="alias-remove",
                          on_click=_remove, args=(which, who))
        history = store.current().alias_history()
        if len(history):
            shown = history.copy()
            for column in ("created_at", "removed_at"):
                shown[column] = local_times(shown[column])
            st.caption("History of the aliases (oldest first):")
            st.dataframe(shown, hide_index=True, width="stretch")
