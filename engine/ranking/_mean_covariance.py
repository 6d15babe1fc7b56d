"""Rank sets of a score matrix: the covariance of the means from paired examples.

Each system's mean and the full covariance of the means (:func:`mean_covariance`: paired
examples, clusters, the run variance of seed sweeps), the rank sets of those means
(:func:`rank_sets_of`), and the leaderboard's and the overall table's rank sets. Those two
are built on the page's own pair tests (:func:`pair_evidence`, :func:`overall_pair_evidence`):
the covariance then gives only the dependence between the pairs' statistics, each pair's
standard error and df are its test's, and no set separates a pair its test does not.
The sets themselves, from any estimates and covariance, are :mod:`._rank_sets`.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Literal

import numpy as np
import pandas as pd

from .._matrix import ScoreMatrix, orient
from .._options import TestOptions, resolve
from ._rank_sets import Kind, PairEvidence, RankSets, rank_sets

if TYPE_CHECKING:
    from ..stats._pairwise import PairwiseTests
    from ..stats._runs import PooledRuns

__all__ = ["MeanCovariance", "leaderboard_rank_sets", "mean_covariance", "overall_covariance",
           "overall_pair_evidence", "overall_rank_sets", "pair_evidence", "rank_sets_of"]


@dataclass(frozen=True)
class MeanCovariance:
    """Each system's mean score and the covariance matrix of those means.

    ``estimates`` are oriented (larger is better); ``means`` raw. ``method`` says
    which variance: "paired" (examples as independent units), "cluster" (cluster-robust
    by ``n_clusters`` clusters); ``run_variance`` is the seed-sweep component added to
    each system's variance (0 without runs).
    """

    systems: tuple[str, ...]
    means: np.ndarray
    estimates: np.ndarray
    cov: np.ndarray
    n: np.ndarray
    method: str
    n_clusters: int
    run_variance: np.ndarray


def mean_covariance(matrix: ScoreMatrix, *,
                    cluster: Sequence[object] | np.ndarray | None = None,
                    pooled: PooledRuns | None = None) -> MeanCovariance:
    """Each system's mean score and the full covariance of the means, from paired examples.

    Each system's mean uses every example it has (as the leaderboard). With ``u_ai =
    (x_ai − x̄_a) / n_a`` on the examples a scored (0 elsewhere), the covariance is the
    sandwich ``Σ_ab = G/(G − 1) Σ_g (Σ_{i∈g} u_ai)(Σ_{i∈g} u_bi)`` over clusters g (each
    example its own cluster by default, when this is the sample covariance / n on fully
    paired data). Shared examples make means positively correlated, which narrows σ_ab
    and sharpens the rank sets. With several runs, each system's seed-sweep variance
    component σ²_run / R (:func:`engine.stats._runs.run_anova`) is added to its variance.

    ``cluster`` gives one label per example of ``matrix.examples`` (e.g. a task family).
    ``pooled``: the pairwise tests' run variance pooled over every system with runs
    (:func:`engine.stats._runs.pooled_runs`); each system then gets σ̂²_run / R_s as in
    those tests (single-run systems R = 1) in place of its own few-seed estimate.
    """
    est, u, has = _example_units(matrix)
    n = has.sum(axis=1)
    used = has.any(axis=0)
    if cluster is None:
        units, g, method = u[:, used], int(used.sum()), "paired"
    else:
        codes = _cluster_codes(cluster, matrix.n_examples)
        onehot = np.zeros((matrix.n_examples, int(codes.max()) + 1))
        onehot[np.arange(matrix.n_examples), codes] = 1.0
        units = u @ onehot
        units = units[:, np.abs(units).sum(axis=0) > 0] if units.size else units
        g, method = int((onehot[used].sum(axis=0) > 0).sum()), "cluster"
    if g < 2:
        raise ValueError(f"matrix: needs at least 2 examples (or clusters) with scores; got {g}")
    cov = units @ units.T * (g / (g - 1))
    run_var = (_run_variance(matrix) if pooled is None
               else pooled.var_run / np.maximum(matrix.runs.max(axis=1), 1).astype(float))
    cov[np.diag_indices_from(cov)] += run_var
    means = np.where(has, matrix.values, 0.0).sum(axis=1) / n
    return MeanCovariance(matrix.systems, means, est, cov, n, method, g, run_var)


def _example_units(matrix: ScoreMatrix) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Oriented means, each example's share ``u_ai = (x_ai − x̄_a) / n_a`` of the deviation of
    a's mean (0 where a has no score) and the mask of scores: x̄_a − E x̄_a ≈ Σ_i u_ai."""
    x = orient(matrix.values, higher_is_better=matrix.higher_is_better, binary=matrix.binary)
    has = ~np.isnan(x)
    n = has.sum(axis=1)
    empty = [s for s, k in zip(matrix.systems, n, strict=True) if k == 0]
    if empty:
        raise ValueError(f"matrix: system(s) {empty!r} scored no example; drop them first")
    est = np.where(has, x, 0.0).sum(axis=1) / n
    return est, np.where(has, x - est[:, None], 0.0) / n[:, None], has


