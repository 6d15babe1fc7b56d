"""Property tests: every vectorised all-pairs test equals the one-pair reference implementation
in scipy / statsmodels, for all three alternatives, on random matrices (hypothesis).

References (the per-pair implementations the kernels must reproduce):
McNemar / sign  – scipy.stats.binomtest on the discordant counts (exact, p0 = 1/2)
paired t        – scipy.stats.ttest_rel
Welch's t       – scipy.stats.ttest_ind(equal_var=False)
two-proportion  – statsmodels.stats.proportion.proportions_ztest (pooled variance)
Wilcoxon        – scipy.stats.wilcoxon on the paired differences
permutation     – scipy.stats.permutation_test (exact: every sign flip / every split)
"""

from __future__ import annotations

import itertools
import warnings

import numpy as np
import pandas as pd
import pytest
from hypothesis import HealthCheck, assume, given, settings
from hypothesis import strategies as st
from scipy import stats
from statsmodels.stats.proportion import proportions_ztest

from engine._contract import MetricSpec
from engine._matrix import ScoreMatrix as ScoreMatrix
from engine._options import CORRECTIONS
from engine.stats import _kernels as _kernels
from engine.stats._pairwise import _adjust, pairwise_tests

SETTINGS = settings(max_examples=40,
                    suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large])
ALTERNATIVES = ("two-sided", "greater", "less")
SM_ALTERNATIVE = {"two-sided": "two-sided", "greater": "larger", "less": "smaller"}
RTOL, ATOL = 1e-7, 1e-12


def to_matrix(x: np.ndarray, *, higher_is_better: bool = True, shared: bool = True) -> ScoreMatrix:
    """The ScoreMatrix of a systems × examples array (NaN = example not scored);
    ``shared=False`` gives each system its own example ids (pairing "none")."""
    spec = MetricSpec(higher_is_better=higher_is_better)
    if not shared:  # each system on its own examples: block diagonal, NaN elsewhere
        s, n = x.shape
        wide = np.full((s, s * n), np.nan)
        for i in range(s):
            wide[i, i * n:(i + 1) * n] = x[i]
        keep = ~np.isnan(wide).all(axis=0)
        x = wide[:, keep]
    return ScoreMatrix.from_array(x, benchmark="b", metric="m", spec=spec)


@st.composite
def matrices(draw: st.DrawFn, kind: str | None = None, min_examples: int = 3,
             max_examples: int = 14, max_systems: int = 5) -> np.ndarray:
    """A systems × examples array: binary, on a coarse grid (many ties) or continuous."""
    s = draw(st.integers(2, max_systems))
    n = draw(st.integers(min_examples, max_examples))
    kind = kind or draw(st.sampled_from(["binary", "grid", "continuous"]))
    if kind == "normal":  # continuous without ties or zeros (scipy's exact Wilcoxon path)
        seed = draw(st.integers(0, 2**32 - 1))
        return np.random.default_rng(seed).normal(size=(s, n)).round(6)
    if kind == "binary":
        elements = st.sampled_from([0.0, 1.0])
    elif kind == "grid":  # multiples of 1/4: exact in float64, many ties
        elements = st.integers(-8, 8).map(lambda v: v / 4)
    else:
        elements = st.floats(-100, 100, allow_nan=False, allow_infinity=False, width=32).map(float)
    values = draw(st.lists(elements, min_size=s * n, max_size=s * n))
    return np.asarray(values, dtype=float).reshape(s, n)


def _pairs(s: int) -> list[tuple[int, int]]:
    return list(itertools.combinations(range(s), 2))


def _close(actual: float, expected: float) -> bool:
    return bool(np.isclose(actual, expected, rtol=RTOL, atol=ATOL))


# ---------------------------------------------------------------- exact McNemar / sign


@pytest.mark.slow
@SETTINGS
@given(x=matrices(kind="binary"), alternative=st.sampled_from(ALTERNATIVES))
def test_mcnemar_equals_binomtest(x: np.ndarray, alternative: str) -> None:
    m = to_matrix(x)
    res = pairwise_tests(m, alternative=alternative, correction="none")
    assert res.test == "mcnemar"
    v = m.values
    for row, (i, j) in zip(res.table.itertuples(), _pairs(len(v)), strict=True):
        b = int(((v[i] == 1) & (v[j] == 0)).sum())
        c = int(((v[i] == 0) & (v[j] == 1)).sum())
        assert (row.wins_a, row.wins_b) == (b, c)
        expected = stats.binomtest(b, b + c, 0.5, alternative=alternative).pvalue if b + c else 1.0
        assert _close(row.pvalue, expected), (b, c, row.pvalue, expected)
        assert row.statistic == min(b, c)


