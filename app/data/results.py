"""The engine's results of one benchmark, cached: one function per engine call the pages make.

Every result a page shows takes one :class:`app.data.query.Query` (data key, benchmark,
metric, test options, cluster column, and the page's own parts: the pair compared, the
example, the split, the setting, the power plan): a page's table and its charts are drawn
from the one cached result of that query. A result that reads only some parts is cached
under the query holding only those (:meth:`Query.narrowed`, :func:`bootstrap_options`).
Streamlit hashes a dataclass field by field, so two different queries never share an entry
(``tests/app/test_app_url.py``). What a page offers to choose from (the cluster columns,
the settings) and the matrix itself take the data key first (the token of
``app/data/store.py``, or a slice's key from ``app/data/slices.py``).
"""

from __future__ import annotations

from dataclasses import replace

import numpy as np
import pandas as pd
import streamlit as st

from app.data import slices, store
from app.data.query import PowerPlan, Query
from engine import (
    ClusterDesign,
    MetricSpec,
    ScoreMatrix,
    TestOptions,
    adjust_pvalues,
    benchmark_health,
    bootstrap_ranks,
    build_matrix,
    cluster_codes,
    compare_ab,
    condition_and_compare,
    example_drilldown,
    leaderboard,
    mechanisms,
    p_beats,
    pairs_across_metrics,
    power,
    rank_intervals_of,
    slice_table,
)
from engine.app_support import (
    ALPHA_MISSING,
    MISSING_TOLERANCE,
    RUN_FIELDS,
    missing_bounds,
    missing_checks,
    restrict_to_slice,
    system_identifiers,
)
from engine.results import (
    ABComparison,
    ConditionComparison,
    ExampleDrilldown,
    HealthReport,
    Leaderboard,
    Mechanisms,
    MetricsTable,
    MissingBounds,
    PairwiseTests,
    PBeats,
    PowerAnalysis,
    RankBootstrap,
    RankIntervals,
    SliceTable,
)

_ENTRIES = 64
#: The Mechanisms, Compare, Plan and Conditions results keep fewer entries.
_FEWER = 32
#: Battle orders of the app's mechanisms view: the engine's defaults (100 and 20) take tens
#: of seconds on a 78-system benchmark; the page says which numbers it used.
ELO_ORDERS = 10
#: One TrueSkill order: it replays every battle in Python (mechanisms() on humaneval
#: 4.1 s with 2 orders, 2.3 s with 1); its ratings vary far less between orders than Elo's
#: (engine.mechanisms), and the page says how many it used.
TRUESKILL_ORDERS = 1
#: The Mechanisms page's "more battle orders" action: the engine's Elo default (100) and
#: five TrueSkill orders (steadier ratings; seconds to minutes on large benchmarks).
MORE_ELO_ORDERS = 100
MORE_TRUESKILL_ORDERS = 5
#: Battle replays (Elo orders × battles) of the first view: past it the arena rating gets
#: fewer orders, at least MIN_ELO_ORDERS. Drawing the random orders costs ~0.1 µs
#: a battle and order: on AlpacaEval (60 systems × 805 examples, 1.4 million battles) 10
#: orders were 1.5 s of CPU of the page's 3.8 s; 3 orders 0.45 s.
REPLAY_BUDGET = 5_000_000
MIN_ELO_ORDERS = 2


# ----------------------------------------------------------------- the matrix and its board


@st.cache_resource(show_spinner="Loading scores…", max_entries=_ENTRIES)
def matrix(token: str, benchmark: str, metric: str) -> ScoreMatrix:
    """The systems × examples matrix of one benchmark and metric, as the store defines the metric.

    The stored :class:`engine.MetricSpec` gives the direction and, when declared at
    upload, the modality: a metric declared numeric stays numeric on 0/1 values.
    """
    frame = _metric_frame(token, benchmark, metric)
    return build_matrix(frame, benchmark=benchmark, metric=metric,
                        spec=_spec(frame, benchmark, metric))


def _metric_frame(token: str, benchmark: str, metric: str) -> pd.DataFrame:
    """The rows of one benchmark and metric the matrix is built from (a slice's own)."""
    base, part = slices.split_key(token)
    if part is None:
        return store.metric_rows(token, benchmark, metric)
    column, value, bins = part
    rows = restrict_to_slice(slices.numbers_typed(store.example_frame(base, benchmark)),
                             column=column, value=value, bins=bins)
    return rows.loc[rows["metric"] == metric, store.CANONICAL]


