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
    rng = np.random.default_rng(4)
    df = _sweeps(rng, seed_sd=0.0)
    res = pairwise_tests(build_matrix(df))
    means = df.groupby(["system", "example_id"])["value"].mean().unstack()
    checked = 0
    for row in res.table.itertuples():
        if row.test != "paired-t":
            continue
        ref = stats.ttest_rel(means.loc[row.system_a], means.loc[row.system_b])
        assert row.pvalue == pytest.approx(ref.pvalue, rel=1e-9)
        checked += 1
    assert checked >= 1
