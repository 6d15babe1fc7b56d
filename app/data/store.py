"""Cached engine calls: the only place the app caches anything.

Every cached function takes a ``token`` first: the store's identity plus its
``data_version()``. The version is read (cheaply) on every run, so an upload
made in any session or replica changes the token and every page recomputes
from the new data at once. Test options are passed as the engine's frozen
:class:`engine.TestOptions`; Streamlit hashes a dataclass field by field, so two
different option sets never share an entry (``tests/app/test_app_url.py``).
Results are shared read-only objects (``st.cache_resource``: no copies, no
pickling); callers copy before changing a frame.

Slices: the data key of a slice is the token with the slice appended
(:func:`sliced`), and :func:`matrix` builds the matrix of that slice's examples
only. Everything computed from a matrix (the board, its charts, the tests across
metrics) takes the same key, so each cached result is keyed on the slice, and the
components that receive the key from a page draw the slice without knowing of it;
the Leaderboard and Pairwise pages therefore agree on a slice's numbers, and with
the Slices page (:func:`slice_result`), which cuts the same frame the same way.
"""

from __future__ import annotations

import json
from dataclasses import dataclass

import pandas as pd
import streamlit as st

from app import config
from app.charts.network import network_html
from engine import (
    BootstrapResult,
    HealthReport,
    Leaderboard,
    MetricsTable,
    ResultsStore,
    ScoreMatrix,
    SliceTable,
    TestOptions,
    benchmark_health,
    bootstrap_ranks,
    build_matrix,
    leaderboard,
    open_store,
    pairs_across_metrics,
    restrict_to_slice,
    slice_labels,
    slice_table,
)

_ENTRIES = 64


@st.cache_resource(show_spinner="Opening the results store…")
def _open(db_url: str, demo_data: str) -> ResultsStore:
    store = open_store(db_url)
    store.ensure_demo_data(demo_data)
    return store


def store() -> ResultsStore:
    """The configured results store (``app/config.py``), with the demo data loaded once."""
    settings = config.current()
    return _open(settings.db_url, str(settings.demo_data))


def token() -> str:
    """Cache key of the current data: the store plus its data version (read on every run)."""
    return f"{config.current().db_url}@{store().data_version()}"


@st.cache_resource(show_spinner=False, max_entries=_ENTRIES)
def catalog(token: str) -> pd.DataFrame:
    """One row per (benchmark, metric): systems, examples, rows, last upload, direction, binary."""
    return store().catalog()


@st.cache_resource(show_spinner="Loading scores…", max_entries=_ENTRIES)
def matrix(token: str, benchmark: str, metric: str) -> ScoreMatrix:
    """The systems × examples matrix of one benchmark and metric, as the store defines the metric.

    The stored :class:`engine.MetricSpec` gives the direction and, when declared at
    upload, the modality: a metric declared numeric stays numeric on 0/1 values.
    """
    base, part = split_key(token)
    if part is None:
        frame = store().load_frame(benchmark=benchmark, metric=metric)
    else:
        column, value, bins = part
        rows = restrict_to_slice(example_frame(base, benchmark), column=column, value=value,
                                 bins=bins)
        frame = rows.loc[rows["metric"] == metric, _CANONICAL]
    return build_matrix(frame, benchmark=benchmark, metric=metric,
                        spec=store().metric_spec(benchmark, metric))


# ----------------------------------------------------------------------------------- slices

_SLICE_MARK = "|slice="
_CANONICAL = ["benchmark", "system", "example_id", "metric", "value", "run"]
#: A per-example column with more slices than this (e.g. a prompt text) is not offered.
MAX_SLICES = 30


def sliced(token: str, column: str, value: str, bins: int) -> str:
    """The data key of one slice (the whole benchmark's when ``value`` is empty): pass it to
    every cached function instead of the token, and each result is that of the slice's
    examples. ``token`` may itself be a data key (its slice is replaced)."""
    if not column or not value:
        return split_key(token)[0]
    return f"{split_key(token)[0]}{_SLICE_MARK}{json.dumps([column, value, bins])}"


def split_key(key: str) -> tuple[str, tuple[str, str, int] | None]:
    """The token and the slice (column, value, bins) of a data key made by :func:`sliced`."""
    token, mark, part = key.partition(_SLICE_MARK)
    if not mark:
        return key, None
    column, value, bins = json.loads(part)
    return token, (str(column), str(value), int(bins))


@st.cache_resource(show_spinner="Loading scores and example attributes…", max_entries=8)
def example_frame(token: str, benchmark: str) -> pd.DataFrame:
    """Every result of ``benchmark`` (all metrics) with its per-example columns joined on.

    Numbers stored as JSON numbers become numeric columns again (so a numeric column is
    cut into quantile bins, as :func:`engine.slice_labels` does for numbers).
    """
    frame = store().load_frame(benchmark=benchmark)
    meta = store().example_metadata(benchmark).infer_objects()
    extra = [c for c in meta.columns if c != "example_id" and c not in frame.columns]
    if not extra:
        return frame
    meta = meta[["example_id", *extra]].astype({"example_id": str})
    return frame.merge(meta, on="example_id", how="left", validate="many_to_one")


@dataclass(frozen=True)
class SliceChoices:
    """The per-example columns a benchmark can be split by, and why others cannot.

    ``counts``: column → examples per slice (a Series indexed by slice name, in name
    order); ``skipped``: column → a plain reason (one value only, too many values);
    ``numeric``: the columns holding numbers (cut into quantile bins when they have many
    values).
    """

    counts: dict[str, pd.Series]
    skipped: dict[str, str]
    numeric: frozenset[str] = frozenset()

    @property
    def names(self) -> dict[str, tuple[str, ...]]:
        """Column → its slice names (what ``sval`` may be)."""
        return {c: tuple(map(str, n.index)) for c, n in self.counts.items()}


