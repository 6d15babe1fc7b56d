"""Issue #26 item 1: clustered examples (engine.stats._clusters) in pairwise, leaderboard, CLI.

Reference values and where they come from:
- Inspect's ``stderr(cluster=...)`` (UK AISI inspect_ai, src/inspect_ai/scorer/_metrics/std.py):
  its own unit test ``test_clustered_stderr`` — scores 0..19 with cluster ``i % 4`` give 0.645.
- Miller (2024), "Adding Error Bars to Evals: A Statistical Approach to Language Model
  Evaluations", arXiv:2411.00640, eq. 4 / Appendix A: the clustered variance is the CLT
  variance plus the within-cluster cross products, computed here by explicit double loops.
- statsmodels' OLS with ``cov_type="cluster"`` (CR1, with its small-sample correction: for a
  mean, G/(G−1) · (n−1)/(n−1)) equals Inspect's convention.
- CR2 against its definition (Bell & McCaffrey 2002): (I − H_gg)^(−1/2) by eigendecomposition,
  and the Bell–McCaffrey df against the general Satterthwaite formula on random designs.
"""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pandas as pd
import pytest
import statsmodels.api as sm
from hypothesis import given, settings
from hypothesis import strategies as st
from scipy import stats

from engine._matrix import ScoreMatrix
from engine.cli import main
from engine.products._leaderboard import leaderboard
from engine.stats._clusters import ClusterDesign, cluster_codes, clustered_se
from engine.stats._pairwise import pairwise_tests


def test_inspect_clustered_stderr_unit_test() -> None:
    # inspect_ai test_clustered_stderr: values i = 0..19, cluster i % 4 → round(se, 3) == 0.645
    values = np.arange(20.0)
    assert round(clustered_se(values, np.arange(20) % 4, convention="inspect"), 3) == 0.645


def test_miller_eq4_is_clt_plus_within_cluster_cross_products() -> None:
    # Miller (2024) eq. 4: SE² = (1/n²) Σ_i (s_i − s̄)² + (1/n²) Σ_c Σ_i Σ_{j≠i} (s_ic − s̄)(s_jc − s̄)
    rng = np.random.default_rng(0)
    s = rng.integers(0, 2, 37).astype(float)
    codes = rng.integers(0, 6, 37)
    dev = s - s.mean()
    cross = sum(dev[i] * dev[j] for i in range(37) for j in range(37)
                if i != j and codes[i] == codes[j])
    want = np.sqrt(((dev**2).sum() + cross) / 37**2)
    assert clustered_se(s, codes, convention="miller") == pytest.approx(want, rel=1e-12)


def test_inspect_convention_equals_statsmodels_cluster_cr1() -> None:
    rng = np.random.default_rng(1)
    y, codes = rng.normal(size=50), rng.integers(0, 7, 50)
    fit = sm.OLS(y, np.ones(50)).fit(cov_type="cluster", cov_kwds={"groups": codes})
    assert clustered_se(y, codes, convention="inspect") == pytest.approx(float(fit.bse[0]),
                                                                         rel=1e-10)


def _cr2_by_definition(d: np.ndarray, codes: np.ndarray) -> tuple[float, float]:
    """CR2 variance of mean(d) and its Bell–McCaffrey df from the matrices themselves."""
    n = len(d)
    e = d - d.mean()
    groups = np.unique(codes)
    total = 0.0
    blocks = []
    for g in groups:
        idx = np.flatnonzero(codes == g)
        h = np.full((len(idx), len(idx)), 1.0 / n)
        w, v = np.linalg.eigh(np.eye(len(idx)) - h)
        a = v @ np.diag(w ** -0.5) @ v.T
        total += float((np.ones(len(idx)) / n) @ a @ e[idx]) ** 2
        # the estimator is Σ_g (q_gᵀ d)² with q_g = M (a_g spread over the cluster)
        q = np.zeros(n)
        q[idx] = (np.ones(len(idx)) / n) @ a
        blocks.append(q - q.mean())
    qmat = np.array(blocks)
    gram = qmat @ qmat.T
    return total, float(np.trace(gram) ** 2 / (gram * gram).sum())


