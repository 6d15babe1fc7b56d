"""Battle lists as input (issue #32, item 5): reader, pair counts, LMArena's computation.

Reference: LMArena's published leaderboard computation, FastChat
``fastchat/serve/monitor/rating_systems.py`` (github.com/lm-sys/FastChat, commit
2bdb2e0cf988821ecd40cdb6db40e5e01efe7c85): ``preprocess_for_bt`` (unique (model_a,
model_b, outcome) rows with their counts, outcome 1 / ½ / 0), ``bt_loss_and_grad``
(weighted logistic loss with α = ln 10), ``fit_bt`` (L-BFGS-B from 0) and
``scale_and_offset`` (rating = 400 r + 1000, mixtral-8x7b-instruct-v0.1 moved to 1114),
and ``compute_elo`` (online Elo, K = 4, in the battles' order). The formulas are
written out below (not copied), with the optimiser's tolerance tightened from 1e-6
to 1e-12 so that both sides reach the optimum; the older ``compute_mle_elo`` of
``elo_analysis.py`` (scikit-learn's LogisticRegression without intercept, rows
weighted 2·wins and ties) when scikit-learn is installed (requirements-bench.txt);
arena-rank's sandwich intervals (github.com/lmarena/arena-rank,
``arena_rank/models/bradley_terry.py``: H⁻¹ G H⁻¹ with G summing count · (y − p)² per
unique pair and outcome), its diagonal regulariser left out (pseudo-inverse instead).

No battles file is public in FastChat's repository, so two samples are used: one generated
here in LMArena's published format (model_a, model_b, winner ∈ {model_a, model_b, tie,
tie (bothbad)}; model names as on the arena) from Bradley–Terry strengths with ties, and a
public one: AlpacaEval 2.0's GPT-4-turbo judge preferences (tests/data/alpaca-eval, source
and licence in tests/data/README.md; Li et al. 2023), 60 systems × 805 instructions each
judged against the fixed baseline gpt4_1106_preview, read as one battle per judgement.
"""

from __future__ import annotations

import math
from pathlib import Path

import numpy as np
import pandas as pd
import pytest
from scipy import optimize
from scipy.special import expit

from engine._contract import DataContractError
from engine.io._battles import read_battles
from engine.ranking._arena import arena_elo, arena_ratings, pair_counts, win_rate_matrix

MODELS = ["gpt-4-turbo", "claude-3-opus", "mixtral-8x7b-instruct-v0.1", "llama-3-70b-instruct",
          "gemini-pro", "gpt-3.5-turbo-0125", "vicuna-13b", "qwen1.5-72b-chat"]
MIXTRAL = "mixtral-8x7b-instruct-v0.1"


def _sample(n: int = 4_000, seed: int = 32) -> pd.DataFrame:
    rng = np.random.default_rng(seed)
    skill = np.linspace(1.2, -1.0, len(MODELS))
    a = rng.integers(0, len(MODELS), n)
    b = (a + rng.integers(1, len(MODELS), n)) % len(MODELS)
    p = expit(skill[a] - skill[b])
    u = rng.random(n)
    winner = np.where(u < 0.8 * p, "model_a", np.where(u > 1 - 0.8 * (1 - p), "model_b", "tie"))
    bothbad = (winner == "tie") & (rng.random(n) < 0.4)
    winner = np.where(bothbad, "tie (bothbad)", winner)
    names = np.asarray(MODELS)
    return pd.DataFrame({"model_a": names[a], "model_b": names[b], "winner": winner})


ALPACA = (Path(__file__).resolve().parents[2] / "data" / "alpaca-eval"
          / "alpaca_eval2_weighted_gpt4_turbo_long.jsonl.gz")
BASELINE = "gpt4_1106_preview"


