"""Cached answers of the Watch page: the champion's board of confidence sequences, and how
many uploads a benchmark's metric came in (the fixed-n pages' one-look note)."""

from __future__ import annotations

import streamlit as st

from app.data import store
from engine import WatchBoard, watch_board


@st.cache_resource(show_spinner="Watching every challenger…", max_entries=16)
def board(token: str, benchmark: str, metric: str, champion: str, alpha: float) -> WatchBoard:
    """The champion against every other system, computed from the uploads and stored
    nowhere (``keep=False``: a page view must not change the data version)."""
    return watch_board(store.current(), benchmark, metric, champion=champion, alpha=alpha,
                       keep=False)


@st.cache_resource(show_spinner=False, max_entries=64)
def upload_count(token: str, benchmark: str, metric: str) -> int:
    """Uploads the live rows of the benchmark's metric came in."""
    return store.current().upload_count(benchmark, metric)
