"""The joint model of the results matrix (engine.across._joint).

Reference values: statsmodels' logistic GLM (Rasch form: system and benchmark dummies on
the cells' counts, and its cluster-robust covariance on the example-level 0/1 rows clustered
by example id) for the point estimates and the sandwich; the bundled demo data (Eval-Arena,
data/README.md) and the Overall product's complete-block ranking for the agreement on
complete data; the rest are invariants (relabelling, row order) and refusals.
"""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pandas as pd
import pytest
import statsmodels.api as sm
from hypothesis import given, settings
from hypothesis import strategies as st
from scipy import special, stats

from engine.across._joint import fit_cells, joint_model
from engine.across._joint_cells import cells_from_arrays, connected_selection, joint_cells

ROOT = Path(__file__).resolve().parents[3]
COLUMNS = ["benchmark", "system", "example_id", "metric", "value"]


def _long(n_sys: int = 6, n_bench: int = 4, n_ex: int = 60, seed: int = 0,
          skip: frozenset[tuple[int, int]] = frozenset(), shared: bool = False,
          spread: float = 1.5) -> pd.DataFrame:
    """0/1 outcomes of a 2PL with example difficulty spread; ``skip``: (system, benchmark)
    cells left out; ``shared``: every benchmark uses the same example ids."""
    rng = np.random.default_rng(seed)
    theta = np.linspace(-spread, spread, n_sys)
    rows = []
    for b in range(n_bench):
        a, d = np.exp(rng.normal(0, 0.3)), rng.normal(0, 0.7)
        eps = rng.normal(0, 1.0, n_ex)
        for s in range(n_sys):
            if (s, b) in skip:
                continue
            p = special.expit(a * (theta[s] - d) + eps)
            x = (rng.random(n_ex) < p).astype(float)
            rows += [(f"b{b}", f"s{s}", f"e{k}" if shared else f"b{b}e{k}", "acc", float(v))
                     for k, v in enumerate(x)]
    return pd.DataFrame(rows, columns=COLUMNS)


def test_rasch_equals_statsmodels_glm() -> None:
    """Discriminations fixed at 1, no ridge: the binomial GLM logit p = α + β_s + γ_b on the
    cells' (successes, failures), so θ_s − θ_0 = β_s and d_b − d_0 = −γ_b (1e-6)."""
    df = _long(seed=3, skip=frozenset({(0, 1), (2, 3), (5, 0), (4, 2)}))
    fit = fit_cells(joint_cells(df), model="rasch", ridge=0.0, rank=False)
    cells = df.groupby(["system", "benchmark"])["value"].agg(["sum", "count"]).reset_index()
    x = pd.get_dummies(cells[["system", "benchmark"]], drop_first=True, dtype=float)
    glm = sm.GLM(np.column_stack([cells["sum"], cells["count"] - cells["sum"]]),
                 sm.add_constant(x), family=sm.families.Binomial()).fit(tol=1e-12)
    theta = dict(zip(fit.systems, fit.theta, strict=True))
    for s in fit.systems[1:]:
        assert theta[s] - theta["s0"] == pytest.approx(glm.params[f"system_{s}"], abs=1e-6)
    diff = fit.benchmark_fit.set_index("benchmark")["difficulty"]
    for b in ("b1", "b2", "b3"):
        assert diff[b] - diff["b0"] == pytest.approx(-glm.params[f"benchmark_{b}"], abs=1e-6)


def test_sandwich_equals_statsmodels_cluster_robust() -> None:
    """The covariance of θ_s − θ_0 is statsmodels' cluster-robust one of the example-level
    Bernoulli GLM clustered by example id (shared ids across benchmarks: one cluster), ours
    times (C − 1)/C against ``use_correction=False`` (1e-6 relative)."""
    df = _long(n_sys=5, n_bench=3, n_ex=50, seed=4, skip=frozenset({(1, 2), (4, 0)}),
               shared=True)
    fit = fit_cells(joint_cells(df), model="rasch", ridge=0.0, rank=False)
    x = pd.get_dummies(df[["system", "benchmark"]], drop_first=True, dtype=float)
    groups = pd.factorize(df["example_id"])[0]
    glm = sm.GLM(df["value"], sm.add_constant(x), family=sm.families.Binomial()).fit(
        tol=1e-12, cov_type="cluster", cov_kwds={"groups": groups, "use_correction": False})
    names = [f"system_{s}" for s in fit.systems[1:]]
    ref = glm.cov_params().loc[names, names].to_numpy()
    contrast = np.column_stack([-np.ones(len(names)), np.eye(len(names))])  # θ_s − θ_0
    c = int(df["example_id"].nunique())
    ours = contrast @ fit.cov @ contrast.T * (c - 1) / c
    np.testing.assert_allclose(ours, ref, rtol=1e-6)


