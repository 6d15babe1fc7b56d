"""Issue #12 A: Bradley–Terry says whether it converged; tie models; bootstrap intervals.

Reference values: Agresti (2002) Table 10.11 and R's glm() on the same data;
statsmodels' binomial GLM (the same likelihood, an independent optimiser);
scipy.optimize on Davidson's (1970) likelihood written in its product form;
closed forms for two systems; per-example loops for the vectorised win counts.
"""

from __future__ import annotations

import itertools
from pathlib import Path

import numpy as np
import pandas as pd
import pytest
import statsmodels.api as sm
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from scipy import optimize

from engine._matrix import build_matrix
from engine.io._readers import read_results
from engine.ranking._bradley_terry import bradley_terry, elo_scale
from engine.ranking._bt_bootstrap import _weighted_battles, bt_bootstrap
from engine.stats._kernels import win_matrix

BT_EVAL = Path(__file__).resolve().parents[2] / "data" / "bt-eval" / "bt_eval_scores_long.csv.gz"


@pytest.fixture(scope="module")
def tac2009() -> np.ndarray:
    """TAC2009 ROUGE-2 from bt-eval (55 systems × 44 topics, 360 tied pairs of scores)."""
    df = read_results(BT_EVAL)
    return build_matrix(df, benchmark="TAC2009", metric="ROUGE_2").oriented(paired=True)


def _score_residuals(credit: np.ndarray, p: np.ndarray) -> np.ndarray:
    """Zermelo's / Hunter's (2004) likelihood equations: Σ_j [A_ij − N_ij p_i/(p_i+p_j)]."""
    n = credit + credit.T
    return np.asarray((credit - n * p[:, None] / (p[:, None] + p[None, :])).sum(axis=1))


def _glm_strengths(credit: np.ndarray) -> np.ndarray:
    """statsmodels' binomial GLM on pairs (y = A_ij / N_ij, weight N_ij, x = e_i − e_j)."""
    s = len(credit)
    ia, ja = np.triu_indices(s, 1)
    n = credit[ia, ja] + credit[ja, ia]
    keep = n > 0
    x = np.zeros((keep.sum(), s))
    x[np.arange(keep.sum()), ia[keep]] = 1.0
    x[np.arange(keep.sum()), ja[keep]] = -1.0
    fit = sm.GLM(credit[ia, ja][keep] / n[keep], x[:, 1:], family=sm.families.Binomial(),
                 var_weights=n[keep]).fit(tol=1e-12, maxiter=100)
    theta = np.concatenate([[0.0], fit.params])
    p = np.exp(theta - theta.max())
    return np.asarray(p / p.sum())


# ------------------------------------------------------------------ issue #12 A: the defect


@pytest.mark.slow
def test_tac2009_rouge2_converges_to_the_maximum_likelihood_fit(tac2009: np.ndarray) -> None:
    # Before #12: 10,000 MM iterations, converged=False, 1.3 % (relative) from the MLE,
    # and nothing said so. Now Newton reaches the tolerance and reports it.
    w = win_matrix(tac2009)
    n = tac2009.shape[1]
    bt = bradley_terry(w, n)
    assert bt.converged
    assert bt.iterations < 50
    most_battles = (n * (len(w) - 1))
    assert bt.gradient_norm <= bt.tol * most_battles
    assert abs(bt.loglik_change) < 1e-6
    credit = w + (n - w - w.T) / 2.0
    np.fill_diagonal(credit, 0.0)
    residuals = _score_residuals(credit, bt.strength)
    np.testing.assert_allclose(residuals, 0.0, atol=1e-8)
    # an independent optimiser of the same likelihood: statsmodels' binomial GLM
    np.testing.assert_allclose(bt.strength, _glm_strengths(credit), rtol=1e-9)


def test_stopping_short_is_reported(tac2009: np.ndarray) -> None:
    w = win_matrix(tac2009)
    short = bradley_terry(w, tac2009.shape[1], max_iter=1)
    assert not short.converged and short.iterations == 1
    assert short.gradient_norm > short.tol * tac2009.shape[1] * (len(w) - 1)


# ------------------------------------------------------------------ a published worked example

