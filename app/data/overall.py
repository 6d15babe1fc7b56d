"""Cached engine calls of the Conditions page (same rules as ``app/cache.py``).

Every function takes the data ``token`` first (``cache.token()``), so an upload
anywhere recomputes; arguments are hashable (tuples, frozen ``TestOptions``).
Results are shared read-only objects: callers copy before changing a frame.
"""

from __future__ import annotations

import pandas as pd
import streamlit as st

from app import cache
from engine import ConditionResult, TestOptions, condition_and_compare

_ENTRIES = 32


def factor_columns(meta: pd.DataFrame) -> tuple[list[str], list[str]]:
    """(settings with at least two levels, every setting) of a system metadata frame.

    A setting is any system metadata column but ``system``; only those whose systems
    take two or more values can be compared, fewest levels first (a template or a
    temperature before a model name).

    Examples
    --------
    >>> meta = pd.DataFrame({"system": ["a", "b"], "family": ["x", "x"], "t": [0.2, 0.7]})
    >>> factor_columns(meta)
    (['t'], ['family', 't'])
    """
    settings = [str(c) for c in meta.columns if c != "system"]
    levels = {c: meta[c].nunique(dropna=True) for c in settings}
    return sorted((c for c in settings if levels[c] >= 2), key=levels.__getitem__), settings


@st.cache_resource(show_spinner=False, max_entries=_ENTRIES)
def settings(token: str, benchmark: str) -> tuple[list[str], list[str]]:
    """:func:`factor_columns` of the benchmark's stored system metadata."""
    return factor_columns(cache.system_metadata(token, benchmark))


def _frame(token: str, benchmark: str, metric: str) -> pd.DataFrame:
    """The benchmark's scores with one column per system setting (the engine reads them)."""
    frame = cache.store().load_frame(benchmark=benchmark, metric=metric)
    meta = cache.system_metadata(token, benchmark)
    if meta.shape[1] <= 1:
        return frame
    return frame.merge(meta.astype({"system": str}), on="system", how="left")


@st.cache_resource(show_spinner="Comparing matched systems…", max_entries=_ENTRIES)
def condition(token: str, benchmark: str, metric: str, factor: str,
              hold: tuple[str, ...] | None, options: TestOptions) -> ConditionResult:
    """The engine's condition-and-compare of ``factor`` (``hold`` None: its default)."""
    return condition_and_compare(_frame(token, benchmark, metric), benchmark=benchmark,
                                 metric=metric, factor=factor,
                                 hold=None if hold is None else list(hold),
                                 spec=cache.store().metric_spec(benchmark, metric),
                                 options=options)
