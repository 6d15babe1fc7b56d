"""Aggregation mechanisms compared (engine/ranking/_mechanisms.py; Peyrard, Zhao, Eger & West
2021, *Better than Average: Paired Evaluation of NLP Systems*, ACL-IJCNLP 2021)."""

from __future__ import annotations

from dataclasses import replace
from pathlib import Path

import numpy as np
import pandas as pd
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from scipy import stats
from statsmodels.stats.multitest import multipletests

from engine import build_matrix, read_results
from engine._matrix import ScoreMatrix
from engine.cli._json import mechanisms_json
from engine.ranking._bradley_terry import bradley_terry
from engine.ranking._mechanisms import (
    CORE_MECHANISMS,
    davidson,
    kendall_tau_matrix,
    mechanisms,
    p_beats,
    rank_by,
)
from engine.stats._kernels import win_matrix

DATA = Path(__file__).resolve().parents[2] / "data" / "mechanisms"
FAST = {"n_permutations": 8, "trueskill_permutations": 2}


@pytest.fixture(scope="module")
def humaneval() -> ScoreMatrix:
    return build_matrix(read_results(DATA / "humaneval.jsonl.gz"))


def _matrix(scores: dict[str, list[float]], higher_is_better: bool = True) -> ScoreMatrix:
    rows = [{"benchmark": "b", "metric": "m", "system": s, "example_id": f"e{i}", "value": v}
            for s, values in scores.items() for i, v in enumerate(values)]
    # direction set on the matrix itself: independent of how build_matrix takes it
    return replace(build_matrix(pd.DataFrame(rows)), higher_is_better=higher_is_better)


def test_p_beats_matches_a_per_pair_loop_on_humaneval(humaneval: ScoreMatrix) -> None:
    sub = humaneval.subset(list(humaneval.systems[:25]))  # 300 pairs keep the loop fast
    res = p_beats(sub)
    x = sub.values
    rows = []
    for i in range(len(x)):  # the per-pair reference: counts, scipy's binomtest, statsmodels
        for j in range(i + 1, len(x)):
            a, b = int((x[i] > x[j]).sum()), int((x[j] > x[i]).sum())
            ties = x.shape[1] - a - b
            p = stats.binomtest(a, a + b, 0.5).pvalue if a + b else 1.0
            rows.append((a, b, ties, (a + ties / 2) / x.shape[1], p))
    ref = np.array(rows, dtype=float)
    t = res.table
    np.testing.assert_array_equal(t[["wins_a", "wins_b", "ties"]].to_numpy(), ref[:, :3])
    np.testing.assert_allclose(t["p_a_beats_b"], ref[:, 3], rtol=1e-12)
    np.testing.assert_allclose(t["pvalue"], ref[:, 4], rtol=1e-9, atol=1e-300)
    with np.errstate(divide="ignore"):  # Šidák takes log(1 - p) of p = 1
        adj = multipletests(ref[:, 4], alpha=0.05, method="holm-sidak")[1]
    np.testing.assert_allclose(t["pvalue_adj"], np.maximum(adj, ref[:, 4]), rtol=1e-9, atol=1e-300)
    assert (t["pvalue_adj"] >= t["pvalue"]).all()
    assert (t["significant"] == (t["pvalue_adj"] < 0.05)).all()
    prob = res.prob.to_numpy()
    np.testing.assert_allclose(prob + prob.T, np.where(np.eye(len(x), dtype=bool), np.nan, 1.0))


def test_p_beats_orients_lower_is_better() -> None:
    res = p_beats(_matrix({"A": [1.0, 2.0, 3.0], "B": [2.0, 3.0, 3.0]}, higher_is_better=False))
    assert res.prob.loc["A", "B"] == pytest.approx((2 + 0.5) / 3)


@settings(max_examples=40)
@given(st.integers(2, 12), st.integers(2, 5), st.integers(0, 2**31 - 1))
def test_kendall_tau_equals_scipy(n: int, m: int, seed: int) -> None:
    rng = np.random.default_rng(seed)
    scores = {f"m{i}": rng.integers(0, 4, n).astype(float) for i in range(m)}
    taus = kendall_tau_matrix(scores)
    assert len(taus) == m * (m - 1) // 2
    for key, tau in taus.items():
        a, b = key.split("|")
        with np.errstate(invalid="ignore", divide="ignore"):
            ref = stats.kendalltau(scores[a], scores[b]).statistic  # tau-b, scipy's default
        if np.isnan(ref):
            assert np.isnan(tau)
        else:
            assert tau == pytest.approx(ref, abs=1e-12)