# Agresti (2002), Categorical Data Analysis, 2nd ed., Table 10.10: 1987 American League
# East, 13 games per pair; as (home, away, home wins, away wins) in R package
# BradleyTerry2's data/baseball.RData (printed with R 4, read here by hand).
TEAMS = ["Milwaukee", "Detroit", "Toronto", "New York", "Boston", "Cleveland", "Baltimore"]
BASEBALL = [
    (0, 1, 4, 3), (0, 2, 4, 2), (0, 3, 4, 3), (0, 4, 6, 1), (0, 5, 4, 2), (0, 6, 6, 0),
    (1, 0, 3, 3), (1, 2, 4, 2), (1, 3, 4, 3), (1, 4, 6, 0), (1, 5, 6, 1), (1, 6, 4, 3),
    (2, 0, 2, 5), (2, 1, 4, 3), (2, 3, 2, 4), (2, 4, 4, 3), (2, 5, 4, 2), (2, 6, 6, 0),
    (3, 0, 3, 3), (3, 1, 5, 1), (3, 2, 2, 5), (3, 4, 4, 3), (3, 5, 4, 2), (3, 6, 6, 1),
    (4, 0, 5, 1), (4, 1, 2, 5), (4, 2, 3, 3), (4, 3, 4, 2), (4, 5, 5, 2), (4, 6, 6, 0),
    (5, 0, 2, 5), (5, 1, 3, 3), (5, 2, 3, 4), (5, 3, 4, 3), (5, 4, 4, 2), (5, 6, 2, 4),
    (6, 0, 2, 5), (6, 1, 1, 5), (6, 2, 1, 6), (6, 3, 2, 4), (6, 4, 1, 6), (6, 5, 3, 4),
]


def test_agresti_baseball_table_10_11() -> None:
    w = np.zeros((7, 7))
    for home, away, home_wins, away_wins in BASEBALL:
        w[home, away] += home_wins
        w[away, home] += away_wins
    assert (w + w.T)[~np.eye(7, dtype=bool)].tolist() == [13.0] * 42
    bt = bradley_terry(w, 13)
    assert bt.converged and bt.prior == 0.0
    log_odds = np.log(bt.strength[:6] / bt.strength[6])  # Baltimore = 0, as in the table
    # Agresti (2002) Table 10.11, column 3 (also BradleyTerry2's tests/testthat/test-baseball.R)
    np.testing.assert_array_equal(log_odds.round(2), [1.58, 1.44, 1.29, 1.25, 1.11, 0.68])
    # R 4.x: glm(cbind(home.wins, away.wins) ~ X[, -1] - 1, family = binomial), printed to
    # 10 digits (X = +1 home team, -1 away team, Baltimore dropped).
    r_glm = [1.5813558767, 1.4364084318, 1.2944851239, 1.2476178451, 1.1076977054,
             0.6838527692]
    np.testing.assert_allclose(log_odds, r_glm, atol=1e-8)


# ------------------------------------------------------------------ tie models


def test_two_systems_closed_forms_for_each_tie_model() -> None:
    # A beats B on 2, B beats A on 1, 1 tie (n = 4). Two systems: every model is saturated,
    # so the MLE reproduces the observed shares.
    w = np.array([[0, 2], [1, 0]])
    half = bradley_terry(w, 4)  # A has 2 + 1/2 of 4 battles
    np.testing.assert_allclose(half.strength, [2.5 / 4, 1.5 / 4], rtol=1e-10)
    ignore = bradley_terry(w, 4, ties="ignore")  # 2 of 3 decisive battles
    np.testing.assert_allclose(ignore.strength, [2 / 3, 1 / 3], rtol=1e-10)
    # Davidson (1970): P(A) = w_A/n, P(B) = w_B/n, P(tie) = t/n ⇒ s_A/s_B = w_A/w_B and
    # ν = t / √(w_A w_B) = 1/√2.
    dav = bradley_terry(w, 4, ties="davidson")
    np.testing.assert_allclose(dav.strength, [2 / 3, 1 / 3], rtol=1e-9)
    assert dav.tie_strength == pytest.approx(1 / np.sqrt(2), rel=1e-9)
    assert np.isnan(half.tie_strength) and np.isnan(ignore.tie_strength)
    # tie counts can be passed instead of battles
    explicit = bradley_terry(w, None, tie_counts=np.array([[0, 1], [1, 0]]), ties="davidson")
    np.testing.assert_allclose(explicit.strength, dav.strength)


