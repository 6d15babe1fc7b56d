"""Kernels at arena size (issue #19): win counts without a global sort, blocked Gram matrix and
row moments; each checked against a per-pair loop, scipy or numpy on random inputs."""

from __future__ import annotations

import tracemalloc

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from scipy import stats

from engine.stats import _kernels as k


def _wins_by_pair_loop(x: np.ndarray) -> np.ndarray:
    """Reference: one comparison per ordered pair of systems."""
    s = len(x)
    out = np.zeros((s, s), dtype=np.int64)
    for i in range(s):
        for j in range(s):
            out[i, j] = int((x[i] > x[j]).sum())
    return out


def _wins_3a29752(x: np.ndarray) -> np.ndarray:
    """The implementation before issue #19 (git show 3a29752:engine/_kernels.py): a global
    np.unique over all values, then one row at a time on integer codes."""
    s = len(x)
    levels, codes = np.unique(x, return_inverse=True)
    codes = codes.reshape(x.shape)
    if len(levels) <= 4:
        out_f = np.zeros((s, s))
        for level in range(1, len(levels)):
            out_f += (codes == level).astype(float) @ (codes < level).astype(float).T
        return np.rint(out_f).astype(np.int64)
    out = np.empty((s, s), dtype=np.int64)
    for i in range(s):
        out[i] = (codes[i] > codes).sum(axis=1, dtype=np.int64)
    return out


def _scores(rng: np.random.Generator, kind: str, s: int, e: int) -> np.ndarray:
    if kind == "binary":
        return (rng.uniform(size=(s, e)) < 0.6).astype(float)
    if kind == "three levels":
        return rng.choice([0.0, 0.5, 1.0], size=(s, e))
    if kind == "ties":  # many levels, many ties, -0.0 equal to 0.0
        x = rng.integers(-5, 6, size=(s, e)).astype(float)
        return np.where(x == 0, -0.0, x) * np.where(rng.uniform(size=(s, e)) < 0.5, 1, 1)
    return rng.normal(size=(s, e))


@pytest.mark.parametrize("kind", ["binary", "three levels", "ties", "continuous"])
@pytest.mark.parametrize(("s", "e"), [(1, 5), (2, 1), (5, 3), (7, 256), (13, 600), (300, 40)])
def test_win_matrix_equals_a_per_pair_loop_and_the_previous_code(kind: str, s: int, e: int
                                                                 ) -> None:
    x = _scores(np.random.default_rng(s * 1000 + e), kind, s, e)
    w = k.win_matrix(x)
    assert w.dtype == np.int64
    np.testing.assert_array_equal(w, _wins_3a29752(x))
    if s <= 13:
        np.testing.assert_array_equal(w, _wins_by_pair_loop(x))
    # ties are not wins: W + W^T + ties = examples
    ties = np.array([[(x[i] == x[j]).sum() for j in range(s)] for i in range(min(s, 5))])
    np.testing.assert_array_equal((w + w.T)[: min(s, 5)] + ties, e)


@settings(max_examples=40)
@given(s=st.integers(1, 12), e=st.integers(1, 300), levels=st.integers(1, 12),
       seed=st.integers(0, 2**32 - 1))
def test_win_matrix_property(s: int, e: int, levels: int, seed: int) -> None:
    rng = np.random.default_rng(seed)
    x = rng.integers(0, levels, size=(s, e)) / max(levels - 1, 1)
    w = k.win_matrix(x)
    np.testing.assert_array_equal(w, _wins_by_pair_loop(x))
    # relabelling systems permutes rows and columns; example order does not matter
    perm = rng.permutation(s)
    np.testing.assert_array_equal(k.win_matrix(x[perm]), w[np.ix_(perm, perm)])
    np.testing.assert_array_equal(k.win_matrix(x[:, rng.permutation(e)]), w)


def test_binary_hint_gives_the_same_counts() -> None:
    x = _scores(np.random.default_rng(0), "binary", 20, 1000)
    np.testing.assert_array_equal(k.win_matrix(x, binary=True), _wins_by_pair_loop(x))
    np.testing.assert_array_equal(k.win_matrix(x, binary=False), _wins_by_pair_loop(x))