@pytest.mark.slow
@SETTINGS
@given(x=matrices(kind="grid"), alternative=st.sampled_from(ALTERNATIVES))
def test_sign_test_equals_binomtest(x: np.ndarray, alternative: str) -> None:
    m = to_matrix(x)
    res = pairwise_tests(m, test="sign", alternative=alternative, correction="none")
    v = m.values
    for row, (i, j) in zip(res.table.itertuples(), _pairs(len(v)), strict=True):
        b, c = int((v[i] > v[j]).sum()), int((v[i] < v[j]).sum())
        expected = stats.binomtest(b, b + c, 0.5, alternative=alternative).pvalue if b + c else 1.0
        assert _close(row.pvalue, expected)


@SETTINGS
@given(b=st.integers(0, 300), c=st.integers(0, 300), alternative=st.sampled_from(ALTERNATIVES))
def test_exact_sign_kernel_equals_binomtest(b: int, c: int, alternative: str) -> None:
    p = _kernels.exact_sign_pvalues(np.array([b]), np.array([c]), alternative)[0]
    expected = stats.binomtest(b, b + c, 0.5, alternative=alternative).pvalue if b + c else 1.0
    assert np.isclose(p, expected, rtol=1e-9, atol=1e-300)


# ---------------------------------------------------------------- t-tests, z-test


@pytest.mark.slow
@SETTINGS
@given(x=matrices(kind="continuous"), alternative=st.sampled_from(ALTERNATIVES),
       higher=st.booleans())
def test_paired_t_equals_ttest_rel(x: np.ndarray, alternative: str, higher: bool) -> None:
    m = to_matrix(x, higher_is_better=higher)
    assume(not m.binary)  # "continuous" draws can happen to be all 0/1
    v = m.values if higher else -m.values  # oriented: larger is better
    for i, j in _pairs(len(v)):  # away from the zero-variance degenerate case
        d = v[i] - v[j]
        assume(d.std() > 1e-3 * (v[i].std() + v[j].std()) and d.std() > 1e-6)
    res = pairwise_tests(m, alternative=alternative, correction="none")
    assert res.test == "paired-t"
    for row, (i, j) in zip(res.table.itertuples(), _pairs(len(v)), strict=True):
        ref = stats.ttest_rel(v[i], v[j], alternative=alternative)
        assert np.isclose(row.statistic, ref.statistic, rtol=1e-7)
        assert _close(row.pvalue, ref.pvalue)
        assert row.df == len(d) - 1
        d = v[i] - v[j]
        assert np.isclose(row.effect_size, d.mean() / d.std(ddof=1), rtol=1e-7)


@pytest.mark.slow
@SETTINGS
@given(x=matrices(kind="continuous", min_examples=4), holes=st.data(),
       alternative=st.sampled_from(ALTERNATIVES))
def test_welch_equals_ttest_ind(x: np.ndarray, holes: st.DataObject, alternative: str) -> None:
    # knock out some cells (every system keeps at least 2 scores): unpaired tests use all of them
    mask = np.asarray(holes.draw(st.lists(st.booleans(), min_size=x.size, max_size=x.size)))
    mask = mask.reshape(x.shape)
    mask[:, :2] = False
    x = np.where(mask, np.nan, x)
    m = to_matrix(x)
    v = m.values
    samples = [row[~np.isnan(row)] for row in v]
    assume(all(s.std() > 1e-6 for s in samples))
    assume(not m.binary)  # "continuous" draws can happen to be all 0/1
    # Welch's t by name: the automatic choice switches skewed samples to the bootstrap-t
    res = pairwise_tests(m, paired=False, alternative=alternative, correction="none", test="t")
    assert res.test == "t"
    for row, (i, j) in zip(res.table.itertuples(), _pairs(len(v)), strict=True):
        a, b = samples[i], samples[j]
        ref = stats.ttest_ind(a, b, equal_var=False, alternative=alternative)
        assert np.isclose(row.statistic, ref.statistic, rtol=1e-7)
        assert _close(row.pvalue, ref.pvalue)
        assert np.isclose(row.df, ref.df, rtol=1e-7)
        assert row.n == len(a) + len(b)
        na, nb = len(a), len(b)
        sp = np.sqrt(((na - 1) * a.var(ddof=1) + (nb - 1) * b.var(ddof=1)) / (na + nb - 2))
        assert np.isclose(row.effect_size, (a.mean() - b.mean()) / sp, rtol=1e-7)