def test_davidson_edge_cases() -> None:
    w = np.array([[0, 5, 3], [2, 0, 4], [1, 1, 0]])
    # no tie at all: ν = 0 and the fit is plain Bradley–Terry on the decisive battles
    none = bradley_terry(w, w + w.T, ties="davidson")
    assert none.tie_strength == 0.0 and none.converged
    np.testing.assert_allclose(none.strength, bradley_terry(w, w + w.T).strength, rtol=1e-9)
    # only ties: equal strengths, ν = inf
    only = bradley_terry(np.zeros((3, 3)), 6, ties="davidson")
    assert only.tie_strength == np.inf and only.converged
    np.testing.assert_allclose(only.strength, [1 / 3] * 3)


def _davidson_negloglik(params: np.ndarray, w: np.ndarray, t: np.ndarray) -> float:
    """Davidson (1970) eq. (2.2) in product form: π_i / (π_i + π_j + ν √(π_i π_j)) etc."""
    pi, nu = np.exp(params[:-1]), np.exp(params[-1])
    root = np.sqrt(pi[:, None] * pi[None, :])
    den = pi[:, None] + pi[None, :] + nu * root
    ia, ja = np.triu_indices(len(pi), 1)
    ll = (w * np.log(pi[:, None] / den)).sum()  # wins (w_ii = 0)
    ll += (t[ia, ja] * np.log(nu * root[ia, ja] / den[ia, ja])).sum()  # ties, once per pair
    return -float(ll)


@st.composite
def battles_with_ties(draw: st.DrawFn) -> tuple[np.ndarray, np.ndarray]:
    s = draw(st.integers(2, 5))
    w = np.zeros((s, s))
    t = np.zeros((s, s))
    for i in range(s):
        for j in range(i + 1, s):
            # at least one battle each way keeps the MLE finite without the prior
            w[i, j], w[j, i] = draw(st.integers(1, 12)), draw(st.integers(1, 12))
            t[i, j] = t[j, i] = draw(st.integers(0, 6))
    return w, t


@pytest.mark.slow
@settings(max_examples=30, suppress_health_check=[HealthCheck.too_slow])
@given(case=battles_with_ties(), data=st.data())
def test_davidson_solves_its_likelihood_equations(case: tuple[np.ndarray, np.ndarray],
                                                  data: st.DataObject) -> None:
    w, t = case
    fit = bradley_terry(w, None, tie_counts=t, ties="davidson")
    assert fit.converged and fit.prior == 0.0
    p, nu = fit.strength, fit.tie_strength
    if not t.any():  # ν = 0 on the boundary: plain Bradley–Terry (see test_davidson_edge_cases)
        assert nu == 0.0
        return
    root = np.sqrt(p[:, None] * p[None, :])
    den = p[:, None] + p[None, :] + nu * root
    n = w + w.T + t
    np.fill_diagonal(n, 0.0)
    # Davidson (1970) §3: expected wins + half ties = observed, expected ties = observed
    expected = (n * (p[:, None] + nu * root / 2.0) / den).sum(axis=1)
    np.testing.assert_allclose(expected, w.sum(axis=1) + t.sum(axis=1) / 2.0, atol=1e-7)
    ia, ja = np.triu_indices(len(p), 1)
    assert (n * nu * root / den)[ia, ja].sum() == pytest.approx(t[ia, ja].sum(), abs=1e-7)
    # scipy's BFGS on the product-form likelihood reaches the same log-likelihood
    start = np.zeros(len(p) + 1)
    ref = optimize.minimize(_davidson_negloglik, start, args=(w, t), method="BFGS",
                            options={"gtol": 1e-9})
    assert -ref.fun == pytest.approx(_davidson_loglik(p, nu, w, t), abs=1e-5)
    assert -ref.fun <= _davidson_loglik(p, nu, w, t) + 1e-7  # ours is at least as high
    perm = np.asarray(data.draw(st.permutations(range(len(w)))))
    swapped = bradley_terry(w[np.ix_(perm, perm)], None, tie_counts=t[np.ix_(perm, perm)],
                            ties="davidson")
    np.testing.assert_allclose(swapped.strength, p[perm], rtol=1e-7)


