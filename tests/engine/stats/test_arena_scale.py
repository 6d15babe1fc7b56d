"""Issue #19: the arena-scale rewrites give the answers of the straightforward code.

Each fast path is checked against a per-item loop or a library on random inputs:
Tango's limits against scipy's ``brentq`` on the score equation, one pair at a time;
the blocked and win-matrix pair sums against the direct products; per-pair shared
means against a loop over pairs; Bradley–Terry's per-system sums against the
pairs × systems incidence product they replace; the Bron–Kerbosch listing against
networkx's ``find_cliques``.
"""

from __future__ import annotations

import networkx as nx
import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from scipy import optimize, stats

from engine.ranking._bradley_terry import _Battles, _to_systems
from engine.ranking._cliques import _maximal_cliques_in_order
from engine.stats import _kernels as k
from engine.stats import _overlap as ov
from engine.stats._intervals import _TangoTerms, paired_binary_ci

Z95 = stats.norm.ppf(0.975)


def _tango_score(delta: np.ndarray, b: np.ndarray, c: np.ndarray, n: np.ndarray) -> np.ndarray:
    """Tango's score statistic for H0: p_1 − p_2 = delta (decreasing in delta), from the
    terms the interval's solver uses."""
    return np.asarray(_TangoTerms(b, c, n).score(delta))


def _tango_by_brentq(b: float, c: float, n: float, z: float) -> tuple[float, float]:
    """One pair: the roots of T(Δ) = ±z by scipy's brentq, or the edge when T never gets there."""
    est = (b - c) / n

    def score(d: float) -> float:
        return float(_tango_score(np.array([d]), np.array([b]), np.array([c]), np.array([n]))[0])

    # the estimate itself is moved by 1e-13 (T is 0/0 there when b = c = 0); the limits
    # are at least z²/(n + z²) away from it
    low = -1.0 if score(-1.0) <= z else optimize.brentq(lambda d: score(d) - z, -1.0,
                                                        est - 1e-13, xtol=1e-16, rtol=1e-15)
    high = 1.0 if score(1.0) >= -z else optimize.brentq(lambda d: score(d) + z, est + 1e-13,
                                                        1.0, xtol=1e-16, rtol=1e-15)
    return low, high


def test_tango_limits_equal_a_root_finder_pair_by_pair() -> None:
    rng = np.random.default_rng(19)
    n = rng.choice([1, 2, 5, 30, 400, 20_000], size=120).astype(float)
    b = np.floor(rng.uniform(0, 0.6, 120) * n)
    c = np.floor(rng.uniform(0, 1, 120) * (n - b))
    low, high = paired_binary_ci(b, c, n)
    for i in range(len(n)):
        ref = _tango_by_brentq(b[i], c[i], n[i], Z95)
        np.testing.assert_allclose([low[i], high[i]], ref, rtol=1e-9, atol=1e-12)


@pytest.mark.slow
@settings(max_examples=30)
@given(st.lists(st.tuples(st.integers(0, 40), st.integers(0, 40), st.integers(0, 40)),
                min_size=1, max_size=25), st.randoms(use_true_random=False))
def test_tango_repeated_tables_and_order(tables: list[tuple[int, int, int]], rnd: object) -> None:
    """Pairs are solved once per distinct (b, c, n): repeats and order change nothing."""
    b, c, extra = (np.array(v, dtype=float) for v in zip(*tables, strict=True))
    n = b + c + extra
    low, high = paired_binary_ci(b, c, n)
    order = np.random.default_rng(len(tables)).permutation(len(b))
    twice = np.concatenate([order, order])
    low2, high2 = paired_binary_ci(b[twice], c[twice], n[twice])
    np.testing.assert_array_equal(low2, np.concatenate([low[order]] * 2))
    np.testing.assert_array_equal(high2, np.concatenate([high[order]] * 2))
    for i in range(len(b)):  # a pair alone gets the same limits as among others
        one = paired_binary_ci(b[i:i + 1], c[i:i + 1], n[i:i + 1])
        np.testing.assert_allclose([one[0][0], one[1][0]], [low[i], high[i]], rtol=1e-12,
                                   atol=1e-15)


def test_tango_fractional_counts_are_solved_without_grouping() -> None:
    low, high = paired_binary_ci([2.5, 2.5], [1.0, 1.0], [10.0, 10.0])
    ref = _tango_by_brentq(2.5, 1.0, 10.0, Z95)
    np.testing.assert_allclose([low[0], high[0]], ref, rtol=1e-9)
    assert low[0] == low[1] and high[0] == high[1]


def _small_blocks(monkeypatch: pytest.MonkeyPatch, width: int) -> None:
    def blocks(n_rows: int, n_cols: int, cells: int = 0) -> list[slice]:
        return [slice(s, min(s + width, n_cols)) for s in range(0, n_cols, width)]
    monkeypatch.setattr(k, "_column_blocks", blocks)