@pytest.mark.slow
@SETTINGS
@given(x=matrices(kind="binary", min_examples=2, max_examples=30), holes=st.data(),
       alternative=st.sampled_from(ALTERNATIVES))
def test_z_equals_proportions_ztest(x: np.ndarray, holes: st.DataObject, alternative: str) -> None:
    mask = np.asarray(holes.draw(st.lists(st.booleans(), min_size=x.size, max_size=x.size)))
    mask = mask.reshape(x.shape)
    mask[:, 0] = False
    x = np.where(mask, np.nan, x)
    m = to_matrix(x)
    assume(m.binary)
    res = pairwise_tests(m, paired=False, alternative=alternative, correction="none")
    assert res.test == "z"
    v = m.values
    for row, (i, j) in zip(res.table.itertuples(), _pairs(len(v)), strict=True):
        a, b = v[i][~np.isnan(v[i])], v[j][~np.isnan(v[j])]
        count, nobs = np.array([a.sum(), b.sum()]), np.array([len(a), len(b)])
        pooled = count.sum() / nobs.sum()
        h = 2 * np.arcsin(np.sqrt(a.mean())) - 2 * np.arcsin(np.sqrt(b.mean()))
        assert np.isclose(row.effect_size, h, rtol=1e-9, atol=1e-12)
        if pooled in (0.0, 1.0):  # all successes or all failures: statsmodels divides 0 by 0
            assert row.statistic == 0.0
            if alternative == "two-sided":
                assert row.pvalue == 1.0
            continue
        z, p = proportions_ztest(count, nobs, alternative=SM_ALTERNATIVE[alternative])
        assert np.isclose(row.statistic, z, rtol=1e-9, atol=1e-12)
        assert _close(row.pvalue, p)


# ---------------------------------------------------------------- rank and resampling tests


# scipy's Wilcoxon: exact null distribution for n ≤ 50 without ties or zeros; with ties or
# zeros, exhaustive permutations for n ≤ 13 (slow: seconds per pair) and the tie-corrected
# normal approximation above. The properties cover the exact and the tie-corrected paths.
WILCOXON_DATA = st.one_of(matrices(kind="normal", min_examples=2, max_examples=30),
                          matrices(kind="grid", min_examples=14, max_examples=30),
                          matrices(kind="binary", min_examples=14, max_examples=30))


@pytest.mark.slow
@SETTINGS
@given(x=WILCOXON_DATA, alternative=st.sampled_from(ALTERNATIVES))
def test_wilcoxon_equals_scipy(x: np.ndarray, alternative: str) -> None:
    m = to_matrix(x)
    res = pairwise_tests(m, test="wilcoxon", alternative=alternative, correction="none")
    v = m.values
    for row, (i, j) in zip(res.table.itertuples(), _pairs(len(v)), strict=True):
        d = v[i] - v[j]
        if not d.any():
            assert (row.statistic, row.pvalue) == (0.0, 1.0)
            continue
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            ref = stats.wilcoxon(d, alternative=alternative)
        expected = 1.0 if np.isnan(ref.pvalue) else ref.pvalue
        assert _close(row.pvalue, expected), (d, row.pvalue, ref)
        assert np.isclose(row.statistic, ref.statistic)