@pytest.fixture(scope="module")
def alpaca_battles(tmp_path_factory: pytest.TempPathFactory) -> pd.DataFrame:
    """The public sample: each AlpacaEval judgement is a battle of the baseline (model_a)
    against the system (model_b, the leaderboard's name: three generator names repeat
    another system's); the judge's preference in [1, 2] picks the winner
    (> 1.5 the system, < 1.5 the baseline, exactly 1.5 a tie), as a vote would. The baseline's
    805 judgements against itself are left out (the reader refuses self-battles)."""
    judged = pd.read_json(ALPACA, lines=True)
    judged = judged[judged["model"] != BASELINE]  # the baseline's judgements against itself
    preference = judged["preference"].to_numpy()
    winner = np.select([preference > 1.5, preference < 1.5], ["model_b", "model_a"], "tie")
    frame = pd.DataFrame({"model_a": judged["generator_1"], "model_b": judged["model"],
                          "winner": winner})
    path = tmp_path_factory.mktemp("alpaca") / "alpaca_battles.csv"
    frame.to_csv(path, index=False)
    return read_battles(path)


@pytest.fixture(scope="module")
def battles(tmp_path_factory: pytest.TempPathFactory) -> pd.DataFrame:
    path = tmp_path_factory.mktemp("battles") / "arena_battles.csv"
    _sample().to_csv(path, index=False)
    return read_battles(path)


# ------------------------------------------------------------ FastChat's formulas


def _fastchat_bt(df: pd.DataFrame, anchor: str = MIXTRAL, anchor_rating: float = 1114.0
                 ) -> pd.Series:
    """compute_bt: unique (a, b, outcome) with counts; weighted logistic loss in base-10
    units; L-BFGS-B from 0; 400 r + 1000 with the anchor (mixtral) at 1114."""
    models = pd.unique(pd.concat([df["model_a"], df["model_b"]]))
    index = {m: i for i, m in enumerate(models)}
    outcome = np.where(df["winner"] == "model_a", 2, np.where(df["winner"] == "model_b", 0, 1))
    schedule = np.column_stack([df["model_a"].map(index), df["model_b"].map(index), outcome])
    unique, weights = np.unique(schedule, return_counts=True, axis=0)
    pairs, y, w = unique[:, :2], unique[:, 2] / 2.0, weights.astype(float)
    alpha = math.log(10.0)

    def loss_grad(r: np.ndarray) -> tuple[float, np.ndarray]:
        prob = expit(alpha * (r[pairs[:, 0]] - r[pairs[:, 1]]))
        loss = -((np.log(prob) * y + np.log(1.0 - prob) * (1.0 - y)) * w).sum()
        g = -alpha * (y - prob) * w
        grad = np.zeros_like(r)
        np.add.at(grad, pairs[:, 0], g)
        np.add.at(grad, pairs[:, 1], -g)
        return float(loss), grad

    res = optimize.minimize(loss_grad, np.zeros(len(models)), jac=True, method="L-BFGS-B",
                            options={"maxiter": 10_000, "gtol": 1e-12, "ftol": 1e-16})
    # On 47k battles L-BFGS-B stops at a gradient of ~5e-6 (1e-5 Elo points off): Newton
    # steps on the same loss (its Hessian is a weighted graph Laplacian) reach the optimum.
    r = res.x
    for _ in range(5):
        prob = expit(alpha * (r[pairs[:, 0]] - r[pairs[:, 1]]))
        v = alpha**2 * prob * (1.0 - prob) * w
        hess = np.zeros((len(r), len(r)))
        np.add.at(hess, (pairs[:, 0], pairs[:, 0]), v)
        np.add.at(hess, (pairs[:, 1], pairs[:, 1]), v)
        np.add.at(hess, (pairs[:, 0], pairs[:, 1]), -v)
        np.add.at(hess, (pairs[:, 1], pairs[:, 0]), -v)
        r = r - np.linalg.pinv(hess, hermitian=True) @ loss_grad(r)[1]
    rating = r * 400.0 + 1000.0
    rating += anchor_rating - rating[index[anchor]]
    return pd.Series(rating, index=models)


def _fastchat_elo(df: pd.DataFrame) -> pd.Series:
    """compute_elo: K = 4, base 10, scale 400, 1000 to start, ties 0.5, in file order."""
    models = list(pd.unique(pd.concat([df["model_a"], df["model_b"]])))
    rating = {m: 1000.0 for m in models}
    alpha = math.log(10.0) / 400.0
    outcome = np.where(df["winner"] == "model_a", 1.0, np.where(df["winner"] == "model_b", 0.0,
                                                                0.5))
    for ma, mb, o in zip(df["model_a"], df["model_b"], outcome, strict=True):
        prob = 1.0 / (1.0 + math.exp(alpha * (rating[mb] - rating[ma])))
        rating[ma] += 4.0 * (o - prob)
        rating[mb] -= 4.0 * (o - prob)
    return pd.Series(rating)


