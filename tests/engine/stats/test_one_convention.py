"""One convention per design: the A/B comparison gives the Pairwise page's test.

Clusters: ``compare_ab(cluster=)`` and ``pairwise_tests(cluster=)`` both use the CR2
("bias-reduced linearisation") variance with Bell–McCaffrey degrees of freedom, so a pair
gets one p-value on both paths, unequal clusters included (CR1 on G − 1 df gave 0.077
against CR2's 0.092 on such a table). Reference values: CR2 and its df computed here from
the general matrix formulas (Bell & McCaffrey 2002; Pustejovsky & Tipton 2018, "Small-
sample methods for cluster-robust variance estimation and hypothesis testing in fixed
effects models", JBES 36(4)), with the adjustment matrices A_g = (I − H_gg)^(−1/2) by
``scipy.linalg.sqrtm``, not the closed form the engine uses; statsmodels' OLS with
``cov_type="cluster"`` gives CR1 (the convention compare used before).

Modality: on LiveCodeBench code generation (``data/lcb_codegen.jsonl.gz``, Eval-Arena,
MIT; pass@1 as a fraction of samples) three systems have one sample per problem (0/1);
the Pairwise page tests every pair of the benchmark with its paired t, and so must
``compare_ab`` (it ran exact McNemar on the pair alone).
"""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pandas as pd
import pytest
import statsmodels.api as sm
from scipy import linalg, stats

from engine import TestOptions
from engine._matrix import build_matrix
from engine.io._readers import read_results
from engine.stats._ab import compare_ab
from engine.stats._clusters import ClusterDesign, cluster_codes
from engine.stats._pairwise import pairwise_tests
from engine.stats._runs_pairs import cr2_variance

LCB = Path(__file__).resolve().parents[3] / "data" / "lcb_codegen.jsonl.gz"
#: Unequal clusters: 2 to 15 examples each (the discrepancy needs unequal sizes; with equal
#: sizes CR1 and CR2 coincide and both have G − 1 df).
SIZES = (2, 3, 3, 4, 6, 9, 15)


def clustered_table(seed: int = 7, runs: int = 1) -> pd.DataFrame:
    """Two systems on clustered examples: a shared cluster effect (SD 0.5) and noise."""
    rng = np.random.default_rng(seed)
    family = np.repeat([f"f{g}" for g in range(len(SIZES))], SIZES)
    n = len(family)
    effect = np.repeat(rng.normal(0, 0.5, len(SIZES)), SIZES)
    frames = []
    for system, shift in (("base", 0.0), ("cand", 0.25)):
        own = np.repeat(rng.normal(0, 0.4, len(SIZES)), SIZES)  # system × cluster
        for r in range(runs):
            frames.append(pd.DataFrame({
                "benchmark": "b", "metric": "m", "system": system, "run": r,
                "example_id": [f"e{i:02d}" for i in range(n)], "family": family,
                "value": shift + effect + own + rng.normal(0, 1.0, n)}))
    out = pd.concat(frames, ignore_index=True)
    return out if runs > 1 else out.drop(columns="run")


def cr2_by_matrices(d: np.ndarray, codes: np.ndarray) -> tuple[float, float]:
    """CR2 variance of mean(d) and Bell–McCaffrey df from the general formulas.

    Model d = 1·β + e. V = Σ_g M X_gᵀ A_g e_g e_gᵀ A_g X_g M with M = (XᵀX)⁻¹,
    A_g = (I − H_gg)^(−1/2). df = (tr GᵀG)² / ‖GᵀG‖²_F where the columns of G are
    g_g = (I − H)_gᵀ A_g X_g M (working model Φ = I; Bell & McCaffrey 2002, §3).
    """
    n = len(d)
    x = np.ones((n, 1))
    m = np.linalg.inv(x.T @ x)
    h = x @ m @ x.T
    e = d - h @ d
    v = 0.0
    cols = []
    for g in np.unique(codes):
        idx = np.flatnonzero(codes == g)
        a = np.real(linalg.sqrtm(np.linalg.inv(np.eye(len(idx)) - h[np.ix_(idx, idx)])))
        u = (m @ x[idx].T @ a @ e[idx]).item()
        v += u * u
        cols.append(((np.eye(n) - h)[idx].T @ a @ x[idx] @ m).ravel())
    gmat = np.column_stack(cols)
    lam = gmat.T @ gmat
    return v, float(np.trace(lam) ** 2 / (lam * lam).sum())


def differences(df: pd.DataFrame) -> tuple[np.ndarray, np.ndarray]:
    wide = df.pivot_table(index=["example_id", "family"], columns="system", values="value")
    d = (wide["cand"] - wide["base"]).to_numpy()
    return d, pd.factorize(wide.index.get_level_values("family"))[0]


