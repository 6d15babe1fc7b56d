"""The model-based design effect 1 + (m̄ − 1) · ICC and the one-way ICC(1)
(engine/stats/_design_effect.py), with its place beside the empirical design effect of
compare_ab and ``sigboard compare``'s JSON.

pingouin is not in the project's environment, so ICC(1) is checked against Shrout & Fleiss
(1979)'s published example, a one-way ANOVA computed by hand below, and statsmodels'
REML variance components (which equal the ANOVA estimates for balanced clusters when the
between-cluster estimate is positive).
"""

from __future__ import annotations

import math
import warnings

import numpy as np
import pandas as pd
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from engine.cli._json import ab_json
from engine.stats._ab import compare_ab
from engine.stats._clusters import ClusterDesign, clustered_mean_se
from engine.stats._design_effect import (
    design_effect,
    icc_oneway,
    kish_mean_size,
    model_design_effect,
)

# Shrout & Fleiss (1979), "Intraclass correlations: uses in assessing rater reliability",
# Psychol Bull 86:420–428, Table 2: 6 targets rated by 4 judges. Their Table 3 gives
# BMS = 11.24, WMS = 6.26 and Table 4 ICC(1,1) = .17 (one-way random effects).
SHROUT_FLEISS = np.array([[9, 2, 5, 8], [6, 1, 3, 2], [8, 4, 6, 8],
                          [7, 1, 2, 6], [10, 5, 6, 9], [6, 2, 4, 7]], dtype=float)


def test_kish_design_effect_equal_and_unequal_sizes() -> None:
    # Kish (1965): 1 + (m − 1) ρ; m = 5, ρ = 0.2 → 1.8.
    assert design_effect(5, 0.2) == pytest.approx(1.8)
    assert design_effect(1, 0.7) == pytest.approx(1.0)  # singletons: no clustering
    # Unequal sizes: m̄ = Σm²/Σm; sizes 2 and 8 → (4 + 64)/10 = 6.8 → 1 + 5.8 · 0.2 = 2.16.
    assert design_effect([2, 8], 0.2) == pytest.approx(2.16)
    # Eldridge, Ashby & Kerry (2006), Int J Epidemiol 35:1292, eq. for unequal sizes:
    # DE = 1 + ((cv² + 1) m_mean − 1) ρ with cv = SD/mean of the sizes (population SD).
    sizes = np.array([3, 5, 5, 9, 12, 2])
    cv = sizes.std() / sizes.mean()
    eldridge = 1 + ((cv**2 + 1) * sizes.mean() - 1) * 0.05
    assert design_effect(sizes, 0.05) == pytest.approx(eldridge, rel=1e-12)
    assert kish_mean_size(sizes) == pytest.approx((sizes**2).sum() / sizes.sum())


def test_icc1_shrout_fleiss_table() -> None:
    y = SHROUT_FLEISS.ravel()
    codes = np.repeat(np.arange(6), 4)
    icc = icc_oneway(y, codes)
    assert icc == pytest.approx((11.24 - 6.26) / (11.24 + 3 * 6.26), abs=5e-4)  # their MS
    assert round(icc, 2) == 0.17  # their Table 4
    res = model_design_effect(y, codes)
    assert res.mean_size == 4 and res.n_clusters == 6
    assert res.design_effect == pytest.approx(1 + 3 * icc)


def test_icc1_unequal_sizes_by_hand() -> None:
    # One-way ANOVA by hand (Donner 1986, Int Stat Rev 54:67, the ANOVA estimator):
    # clusters {1, 2, 3}, {4, 6}, {8}; N = 6, G = 3; cluster means 2, 5, 8; grand 4.
    # SSB = 3·(2−4)² + 2·(5−4)² + 1·(8−4)² = 12 + 2 + 16 = 30, MSB = 30 / 2 = 15;
    # SSW = (1 + 0 + 1) + (1 + 1) + 0 = 4, MSW = 4 / 3;
    # n₀ = (6 − (9 + 4 + 1)/6) / 2 = (6 − 7/3)/2 = 11/6;
    # ICC = (15 − 4/3) / (15 + (11/6 − 1) · 4/3) = (41/3) / (15 + 10/9) = 123/145.
    y = [1, 2, 3, 4, 6, 8]
    codes = ["a", "a", "a", "b", "b", "c"]
    assert icc_oneway(y, codes) == pytest.approx(123 / 145, rel=1e-12)
    res = model_design_effect(y, codes)
    assert res.mean_size == pytest.approx(14 / 6)
    assert res.design_effect == pytest.approx(1 + (14 / 6 - 1) * 123 / 145)


def test_icc1_matches_statsmodels_reml_on_balanced_clusters() -> None:
    from statsmodels.regression.mixed_linear_model import MixedLM

    rng = np.random.default_rng(11)
    codes = np.repeat(np.arange(40), 6)
    y = rng.normal(0, np.sqrt(0.3), 40)[codes] + rng.normal(0, np.sqrt(0.7), codes.size)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        fit = MixedLM(y, np.ones((y.size, 1)), groups=codes).fit(reml=True)
    between, within = float(np.asarray(fit.cov_re)[0, 0]), float(fit.scale)
    assert between > 0
    assert icc_oneway(y, codes) == pytest.approx(between / (between + within), abs=1e-5)