def _davidson_loglik(p: np.ndarray, nu: float, w: np.ndarray, t: np.ndarray) -> float:
    return -_davidson_negloglik(np.append(np.log(p), np.log(nu)), w, t)


@st.composite
def win_tables(draw: st.DrawFn) -> tuple[np.ndarray, int]:
    s = draw(st.integers(2, 6))
    n = draw(st.integers(1, 15))
    w = np.zeros((s, s), dtype=int)
    for i in range(s):
        for j in range(i + 1, s):
            a = draw(st.integers(0, n))
            w[i, j], w[j, i] = a, draw(st.integers(0, n - a))
    return w, n


@settings(max_examples=40, suppress_health_check=[HealthCheck.too_slow])
@given(case=win_tables())
def test_ignored_ties_solve_the_decisive_battle_equations(case: tuple[np.ndarray, int]) -> None:
    # pairformance (Peyrard et al. 2021, appendix E): ω_ij counts only examples where i scores
    # higher
    w, n = case
    fit = bradley_terry(w, n, ties="ignore")
    assert fit.converged
    credit = w + fit.prior / 2.0 * (1 - np.eye(len(w)))
    np.testing.assert_allclose(_score_residuals(credit, fit.strength), 0.0, atol=1e-7)
    assert fit.gradient_norm <= fit.tol * max(1.0, (credit + credit.T).sum(axis=1).max())


def test_bad_options_are_named() -> None:
    w = np.array([[0, 1], [1, 0]])
    with pytest.raises(ValueError, match="ties: must be one of"):
        bradley_terry(w, 3, ties="draw")
    with pytest.raises(ValueError, match="tie_counts="):
        bradley_terry(w, 3, ties=np.zeros((2, 2)))  # type: ignore[arg-type]
    with pytest.raises(ValueError, match="n_battles: fewer battles"):
        bradley_terry(np.array([[0, 3], [2, 0]]), 4)
    with pytest.raises(ValueError, match="tie_counts: must be a symmetric"):
        bradley_terry(w, None, tie_counts=np.array([[0, 1], [0, 0]]))


# ------------------------------------------------------------------ bootstrap intervals


def test_resampled_win_counts_equal_a_loop() -> None:
    rng = np.random.default_rng(3)
    x = rng.integers(0, 4, size=(4, 9)).astype(float)
    x[1, 2] = x[3, 5] = np.nan  # pairs with system 1 or 3 share fewer examples
    counts = rng.multinomial(9, np.full(9, 1 / 9), size=3).astype(float)
    wins, tied = _weighted_battles(x, counts)
    for b in range(3):
        for i in range(4):
            for j in range(4):
                if i == j:
                    continue
                shared = ~np.isnan(x[i]) & ~np.isnan(x[j])
                assert wins[b, i, j] == (counts[b] * shared * (x[i] > x[j])).sum()
                assert tied[b, i, j] == (counts[b] * shared * (x[i] == x[j])).sum()


def test_bootstrap_point_estimates_match_the_fit(tac2009: np.ndarray) -> None:
    res = bt_bootstrap(tac2009, n_resamples=60, rng=1)
    w = win_matrix(tac2009)
    bt = bradley_terry(w, tac2009.shape[1])
    np.testing.assert_allclose(res.strength, bt.strength, rtol=1e-8)
    np.testing.assert_allclose(res.elo, elo_scale(bt.strength), rtol=1e-10)
    assert res.converged and res.n_not_converged == 0
    # the percentile intervals hold the point estimate for every system here
    for low, mid, high in ((res.strength_low, res.strength, res.strength_high),
                           (res.elo_low, res.elo, res.elo_high),
                           (res.win_rate_low, res.win_rate, res.win_rate_high)):
        assert (low <= mid).all() and (mid <= high).all() and (low < high).all()
    again = bt_bootstrap(tac2009, n_resamples=60, rng=1)
    np.testing.assert_array_equal(again.elo_low, res.elo_low)


