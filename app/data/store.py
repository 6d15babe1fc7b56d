"""The results store, the token that names its current data, and its rows as read (cached).

:func:`token` is the store's identity plus its ``data_version()``, read on every run: an
upload made in any session or replica changes it, and every cached function of
``app/data`` (which takes the token first) computes again from the new data.
"""

from __future__ import annotations

import numpy as np
import pandas as pd
import streamlit as st

from app import config
from engine import MetricSpec, ResultsStore, open_store, open_viewer_store

_ENTRIES = 64


@st.cache_resource(show_spinner="Opening the results store…")
def _open(db_url: str, demo_data: str) -> ResultsStore:
    store = open_store(db_url)
    store.ensure_demo_data(demo_data)
    return store


@st.cache_resource(show_spinner="Opening the results store…")
def _open_viewer(viewer_url: str, db_url: str, demo_data: str) -> ResultsStore:
    _open(db_url, demo_data)  # the demo data, loaded once through the writable connection
    return open_viewer_store(viewer_url)


def current() -> ResultsStore:
    """The store the pages read: the read-only viewer connection when
    ``SIGBOARD_VIEWER_DB_URL`` is set (the database refuses its writes), else
    :func:`writer`'s."""
    settings = config.current()
    if settings.viewer_db_url:
        return _open_viewer(settings.viewer_db_url, settings.db_url, str(settings.demo_data))
    return writer()


def writer() -> ResultsStore:
    """The configured results store that uploads, deletes and definitions write to
    (``app/config.py``), with the demo data loaded once."""
    settings = config.current()
    return _open(settings.db_url, str(settings.demo_data))


def token() -> str:
    """Cache key of the current data: the store plus its data version (read on every run)."""
    return f"{config.current().db_url}@{current().data_version()}"


@st.cache_resource(show_spinner=False, max_entries=_ENTRIES)
def catalog(token: str) -> pd.DataFrame:
    """One row per (benchmark, metric): systems, examples, rows, last upload, direction, binary."""
    return current().catalog()


@st.cache_resource(show_spinner=False, max_entries=_ENTRIES)
def uploads(token: str) -> pd.DataFrame:
    """Upload history, newest first."""
    return current().uploads()


@st.cache_resource(show_spinner=False, max_entries=_ENTRIES)
def system_metadata(token: str, benchmark: str) -> pd.DataFrame:
    """Per-system metadata columns of a benchmark (``system`` plus anything uploaded)."""
    return current().system_metadata(benchmark)


@st.cache_resource(show_spinner=False, max_entries=32)
def example_metadata(token: str, benchmark: str) -> pd.DataFrame:
    """``example_id`` plus one column per example attribute stored for ``benchmark``."""
    return current().example_metadata(benchmark)


@st.cache_resource(show_spinner="Loading every benchmark…", max_entries=4)
def long_table(token: str) -> pd.DataFrame:
    """Every stored result as one long table (benchmark, system, example_id, metric, value, run)."""
    return current().load_frame()


@st.cache_resource(show_spinner=False, max_entries=_ENTRIES)
def coverage(token: str) -> pd.DataFrame:
    """Which systems ran which (benchmark, metric), in the long table's order, as a long table
    without scores (``example_id`` empty, ``value`` NaN): what the engine's choices of
    benchmarks and metrics read (:meth:`engine.ResultsStore.coverage`), at a fraction of
    :func:`long_table`'s cost (40% of the Overall page's first view)."""
    return current().coverage().assign(example_id="", value=np.nan)


@st.cache_data(show_spinner=False, max_entries=32)
def metric_rows(token: str, benchmark: str, metric: str) -> pd.DataFrame:
    """The long table's rows of one benchmark and metric (``load_frame``), read once for
    the matrix, the A/B comparison and the power simulation of a page (three reads of
    0.12 s each on AlpacaEval before); each caller gets its own copy."""
    return current().load_frame(benchmark=benchmark, metric=metric)


@st.cache_resource(show_spinner="Loading scores…", max_entries=_ENTRIES)
def benchmark_rows(token: str, benchmark: str, metrics: tuple[str, ...]) -> pd.DataFrame:
    """The long table's rows of one benchmark: of its one metric when ``metrics`` names
    one, else of all its metrics (the aggregate of several names itself after the others)."""
    if len(metrics) == 1:
        return metric_rows(token, benchmark, metrics[0])
    return current().load_frame(benchmark=benchmark)


@st.cache_resource(show_spinner=False, max_entries=32)
def metric_specs(token: str) -> dict[tuple[str, str], MetricSpec]:
    """Each stored (benchmark, metric)'s definition: direction, modality, threshold (the
    catalog's direction and modality, which :meth:`ResultsStore.metric_spec` would read again
    one metric at a time: 6 ms each)."""
    cat, thresholds = catalog(token), current().metric_thresholds()
    return {(b, m): MetricSpec(bool(h), binary=bool(binary), threshold=thresholds.get((b, m)))
            for b, m, h, binary in zip(cat["benchmark"].astype(str), cat["metric"].astype(str),
                                       cat["higher_is_better"], cat["binary"], strict=True)}


#: The columns of a stored result; anything else in :func:`example_frame` is an attribute.
CANONICAL = ["benchmark", "system", "example_id", "metric", "value", "run"]


@st.cache_resource(show_spinner="Loading scores and example attributes…", max_entries=8)
def example_frame(token: str, benchmark: str) -> pd.DataFrame:
    """Every result of ``benchmark`` (all metrics) with its per-example attributes joined on.

    Attribute values are as the store keeps them (JSON values in object columns): the
    example drill-down shows each one as text. The slices read numbers back as numbers
    (``app/data/slices.py``).
    """
    frame = current().load_frame(benchmark=benchmark)
    meta = example_metadata(token, benchmark)
    extra = [c for c in meta.columns if c != "example_id" and c not in frame.columns]
    if not extra:
        return frame
    meta = meta[["example_id", *extra]].astype({"example_id": str})
    merged = frame.merge(meta, on="example_id", how="left", validate="many_to_one")
    merged.attrs = frame.attrs  # the metric definitions (a merge drops them)
    return merged