def _spec(frame: pd.DataFrame, benchmark: str, metric: str) -> MetricSpec:
    """The metric's definition as ``load_frame`` attached it to ``frame`` (not read again: a
    count of its non-0/1 values), else from the store."""
    spec = frame.attrs.get("metric_specs", {}).get(metric)
    return spec if spec is not None else store.current().metric_spec(benchmark, metric)


def default_query(token: str, benchmark: str, metric: str) -> Query:
    """The query of a benchmark's Leaderboard opened with no settings: the default test
    options, grouped by the cluster column declared on upload when it is an example
    attribute (as the page's "Group examples by" defaults to it)."""
    declared = declared_cluster(token, benchmark)
    cluster = declared if declared in cluster_columns(token, benchmark) else ""
    return Query(token, benchmark, metric, cluster=cluster)


def board_of(q: Query) -> Leaderboard:
    """The engine's leaderboard (with its pairwise tests and groups) of one query: the one
    result a page's table and every chart of it draw (cluster-robust tests, intervals,
    groups and rank ranges when ``q.cluster`` groups the examples).

    Without the bootstrap intervals of Bradley–Terry strength, Elo and win rate
    (``bt_resamples=0``): no page shows them, and refitting Bradley–Terry 200 times took
    two thirds of every settings change on humaneval.
    """
    return _clustered_board(q) if q.cluster else _plain_board(q)


def pairwise_of(q: Query) -> PairwiseTests:
    """The Pairwise page's tests of every pair: :func:`board_of`'s, except that a pair shown
    significant which the examples one side lacks could overturn is not: ``significant``
    False and ``undecided`` "cannot decide (N examples missing on X)", as ``sigboard
    compare`` decides that pair (exit 2) and the A/B page says. The page's table, matrices,
    PWPP and pair sentence are all drawn from this one result. Without such a pair it is
    :func:`board_of`'s own (no ``undecided`` column)."""
    return _pairwise_of(q)


@st.cache_resource(show_spinner="Bounding the pairs whose systems lack examples…",
                   max_entries=_ENTRIES)
def _pairwise_of(q: Query) -> PairwiseTests:
    result = board_of(q).pairwise
    t = result.table
    m = matrix(q.token, q.benchmark, q.metric)
    has = np.isfinite(m.values).astype(np.int64)  # systems × examples: scored or not
    index = {s: i for i, s in enumerate(m.systems)}
    ia, ib = t["system_a"].map(index).to_numpy(int), t["system_b"].map(index).to_numpy(int)
    # examples one has and the other lacks, and either has: one product each, not per pair
    only = has @ (1 - has).T
    either = has.sum(1)[:, None] + has.sum(1)[None, :] - has @ has.T
    a_lacks, b_lacks = only[ib, ia], only[ia, ib]
    sig = t["significant"].to_numpy(bool)
    # the gate bounds only what it would enforce: past the tolerance (engine.stats._missing_bounds)
    beyond = np.maximum(a_lacks, b_lacks) > MISSING_TOLERANCE * either[ia, ib]
    # compare_ab's own check of missing scores not at random (engine.stats._missing), at any
    # amount missing: each system's rank test once, Holm over the pair's checked systems as
    # compare_ab's missing_checks(systems=(baseline, candidate)) takes it
    raw = {c.system: c.pvalue for c in missing_checks(m)} if sig.any() else {}

    def informative(a: str, b: str) -> bool:
        ps = [raw[s] for s in (a, b) if s in raw]
        return bool(ps) and bool((adjust_pvalues(np.array(ps), method="holm",
                                                 alpha=ALPHA_MISSING) < ALPHA_MISSING).any())

    checked = t["system_a"].astype(str).isin(raw) | t["system_b"].astype(str).isin(raw)
    check = np.flatnonzero(sig & (beyond | checked.to_numpy(bool)))
    if not len(check):
        return result
    frame = _with_cluster_rows(_metric_frame(q.token, q.benchmark, q.metric), q)
    spec = store.current().metric_spec(q.benchmark, q.metric)
    labels = np.full(len(t), "", dtype=object)
    for k in check:
        row = t.iloc[k]
        better, worse = ((str(row["system_a"]), str(row["system_b"])) if bool(row["a_better"])
                         else (str(row["system_b"]), str(row["system_a"])))
        # as `compare`: missing scores that look not at random refuse first (milliseconds,
        # where the gate costs 0.2 s a run), then past the tolerance the worst and best case
        # for the lacking examples
        if not informative(worse, better):
            if not beyond[k]:
                continue
            ab = compare_ab(frame, baseline=worse, candidate=better, benchmark=q.benchmark,
                            metric=q.metric, spec=spec, options=q.options,
                            cluster=q.cluster or None)
            if ab.decided and ((b := missing_bounds(frame, ab, spec=spec)) is None
                               or b.decided):
                continue
        lacks = [(int(n), str(s)) for n, s in ((a_lacks[k], row["system_a"]),
                                                (b_lacks[k], row["system_b"])) if n]
        said = (", ".join(f"{n} {'examples ' if i == 0 else ''}missing on {s}"
                          for i, (n, s) in enumerate(sorted(lacks, reverse=True)))
                or "missing scores not at random")
        labels[k] = f"cannot decide ({said})"
    if not any(labels):
        return result
    marked = t.assign(significant=t["significant"].to_numpy(bool) & (labels == ""),
                      undecided=labels)
    return replace(result, table=marked)


