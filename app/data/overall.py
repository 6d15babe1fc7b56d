"""The engine's results across benchmarks (the Overall page), cached.

The page's one key is an :class:`app.data.query.AcrossQuery`. Each benchmark's share (its
matrix, leaderboard and all-pairs tests) is cached on its own (``_benchmark_part``), so a
change of the benchmark weights only reruns the weighted steps (:func:`overall_result`), and
the pairs the page lists per benchmark are the shares it combined (:func:`benchmark_pairs`).
"Model all systems" fits the joint model of the whole matrix instead (:func:`joint_result`).
"""

from __future__ import annotations

from dataclasses import dataclass, replace

import pandas as pd
import streamlit as st

from app.data import judge, results, store
from app.data.query import AcrossQuery, Query
from engine import TestOptions
from engine.app_support import benchmark_part as engine_benchmark_part
from engine.app_support import (
    choose_overall,
    connected_selection,
    default_selection,
    joint_model,
    judged_part,
    leading_systems,
    overall_from_parts,
)
from engine.results import (
    BenchmarkPart,
    JointFit,
    JudgeBoard,
    Leaderboard,
    Overall,
    PairwiseTests,
    Selection,
)

_ENTRIES = 32
#: Most systems the Overall page tests pair by pair: all pairs of 2,500 systems on every
#: benchmark did not fit a 3 GiB server; past it the leading ones are ranked.
MAX_OVERALL_SYSTEMS = 500


@st.cache_resource(show_spinner=False, max_entries=_ENTRIES)
def ranked_systems(token: str) -> tuple[str, ...] | None:
    """The systems the Overall page ranks: None for all of them, or past
    :data:`MAX_OVERALL_SYSTEMS` the leading ones (:func:`engine.leading_systems`, which
    reads every score: only then is the long table loaded)."""
    if store.coverage(token)["system"].nunique() <= MAX_OVERALL_SYSTEMS:
        return None
    return leading_systems(store.long_table(token), MAX_OVERALL_SYSTEMS,
                           store.metric_specs(token))


def _ranked_rows(token: str, benchmark: str, metrics: tuple[str, ...]) -> pd.DataFrame:
    """The rows of ``benchmark`` (``metrics``: :func:`app.data.store.benchmark_rows`) of the
    systems the Overall page ranks (:func:`ranked_systems`)."""
    table, keep = store.benchmark_rows(token, benchmark, metrics), ranked_systems(token)
    return table if keep is None else table[table["system"].isin(keep)]


def _bound_note(token: str) -> str | None:
    keep = ranked_systems(token)
    if keep is None:
        return None
    held = store.coverage(token)["system"].nunique()
    return (f"This store holds {held:,} systems: the page ranks the {len(keep):,} that did "
            "best on the benchmarks they ran (each benchmark's first metric; a benchmark not "
            "run counts as last), because testing every pair of them all would not fit the "
            "server. Each benchmark's Leaderboard lists every system.")


@st.cache_resource(show_spinner=False, max_entries=_ENTRIES)
def overall_choice(token: str, benchmarks: tuple[str, ...], metrics: tuple[str, ...] | None
                   ) -> tuple[tuple[str, ...], dict[str, tuple[str, ...]]]:
    """The benchmarks combined and each one's metrics (raises ValueError on a bad choice)."""
    chosen, per = choose_overall(store.coverage(token), list(benchmarks),
                                 None if metrics is None else list(metrics))
    return tuple(chosen), {b: tuple(per[b]) for b in chosen}


@st.cache_resource(show_spinner=False, max_entries=_ENTRIES)
def default_benchmarks(token: str) -> Selection:
    """The first visit's benchmarks: the largest block of systems that ran all of them
    (:func:`engine.default_selection`, which reads only who ran what)."""
    return default_selection(store.coverage(token))


def two_sided(options: TestOptions) -> TestOptions:
    """The options each benchmark is tested with on the Overall page (all pairs, two-sided)."""
    return options.with_(compare="all", alternative="two-sided")


def declared_clusters(token: str, benchmarks: tuple[str, ...]) -> tuple[tuple[str, str], ...]:
    """(benchmark, cluster column) of each benchmark with one declared on upload:
    Overall tests those benchmarks cluster-robustly, each by its own column."""
    named = ((b, results.declared_cluster(token, b)) for b in benchmarks)
    return tuple((b, c) for b, c in named if c)


def _with_attribute(token: str, benchmark: str, metrics: tuple[str, ...], cluster: str
                    ) -> pd.DataFrame:
    """The ranked rows of ``benchmark`` with its example attribute ``cluster`` joined on
    (the rows as they are when the benchmark has no such attribute)."""
    table = _ranked_rows(token, benchmark, metrics)
    meta = store.example_metadata(token, benchmark)
    if cluster not in meta.columns:
        return table
    return table.merge(meta[["example_id", cluster]].astype({"example_id": str}),
                       on="example_id", how="left")