def test_bootstrap_intervals_shrink_with_more_examples() -> None:
    # 4 systems with fixed skill gaps and example noise: 16× the examples should make the
    # intervals about 4× narrower (√16); we ask for at least 2×.
    rng = np.random.default_rng(7)
    widths = []
    for n in (40, 640):
        x = np.array([0.0, 0.2, 0.4, 0.6])[:, None] + rng.normal(size=(4, n))
        res = bt_bootstrap(x, n_resamples=200, rng=rng)
        widths.append(float(np.mean(res.elo_high - res.elo_low)))
    assert widths[1] < widths[0] / 2


@pytest.mark.parametrize("ties", ["half", "ignore", "davidson"])
def test_bootstrap_tie_models_and_missing_scores(ties: str) -> None:
    rng = np.random.default_rng(11)
    x = rng.integers(0, 3, size=(5, 30)).astype(float)
    x[2, :4] = np.nan
    res = bt_bootstrap(x, n_resamples=50, ties=ties, rng=0, anchor=2)
    assert res.ties == ties and res.elo[2] == pytest.approx(1000.0)
    assert np.isfinite(res.strength_low).all() and res.strength.sum() == pytest.approx(1.0)
    # the point estimate uses each pair's shared examples: the same fit from per-pair counts
    wins = np.zeros((5, 5))
    tied = np.zeros((5, 5))
    for i in range(5):
        for j in range(5):
            if i != j:
                both = ~np.isnan(x[i]) & ~np.isnan(x[j])
                wins[i, j] = (x[i, both] > x[j, both]).sum()
                tied[i, j] = (x[i, both] == x[j, both]).sum()
    ref = bradley_terry(wins, None, tie_counts=tied, ties=ties)
    np.testing.assert_allclose(res.strength, ref.strength, rtol=1e-8)


def test_bootstrap_validation() -> None:
    x = np.zeros((2, 3))
    with pytest.raises(ValueError, match="n_resamples: must be a positive integer"):
        bt_bootstrap(x, n_resamples=0)
    with pytest.raises(ValueError, match="confidence: must be strictly between"):
        bt_bootstrap(x, confidence=1.0)
    with pytest.raises(ValueError, match="x: must be a systems × examples matrix"):
        bt_bootstrap(np.zeros(3))
    one = bt_bootstrap(np.ones((1, 4)), n_resamples=5, rng=0)
    assert one.strength.tolist() == [1.0] and np.isnan(one.win_rate).all()
    frame = pd.DataFrame({"low": one.elo_low})
    assert frame["low"].tolist() == [1000.0]


@pytest.mark.slow
def test_bootstrap_elo_intervals_cover_the_true_ratings() -> None:
    # Calibration: x_ie = μ_i + Gumbel noise gives P(x_i > x_j) = logistic(μ_i − μ_j), i.e.
    # Bradley–Terry with θ = μ, so the true centred Elo is 400 log10(e) (μ_i − mean μ) + 1000.
    # 100 data sets × 4 systems; the full run (200 × 200 resamples) gave 0.9525.
    rng = np.random.default_rng(5)
    mu = np.array([0.0, 0.3, 0.6, 1.0])
    true_elo = 400 * np.log10(np.e) * (mu - mu.mean()) + 1000
    hits = []
    for _ in range(100):
        res = bt_bootstrap(mu[:, None] + rng.gumbel(size=(4, 80)), n_resamples=100, rng=rng)
        hits.append((res.elo_low <= true_elo) & (true_elo <= res.elo_high))
    assert 0.9 <= np.mean(hits) <= 0.99


