"""Bootstrap distributions of means and ranks (engine/stats/_bootstrap.py).

References: scipy.stats.bootstrap (percentile intervals) and the plug-in
standard error σ̂/√n that the bootstrap SE of a mean converges to (Efron &
Tibshirani 1993, §5.2); the matrix-product kernel is checked against an
explicit per-resample loop.
"""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pandas as pd
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from scipy import stats

from engine import MetricSpec, ScoreMatrix, bootstrap_ranks, build_matrix, read_results
from engine.stats._bootstrap import BOOTSTRAP_COLUMNS, _paired_means, _unpaired_means


def _matrix(values: np.ndarray, *, higher: bool = True, names: list[str] | None = None):
    return ScoreMatrix.from_array(values, systems=names, benchmark="b", metric="m",
                                  spec=MetricSpec(higher_is_better=higher))


@pytest.fixture(scope="module")
def humaneval(demo_data: Path):
    return build_matrix(read_results(demo_data / "humaneval.jsonl.gz"))


def test_paired_kernel_matches_per_resample_loop() -> None:
    x = np.random.default_rng(1).normal(size=(5, 37))
    fast = _paired_means(x, 300, np.random.default_rng(7))
    draws = np.random.default_rng(7).integers(0, 37, size=(300, 37))
    slow = np.array([x[:, idx].mean(axis=1) for idx in draws])
    np.testing.assert_allclose(fast, slow, rtol=1e-12)


def test_paired_kernel_blocks_give_the_same_draws(monkeypatch: pytest.MonkeyPatch) -> None:
    x = np.random.default_rng(2).normal(size=(3, 20))
    whole = _paired_means(x, 50, np.random.default_rng(3))
    monkeypatch.setattr("engine.stats._bootstrap._CELLS_PER_BLOCK", 20 * 7)  # blocks of 7 resamples
    blocked = _paired_means(x, 50, np.random.default_rng(3))
    np.testing.assert_allclose(whole, blocked)


def test_percentile_interval_agrees_with_scipy_bootstrap() -> None:
    rng = np.random.default_rng(11)
    x = rng.gamma(2.0, size=(1, 120))
    ours = bootstrap_ranks(_matrix(x), n_resamples=20000, alpha=0.1, seed=5).summary
    ref = stats.bootstrap((x[0],), np.mean, n_resamples=20000, confidence_level=0.9,
                          method="percentile", rng=np.random.default_rng(6)).confidence_interval
    assert ours["ci_low"].iloc[0] == pytest.approx(ref.low, abs=0.02)
    assert ours["ci_high"].iloc[0] == pytest.approx(ref.high, abs=0.02)


@pytest.mark.parametrize("paired", [True, False])
def test_bootstrap_se_converges_to_plug_in_se(paired: bool) -> None:
    rng = np.random.default_rng(4)
    x = rng.normal(size=(3, 200)) * np.array([[1.0], [2.0], [0.5]])
    result = bootstrap_ranks(_matrix(x), n_resamples=20000, paired=paired, seed=8)
    plug_in = x.std(axis=1) / np.sqrt(x.shape[1])
    np.testing.assert_allclose(result.means.std(axis=0), plug_in, rtol=0.04)


def test_paired_resamples_keep_the_pairing() -> None:
    """Paired: the SE of a difference is that of the paired differences, far below unpaired."""
    rng = np.random.default_rng(9)
    base = rng.normal(size=300)
    x = np.vstack([base, base + 0.1 + 0.2 * rng.normal(size=300)])
    paired = bootstrap_ranks(_matrix(x), n_resamples=20000, paired=True, seed=1)
    diff_se = (paired.means[:, 1] - paired.means[:, 0]).std()
    assert diff_se == pytest.approx((x[1] - x[0]).std() / np.sqrt(300), rel=0.05)
    unpaired = bootstrap_ranks(_matrix(x), n_resamples=5000, paired=False, seed=1)
    assert (unpaired.means[:, 1] - unpaired.means[:, 0]).std() > 4 * diff_se


def test_unpaired_draws_only_each_systems_own_examples() -> None:
    x = np.array([[1.0, 1.0, np.nan, np.nan], [0.0, np.nan, 5.0, 5.0]])
    means = _unpaired_means(x, 2000, np.random.default_rng(0))
    assert np.all(means[:, 0] == 1.0)  # system 0 only ever draws its two 1.0 scores
    assert set(np.round(means[:, 1], 6)) <= {0.0, round(5 / 3, 6), round(10 / 3, 6), 5.0}


