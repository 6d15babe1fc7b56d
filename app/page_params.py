"""Streamlit glue of a page's own URL parameters (``app/url_conditions.py`` parses them).

``app/main.py`` rewrites the query string to the parameters ``app/url.py``'s
:class:`~app.url.View` knows before a page runs, so a parameter only one page
reads (``factor``, ``hold``, ``ex``) is kept in the session too: :func:`read`
merges the address bar (when it still has them) over the session's last
choice for the same benchmark, and :func:`write` puts the page's choice back in
the address bar, so the link shown can be copied.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence

import streamlit as st

from app import state

_PREFIX = "page_params_"


def read(page: str, benchmark: str, names: Sequence[str]) -> dict[str, list[str]]:
    """The page's parameters: the address bar's, else the session's last for ``benchmark``."""
    memory = st.session_state.get(_PREFIX + page)
    remembered = dict(memory["params"]) if isinstance(memory, dict) and \
        memory.get("benchmark") == benchmark else {}
    current = {k: v for k, v in state.raw_params().items() if k in names}
    return {**remembered, **current}


def remember(page: str, benchmark: str, params: Mapping[str, str | list[str]]) -> None:
    """Keep ``params`` as the page's choice for ``benchmark`` in this session."""
    st.session_state[_PREFIX + page] = {
        "benchmark": benchmark,
        "params": {k: list(v) if isinstance(v, list) else [v] for k, v in params.items()}}


def write(names: Sequence[str], params: Mapping[str, str | list[str]]) -> None:
    """Set the parameters ``names`` of the address bar to ``params`` (only when they differ)."""
    wanted = {k: list(v) if isinstance(v, list) else [v] for k, v in params.items()}
    current = {k: st.query_params.get_all(k) for k in names if k in st.query_params}
    if wanted != current:
        for key in names:
            st.query_params.pop(key, None)
        for key, values in wanted.items():
            st.query_params[key] = values if len(values) > 1 else values[0]