@pytest.mark.slow
@settings(max_examples=20, suppress_health_check=[HealthCheck.too_slow])
@given(data=st.data())
def test_bootstrap_relabelling_and_example_order(data: st.DataObject) -> None:
    s = data.draw(st.integers(2, 5))
    e = data.draw(st.integers(2, 12))
    x = np.asarray(data.draw(st.lists(st.integers(0, 3), min_size=s * e, max_size=s * e)),
                   dtype=float).reshape(s, e)
    res = bt_bootstrap(x, n_resamples=20, rng=0)
    perm = np.asarray(data.draw(st.permutations(range(s))))
    moved = bt_bootstrap(x[perm], n_resamples=20, rng=0)
    # same resampled examples (same seed), systems relabelled: every output is permuted
    np.testing.assert_allclose(moved.strength, res.strength[perm], rtol=1e-7, atol=1e-12)
    np.testing.assert_allclose(moved.elo_low, res.elo_low[perm], rtol=1e-7)
    np.testing.assert_allclose(moved.win_rate_high, res.win_rate_high[perm], equal_nan=True)
    # the point estimate does not depend on the order of the examples
    cols = np.asarray(data.draw(st.permutations(range(e))))
    np.testing.assert_allclose(bt_bootstrap(x[:, cols], n_resamples=1, rng=0).strength,
                               res.strength, rtol=1e-7, atol=1e-12)


def test_bootstrap_in_chunks_equals_all_at_once(monkeypatch: pytest.MonkeyPatch) -> None:
    # Many systems are fitted in chunks of resamples (memory bound); the answer is the same.
    import engine.ranking._bt_bootstrap as boot

    x = np.random.default_rng(0).integers(0, 3, size=(6, 20)).astype(float)
    whole = bt_bootstrap(x, n_resamples=30, rng=1)
    monkeypatch.setattr(boot, "_BLOCK_CELLS", 40)  # one resample per chunk
    chunked = bt_bootstrap(x, n_resamples=30, rng=1)
    np.testing.assert_allclose(chunked.strength_low, whole.strength_low, rtol=1e-10)
    np.testing.assert_allclose(chunked.win_rate_high, whole.win_rate_high, rtol=1e-10)


# ------------------------------------------------ issue #32: sandwich intervals by default


def _glm_cluster_cov(x: np.ndarray) -> np.ndarray:
    """Reference: the battles as rows of a binomial GLM without intercept (y = 1, 0, ½ for
    a tie; design e_i − e_j, first system dropped for identifiability), statsmodels'
    cluster-robust covariance by example without small-sample corrections, returned in
    the sum-zero gauge."""
    s, e = x.shape
    rows, ys, groups = [], [], []
    for col in range(e):
        for i, j in itertools.combinations(range(s), 2):
            if np.isnan(x[i, col]) or np.isnan(x[j, col]):
                continue
            d = np.zeros(s)
            d[i], d[j] = 1.0, -1.0
            rows.append(d[1:])
            ys.append(1.0 if x[i, col] > x[j, col] else 0.0 if x[i, col] < x[j, col] else 0.5)
            groups.append(col)
    fit = sm.GLM(np.array(ys), np.array(rows), family=sm.families.Binomial()).fit(
        cov_type="cluster", cov_kwds={"groups": np.array(groups), "use_correction": False,
                                      "df_correction": False})
    cov = np.zeros((s, s))
    cov[1:, 1:] = fit.cov_params()
    centre = np.eye(s) - 1.0 / s
    return np.asarray(centre @ cov @ centre)


@pytest.mark.parametrize("anchor", [None, 2])
def test_sandwich_elo_intervals_equal_statsmodels_cluster_robust_glm(anchor: int | None) -> None:
    from engine.ranking._bt_sandwich import bt_sandwich

    rng = np.random.default_rng(0)
    x = np.round(rng.normal(size=(5, 60)) + np.linspace(0, 1, 5)[:, None])
    x[1, 3] = x[2, 7] = np.nan  # pairs then share different examples
    wins = np.nan_to_num((x[:, None, :] > x[None]).sum(axis=2))
    shared = (~np.isnan(x[:, None, :]) & ~np.isnan(x[None])).sum(axis=2)
    fit = bradley_terry(wins, shared)
    res = bt_sandwich(x, fit.strength, shared, anchor=anchor)
    cov = _glm_cluster_cov(x)
    var = np.diag(cov) if anchor is None else \
        np.diag(cov) + cov[anchor, anchor] - 2.0 * cov[:, anchor]
    se = 400.0 / np.log(10.0) * np.sqrt(var)
    np.testing.assert_allclose((res.elo_high - res.elo) / 1.959963984540054, se, rtol=1e-6,
                               atol=1e-9)
    np.testing.assert_allclose(res.elo - res.elo_low, res.elo_high - res.elo, rtol=1e-12)


