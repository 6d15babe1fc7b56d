"""Fixed-effect pooling, Hedges' correction and the standardised means of Ackerman et al.
(2025, arXiv:2501.18243), §6.3.

References: Borenstein, Hedges, Higgins & Rothstein (2009), Introduction to
Meta-Analysis (Wiley): data set 1 (Table 14.1), Hedges' g and its variance
(ch. 4, eqs 4.18–4.24), the fixed-effect worked example (ch. 14) and Q / I²
(ch. 16), printed to 4 decimals; statsmodels ``combine_effects`` (fixed-effect
row) on random inputs; metafor ``escalc`` values quoted in statsmodels' own
test suite (statsmodels/stats/tests/test_meta.py, TestEffSmdMeta).
"""

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from statsmodels.stats.meta_analysis import combine_effects

from engine.across._meta import corrected_effect, fixed_effect, hedges_j, standardized_means

# Borenstein et al. (2009) Table 14.1: treated mean, SD, n; control mean, SD, n
BOOK = np.array([
    [94, 22, 60, 92, 20, 60],     # Carroll
    [98, 21, 65, 92, 22, 65],     # Grant
    [98, 28, 40, 88, 26, 40],     # Peck
    [94, 19, 200, 82, 17, 200],   # Donat
    [98, 21, 50, 88, 22, 45],     # Stewart
    [96, 21, 85, 92, 22, 85],     # Young
], dtype=float)


def _book_g_and_v():
    """Hedges' g and its variance by the book's formulas (eqs 4.18–4.24)."""
    m1, s1, n1, m2, s2, n2 = BOOK.T
    sp = np.sqrt(((n1 - 1) * s1 ** 2 + (n2 - 1) * s2 ** 2) / (n1 + n2 - 2))
    d = (m1 - m2) / sp
    vd = (n1 + n2) / (n1 * n2) + d ** 2 / (2 * (n1 + n2))
    j = 1 - 3 / (4 * (n1 + n2 - 2) - 1)
    return j * d, j ** 2 * vd


def test_book_effect_sizes():
    g, v = _book_g_and_v()
    # metafor escalc("SMD") yi, quoted in statsmodels' TestEffSmdMeta
    np.testing.assert_allclose(g, [0.09452415852032972, 0.27735586626551018, 0.36654442951591998,
                                   0.66438496832691396, 0.46180628128769841, 0.18516443739910043],
                               rtol=1e-4)
    # Borenstein Table 14.3 variances of g, 4 decimals
    np.testing.assert_allclose(v, [0.0329, 0.0307, 0.0499, 0.0105, 0.0427, 0.0234], atol=5e-5)
    # ours, for the studies with equal groups (corrected_effect assumes n₁ = n₂ = n/2)
    m1, s1, n1, m2, s2, n2 = BOOK.T
    sp = np.sqrt(((n1 - 1) * s1 ** 2 + (n2 - 1) * s2 ** 2) / (n1 + n2 - 2))
    equal = n1 == n2
    ours_g, ours_v = corrected_effect(((m1 - m2) / sp)[equal], (n1 + n2)[equal], "cohen_d")
    np.testing.assert_allclose(ours_g, g[equal], rtol=1e-12)
    np.testing.assert_allclose(ours_v, v[equal], rtol=1e-12)


def test_book_fixed_effect_summary():
    # Borenstein et al. (2009) ch. 14 (fixed effect, data set 1, Hedges' g): M = 0.4143,
    # SE = 0.0640, 95% CI 0.2889 to 0.5397, Z = 6.4739; ch. 16: Q = 12.0033, df = 5, I² = 58.34%
    g, v = _book_g_and_v()
    res = fixed_effect(g, v)
    assert float(res.effect) == pytest.approx(0.4143, abs=5e-5)
    assert float(res.se) == pytest.approx(0.0640, abs=5e-5)
    assert (float(res.ci_low), float(res.ci_high)) == pytest.approx((0.2889, 0.5397), abs=5e-5)
    assert float(res.z) == pytest.approx(6.4739, abs=5e-4)
    assert float(res.q) == pytest.approx(12.0033, abs=5e-4)
    assert float(res.df) == 5 and int(res.k) == 6
    assert float(res.i2) == pytest.approx(0.5834, abs=5e-5)


def test_against_statsmodels_combine_effects():
    rng = np.random.default_rng(3)
    effects = rng.normal(0.3, 0.4, size=(25, 6))
    variances = rng.uniform(0.01, 0.2, size=(25, 6))
    effects[rng.uniform(size=effects.shape) < 0.15] = np.nan
    ours = fixed_effect(effects, variances, alpha=0.1)
    for i in range(len(effects)):
        keep = ~np.isnan(effects[i])
        if keep.sum() < 2:
            continue
        sm = combine_effects(effects[i, keep], variances[i, keep], use_t=False, alpha=0.1)
        row = sm.summary_frame(alpha=0.1).loc["fixed effect"]
        assert (ours.effect[i], ours.se[i], ours.ci_low[i], ours.ci_high[i]) == pytest.approx(
            (row["eff"], row["sd_eff"], row["ci_low"], row["ci_upp"]), rel=1e-10)
        assert ours.q[i] == pytest.approx(sm.q, rel=1e-10)
        # statsmodels leaves (Q − df)/Q negative; I² is truncated at 0 (Higgins & Thompson 2002)
        assert ours.i2[i] == pytest.approx(max(sm.i2, 0.0), rel=1e-10, abs=1e-12)