def test_constant_values_give_nan_and_bad_input_names_the_argument() -> None:
    res = model_design_effect([1.0] * 6, [0, 0, 1, 1, 2, 2])
    assert math.isnan(res.icc) and math.isnan(res.design_effect)
    with pytest.raises(ValueError, match="icc: an intraclass correlation must be in"):
        design_effect(5, 1.5)
    with pytest.raises(ValueError, match="sizes: every cluster size must be a positive"):
        design_effect([3, 0], 0.1)
    with pytest.raises(ValueError, match="one cluster code per value"):
        icc_oneway([1.0, 2.0], [0])
    with pytest.raises(ValueError, match="at least 2 clusters"):
        icc_oneway([1.0, 2.0, 3.0], [0, 0, 0])
    with pytest.raises(ValueError, match="value 1 is nan"):
        icc_oneway([1.0, math.nan, 3.0, 4.0], [0, 0, 1, 1])


@settings(max_examples=100)
@given(n=st.lists(st.integers(1, 20), min_size=1, max_size=30),
       icc=st.floats(0.0, 1.0, allow_nan=False))
def test_design_effect_is_at_least_the_mean_size_formula(n: list[int], icc: float) -> None:
    # Σm²/Σm ≥ mean(m) (Cauchy–Schwarz), so unequal sizes never lower the design effect
    sizes = np.array(n, dtype=float)
    assert design_effect(sizes, icc) >= 1 + (sizes.mean() - 1) * icc - 1e-12


@pytest.mark.slow
def test_calibration_known_icc_by_simulation() -> None:
    # Clustered normal data y_ij = u_j + e_ij, Var u = 0.2, Var e = 0.8 (ICC 0.2), 200
    # clusters of m = 5: the variance of the mean over replications, over the independent-
    # examples variance s²/n, is 1 + 4 · 0.2 = 1.8 (Kish 1965). 10,000 replications (in
    # blocks, to bound memory): the variance of the mean has relative MC SE
    # √(2/9999) ≈ 1.4 %, i.e. ±0.025 on 1.8; the test allows 3 MC SEs.
    rng = np.random.default_rng(20261203)
    reps, block, g, m = 10_000, 1_000, 200, 5
    codes = np.repeat(np.arange(g), m)
    design = ClusterDesign.from_codes(codes)
    means, naive, model, empirical = [], [], [], []
    for _ in range(reps // block):
        y = rng.normal(0.0, np.sqrt(0.2), (block, g))[:, codes] + rng.normal(
            0.0, np.sqrt(0.8), (block, g * m))
        iid = y.var(axis=1, ddof=1) / (g * m)
        means.append(y.mean(axis=1))
        naive.append(iid)
        model.extend(model_design_effect(row, codes).design_effect for row in y[:30])
        empirical.append(clustered_mean_se(y[:30], design) ** 2 / iid[:30])
    ratio = np.concatenate(means).var(ddof=1) / np.concatenate(naive).mean()
    assert abs(ratio - 1.8) < 3 * 1.8 * np.sqrt(2 / (reps - 1))
    # The model-based estimate of each of 300 replications is centred on the same 1.8:
    # its SD over replications is ≈ 0.12 (ICC(1) SE ≈ 0.03 for 200 clusters of 5), so the
    # mean of 300 has MC SE ≈ 0.007; 0.03 allows 4 of them.
    assert np.mean(model) == pytest.approx(1.8, abs=0.03)
    # and so is the empirical (CR2 over independent) design effect of the same replications
    assert np.concatenate(empirical).mean() == pytest.approx(1.8, abs=0.03)


def _clustered_pair(seed: int = 3) -> pd.DataFrame:
    """Two systems on 60 examples in 12 families of 5; the candidate's gain varies by family."""
    rng = np.random.default_rng(seed)
    fam = np.repeat(np.arange(12), 5)
    base = rng.normal(0, 1, 60)
    cand = base + 0.2 + rng.normal(0, 0.5, 12)[fam] + rng.normal(0, 0.5, 60)
    ids = [f"e{i:02d}" for i in range(60)]
    return pd.DataFrame({"benchmark": "b", "metric": "m", "system": ["A"] * 60 + ["B"] * 60,
                         "example_id": ids * 2, "value": np.concatenate([base, cand]),
                         "family": [f"f{f:02d}" for f in fam] * 2})


def test_compare_ab_reports_the_model_figure_beside_the_empirical_one() -> None:
    df = _clustered_pair()
    res = compare_ab(df, baseline="A", candidate="B", cluster="family")
    assert res.clusters is not None and res.cluster_icc is not None
    wide = df.pivot_table(index=["example_id", "family"], columns="system", values="value")
    d = (wide["B"] - wide["A"]).to_numpy()
    fam = wide.index.get_level_values("family").to_numpy()
    ref = model_design_effect(d, fam)
    assert res.cluster_icc.icc == pytest.approx(ref.icc, rel=1e-12)
    assert res.cluster_icc.design_effect == pytest.approx(ref.design_effect, rel=1e-12)
    assert res.cluster_icc.mean_size == 5 and res.cluster_icc.n_clusters == res.clusters[0]
    out = ab_json(res)
    assert out["design_effect"] == res.clusters[1]  # the empirical one, unchanged
    assert out["icc"] == pytest.approx(ref.icc)
    assert out["design_effect_model"] == pytest.approx(ref.design_effect)
    assert out["cluster_mean_size"] == 5
    plain = ab_json(compare_ab(df, baseline="A", candidate="B"))
    assert "icc" not in plain and "design_effect_model" not in plain  # keys with clusters only
    assert plain["design_effect"] is None