def test_sandwich_is_close_to_the_bootstrap_and_is_the_leaderboard_default() -> None:
    from engine import ScoreMatrix
    from engine.products._leaderboard import leaderboard
    from engine.ranking._bt_sandwich import bt_sandwich

    rng = np.random.default_rng(4)
    x = rng.normal(size=(6, 400)) + np.linspace(0, 0.5, 6)[:, None]
    wins = (x[:, None, :] > x[None]).sum(axis=2)
    fit = bradley_terry(wins, 400)
    sandwich = bt_sandwich(x, fit.strength, np.full((6, 6), 400.0))
    boot = bt_bootstrap(x, n_resamples=2000, rng=1)
    width = lambda lo, hi: hi - lo  # noqa: E731
    np.testing.assert_allclose(width(sandwich.elo_low, sandwich.elo_high),
                               width(boot.elo_low, boot.elo_high), rtol=0.12)
    np.testing.assert_allclose(width(sandwich.win_rate_low, sandwich.win_rate_high),
                               width(boot.win_rate_low, boot.win_rate_high), rtol=0.12)
    table = leaderboard(ScoreMatrix.from_array(x)).table.set_index("system")
    np.testing.assert_allclose(table.loc[[f"s{i}" for i in range(6)], "elo_low"],
                               sandwich.elo_low, rtol=1e-9)


@pytest.mark.parametrize("kind", ["binary", "levels", "continuous"])
@pytest.mark.parametrize("compiled", [True, False])
def test_sandwich_example_counts_equal_brute_force(kind: str, compiled: bool,
                                                  monkeypatch: pytest.MonkeyPatch) -> None:
    """Systems beaten / tied / present per example (the scores' ingredients), by the
    compiled loop, the numpy runs and the 0/1 shortcut, against a loop over pairs."""
    from engine import _jit
    from engine.ranking._bt_sandwich import _block_counts

    if not compiled:
        monkeypatch.setattr(_jit, "kernels", lambda: None)
    monkeypatch.setattr(_jit, "_WORTH_LOADING_S", 0.0)  # Numba even for tiny blocks
    rng = np.random.default_rng(8)
    y = {"binary": (rng.random((7, 30)) < 0.5).astype(float),
         "levels": np.round(rng.normal(size=(7, 30))),
         "continuous": rng.normal(size=(7, 30))}[kind]
    y[1, 2] = y[3, 2] = y[0, 5] = np.nan
    beaten, tied, others = (v.T for v in _block_counts(np.ascontiguousarray(y.T)))
    has = ~np.isnan(y)
    want_b = np.where(has, (y[:, None, :] > y[None]).sum(axis=1), 0)
    want_t = np.where(has, (y[:, None, :] == y[None]).sum(axis=1) - 1, 0)
    np.testing.assert_array_equal(beaten, want_b)
    np.testing.assert_array_equal(tied, want_t)
    np.testing.assert_array_equal(others, np.where(has, has.sum(axis=0) - 1, 0))


@pytest.mark.slow
@settings(max_examples=200)
@given(s=st.integers(1, 9), density=st.floats(0.0, 1.0), seed=st.integers(0, 2**32 - 1))
def test_prior_check_agrees_with_scipy_strong_components(s: int, density: float,
                                                         seed: int) -> None:
    """The two breadth-first searches say "not strongly connected" exactly when scipy's
    strongly-connected-components search finds more than one component."""
    from scipy.sparse import csr_matrix
    from scipy.sparse.csgraph import connected_components

    from engine.ranking._bradley_terry import _needs_prior

    adj = np.random.default_rng(seed).random((s, s)) < density
    np.fill_diagonal(adj, False)
    n, _ = connected_components(csr_matrix(adj), directed=True, connection="strong")
    assert _needs_prior(adj.astype(float)) == (n > 1)