def test_wilcoxon_small_sample_with_ties_equals_scipy() -> None:
    # n = 6: the pair (0, 1) has ties and a zero difference, where scipy's default enumerates
    # sign permutations (1.7 s for one pair of 12 here), so the engine asks scipy for its
    # normal approximation on such rows; the pairs with system 2 have neither (scipy: exact
    # null distribution). Each must match scipy on that pair alone with that method.
    x = np.array([[1.0, 2.0, 2.0, 3.0, 0.5, 4.0], [0.0, 1.0, 1.0, 3.0, 1.5, 1.0],
                  [0.11, 0.52, 0.93, 0.24, 0.75, 0.36]])
    for alternative in ALTERNATIVES:
        res = pairwise_tests(to_matrix(x), test="wilcoxon", alternative=alternative)
        for row, (i, j) in zip(res.table.itertuples(), _pairs(3), strict=True):
            method = "approx" if (i, j) == (0, 1) else "auto"
            ref = stats.wilcoxon(x[i] - x[j], alternative=alternative, method=method)
            assert _close(row.pvalue, ref.pvalue)
            assert row.statistic == ref.statistic


def _mean_diff(a: np.ndarray, b: np.ndarray, axis: int = -1) -> np.ndarray:
    return np.mean(a, axis=axis) - np.mean(b, axis=axis)


@pytest.mark.slow
@settings(SETTINGS, max_examples=30)
@given(x=matrices(kind="grid", min_examples=2, max_examples=8, max_systems=4),
       alternative=st.sampled_from(ALTERNATIVES))
def test_paired_permutation_equals_scipy_exact(x: np.ndarray, alternative: str) -> None:
    # n ≤ 8 examples → 2^n ≤ 256 sign patterns ≤ n_resamples: the engine enumerates them all
    m = to_matrix(x)
    res = pairwise_tests(m, test="permutation", alternative=alternative, correction="none")
    v = m.values
    for row, (i, j) in zip(res.table.itertuples(), _pairs(len(v)), strict=True):
        ref = stats.permutation_test((v[i], v[j]), _mean_diff, permutation_type="samples",
                                     vectorized=True, n_resamples=np.inf, alternative=alternative)
        assert _close(row.pvalue, ref.pvalue), (v[i], v[j], row.pvalue, ref.pvalue)
        assert np.isclose(row.statistic, (v[i] - v[j]).mean())


@pytest.mark.slow
@settings(SETTINGS, max_examples=30)
@given(x=matrices(kind="grid", min_examples=2, max_examples=5, max_systems=3),
       alternative=st.sampled_from(ALTERNATIVES))
def test_unpaired_permutation_equals_scipy_exact(x: np.ndarray, alternative: str) -> None:
    # at most C(10, 5) = 252 splits ≤ n_resamples: scipy enumerates them, no randomness.
    # Disjoint example ids: the data cannot be paired at all.
    m = to_matrix(x, shared=False)
    assert m.pairing == "none"
    res = pairwise_tests(m, test="permutation", paired=False, alternative=alternative,
                         correction="none")
    v = [row[~np.isnan(row)] for row in m.values]
    for row, (i, j) in zip(res.table.itertuples(), _pairs(len(v)), strict=True):
        ref = stats.permutation_test((v[i], v[j]), _mean_diff, permutation_type="independent",
                                     vectorized=True, n_resamples=np.inf, alternative=alternative)
        assert _close(row.pvalue, ref.pvalue)


# ---------------------------------------------------------------- invariances


PERMUTABLE = [("auto", True), ("auto", False), ("sign", True), ("mcnemar", True), ("wilcoxon", True)]


@pytest.mark.slow
@SETTINGS
@given(data=st.data(), test_paired=st.sampled_from(PERMUTABLE),
       correction=st.sampled_from(CORRECTIONS))