@st.cache_resource(show_spinner="Running the pairwise tests…", max_entries=_ENTRIES)
def _plain_board(q: Query) -> Leaderboard:
    return leaderboard(matrix(q.token, q.benchmark, q.metric), q.options, bt_resamples=0)


@st.cache_resource(show_spinner="Running the cluster-robust pairwise tests…",
                   max_entries=_ENTRIES)
def _clustered_board(q: Query) -> Leaderboard:
    return leaderboard(matrix(q.token, q.benchmark, q.metric), q.options, bt_resamples=0,
                       cluster=cluster_design(q))


# ----------------------------------------------------------------- clusters


def cluster_columns(token: str, benchmark: str) -> list[str]:
    """The benchmark's example attributes: the columns "Group examples by" offers."""
    return [str(c) for c in store.example_metadata(token, benchmark).columns
            if c != "example_id"]


@st.cache_resource(show_spinner=False, max_entries=_ENTRIES)
def declared_cluster(token: str, benchmark: str) -> str:
    """The cluster column declared for the benchmark on upload ("" none): the pages' default."""
    return store.current().benchmark_cluster(benchmark) or ""


def cluster_design(q: Query) -> ClusterDesign:
    """The cluster of each example of the query's matrix, from the example attribute
    ``q.cluster`` (errors name the column and the example without a value)."""
    meta = store.example_metadata(q.token, q.benchmark).astype({"example_id": str})
    examples = matrix(q.token, q.benchmark, q.metric).examples
    return ClusterDesign.from_codes(cluster_codes(meta, q.cluster, examples), q.cluster)


@st.cache_resource(show_spinner="Checking the benchmark's health…", max_entries=_ENTRIES)
def _health(q: Query) -> HealthReport:
    design = cluster_design(q) if q.cluster else None
    return benchmark_health(matrix(q.token, q.benchmark, q.metric), options=q.options,
                            cluster=design)


def health(q: Query) -> HealthReport:
    """Benchmark health (gaps, suspects, difficulty) of the query's benchmark and metric
    (cluster-robust gaps when ``q.cluster`` groups the examples); it reads alpha only of the
    options."""
    return _health(q.narrowed(options=TestOptions(alpha=q.options.alpha), cluster=q.cluster))


def bootstrap_options(options: TestOptions) -> TestOptions:
    """Only the options the bootstrap reads (alpha, pairing, seed): another correction or
    test does not redo a bootstrap."""
    return TestOptions(alpha=options.alpha, paired=options.paired, seed=options.seed)


@st.cache_resource(show_spinner="Bootstrapping means and ranks…", max_entries=_ENTRIES)
def _bootstrap(q: Query) -> RankBootstrap:
    design = cluster_design(q) if q.cluster else None
    return bootstrap_ranks(matrix(q.token, q.benchmark, q.metric), q.options,
                           n_resamples=q.resamples, cluster=design)


def bootstrap_query(q: Query) -> Query:
    """The query holding only what the bootstrap reads: :func:`bootstrap_options`, the
    cluster column and the number of resamples."""
    return q.narrowed(options=bootstrap_options(q.options), cluster=q.cluster,
                      resamples=q.resamples)