@pytest.mark.parametrize("ties", ["half", "ignore"])
@pytest.mark.parametrize("s", [3, 40, 450])
def test_dense_newton_equals_the_batched_newton(ties: str, s: int) -> None:
    """The single-fit S × S Newton (issue #32) reaches the batched fitter's optimum (the
    previous path of bradley_terry, still the bootstrap's), within the tolerance; 450
    systems take the conjugate-gradient solve."""
    from engine.ranking._bradley_terry import _battles, _newton, _strengths

    rng = np.random.default_rng(s)
    x = np.round(rng.normal(size=(s, 30)) + rng.normal(0, 0.5, size=(s, 1)), 1)
    wins = win_matrix(x).astype(float)
    tied = 30.0 - wins - wins.T
    np.fill_diagonal(tied, 0.0)
    fit = bradley_terry(wins, 30, ties=ties)
    battles, used = _battles(wins[None], tied[None], ties, 0.5)
    ref = _newton(battles, 1e-10, 100)
    assert fit.converged and bool(ref.converged[0]) and fit.prior == float(used[0])
    np.testing.assert_allclose(fit.strength, _strengths(ref.theta[0]), rtol=1e-7)
    assert fit.loglik == pytest.approx(float(ref.loglik[0]), rel=1e-12)


def test_sparse_arena_fit_equals_the_dense_fit() -> None:
    """Pair lists (most pairs never met, issue #32) reach the S × S Newton's optimum."""
    from engine.ranking._bt_dense import newton_dense, newton_sparse, use_pair_lists

    rng = np.random.default_rng(12)
    s, n = 300, 6_000
    theta = rng.normal(0, 1, s)
    a = rng.integers(0, s, n)
    b = (a + rng.integers(1, s, n)) % s
    won = rng.random(n) < 1 / (1 + np.exp(theta[b] - theta[a]))
    wins = np.zeros((s, s))
    np.add.at(wins, (np.where(won, a, b), np.where(won, b, a)), 1.0)
    total = wins + wins.T + 0.5 * (1 - np.eye(s))  # a prior keeps it connected
    assert not use_pair_lists(total)
    total[rng.random((s, s)) < 0.9] = 0.0
    total = np.triu(total, 1) + np.triu(total, 1).T
    margin = np.where(total > 0, wins - wins.T, 0.0)
    assert use_pair_lists(total)
    sparse, dense = newton_sparse(margin, total, 1e-10, 100), newton_dense(margin, total, 1e-10, 100)
    assert sparse.converged and dense.converged
    np.testing.assert_allclose(sparse.theta, dense.theta, atol=1e-7)
    assert sparse.loglik == pytest.approx(dense.loglik, rel=1e-12)


@pytest.mark.slow
def test_cli_rating_intervals_sandwich_by_default_bootstrap_on_request(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """`leaderboard` gives sandwich rating intervals without refits; --bt-resamples N
    bootstraps (different, close limits); 0 leaves them out; a negative count exits 2."""
    import json

    from engine.cli import main

    rng = np.random.default_rng(2)
    rows = [{"benchmark": "b", "system": f"s{i}", "example_id": f"e{j}", "metric": "m",
             "value": float(v)} for i in range(4)
            for j, v in enumerate(rng.normal(i * 0.2, 1.0, 80))]
    path = tmp_path / "scores.csv"
    pd.DataFrame(rows).to_csv(path, index=False)

    def limits(*extra: str) -> pd.DataFrame:
        assert main(["leaderboard", str(path), "--format", "json", *extra]) == 0
        return pd.DataFrame(json.loads(capsys.readouterr().out)["systems"]).set_index("system")

    sandwich, boot, none = limits(), limits("--bt-resamples", "300"), limits("--bt-resamples", "0")
    assert (sandwich["bt_low"] <= sandwich["bt_strength"]).all()
    assert (sandwich["bt_strength"] <= sandwich["bt_high"]).all()
    assert not np.allclose(sandwich["bt_low"], boot["bt_low"])
    np.testing.assert_allclose(sandwich["bt_high"] - sandwich["bt_low"],
                               boot["bt_high"] - boot["bt_low"], rtol=0.35)
    assert none["bt_low"].isna().all()
    assert main(["leaderboard", str(path), "--bt-resamples", "-1"]) == 2
    assert "--bt-resamples: must be 0 or more" in capsys.readouterr().err