def _cluster_codes(cluster: Sequence[object] | np.ndarray, n_examples: int) -> np.ndarray:
    labels = pd.Series(np.asarray(cluster, dtype=object))
    if len(labels) != n_examples:
        raise ValueError(f"cluster: needs one label per example ({n_examples}); got {len(labels)}")
    if labels.isna().any():
        raise ValueError(f"cluster: example {int(labels.isna().to_numpy().argmax())} has no cluster "
                         "label; give every example one")
    return np.asarray(pd.factorize(labels)[0])


def _run_variance(matrix: ScoreMatrix) -> np.ndarray:
    """Per system σ̂²_run / R: the variance a whole-sweep seed shift adds to its mean."""
    if matrix.run_scores is None:
        return np.zeros(matrix.n_systems)
    from ..stats._runs import run_anova, run_cube  # only data with runs pays for it
    frame = matrix.run_scores.assign(benchmark=matrix.benchmark, metric=matrix.metric)
    cube = run_cube(frame, systems=list(matrix.systems))
    a = run_anova(cube.values, cube.runs)
    with np.errstate(divide="ignore", invalid="ignore"):
        var_run = (a.ss_run / a.df_run - a.ss_resid / a.df_resid) / a.n
    var_run = np.where((a.df_run > 0) & (a.df_resid > 0), np.maximum(var_run, 0.0), 0.0)
    return np.asarray(var_run / np.maximum(cube.runs, 1), dtype=float)


def rank_sets_of(matrix: ScoreMatrix, *, kind: Kind = "simultaneous",
                 options: TestOptions | None = None, tau_best: int = 1, tau_worst: int = 1,
                 cluster: Sequence[object] | np.ndarray | None = None, n_draws: int = 1_000,
                 rng: np.random.Generator | int | None = 0,
                 pairwise: PairwiseTests | Literal[False] | None = None) -> RankSets:
    """:func:`rank_sets` of each system's mean score with the covariance of
    :func:`mean_covariance` (paired examples, runs and clusters); ``estimate`` is the
    raw mean — the adjusted mean of :mod:`engine.stats._additive` when systems lack
    examples (as the leaderboard's) — and rank 1 follows the metric's direction.
    ``options``: its ``alpha`` (sets at 1 − alpha; default ``TestOptions()``).

    ``pairwise``: the pairwise tests of the same matrix (all pairs; default: those of
    :func:`engine.pairwise_tests` with ``options`` and ``cluster``, as the leaderboard runs
    them). Each pair is then studentised, given its t tail and allowed to separate as those
    tests do (:func:`pair_evidence`), and the run variance is theirs. ``False``: the
    covariance of the means alone (normal tails, no tests consulted)."""
    opts = resolve(options, {})
    alpha = opts.alpha
    if pairwise is None:
        pairwise = _page_tests(matrix, opts, cluster)
    evidence = None if pairwise is False else pair_evidence(pairwise, matrix.systems)
    pooled = None if evidence is None or pairwise is False else pairwise.pooled_runs
    mc = mean_covariance(matrix, cluster=cluster, pooled=pooled)
    means, estimates = mc.means, mc.estimates
    if matrix.pairing == "partial":
        # systems on different examples: ranked by the leaderboard's adjusted means (their
        # predicted means over every example), not raw means over easier or harder subsets
        from ..stats._additive import additive_fit

        means = additive_fit(matrix.values).adjusted_mean
        estimates = orient(means, higher_is_better=matrix.higher_is_better,
                           binary=matrix.binary)
    res = rank_sets(estimates, mc.cov, kind=kind, alpha=alpha, tau_best=tau_best,
                    tau_worst=tau_worst, labels=matrix.systems, n_draws=n_draws, rng=rng,
                    pairs=evidence)
    raw = dict(zip(matrix.systems, means, strict=True))
    table = res.table.assign(estimate=res.table["system"].map(raw))
    return RankSets(table, res.kind, alpha, res.tau_best, res.tau_worst, matrix.higher_is_better,
                    n_draws, res.seed, res.steps, res.critical_value)