def bootstrap(q: Query) -> RankBootstrap:
    """Bootstrap distributions of every system's mean and rank (``q.resamples`` resamples,
    intervals at 1 - alpha); whole clusters are resampled when the example attribute
    ``q.cluster`` groups the examples. Cached under :func:`bootstrap_query`."""
    return _bootstrap(bootstrap_query(q))


@st.cache_resource(show_spinner="Testing every metric of the benchmark…", max_entries=_ENTRIES)
def across(q: Query, value: str) -> tuple[MetricsTable, tuple[str, ...]]:
    """The heatmap table across the benchmark's metrics (each metric's :func:`board_of`,
    clustered as the query is), and one note per metric left out."""
    cat = store.catalog(q.token)
    results, skipped = [], []
    for metric in cat.loc[cat["benchmark"] == q.benchmark, "metric"].astype(str):
        try:
            results.append(board_of(q.with_metric(metric)).pairwise)
        except ValueError as exc:  # e.g. McNemar chosen and this metric is not binary
            skipped.append(f"{metric} left out: {exc}")
    return pairs_across_metrics(results, value=value), tuple(skipped)


@st.cache_resource(show_spinner="Ranking and testing every slice…", max_entries=_ENTRIES)
def _slice_result(q: Query) -> SliceTable:
    if q.split is None:
        raise ValueError("split: the Slices page's query names the column to split by")
    column, bins = q.split
    frame = slices.numbers_typed(store.example_frame(q.store_token, q.benchmark))
    return slice_table(frame, benchmark=q.benchmark, metric=q.metric, column=column,
                       spec=store.current().metric_spec(q.benchmark, q.metric),
                       options=q.options, bins=bins)


def slice_result(q: Query) -> SliceTable:
    """The engine's slice table of the query's ``split`` (column, bins): each system's mean
    and interval per slice, every pair's test in every slice adjusted together, and the pairs
    whose verdict changes between slices (the slice table and the verdict changes of the
    Slices page are this one object)."""
    return _slice_result(q.narrowed(options=q.options, split=q.split))


# ----------------------------------------------------------------- rankings and examples


@st.cache_resource(show_spinner="Ranking by every mechanism (Elo and TrueSkill replay the "
                   "battles)…", max_entries=_FEWER)
def _mechanisms(q: Query) -> Mechanisms:
    elo, trueskill = battle_orders(q.more_orders, battle_count(q))
    return mechanisms(matrix(q.token, q.benchmark, q.metric), n_permutations=elo,
                      trueskill_permutations=trueskill, rng=q.options.seed, options=q.options)


def mechanisms_of(q: Query) -> Mechanisms:
    """Mean, median, Bradley–Terry, Elo and TrueSkill rankings with few battle orders
    (:func:`battle_orders`; ``q.more_orders``: the page's "more battle orders" action).
    They read the correction, alpha and seed of the options (the rankings themselves do
    not group examples)."""
    o = q.options
    chosen = TestOptions(correction=o.correction, alpha=o.alpha, seed=o.seed)
    return _mechanisms(q.narrowed(options=chosen, more_orders=q.more_orders))


def mechanisms_p_beats(q: Query) -> PBeats:
    """P(A beats B) of the Mechanisms page: the mechanisms' own, or cluster-robust sign tests
    when ``q.cluster`` groups the examples."""
    return p_beats_by(q) if q.cluster else mechanisms_of(q).p_beats