def _arena_rank_sandwich_se(df: pd.DataFrame, rating: pd.Series) -> pd.Series:
    """arena-rank: per unique (a, b, outcome): grad = (y − p) · count, var = grad² / count,
    hess = p (1 − p) · count, assembled as Laplacians; Cov = H⁺ G H⁺ (natural units),
    se in points = 400 / ln 10 · sqrt(diag)."""
    models = list(rating.index)
    index = {m: i for i, m in enumerate(models)}
    outcome = np.where(df["winner"] == "model_a", 2, np.where(df["winner"] == "model_b", 0, 1))
    schedule = np.column_stack([df["model_a"].map(index), df["model_b"].map(index), outcome])
    unique, counts = np.unique(schedule, return_counts=True, axis=0)
    theta = (rating.to_numpy() - 1000.0) * math.log(10.0) / 400.0
    i, j, y = unique[:, 0], unique[:, 1], unique[:, 2] / 2.0
    prob = expit(theta[i] - theta[j])
    s = len(models)

    def assemble(v: np.ndarray) -> np.ndarray:
        m = np.zeros((s, s))
        np.add.at(m, (i, i), v)
        np.add.at(m, (j, j), v)
        np.add.at(m, (i, j), -v)
        np.add.at(m, (j, i), -v)
        return m

    h = np.linalg.pinv(assemble(prob * (1.0 - prob) * counts), hermitian=True)
    cov = h @ assemble(((y - prob) * counts) ** 2 / counts) @ h
    return pd.Series(400.0 / math.log(10.0) * np.sqrt(np.diag(cov)), index=models)


# ------------------------------------------------------------------ tests


@pytest.mark.slow
def test_bradley_terry_equals_fastchat_compute_bt_within_1e6_points(battles: pd.DataFrame
                                                                     ) -> None:
    want = _fastchat_bt(battles)
    table = arena_ratings(battles, anchor=MIXTRAL, anchor_rating=1114.0).table
    got = table.set_index("system")["rating"].reindex(want.index)
    np.testing.assert_allclose(got.to_numpy(), want.to_numpy(), rtol=0, atol=1e-6)


@pytest.mark.slow
def test_public_sample_bradley_terry_elo_and_sandwich_equal_lmarena(
        alpaca_battles: pd.DataFrame) -> None:
    """The same three computations (FastChat's compute_bt and compute_elo, arena-rank's
    sandwich) on the public AlpacaEval sample: 47,485 battles, 60 systems, a star design
    (every battle against the baseline)."""
    assert len(alpaca_battles) == 47_485
    want = _fastchat_bt(alpaca_battles, anchor=BASELINE, anchor_rating=1000.0)
    assert len(want) == 60
    res = arena_ratings(alpaca_battles, anchor=BASELINE, anchor_rating=1000.0)
    table = res.table.set_index("system")
    np.testing.assert_allclose(table["rating"].reindex(want.index).to_numpy(), want.to_numpy(),
                               rtol=0, atol=1e-6)
    centred = arena_ratings(alpaca_battles).table.set_index("system")
    se = _arena_rank_sandwich_se(alpaca_battles, centred["rating"])
    half = (centred["rating_high"] - centred["rating_low"]) / (2 * 1.959963984540054)
    np.testing.assert_allclose(half.reindex(se.index).to_numpy(), se.to_numpy(), rtol=1e-6)
    elo = _fastchat_elo(alpaca_battles)
    np.testing.assert_allclose(arena_elo(alpaca_battles).reindex(elo.index).to_numpy(),
                               elo.to_numpy(), rtol=0, atol=1e-9)