@st.cache_resource(show_spinner="Testing each benchmark…", max_entries=64)
def _benchmark_part(token: str, benchmark: str, metrics: tuple[str, ...],
                    options: TestOptions, cluster: str = "") -> BenchmarkPart:
    """One benchmark's share of the overall leaderboard: its matrix (the aggregate of
    several metrics), leaderboard and all-pairs two-sided tests, cluster-robust when
    ``cluster`` names its examples' cluster column. It does not depend on the benchmark
    weights, so a weight change reuses it. Private: its one key is the page's
    :class:`~app.data.query.AcrossQuery` (:func:`overall_result`, :func:`benchmark_pairs`)."""
    specs = store.metric_specs(token)
    board = _leaderboard_page_board(token, benchmark, metrics, options, cluster)
    if board is not None:  # the rows are the board's matrix: none to read
        table = pd.DataFrame(columns=store.CANONICAL)
    else:
        table = (_with_attribute(token, benchmark, metrics, cluster) if cluster
                 else _ranked_rows(token, benchmark, metrics))
    part = engine_benchmark_part(table, benchmark, metrics=list(metrics),
                                 specs={k: v for k, v in specs.items() if k[0] == benchmark},
                                 options=two_sided(options), cluster=cluster or None,
                                 board=board)
    if len(metrics) == 1:  # a judge metric with human labels: its Leaderboard's PPI++
        # (the same board as the page's judge table; refused when the examples are grouped)
        judged = judge.board_of(Query(token, benchmark, metrics[0], options, cluster=cluster))
        if isinstance(judged, JudgeBoard):
            part = judged_part(part, judged)
    return part


def _leaderboard_page_board(token: str, benchmark: str, metrics: tuple[str, ...],
                            options: TestOptions, cluster: str) -> Leaderboard | None:
    """The Leaderboard page's cached board of the benchmark (:func:`app.data.results.board_of`
    of its query, two-sided on all pairs as Overall tests: the Leaderboard's default
    settings) when it is the one :func:`engine.benchmark_part` would compute: one metric, no
    cluster, every system ranked and at least two. Overall and the Leaderboard then test each
    benchmark once between them (a Leaderboard opened from Overall is a cached view)."""
    if len(metrics) != 1 or cluster or ranked_systems(token) is not None:
        return None
    if results.matrix(token, benchmark, metrics[0]).n_systems < 2:
        return None
    return results.board_of(Query(token, benchmark, metrics[0], two_sided(options)))


def _parts(q: AcrossQuery) -> dict[str, BenchmarkPart]:
    """Each combined benchmark's cached share (:func:`_benchmark_part`), in the chosen order."""
    chosen, per = overall_choice(q.token, q.benchmarks, q.metrics)
    return {b: _benchmark_part(q.token, b, per[b], two_sided(q.options), q.cluster_of(b))
            for b in chosen}


@st.cache_resource(show_spinner="Ranking the systems across benchmarks…", max_entries=_ENTRIES)
def overall_result(q: AcrossQuery) -> Overall:
    """The engine's overall leaderboard of the query's benchmarks (metrics None: all of each),
    combined from the cached per-benchmark parts: a weight change only reruns the weighted
    steps; each benchmark grouped by its cluster column of ``q.clusters``."""
    result = overall_from_parts(list(_parts(q).values()), options=q.options,
                                benchmark_weights=dict(q.weights) if q.weights else None)
    note = _bound_note(q.token)
    return result if note is None else replace(result, notes=(note, *result.notes))


def benchmark_pairs(q: AcrossQuery, benchmark: str) -> PairwiseTests:
    """All-pairs two-sided tests of one combined benchmark, on its one metric or on the
    aggregate of several: the very ones :func:`overall_result` combined (grouped by the same
    cluster column); ValueError with a single system or a benchmark not combined."""
    parts = _parts(q)
    if benchmark not in parts:
        raise ValueError(f"benchmark: {benchmark!r} is not one of the benchmarks combined")
    pairwise = parts[benchmark].pairwise
    if pairwise is None:
        raise ValueError(f"benchmark: {benchmark!r} has a single system; nothing to test")
    return pairwise


@dataclass(frozen=True)
class JointAnswer:
    """The Overall page's "model all systems" answer: the joint model's fit, or the reason it
    cannot place the systems (``fit`` None), and the benchmarks left out of the default."""

    fit: JointFit | None
    reason: str
    benchmarks: tuple[str, ...]
    left_out: tuple[str, ...]


def joint_benchmarks(token: str, chosen: tuple[str, ...]) -> tuple[tuple[str, ...],
                                                                   tuple[str, ...]]:
    """The benchmarks the joint model fits: ``chosen`` as given, else the largest part of the
    matrix it can place on one scale (:func:`engine.connected_selection`) and those left out."""
    if chosen:
        return chosen, ()
    return connected_selection(store.coverage(token))


@st.cache_resource(show_spinner="Fitting the joint model of every system…", max_entries=_ENTRIES)
def joint_result(token: str, chosen: tuple[str, ...], metrics: tuple[str, ...] | None,
                 alpha: float, seed: int) -> JointAnswer:
    """Every system of the selection ranked by the joint model (:func:`engine.joint_model`),
    or the engine's reason it cannot: a system sharing no benchmark with the others, a
    benchmark too few systems ran."""
    benchmarks, left_out = joint_benchmarks(token, chosen)
    if not benchmarks:
        return JointAnswer(None, "no benchmark was run by three or more systems", (), left_out)
    picked, per = overall_choice(token, benchmarks, metrics)
    rows = pd.concat([_ranked_rows(token, b, per[b][:1]) for b in picked], ignore_index=True)
    try:
        fit = joint_model(rows, benchmarks=list(picked), metrics=metrics,
                          specs=store.metric_specs(token), alpha=alpha, seed=seed)
    except ValueError as exc:
        return JointAnswer(None, str(exc), tuple(picked), left_out)
    return JointAnswer(fit, "", tuple(picked), left_out)
