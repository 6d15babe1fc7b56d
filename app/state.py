"""Streamlit glue of the URL view: query parameters, widgets bound to them, links between pages.

The view itself (parsing, validation, defaults) is pure and lives in ``app/url.py``;
this module keeps ``st.query_params``, the widgets and the session's current view
in sync with it.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import replace
from typing import Any
from urllib.parse import urlencode

import streamlit as st

from app.url import View, format_value

_VIEW_KEY = "sigboard_view"
_PAGES_KEY = "sigboard_pages"
_PAGE_KEY = "sigboard_page"
#: The message shown in place of a page that raised (``app/main.py``); tests look for it.
FAILED = "Something went wrong while drawing this page."


def raw_params() -> dict[str, list[str]]:
    """The current query parameters with every value as a list."""
    return {k: st.query_params.get_all(k) for k in st.query_params}


def _normalised(params: Mapping[str, str | list[str]]) -> dict[str, list[str]]:
    return {k: (list(v) if isinstance(v, list) else [v]) for k, v in params.items()}


def set_page(name: str) -> None:
    """Remember which registered page runs (its URL then carries only what it uses)."""
    st.session_state[_PAGE_KEY] = name


def page_name() -> str:
    """The registered name of the running page ("" when unknown)."""
    return str(st.session_state.get(_PAGE_KEY, ""))


def sync_url(view: View) -> None:
    """Write ``view`` to the URL when it differs: the settings this page uses that differ
    from the defaults (``View.params``)."""
    params = view.params(page_name() or None)
    if _normalised(params) != raw_params():
        st.query_params.from_dict(params)


def set_view(view: View) -> None:
    """Make ``view`` the current view: session state (for links) and the URL."""
    st.session_state[_VIEW_KEY] = view
    sync_url(view)


def view() -> View:
    """The current (validated) view, as set by ``app/main.py`` before the page runs."""
    current = st.session_state.get(_VIEW_KEY)
    return current if isinstance(current, View) else View()


def warn(problems: Sequence[str]) -> None:
    """Show one visible note per invalid parameter."""
    for message in problems:
        st.warning(message, icon=":material/link_off:")


def set_params(params: Mapping[str, str | list[str]], *, clears: Sequence[str] = ()) -> None:
    """Put ``params`` in the address bar and take ``clears`` out of it (a widget's callback
    for a choice :func:`bound` cannot write: the next run parses the view from there)."""
    for name in clears:
        st.query_params.pop(name, None)
    for name, values in _normalised(params).items():
        st.query_params[name] = values if len(values) > 1 else values[0]


def _encode(value: Any) -> str | list[str]:
    if isinstance(value, list | tuple):
        return [str(v) for v in value]
    return format_value(value)


def _push(param: str, key: str, clears: tuple[str, ...]) -> None:
    value = _encode(st.session_state[key])
    if value in ("", []):
        st.query_params.pop(param, None)
    else:
        st.query_params[param] = value
    for name in clears:
        st.query_params.pop(name, None)


def bound(widget: Callable[..., Any], label: str, param: str, current: Any, *,
          clears: tuple[str, ...] = (), **kwargs: Any) -> Any:
    """Create ``widget`` whose value is URL parameter ``param``; a change rewrites the URL.

    The URL is the source of truth: the widget's state is set from ``current``
    on every run, and its ``on_change`` callback writes the new value back
    (and removes the parameters in ``clears`` that depend on it).
    """
    key = f"url_{param}"
    st.session_state[key] = list(current) if isinstance(current, tuple) else current
    return widget(label, key=key, on_change=_push, args=(param, key, clears), **kwargs)


def _push_tab(param: str, key: str, tabs: Mapping[str, str]) -> None:
    labels = {label: value for value, label in tabs.items()}
    st.query_params[param] = labels.get(st.session_state[key], next(iter(tabs)))


def bound_tabs(param: str, current: str, tabs: Mapping[str, str]) -> dict[str, Any]:
    """Tabs whose selection is URL parameter ``param``; only the open one should be drawn.

    Returns the tab containers by URL value; ``container.open`` tells which one is selected.
    """
    key = f"url_{param}"
    st.session_state[key] = tabs[current]
    containers = st.tabs(list(tabs.values()), key=key, on_change=_push_tab,
                         args=(param, key, tabs))
    return dict(zip(tabs, containers, strict=True))


def register_pages(pages: Mapping[str, Any]) -> None:
    """Remember the ``st.Page`` objects by url_path, for links between pages."""
    st.session_state[_PAGES_KEY] = dict(pages)


def page(name: str) -> Any:
    """The registered ``st.Page`` called ``name`` (its url_path)."""
    return st.session_state[_PAGES_KEY][name]


def hrefs(name: str, changes: Sequence[Mapping[str, str]]) -> list[str]:
    """Relative URLs of page ``name``: the current view with each set of ``changes`` applied.

    The view's other parameters are encoded once (a link per leaderboard row must be cheap).
    """
    keys = {k for change in changes for k in change}
    base = {k: v for k, v in view().params(name).items() if k not in keys}
    prefix = f"{page(name).url_path}?{urlencode(base, doseq=True)}"
    return [f"{prefix}&{urlencode(change)}" for change in changes]


def link(name: str, label: str, *, icon: str | None = None, **changes: Any) -> None:
    """A link to page ``name`` that carries the current view (with ``changes``)."""
    params = (replace(view(), **changes) if changes else view()).params(name)
    st.page_link(page(name), label=label, icon=icon, query_params=params)
