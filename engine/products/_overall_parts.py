"""One benchmark's share of the overall leaderboard: everything that does not depend on the
benchmark weights or on the overall order.

The overall procedure (:func:`engine.products._overall.overall`) splits into a per-benchmark
step — the benchmark's (aggregate) score matrix, its summary statistics, its
leaderboard cells and its two-sided all-pairs tests — and a combining step that
weighs the benchmarks. Computing the parts once and combining them per choice of
weights (:func:`engine.products._overall.overall_from_parts`) gives the same numbers as
:func:`engine.products._overall.overall` at a fraction of the cost: the per-benchmark tests
and groups are most of the work.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass

import numpy as np
import pandas as pd

from .._contract import REQUIRED_COLUMNS, USAGE_METRICS, MetricSpec
from .._matrix import ScoreMatrix, build_matrix
from .._options import TestOptions
from ..across._aggregate import aggregate_metric, spec_of
from ..across._pairs_across import pooling_inputs, result_cells
from ..stats._pairwise import PairwiseTests
from ._leaderboard import Leaderboard, leaderboard

__all__ = ["BenchmarkPart", "benchmark_part", "choose_overall", "pair_codes"]

CELL_COLUMNS = ("system", "mean", "ci_low", "ci_high", "group", "benchmark")


@dataclass(frozen=True, eq=False)
class BenchmarkPart:
    """What the overall leaderboard uses from one benchmark, whatever the weights.

    Attributes
    ----------
    benchmark : str
    metrics : tuple of str
        The metrics aggregated (one: used as is).
    matrix : ScoreMatrix
        The benchmark's metric, or the §6.1 aggregate of its metrics.
    options : TestOptions
        The two-sided all-pairs options the benchmark was tested with.
    mean, sd, count : ndarray
        Per system of ``matrix.systems``: the oriented mean, sample SD (NaN for one
        example) and number of examples (the summary statistics of Ackerman et al.
        2025, §6.3).
    cells : DataFrame or None
        The benchmark's leaderboard: system, mean, ci_low, ci_high, group, benchmark.
    pairwise : PairwiseTests or None
        All pairs, two-sided. None (with ``cells``) when the benchmark has one system.
    tests : DataFrame or None
        ``pairwise`` as rows unit, system_a, system_b, pvalue, effect_size,
        effect_name, n, difference, ci_low, ci_high (the input of the combination).
    pair_codes : ndarray of int, shape (2, len(tests)), or None
        Positions of each test's system_a and system_b in ``matrix.systems``.
    pooling_inputs : dict of ndarray or None
        ``tests`` as arrays: pvalue, g and v (Hedges-corrected effect and its variance,
        :func:`engine.across._meta.corrected_effect`), computed once.
    note : str or None
        Why the benchmark compares nothing (a single system).
    """

    benchmark: str
    metrics: tuple[str, ...]
    matrix: ScoreMatrix
    options: TestOptions
    mean: np.ndarray
    sd: np.ndarray
    count: np.ndarray
    cells: pd.DataFrame | None
    pairwise: PairwiseTests | None
    tests: pd.DataFrame | None
    pair_codes: np.ndarray | None
    pooling_inputs: dict[str, np.ndarray] | None
    note: str | None


def choose_overall(df: pd.DataFrame, benchmarks: Sequence[str] | None,
                   metrics: Sequence[str] | None) -> tuple[list[str], dict[str, list[str]]]:
    """The benchmarks to combine and, per benchmark, the metrics measured there.

    Parameters
    ----------
    df : DataFrame
        Canonical long table.
    benchmarks : sequence of str or None
        Distinct benchmarks of ``df`` (None: all, in data order).
    metrics : sequence of str or None
        Metrics to use where measured (None: each benchmark's primary metric, its first
        in data order; several metrics of one benchmark make its aggregate, a choice
        the caller makes by naming them).

    Returns
    -------
    chosen : list of str
    per : dict benchmark → list of metrics

    Examples
    --------
    >>> df = pd.DataFrame({"benchmark": ["b", "b", "c"], "system": ["s", "s", "s"],
    ...                    "example_id": ["e", "e", "e"], "metric": ["m1", "m2", "m1"],
    ...                    "value": [1.0, 0.0, 1.0]})
    >>> choose_overall(df, None, ["m2", "m1"])
    (['b', 'c'], {'b': ['m2', 'm1'], 'c': ['m1']})
    >>> choose_overall(df, None, None)
    (['b', 'c'], {'b': ['m1'], 'c': ['m1']})
    """
    missing = [c for c in REQUIRED_COLUMNS if c not in df.columns]
    if missing:
        raise ValueError(f"df: must be a long table with columns {list(REQUIRED_COLUMNS)}; "
                         f"missing {missing}")
    present = [str(b) for b in pd.unique(df["benchmark"])]
    chosen = present if benchmarks is None else list(benchmarks)
    unknown = [b for b in chosen if b not in present]
    if unknown or not chosen or len(set(chosen)) != len(chosen):
        raise ValueError(f"benchmarks: need distinct benchmarks of the table {present!r}; "
                         f"got {chosen!r}")
    per: dict[str, list[str]] = {}
    for b in chosen:
        on_b = [str(m) for m in pd.unique(df.loc[df["benchmark"] == b, "metric"])]
        # the primary metric: the first score, never a usage metric (a cost, a time)
        scores = [m for m in on_b if m not in USAGE_METRICS] or on_b
        per[b] = scores[:1] if metrics is None else [m for m in metrics if m in on_b]
        if not per[b]:
            raise ValueError(f"metrics: none of {list(metrics or [])!r} is measured on "
                             f"benchmark {b!r} (it has {on_b!r})")
    return chosen, per


def _benchmark_matrix(df: pd.DataFrame, benchmark: str, metrics: Sequence[str],
                      weights: Mapping[str, float] | None,
                      specs: Mapping[tuple[str, str], MetricSpec]) -> ScoreMatrix:
    """The benchmark's one metric, or the §6.1 aggregate of its several metrics."""
    if len(metrics) == 1:
        return build_matrix(df, benchmark=benchmark, metric=metrics[0],
                            spec=spec_of(df, benchmark, metrics[0], specs))
    taken = set(df.loc[df["benchmark"] == benchmark, "metric"])
    name = next(n for n in ("aggregate", *(f"aggregate_{i}" for i in range(1, 100)))
                if n not in taken)
    mine = {m: weights.get(m, 0.0) for m in metrics} if weights is not None else None
    rows = aggregate_metric(df, benchmark=benchmark, metrics=list(metrics), weights=mine,
                            specs=specs, name=name)
    return build_matrix(rows, benchmark=benchmark, metric=name,
                        spec=MetricSpec(higher_is_better=True, binary=False))


