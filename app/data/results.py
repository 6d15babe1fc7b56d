"""Cached engine calls of the Overall, Mechanisms and Compare pages (same rules as ``app/cache.py``).

Every function takes the data ``token`` first (``cache.token()``), so an upload
anywhere recomputes; arguments are hashable (tuples, frozen ``TestOptions``).
Results are shared read-only objects: callers copy before changing a frame.
"""

from __future__ import annotations

import altair as alt
import pandas as pd
import streamlit as st

from app import cache
from app.charts.compare import models_chart, variance_chart
from app.charts.mechanisms import pbeats_heatmap, pbeats_size, tau_heatmap
from app.charts.render import chart_svg
from app.components.mechanisms_table import LABELS
from engine import (
    ABResult,
    BenchmarkPart,
    Mechanisms,
    MetricSpec,
    Overall,
    PairwiseResult,
    PowerResult,
    RankIntervals,
    TestOptions,
    compare_ab,
    mechanisms,
    overall_from_parts,
    power,
    rank_intervals_of,
)
from engine import benchmark_part as engine_benchmark_part
from engine.across._overall_parts import choose_overall

_ENTRIES = 32
#: Battle orders of the app's mechanisms view: the engine's defaults (100 and 20) take tens
#: of seconds on a 78-system benchmark; the page says which numbers it used.
ELO_ORDERS = 10
TRUESKILL_ORDERS = 2
POWER_SIMULATIONS = 500


@st.cache_resource(show_spinner="Loading every benchmark…", max_entries=4)
def long_table(token: str) -> pd.DataFrame:
    """Every stored result as one long table (benchmark, system, example_id, metric, value, run)."""
    return cache.store().load_frame()


@st.cache_resource(show_spinner=False, max_entries=_ENTRIES)
def metric_specs(token: str) -> dict[tuple[str, str], MetricSpec]:
    """Each stored (benchmark, metric)'s definition: direction, modality, threshold."""
    cat = cache.catalog(token)
    return {(b, m): cache.store().metric_spec(b, m)
            for b, m in zip(cat["benchmark"].astype(str), cat["metric"].astype(str), strict=True)}


@st.cache_resource(show_spinner=False, max_entries=_ENTRIES)
def overall_choice(token: str, benchmarks: tuple[str, ...], metrics: tuple[str, ...] | None
                   ) -> tuple[tuple[str, ...], dict[str, tuple[str, ...]]]:
    """The benchmarks combined and each one's metrics (raises ValueError on a bad choice)."""
    chosen, per = choose_overall(long_table(token), list(benchmarks),
                                 None if metrics is None else list(metrics))
    return tuple(chosen), {b: tuple(per[b]) for b in chosen}


def two_sided(options: TestOptions) -> TestOptions:
    """The options each benchmark is tested with on the Overall page (all pairs, two-sided)."""
    return options.with_(compare="all", alternative="two-sided")


@st.cache_resource(show_spinner="Testing each benchmark…", max_entries=64)
def benchmark_part(token: str, benchmark: str, metrics: tuple[str, ...],
                   options: TestOptions) -> BenchmarkPart:
    """One benchmark's share of the overall leaderboard: its matrix (the aggregate of
    several metrics), leaderboard and all-pairs two-sided tests. It does not depend on the
    benchmark weights, so a weight change reuses it."""
    specs = metric_specs(token)
    return engine_benchmark_part(long_table(token), benchmark, metrics=list(metrics),
                                 specs={k: v for k, v in specs.items() if k[0] == benchmark},
                                 options=two_sided(options))


@st.cache_resource(show_spinner="Ranking the systems across benchmarks…", max_entries=_ENTRIES)
def overall_result(token: str, benchmarks: tuple[str, ...], metrics: tuple[str, ...] | None,
                   weights: tuple[tuple[str, float], ...], options: TestOptions) -> Overall:
    """The engine's overall leaderboard of ``benchmarks`` (metrics None: all of each), combined
    from the cached per-benchmark parts: a weight change only reruns the weighted steps."""
    chosen, per = overall_choice(token, benchmarks, metrics)
    parts = [benchmark_part(token, b, per[b], two_sided(options)) for b in chosen]
    return overall_from_parts(parts, options=options,
                              benchmark_weights=dict(weights) if weights else None)


def benchmark_pairs(token: str, benchmark: str, metrics: tuple[str, ...],
                    options: TestOptions) -> PairwiseResult:
    """All-pairs two-sided tests of one benchmark on its one metric or on the aggregate of
    several (the ones :func:`overall_result` combined; ValueError with a single system)."""
    pairwise = benchmark_part(token, benchmark, metrics, two_sided(options)).pairwise
    if pairwise is None:
        raise ValueError(f"benchmark: {benchmark!r} has a single system; nothing to test")
    return pairwise


@st.cache_resource(show_spinner="Ranking by every mechanism (Elo and TrueSkill replay the "
                   "battles)…", max_entries=_ENTRIES)
