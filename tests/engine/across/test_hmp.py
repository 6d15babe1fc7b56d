"""Harmonic mean p-value: R harmonicmeanp 3.0.1 vignette values, Landau constants, properties.

Reference values are the printed outputs of the harmonicmeanp 3.0.1 vignette
("harmonicmeanp tutorial", D. J. Wilson, 16 January 2024; CRAN mirror
github.com/cran/harmonicmeanp, inst/doc/harmonicmeanp.html), whose ``p.hmp``
source (R/hmp.R) this module follows: ``w.sum * pEstable(w.sum / HMP,
location = log(L) + O.874, logscale = log(pi/2))``.
"""

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from scipy import integrate, special, stats

from engine.across._hmp import (
    LANDAU_LOCATION_OFFSET,
    LANDAU_SCALE,
    harmonic_mean_p,
    hmp_rows,
    hmp_stat,
    hmp_threshold,
)

# Fiddler crabs (vignette "Example 2. Model-averaging in Regression"): Uca data as printed there.
CARAPACE = np.array([1.02, 1.06, 0.96, 0.92, 0.89])
PROPODUS = np.array([1.38, 1.41, 1.36, 1.22, 1.13])
NODE_A = np.array([0, 0, 1, 1, 1.0])  # informative.partitions(tree): 1 = not a descendant of A
NODE_B = np.array([1, 1, 0, 0, 1.0])
# vignette: pairwise.p(response="log.propodus.length", primary="log.carapace.breadth", data=Uca)
P_CARAPACE = np.array([0.002120586, 0.001897942, 0.0001486883, 0.01350417])
# vignette: (p.adj = unlist(p)/w) with w = 1/12 for node.A and node.B, printed; raw p = p.adj / 12
P_NODE_A = np.array([0.64798554, 0.57382974, 0.04067963, 7.02317893]) / 12
P_NODE_B = np.array([10.3740094, 0.3084609, 0.3220758, 2.9282418]) / 12
# vignette, "Optimizing the Weights": (w = wfunc(mu, xi, lambda, 0.05)), printed; sum 0.9999987
W_OPT = np.array([2.074948e-01, 1.874035e-02, 8.617939e-02, 1.991202e-04,
                  2.074948e-01, 1.874035e-02, 7.693724e-02, 7.436276e-06,
                  2.074948e-01, 8.617939e-02, 7.693724e-02, 1.359365e-02])


def _lr_pvalue(primary, others):
    """R's drop1(lm, test="Chisq"): n·log(RSS_without / RSS_with) against chi-squared(1)."""
    def rss(cols):
        x = np.column_stack([np.ones(5), *cols])
        resid = PROPODUS - x @ np.linalg.lstsq(x, PROPODUS, rcond=None)[0]
        return resid @ resid
    return stats.chi2.sf(5 * np.log(rss(others) / rss([*others, primary])), 1)


def test_landau_location_offset_is_harmonicmeanp_O874():
    # R/hmp.R: O.874 = 1 + digamma(1) - log(2/pi); Wilson (2019) quotes 0.874
    assert abs(LANDAU_LOCATION_OFFSET - 0.874367040387922) < 1e-15
    assert abs(LANDAU_LOCATION_OFFSET - (1 + special.digamma(1) - np.log(2 / np.pi))) < 1e-15
    assert abs(LANDAU_SCALE - np.pi / 2) < 1e-15


def test_scipy_landau_with_harmonicmeanp_parameters_is_the_landau_density():
    # Landau (1944): p(x) = 1/π ∫₀^∞ exp(−t log t − x t) sin(π t) dt, by quadrature. R's
    # harmonicmeanp::dLandau gives it with its defaults mu = log(pi/2), sigma = pi/2 (FMStable,
    # S0 parametrisation); scipy's landau(loc, scale) takes the same two numbers (scipy docs:
    # loc = mu + 2c/pi·log c for Wikipedia's (mu, c) = (0, pi/2)). So p.hmp's location
    # log L + O.874 and log-scale log(pi/2) are scipy's loc and scale as they stand.
    for x in (-1.0, 0.0, 2.0, 10.0):
        value, _ = integrate.quad(lambda t, x=x: np.exp(-t * np.log(t) - x * t) * np.sin(np.pi * t),
                                  0, np.inf, limit=200)
        assert stats.landau.pdf(x, loc=np.log(np.pi / 2), scale=LANDAU_SCALE) == \
            pytest.approx(value / np.pi, rel=1e-6)


