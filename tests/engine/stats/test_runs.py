"""Run-aware inference (issue #16): variance components and the variance-components t.

Reference values: statsmodels ``anova_lm`` (sums of squares), scipy ``ttest_rel``
(the paired t on per-example means), statsmodels ``MixedLM`` (unbalanced runs),
statsmodels' cluster-robust OLS and a hand computation of Miller (2024), eq. 4.
"""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest
import statsmodels.api as sm
import statsmodels.formula.api as smf
from hypothesis import given, settings
from hypothesis import strategies as st
from scipy import stats
from statsmodels.regression.mixed_linear_model import MixedLM
from statsmodels.stats.anova import anova_lm

from engine.stats._runs import run_anova, run_cube, satterthwaite_t
from engine.stats._runs_pairs import cluster_variance, pair_run_test, runs_pairwise


def simulate_long(rng: np.random.Generator, systems: int = 3, runs: int = 4, examples: int = 30,
                  sd_run: float = 0.0, sd_inter: float = 0.3, shift: float = 0.0) -> pd.DataFrame:
    """y = example + system×example + run sweep + noise; the last system gets ``shift``."""
    ex = rng.normal(0, 1, examples)
    frames = []
    for s in range(systems):
        inter = rng.normal(0, sd_inter, examples)
        for r in range(runs):
            y = ex + inter + rng.normal(0, sd_run) + rng.normal(0, 1, examples)
            y = y + (shift if s == systems - 1 else 0.0)
            frames.append(pd.DataFrame({"benchmark": "b", "metric": "m", "system": f"s{s}",
                                        "example_id": [f"e{i:03d}" for i in range(examples)],
                                        "run": r, "value": y}))
    return pd.concat(frames, ignore_index=True)


def aa_pvalues(rng: np.random.Generator, reps: int, runs: int, examples: int, sd_run: float
               ) -> np.ndarray:
    """p-values of the run-aware test on ``reps`` A/A comparisons, all at once (pairs 2k, 2k+1)."""
    ex = rng.normal(0, 1, (reps, 1, 1, examples))
    y = ex + rng.normal(0, sd_run, (reps, 2, runs, 1)) + rng.normal(0, 1, (reps, 2, runs, examples))
    cube = y.reshape(2 * reps, runs, examples)
    a = run_anova(cube, np.full(2 * reps, runs))
    ia, ja = np.arange(0, 2 * reps, 2), np.arange(1, 2 * reps, 2)
    d = cube[ja].mean(axis=1) - cube[ia].mean(axis=1)
    res = satterthwaite_t(d.mean(axis=1), d.var(axis=1, ddof=1) / examples,
                          np.full(reps, examples - 1.0), a.ss_run[ia] + a.ss_run[ja],
                          a.df_run[ia] + a.df_run[ja], a.ss_resid[ia] + a.ss_resid[ja],
                          a.df_resid[ia] + a.df_resid[ja],
                          a.df_run[ia] * a.n[ia] + a.df_run[ja] * a.n[ja],
                          np.full(reps, 2.0 / runs), "two-sided")
    return res["pvalue"]


def test_run_anova_matches_statsmodels_anova_lm() -> None:
    # Reference: statsmodels anova_lm (type I) of value ~ system + system:run + system:example.
    df = simulate_long(np.random.default_rng(1), systems=2, runs=3, examples=8, sd_run=0.5)
    cube = run_cube(df)
    a = run_anova(cube.values, cube.runs)
    fit = smf.ols("value ~ C(system) + C(system):C(run) + C(system):C(example_id)", df).fit()
    table = anova_lm(fit, typ=1)
    assert a.ss_run.sum() == pytest.approx(table.loc["C(system):C(run)", "sum_sq"], rel=1e-9)
    assert a.df_run.sum() == table.loc["C(system):C(run)", "df"]
    assert a.ss_example.sum() == pytest.approx(table.loc["C(system):C(example_id)", "sum_sq"],
                                               rel=1e-9)
    assert a.ss_resid.sum() == pytest.approx(table.loc["Residual", "sum_sq"], rel=1e-9)
    assert a.df_resid.sum() == table.loc["Residual", "df"]