@st.cache_resource(show_spinner=False, max_entries=_ENTRIES)
def slice_choices(token: str, benchmark: str, bins: int) -> SliceChoices:
    """Each per-example column of ``benchmark`` with its slices (numeric ones in ``bins``
    quantile bins); columns with one value or more than :data:`MAX_SLICES` are skipped."""
    meta = store().example_metadata(benchmark)
    columns = [c for c in meta.columns if c != "example_id"]
    counts: dict[str, pd.Series] = {}
    skipped: dict[str, str] = {}
    if not columns:
        return SliceChoices(counts, skipped)
    frame = example_frame(token, benchmark)
    for column in columns:
        try:
            labels = slice_labels(frame, benchmark=benchmark, column=column, bins=bins)
        except ValueError:  # e.g. one value for every example: system-wide, not a split
            skipped[column] = "has the same value for every example"
            continue
        n = labels.value_counts().sort_index()
        if len(n) < 2:
            skipped[column] = "has the same value for every example"
        elif len(n) > MAX_SLICES:
            skipped[column] = f"has {len(n):,} different values (at most {MAX_SLICES} are compared)"
        else:
            counts[column] = n
    numeric = frozenset(c for c in counts if pd.api.types.is_numeric_dtype(frame[c]))
    return SliceChoices(counts, skipped, numeric)


@st.cache_resource(show_spinner="Ranking and testing every slice…", max_entries=_ENTRIES)
def slice_result(token: str, benchmark: str, metric: str, column: str, bins: int,
                 options: TestOptions) -> SliceTable:
    """The engine's slice table: each system's mean and interval per slice, every pair's test
    in every slice adjusted together, and the pairs whose verdict changes between slices."""
    return slice_table(example_frame(token, benchmark), benchmark=benchmark, metric=metric,
                       column=column, spec=store().metric_spec(benchmark, metric),
                       options=options, bins=bins)


@st.cache_resource(show_spinner="Running the pairwise tests…", max_entries=_ENTRIES)
def board(token: str, benchmark: str, metric: str, options: TestOptions) -> Leaderboard:
    """The engine's leaderboard (with its pairwise tests and groups) for one set of options.

    Without the bootstrap intervals of Bradley–Terry strength, Elo and win rate
    (``bt_resamples=0``): no page shows them, and refitting Bradley–Terry 200 times took
    two thirds of every settings change on humaneval.
    """
    return leaderboard(matrix(token, benchmark, metric), options, bt_resamples=0)


@st.cache_resource(show_spinner="Drawing the significance graph…", max_entries=_ENTRIES)
def graph_html(token: str, benchmark: str, metric: str, options: TestOptions,
               systems: tuple[str, ...]) -> str:
    """The self-contained interactive significance graph of :func:`board` among ``systems``."""
    return network_html(board(token, benchmark, metric, options), systems)


@st.cache_resource(show_spinner="Checking the benchmark's health…", max_entries=_ENTRIES)
def health(token: str, benchmark: str, metric: str, alpha: float) -> HealthReport:
    """Benchmark health (gaps, suspects, difficulty) of one benchmark and metric."""
    return benchmark_health(matrix(token, benchmark, metric), alpha=alpha)


@st.cache_resource(show_spinner=False, max_entries=_ENTRIES)
def system_metadata(token: str, benchmark: str) -> pd.DataFrame:
    """Per-system metadata columns of a benchmark (``system`` plus anything uploaded)."""
    return store().system_metadata(benchmark)


@st.cache_resource(show_spinner=False, max_entries=_ENTRIES)
def uploads(token: str) -> pd.DataFrame:
    """Upload history, newest first."""
    return store().uploads()


def bootstrap_options(options: TestOptions) -> TestOptions:
    """Only the options the bootstrap reads (alpha, pairing, seed): another correction or
    test does not redo a bootstrap."""
    return TestOptions(alpha=options.alpha, paired=options.paired, seed=options.seed)


@st.cache_resource(show_spinner="Bootstrapping means and ranks…", max_entries=_ENTRIES)
def _bootstrap(token: str, benchmark: str, metric: str, n_resamples: int,
               options: TestOptions) -> BootstrapResult:
    return bootstrap_ranks(matrix(token, benchmark, metric), options, n_resamples=n_resamples)


def bootstrap(token: str, benchmark: str, metric: str, n_resamples: int,
              options: TestOptions) -> BootstrapResult:
    """Bootstrap distributions of every system's mean and rank (intervals at 1 - alpha)."""
    return _bootstrap(token, benchmark, metric, n_resamples, bootstrap_options(options))


@st.cache_resource(show_spinner="Testing every metric of the benchmark…", max_entries=_ENTRIES)
def across(token: str, benchmark: str, options: TestOptions, value: str
           ) -> tuple[MetricsTable, tuple[str, ...]]:
    """The heatmap table across the benchmark's metrics, and one note per metric left out."""
    cat = catalog(token)
    results, skipped = [], []
    for metric in cat.loc[cat["benchmark"] == benchmark, "metric"].astype(str):
        try:
            results.append(board(token, benchmark, metric, options).pairwise)
        except ValueError as exc:  # e.g. McNemar chosen and this metric is not binary
            skipped.append(f"{metric} left out: {exc}")
    return pairs_across_metrics(results, value=value), tuple(skipped)