def test_davidson_satisfies_its_likelihood_equations() -> None:
    # At the MLE, each system's expected wins + half ties equal the observed ones and the
    # expected ties equal the observed ties (Davidson 1970, eqs. 3.2–3.3).
    rng = np.random.default_rng(4)
    x = rng.integers(0, 3, (6, 60)).astype(float) + np.arange(6)[:, None] * 0.3 // 1
    n = x.shape[1]
    wins = win_matrix(x)
    ties = n - wins - wins.T
    np.fill_diagonal(ties, 0)
    fit = davidson(wins, ties)
    assert fit.converged and fit.prior == 0
    pi, nu = fit.strength, fit.nu
    d = pi[:, None] + pi[None, :] + nu * np.sqrt(np.outer(pi, pi))
    nn = wins + wins.T + ties
    p_win, p_tie = pi[:, None] / d, nu * np.sqrt(np.outer(pi, pi)) / d
    np.fill_diagonal(p_win, 0)
    np.fill_diagonal(p_tie, 0)
    np.testing.assert_allclose((nn * (p_win + p_tie / 2)).sum(axis=1),
                               wins.sum(axis=1) + ties.sum(axis=1) / 2, rtol=1e-5)
    assert np.triu(nn * p_tie, 1).sum() == pytest.approx(np.triu(ties, 1).sum(), rel=1e-5)


def test_davidson_without_ties_is_bradley_terry() -> None:
    x = np.random.default_rng(8).normal(size=(5, 80)) + np.arange(5)[:, None] * 0.2
    wins = win_matrix(x)
    fit = davidson(wins, np.zeros_like(wins))
    ref = bradley_terry(wins, wins + wins.T).strength
    np.testing.assert_allclose(fit.strength, ref, rtol=1e-4)
    assert fit.nu < 1e-10


def test_peyrard_figure_1_pattern_mean_ties_but_pairing_decides() -> None:
    # Peyrard et al. (2021), Fig. 1: equal means, yet B beats A on all instances but one.
    m = _matrix({"A": [1, 2, 3, 4, 15], "B": [2, 3, 4, 5, 11]})
    res = mechanisms(m, **FAST)
    assert res.scores["mean"].tolist() == [5.0, 5.0]
    assert res.rankings["mean"] == ("A", "B")  # a tie, broken by name
    assert res.rankings["median"] == ("B", "A")
    assert res.rankings["bradley_terry"] == ("B", "A")
    assert res.p_beats.prob.loc["B", "A"] == pytest.approx(0.8)
    assert res.winner_differs


def test_mechanisms_on_humaneval(humaneval: ScoreMatrix) -> None:
    # 15 systems (~7,000 battles) keep the test fast; benchmarks/bench_mechanisms.py runs all 78
    humaneval = humaneval.subset(list(humaneval.systems[:15]))
    res = mechanisms(humaneval, **FAST)
    d = mechanisms_json(res)
    assert set(d) >= {"rankings", "kendall_tau", "winner_differs", "top3_differs"}
    assert set(d["rankings"]) >= set(CORE_MECHANISMS)  # type: ignore[arg-type]
    for order in d["rankings"].values():  # type: ignore[attr-defined]
        assert sorted(order) == sorted(humaneval.systems)
    means = humaneval.values.mean(axis=1)
    assert d["rankings"]["mean"] == list(rank_by(means, humaneval.systems))  # type: ignore[index]
    elo = res.scores.set_index("system")["elo"]
    assert list(elo.loc[list(res.rankings["elo"])]) == sorted(elo, reverse=True)
    taus = d["kendall_tau"]
    assert "mean|median" in taus and all(-1 <= t <= 1 for t in taus.values())  # type: ignore[operator, attr-defined]
    winners = {res.rankings[m][0] for m in CORE_MECHANISMS}
    assert d["winner_differs"] == (len(winners) > 1)
    # Binary scores: Bradley–Terry with half ties is a monotone function of the mean
    # (P(i beats j) = 1/2 + (mean_i - mean_j)/2), so it never disagrees with the mean.
    assert taus["mean|bradley_terry"] == pytest.approx(1.0, abs=1e-6)  # type: ignore[index]
    assert res.scores["elo"].mean() == pytest.approx(1000.0)


@settings(max_examples=5)
@given(st.integers(0, 2**31 - 1))
def test_row_order_does_not_change_the_deterministic_rankings(seed: int) -> None:
    rng = np.random.default_rng(seed)
    scores = {f"s{i}": rng.integers(0, 4, 15).astype(float).tolist() for i in range(5)}
    names = list(scores)
    shuffled = {names[i]: scores[names[i]] for i in rng.permutation(5)}
    a, b = mechanisms(_matrix(scores), **FAST), mechanisms(_matrix(shuffled), **FAST)
    for m in ("mean", "median", "bradley_terry", "bradley_terry_ignore_ties",
              "bradley_terry_davidson", "elo_mle"):
        assert a.rankings[m] == b.rankings[m]


def test_bad_inputs_name_the_argument(humaneval: ScoreMatrix) -> None:
    with pytest.raises(TypeError, match="options: must be a TestOptions; got dict"):
        p_beats(humaneval, options={"alpha": 2})  # type: ignore[arg-type]
    with pytest.raises(TypeError, match="options: must be a TestOptions; got str"):
        mechanisms(humaneval, options="holm")  # type: ignore[arg-type]
    disjoint = build_matrix(pd.DataFrame({
        "benchmark": "b", "metric": "m", "system": ["A", "B"], "example_id": ["1", "2"],
        "value": [1.0, 0.0]}))
    with pytest.raises(ValueError, match="matrix: no example is scored by every system"):
        mechanisms(disjoint)