def _summary(matrix: ScoreMatrix) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Oriented mean, sample SD and count of each system's scores (NaN-aware)."""
    x = matrix.oriented(paired=False)
    has = ~np.isnan(x)
    n = has.sum(axis=1)
    mean = np.where(has, x, 0.0).sum(axis=1) / np.maximum(n, 1)
    spread = (np.where(has, x - mean[:, None], 0.0) ** 2).sum(axis=1)
    sd = np.where(n > 1, np.sqrt(spread / np.maximum(n - 1, 1)), np.nan)
    return mean, sd, n.astype(float)


def benchmark_part(df: pd.DataFrame, benchmark: str, *, metrics: Sequence[str],
                   weights: Mapping[str, float] | None = None,
                   specs: Mapping[tuple[str, str], MetricSpec] | None = None,
                   options: TestOptions | None = None, cluster: str | None = None,
                   board: Leaderboard | None = None) -> BenchmarkPart:
    """One benchmark's matrix, summary statistics, leaderboard and all-pairs tests.

    Parameters
    ----------
    df : DataFrame
        Canonical long table (may hold other benchmarks).
    benchmark : str
    metrics : sequence of str, keyword-only
        Metrics of ``benchmark`` to use (several: their §6.1 aggregate).
    weights : mapping metric → weight, optional
        Metric weights inside the aggregate (equal by default).
    specs : mapping (benchmark, metric) → MetricSpec, optional
    options : TestOptions, optional
        Test settings; the benchmark is always tested on all pairs, two-sided.
    cluster : str, optional
        Per-example column (e.g. passage): where this benchmark's rows give every example
        one, its tests, intervals and groups are cluster-robust
        (:func:`engine.stats._clusters.design_where_given`).
    board : Leaderboard, optional
        The leaderboard of the benchmark's one metric, already computed (a caller's cache:
        the app's Leaderboard page) as this function would: on the matrix of
        ``df``'s rows (``board.source``), two-sided on all pairs with ``options``, no
        cluster, no rating bootstrap. Its matrix and tests are used instead of computing
        them again; ValueError when it cannot be that leaderboard (several metrics, a
        cluster, no source matrix, other options' correction or alpha).

    Returns
    -------
    BenchmarkPart

    Notes
    -----
    Independent of the benchmark weights and of the overall order, so a caller
    can keep it while the weights change (:func:`engine.products._overall.overall_from_parts`).
    The leaderboard skips the rating bootstrap (the overall page never shows it).

    Examples
    --------
    >>> rng = np.random.default_rng(0)
    >>> long = pd.DataFrame([("b", s, f"e{i}", "m", float(rng.normal(k, 1)))
    ...                      for k, s in enumerate(["x", "y"]) for i in range(30)],
    ...                     columns=["benchmark", "system", "example_id", "metric", "value"])
    >>> part = benchmark_part(long, "b", metrics=["m"])
    >>> part.matrix.systems, len(part.tests)
    (('x', 'y'), 1)
    """
    options = options if options is not None else TestOptions()
    two_sided = options.with_(compare="all", alternative="two-sided")
    if board is not None:
        _check_reusable(board, benchmark, metrics, two_sided, cluster)
        assert board.source is not None  # checked above; for the type checker
        matrix = board.source
    else:
        matrix = _benchmark_matrix(df, benchmark, list(metrics), weights, specs or {})
    mean, sd, count = _summary(matrix)
    if matrix.n_systems < 2:
        note = f"{benchmark}: only one system ({matrix.systems[0]}), nothing to compare there."
        return BenchmarkPart(benchmark, tuple(metrics), matrix, two_sided, mean, sd, count,
                             None, None, None, None, None, note)
    from ..stats._clusters import design_where_given

    design = None
    if board is None:
        design = design_where_given(df[df["benchmark"] == benchmark], cluster, matrix.examples)
        board = leaderboard(matrix, two_sided, bt_resamples=0,  # rating intervals not shown
                            cluster=design)
    cells = board.table[["system", "mean", "ci_low", "ci_high", "group"]].assign(
        benchmark=benchmark)
    tests = result_cells(board.pairwise, benchmark)
    return BenchmarkPart(benchmark, tuple(metrics), matrix, two_sided, mean, sd, count, cells,
                         board.pairwise, tests, pair_codes(tests, matrix.systems),
                         pooling_inputs(tests), None if design is None else
                         f"{benchmark}: {design.sentence(board.pairwise.table)}")


def _check_reusable(board: Leaderboard, benchmark: str, metrics: Sequence[str],
                    options: TestOptions, cluster: str | None) -> None:
    """ValueError unless ``board`` can be the leaderboard :func:`benchmark_part` computes."""
    problems = [why for bad, why in (
        (len(metrics) != 1 or board.metric != metrics[0] or board.benchmark != benchmark,
         f"it must rank {benchmark!r} on its one metric {list(metrics)!r}"),
        (cluster is not None or board.pairwise.clusters is not None,
         "a clustered part computes its own"),
        (board.source is None, "it has no source matrix"),
        (board.pairwise.options != options, "it was tested with other options"),
    ) if bad]
    if problems:
        raise ValueError(f"board: cannot be reused here: {'; '.join(problems)}")


def pair_codes(tests: pd.DataFrame, systems: Sequence[str]) -> np.ndarray:
    """Positions of each row's system_a and system_b in ``systems`` (shape 2 × rows)."""
    index = pd.Index(list(systems))
    return np.vstack([index.get_indexer(pd.Index(tests["system_a"])),
                      index.get_indexer(pd.Index(tests["system_b"]))])
