"""Confidence sets for ranks and the τ best (engine/ranking/_rank_sets.py)."""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pandas as pd
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from engine import ScoreMatrix
from engine.cli import main
from engine.cli._json import leaderboard_json
from engine.ranking._mean_covariance import mean_covariance, rank_sets_of
from engine.ranking._rank_intervals import rank_intervals
from engine.ranking._rank_sets import rank_sets, tau_best_set, tau_worst_set
from engine.report._overall_json import overall_document

PISA = Path(__file__).resolve().parents[2] / "data" / "csranks" / "pisa.csv"

# The csranks vignette "Inference for Ranks" (R package csranks, articles/Inference-for-Ranks.html;
# data data-raw/pisa.csv, see tests/data/csranks/SOURCE.md): with Sigma = diag(math_se^2),
# cstaubest(math_score, Sigma, tau = 5) lists these 12 countries; at coverage 0.9 Sweden drops.
VIGNETTE_5BEST = {"Belgium", "Canada", "Denmark", "Estonia", "Finland", "Japan", "Korea",
                  "Netherlands", "Poland", "Slovenia", "Sweden", "Switzerland"}


def _pisa() -> pd.DataFrame:
    return pd.read_csv(PISA)


@pytest.mark.parametrize("seed", [0, 1, 2])
def test_pisa_united_kingdom_marginal_rank_set(seed: int) -> None:
    # Vignette: csranks(math_score, Sigma, simul = FALSE, indices = uk) -> L 8, rank 13, U 23
    # (R = 1000 bootstrap draws). Bootstrap noise moves a bound by at most 1 rank (the
    # vignette's own text says "between 7 and 23" for a different run).
    d = _pisa()
    res = rank_sets(d["math_score"], np.diag(d["math_se"] ** 2), kind="marginal",
                    labels=d["jurisdiction"], rng=seed)
    uk = res.table.set_index("system").loc["United Kingdom"]
    assert uk["rank"] == 13
    assert abs(uk["rank_set_low"] - 8) <= 1
    assert abs(uk["rank_set_high"] - 23) <= 1


@pytest.mark.parametrize("seed", [0, 1, 2])
def test_pisa_five_best_set(seed: int) -> None:
    d = _pisa()
    cov = np.diag(d["math_se"] ** 2)
    mask = tau_best_set(d["math_score"], cov, tau=5, rng=seed)
    found = set(d["jurisdiction"][mask])
    # within ±1 country of the vignette's 12 for bootstrap noise (the seeds here give all 12)
    assert len(found ^ VIGNETTE_5BEST) <= 1
    assert abs(len(found) - 12) <= 1


def test_pisa_five_best_at_90_percent_drops_sweden() -> None:
    d = _pisa()
    mask = tau_best_set(d["math_score"], np.diag(d["math_se"] ** 2), tau=5, alpha=0.10, rng=0)
    assert set(d["jurisdiction"][mask]) == VIGNETTE_5BEST - {"Sweden"}


def test_tau_worst_is_tau_best_of_the_negated_estimates() -> None:
    # csranks::cstauworst is documented as cstaubest of -x
    d = _pisa()
    cov = np.diag(d["math_se"] ** 2)
    worst = tau_worst_set(d["math_score"], cov, tau=3, rng=4)
    best_of_negated = tau_best_set(-d["math_score"], cov, tau=3, rng=4)
    assert worst.tolist() == best_of_negated.tolist()
    assert {"Colombia", "Mexico", "Chile"} <= set(d["jurisdiction"][worst])


@st.composite
def _estimates_and_cov(draw: st.DrawFn) -> tuple[np.ndarray, np.ndarray, int]:
    p = draw(st.integers(2, 7))
    x = np.array(draw(st.lists(st.floats(-3, 3), min_size=p, max_size=p)))
    k = draw(st.integers(1, 4))
    root = np.array(draw(st.lists(st.floats(-1, 1), min_size=p * k, max_size=p * k))).reshape(p, k)
    noise = np.array(draw(st.lists(st.floats(0.05, 1), min_size=p, max_size=p)))
    return x, root @ root.T * 0.3 + np.diag(noise), draw(st.integers(0, 1000))


