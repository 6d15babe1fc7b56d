"""The run-aware pairwise test (vc-t) when seed SDs differ between systems: each system
with repeated runs brings its own seed variance where that exceeds the pool of every
system with runs, the pool where not (and a single-run system the pool), Satterthwaite df
over every mean square.

Reference values: when every example of a run moves by the run's shift alone (no residual
noise), the per-example differences are constant, the paired part is 0 and a system's own
seed variance is the variance of its run means. Two noisy systems beside a calm one (whose
runs drag the pool below both) are then compared by exactly Welch's t on their run means,
``scipy.stats.ttest_ind(equal_var=False)`` (statistic, Welch–Satterthwaite df, p-value), on
random inputs with different seed SDs and run counts; a noisy system against the calm one
by the pool for the calm one, written out by hand (Satterthwaite 1946). With one pooled
seed SD for all (the test before) the noisy pair got Student's pooled-variance t instead.
"""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest
from scipy import stats

from engine.stats._runs import pooled_runs, run_anova, run_cube, satterthwaite_t
from engine.stats._runs_pairs import pair_run_test, runs_pairwise


def _sweeps(rng: np.random.Generator, systems: dict[str, np.ndarray], n: int,
            noise: float = 0.0) -> pd.DataFrame:
    """Scores = example effect + the run's shift (+ noise) for each system's run shifts."""
    ex = rng.normal(0, 1, n)
    rows = [pd.DataFrame({"benchmark": "b", "metric": "m", "system": name,
                          "example_id": [f"e{i:02d}" for i in range(n)], "run": r,
                          "value": ex + shift + rng.normal(0, noise, n)})
            for name, shifts in systems.items() for r, shift in enumerate(shifts)]
    return pd.concat(rows, ignore_index=True)


def _exact_sd(rng: np.random.Generator, runs: int, sd: float, mean: float = 0.0
              ) -> np.ndarray:
    z = rng.normal(0, 1, runs)
    return mean + (z - z.mean()) / z.std(ddof=1) * sd


@pytest.mark.parametrize("seed", range(8))
def test_noisy_systems_get_welchs_t_on_their_run_means(seed: int) -> None:
    rng = np.random.default_rng(seed)
    ra, rb = (int(v) for v in rng.integers(2, 8, 2))
    a = _exact_sd(rng, ra, rng.uniform(0.8, 1.0))
    b = _exact_sd(rng, rb, rng.uniform(0.8, 1.0), 0.3)
    c = _exact_sd(rng, 7, 0.01)  # a calm system with many runs: the pool falls below a, b
    df = _sweeps(rng, {"A": a, "B": b, "C": c}, int(rng.integers(5, 60)))
    table = runs_pairwise(df).table.set_index(["system_a", "system_b"])
    ref = stats.ttest_ind(a, b, equal_var=False)
    row = table.loc[("A", "B")]
    assert row["test"] == "vc-t"
    assert row["statistic"] == pytest.approx(ref.statistic, rel=1e-9)
    assert row["df"] == pytest.approx(ref.df, rel=1e-9)
    assert row["pvalue"] == pytest.approx(ref.pvalue, rel=1e-9)
    # A − C: A's own variance of run means, the pool (df-weighted mean of the three) for C
    own = {k: v.var(ddof=1) for k, v in (("A", a), ("B", b), ("C", c))}
    dfs = {"A": ra - 1.0, "B": rb - 1.0, "C": 6.0}
    pool = sum(dfs[k] * own[k] for k in own) / sum(dfs.values())
    assert pool < min(own["A"], own["B"]) and own["C"] < pool
    va, vc = own["A"] / ra, pool / 7
    t = (a.mean() - c.mean()) / np.sqrt(va + vc)
    welch_df = (va + vc) ** 2 / (va**2 / dfs["A"] + vc**2 / sum(dfs.values()))
    row = table.loc[("A", "C")]
    assert (row["statistic"], row["df"]) == pytest.approx((t, welch_df), rel=1e-9)
    # the A/B gate's pair test on the whole benchmark's pool: candidate B − baseline A
    cube = run_cube(df)
    whole = pooled_runs(run_anova(cube.values, cube.runs), cube.systems)
    test = pair_run_test(cube.restrict(["A", "B"], cube.common()), pooled=whole)
    assert test.statistic == pytest.approx(-ref.statistic, rel=1e-9)
    assert test.df == pytest.approx(ref.df, rel=1e-9)
    assert test.pvalue == pytest.approx(ref.pvalue, rel=1e-9)


def test_single_run_systems_pay_the_pool_of_the_systems_with_runs() -> None:
    rng = np.random.default_rng(3)
    df = _sweeps(rng, {"A": rng.normal(0, 0.4, 4), "B": rng.normal(0, 0.2, 4),
                       "C": np.zeros(1), "D": np.zeros(1)}, 80, noise=0.5)
    table = runs_pairwise(df).table.set_index(["system_a", "system_b"])
    cube = run_cube(df)
    pool = pooled_runs(run_anova(cube.values, cube.runs), cube.systems)
    assert pool.systems == ("A", "B") and pool.var_run > 0
    # C − D: two single-run systems on the pool (one component, weight 1/1 + 1/1): the
    # statistic of the pooled test (satterthwaite_t, the test before for every pair)
    row = table.loc[("C", "D")]
    means = np.nanmean(cube.values, axis=1)
    d = means[2] - means[3]
    ref = satterthwaite_t(np.array([d.mean()]), np.array([d.var(ddof=1) / len(d)]),
                          np.array([len(d) - 1.0]), np.array([pool.ss_run]),
                          np.array([pool.df_run]), np.array([pool.ss_resid]),
                          np.array([pool.df_resid]), np.array([pool.n_weight]),
                          np.array([2.0]), "two-sided")
    assert row["var_run"] == pytest.approx(pool.var_run, rel=1e-12)
    assert (row["statistic"], row["df"]) == pytest.approx((ref["statistic"][0], ref["df"][0]),
                                                         rel=1e-12)
