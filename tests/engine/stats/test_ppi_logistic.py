"""PPI++ logistic regression and the judged-battle leaderboard (PPI++ Bradley-Terry; #31,
Boyeau et al. 2024).

References: ``ppi_py`` 0.2.3 itself (``ppi_logistic_ci``, ``ppi_logistic_pointestimate``) on
random battle designs — its L-BFGS-B stops at a projected gradient of ~1e-5 (measured
differences to ours 1e-11 to 3e-8), hence the 1e-6 tolerance; with lam = 0, statsmodels'
``Logit`` (coefficients, HC0 sandwich covariance times n / (n - 1), ppi_py's np.cov);
calibration by simulation (benchmarks/calibrate_ppi.py runs 500 replications)."""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pandas as pd
import pytest
from scipy.special import expit

from engine import DataContractError
from engine.cli import main
from engine.io._battles_judged import judged_battles
from engine.products._judge_battles import POINTS, judge_battle_board
from engine.stats._ppi_logistic import ppi_logistic

ppi_py = pytest.importorskip("ppi_py")

THETA = np.linspace(-1.0, 1.0, 6)
BIAS = np.array([0.6, -0.6, 0.3, 0.0, -0.3, 0.5])


def _battles(rng: np.random.Generator, n: int, share: float, s: int = 6,
             ties: float = 0.0) -> tuple[np.ndarray, ...]:
    """(x, human y, judge y, labelled) of random battles: humans by Bradley-Terry THETA, the
    judge agreeing 60% of the time and otherwise biased by BIAS; ``ties`` of the judge's 1/2."""
    a = rng.integers(0, s, n)
    b = (a + rng.integers(1, s, n)) % s
    x = np.zeros((n, s))
    x[np.arange(n), a], x[np.arange(n), b] = 1.0, -1.0
    th, bias = THETA[:s], BIAS[:s]
    y = (rng.random(n) < expit(th[a] - th[b])).astype(float)
    biased = (rng.random(n) < expit(th[a] + bias[a] - th[b] - bias[b])).astype(float)
    yhat = np.where(rng.random(n) < 0.6, y, biased)
    yhat = np.where(rng.random(n) < ties, 0.5, yhat)
    return x[:, 1:], y, yhat, rng.random(n) < share


@pytest.mark.slow
@pytest.mark.parametrize("seed", range(4))
@pytest.mark.parametrize("lam", [None, 0.0, 0.4, 1.0])
def test_equals_ppi_py_on_random_battles(seed: int, lam: float | None) -> None:
    rng = np.random.default_rng(seed)
    x, y, yhat, lab = _battles(rng, int(rng.integers(400, 2500)), rng.uniform(0.05, 0.3),
                               s=int(rng.integers(3, 7)), ties=0.1)
    args = (x[lab], y[lab], yhat[lab], x[~lab], yhat[~lab])
    low, high = ppi_py.ppi_logistic_ci(*args, alpha=0.1, lam=lam)
    mine = ppi_logistic(*args, alpha=0.1, lam=lam)
    np.testing.assert_allclose(mine.low, low, atol=1e-6)
    np.testing.assert_allclose(mine.high, high, atol=1e-6)
    if lam is not None:  # with lam given, the point estimate is the interval's centre
        point = ppi_py.ppi_logistic_pointestimate(*args, lam=lam)
        np.testing.assert_allclose(mine.coef, point, atol=1e-6)


def test_lambda_zero_is_the_logistic_mle_with_the_sandwich() -> None:
    sm = pytest.importorskip("statsmodels.api")
    rng = np.random.default_rng(3)
    x, y, yhat, lab = _battles(rng, 3000, 0.2)
    mine = ppi_logistic(x[lab], y[lab], yhat[lab], x[~lab], yhat[~lab], lam=0.0)
    ref = sm.Logit(y[lab], x[lab]).fit(disp=0, cov_type="HC0", tol=1e-14)
    n = int(lab.sum())
    np.testing.assert_allclose(mine.coef, ref.params, atol=1e-8)
    np.testing.assert_allclose(mine.cov, ref.cov_params() * n / (n - 1), rtol=1e-6)


def test_bad_inputs_are_named() -> None:
    x = np.array([[1.0], [-1.0], [1.0]])
    with pytest.raises(ValueError, match="labels must be in"):
        ppi_logistic(x, [1.0, 2.0, 0.0], [1.0, 0.0, 0.0], x, [1.0, 0.0, 1.0])
    with pytest.raises(ValueError, match="lam: must be in"):
        ppi_logistic(x, [1.0, 0.0, 0.0], [1.0, 0.0, 0.0], x, [1.0, 0.0, 1.0], lam=2.0)


def _frame(seed: int = 0, share: float = 0.1, n: int = 3000) -> pd.DataFrame:
    rng = np.random.default_rng(seed)
    x, y, yhat, lab = _battles(rng, n, share)
    names = np.array([f"m{k}" for k in range(6)])
    full = np.concatenate([-x.sum(1, keepdims=True), x], axis=1)
    a, b = names[full.argmax(1)], names[full.argmin(1)]
    word = {1.0: "model_a", 0.0: "model_b", 0.5: "tie"}
    return pd.DataFrame({"model_a": a, "model_b": b, "winner": [word[v] for v in yhat],
                         "human_winner": np.where(lab, [word[v] for v in y], "")})