def test_float32_products_stay_exact_for_large_counts() -> None:
    # float32 holds integers exactly up to 2^24; counts of 70,000 are far below, and blocks
    # of examples keep every partial sum below it too: the counts are exact, not rounded
    e = 70_001
    x = np.zeros((3, e))
    x[0] = 1.0
    x[1, ::2] = 1.0
    w = k.win_matrix(x)
    assert w[0, 2] == e and w[0, 1] == e // 2 and w[1, 2] == e // 2 + 1 and w[2, 0] == 0


def test_numeric_block_boundaries(monkeypatch: pytest.MonkeyPatch) -> None:
    # small working blocks: many row passes and example blocks, same counts
    monkeypatch.setattr(k, "_BLOCK_CELLS", 5_000)
    x = _scores(np.random.default_rng(1), "ties", 37, 700)
    assert len(k._column_blocks(37, 700)) == 6 and len(k._row_blocks(37, 700)) == 6  # moved
    np.testing.assert_array_equal(k.win_matrix(x), _wins_by_pair_loop(x))


def test_paired_t_blocked_matches_scipy(monkeypatch: pytest.MonkeyPatch) -> None:
    rng = np.random.default_rng(2)
    x = rng.normal(size=(6, 500)) + rng.normal(size=(6, 1))
    ia, ja = np.triu_indices(6, k=1)
    whole = k.paired_t(x, ia, ja, "two-sided")
    monkeypatch.setattr(k, "_BLOCK_CELLS", 6 * 37)  # 14 blocks of 37 examples
    assert len(k._column_blocks(6, 500)) == 14  # the patched size is the one used
    blocked = k.paired_t(x, ia, ja, "two-sided")
    # summation order changes the last bits only: no reported digit moves
    np.testing.assert_allclose(blocked.statistic, whole.statistic, rtol=1e-12)
    np.testing.assert_allclose(blocked.pvalue, whole.pvalue, rtol=1e-10)
    for n, (i, j) in enumerate(zip(ia, ja, strict=True)):
        ref = stats.ttest_rel(x[i], x[j])  # scipy's paired t-test, pair by pair
        assert blocked.statistic[n] == pytest.approx(ref.statistic, rel=1e-10)
        assert blocked.pvalue[n] == pytest.approx(ref.pvalue, rel=1e-8)


def test_row_moments_match_numpy_with_missing_values(monkeypatch: pytest.MonkeyPatch) -> None:
    rng = np.random.default_rng(3)
    x = rng.normal(size=(9, 40))
    x[rng.uniform(size=x.shape) < 0.3] = np.nan
    x[4] = np.nan
    x[5, 1:] = np.nan  # a single value: variance 0 by convention
    monkeypatch.setattr(k, "_BLOCK_CELLS", 80)  # two rows per block
    assert len(k._row_blocks(9, 40)) == 5  # the patched size is the one used
    n, mean, var = k.row_moments(x)
    np.testing.assert_array_equal(n, (~np.isnan(x)).sum(axis=1))
    with np.errstate(invalid="ignore", divide="ignore"), pytest.warns(RuntimeWarning):
        ref_mean = np.nanmean(x, axis=1)
        ref_var = np.nanvar(x, axis=1, ddof=1)
    live = n >= 2
    np.testing.assert_allclose(mean[live], ref_mean[live], rtol=1e-13)
    np.testing.assert_allclose(var[live], ref_var[live], rtol=1e-12)
    assert mean[4] == 0.0 and var[4] == 0.0 and var[5] == 0.0


@pytest.mark.slow
@pytest.mark.parametrize("kind", ["continuous", "binary"])
def test_working_memory_is_bounded(kind: str) -> None:
    # 60 systems × 150,000 examples = 72 MB of float64: no step may allocate a copy of it
    # (before: a centred copy in paired_t, a 60 MB integer-code copy in win_matrix, …)
    x = _scores(np.random.default_rng(4), kind, 60, 150_000)
    ia, ja = np.triu_indices(60, k=1)
    tracemalloc.start()
    try:
        k.win_matrix(x)
        k.paired_t(x, ia, ja, "two-sided")
        k.row_moments(x)
        _, peak = tracemalloc.get_traced_memory()
    finally:
        tracemalloc.stop()
    assert peak < 0.5 * x.nbytes, peak / 1e6  # blocks of 2e6 cells: about 34 MB, any input size