def _page_tests(matrix: ScoreMatrix, opts: TestOptions,
                cluster: Sequence[object] | np.ndarray | None) -> PairwiseTests | Literal[False]:
    """The pairwise tests a page would show beside these sets (False where they cannot run,
    e.g. cluster-robust tests on missing scores: the covariance alone then)."""
    from ..stats._clusters import ClusterDesign
    from ..stats._pairwise import pairwise_tests

    if matrix.n_systems < 2:
        return False
    try:
        design = None if cluster is None else ClusterDesign.from_codes(
            _cluster_codes(cluster, matrix.n_examples))
        return pairwise_tests(matrix, opts, cluster=design)
    except ValueError:
        return False


# --- the leaderboard's and the overall table's rank sets ---------------------------------------

def leaderboard_rank_sets(matrix: ScoreMatrix, *, alpha: float,
                          cluster: np.ndarray | None = None,
                          pairwise: PairwiseTests | Literal[False] | None = None
                          ) -> RankSets | None:
    """The simultaneous rank sets and the 1-best set of a leaderboard's systems, cluster-robust
    when the leaderboard is (``cluster``: each example's cluster code), built on the page's
    ``pairwise`` tests (:func:`rank_sets_of`; computed when not given); None when the matrix cannot give a
    covariance (fewer than 2 systems, or 2 scored examples or clusters)."""
    if matrix.n_systems < 2:
        return None
    try:
        return rank_sets_of(matrix, options=TestOptions(alpha=alpha), cluster=cluster,
                            pairwise=pairwise)
    except ValueError:
        return None


_OWN_T = ("vc-t", "cluster-t")  # tests whose standard error the covariance of means lacks


def pair_evidence(pw: PairwiseTests, systems: Sequence[str]) -> PairEvidence | None:
    """The pairwise tests as :class:`PairEvidence` over ``systems`` (None unless the tests
    cover every pair of them).

    Run-aware tests (``vc-t``, and their ``paired-t`` where the runs add nothing) and the
    cluster-robust t give their own t and df: the run variance and its Satterthwaite df,
    CR2 with Bell–McCaffrey df. Other tests (McNemar, the paired t on examples, …) use the
    covariance's σ_ab and the normal tail, as the Overall table's sets do (with few examples
    the gate below is what keeps them honest). Every pair can be rejected only where the
    test is significant, in the direction it found.
    """
    index = {str(s): i for i, s in enumerate(systems)}
    p = len(index)
    tab = pw.table
    a = tab["system_a"].astype(str).map(index)
    b = tab["system_b"].astype(str).map(index)
    if a.isna().any() or b.isna().any():
        return None
    ia, ib = a.to_numpy(int), b.to_numpy(int)
    if not _covered(p, ia, ib):
        return None
    test = tab["test"].astype(str).to_numpy()
    own = np.isin(test, _OWN_T) | (pw.pooled_runs is not None) | (pw.clusters is not None)
    t_ab = np.where(own, tab["statistic"].to_numpy(float), np.nan)
    df_ab = np.where(own, tab["df"].to_numpy(float), np.inf)
    return _evidence(p, ia, ib, t_ab, np.where(np.isnan(df_ab), np.inf, df_ab),
                     tab["significant"].to_numpy(bool), tab["a_better"].to_numpy(bool))


def _evidence(p: int, ia: np.ndarray, ib: np.ndarray, t_ab: np.ndarray, df_ab: np.ndarray,
              significant: np.ndarray, a_better: np.ndarray) -> PairEvidence:
    t = np.full((p, p), np.nan)
    df = np.full((p, p), np.inf)
    shown = np.zeros((p, p), dtype=bool)
    t[ia, ib], t[ib, ia] = t_ab, -t_ab
    df[ia, ib] = df[ib, ia] = df_ab
    shown[ia, ib] = significant & a_better
    shown[ib, ia] = significant & ~a_better
    return PairEvidence(t, df, shown)