@given(st.lists(st.integers(1, 6), min_size=2, max_size=8), st.integers(0, 10_000))
@settings(max_examples=40)
def test_cr2_closed_form_matches_its_definition(sizes: list[int], seed: int) -> None:
    codes = np.repeat(np.arange(len(sizes)), sizes)
    d = np.random.default_rng(seed).normal(size=len(codes))
    var, df = _cr2_by_definition(d, codes)
    assert clustered_se(d, codes, convention="cr2") ** 2 == pytest.approx(var, rel=1e-9)
    assert ClusterDesign.from_codes(codes).df == pytest.approx(df, rel=1e-9)


def test_equal_clusters_give_g_minus_1_df() -> None:
    assert ClusterDesign.from_codes(np.repeat(np.arange(12), 5)).df == pytest.approx(11.0)


def _clustered_scores(seed: int, sd: float, systems: int = 6, g: int = 20, m: int = 10
                      ) -> tuple[np.ndarray, np.ndarray]:
    rng = np.random.default_rng(seed)
    codes = np.repeat(np.arange(g), m)
    passage = rng.normal(0, 1, g)
    inter = rng.normal(0, sd, (systems, g))
    logit = 0.5 - passage[codes][None, :] + inter[:, codes]
    return (rng.random((systems, g * m)) < 1 / (1 + np.exp(-logit))).astype(float), codes


def test_pairwise_with_clusters_is_the_cr2_t_on_each_difference() -> None:
    x, codes = _clustered_scores(2, 1.0)
    design = ClusterDesign.from_codes(codes, "passage")
    res = pairwise_tests(ScoreMatrix.from_array(x), cluster=design)
    t = res.table
    assert set(t["test"]) == {"cluster-t"} and res.test == "cluster-t"  # 0/1: no McNemar
    assert "20 clusters" in res.reason and res.clusters is design
    for row in t.itertuples():
        a, b = int(row.system_a[1:]), int(row.system_b[1:])
        d = x[a] - x[b]
        se = clustered_se(d, codes, convention="cr2")
        assert row.statistic == pytest.approx(d.mean() / se, rel=1e-9)
        assert row.pvalue == pytest.approx(2 * stats.t.sf(abs(d.mean() / se), 19), rel=1e-6)
        half = stats.t.ppf(0.975, 19) * se
        assert (row.ci_low, row.ci_high) == pytest.approx((d.mean() - half, d.mean() + half))
        iid = d.var(ddof=1) / len(d)
        assert row.design_effect == pytest.approx(se**2 / iid, rel=1e-9)


def test_leaderboard_means_are_cluster_robust() -> None:
    x, codes = _clustered_scores(3, 0.5)
    design = ClusterDesign.from_codes(codes)
    lb = leaderboard(ScoreMatrix.from_array(x), cluster=design, bt_resamples=0)
    row = lb.table.set_index("system").loc["s0"]
    se = clustered_se(x[0], codes, convention="cr2")
    assert row["ci_high"] - row["mean"] == pytest.approx(stats.t.ppf(0.975, 19) * se)
    assert row["design_effect"] == pytest.approx(se**2 / (x[0].var(ddof=1) / len(x[0])))


def test_cluster_codes_errors_name_the_column() -> None:
    frame = pd.DataFrame({"example_id": ["a", "a", "b"], "passage": ["p1", "p2", "p1"]})
    with pytest.raises(ValueError, match="one value per example"):
        cluster_codes(frame, "passage", ("a", "b"))
    with pytest.raises(ValueError, match="not in the data"):
        cluster_codes(frame, "nope", ("a", "b"))
    with pytest.raises(ValueError, match="at least 2 clusters"):
        ClusterDesign.from_codes(np.zeros(5))


@pytest.mark.slow
def test_cli_cluster_json(tmp_path: Path, capsys) -> None:  # type: ignore[no-untyped-def]
    x, codes = _clustered_scores(4, 1.0, systems=4)
    rows = [("b", f"s{s}", f"e{i:03d}", "acc", x[s, i], f"p{codes[i]:02d}")
            for s in range(4) for i in range(x.shape[1])]
    f = tmp_path / "c.csv"
    pd.DataFrame(rows, columns=["benchmark", "system", "example_id", "metric", "value",
                                "passage"]).to_csv(f, index=False)
    for command in ("pairwise", "leaderboard"):
        assert main([command, str(f), "--cluster", "passage", "--format", "json"]) == 0
        out = json.loads(capsys.readouterr().out)
        assert out["n_clusters"] == 20 and out["design_effect"] > 1
    assert main(["pairwise", str(f), "--cluster", "nope"]) == 2
    assert "cluster" in capsys.readouterr().err