def test_single_run_is_scipy_paired_t_for_every_pair() -> None:
    # Reference: scipy.stats.ttest_rel, one pair at a time.
    df = simulate_long(np.random.default_rng(2), systems=4, runs=1).drop(columns="run")
    res = runs_pairwise(df)
    cube = run_cube(df)
    for row in res.table.itertuples():
        a = cube.values[cube.systems.index(row.system_a), 0]
        b = cube.values[cube.systems.index(row.system_b), 0]
        ref = stats.ttest_rel(a, b)
        assert row.test == "paired-t"
        assert row.statistic == pytest.approx(ref.statistic, rel=1e-9)
        assert row.pvalue == pytest.approx(ref.pvalue, rel=1e-9)


def test_all_pairs_path_equals_the_pair_test_loop() -> None:
    # Reference: pair_run_test called once per pair (the vectorised path must agree).
    df = simulate_long(np.random.default_rng(3), systems=4, runs=3, sd_run=0.4)
    res = runs_pairwise(df)
    cube = run_cube(df)
    assert res.pooled is not None and res.pooled.systems == cube.systems  # all 4 have runs
    for row in res.table.itertuples():
        pair = cube.restrict([row.system_b, row.system_a], cube.common())
        one = pair_run_test(pair, pooled=res.pooled)
        assert row.pvalue == pytest.approx(one.pvalue, rel=1e-9)
        assert row.df == pytest.approx(one.df, rel=1e-9)
        assert row.var_run == pytest.approx(one.var_run, rel=1e-9, abs=1e-15)
        assert (row.test == "vc-t") == (one.model == "vc-t")


def test_zero_run_component_is_paired_t_on_per_example_means() -> None:
    # When the ANOVA run component is truncated to 0 the test is scipy's ttest_rel on means.
    rng = np.random.default_rng(4)
    for _ in range(20):
        df = simulate_long(rng, systems=2, runs=3, sd_run=0.0)
        cube = run_cube(df)
        res = pair_run_test(cube.restrict(["s0", "s1"], cube.common()))
        if res.var_run == 0:
            m = np.nanmean(cube.values, axis=1)
            assert res.model == "paired-t"
            assert res.pvalue == pytest.approx(stats.ttest_rel(m[1], m[0]).pvalue, rel=1e-9)
            return
    pytest.fail("no replicate had a zero run component")


def test_sweeps_are_detected_and_named() -> None:
    df = simulate_long(np.random.default_rng(5), systems=2, runs=5, examples=200, sd_run=1.0)
    cube = run_cube(df)
    res = pair_run_test(cube.restrict(["s0", "s1"], cube.common()))
    assert res.model == "vc-t" and res.run_pvalue < 1e-6
    assert "seed sweeps" in res.reason and res.df < 20


@pytest.mark.slow
@pytest.mark.parametrize("sd_run", [0.0, 0.5])
def test_aa_false_alarms_at_most_alpha(sd_run: float) -> None:
    # Quick calibration (the full one: benchmarks/calibrate_runs.py): 2,000 A/A comparisons,
    # runs per example independent (sd_run 0) or seed sweeps (sd_run 0.5); MC SE ≈ 0.005.
    p = aa_pvalues(np.random.default_rng(6), 2000, runs=5, examples=100, sd_run=sd_run)
    assert (p < 0.05).mean() <= 0.05 + 3 * np.sqrt(0.05 * 0.95 / 2000)


