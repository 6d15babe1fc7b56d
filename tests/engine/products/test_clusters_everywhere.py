"""Issue #26 item 1, "clusters everywhere": Overall, health and Miller's estimator on a dataset.

Reference values and where they come from:
- Overall with one benchmark gives exactly that benchmark's pair p-values (the property
  ``engine.products._overall.overall`` documents), so with a cluster column they must be the
  cluster-robust ones of ``pairwise_tests(cluster=...)`` (itself checked against CR2's
  definition in test_clusters.py).
- Health with a cluster column: its pair p-values are the same cluster-robust t, its MDD
  the paired z formula on the CR2 standard error.
- Miller, E. (2024), "Adding Error Bars to Evals: A Statistical Approach to Language Model
  Evaluations", arXiv:2411.00640, eq. 4 (clustered SE of a mean, no small-sample factor):
  the paper's text is not among the project's stored sources, so no numbered example of
  it is reproduced here; eq. 4 is checked on a fixed dataset (12 questions in 4 passages,
  typed below) against statsmodels' OLS of ``y ~ 1`` with ``cov_type="cluster"`` and
  ``use_correction=False`` (the same estimator), and Inspect's ``stderr(cluster=...)``
  convention (G/(G−1) factor) against statsmodels' default correction.
"""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest
import statsmodels.api as sm
from scipy import stats

from engine._matrix import build_matrix
from engine.cli._json import ab_json, health_json
from engine.products._health import benchmark_health
from engine.products._overall import overall
from engine.stats._clusters import ClusterDesign, cluster_codes, clustered_se, design_where_given
from engine.stats._pairwise import pairwise_tests

# 12 questions, 4 passages of 3; paired differences of two systems' 0/1 scores
MILLER_DATA = pd.DataFrame({"passage": ["p1"] * 3 + ["p2"] * 3 + ["p3"] * 3 + ["p4"] * 3,
                            "d": [1, 1, 0, 0, 0, -1, 1, 1, 1, 0, -1, 0]})


def test_miller_eq4_on_a_dataset_equals_statsmodels_cluster_without_correction() -> None:
    y, groups = MILLER_DATA["d"].to_numpy(float), MILLER_DATA["passage"].to_numpy()
    codes = pd.factorize(groups)[0]
    fit = sm.OLS(y, np.ones(len(y))).fit(cov_type="cluster",
                                         cov_kwds={"groups": codes, "use_correction": False})
    assert clustered_se(y, codes, convention="miller") == pytest.approx(float(fit.bse[0]),
                                                                        rel=1e-12)
    cr1 = sm.OLS(y, np.ones(len(y))).fit(cov_type="cluster", cov_kwds={"groups": codes})
    assert clustered_se(y, codes, convention="inspect") == pytest.approx(float(cr1.bse[0]),
                                                                         rel=1e-12)
    # the design effect: clustered over independent variance of the mean (here > 1)
    iid = float(stats.sem(y))
    assert (clustered_se(y, codes, convention="miller") / iid) ** 2 > 1.0


def _clustered_frame(benchmarks: tuple[str, ...] = ("b1",), seed: int = 0) -> pd.DataFrame:
    rng = np.random.default_rng(seed)
    rows = []
    for b in benchmarks:
        passage = rng.normal(0, 1, 12)
        for s in range(4):
            inter = rng.normal(0, 1, 12)
            for i in range(96):
                g = i // 8
                p = 1 / (1 + np.exp(-(0.5 + 0.2 * s - passage[g] + inter[g])))
                rows.append((b, f"s{s}", f"{b}-e{i:03d}", "acc", float(rng.random() < p),
                             f"{b}-p{g}"))
    return pd.DataFrame(rows, columns=["benchmark", "system", "example_id", "metric", "value",
                                       "passage"])


def _design(df: pd.DataFrame, examples: tuple[str, ...]) -> ClusterDesign:
    return ClusterDesign.from_codes(cluster_codes(df, "passage", examples), "passage")


def test_overall_with_one_benchmark_uses_its_cluster_robust_tests() -> None:
    df = _clustered_frame()
    matrix = build_matrix(df)
    want = pairwise_tests(matrix, cluster=_design(df, matrix.examples)).table
    got = overall(df, cluster="passage")
    assert any("clustered by passage: 12 clusters" in n and "design effect" in n
               for n in got.notes)
    for _, row in got.pairs.iterrows():
        pair = want[((want["system_a"] == row["system_a"]) & (want["system_b"] == row["system_b"]))
                    | ((want["system_a"] == row["system_b"]) & (want["system_b"] == row["system_a"]))]
        assert float(row["pvalue"]) == pytest.approx(float(pair["pvalue"].iloc[0]), rel=1e-6)
    plain = overall(df)
    assert not any("clustered" in n for n in plain.notes)


def test_overall_leaves_benchmarks_without_the_column_unclustered() -> None:
    df = _clustered_frame(("b1", "b2"))
    df.loc[df["benchmark"] == "b2", "passage"] = np.nan
    notes = overall(df, cluster="passage").notes
    assert any(n.startswith("b1: clustered") for n in notes)
    assert not any(n.startswith("b2: clustered") for n in notes)
    b2 = df[df["benchmark"] == "b2"]
    assert design_where_given(b2, "passage", tuple(b2["example_id"].unique())) is None


def test_health_with_clusters_is_cluster_robust_and_reports_the_design() -> None:
    df = _clustered_frame()
    matrix = build_matrix(df)
    design = _design(df, matrix.examples)
    plain = benchmark_health(matrix)
    report = benchmark_health(matrix, cluster=design)
    want = pairwise_tests(matrix, cluster=design).table
    row = want.iloc[0]
    mine = report.pairs[(report.pairs["system_a"] == row["system_a"])
                        & (report.pairs["system_b"] == row["system_b"])].iloc[0]
    assert float(mine["pvalue"]) == pytest.approx(float(row["pvalue"]), rel=1e-9)
    z = stats.norm.ppf(0.975) + stats.norm.ppf(0.8)
    assert report.mdd == pytest.approx(z * report.se_diff, rel=1e-12)
    out = health_json(report)
    assert out["noise_test"] == "cluster-t" and out["n_clusters"] == 12
    assert out["design_effect"] is not None and out["design_effect"] > 1.0
    assert report.mdd > plain.mdd and health_json(plain)["n_clusters"] is None


def test_compare_reports_clusters_and_design_effect() -> None:
    # the design effect beside compare's clustered interval: statsmodels' cluster-robust
    # variance of mean(d) (CR1, the test's) over the independent-examples variance s²_d / n
    from engine.stats._ab import compare_ab

    df = _clustered_frame()
    res = compare_ab(df, baseline="s0", candidate="s3", cluster="passage")
    assert res.test.model == "cluster-t"
    wide = df.pivot(index="example_id", columns="system", values="value")
    d = (wide["s3"] - wide["s0"]).to_numpy(float)
    groups = df.drop_duplicates("example_id").set_index("example_id")["passage"]
    codes = pd.factorize(groups.reindex(wide.index))[0]
    fit = sm.OLS(d, np.ones(len(d))).fit(cov_type="cluster", cov_kwds={"groups": codes})
    want = float(fit.bse[0]) ** 2 / (d.var(ddof=1) / len(d))
    assert res.clusters is not None and res.clusters[0] == 12
    assert res.clusters[1] == pytest.approx(want, rel=1e-9)
    out = ab_json(res)
    assert out["n_clusters"] == 12 and out["design_effect"] == pytest.approx(want, rel=1e-9)
    assert ab_json(compare_ab(df, baseline="s0", candidate="s3"))["n_clusters"] is None