@pytest.mark.slow
@settings(max_examples=15, deadline=None)
@given(seed=st.integers(0, 10_000), perm_seed=st.integers(0, 10_000))
def test_relabelling_and_row_order(seed: int, perm_seed: int) -> None:
    """Renaming and reordering the systems, and shuffling the rows, relabel the output."""
    df = _long(n_sys=5, n_bench=3, n_ex=40, seed=seed, skip=frozenset({(0, 2), (3, 1)}))
    base = joint_model(df, n_draws=200).table.set_index("system")
    rng = np.random.default_rng(perm_seed)
    new = {f"s{i}": f"z{j}" for i, j in enumerate(rng.permutation(5))}
    moved = df.assign(system=df["system"].map(new)).sample(frac=1.0, random_state=perm_seed)
    other = joint_model(moved, n_draws=200).table.set_index("system")
    other.index = other.index.map({v: k for k, v in new.items()})
    other = other.loc[base.index]
    np.testing.assert_allclose(other["theta"], base["theta"], atol=1e-6)
    np.testing.assert_allclose(other["se"], base["se"], rtol=1e-5)
    for c in ("rank_set_low", "rank_set_high", "benchmarks_run"):
        assert other[c].tolist() == base[c].tolist()


def test_one_benchmark_gives_a_wider_rank_set() -> None:
    """A system that ran one benchmark of four is ranked, with a wider interval and rank set
    than the complete system of the same true ability."""
    skip = frozenset({(3, 1), (3, 2), (3, 3)})
    df = _long(n_sys=8, n_bench=4, n_ex=150, seed=8, skip=skip, spread=0.6)
    t = joint_model(df).table.set_index("system")
    width = t["rank_set_high"] - t["rank_set_low"]
    assert t.loc["s3", "benchmarks_run"] == 1
    assert t.loc["s3", "se"] > t.drop(index="s3")["se"].max()
    assert width["s3"] >= width.drop(index="s3").max()


def test_refuses_a_system_sharing_no_benchmark() -> None:
    df = _long(n_sys=6, n_bench=3, seed=1,
               skip=frozenset({(0, 0), (0, 1), (1, 0), (1, 1), (2, 0), (2, 1),
                               (3, 2), (4, 2), (5, 2)}))
    with pytest.raises(ValueError, match=r"s0, s1, s2 share no benchmark|s3, s4, s5 share no"):
        joint_model(df)
    assert connected_selection(df) == (("b0", "b1"), ("b2",))


def test_refuses_a_benchmark_run_by_two_systems() -> None:
    df = _long(n_sys=5, n_bench=3, seed=2, skip=frozenset({(0, 2), (1, 2), (2, 2)}))
    with pytest.raises(ValueError, match=r"benchmark 'b2' was run by 2 system\(s\) \(s3, s4\)"):
        joint_model(df)


def test_diagnostics_name_a_misfitting_benchmark() -> None:
    """A benchmark on which the order of the systems is reversed fits badly and is named."""
    rng = np.random.default_rng(5)
    theta = np.linspace(-1.5, 1.5, 10)
    scores = [(rng.random((10, 400)) < special.expit(sign * theta - 0.2)[:, None]).astype(float)
              for sign in (1, 1, 1, 1, -1)]
    fit = fit_cells(cells_from_arrays(scores), rank=False)
    assert fit.worst_benchmark == "b4"
    assert fit.badly_fitting == ("b4",)


def test_fraction_and_rescaled_scores() -> None:
    """Scores in [0, 1] enter as they are; a metric on another scale by its observed range
    (lower is better flipped), and the fit says which."""
    df = _long(n_sys=5, n_bench=3, seed=6)
    wide = df["benchmark"] == "b2"
    df.loc[wide, "value"] = 1 + df.loc[wide, "value"] * 4  # 1..5
    fit = joint_model(df)
    assert fit.rescaled == ("b2",)
    assert fit.table["system"].tolist()[0] == "s4"


@pytest.mark.slow
def test_complete_block_agrees_with_overall() -> None:
    """On the demo data's complete block (the Overall page's default), the joint model's
    order agrees with today's complete-block Overall (Kendall tau printed)."""
    from engine.across._coverage import default_selection
    from engine.io._readers import read_results
    from engine.products._overall import overall

    df = pd.concat([read_results(p) for p in sorted((ROOT / "data").glob("*.jsonl.gz"))],
                   ignore_index=True)
    sel = default_selection(df)
    block = df[df["benchmark"].isin(sel.benchmarks) & df["system"].isin(sel.complete)]
    ours = joint_model(block).table
    theirs = overall(block, benchmarks=list(sel.benchmarks)).table
    merged = ours.merge(theirs[["system", "score"]], on="system")
    tau = stats.kendalltau(merged["theta"], merged["score"]).statistic
    print(f"Kendall tau, joint model vs complete-block Overall on {len(merged)} systems × "
          f"{len(sel.benchmarks)} benchmarks: {tau:.3f}")
    assert len(merged) == len(sel.complete)
    assert tau >= 0.9


def test_a_perfect_system_keeps_an_honest_interval() -> None:
    """A system that solved every example leaves the sandwich no residual; its variance is
    then the model's (Fisher), not ~0, and it still ranks first."""
    rng = np.random.default_rng(0)
    scores = [(rng.random((6, 50)) < np.linspace(0.2, 0.8, 6)[:, None]).astype(float)
              for _ in range(3)]
    scores[0][5], scores[1][5], scores[2][5] = 1.0, 1.0, np.nan
    t = fit_cells(cells_from_arrays(scores)).table.set_index("system")
    assert t.loc["s5", "rank"] == 1
    assert t.loc["s5", "se"] > 3 * t.drop(index="s5")["se"].max()