def _covered(p: int, ia: np.ndarray, ib: np.ndarray) -> bool:
    covered = np.zeros((p, p), dtype=bool)
    covered[ia, ib] = covered[ib, ia] = True
    return bool(covered[~np.eye(p, dtype=bool)].all())


def overall_pair_evidence(pairs: pd.DataFrame, systems: Sequence[str]) -> PairEvidence | None:
    """The Overall table's combined pair tests as :class:`PairEvidence` (the covariance's
    σ_ab and normal tail; only pairs the combined tests separate can be rejected); None
    unless they cover every pair of ``systems``."""
    index = {str(s): i for i, s in enumerate(systems)}
    a = pairs["system_a"].astype(str).map(index)
    b = pairs["system_b"].astype(str).map(index)
    if a.isna().any() or b.isna().any():
        return None
    ia, ib = a.to_numpy(int), b.to_numpy(int)
    if not _covered(len(index), ia, ib):
        return None
    nan = np.full(len(ia), np.nan)
    return _evidence(len(index), ia, ib, nan, np.full(len(ia), np.inf),
                     pairs["significant"].to_numpy(bool), pairs["a_better"].to_numpy(bool))


def overall_rank_sets(matrices: Sequence[ScoreMatrix], systems: Sequence[str],
                      score: np.ndarray, factors: np.ndarray, *, alpha: float,
                      pairs: pd.DataFrame | None = None) -> RankSets | None:
    """Simultaneous rank sets of an overall score Σ_j a_j · (± mean_j − c_j) over benchmarks.

    See :func:`overall_covariance`; ``pairs``: the table's combined pair tests, which the sets
    never go beyond (:func:`overall_pair_evidence`). None when there is no covariance to use
    (fewer than 2 systems, a missing score, or fewer than 2 scored examples).
    """
    if len(systems) < 2 or not np.isfinite(score).all():
        return None
    evidence = None if pairs is None else overall_pair_evidence(pairs, systems)
    try:
        return rank_sets(score, overall_covariance(matrices, systems, factors),
                         labels=systems, alpha=alpha, pairs=evidence)
    except ValueError:
        return None


def overall_covariance(matrices: Sequence[ScoreMatrix], systems: Sequence[str],
                       factors: Sequence[float] | np.ndarray) -> np.ndarray:
    """Covariance of the overall scores Σ_j a_j · (± mean_j − c_j) of ``systems``.

    Each score deviates from its expectation by Σ_i w_si, summed over example ids, with
    w_si = Σ_j a_j u_sji (:func:`_example_units` of benchmark j on the same systems; 0
    where j has no example i). Examples are the independent units: within a benchmark
    the systems' shared examples give the covariance between systems (as on the
    leaderboard); across benchmarks, the same example id in two benchmarks (HumanEval and
    HumanEval+) is one unit, so its two scores are correlated, as in the overall pairs'
    tests; benchmarks with no id in common are taken as independent (different examples,
    no shared cause assumed). Then Cov = G/(G − 1) W Wᵀ over the G ids, plus each
    benchmark's run variance times a_j². With disjoint ids this is Σ_j a_j² Σ_j.
    """
    names = list(systems)
    columns: dict[object, int] = {}
    parts = []
    run_var = np.zeros(len(names))
    for a, m in zip(factors, matrices, strict=True):
        sub = m.subset(names)
        _, u, has = _example_units(sub)
        used = has.any(axis=0)
        ids = np.array([columns.setdefault(e, len(columns))
                        for e in np.asarray(sub.examples)[used]], dtype=np.intp)
        parts.append((float(a) * u[:, used], ids))
        run_var += float(a) ** 2 * _run_variance(sub)
    g = len(columns)
    if g < 2:
        raise ValueError(f"matrices: need at least 2 examples with scores; got {g}")
    w = np.zeros((len(names), g))
    for block, ids in parts:  # ids are distinct within one benchmark
        w[:, ids] += block
    cov = w @ w.T * (g / (g - 1))
    cov[np.diag_indices_from(cov)] += run_var
    return cov