@pytest.mark.slow
@settings(max_examples=40)
@given(_estimates_and_cov())
def test_simultaneous_sets_contain_marginal_sets(case: tuple[np.ndarray, np.ndarray, int]) -> None:
    # Each system's marginal family is part of the all-pairs family and both stepdowns use the
    # same draws, so every marginal set lies inside the simultaneous one (Mogstad et al. 2024).
    x, cov, seed = case
    simul = rank_sets(x, cov, kind="simultaneous", rng=seed, n_draws=200).table.set_index("system")
    marg = rank_sets(x, cov, kind="marginal", rng=seed, n_draws=200).table.set_index("system")
    marg = marg.loc[simul.index]
    assert (simul["rank_set_low"] <= marg["rank_set_low"]).all()
    assert (simul["rank_set_high"] >= marg["rank_set_high"]).all()
    assert (marg["rank_set_low"] <= marg["rank"]).all() and (marg["rank"] <= marg["rank_set_high"]).all()
    assert simul["in_best_set"].sum() >= 1
    # the sets do not depend on the order the systems come in (pages list them differently)
    perm = np.random.default_rng(seed).permutation(len(x))
    labels = [str(i) for i in range(len(x))]
    again = rank_sets(x[perm], cov[np.ix_(perm, perm)], labels=[labels[i] for i in perm],
                      rng=seed, n_draws=200).table.set_index("system").loc[simul.index]
    pd.testing.assert_frame_equal(again, simul)


def test_single_step_equal_variances_agrees_with_tukey() -> None:
    # Independent equal-variance estimates: the all-pairs max-t quantile is the studentized
    # range q(0.95; S, ∞)/√2 (scipy, in rank_intervals), so the single-step simultaneous sets
    # are Tukey's rank intervals; 20,000 draws: Monte Carlo error of the quantile ≈ 0.02.
    x = np.arange(12)[::-1] * 0.9  # gaps of k × 1.27 standard errors of a difference
    se = np.full(12, 0.5)
    tukey = rank_intervals(x, se)
    ours = rank_sets(x, np.diag(se**2), stepdown=False, n_draws=20_000, rng=5)
    assert ours.critical_value == pytest.approx(tukey.critical_value, abs=0.05)
    t = np.abs(x[:, None] - x[None, :]) / (0.5 * np.sqrt(2))
    assert np.abs(t - tukey.critical_value).min() > 0.05  # no pair sits on the boundary
    cols = ["system", "rank_ci_low", "rank_ci_high"]
    expected = tukey.table[cols].to_numpy().tolist()
    assert ours.table[["system", "rank_set_low", "rank_set_high"]].to_numpy().tolist() == expected
    stepped = rank_sets(x, np.diag(se**2), n_draws=20_000, rng=5).table
    assert (stepped["rank_set_low"] >= tukey.table["rank_ci_low"]).all()  # stepdown only narrows
    assert (stepped["rank_set_high"] <= tukey.table["rank_ci_high"]).all()


def test_mean_covariance_full_pairing_is_sample_covariance_over_n() -> None:
    rng = np.random.default_rng(0)
    values = rng.normal(size=(4, 50)) + rng.normal(size=(1, 50))
    mc = mean_covariance(ScoreMatrix.from_array(values, systems=list("abcd")))
    np.testing.assert_allclose(mc.cov, np.cov(values) / 50, rtol=1e-12)  # numpy's covariance
    np.testing.assert_allclose(mc.estimates, values.mean(axis=1))
    assert mc.method == "paired" and mc.n_clusters == 50


def test_mean_covariance_clusters_match_statsmodels() -> None:
    # The cluster-robust variance of one system's mean is statsmodels' cluster covariance of
    # an intercept-only OLS (small-sample factor G/(G-1); (n-1)/(n-k) = 1 for k = 1).
    import statsmodels.api as sm

    rng = np.random.default_rng(1)
    clusters = np.repeat(np.arange(10), 6)
    values = rng.normal(size=(2, 60)) + rng.normal(size=(1, 10))[:, clusters]
    mc = mean_covariance(ScoreMatrix.from_array(values, systems=["a", "b"]), cluster=clusters)
    for i in range(2):
        fit = sm.OLS(values[i], np.ones(60)).fit(cov_type="cluster", cov_kwds={"groups": clusters},
                                                 use_correction=False)
        assert mc.cov[i, i] == pytest.approx(float(fit.cov_params()[0, 0]), rel=1e-10)
    d = values[0] - values[1]
    fit = sm.OLS(d, np.ones(60)).fit(cov_type="cluster", cov_kwds={"groups": clusters},
                                     use_correction=False)
    var_d = mc.cov[0, 0] + mc.cov[1, 1] - 2 * mc.cov[0, 1]
    assert var_d == pytest.approx(float(fit.cov_params()[0, 0]), rel=1e-10)
    assert mc.method == "cluster" and mc.n_clusters == 10


