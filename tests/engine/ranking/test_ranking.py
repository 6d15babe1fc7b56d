"""Bradley–Terry (MM, ties as half wins), Elo scale and win rates (SPEC "Leaderboard columns";
Peyrard, Zhao, Eger & West 2021, *Better than Average: Paired Evaluation of NLP Systems*,
ACL-IJCNLP 2021)."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from engine._matrix import ScoreMatrix as ScoreMatrix
from engine.products._leaderboard import leaderboard
from engine.ranking._bradley_terry import bradley_terry, elo_scale, win_rates
from engine.stats._kernels import win_matrix


def _matrix(scores: dict[str, list[float]]):  # type: ignore[no-untyped-def]
    return ScoreMatrix.from_array(scores, benchmark="b", metric="m")


def test_peyrard_appendix_f_two_systems() -> None:
    # Peyrard et al. (2021), appendix F: A = [1, 2, 3], B = [2, 3, 1] (numeric,
    # example-level) → "BT identifies system B as better with a relative strength of 2/3".
    m = _matrix({"A": [1, 2, 3], "B": [2, 3, 1]})
    assert not m.binary
    w = win_matrix(m.values)
    np.testing.assert_array_equal(w, [[0, 1], [2, 0]])
    bt = bradley_terry(w, m.n_common)
    np.testing.assert_allclose(bt.strength, [1 / 3, 2 / 3], rtol=1e-9)
    assert bt.converged and bt.prior == 0.0
    # the same through the leaderboard
    lb = leaderboard(m).table.set_index("system")
    assert lb.loc["B", "bt_strength"] == pytest.approx(2 / 3)
    assert lb.loc["B", "win_rate"] == pytest.approx(2 / 3)
    # Elo: 400 · log10(2) points apart, centred on 1000
    assert lb.loc["B", "elo"] - lb.loc["A", "elo"] == pytest.approx(400 * np.log10(2))
    assert (lb.loc["A", "elo"] + lb.loc["B", "elo"]) / 2 == pytest.approx(1000)


def test_ties_count_as_half_wins() -> None:
    # A = [1, 1, 1, 0], B = [0, 1, 1, 0]: A wins 1, 3 ties → A has 1 + 3/2 = 2.5 of 4 battles;
    # for two systems the MLE is closed form: strength share = 2.5 / 4 = 0.625.
    w = np.array([[0, 1], [0, 0]])
    bt = bradley_terry(w, 4)
    np.testing.assert_allclose(bt.strength, [0.625, 0.375], rtol=1e-9)
    assert bt.prior == 0.0  # ties connect the battle graph both ways: no prior needed


def test_prior_when_a_system_never_wins() -> None:
    # A beats B on all 3 examples: the MLE does not exist (B's strength → 0). A tied
    # pseudo-battle (prior 0.5) is added to every pair: A has 3 + 0.25, B has 0.25.
    bt = bradley_terry(np.array([[0, 3], [0, 0]]), 3)
    assert bt.prior == 0.5
    np.testing.assert_allclose(bt.strength, [3.25 / 3.5, 0.25 / 3.5], rtol=1e-9)
    assert np.isfinite(elo_scale(bt.strength)).all()
    assert bradley_terry(np.array([[0, 3], [0, 0]]), 3, prior=1.0).prior == 1.0


def test_prior_when_graph_not_strongly_connected() -> None:
    # {A, B} beat {C, D} on every example, A~B and C~D split: no system has zero wins,
    # but the group {C, D} never beats {A, B}.
    w = np.array([[0, 2, 4, 4], [2, 0, 4, 4], [0, 0, 0, 2], [0, 0, 2, 0]])
    bt = bradley_terry(w, 4)
    assert bt.prior == 0.5 and bt.converged
    assert bt.strength[0] == pytest.approx(bt.strength[1])
    assert bt.strength[2] == pytest.approx(bt.strength[3])
    assert bt.strength[0] > 5 * bt.strength[2]


def test_degenerate_sizes() -> None:
    empty = bradley_terry(np.zeros((0, 0)), 0)
    assert empty.strength.shape == (0,) and empty.converged
    # all ties: everyone equal
    np.testing.assert_allclose(bradley_terry(np.zeros((3, 3)), 7).strength, [1 / 3] * 3)
    # no shared example at all: the prior alone → everyone equal
    bt = bradley_terry(np.zeros((2, 2)), 0)
    assert bt.prior == 0.5
    np.testing.assert_allclose(bt.strength, [0.5, 0.5])


def test_single_system_has_all_the_strength() -> None:
    # Strengths sum to 1 (BradleyTerry docstring); the code even marks s == 1 as converged.
    with np.errstate(invalid="raise"):
        one = bradley_terry(np.zeros((1, 1)), 5)
    np.testing.assert_array_equal(one.strength, [1.0])
    assert one.converged


@st.composite
def battles(draw: st.DrawFn) -> tuple[np.ndarray, int]:
    s = draw(st.integers(2, 6))
    n = draw(st.integers(1, 20))
    w = np.zeros((s, s), dtype=int)
    for i in range(s):
        for j in range(i + 1, s):
            a = draw(st.integers(0, n))
            b = draw(st.integers(0, n - a))
            w[i, j], w[j, i] = a, b
    return w, n


@settings(max_examples=50, suppress_health_check=[HealthCheck.too_slow])
@given(case=battles(), data=st.data())
def test_bt_solves_the_likelihood_equations(case: tuple[np.ndarray, int], data: st.DataObject) -> None:
    # Zermelo (1929) / Hunter (2004): the MLE satisfies, for every i,
    #   Σ_j A_ij = Σ_j N_ij · p_i / (p_i + p_j),  A = wins + ties / 2 (+ prior / 2), N = A + Aᵀ.
    w, n = case
    bt = bradley_terry(w, n)
    assert bt.converged
    p = bt.strength
    assert p.sum() == pytest.approx(1.0) and (p > 0).all()
    a = w + (n - w - w.T) / 2.0 + bt.prior / 2.0
    np.fill_diagonal(a, 0.0)
    nn = a + a.T
    expected = (nn * p[:, None] / (p[:, None] + p[None, :])).sum(axis=1)
    np.testing.assert_allclose(a.sum(axis=1), expected, rtol=1e-6, atol=1e-8)
    # relabelling systems permutes the strengths
    perm = np.asarray(data.draw(st.permutations(range(len(w)))))
    np.testing.assert_allclose(bradley_terry(w[np.ix_(perm, perm)], n).strength, p[perm],
                               rtol=1e-6, atol=1e-9)


def test_bt_follows_win_share_order() -> None:
    # three systems, transitive battles: strengths keep the order of win rates
    w = np.array([[0, 6, 8], [3, 0, 6], [1, 2, 0]])
    bt = bradley_terry(w, 10)
    assert bt.strength[0] > bt.strength[1] > bt.strength[2]
    r = win_rates(w)
    assert r[0] > r[1] > r[2]


def test_win_rates_brute_force() -> None:
    w = np.array([[0, 3, 1], [2, 0, 0], [4, 0, 0]])
    # won / (won + lost) over decisive battles only
    np.testing.assert_allclose(win_rates(w), [4 / 10, 2 / 5, 4 / 5])
    r = win_rates(np.array([[0, 0], [0, 0]]))
    assert np.isnan(r).all()  # no decisive battle: NaN, not 0


def test_elo_scale() -> None:
    s = np.array([0.5, 0.25, 0.25])
    e = elo_scale(s)
    assert e.mean() == pytest.approx(1000.0)
    assert e[0] - e[1] == pytest.approx(400 * np.log10(2))
    anchored = elo_scale(s, anchor=1, base=1500.0)
    assert anchored[1] == 1500.0
    np.testing.assert_allclose(anchored - anchored[1], e - e[1])
    # 400 points = 10:1 odds
    e2 = elo_scale(np.array([10 / 11, 1 / 11]))
    assert e2[0] - e2[1] == pytest.approx(400.0)
    # a zero strength is -inf and does not shift the others' mean
    e3 = elo_scale(np.array([0.5, 0.5, 0.0]))
    assert e3[2] == -np.inf and e3[0] == pytest.approx(1000.0)
