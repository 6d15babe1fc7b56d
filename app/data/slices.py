"""Cached engine calls of the Examples page's drill-down (same rules as ``app/cache.py``).

Every function takes the data ``token`` first (``cache.token()``), so an upload
anywhere recomputes. Results are shared read-only objects: callers copy before
changing a frame.
"""

from __future__ import annotations

import pandas as pd
import streamlit as st

from app import cache
from engine import ExampleDrilldown, example_drilldown

_ENTRIES = 64


@st.cache_resource(show_spinner="Loading scores and example texts…", max_entries=8)
def example_frame(token: str, benchmark: str, metric: str) -> pd.DataFrame:
    """One benchmark and metric's scores with its per-example columns (prompt, reference, …)."""
    frame = cache.store().load_frame(benchmark=benchmark, metric=metric)
    meta = cache.store().example_metadata(benchmark)
    if meta.shape[1] <= 1:
        return frame
    merged = frame.merge(meta.astype({"example_id": str}), on="example_id", how="left")
    merged.attrs = frame.attrs
    return merged


@st.cache_resource(show_spinner="Looking at the example…", max_entries=_ENTRIES)
def drilldown(token: str, benchmark: str, metric: str, example_id: str) -> ExampleDrilldown:
    """Every system's score on one example, best system first, with its tau and texts
    (each system's uploaded output on it from the store: one example's text only)."""
    store = cache.store()
    return example_drilldown(example_frame(token, benchmark, metric), example_id=example_id,
                             benchmark=benchmark, metric=metric,
                             spec=store.metric_spec(benchmark, metric),
                             outputs=store.example_outputs(benchmark, example_id))