def test_one_study_and_none():
    res = fixed_effect([[0.5, np.nan], [np.nan, np.nan]], [[0.04, np.nan], [np.nan, np.nan]])
    assert res.effect[0] == 0.5 and res.se[0] == pytest.approx(0.2) and res.i2[0] == 0.0
    assert np.isnan(res.effect[1]) and res.k[1] == 0


def test_hedges_j_approximates_the_exact_gamma_form():
    # Hedges (1981): J(df) = Γ(df/2) / (√(df/2) Γ((df−1)/2)); Borenstein's approximation is close
    from scipy.special import gammaln
    df = np.array([5.0, 10, 30, 100, 398])
    exact = np.exp(gammaln(df / 2) - gammaln((df - 1) / 2)) / np.sqrt(df / 2)
    np.testing.assert_allclose(hedges_j(df), exact, rtol=2e-3)


def test_paired_d_unbiased_with_its_variance_by_simulation():
    # d_z = mean/SD of n normal differences: J(n−1)·d_z is unbiased for δ and
    # its variance is the noncentral-t one (Hedges 1981); 40 000 draws
    rng = np.random.default_rng(11)
    n, delta = 30, 0.5
    x = rng.normal(delta, 1.0, size=(40000, n))
    d = x.mean(axis=1) / x.std(axis=1, ddof=1)
    g, v = corrected_effect(d, np.full(len(d), n), "paired_d")
    assert g.mean() == pytest.approx(delta, abs=0.005)
    assert g.var() == pytest.approx(np.median(v), rel=0.03)


def test_nonfinite_effects_drop_out():
    g, v = corrected_effect(np.array([np.inf, 0.3, 0.2]), np.array([10, 10, 10]),
                            np.array(["paired_d", "none", "cohen_h"], dtype=object))
    assert np.isnan(g[0]) and np.isnan(g[1]) and g[2] == 0.2 and v[2] == pytest.approx(0.4)


def _section_63_loop(means, sds, counts, weights):
    """Ackerman et al. (2025), §6.3, written out one benchmark and one system at a time."""
    systems, benchmarks = means.shape
    z = np.full(means.shape, np.nan)
    for j in range(benchmarks):
        have = [b for b in range(systems) if counts[b, j] > 0]
        pooled = np.sqrt(sum((counts[b, j] - 1) * sds[b, j] ** 2 for b in have)
                         / (sum(counts[b, j] for b in have) - len(have)))
        denom = pooled * np.sqrt(sum(1 / counts[b, j] for b in have))
        centre = np.mean([means[b, j] for b in have])
        for b in have:
            z[b, j] = (means[b, j] - centre) / denom
    score = []
    for b in range(systems):
        have = ~np.isnan(z[b])
        score.append(np.sum(weights[have] * z[b, have]) / weights[have].sum())
    return np.array(score), z


def test_standardized_means_against_a_loop():
    rng = np.random.default_rng(5)
    means = rng.normal(size=(6, 4))
    sds = rng.uniform(0.5, 2, size=(6, 4))
    counts = rng.integers(20, 200, size=(6, 4)).astype(float)
    counts[2, 1] = 0
    means[2, 1] = np.nan
    weights = np.array([1.0, 2.0, 1.0, 0.5])
    res = standardized_means(means, sds, counts, weights=weights)
    score, z = _section_63_loop(means, sds, counts, weights)
    np.testing.assert_allclose(res.score, score, rtol=1e-12)
    np.testing.assert_allclose(res.standardized, z, rtol=1e-12)
    assert (res.ci_low < res.score).all() and (res.score < res.ci_high).all()


@settings(max_examples=30)
@given(st.permutations(range(4)), st.permutations(range(5)))
def test_standardized_means_order_free(bench_order, system_order):
    rng = np.random.default_rng(9)
    means, sds = rng.normal(size=(5, 4)), rng.uniform(0.5, 2, size=(5, 4))
    counts = rng.integers(20, 90, size=(5, 4)).astype(float)
    w = np.array([1.0, 3.0, 2.0, 1.0])
    base = standardized_means(means, sds, counts, weights=w)
    b, s = list(bench_order), list(system_order)
    moved = standardized_means(means[s][:, b], sds[s][:, b], counts[s][:, b], weights=w[b])
    np.testing.assert_allclose(moved.score, base.score[s], rtol=1e-12)
    np.testing.assert_allclose(moved.ci_high, base.ci_high[s], rtol=1e-12)


@pytest.mark.parametrize(("call", "match"), [
    (lambda: fixed_effect([0.1], [0.0]), "variance: sampling variances must be positive"),
    (lambda: fixed_effect([0.1], [0.1, 0.2]), "variance: must have the shape"),
    (lambda: fixed_effect([0.1], [0.1], alpha=1.0), "alpha: must be strictly between"),
    (lambda: standardized_means(np.ones((2, 2)), np.ones((2, 2)), np.ones((2, 2)) * 5,
                                weights=[-1, 1]), "weights: need 2 non-negative"),
])
def test_bad_input(call, match):
    with pytest.raises(ValueError, match=match):
        call()