def battle_orders(more: bool = False, battles: int = 0) -> tuple[int, int]:
    """(Elo, TrueSkill) battle orders: the page's default — ELO_ORDERS, fewer when
    ``battles`` (:func:`battle_count`) times them would pass REPLAY_BUDGET — or its "more"
    action's."""
    if more:
        return MORE_ELO_ORDERS, MORE_TRUESKILL_ORDERS
    return max(MIN_ELO_ORDERS, min(ELO_ORDERS, REPLAY_BUDGET // max(battles, 1))), \
        TRUESKILL_ORDERS


def battle_count(q: Query) -> int:
    """The battles the mechanisms replay at most: every pair of systems on every example all
    of them have (ties, which are not replayed, included)."""
    m = matrix(q.token, q.benchmark, q.metric)
    complete = int((~np.isnan(m.values)).all(axis=0).sum())
    return m.n_systems * (m.n_systems - 1) // 2 * complete


@st.cache_resource(show_spinner="Computing Tukey rank intervals…", max_entries=_FEWER)
def _rank_intervals(q: Query) -> RankIntervals:
    design = cluster_design(q) if q.cluster else None
    return rank_intervals_of(matrix(q.token, q.benchmark, q.metric), options=q.options,
                             rng=q.options.seed, cluster=design)


def rank_intervals(q: Query) -> RankIntervals:
    """Tukey simultaneous rank intervals of each system's mean (from the cluster-robust
    standard errors of the Leaderboard's intervals when ``q.cluster`` groups the examples);
    they read alpha and the seed only."""
    chosen = TestOptions(alpha=q.options.alpha, seed=q.options.seed)
    return _rank_intervals(replace(q, options=chosen))


@st.cache_resource(show_spinner="Testing who wins more examples…", max_entries=_FEWER)
def _p_beats_by(q: Query) -> PBeats:
    return p_beats(matrix(q.token, q.benchmark, q.metric), options=q.options,
                   cluster=cluster_design(q))


def p_beats_by(q: Query) -> PBeats:
    """P(A beats B) with sign tests that are cluster-robust by the example attribute
    ``q.cluster`` (the Mechanisms page's sign-test section when the examples are grouped);
    they read the correction and alpha only."""
    chosen = TestOptions(correction=q.options.correction, alpha=q.options.alpha)
    return _p_beats_by(replace(q, options=chosen))


@st.cache_resource(show_spinner="Looking at the example…", max_entries=_ENTRIES)
def _drilldown(q: Query) -> ExampleDrilldown:
    stored = store.current()
    return example_drilldown(store.example_frame(q.store_token, q.benchmark),
                             example_id=q.example, benchmark=q.benchmark, metric=q.metric,
                             spec=stored.metric_spec(q.benchmark, q.metric),
                             outputs=stored.example_outputs(q.benchmark, q.example))


def drilldown(q: Query) -> ExampleDrilldown:
    """Every system's score on the query's ``example``, best system first, with its tau and
    texts (each system's uploaded output on it from the store: one example's text only)."""
    return _drilldown(q.narrowed(example=q.example))


# ----------------------------------------------------------------- two systems, settings


def _with_cluster(token: str, benchmark: str, metric: str, cluster: str) -> pd.DataFrame:
    """The scores, with the example attribute ``cluster`` joined on when one is chosen."""
    frame = store.metric_rows(token, benchmark, metric)
    if not cluster:
        return frame
    meta = store.example_metadata(token, benchmark)[["example_id", cluster]]
    return frame.merge(meta.astype({"example_id": str}), on="example_id", how="left")


def _with_cluster_rows(frame: pd.DataFrame, q: Query) -> pd.DataFrame:
    """``frame`` with the query's cluster column joined on (as :func:`_with_cluster`)."""
    if not q.cluster:
        return frame
    meta = store.example_metadata(q.token, q.benchmark)[["example_id", q.cluster]]
    return frame.merge(meta.astype({"example_id": str}), on="example_id", how="left")


def pair_of(q: Query) -> tuple[str, str]:
    """The query's two systems (baseline, candidate); ValueError when it names none."""
    if q.pair is None:
        raise ValueError("pair: the query names no two systems to compare")
    return q.pair


def ab_result(q: Query) -> ABComparison:
    """The engine's A/B comparison of the query's ``pair`` (baseline, candidate; runs taken
    into account; cluster-robust when ``q.cluster`` groups the examples). Cached under the
    options, cluster and pair only."""
    return _ab_result(q.narrowed(options=q.options, cluster=q.cluster, pair=pair_of(q)))


@st.cache_resource(show_spinner="Comparing the two systems…", max_entries=_FEWER)
def _ab_result(q: Query) -> ABComparison:
    baseline, candidate = pair_of(q)
    return compare_ab(_with_cluster(q.token, q.benchmark, q.metric, q.cluster),
                      baseline=baseline, candidate=candidate, benchmark=q.benchmark,
                      metric=q.metric, spec=store.current().metric_spec(q.benchmark, q.metric),
                      options=q.options, cluster=q.cluster or None)


def ab_missing_bounds(q: Query) -> MissingBounds | None:
    """The A/B verdict of the query's pair with the examples one side lacks at the worst and
    best score, as ``sigboard compare`` bounds it (None when neither lacks any)."""
    return _ab_bounds(q.narrowed(options=q.options, cluster=q.cluster, pair=pair_of(q)))


@st.cache_resource(show_spinner="Bounding the examples one system lacks…", max_entries=_FEWER)
def _ab_bounds(q: Query) -> MissingBounds | None:
    return missing_bounds(_with_cluster(q.token, q.benchmark, q.metric, q.cluster),
                          _ab_result(q), spec=store.current().metric_spec(q.benchmark, q.metric))


@st.cache_resource(show_spinner="Simulating the power of each test…", max_entries=_FEWER)
def _power(q: Query) -> PowerAnalysis:
    plan = q.plan or PowerPlan()
    frame = store.metric_rows(q.token, q.benchmark, q.metric)
    return power(frame, benchmark=q.benchmark, metric=q.metric, difference=plan.difference,
                 examples=plan.examples, runs=plan.runs, n_sim=plan.n_sim,
                 rng=q.options.seed, options=q.options, target_power=plan.target_power,
                 spec=_spec(frame, q.benchmark, q.metric))


def power_of(q: Query) -> PowerAnalysis:
    """Minimum detectable difference, examples and runs needed, and simulated power per test
    for the query's ``plan`` (None: the A/B compare page's, :class:`PowerPlan`'s defaults:
    the observed design, 500 simulations); it reads alpha and the seed of the options."""
    chosen = TestOptions(alpha=q.options.alpha, seed=q.options.seed)
    return _power(q.narrowed(options=chosen, plan=q.plan or PowerPlan()))


def factor_columns(meta: pd.DataFrame) -> tuple[list[str], list[str]]:
    """(settings with at least two levels, every setting) of a system metadata frame.

    A setting is any system metadata column but ``system`` and those that identify the
    system (:func:`engine.system_identifiers`: a different value for every system, or the
    system's own name); only those whose systems take two or more values can be compared,
    fewest levels first (a template or a temperature before a model family).

    Examples
    --------
    >>> meta = pd.DataFrame({"system": ["a", "b"], "family": ["x", "x"], "t": [0.2, 0.7]})
    >>> factor_columns(meta)
    (['t'], ['family', 't'])
    """
    names = set(system_identifiers(meta)) if "system" in meta.columns else set()
    names |= set(RUN_FIELDS)  # how a harness run ended is not a setting to compare
    settings = [str(c) for c in meta.columns if c != "system" and c not in names]
    levels = {c: meta[c].nunique(dropna=True) for c in settings}
    return sorted((c for c in settings if levels[c] >= 2), key=levels.__getitem__), settings


@st.cache_resource(show_spinner=False, max_entries=_FEWER)
def settings(token: str, benchmark: str) -> tuple[list[str], list[str]]:
    """:func:`factor_columns` of the benchmark's stored system metadata."""
    return factor_columns(store.system_metadata(token, benchmark))


@st.cache_resource(show_spinner=False, max_entries=_FEWER)
def system_name_columns(token: str, benchmark: str) -> list[str]:
    """The benchmark's system metadata columns that only name the system (not settings)."""
    meta = store.system_metadata(token, benchmark)
    return system_identifiers(meta) if "system" in meta.columns else []


def _with_settings(token: str, benchmark: str, metric: str) -> pd.DataFrame:
    """The benchmark's scores with one column per system setting (the engine reads them)."""
    frame = store.metric_rows(token, benchmark, metric)
    meta = store.system_metadata(token, benchmark)
    if meta.shape[1] <= 1:
        return frame
    return frame.merge(meta.astype({"system": str}), on="system", how="left")


@st.cache_resource(show_spinner="Comparing matched systems…", max_entries=_FEWER)
def _condition(q: Query) -> ConditionComparison:
    return condition_and_compare(_with_settings(q.token, q.benchmark, q.metric),
                                 benchmark=q.benchmark, metric=q.metric, factor=q.factor,
                                 hold=None if q.hold is None else list(q.hold),
                                 spec=store.current().metric_spec(q.benchmark, q.metric),
                                 options=q.options)


def condition(q: Query) -> ConditionComparison:
    """The engine's condition-and-compare of the query's ``factor`` (``hold`` None: its
    default settings held fixed)."""
    return _condition(q.narrowed(options=q.options, factor=q.factor, hold=q.hold))