def test_permuting_systems_permutes_the_output(data: st.DataObject, test_paired: tuple[str, bool],
                                               correction: str) -> None:
    test, paired = test_paired
    kind = {"mcnemar": matrices(kind="binary"), "wilcoxon": WILCOXON_DATA}.get(test, matrices())
    m = to_matrix(data.draw(kind))
    assume(m.n_common >= 2)
    order = list(data.draw(st.permutations(m.systems)))
    base = pairwise_tests(m, test=test, paired=paired, correction=correction)
    perm = pairwise_tests(m, test=test, paired=paired, correction=correction, order=order)
    assert perm.systems == tuple(order)
    ref = {(r.system_a, r.system_b): r for r in base.table.itertuples()}
    signed = base.test in ("paired-t", "t", "z")
    for r in perm.table.itertuples():
        swapped = (r.system_a, r.system_b) not in ref
        b = ref[(r.system_b, r.system_a)] if swapped else ref[(r.system_a, r.system_b)]
        # rtol: the Gram-matrix products may round differently once rows are permuted
        assert np.isclose(r.pvalue, b.pvalue, rtol=1e-7, atol=1e-15)
        assert np.isclose(r.pvalue_adj, b.pvalue_adj, rtol=1e-7, atol=1e-15)
        assert r.significant == b.significant
        sign = -1 if swapped else 1
        if signed:
            assert np.isclose(r.statistic, sign * b.statistic, rtol=1e-7, atol=1e-12, equal_nan=True)
        assert np.isclose(r.effect_size, sign * b.effect_size, rtol=1e-7, atol=1e-12,
                          equal_nan=True)
        if base.paired:
            wins = (b.wins_b, b.wins_a) if swapped else (b.wins_a, b.wins_b)
            assert (r.wins_a, r.wins_b) == wins
    # the square views agree once the labels are aligned
    pd.testing.assert_frame_equal(perm.matrix().loc[list(m.systems), list(m.systems)],
                                  base.matrix(), check_exact=False, rtol=1e-7, atol=1e-15)


@SETTINGS
@given(p=st.lists(st.floats(0, 1), min_size=1, max_size=30),
       correction=st.sampled_from(CORRECTIONS), alpha=st.floats(0.001, 0.5))
def test_adjusted_p_is_at_least_raw_p(p: list[float], correction: str, alpha: float) -> None:
    raw = np.asarray(p)
    adj = _adjust(raw, correction, alpha)
    assert adj.shape == raw.shape
    assert (adj >= raw).all()
    assert (adj <= 1.0).all()
    # and the adjustment keeps the order of the raw p-values
    order = np.argsort(raw, kind="stable")
    assert (np.diff(adj[order]) >= -1e-12).all()


@pytest.mark.slow
@SETTINGS
@given(x=matrices(), correction=st.sampled_from(CORRECTIONS), alternative=st.sampled_from(ALTERNATIVES))
def test_adjusted_p_at_least_raw_in_tables(x: np.ndarray, correction: str, alternative: str) -> None:
    res = pairwise_tests(to_matrix(x), correction=correction, alternative=alternative)
    t = res.table
    assert (t["pvalue_adj"] >= t["pvalue"]).all()
    assert t["pvalue"].between(0, 1).all() and t["pvalue_adj"].between(0, 1).all()


# ---------------------------------------------------------------- win matrix


@SETTINGS
@given(x=matrices(max_examples=25, max_systems=6),
       levels=st.sampled_from([None, 2, 3, 4, 5, 50]))
def test_win_matrix_equals_brute_force(x: np.ndarray, levels: int | None) -> None:
    if levels is not None:  # exercise the binary / few-levels / many-levels code paths
        x = np.floor(np.abs(x) * 7) % levels
    s = len(x)
    expected = np.zeros((s, s), dtype=np.int64)
    for i in range(s):
        for j in range(s):
            expected[i, j] = sum(1 for a, b in zip(x[i], x[j], strict=True) if a > b)
    w = _kernels.win_matrix(x)
    np.testing.assert_array_equal(w, expected)
    assert w.dtype.kind == "i"
    np.testing.assert_array_equal(_kernels.win_matrix(x, binary=bool(np.isin(x, (0, 1)).all())),
                                  expected)


def test_win_matrix_empty() -> None:
    assert _kernels.win_matrix(np.zeros((3, 0))).shape == (3, 3)
    assert _kernels.win_matrix(np.zeros((0, 4))).shape == (0, 0)


@pytest.mark.parametrize("alternative", ALTERNATIVES)
def test_permutation_kernel_monte_carlo_is_close_to_exact(alternative: str) -> None:
    # 14 examples: exact with 2^14 = 16384 resamples, Monte Carlo with 4000; the MC p-value
    # (1 + hits) / (1 + R) is within a few binomial SEs of the exact one.
    rng = np.random.default_rng(11)
    diffs = rng.normal(0.3, 1.0, size=(5, 14))
    exact = _kernels.sign_flip_permutation(diffs, alternative, 2**14, rng)
    mc = _kernels.sign_flip_permutation(diffs, alternative, 4000, np.random.default_rng(5))
    se = np.sqrt(exact * (1 - exact) / 4000) + 1 / 4000
    assert (np.abs(mc - exact) <= 5 * se).all()
