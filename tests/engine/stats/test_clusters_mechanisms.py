"""Clusters on the Mechanisms and Distributions statistics (issue #26 item 1): the Tukey rank
intervals from the clustered standard errors, the cluster-robust sign test of P(A beats B),
and the bootstrap that resamples whole clusters.

References: the Tukey intervals' standard errors are the half-widths of the clustered
leaderboard's mean intervals over the t quantile at the Bell–McCaffrey df (the leaderboard
the Mechanisms page shows beside them); the clustered sign test against the CR2 formula
written out with numpy and scipy's t (Bell & McCaffrey 2002; Pustejovsky & Tipton 2018) and,
by simulation, against alpha; the cluster bootstrap against the paired example bootstrap
(each example its own cluster draws the same indices, so the means agree bit for bit) and
against Miller's (2024, arXiv:2411.00640, §2.2) clustered standard error of a mean.
"""

from __future__ import annotations

import numpy as np
import pytest
from scipy import stats

from engine import ClusterDesign, ScoreMatrix, bootstrap_ranks, leaderboard, p_beats, rank_intervals_of
from engine.stats._clusters import clustered_se, clustered_sign_pvalues


def _clustered(seed: int, *, systems: int = 4, clusters: int = 12, size: int = 8,
               shift: float = 0.0, interaction: float = 1.0) -> tuple[np.ndarray, np.ndarray]:
    """Systems × examples scores with a system × cluster effect (clusters fail together);
    system k is ``k * shift`` better."""
    rng = np.random.default_rng(seed)
    codes = np.repeat(np.arange(clusters), size)
    level = rng.normal(0, 1, clusters * size)
    effect = rng.normal(0, interaction, (systems, clusters))[:, codes]
    x = level + effect + rng.normal(0, 1, (systems, clusters * size))
    return x + shift * np.arange(systems)[:, None], codes


def test_tukey_intervals_use_the_leaderboards_clustered_standard_errors() -> None:
    x, codes = _clustered(1, shift=0.4)
    m = ScoreMatrix.from_array(x)
    design = ClusterDesign.from_codes(codes, "passage")
    board = leaderboard(m, cluster=design, bt_resamples=0)
    ri = rank_intervals_of(m, cluster=design).table.set_index("system")
    t = board.table.set_index("system")
    half = (t["ci_high"] - t["ci_low"]) / 2 / stats.t.ppf(0.975, design.df)
    assert np.allclose(ri.loc[half.index, "se"], half, rtol=1e-10)
    plain = rank_intervals_of(m).table.set_index("system")
    assert (ri["se"] > plain["se"]).all()  # a system × passage effect: wider than s / √n


def test_clustered_sign_test_is_the_cr2_t_of_the_win_signs() -> None:
    x, codes = _clustered(2, systems=3, shift=0.3)
    design = ClusterDesign.from_codes(codes, "passage")
    ia, ja = np.triu_indices(3, 1)
    got = clustered_sign_pvalues(x, design, ia, ja)
    for p, i, j in zip(got, ia, ja, strict=True):
        d = np.sign(x[i] - x[j])
        se = clustered_se(d, codes, convention="cr2")
        assert p == pytest.approx(2 * stats.t.sf(abs(d.mean() / se), design.df), rel=1e-10)
    pb = p_beats(ScoreMatrix.from_array(x), cluster=design)
    assert np.allclose(pb.table["pvalue"], got)
    plain = p_beats(ScoreMatrix.from_array(x))
    assert (pb.table["pvalue"] > plain.table["pvalue"]).all()  # clusters: less evidence


@pytest.mark.slow  # 300 simulated benchmarks
def test_clustered_sign_test_keeps_alpha_where_the_exact_one_does_not() -> None:
    # 2 systems with no difference, 20 passages of 10 questions, system × passage SD 1: the
    # per-example exact sign test over-rejects, the cluster-robust one keeps 0.05
    reps, clustered, exact = 300, 0, 0
    ia, ja = np.array([0]), np.array([1])
    for seed in range(reps):
        x, codes = _clustered(100 + seed, systems=2, clusters=20, size=10)
        design = ClusterDesign.from_codes(codes, "passage")
        clustered += int(clustered_sign_pvalues(x, design, ia, ja)[0] < 0.05)
        exact += int(p_beats(ScoreMatrix.from_array(x)).table["pvalue"].iloc[0] < 0.05)
    mc = 2 * np.sqrt(0.05 * 0.95 / reps)
    assert clustered / reps <= 0.05 + mc, clustered / reps
    assert exact / reps > 0.05 + mc, exact / reps


def test_cluster_bootstrap_with_singleton_clusters_is_the_example_bootstrap() -> None:
    x, _ = _clustered(3)
    m = ScoreMatrix.from_array(x)
    singletons = ClusterDesign.from_codes(np.arange(x.shape[1]), "example")
    by_cluster = bootstrap_ranks(m, n_resamples=300, seed=4, cluster=singletons)
    by_example = bootstrap_ranks(m, n_resamples=300, seed=4)
    assert np.allclose(by_cluster.means, by_example.means, rtol=1e-12, atol=1e-12)
    assert by_cluster.n_clusters == x.shape[1] and by_example.n_clusters is None


def test_cluster_bootstrap_spreads_as_the_clustered_standard_error() -> None:
    x, codes = _clustered(5, clusters=30)
    design = ClusterDesign.from_codes(codes, "passage")
    res = bootstrap_ranks(ScoreMatrix.from_array(x), n_resamples=4000, seed=1, cluster=design)
    miller = np.array([clustered_se(row, codes, convention="miller") for row in x])
    # the bootstrap variance of a ratio mean over 30 equal clusters: Miller's √(Σ S_g²)/n,
    # to Monte Carlo error (4,000 resamples: ~2% on an SD)
    assert np.allclose(res.means.std(axis=0), miller, rtol=0.06)
    iid = x.std(axis=1, ddof=1) / np.sqrt(x.shape[1])
    assert np.allclose(res.design_effect, res.means.var(axis=0, ddof=1) / iid**2)
    assert (res.design_effect > 2).all()


def test_cluster_bootstrap_needs_every_system_on_every_example() -> None:
    x, codes = _clustered(6)
    x[0, 0] = np.nan
    design = ClusterDesign.from_codes(codes, "passage")
    with pytest.raises(ValueError, match="cluster"):
        bootstrap_ranks(ScoreMatrix.from_array(x), n_resamples=10, cluster=design)