def test_paired_covariance_separates_what_independent_ses_cannot() -> None:
    # Two systems that differ on 12 of 400 shared examples (always the same direction):
    # independent standard errors cannot order them, the paired covariance can.
    base = (np.arange(400) % 3 == 0).astype(float)
    better = base.copy()
    better[np.flatnonzero(base == 0)[:12]] = 1.0
    m = ScoreMatrix.from_array(np.vstack([better, base, base * 0]), systems=["a", "b", "c"])
    paired = rank_sets_of(m).table.set_index("system")
    assert paired.loc["a", "rank_set_high"] == 1 and paired.loc["b", "rank_set_low"] == 2
    assert paired.loc["a", "in_best_set"] and not paired.loc["b", "in_best_set"]
    se = np.sqrt(np.diag(mean_covariance(m).cov))
    independent = rank_sets(m.values.mean(axis=1), np.diag(se**2), labels=m.systems).table
    assert independent.set_index("system").loc["a", "rank_set_high"] == 2


def test_identical_systems_share_their_rank_set() -> None:
    row = (np.arange(100) % 2).astype(float)
    m = ScoreMatrix.from_array(np.vstack([row, row, np.zeros(100)]), systems=["a", "b", "c"])
    t = rank_sets_of(m).table.set_index("system")
    assert (t.loc["a", "rank_set_low"], t.loc["a", "rank_set_high"]) == (1, 2)
    assert (t.loc["b", "rank_set_low"], t.loc["b", "rank_set_high"]) == (1, 2)
    assert t.loc["c", "rank_set_low"] == 3


def test_lower_is_better_ranks_the_smallest_first() -> None:
    res = rank_sets([1.0, 5.0, 9.0], np.eye(3) * 0.01, labels=list("abc"), higher_is_better=False)
    assert res.table["system"].tolist() == ["a", "b", "c"]
    assert res.best_set == ("a",)


@pytest.mark.parametrize(("kwargs", "message"), [
    ({"alpha": 1.5}, "alpha: must be strictly between 0 and 1"),
    ({"cov": np.eye(2)}, "cov: must be a 3 × 3 matrix"),
    ({"cov": np.array([[1, 0.5, 0], [0, 1, 0], [0, 0, 1]])}, "cov: must be symmetric"),
    ({"tau_best": 4}, "tau_best: must be a whole number from 1 to the number of systems (3)"),
    ({"kind": "joint"}, "kind: must be one of"),
    ({"n_draws": 10}, "n_draws: must be at least 100"),
])
def test_bad_arguments_are_named(kwargs: dict[str, object], message: str) -> None:
    args: dict[str, object] = {"cov": np.eye(3), **kwargs}
    cov = args.pop("cov")
    with pytest.raises(ValueError, match=message.replace("(", r"\(").replace(")", r"\)")):
        rank_sets([1.0, 2.0, 3.0], cov, **args)  # type: ignore[arg-type]


def _long_csv(path: Path) -> Path:
    rng = np.random.default_rng(2)
    rows = [{"system": s, "example_id": f"e{j}", "benchmark": "b", "metric": "acc",
             "value": float(rng.random() < p), "family": f"f{j % 5}"}
            for s, p in [("A", 0.9), ("B", 0.5), ("C", 0.45)] for j in range(120)]
    pd.DataFrame(rows).to_csv(path, index=False)
    return path