def test_paired_t_alone_fails_under_sweeps() -> None:
    # Why the module exists: the paired t on per-example means ignores the sweep variance.
    rng = np.random.default_rng(7)
    y = rng.normal(0, 0.5, (500, 2, 5, 1)) + rng.normal(0, 1, (500, 2, 5, 100))
    d = y[:, 1].mean(axis=1) - y[:, 0].mean(axis=1)
    assert (stats.ttest_1samp(d, 0, axis=1).pvalue < 0.05).mean() > 0.3


def test_unbalanced_runs_fall_back_to_statsmodels_mixedlm() -> None:
    # Reference: statsmodels MixedLM(value ~ candidate, groups=example), REML.
    df = simulate_long(np.random.default_rng(8), systems=2, runs=3, examples=40)
    df = df.drop(index=df.index[[0, 5, 77]])
    cube = run_cube(df)
    res = pair_run_test(cube.restrict(["s0", "s1"], cube.common()))
    assert res.model.startswith("mixedlm") and not res.balanced
    exog = np.column_stack([np.ones(len(df)), (df["system"] == "s1").to_numpy(float)])
    fit = MixedLM(df["value"].to_numpy(), exog, groups=df["example_id"].to_numpy()).fit(reml=True)
    assert res.estimate == pytest.approx(fit.fe_params[1], rel=1e-6)
    if res.var_run == 0:
        assert res.se == pytest.approx(fit.bse_fe[1], rel=1e-6)


def test_cluster_variance_miller_hand_example_and_statsmodels() -> None:
    # Hand computation (Miller 2024, eq. 4): d = [1, 0, 1 | 0, 0 | 1, 1, 0], mean 0.5;
    # cluster sums of (d - 0.5): 0.5, -1, 0.5 → Σ² = 1.5; n² = 64; raw V = 1.5/64;
    # CR1 multiplies by G/(G-1) = 3/2 → V = 2.25/64, SE = 1.5/8 = 0.1875.
    d = np.array([1, 0, 1, 0, 0, 1, 1, 0], dtype=float)
    codes = np.array([0, 0, 0, 1, 1, 2, 2, 2])
    v, df = cluster_variance(d, codes)
    assert np.sqrt(v) == pytest.approx(0.1875, rel=1e-12) and df == 2
    raw = sm.OLS(d, np.ones(8)).fit(cov_type="cluster",
                                    cov_kwds={"groups": codes, "use_correction": False})
    assert raw.bse[0] ** 2 == pytest.approx(1.5 / 64, rel=1e-12)
    cr1 = sm.OLS(d, np.ones(8)).fit(cov_type="cluster", cov_kwds={"groups": codes})
    # statsmodels' default CR1 factor is G/(G-1) · (N-1)/(N-K); with one regressor (K = 1) the
    # second factor is 1, so it equals ours.
    assert cr1.bse[0] ** 2 == pytest.approx(v, rel=1e-12)


@pytest.mark.slow
@settings(max_examples=20)
@given(seed=st.integers(0, 10_000), flip=st.booleans())
def test_row_order_and_system_names_do_not_matter(seed: int, flip: bool) -> None:
    df = simulate_long(np.random.default_rng(seed), systems=3, runs=3, examples=12, sd_run=0.3)
    ref = runs_pairwise(df).table.set_index(["system_a", "system_b"])
    shuffled = df.sample(frac=1.0, random_state=seed).reset_index(drop=True)
    renamed = {"s0": "zeta", "s1": "alpha", "s2": "mid"} if flip else {}
    shuffled["system"] = shuffled["system"].replace(renamed)
    out = runs_pairwise(shuffled).table
    back = {v: k for k, v in renamed.items()}
    for row in out.itertuples():
        a, b = back.get(row.system_a, row.system_a), back.get(row.system_b, row.system_b)
        key, sign = ((a, b), 1.0) if (a, b) in ref.index else ((b, a), -1.0)
        assert row.pvalue == pytest.approx(ref.loc[key, "pvalue"], rel=1e-9)
        assert row.statistic == pytest.approx(sign * ref.loc[key, "statistic"], rel=1e-9)