def mechanisms_result(token: str, benchmark: str, metric: str, correction: str, alpha: float,
                      seed: int) -> Mechanisms:
    """Mean, median, Bradley–Terry, Elo and TrueSkill rankings with few battle orders."""
    return mechanisms(cache.matrix(token, benchmark, metric), n_permutations=ELO_ORDERS,
                      trueskill_permutations=TRUESKILL_ORDERS, rng=seed,
                      correction=correction, alpha=alpha)


@st.cache_resource(show_spinner="Computing simultaneous rank intervals…", max_entries=_ENTRIES)
def rank_intervals(token: str, benchmark: str, metric: str, alpha: float,
                   seed: int) -> RankIntervals:
    """Tukey simultaneous rank intervals of each system's mean."""
    return rank_intervals_of(cache.matrix(token, benchmark, metric), alpha=alpha, rng=seed)


@st.cache_resource(show_spinner=False, max_entries=_ENTRIES)
def example_metadata(token: str, benchmark: str) -> pd.DataFrame:
    """``example_id`` plus one column per example attribute stored for ``benchmark``."""
    return cache.store().example_metadata(benchmark)


def _slice(token: str, benchmark: str, metric: str, cluster: str) -> pd.DataFrame:
    frame = cache.store().load_frame(benchmark=benchmark, metric=metric)
    if not cluster:
        return frame
    meta = example_metadata(token, benchmark)[["example_id", cluster]]
    return frame.merge(meta.astype({"example_id": str}), on="example_id", how="left")


@st.cache_resource(show_spinner="Comparing the two systems…", max_entries=_ENTRIES)
def ab_result(token: str, benchmark: str, metric: str, baseline: str, candidate: str,
              cluster: str, options: TestOptions) -> ABResult:
    """The engine's A/B comparison of ``candidate`` against ``baseline`` (runs taken into account)."""
    return compare_ab(_slice(token, benchmark, metric, cluster), baseline=baseline,
                      candidate=candidate, benchmark=benchmark, metric=metric,
                      spec=cache.store().metric_spec(benchmark, metric), options=options,
                      cluster=cluster or None)


@st.cache_resource(show_spinner="Simulating the power of each test…", max_entries=_ENTRIES)
def power_result(token: str, benchmark: str, metric: str, difference: float | None,
                 alpha: float, seed: int) -> PowerResult:
    """Minimum detectable difference, examples and runs needed, simulated power per test."""
    frame = cache.store().load_frame(benchmark=benchmark, metric=metric)
    return power(frame, benchmark=benchmark, metric=metric, difference=difference,
                 n_sim=POWER_SIMULATIONS, rng=seed, alpha=alpha,
                 spec=cache.store().metric_spec(benchmark, metric))


@st.cache_resource(show_spinner="Simulating the power of each test…", max_entries=_ENTRIES)
def plan_power(token: str, benchmark: str, metric: str, difference: float | None,
               examples: int | None, runs: int | None, n_sim: int, alpha: float,
               target_power: float, seed: int) -> PowerResult:
    """The Plan page's :func:`engine.power`: any design (examples × runs), any simulation size."""
    frame = cache.store().load_frame(benchmark=benchmark, metric=metric)
    return power(frame, benchmark=benchmark, metric=metric, difference=difference,
                 examples=examples, runs=runs, n_sim=n_sim, rng=seed, alpha=alpha,
                 target_power=target_power, spec=cache.store().metric_spec(benchmark, metric))


def _svg(chart: alt.TopLevelMixin, width: int) -> str:
    """The chart drawn on the server as SVG (no chart code in the browser, cached)."""
    return chart_svg(chart, width=width)


@st.cache_resource(show_spinner="Drawing…", max_entries=_ENTRIES)
def mechanisms_svgs(token: str, benchmark: str, metric: str, correction: str, alpha: float,
                    seed: int) -> tuple[str, str]:
    """SVG drawings of the agreement matrix and of the P(A beats B) heatmap."""
    result = mechanisms_result(token, benchmark, metric, correction, alpha, seed)
    tau = tau_heatmap(result.kendall_tau, list(LABELS), LABELS)
    order = list(result.rankings["mean"])
    pbeats = pbeats_heatmap(result.p_beats, order)
    return _svg(tau, 56 * len(LABELS)), _svg(pbeats, pbeats_size(len(order)))


@st.cache_resource(show_spinner="Drawing…", max_entries=_ENTRIES)
def ab_svgs(token: str, benchmark: str, metric: str, baseline: str, candidate: str,
            cluster: str, options: TestOptions) -> tuple[str, str]:
    """SVG drawings of the difference by model (also embedded in the report) and of the
    variance shares."""
    ab = ab_result(token, benchmark, metric, baseline, candidate, cluster, options)
    level = f"{1 - options.alpha:.0%}"
    return (_svg(models_chart(ab.models, metric=metric, level=level), 560),
            _svg(variance_chart(ab.variance), 360))
