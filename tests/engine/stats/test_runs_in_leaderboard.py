"""Repeated runs enter the leaderboard's and pairwise tests (issue #16, item 1).

When a run is a seed that shifts a whole sweep, averaging runs per example hides the
run-to-run variance: an A/A comparison then flags differences far more often than
alpha (an independent review measured 0.18–0.95). ``build_matrix`` keeps the run-level
rows and ``pairwise_tests`` uses the run-aware model of :mod:`engine.stats._runs`.
Reference: scipy's ``ttest_rel`` on per-example means for pairs whose run variance
component is 0 (the model reduces to it exactly).
"""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest
from scipy import stats

from engine import build_matrix, leaderboard, pairwise_tests


def _sweeps(rng: np.random.Generator, *, systems: int = 4, n: int = 100, runs: int = 3,
            seed_sd: float = 0.3, shift: float = 0.0) -> pd.DataFrame:
    example = rng.normal(0, 1, n)
    frames = []
    for s in range(systems):
        for r in range(runs):
            value = example + (shift if s == 0 else 0.0) + rng.normal(0, seed_sd) \
                + rng.normal(0, 0.5, n)
            frames.append(pd.DataFrame({"benchmark": "b", "metric": "m", "system": f"s{s}",
                                        "example_id": [f"e{j:03d}" for j in range(n)],
                                        "run": r, "value": value}))
    return pd.concat(frames, ignore_index=True)


def test_matrix_keeps_the_runs() -> None:
    m = build_matrix(_sweeps(np.random.default_rng(0)))
    assert m.has_runs and len(m.run_scores) == 4 * 3 * 100  # type: ignore[arg-type]
    assert not build_matrix(_sweeps(np.random.default_rng(0), runs=1)).has_runs
    assert m.subset(["s1", "s0"]).run_scores["system"].nunique() == 2  # type: ignore[index]


@pytest.mark.slow
def test_seed_sweeps_keep_the_false_alarm_rate() -> None:
    rng = np.random.default_rng(16)
    reps, aware, averaged = 150, 0, 0
    for _ in range(reps):
        df = _sweeps(rng)
        aware += bool(pairwise_tests(build_matrix(df)).table["significant"].any())
        means = df.groupby(["benchmark", "metric", "system", "example_id"], as_index=False)[
            "value"].mean()  # runs averaged away: the defect
        averaged += bool(pairwise_tests(build_matrix(means)).table["significant"].any())
    rate = aware / reps
    assert rate <= 0.05 + 3 * np.sqrt(0.05 * 0.95 / reps)
    assert averaged / reps > 0.5  # what ignoring the runs did


def test_leaderboard_says_which_model_ran() -> None:
    lb = leaderboard(build_matrix(_sweeps(np.random.default_rng(3), shift=1.5)), bt_resamples=0)
    assert lb.test in ("vc-t", "paired-t")
    assert "repeated runs" in lb.pairwise.reason
    row = lb.pairwise.table.iloc[0]
    assert row["ci_low"] <= row["difference"] <= row["ci_high"]
    assert lb.table.iloc[0]["system"] == "s0"


def test_pairs_without_a_run_effect_are_the_paired_t_on_means() -> None:
    # the run component is pooled over every system (issue #26 item 2): when its estimate
    # is truncated to 0, every pair is scipy's ttest_rel on per-example means
    rng = np.random.default_rng(4)
    for _ in range(30):
        df = _sweeps(rng, seed_sd=0.0)
        res = pairwise_tests(build_matrix(df))
        if res.pooled_runs is not None and res.pooled_runs.var_run == 0:
            break
    else:
        pytest.fail("no replicate had a zero pooled run component")
    means = df.groupby(["system", "example_id"])["value"].mean().unstack()
    checked = 0
    for row in res.table.itertuples():
        if row.test != "paired-t":
            continue
        ref = stats.ttest_rel(means.loc[row.system_a], means.loc[row.system_b])
        assert row.pvalue == pytest.approx(ref.pvalue, rel=1e-9)
        checked += 1
    assert checked >= 1


def _mixed_runs(rng: np.random.Generator, runs: tuple[int, ...], n: int = 200,
                seed_sd: float = 0.3) -> pd.DataFrame:
    """Systems with the given runs each, every run a seed shifting its sweep; equal systems."""
    example = rng.normal(0, 1, n)
    rows = []
    for s, count in enumerate(runs):
        for r in range(count):
            v = example + rng.normal(0, seed_sd) + rng.normal(0, 0.5, n)
            rows.append(pd.DataFrame({"benchmark": "b", "metric": "m", "system": f"s{s}",
                                      "example_id": [f"e{j:03d}" for j in range(n)], "run": r,
                                      "value": v}))
    return pd.concat(rows, ignore_index=True)


def test_single_run_systems_pay_the_pooled_seed_variance() -> None:
    # issue #26 item 2: two single-run systems got the plain paired t (FWER 0.227 numeric)
    df = _mixed_runs(np.random.default_rng(11), (1, 1, 3, 5))
    res = pairwise_tests(build_matrix(df))
    pooled = res.pooled_runs
    assert pooled is not None and pooled.systems == ("s2", "s3")  # the systems with runs
    assert pooled.df_run == 2 + 4 and pooled.var_run > 0
    single = res.table[(res.table["system_a"] == "s0") & (res.table["system_b"] == "s1")].iloc[0]
    assert single["test"] == "vc-t"
    # reference: the variance-components t by hand — V = s²_d/n + σ̂²_run (1/1 + 1/1)
    means = df.groupby(["system", "example_id"])["value"].mean().unstack()
    d = (means.loc["s0"] - means.loc["s1"]).to_numpy()
    v = d.var(ddof=1) / len(d) + pooled.var_run * 2.0
    assert single["statistic"] == pytest.approx(d.mean() / np.sqrt(v), rel=1e-9)
    assert "pooled over the 2 system(s) with repeated runs (s2, s3)" in res.reason


def test_mean_intervals_carry_the_seed_variance() -> None:
    df = _mixed_runs(np.random.default_rng(12), (1, 1, 3, 5))
    lb = leaderboard(build_matrix(df), bt_resamples=0)
    pooled = lb.pairwise.pooled_runs
    assert pooled is not None
    row = lb.table.set_index("system").loc["s0"]
    values = df[df["system"] == "s0"]["value"].to_numpy()
    plain = stats.t.ppf(0.975, len(values) - 1) * values.std(ddof=1) / np.sqrt(len(values))
    half = (row["ci_high"] - row["ci_low"]) / 2
    # the single run's mean carries the whole seed variance: V = s²/n + σ̂²_run
    assert half > plain
    assert half >= stats.norm.ppf(0.975) * np.sqrt(values.var(ddof=1) / len(values)
                                                    + pooled.var_run) * 0.999