def _direct_overlap(x: np.ndarray) -> tuple[np.ndarray, ...]:
    """The sums of ``engine.stats._overlap`` as whole-matrix products (the formulas, unblocked)."""
    has = ~np.isnan(x)
    mask = has.astype(float)
    counts = has.sum(axis=1)
    centre = np.where(counts > 0, np.where(has, x, 0.0).sum(axis=1) / np.maximum(counts, 1), 0.0)
    c = np.where(has, x - centre[:, None], 0.0)
    return mask @ mask.T, c @ mask.T, (c * c) @ mask.T, c @ c.T, centre


@pytest.mark.parametrize("missing", [0.0, 0.2])
def test_blocked_pair_sums_equal_the_whole_products(monkeypatch: pytest.MonkeyPatch,
                                                   missing: float) -> None:
    rng = np.random.default_rng(7)
    x = rng.normal(size=(9, 53)) + rng.normal(size=(9, 1))
    x[rng.random(x.shape) < missing] = np.nan
    _small_blocks(monkeypatch, 10)
    got = ov.overlap(x)
    n, sums, squares, cross, centre = _direct_overlap(x)
    np.testing.assert_array_equal(got.n, n)
    np.testing.assert_allclose(got.sums, sums, atol=1e-12)
    np.testing.assert_allclose(np.asarray(got.squares), squares, rtol=1e-12)
    np.testing.assert_allclose(got.cross, cross, rtol=1e-12, atol=1e-12)
    np.testing.assert_allclose(got.centre, centre, rtol=1e-14)


def test_binary_pair_sums_from_the_win_matrix() -> None:
    rng = np.random.default_rng(3)
    x = (rng.random((12, 80)) < rng.uniform(0.1, 0.9, (12, 1))).astype(float)
    x[4] = x[2]  # identical systems: zero variance of the differences, exactly
    x[5] = 1.0  # a constant system
    got = ov.binary_overlap(x, k.win_matrix(x, binary=True))
    want = ov.overlap(x)
    np.testing.assert_allclose(np.asarray(got.squares), np.asarray(want.squares), atol=1e-10)
    np.testing.assert_allclose(got.cross, want.cross, atol=1e-10)
    ia, ja = np.triu_indices(12, k=1)
    fast, slow = (ov.masked_paired_t(s, ia, ja, "two-sided") for s in (got, want))
    np.testing.assert_allclose(fast[0].pvalue, slow[0].pvalue, rtol=1e-9)
    np.testing.assert_allclose(fast[2], slow[2], rtol=1e-9, atol=1e-12)
    same = (ia == 2) & (ja == 4)
    assert fast[0].pvalue[same] == 1.0 and fast[2][same] == 0.0


def test_float32_gram_within_its_bound_and_close_pairs_exact(monkeypatch: pytest.MonkeyPatch
                                                             ) -> None:
    """The float32 Gram product of large complete matrices (issue #32), on a small one with
    the size threshold lowered: every pair's variance of differences within the documented
    bound 2γκ of the float64 one (γ = (m + 2)·2⁻²⁴, m = 2,048), p-values within 5e-4, and
    the close pairs (κ > 8: a near-copy, a copy, a constant shift) recomputed in float64,
    so their p-values equal the float64 path's (reference: the float64 path, ``overlap``)."""
    rng = np.random.default_rng(11)
    x = rng.normal(size=(40, 3_000)) + rng.normal(size=(1, 3_000))  # shared difficulty
    x[1] = x[0] + rng.normal(scale=0.01, size=3_000)  # near-copy: κ ≈ 2·10⁴
    x[2] = x[0]  # a copy: no difference at all (p = 1)
    x[3] = x[0] + 0.5  # a constant difference (zero variance)
    moments = k.row_moments(x)
    monkeypatch.setattr(ov, "_FLOAT32_GRAM_WORK", 0.0)
    fast = ov.overlap(x, moments=moments)
    slow = ov.overlap(x)
    ia, ja = np.triu_indices(40, k=1)

    def variance(o: ov.PairOverlap) -> np.ndarray:
        sq = np.asarray(o.squares)
        return np.asarray(sq[ia, ja] + sq[ja, ia] - 2.0 * o.cross[ia, ja])

    want = variance(slow)
    own = np.asarray(slow.squares)[ia, ja] + np.asarray(slow.squares)[ja, ia]
    kappa = own / np.where(want > 0, want, np.nan)
    gamma = (2_048 + 2) * 2.0 ** -24
    spread = want > 0
    assert np.all(np.abs(variance(fast) - want)[spread] <= 2 * gamma * kappa[spread] * want[spread])
    (f_stats, *_), (s_stats, *_) = (ov.masked_paired_t(o, ia, ja, "two-sided")
                                    for o in (fast, slow))
    np.testing.assert_allclose(f_stats.pvalue, s_stats.pvalue, rtol=0, atol=5e-4)
    close = ~(kappa <= 8.0)  # NaN (no spread) counts as close
    assert close.sum() >= 6  # pairs among systems 0-3
    np.testing.assert_allclose(f_stats.pvalue[close], s_stats.pvalue[close], rtol=1e-12)
    assert f_stats.pvalue[(ia == 0) & (ja == 2)] == 1.0