def test_partial_data_defaults_to_paired_on_common_examples() -> None:
    x = np.random.default_rng(0).normal(size=(3, 10))
    x[0, :3] = np.nan
    result = bootstrap_ranks(_matrix(x), n_resamples=10, seed=0)
    assert result.paired
    assert result.summary.set_index("system").loc["s0", "mean"] == pytest.approx(
        np.mean(x[0, 3:]))


def test_summary_on_humaneval(humaneval) -> None:
    result = bootstrap_ranks(humaneval, n_resamples=2000, seed=0)
    s = result.summary
    assert tuple(s.columns) == BOOTSTRAP_COLUMNS
    assert len(s) == 49 and result.paired and result.means.shape == (2000, 49)
    assert s["rank"].is_monotonic_increasing
    assert (s["rank_low"] <= s["rank_median"]).all() and (s["rank_median"] <= s["rank_high"]).all()
    assert (s["ci_low"] <= s["mean"]).all() and (s["mean"] <= s["ci_high"]).all()
    # means on 164 binary examples: every resampled mean is a multiple of 1/164
    np.testing.assert_allclose(result.means * 164, np.round(result.means * 164), atol=1e-9)
    # ties share the best rank, so a resample may give rank 1 to several systems: each of
    # k tied systems gets 1/k of that resample, and P(first) sums to 1 (issue #12)
    assert s["p_first"].sum() == pytest.approx(1.0)
    assert (result.ranks == 1).sum(axis=1).max() > 1  # ties for first do occur here
    assert s["system"].iloc[0] == "claude-3-opus-20240229" and s["p_first"].iloc[0] > 0.5


def test_lower_is_better_ranks_smallest_first() -> None:
    x = np.array([[0.1] * 5 + [0.2] * 5, [0.5] * 10, [0.9] * 10])
    s = bootstrap_ranks(_matrix(x, higher=False), n_resamples=200, seed=0).summary
    assert list(s["system"]) == ["s0", "s1", "s2"]
    assert s["p_first"].iloc[0] == 1.0


def test_long_form_for_plots() -> None:
    result = bootstrap_ranks(_matrix(np.eye(3)), n_resamples=4, seed=0)
    long = result.long()
    assert list(long.columns) == ["resample", "system", "mean", "rank"]
    assert len(long) == 12
    np.testing.assert_array_equal(long["mean"].to_numpy().reshape(4, 3), result.means)


def test_seed_reproduces() -> None:
    m = _matrix(np.random.default_rng(3).random((4, 30)))
    a = bootstrap_ranks(m, n_resamples=100, seed=42)
    b = bootstrap_ranks(m, n_resamples=100, seed=42)
    np.testing.assert_array_equal(a.means, b.means)
    pd.testing.assert_frame_equal(a.summary, b.summary)


@pytest.mark.parametrize(("kwargs", "message"), [
    ({"n_resamples": 0}, "n_resamples: must be an integer from 1 to 1,000,000; got 0"),
    ({"n_resamples": 2.5}, "n_resamples"),
    ({"n_resamples": True}, "n_resamples"),
    ({"alpha": 1.0}, "alpha: must be strictly between 0 and 1; got 1.0"),  # intervals at 1 - alpha
])
def test_bad_options_are_named(kwargs: dict, message: str) -> None:
    with pytest.raises(ValueError, match=message.replace("(", r"\(").replace(")", r"\)")):
        bootstrap_ranks(_matrix(np.eye(3)), **kwargs)


def test_paired_without_shared_examples_is_refused() -> None:
    x = np.array([[1.0, np.nan], [np.nan, 0.0]])
    with pytest.raises(ValueError, match="paired: fewer than 2 examples"):
        bootstrap_ranks(_matrix(x), paired=True)
    assert not bootstrap_ranks(_matrix(x), n_resamples=5).paired


@pytest.mark.slow
@settings(max_examples=30)
@given(st.integers(2, 6), st.integers(2, 25), st.integers(0, 2**32 - 1), st.randoms())
def test_relabelling_systems_relabels_the_output(s: int, n: int, seed: int, shuffle) -> None:
    """Paired draws do not depend on system order: a permutation permutes every output."""
    x = np.random.default_rng(seed).integers(0, 2, size=(s, n)).astype(float)
    names = [f"s{i}" for i in range(s)]
    perm = list(range(s))
    shuffle.shuffle(perm)
    a = bootstrap_ranks(_matrix(x, names=names), n_resamples=50, seed=seed)
    b = bootstrap_ranks(_matrix(x[perm], names=[names[i] for i in perm]), n_resamples=50, seed=seed)
    np.testing.assert_array_equal(a.means[:, perm], b.means)
    np.testing.assert_array_equal(a.ranks[:, perm], b.ranks)
    left = a.summary.set_index("system").sort_index()
    right = b.summary.set_index("system").sort_index()
    pd.testing.assert_frame_equal(left, right)
