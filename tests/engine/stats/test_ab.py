"""compare_ab (issue #16): the models of Lumiste (2023) side by side, checked against statsmodels.

Reference values: statsmodels ``ols`` (plain, example dummies, cluster-robust by
example), ``mixedlm`` (random example intercept) fitted on the design of Lumiste (2023),
*Why you should A/B test your LLM evals*, https://mlumiste.com/technical/ab-test-llm-evals/
(100 test cases, p ∈ {0.15, 0.5, 0.9} with weights 0.25/0.15/0.6, +5 points,
5 runs); statsmodels ``anova_lm`` for the variance components.
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
from statsmodels.stats.anova import anova_lm

from engine._contract import MetricSpec
from engine._options import TestOptions
from engine.cli._json import ab_json
from engine.stats._ab import compare_ab, noninferiority_test
from engine.stats._runs import RunCube, run_cube
from engine.stats._runs_pairs import pair_run_test

SPEC_KEYS = ["baseline", "candidate", "benchmark", "metric", "n", "runs", "difference", "ci_low",
             "ci_high", "pvalue", "model", "verdict", "exit_code"]


def blog_long(runs: int = 5, seed: int = 0, effect: float = 0.05) -> pd.DataFrame:
    """The blog post's scenario (Lumiste 2023): probabilities drawn as it draws them
    (np.random.seed(1337))."""
    weights = np.array([0.25, 0.15, 0.6])
    p = np.random.RandomState(1337).choice([0.15, 0.5, 0.9], size=100, p=weights / weights.sum())
    rng = np.random.default_rng(seed)
    frames = []
    for system, prob in (("control", p), ("treatment", np.clip(p + effect, 0, 1))):
        for r in range(runs):
            frames.append(pd.DataFrame({
                "benchmark": "ab-blog", "metric": "acc", "system": system,
                "example_id": [f"case{i:03d}" for i in range(100)], "run": r,
                "value": (rng.random(100) < prob).astype(float)}))
    return pd.concat(frames, ignore_index=True)


def with_design(df: pd.DataFrame) -> pd.DataFrame:
    return df.assign(treatment=(df["system"] == "treatment").astype(float),
                     test_case=df["example_id"])


@pytest.mark.parametrize("seed", [0, pytest.param(1, marks=pytest.mark.slow),
                                  pytest.param(2, marks=pytest.mark.slow)])
def test_models_match_statsmodels_on_the_blog_design(seed: int) -> None:
    df = blog_long(seed=seed)
    res = compare_ab(df, baseline="control", candidate="treatment")
    table = res.models.set_index("model")
    d = with_design(df)
    ols = smf.ols("value ~ treatment", d).fit()
    fe = smf.ols("value ~ treatment + C(test_case)", d).fit()
    codes = pd.factorize(d["test_case"])[0]
    fe_cl = smf.ols("value ~ treatment + C(test_case)", d).fit(cov_type="cluster",
                                                                cov_kwds={"groups": codes})
    mixed = smf.mixedlm("value ~ treatment", d, groups=d["test_case"]).fit()
    for name, fit, rel in (("ols", ols, 1e-9), ("ols-fe", fe, 1e-6), ("ols-fe-cluster", fe_cl, 1e-6),
                           ("mixedlm", mixed, 1e-4)):
        assert table.loc[name, "estimate"] == pytest.approx(fit.params["treatment"], rel=1e-6)
        assert table.loc[name, "se"] == pytest.approx(fit.bse["treatment"], rel=rel)
    assert table.loc["ols", "pvalue"] == pytest.approx(ols.pvalues["treatment"], rel=1e-6)
    assert table.loc["ols-fe", "pvalue"] == pytest.approx(fe.pvalues["treatment"], rel=1e-5)
    assert table.loc["mixedlm", "pvalue"] == pytest.approx(mixed.pvalues["treatment"], rel=1e-3)


# the reference fit, statsmodels' MixedLM, says it is at the boundary (the variance component
# is 0 here by construction, the point of the test) and that its first optimiser gave up
@pytest.mark.filterwarnings("ignore::statsmodels.tools.sm_exceptions.ConvergenceWarning")
def test_mixedlm_closed_form_at_the_boundary() -> None:
    # Between-example variance below the within one: REML puts σ²_example at 0 and
    # MixedLM equals plain OLS (statsmodels' MixedLM converges to the boundary).
    for seed in range(100):  # the first draw at the boundary
        rng = np.random.default_rng(seed)
        rows = [{"benchmark": "b", "metric": "m", "system": s, "example_id": f"e{i}", "run": r,
                 "value": rng.normal() + (0.3 if s == "B" else 0)}
                for s in "AB" for i in range(12) for r in range(3)]
        df = pd.DataFrame(rows)
        d = df.assign(t=(df["system"] == "B").astype(float))
        ybar = d.groupby("example_id")["value"].mean()
        fe = smf.ols("value ~ t + C(example_id)", d).fit()
        if 6 * ybar.var(ddof=1) < fe.mse_resid:
            break
    res = compare_ab(df, baseline="A", candidate="B").models.set_index("model")
    mixed = smf.mixedlm("value ~ t", d, groups=d["example_id"]).fit()
    assert res.loc["mixedlm", "se"] == pytest.approx(mixed.bse["t"], rel=1e-3)
    assert res.loc["mixedlm", "se"] == pytest.approx(smf.ols("value ~ t", d).fit().bse["t"], rel=1e-6)


def test_to_dict_is_spec_and_difference_is_oriented() -> None:
    df = blog_long(effect=0.3)
    res = compare_ab(df, baseline="control", candidate="treatment")
    out = ab_json(res)
    assert list(out)[:len(SPEC_KEYS)] == SPEC_KEYS
    assert out["difference"] > 0 and out["exit_code"] == 0 and "better" in out["verdict"]
    worse = compare_ab(df, baseline="treatment", candidate="control")
    assert worse.exit_code == 1 and ab_json(worse)["difference"] < 0
    lower = compare_ab(df, baseline="control", candidate="treatment",
                       spec=MetricSpec(higher_is_better=False))
    assert lower.exit_code == 1 and ab_json(lower)["difference"] == pytest.approx(-out["difference"])
    assert out["runs"] == 5 and out["n"] == 100


@pytest.mark.slow
def test_variance_components_match_anova_lm_mean_squares() -> None:
    # σ²_ε = MS_resid, σ²_run = (MS_run − MS_resid)/n, σ²_example = (MS_ex − MS_resid)/R,
    # from statsmodels' anova_lm of value ~ system + system:run + system:example.
    df = blog_long(runs=4, seed=3)
    res = compare_ab(df, baseline="control", candidate="treatment").variance.set_index("component")
    table = anova_lm(smf.ols("value ~ C(system) + C(system):C(run) + C(system):C(example_id)",
                             df).fit(), typ=1)
    ms = table["sum_sq"] / table["df"]
    resid = ms["Residual"]
    assert res.loc["residual", "variance"] == pytest.approx(resid, rel=1e-9)
    assert res.loc["run", "variance"] == pytest.approx(max(0, (ms["C(system):C(run)"] - resid) / 100),
                                                       rel=1e-9, abs=1e-12)
    assert res.loc["example", "variance"] == pytest.approx(
        (ms["C(system):C(example_id)"] - resid) / 4, rel=1e-9)
    assert res["share"].sum() == pytest.approx(1.0)


def test_cluster_column_gives_cluster_robust_se() -> None:
    # Reference: statsmodels OLS of the per-example mean differences on a constant,
    # cov_type="cluster" (CR1), as Miller (2024) recommends for clustered questions.
    df = blog_long(runs=1, seed=4)
    df["family"] = df["example_id"].str[-1]  # 10 families of 10 cases
    res = compare_ab(df, baseline="control", candidate="treatment", cluster="family")
    wide = df.pivot_table(index=["example_id", "family"], columns="system", values="value")
    d = (wide["treatment"] - wide["control"]).to_numpy()
    fam = pd.factorize(wide.index.get_level_values("family"))[0]
    fit = sm.OLS(d, np.ones(len(d))).fit(cov_type="cluster", cov_kwds={"groups": fam})
    assert res.test.model == "cluster-t"
    assert res.test.se == pytest.approx(fit.bse[0], rel=1e-9) and res.test.df == 9


def test_descriptives_effect_size_and_outliers() -> None:
    rng = np.random.default_rng(5)
    a, b = rng.normal(0, 1, 60), rng.normal(0, 1, 60) + 0.5
    b[7] += 25.0  # one broken example
    df = pd.DataFrame({"benchmark": "b", "metric": "m", "system": ["A"] * 60 + ["B"] * 60,
                       "example_id": [f"e{i:02d}" for i in range(60)] * 2,
                       "value": np.concatenate([a, b])})
    res = compare_ab(df, baseline="A", candidate="B")
    desc = res.descriptives.set_index("role")
    assert desc.loc["baseline", "median"] == pytest.approx(np.median(a))
    assert desc.loc["candidate", "iqr"] == pytest.approx(np.subtract(*np.percentile(b, [75, 25])))
    assert res.outliers["example_id"].tolist() == ["e07"]
    d = b - a
    assert res.effect_size == pytest.approx(d.mean() / d.std(ddof=1))
    low, high = res.effect_ci
    assert low < res.effect_size < high
    # Large-sample check of the noncentral-t interval: d ± 1.96 √(1/n + d²/(2n)) (Hedges & Olkin).
    half = 1.96 * np.sqrt(1 / 60 + res.effect_size**2 / 120)
    assert high - low == pytest.approx(2 * half, rel=0.1)


def test_options_alpha_sets_every_interval() -> None:
    df = blog_long()
    wide = compare_ab(df, baseline="control", candidate="treatment", options=TestOptions(alpha=0.01))
    narrow = compare_ab(df, baseline="control", candidate="treatment")
    assert wide.test.ci_high - wide.test.ci_low > narrow.test.ci_high - narrow.test.ci_low


@pytest.mark.parametrize(("kwargs", "message"), [
    ({"baseline": "control", "candidate": "control"}, "candidate: must differ"),
    ({"baseline": "control", "candidate": "nobody"}, "systems:"),
    ({"baseline": "control", "candidate": "treatment", "cluster": "family"}, "cluster: column"),
])
def test_errors_name_the_argument(kwargs: dict[str, str], message: str) -> None:
    with pytest.raises(ValueError, match=message):
        compare_ab(blog_long(runs=1), **kwargs)


# ---------------------------------------------------------------- non-inferiority margin


def _normal_pair(n: int, shift: float, seed: int) -> pd.DataFrame:
    rng = np.random.default_rng(seed)
    level = rng.normal(0, 1, n)
    a, b = level + rng.normal(0, 0.5, n), level + shift + rng.normal(0, 0.5, n)
    return pd.DataFrame({"benchmark": "b", "metric": "m", "system": ["A"] * n + ["B"] * n,
                         "example_id": [f"e{i:03d}" for i in range(n)] * 2,
                         "value": np.concatenate([a, b])})


@pytest.mark.parametrize("margin", [0.05, 0.2, 1.0])
def test_margin_is_scipy_one_sided_paired_t_with_one_run(margin: float) -> None:
    # Reference: scipy.stats.ttest_1samp(d, -margin, alternative="greater") on the paired
    # differences — the textbook non-inferiority t test (Wellek 2010, §5.3).
    df = _normal_pair(40, -0.05, seed=int(margin * 100))
    res = compare_ab(df, baseline="A", candidate="B", margin=margin)
    d = df["value"].to_numpy()[40:] - df["value"].to_numpy()[:40]
    ref = stats.ttest_1samp(d, -margin, alternative="greater")
    ni = res.noninferiority
    assert ni is not None and res.test.model == "paired-t"
    assert ni.statistic == pytest.approx(ref.statistic, rel=1e-10)
    assert ni.pvalue == pytest.approx(ref.pvalue, rel=1e-10)
    lower = ref.confidence_interval(0.95).low  # scipy's one-sided bound of mean(d)
    assert ni.lower == pytest.approx(lower, rel=1e-10)
    assert (ni.lower > -margin) == ni.non_inferior == (res.exit_code == 0)
    out = ab_json(res)
    assert list(out)[:len(SPEC_KEYS)] == SPEC_KEYS
    assert out["margin"] == margin and out["ni_pvalue"] == ni.pvalue
    assert "H0: candidate − baseline ≤ −" in out["ni_test"] and "one-sided" in res.verdict


def test_margin_passes_a_small_loss_and_fails_an_uncertain_gain() -> None:
    # Large n, candidate 0.05 worse: the two-sided gate fails (exit 1), a 0.2 margin passes.
    big = _normal_pair(2000, -0.05, seed=1)
    assert compare_ab(big, baseline="A", candidate="B").exit_code == 1
    res = compare_ab(big, baseline="A", candidate="B", margin=0.2)
    assert res.exit_code == 0 and res.verdict.startswith("candidate is non-inferior")
    # Tiny n, estimate positive but noisy: non-inferiority by 0.01 cannot be shown.
    small = _normal_pair(5, 0.05, seed=2)
    res = compare_ab(small, baseline="A", candidate="B", margin=0.01)
    assert res.exit_code == 1 and res.verdict.startswith("non-inferiority not shown")


def test_margin_uses_the_run_aware_se_and_df() -> None:
    df = blog_long(runs=5, seed=6)
    sweep = np.random.default_rng(6).normal(0, 0.05, 5)
    df["value"] = df["value"] + sweep[df["run"].to_numpy()] * (df["system"] == "treatment")
    res = compare_ab(df, baseline="control", candidate="treatment", margin=0.03)
    t, ni = res.test, res.noninferiority
    assert ni is not None and t.model == "vc-t" and ni.df == t.df
    assert ni.pvalue == pytest.approx(stats.t.sf((t.estimate + 0.03) / t.se, t.df), rel=1e-12)


@pytest.mark.slow
@pytest.mark.parametrize("runs", [1, 3])
def test_margin_false_alarm_rate_at_most_alpha_on_the_boundary(runs: int) -> None:
    # Calibration: true difference exactly −margin (H0 boundary), seed sweeps when runs > 1
    # (with one run a sweep is indistinguishable from a real difference: none drawn);
    # the rate of "non-inferior" must not exceed alpha beyond Monte Carlo error (3 SE).
    rng = np.random.default_rng(40 + runs)
    margin, n, reps, alpha = 0.1, 40, 400, 0.05
    sweep = 0.05 if runs > 1 else 0.0
    rejected = 0
    for _ in range(reps):
        level = rng.normal(0, 1, n)
        values = np.empty((2, runs, n))
        for s, shift in ((0, 0.0), (1, -margin)):
            values[s] = (level + shift + rng.normal(0, 0.3, n)[None, :]
                         + rng.normal(0, sweep, (runs, 1)) + rng.normal(0, 0.3, (runs, n)))
        pair = RunCube("b", "m", ("A", "B"), tuple(f"e{i}" for i in range(n)), values,
                       np.array([runs, runs]))
        rejected += noninferiority_test(pair_run_test(pair), margin=margin,
                                        alpha=alpha).non_inferior
    rate = rejected / reps
    assert rate <= alpha + 3 * np.sqrt(alpha * (1 - alpha) / reps), rate


@given(st.floats(0.01, 2.0), st.floats(0.01, 2.0))
@settings(max_examples=30)
def test_wider_margin_never_raises_the_pvalue(m1: float, m2: float) -> None:
    t = pair_run_test(_CUBE)
    low, high = sorted((m1, m2))
    p_low = noninferiority_test(t, margin=low, alpha=0.05).pvalue
    assert noninferiority_test(t, margin=high, alpha=0.05).pvalue <= p_low + 1e-15


@pytest.mark.parametrize("margin", [0, -0.1, float("nan"), float("inf"), "0.1", True])
def test_margin_must_be_a_positive_number(margin: object) -> None:
    with pytest.raises(ValueError, match="margin: must be a finite number > 0"):
        compare_ab(blog_long(runs=1), baseline="control", candidate="treatment",
                   margin=margin)  # type: ignore[arg-type]


_CUBE = run_cube(_normal_pair(30, 0.0, seed=9))


def _seed_frame(seed: int = 3) -> pd.DataFrame:
    """Two single-run systems (A, B) and two with 4 seeds each (C, D); every seed shifts its
    whole sweep (SD 0.4 against noise SD 0.5), no true difference."""
    rng = np.random.default_rng(seed)
    example = rng.normal(0, 1, 60)
    rows = []
    for system, runs in (("A", 1), ("B", 1), ("C", 4), ("D", 4)):
        for r in range(runs):
            v = example + rng.normal(0, 0.4) + rng.normal(0, 0.5, 60)
            rows.append(pd.DataFrame({"benchmark": "b", "metric": "m", "system": system,
                                      "example_id": [f"e{i:02d}" for i in range(60)], "run": r,
                                      "value": v}))
    return pd.concat(rows, ignore_index=True)


def test_single_run_pair_pays_the_seed_variance_pooled_from_every_system() -> None:
    # issue #26 item 2: compare with 1 run vs 1 run used the plain paired t (false alarms
    # 0.227 / 0.283) while the other systems' runs showed seed variance. Reference: the
    # leaderboard's run-aware test of the same pair (runs_pairwise, itself checked against
    # statsmodels' anova_lm in test_runs.py) — same estimate, SE, df and p-value.
    from engine.stats._runs_pairs import runs_pairwise

    df = _seed_frame()
    res = compare_ab(df, baseline="A", candidate="B")
    assert res.test.model == "vc-t" and res.test.var_run > 0
    assert res.seed_variance_from == ("C", "D")
    assert "C, D" in res.test.reason and ab_json(res)["seed_variance_from"] == ["C", "D"]
    row = runs_pairwise(df).table.query("system_a == 'A' and system_b == 'B'").iloc[0]
    assert res.test.estimate == pytest.approx(-row["diff"], rel=1e-9)
    assert res.test.se == pytest.approx(row["se"], rel=1e-9)
    assert res.test.df == pytest.approx(row["df"], rel=1e-9)
    assert res.test.pvalue == pytest.approx(row["pvalue"], rel=1e-9)
    plain = stats.ttest_rel(*(df[df["system"] == s]["value"].to_numpy() for s in ("B", "A")))
    assert res.test.se > abs(res.test.estimate / plain.statistic)  # wider than the paired t
    assert "seed variance other systems' runs show" in res.note


def test_no_runs_anywhere_keeps_the_pairwise_test() -> None:
    df = _seed_frame().query("run == 0")
    res = compare_ab(df, baseline="A", candidate="B")
    assert res.test.model == "paired-t" and res.seed_variance_from == () and res.note == ""


def test_a_pair_that_cannot_be_significant_says_so() -> None:
    # issue #26 item 5: on 5 examples the smallest exact McNemar p is 2 · 0.5⁵ = 0.0625 > 0.05
    # (binomial arithmetic), so even 5 wins out of 5 cannot be significant
    df = pd.DataFrame({"benchmark": "b", "metric": "acc", "system": ["A"] * 5 + ["B"] * 5,
                       "example_id": [f"e{i}" for i in range(5)] * 2,
                       "value": [0.0] * 5 + [1.0] * 5})
    res = compare_ab(df, baseline="A", candidate="B")
    assert res.test.pvalue == pytest.approx(0.0625)
    assert res.resolution is not None and not res.resolution.can_separate
    assert res.resolution.smallest_p == pytest.approx(0.0625)
    assert ab_json(res)["resolution"]["can_separate"] is False