@pytest.mark.parametrize("missing", [0.0, 0.25])
def test_shared_moments_equal_a_loop_over_pairs(missing: float) -> None:
    rng = np.random.default_rng(11)
    x = rng.normal(size=(7, 40)) * rng.uniform(0.5, 3, (7, 1))
    x[rng.random(x.shape) < missing] = np.nan
    ia, ja = np.triu_indices(7, k=1)
    n, ma, mb, sa, sb = ov.shared_moments(x, ia, ja)
    for p, (i, j) in enumerate(zip(ia, ja, strict=True)):
        both = ~np.isnan(x[i]) & ~np.isnan(x[j])
        assert n[p] == both.sum()
        np.testing.assert_allclose([ma[p], mb[p]], [x[i, both].mean(), x[j, both].mean()],
                                   rtol=1e-12)
        np.testing.assert_allclose([sa[p], sb[p]], [x[i, both].std(ddof=1),
                                                    x[j, both].std(ddof=1)], rtol=1e-10)


def test_bradley_terry_system_sums_equal_the_incidence_product() -> None:
    rng = np.random.default_rng(5)
    s, batch = 9, 4
    ia, ja = np.triu_indices(s, k=1)
    values = rng.normal(size=(batch, len(ia)))
    incidence = np.zeros((len(ia), s))
    incidence[np.arange(len(ia)), ia], incidence[np.arange(len(ia)), ja] = 1.0, -1.0
    zeros = np.zeros((batch, len(ia)))
    b = _Battles(zeros, zeros, zeros, False, ia, ja, s)
    np.testing.assert_allclose(_to_systems(values, b), values @ incidence, rtol=1e-12,
                               atol=1e-12)
    np.testing.assert_allclose(_to_systems(values, b, sign=1.0), values @ np.abs(incidence),
                               rtol=1e-12, atol=1e-12)


@pytest.mark.parametrize("seed", range(6))
def test_listed_cliques_are_networkx_maximal_cliques(seed: int) -> None:
    rng = np.random.default_rng(seed)
    n = int(rng.integers(5, 70))
    # near-interval: neighbours by position, with random edges dropped and added
    pos = np.arange(n)
    adj = np.abs(pos[:, None] - pos[None, :]) <= rng.integers(1, 8)
    flip = np.triu(rng.random((n, n)) < 0.08, 1)
    adj = adj ^ (flip | flip.T)
    np.fill_diagonal(adj, False)
    found, truncated = _maximal_cliques_in_order(adj, 10_000)
    assert not truncated
    want = {frozenset(c) for c in nx.find_cliques(nx.from_numpy_array(adj.astype(int)))}
    assert {frozenset(c.tolist()) for c in found} == want
    assert len(found) == len(want)
    firsts = [int(c.min()) for c in found]
    assert firsts == sorted(firsts)  # grouped by their best-placed member


def test_tango_limits_in_parts_equal_the_root_finder(monkeypatch: pytest.MonkeyPatch) -> None:
    """Issue #32: distinct tables solved a part at a time (part size shrunk to 7) give the
    same limits as all at once, within the root finder's tolerance, and brentq's (the
    reference: scipy.optimize.brentq on Tango's score, _tango_by_brentq above)."""
    from engine.stats import _intervals

    rng = np.random.default_rng(23)
    n = rng.choice([3, 40, 900], size=60).astype(float)
    b = np.floor(rng.uniform(0, 0.6, 60) * n)
    c = np.floor(rng.uniform(0, 1, 60) * (n - b))
    whole = paired_binary_ci(b, c, n)
    monkeypatch.setattr(_intervals, "_TANGO_TABLES", 7)
    parts = paired_binary_ci(b, c, n)
    for got, want in zip(parts, whole, strict=True):
        np.testing.assert_allclose(got, want, rtol=1e-12, atol=1e-15)
    for i in range(0, 60, 6):
        ref = _tango_by_brentq(b[i], c[i], n[i], Z95)
        np.testing.assert_allclose([parts[0][i], parts[1][i]], ref, rtol=1e-9, atol=1e-12)
