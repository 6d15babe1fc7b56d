"""Cached answers of the Watch page: the champion's board of confidence sequences, and how
many uploads a benchmark's metric came in (the fixed-n pages' one-look note)."""

from __future__ import annotations

import streamlit as st

from app.data import store
from app.data.query import Query
from engine import TestOptions, watch_board
from engine.results import WatchBoard


@st.cache_resource(show_spinner="Watching every challenger…", max_entries=16)
def _board(q: Query) -> WatchBoard:
    return watch_board(store.current(), q.benchmark, q.metric, champion=q.champion or None,
                       options=q.options, cluster=q.cluster or None, keep=False)


def board(q: Query) -> WatchBoard:
    """The query's champion against every other system, computed from the uploads and
    stored nowhere (``keep=False``: a page view must not change the data version); the
    table and every confidence-sequence chart of the Watch page are this one board. It reads
    alpha of the options, the champion and the cluster column."""
    return _board(q.narrowed(options=TestOptions(alpha=q.options.alpha), cluster=q.cluster,
                             champion=q.champion))


@st.cache_resource(show_spinner=False, max_entries=64)
def _upload_count(q: Query) -> int:
    return store.current().upload_count(q.benchmark, q.metric)


def upload_count(q: Query) -> int:
    """Uploads the live rows of the query's benchmark and metric came in."""
    return _upload_count(Query(q.store_token, q.benchmark, q.metric))