def test_crab_pvalues_reproduced_from_the_vignette_data():
    # the vignette's four p-values for log.carapace.breadth, from its printed Uca data
    ours = [_lr_pvalue(CARAPACE, o) for o in ([], [NODE_A], [NODE_B], [NODE_A, NODE_B])]
    np.testing.assert_allclose(ours, P_CARAPACE, rtol=1e-6)
    ours_a = [_lr_pvalue(NODE_A, o) for o in ([], [CARAPACE], [NODE_B], [CARAPACE, NODE_B])]
    np.testing.assert_allclose(ours_a, P_NODE_A, rtol=1e-6)


def test_crab_body_size_combined():
    # vignette: (p.comb = p.hmp(p, w, L)) 0.0005201115; (p.comb.adj = p.comb/w.comb) 0.001560334
    res = harmonic_mean_p(P_CARAPACE, np.full(4, 1 / 12), L=12)
    assert res.pvalue == pytest.approx(0.0005201115, rel=2e-6)
    assert res.pvalue_adj == pytest.approx(0.001560334, rel=2e-6)
    assert res.weight == pytest.approx(1 / 3)
    assert res.statistic == pytest.approx(hmp_stat(P_CARAPACE))


@pytest.mark.parametrize(("p", "expected"), [
    # vignette: (p.HMP.adj = Vectorize(p.hmp)(p, w, L)/w), one test at a time, L = 12
    (P_CARAPACE, [0.0299580, 0.0264162, 0.0018127, 0.3170993]),
    (P_NODE_A, [0.93548337, 0.91020731, 0.05190468, 0.99955228]),
    (P_NODE_B, [0.9996668, 0.6545879, 0.6782750, 0.9985969]),
])
def test_crab_single_tests_adjusted(p, expected):
    ours = [harmonic_mean_p([pi], [1 / 12], L=12).pvalue_adj for pi in p]
    np.testing.assert_allclose(ours, expected, rtol=2e-5)


@pytest.mark.parametrize(("p", "expected"), [
    (P_NODE_A, 0.04440289),   # vignette: p.hmp(p, w, L)/sum(w) for node.A
    (P_NODE_B, 0.2794133),    # ... for node.B
    (np.concatenate([P_CARAPACE, P_NODE_A, P_NODE_B]), 0.001480099),  # headline, unweighted
])
def test_crab_regressors_combined(p, expected):
    assert harmonic_mean_p(p, np.full(len(p), 1 / 12), L=12).pvalue_adj == \
        pytest.approx(expected, rel=1e-5)


@pytest.mark.parametrize(("part", "expected"), [
    # vignette "wvsunw": c("weighted" = p.hmp(p[incl], w[incl], L)/sum(w[incl]), ...)
    (slice(0, 4), 0.001474201), (slice(4, 8), 0.04652860),
    (slice(8, 12), 0.2950408), (slice(0, 12), 0.001405027),
])
def test_crab_weighted(part, expected):
    p = np.concatenate([P_CARAPACE, P_NODE_A, P_NODE_B])
    assert harmonic_mean_p(p[part], W_OPT[part], L=12).pvalue_adj == pytest.approx(expected, rel=1e-5)


def test_gwas_chromosome_12_headline():
    # vignette Example 1: L = 6524432 tests genome-wide, the 312457 SNPs of chromosome 12 with
    # HMP 0.0008734522; any p-values with that weighted HMP give the same p.hmp
    big_l, n = 6524432, 312457
    w_r = n / big_l
    res = harmonic_mean_p(np.full(n, 0.0008734522), np.full(n, 1 / big_l), L=big_l)
    assert res.statistic == pytest.approx(0.0008734522, rel=1e-9)
    assert res.pvalue == pytest.approx(0.001343897, rel=1e-6)     # p.hmp(gwas$p[R], gwas$w[R], L)
    assert 0.05 * w_r == pytest.approx(0.002394515, rel=1e-6)     # w.R * alpha
    assert hmp_threshold(0.05, big_l) == pytest.approx(0.02593083, rel=1e-6)   # qharmonicmeanp
    assert hmp_threshold(0.05, big_l) * w_r == pytest.approx(0.001241835, rel=1e-6)


def test_threshold_and_pvalue_agree():
    # p.hmp's documentation: p.hmp ≤ alpha·w_R ⇔ HMP ≤ qharmonicmeanp(alpha, L)·w_R
    big_l, w_r = 200, 0.25
    threshold = hmp_threshold(0.05, big_l) * w_r
    for statistic in (threshold * 0.99, threshold * 1.01):
        n = int(w_r * big_l)
        res = harmonic_mean_p(np.full(n, statistic), np.full(n, 1 / big_l), L=big_l)
        assert (res.pvalue <= 0.05 * w_r) == (statistic <= threshold)