def pairwise_row(df: pd.DataFrame, a: str, b: str, **kwargs: object) -> pd.Series:
    matrix = build_matrix(df, benchmark=str(df["benchmark"].iloc[0]),
                          metric=str(df["metric"].iloc[0]))
    table = pairwise_tests(matrix, **kwargs).table  # type: ignore[arg-type]
    hit = table[(table["system_a"] == a) & (table["system_b"] == b)]
    return hit.iloc[0]


def test_cluster_p_value_is_the_pairwise_one_with_unequal_clusters() -> None:
    df = clustered_table()
    d, codes = differences(df)
    res = compare_ab(df, baseline="base", candidate="cand", cluster="family")
    matrix = build_matrix(df, benchmark="b", metric="m")
    design = ClusterDesign.from_codes(cluster_codes(df, "family", matrix.examples), "family")
    row = pairwise_tests(matrix, cluster=design).table.iloc[0]
    sign = 1.0 if row["system_a"] == "cand" else -1.0
    assert row["test"] == res.test.model == "cluster-t"
    assert res.test.pvalue == pytest.approx(float(row["pvalue"]), rel=1e-9, abs=0)
    lo, hi = sorted((sign * float(row["ci_low"]), sign * float(row["ci_high"])))
    assert (res.test.ci_low, res.test.ci_high) == pytest.approx((lo, hi), rel=1e-9)
    assert res.same_as_pairwise and res.note == ""
    # reference: CR2 and the Bell–McCaffrey df by the general matrix formulas
    v, df_bm = cr2_by_matrices(d, codes)
    assert res.test.se == pytest.approx(np.sqrt(v), rel=1e-9)
    assert res.test.df == pytest.approx(df_bm, rel=1e-9)
    assert df_bm < len(SIZES) - 1  # unequal clusters: fewer df than G − 1
    t = d.mean() / np.sqrt(v)
    assert res.test.pvalue == pytest.approx(2 * stats.t.sf(abs(t), df_bm), rel=1e-9)
    # CR1 (statsmodels' cluster covariance, G − 1 df) is the other convention: not this one
    cr1 = sm.OLS(d, np.ones(len(d))).fit(cov_type="cluster", cov_kwds={"groups": codes})
    p_cr1 = 2 * stats.t.sf(abs(d.mean() / cr1.bse[0]), len(SIZES) - 1)
    assert abs(p_cr1 - res.test.pvalue) > 1e-3
    # the design effect beside the test uses the same CR2 variance as the Pairwise column
    assert res.clusters is not None
    assert res.clusters[1] == pytest.approx(float(row["design_effect"]), rel=1e-9)


@pytest.mark.parametrize("alternative", ["greater", "less"])
def test_one_sided_cluster_p_value_is_the_pairwise_one(alternative: str) -> None:
    df = clustered_table(seed=11)
    res = compare_ab(df, baseline="base", candidate="cand", cluster="family",
                     options=TestOptions(alternative=alternative))
    assert res.pairwise["test"] == res.test.model == "cluster-t"
    assert res.test.pvalue == pytest.approx(res.pairwise["pvalue"], rel=1e-9)
    assert res.same_as_pairwise and res.note == ""


def test_clusters_with_seed_sweeps_say_why_they_differ() -> None:
    # Runs with a run effect: compare adds the run variance (cluster-vc-t), the Pairwise
    # page's clustered t on per-example means does not; the note names the runs, not the
    # clusters (both paths are clustered the same way).
    df = clustered_table(seed=3, runs=3)
    rng = np.random.default_rng(0)
    shift = {(s, r): rng.normal(0, 0.6) for s in ("base", "cand") for r in range(3)}
    df["value"] += [shift[(s, r)] for s, r in zip(df["system"], df["run"], strict=True)]
    res = compare_ab(df, baseline="base", candidate="cand", cluster="family")
    assert res.test.var_run > 0 and res.test.model == "cluster-vc-t"
    assert res.pairwise["test"] == "cluster-t"
    assert not res.same_as_pairwise
    assert "because of repeated runs" in res.note and "cluster-t" in res.note


@pytest.fixture(scope="module")
def lcb() -> pd.DataFrame:
    return read_results(LCB)