@pytest.mark.slow
def test_cli_ranks_json(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    data = str(_long_csv(tmp_path / "r.csv"))
    assert main(["ranks", data, "--kind", "marginal", "--tau-best", "2", "--format", "json"]) == 0
    out = json.loads(capsys.readouterr().out)
    assert out["kind"] == "marginal" and out["tau_best"] == 2
    rows = {r["system"]: r for r in out["systems"]}
    assert rows["A"]["rank_set_low"] == 1 and rows["A"]["rank_set_high"] == 1
    assert set(out["best_set"]) == {"A", "B", "C"}
    assert main(["ranks", data, "--cluster", "family", "--format", "json"]) == 0
    assert json.loads(capsys.readouterr().out)["cluster"] == "family"


@pytest.mark.slow
def test_cli_ranks_bad_input_exits_2(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    data = str(_long_csv(tmp_path / "r.csv"))
    assert main(["ranks", data, "--tau-best", "9"]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "tau_best" in err
    assert main(["ranks", data, "--cluster", "nope"]) == 2
    assert "--cluster: column 'nope' not in DATA" in capsys.readouterr().err


HUMANEVAL = Path(__file__).resolve().parents[3] / "data" / "humaneval.jsonl.gz"


@pytest.fixture(scope="module")
def humaneval() -> pd.DataFrame:
    from engine import read_results

    return read_results(str(HUMANEVAL))


@pytest.mark.slow
def test_leaderboard_and_overall_json_carry_the_same_rank_sets(humaneval: pd.DataFrame) -> None:
    # one benchmark: the overall score is 100 × the mean, so its simultaneous sets are the
    # leaderboard's (same draws after standardising), which are rank_sets_of the matrix on
    # the page's pairwise tests (the same verdicts as Overall's pairs on one benchmark)
    from engine import build_matrix, leaderboard, overall, pairwise_tests

    m = build_matrix(humaneval)
    expected = rank_sets_of(m, pairwise=pairwise_tests(m)).table.set_index("system")
    lb = {r["system"]: r for r in leaderboard_json(leaderboard(m, bt_resamples=0), [])["systems"]}  # type: ignore[attr-defined]
    ov = {r["system"]: r for r in overall_document(overall(humaneval))["systems"]}
    for s, row in expected.iterrows():
        want = (int(row["rank_set_low"]), int(row["rank_set_high"]), bool(row["in_best_set"]))
        assert (lb[s]["rank_set_low"], lb[s]["rank_set_high"], lb[s]["in_best_set"]) == want
        assert (ov[s]["rank_set_low"], ov[s]["rank_set_high"], ov[s]["in_best_set"]) == want
        # one rank range in each document: rank_low/rank_high are the rank set
        for doc in (lb, ov):
            assert (doc[s]["rank_low"], doc[s]["rank_high"]) == want[:2]
    assert 1 < sum(r["in_best_set"] for r in lb.values()) < len(lb)


@pytest.mark.slow
def test_calibration_simultaneous_and_best_set_cover() -> None:
    # 300 replications of 10 systems (three tied best, two tied in the middle) on 300 shared
    # 0/1 examples with a common difficulty (benchmarks/calibrate_rank_sets.py runs 500 and the
    # clustered case): all true ranks covered at once, and every true best in the 1-best set,
    # in >= 95% less two Monte Carlo standard errors (sqrt(0.95 * 0.05 / 300) = 0.013).
    skills = np.array([1.0, 1.0, 1.0, 0.7, 0.4, 0.4, 0.1, -0.2, -0.5, -1.0])
    low = 1 + (skills[None, :] > skills[:, None]).sum(axis=1)
    high = len(skills) - (skills[None, :] < skills[:, None]).sum(axis=1)
    rng = np.random.default_rng(29)
    names = [f"s{i}" for i in range(10)]
    covered, best = [], []
    for rep in range(300):
        p = 1 / (1 + np.exp(-(skills[:, None] - rng.normal(0, 1, 300)[None, :])))
        m = ScoreMatrix.from_array((rng.random(p.shape) < p).astype(float), systems=names)
        t = rank_sets_of(m, rng=rep).table.set_index("system").loc[names]
        covered.append(bool(((t["rank_set_low"] <= low) & (t["rank_set_high"] >= high)).all()))
        best.append(bool(t["in_best_set"].to_numpy()[:3].all()))
    floor = 0.95 - 2 * np.sqrt(0.95 * 0.05 / 300)
    assert np.mean(covered) >= floor and np.mean(best) >= floor


def test_clustered_leaderboard_has_cluster_robust_rank_sets() -> None:
    from engine import leaderboard
    from engine.stats._clusters import ClusterDesign

    rng = np.random.default_rng(11)
    codes = np.repeat(np.arange(12), 10)
    values = (rng.random((4, 120)) < np.array([[0.8], [0.6], [0.55], [0.3]])).astype(float)
    m = ScoreMatrix.from_array(values, systems=list("abcd"))
    lb = leaderboard(m, cluster=ClusterDesign.from_codes(codes), bt_resamples=0)
    assert lb.rank_sets is not None
    expected = rank_sets_of(m, cluster=codes).table
    pd.testing.assert_frame_equal(lb.rank_sets.table, expected)


# --- the Overall's covariance (issue #29 item 3) ----------------------------------------------


def _bench(values: np.ndarray, examples: list[str], name: str) -> ScoreMatrix:
    return ScoreMatrix.from_array(values, systems=["A", "B", "C"], examples=examples,
                                  benchmark=name)


def test_overall_covariance_of_one_benchmark_counted_twice_is_its_own() -> None:
    # two benchmarks with the same example ids and scores, weights 1/2 each: the overall
    # score is the mean itself, so its covariance is mean_covariance's (reference: the
    # leaderboard's paired covariance, checked above against the sample covariance / n)
    from engine.ranking._mean_covariance import overall_covariance

    x = np.random.default_rng(1).normal(size=(3, 40))
    ids = [f"e{i}" for i in range(40)]
    m = _bench(x, ids, "b1")
    got = overall_covariance([m, _bench(x, ids, "b2")], ["A", "B", "C"], [0.5, 0.5])
    np.testing.assert_allclose(got, mean_covariance(m).cov, rtol=1e-12)


def test_overall_covariance_of_disjoint_benchmarks_adds_weighted_covariances() -> None:
    # no example id in common: benchmarks independent, Cov = sum_j a_j^2 Sigma_j, up to the
    # small-sample factor G/(G - 1) taken over all ids instead of per benchmark
    from engine.ranking._mean_covariance import overall_covariance

    rng = np.random.default_rng(2)
    m1 = _bench(rng.normal(size=(3, 30)), [f"a{i}" for i in range(30)], "b1")
    m2 = _bench(rng.normal(size=(3, 50)), [f"b{i}" for i in range(50)], "b2")
    want = 0.3**2 * mean_covariance(m1).cov * (29 / 30) + 0.7**2 * mean_covariance(m2).cov * (49 / 50)
    got = overall_covariance([m1, m2], ["A", "B", "C"], [0.3, 0.7])
    np.testing.assert_allclose(got, want * (80 / 79), rtol=1e-12)


def test_overall_covariance_counts_shared_ids_as_correlated() -> None:
    # the same examples scored twice with the same scores: the two benchmarks' deviations
    # add up (covariance 4 Sigma for weights 1 and 1), where independence would give 2 Sigma
    from engine.ranking._mean_covariance import overall_covariance

    x = np.random.default_rng(3).normal(size=(3, 25))
    ids = [f"e{i}" for i in range(25)]
    got = overall_covariance([_bench(x, ids, "b1"), _bench(x, ids, "b2")], ["A", "B", "C"],
                             [1.0, 1.0])
    np.testing.assert_allclose(got, 4 * mean_covariance(_bench(x, ids, "b1")).cov, rtol=1e-12)


@pytest.mark.parametrize("seed", range(4))
def test_compiled_pair_max_equals_the_numpy_blocks(seed: int, monkeypatch: pytest.MonkeyPatch
                                                   ) -> None:
    # issue #29 item 4: the compiled max over pairs (engine._jit) gives the numpy path's
    # maxima exactly (the same float32 products), with pairs open one way, both ways or not
    from engine import _jit
    from engine.ranking import _max_t

    if _jit.kernels() is None:
        pytest.skip("Numba is not installed")
    rng = np.random.default_rng(seed)
    s = int(rng.integers(2, 40))
    z = rng.normal(size=(s, 300)).astype(np.float32)
    inv = np.abs(rng.normal(size=(s, s))).astype(np.float32)
    inv = (inv + inv.T) / 2
    active = rng.random((s, s)) < 0.6
    np.fill_diagonal(active, False)
    monkeypatch.setattr(_max_t, "kernels_for", lambda seconds: _jit.kernels())
    compiled = _max_t._family_max(z, inv, active)
    monkeypatch.setattr(_max_t, "kernels_for", lambda seconds: None)
    np.testing.assert_array_equal(compiled, _max_t._family_max(z, inv, active))