def test_stand_alone_test():
    # R: multilevel=FALSE is pEstable(1/HMP, location = log(length(p)) + O.874)
    p = np.array([0.01, 0.2, 0.5])
    expected = stats.landau.sf(1 / hmp_stat(p), loc=np.log(3) + LANDAU_LOCATION_OFFSET,
                               scale=np.pi / 2)
    res = harmonic_mean_p(p, multilevel=False)
    assert res.pvalue == pytest.approx(expected)
    assert harmonic_mean_p(p, [0.2, 0.2, 0.2], multilevel=False).pvalue == pytest.approx(expected)


def test_rows_match_one_at_a_time():
    rng = np.random.default_rng(1)
    p = rng.uniform(size=(30, 5)) ** 3
    p[rng.uniform(size=p.shape) < 0.2] = np.nan
    w = rng.uniform(size=p.shape) / 60
    statistic, pvalue, adjusted, weight = hmp_rows(p, w, L=150)
    for i in range(len(p)):
        keep = ~np.isnan(p[i])
        if not keep.any():
            assert np.isnan(pvalue[i])
            continue
        res = harmonic_mean_p(p[i, keep], w[i, keep], L=150)
        assert (statistic[i], pvalue[i], adjusted[i], weight[i]) == pytest.approx(
            (res.statistic, res.pvalue, res.pvalue_adj, res.weight))


def test_null_calibration():
    # all L p-values uniform: P(p_hmp <= alpha) ≈ alpha (asymptotically exact); 20000 families
    rng = np.random.default_rng(7)
    p = rng.uniform(size=(20000, 100))
    _, pvalue, _, _ = hmp_rows(p, np.full(p.shape, 1 / 100), L=100)
    rate = (pvalue <= 0.05).mean()
    assert abs(rate - 0.05) < 3 * np.sqrt(0.05 * 0.95 / 20000) + 0.005


@pytest.mark.parametrize(("kwargs", "match"), [
    ({"p": [1.5]}, "p: p-values must lie in"),
    ({"p": [0.1, 0.2], "w": [0.7, 0.7]}, "w: the weights of a subset"),
    ({"p": [0.1, 0.2], "w": [-0.1, 0.2]}, "w: weights must be finite"),
    ({"p": [0.1, 0.2], "L": 1}, "L: must be a whole number"),
    ({"p": []}, "p: must be a non-empty"),
])
def test_bad_input(kwargs, match):
    p = kwargs.pop("p")
    with pytest.raises(ValueError, match=match):
        harmonic_mean_p(p, **kwargs)


def test_nan_and_zero():
    assert np.isnan(harmonic_mean_p([0.1, np.nan], L=2).pvalue)   # R: NA in, NA out
    assert harmonic_mean_p([0.0, 0.5], L=2).pvalue == 0.0


pvalues = st.lists(st.floats(1e-12, 1.0), min_size=1, max_size=30)


@settings(max_examples=80)
@given(pvalues)
def test_equal_weight_statistic_between_min_p_and_k_min_p(p):
    # HMP = K / Σ 1/p_i: at least min p (all equal) and at most K·min p (one term dominates)
    statistic = harmonic_mean_p(p).statistic
    k, low = len(p), min(p)
    assert low * (1 - 1e-12) <= statistic <= k * low * (1 + 1e-12)


@settings(max_examples=60)
@given(pvalues, st.integers(0, 1000))
def test_properties(p, extra):
    big_l = len(p) + extra
    res = harmonic_mean_p(p, L=big_l)
    assert 0.0 <= res.pvalue_adj <= 1.0
    assert res.pvalue == pytest.approx(res.pvalue_adj * res.weight)
    # order of the p-values does not matter; lowering one p-value never raises the result
    assert harmonic_mean_p(p[::-1], L=big_l).pvalue == pytest.approx(res.pvalue)
    lower = [p[0] / 2, *p[1:]]
    assert harmonic_mean_p(lower, L=big_l).pvalue <= res.pvalue * (1 + 1e-12)
    # multilevel (Wilson 2019): a superset of a significant set is significant
    part = harmonic_mean_p(p[:1], L=big_l)
    if part.pvalue_adj < 0.05:
        assert res.pvalue_adj < 0.05