def test_board_ratings_are_the_centred_ppi_coefficients() -> None:
    frame = _frame()
    board = judge_battle_board(judged_battles(frame, label="b.csv"))
    lab = frame["human_winner"] != ""
    names = [f"m{k}" for k in range(6)]
    x = np.zeros((len(frame), 6))
    x[np.arange(len(frame)), frame["model_a"].map(names.index)] = 1.0
    x[np.arange(len(frame)), frame["model_b"].map(names.index)] = -1.0
    y = frame["human_winner"].map({"model_a": 1.0, "model_b": 0.0}).to_numpy()
    yhat = frame["winner"].map({"model_a": 1.0, "model_b": 0.0}).to_numpy()
    ref = ppi_logistic(x[lab, 1:], y[lab], yhat[lab], x[~lab, 1:], yhat[~lab])
    theta = np.concatenate([[0.0], ref.coef])
    t = board.table.set_index("system").loc[names]
    np.testing.assert_allclose(t["ppi_rating"], 1000 + POINTS * (theta - theta.mean()),
                               rtol=1e-12)
    assert board.lam == pytest.approx(ref.lam) and board.n_human == int(lab.sum())
    assert t["n_human"].sum() == 2 * lab.sum() and t["battles"].sum() == 2 * len(frame)
    assert board.table["rank"].tolist() == list(range(1, 7))
    assert (board.table["ppi_rating"].diff().dropna() <= 0).all()
    pair = board.pairs.iloc[0]  # m0 - m1: win probability is expit of the logit difference
    assert pair["win_prob"] == pytest.approx(expit(theta[0] - theta[1]))
    assert pair["win_prob_low"] < pair["win_prob"] < pair["win_prob_high"]
    # the human-only intervals are wider: the judge's verdicts add information
    assert ((t["ppi_high"] - t["ppi_low"]) < (t["human_high"] - t["human_low"])).all()


def test_contract_messages_name_column_rows_rule_and_fix() -> None:
    frame = _frame(n=400)
    with pytest.raises(DataContractError, match="no column 'humans' of human verdicts"):
        judged_battles(frame, label="b.csv", human="humans")
    bad = frame.copy()
    bad.loc[[3, 7], "human_winner"] = "a wins"
    with pytest.raises(DataContractError) as err:
        judged_battles(bad, label="b.csv")
    text = str(err.value)
    assert "b.csv" in text and "human_winner" in text and "4, 8" in text and "a wins" in text
    lonely = frame.copy()
    lonely.loc[(lonely["model_a"] == "m2") | (lonely["model_b"] == "m2"), "human_winner"] = ""
    with pytest.raises(DataContractError, match="none for m2"):
        judged_battles(lonely, label="b.csv")
    weighted = frame.assign(weight=np.r_[2.0, np.ones(len(frame) - 1)])
    with pytest.raises(DataContractError, match="weights are not used"):
        judged_battles(weighted, label="b.csv")
    first = frame.assign(human_winner=np.where(np.arange(len(frame)) < 120,
                                               frame["human_winner"].replace("", "tie"), ""))
    with pytest.raises(DataContractError, match="sit at the start of the file"):
        judged_battles(first, label="b.csv")
    favoured = frame.copy()
    pair = favoured["model_a"].isin(["m0", "m1"]) & favoured["model_b"].isin(["m0", "m1"])
    favoured.loc[pair, "human_winner"] = "model_a"  # every m0-m1 battle labelled
    with pytest.raises(DataContractError, match="differs between pairs"):
        judged_battles(favoured, label="b.csv")
    renamed = frame.rename(columns={"winner": "gpt_judge"})
    ok = judged_battles(renamed, label="b.csv", judge="gpt_judge")
    np.testing.assert_array_equal(ok["judge_y"], judged_battles(frame)["judge_y"])


@pytest.mark.slow
def test_cli_leaderboard_on_judged_battles(tmp_path: Path,
                                          capsys: pytest.CaptureFixture[str]) -> None:
    path = tmp_path / "judged.csv"
    _frame().to_csv(path, index=False)
    assert main(["leaderboard", str(path), "--judge", "winner", "--human", "human_winner",
                 "--format", "json"]) == 0
    out = json.loads(capsys.readouterr().out)
    board = judge_battle_board(judged_battles(_frame()))
    assert [s["system"] for s in out["systems"]] == board.table["system"].tolist()
    assert [s["ppi_low"] for s in out["systems"]] == pytest.approx(board.table["ppi_low"])
    assert {"ppi_rating", "ppi_high", "n_human", "judge_rating"} <= set(out["systems"][0])
    assert main(["leaderboard", str(path), "--human", "nope"]) == 2
    assert "no column 'nope'" in capsys.readouterr().err


@pytest.mark.slow
def test_calibration_covers_the_human_bradley_terry_ratings() -> None:
    # 6 models x 5,000 battles, judge biased by up to 0.6 logits per model, 10% human
    # verdicts, 200 replications (benchmarks/calibrate_ppi.py: 500 at 5/10/20%)
    rng = np.random.default_rng(31)
    truth = 1000 + POINTS * (THETA - THETA.mean())
    names = np.array([f"m{k}" for k in range(6)])
    cover, cover_judge = [], []
    for _ in range(200):
        x, y, yhat, lab = _battles(rng, 5000, 0.10)
        full = np.concatenate([-x.sum(1, keepdims=True), x], axis=1)
        frame = pd.DataFrame({"model_a": names[full.argmax(1)], "model_b": names[full.argmin(1)],
                              "judge_y": yhat, "human_y": np.where(lab, y, np.nan)})
        t = judge_battle_board(frame).table.set_index("system").loc[names]
        cover.append(np.mean((t["ppi_low"] <= truth) & (truth <= t["ppi_high"])))
        cover_judge.append(np.mean((t["judge_low"] <= truth) & (truth <= t["judge_high"])))
    print(f"coverage PPI++ {np.mean(cover):.3f}, judge only {np.mean(cover_judge):.3f}")
    assert np.mean(cover) >= 0.94
    assert np.mean(cover_judge) < 0.5