@pytest.mark.slow
def test_sklearn_compute_mle_elo_agrees(battles: pd.DataFrame) -> None:
    """The older compute_mle_elo: rows (a, b) labelled 1 with weight 2·wins_ab + ties and
    labelled 0 with weight 2·wins_ba + ties, X = ±ln 10, no intercept, no penalty."""
    linear = pytest.importorskip("sklearn.linear_model")
    counts = pair_counts(battles)
    s = len(counts.systems)
    credit = 2.0 * counts.wins + counts.ties
    rows, labels, weights = [], [], []
    for a in range(s):
        for b in range(s):
            if a == b:
                continue
            x = np.zeros(s)
            x[a], x[b] = math.log(10.0), -math.log(10.0)
            rows += [x, x]
            labels += [1.0, 0.0]
            weights += [credit[a, b], credit[b, a]]
    lr = linear.LogisticRegression(fit_intercept=False, C=1e12, tol=1e-12, max_iter=100_000)
    lr.fit(np.array(rows), np.array(labels), sample_weight=np.array(weights))
    want = 400.0 * lr.coef_[0] + 1000.0
    want += 1114.0 - want[counts.systems.index(MIXTRAL)]
    table = arena_ratings(battles, anchor=MIXTRAL, anchor_rating=1114.0).table
    got = table.set_index("system")["rating"].reindex(list(counts.systems)).to_numpy()
    np.testing.assert_allclose(got, want, rtol=0, atol=1e-4)  # lbfgs stops near, not at


def test_sandwich_intervals_equal_arena_rank(battles: pd.DataFrame) -> None:
    res = arena_ratings(battles)
    table = res.table.set_index("system")
    want = _arena_rank_sandwich_se(battles, table["rating"])
    half = (table["rating_high"] - table["rating_low"]) / (2 * 1.959963984540054)
    np.testing.assert_allclose(half.reindex(want.index).to_numpy(), want.to_numpy(), rtol=1e-6)
    assert table["rating"].mean() == pytest.approx(1000.0)


def test_elo_equals_fastchat_compute_elo(battles: pd.DataFrame) -> None:
    want = _fastchat_elo(battles)
    got = arena_elo(battles).reindex(want.index)
    np.testing.assert_allclose(got.to_numpy(), want.to_numpy(), rtol=0, atol=1e-9)


@pytest.mark.slow
def test_pair_counts_win_rates_and_groups(battles: pd.DataFrame) -> None:
    counts = pair_counts(battles)
    assert counts.battles.sum() == 2 * len(battles)  # each battle once per direction
    rates = win_rate_matrix(counts)
    off = ~np.eye(len(rates), dtype=bool)
    np.testing.assert_allclose((rates + rates.T)[off], 1.0)
    res = arena_ratings(battles)
    top, bottom = res.table["system"].iloc[0], res.table["system"].iloc[-1]
    assert (top, bottom) == ("gpt-4-turbo", "qwen1.5-72b-chat")  # the sample's strongest, weakest
    assert res.groups.letters[top] != res.groups.letters[bottom]
    assert res.converged


@pytest.mark.slow
def test_weights_count_as_repeated_battles(battles: pd.DataFrame) -> None:
    doubled = battles.assign(weight=2.0)
    once = arena_ratings(battles).table.set_index("system")
    twice = arena_ratings(doubled).table.set_index("system")
    np.testing.assert_allclose(twice["rating"], once["rating"], atol=1e-8)


@pytest.mark.slow
def test_davidson_ties_fit(battles: pd.DataFrame) -> None:
    res = arena_ratings(battles, ties="davidson")
    assert res.converged and res.tie_strength > 0
    assert res.table["system"].iloc[0] == "gpt-4-turbo"


@pytest.mark.parametrize(("frame", "column", "rule"), [
    (pd.DataFrame({"model_a": ["x"], "model_b": ["y"], "winner": ["draw"]}), "winner",
     "winner must be one of"),
    (pd.DataFrame({"model_a": ["x", "y"], "model_b": ["x", "z"], "winner": ["tie", "tie"]}),
     "model_b", "battles itself"),
    (pd.DataFrame({"model_a": ["x"], "model_b": ["y"], "winner": ["tie"], "weight": [-1]}),
     "weight", "weight must be"),
])
def test_bad_battles_are_named(frame: pd.DataFrame, column: str, rule: str) -> None:
    with pytest.raises(DataContractError) as err:
        read_battles(frame, name="b.csv")
    text = str(err.value)
    assert f"column '{column}'" in text and rule in text and "row 1" in text


def test_missing_columns_say_which(tmp_path: Path) -> None:
    path = tmp_path / "b.csv"
    path.write_text("model_a,winner\nx,model_a\n")
    with pytest.raises(DataContractError, match="missing model_b"):
        read_battles(path)