def test_lcb_single_sample_pair_gets_the_pairwise_page_test(lcb: pd.DataFrame) -> None:
    single = sorted(s for s, g in lcb.groupby("system") if g["value"].isin([0.0, 1.0]).all())
    assert single == ["Eurus-70B-SFT (n=1)", "Eurux-8x22b-NCA (n=1)",
                      "Gemini-Pro-1.5 (April) (n=1)"]
    a, b = single[0], single[1]
    res = compare_ab(lcb, baseline=a, candidate=b)
    row = pairwise_row(lcb, a, b)  # the Pairwise page: every pair of the benchmark
    assert row["test"] == "paired-t" == res.test.model
    assert res.test.pvalue == pytest.approx(float(row["pvalue"]), rel=1e-9)
    # the row is a − b = baseline − candidate: the interval turns round
    assert (res.test.ci_low, res.test.ci_high) == pytest.approx(
        (-float(row["ci_high"]), -float(row["ci_low"])), rel=1e-9)
    assert res.same_as_pairwise and res.note == ""
    # reference: scipy's paired t on the 400 problems
    wide = lcb[lcb["system"].isin([a, b])].pivot(index="example_id", columns="system",
                                                 values="value")
    assert res.test.pvalue == pytest.approx(stats.ttest_rel(wide[b], wide[a]).pvalue, rel=1e-9)


def test_lcb_numeric_pair_unchanged(lcb: pd.DataFrame) -> None:
    res = compare_ab(lcb, baseline="Claude-2", candidate="Claude-3-Haiku")
    row = pairwise_row(lcb, "Claude-2", "Claude-3-Haiku")
    assert res.test.model == row["test"] == "paired-t"
    assert res.test.pvalue == pytest.approx(float(row["pvalue"]), rel=1e-9)
    assert res.same_as_pairwise and res.note == ""


def test_cr2_t_keeps_alpha_with_unequal_clusters() -> None:
    # Calibration by simulation: no difference, a system × cluster effect, the unequal
    # sizes above. 600 tables; the rejection rate at 0.05 must lie within 3 binomial SEs
    # (±0.027) of 0.05. Measured with 4,000 tables of this design: CR2 0.057, CR1 on G − 1
    # df 0.092 (the convention compare used before over-rejects).
    rng = np.random.default_rng(2024)
    family = np.repeat(np.arange(len(SIZES)), SIZES)
    design = ClusterDesign.from_codes(family)
    reject = 0
    reps = 600
    for _ in range(reps):
        d = np.repeat(rng.normal(0, 0.6, len(SIZES)), SIZES) + rng.normal(0, 1.0, len(family))
        v, df_bm = cr2_variance(d, family)
        reject += 2 * stats.t.sf(abs(d.mean()) / np.sqrt(v), df_bm) < 0.05
    assert df_bm == pytest.approx(design.df)
    assert abs(reject / reps - 0.05) < 3 * np.sqrt(0.05 * 0.95 / reps)


def _runs_table(seed: int = 5) -> pd.DataFrame:
    """4 systems × 40 examples: three with 3 runs (a seed shift per run), one with a single
    run — the Pairwise page pools the run variance over the three."""
    rng = np.random.default_rng(seed)
    base = rng.normal(0, 1, 40)
    rows = []
    for s, (shift, runs) in enumerate(((0.0, 3), (0.3, 3), (0.1, 3), (0.2, 1))):
        for r in range(runs):
            seed_shift = rng.normal(0, 0.15)
            for i in range(40):
                rows.append(("b", f"s{s}", f"e{i}", "m", r,
                             base[i] + shift + seed_shift + rng.normal(0, 0.5)))
    return pd.DataFrame(rows, columns=["benchmark", "system", "example_id", "metric", "run",
                                       "value"])


@pytest.mark.parametrize("pair", [("s0", "s1"), ("s0", "s3")])
def test_with_runs_the_pairwise_figure_is_the_pages(pair: tuple[str, str]) -> None:
    """With repeated runs, A/B compare quotes the Pairwise page's test of the pair as the
    page computes it on the whole benchmark (the run variance pooled over every system with
    runs); computed on the pair alone it pooled two systems' and misquoted the page."""
    from engine._matrix import build_matrix
    from engine.stats._pairwise import pairwise_tests

    df = _runs_table()
    base, cand = pair
    res = compare_ab(df, baseline=base, candidate=cand)
    page = pairwise_tests(build_matrix(df)).table
    row = page[page["system_a"].isin(pair) & page["system_b"].isin(pair)].iloc[0]
    sign = 1.0 if row["system_a"] == cand else -1.0
    assert res.pairwise["test"] == row["test"]
    assert res.pairwise["pvalue"] == pytest.approx(row["pvalue"], rel=1e-9)
    assert res.pairwise["difference"] == pytest.approx(sign * row["difference"], rel=1e-9)
    lo, hi = sorted((sign * row["ci_low"], sign * row["ci_high"]))
    assert (res.pairwise["ci_low"], res.pairwise["ci_high"]) == (pytest.approx(lo),
                                                                 pytest.approx(hi))
