"""Sequential Elo and TrueSkill over example-level battles (engine/ranking/_sequential.py)."""

from __future__ import annotations

import numpy as np
import pytest
import trueskill
from hypothesis import given, settings
from hypothesis import strategies as st

from engine.ranking._sequential import (
    Battles,
    _trueskill_in_rounds,
    battles_from_scores,
    sequential_elo,
    sequential_trueskill,
)

# Three systems A, B, C and three battles in this order: A beats B, B beats C, C beats A.
WORKED = Battles(np.array([0, 1, 0]), np.array([1, 2, 2]), np.array([1.0, 1.0, 0.0]), 3, "ignore")
IDENTITY = np.array([[0, 1, 2]])


def test_elo_worked_example_k32_by_hand() -> None:
    # E = 1 / (1 + 10^((R_b - R_a)/400)); R_a += K (s - E); R_b -= K (s - E); all start at 1000.
    # 1) A vs B, A wins: E = 0.5, delta = 32 * 0.5 = 16 → A = 1016, B = 984.
    # 2) B vs C, B wins: E = 1/(1 + 10^(16/400)) = 1/(1 + 1.096478) = 0.476990,
    #    delta = 32 * 0.523010 = 16.736307 → B = 1000.736307, C = 983.263693.
    # 3) A vs C, C wins: E_A = 1/(1 + 10^((983.263693 - 1016)/400)) = 1/(1 + 0.828246)
    #    = 0.546972, delta = 32 * (0 - 0.546972) = -17.503117 → A = 998.496883, C = 1000.766810.
    res = sequential_elo(WORKED, k=32, initial=1000, orders=IDENTITY)
    np.testing.assert_allclose(res.rating, [998.496883, 1000.736307, 1000.766810], atol=1e-6)


def test_elo_worked_example_k4_by_hand() -> None:
    # Same battles with K = 4:
    # 1) E = 0.5, delta = 2 → A = 1002, B = 998.
    # 2) E_B = 1/(1 + 10^(2/400)) = 1/(1 + 1.011579) = 0.497122, delta = 4 * 0.502878 = 2.011513
    #    → B = 1000.011513, C = 997.988487.
    # 3) E_A = 1/(1 + 10^((997.988487 - 1002)/400)) = 1/(1 + 0.977172) = 0.505773,
    #    delta = -4 * 0.505773 = -2.023091 → A = 999.976909, C = 1000.011578.
    res = sequential_elo(WORKED, k=4, initial=1000, orders=IDENTITY)
    np.testing.assert_allclose(res.rating, [999.976909, 1000.011513, 1000.011578], atol=1e-6)


def _elo_loop(b: Battles, order: np.ndarray, k: float) -> np.ndarray:
    """Reference: one battle at a time, as arena notebooks do (Chiang et al. 2024)."""
    r = np.full(b.n_systems, 1000.0)
    for t in order:
        i, j, s = b.a[t], b.b[t], b.score[t]
        e = 1.0 / (1.0 + 10 ** ((r[j] - r[i]) / 400.0))
        r[i] += k * (s - e)
        r[j] -= k * (s - e)
    return r


@pytest.mark.parametrize("ties", ["ignore", "draw"])
def test_elo_permutations_match_a_loop_per_order(ties: str) -> None:
    rng = np.random.default_rng(5)
    b = battles_from_scores(rng.integers(0, 3, (7, 30)).astype(float), ties=ties)  # type: ignore[arg-type]
    orders = np.vstack([rng.permutation(b.n_battles) for _ in range(4)])
    res = sequential_elo(b, k=16, orders=orders)
    expected = np.vstack([_elo_loop(b, o, 16) for o in orders])
    np.testing.assert_allclose(res.by_permutation, expected, rtol=0, atol=1e-9)
    np.testing.assert_allclose(res.rating, expected.mean(axis=0), atol=1e-9)
    np.testing.assert_allclose(res.by_permutation.mean(axis=1), 1000.0)  # points are conserved


def test_elo_seeded_orders_are_reproducible_and_differ_between_seeds() -> None:
    b = battles_from_scores(np.random.default_rng(1).integers(0, 2, (5, 40)).astype(float))
    one, again = sequential_elo(b, n_permutations=8, rng=3), sequential_elo(b, n_permutations=8, rng=3)
    other = sequential_elo(b, n_permutations=8, rng=4)
    np.testing.assert_array_equal(one.by_permutation, again.by_permutation)
    assert not np.array_equal(one.by_permutation, other.by_permutation)
    assert one.seed == 3 and one.n_permutations == 8


def test_battles_are_every_decisive_pair_of_every_example() -> None:
    x = np.random.default_rng(2).integers(0, 3, (6, 25)).astype(float)
    b = battles_from_scores(x)
    # per-example, per-pair loop
    expected = [(i, j, float(x[i, e] > x[j, e])) for e in range(25) for i in range(6)
                for j in range(i + 1, 6) if x[i, e] != x[j, e]]
    assert list(zip(b.a.tolist(), b.b.tolist(), b.score.tolist(), strict=True)) == expected
    draws = battles_from_scores(x, ties="draw")
    assert draws.n_battles == 25 * 15 and set(draws.score.tolist()) <= {0.0, 0.5, 1.0}


def test_bad_inputs_name_the_argument() -> None:
    with pytest.raises(ValueError, match="x: must have no missing"):
        battles_from_scores(np.array([[1.0, np.nan], [0.0, 1.0]]))
    with pytest.raises(ValueError, match="ties: must be"):
        battles_from_scores(np.zeros((2, 2)), ties="half")  # type: ignore[arg-type]
    with pytest.raises(ValueError, match="orders: each row must be a permutation"):
        sequential_elo(WORKED, orders=np.array([[0, 0, 1]]))
    with pytest.raises(ValueError, match="k: must be a positive number; got -1"):
        sequential_elo(WORKED, k=-1)
    with pytest.raises(ValueError, match="n_permutations: must be at least 1; got 0"):
        sequential_elo(WORKED, n_permutations=0)


def test_trueskill_documented_1vs1_example() -> None:
    # trueskill 0.4.5 (trueskill.org "Head-to-head (1 vs. 1) match rule" and its test suite,
    # trueskilltest.py test_n_vs_n): two new players (25, 8.333), the first wins →
    # (29.396, 7.171) and (20.604, 7.171); a draw → (25.000, 6.458) for both.
    win = trueskill.rate_1vs1(trueskill.Rating(), trueskill.Rating())
    assert [(round(r.mu, 3), round(r.sigma, 3)) for r in win] == [(29.396, 7.171), (20.604, 7.171)]
    ours = sequential_trueskill(battles_from_scores(np.array([[1.0], [0.0]])), orders=np.array([[0]]))
    assert ours.sigma is not None
    np.testing.assert_allclose(ours.rating, [29.396, 20.604], atol=5e-4)
    np.testing.assert_allclose(ours.sigma, [7.171, 7.171], atol=5e-4)
    drawn = sequential_trueskill(battles_from_scores(np.array([[1.0], [1.0]]), ties="draw"),
                                 orders=np.array([[0]]))
    assert drawn.sigma is not None
    np.testing.assert_allclose(drawn.rating, [25.0, 25.0], atol=5e-4)
    np.testing.assert_allclose(drawn.sigma, [6.458, 6.458], atol=5e-4)


def test_trueskill_sequence_matches_the_package_battle_by_battle() -> None:
    rng = np.random.default_rng(11)
    b = battles_from_scores(rng.integers(0, 3, (6, 20)).astype(float), ties="draw")
    order = rng.permutation(b.n_battles)
    ours = sequential_trueskill(b, orders=order[None])
    ratings = [trueskill.Rating() for _ in range(6)]
    for t in order:  # the package, one rate_1vs1 per battle (winner first)
        i, j, s = int(b.a[t]), int(b.b[t]), b.score[t]
        w, lo = (i, j) if s >= 0.5 else (j, i)
        ratings[w], ratings[lo] = trueskill.rate_1vs1(ratings[w], ratings[lo], drawn=s == 0.5)
    assert ours.sigma is not None
    # the package's own normal cdf is an erfc approximation (~1e-7 relative)
    np.testing.assert_allclose(ours.rating, [r.mu for r in ratings], atol=1e-5)
    np.testing.assert_allclose(ours.sigma, [r.sigma for r in ratings], atol=1e-5)


@settings(max_examples=25)
@given(st.integers(0, 2**31 - 1))
def test_relabelling_systems_relabels_the_ratings(seed: int) -> None:
    rng = np.random.default_rng(seed)
    b = battles_from_scores(rng.integers(0, 2, (5, 8)).astype(float))
    perm = rng.permutation(5)
    relabelled = Battles(perm[b.a], perm[b.b], b.score, 5, b.ties)
    orders = np.vstack([rng.permutation(b.n_battles) for _ in range(3)])
    base, moved = sequential_elo(b, orders=orders), sequential_elo(relabelled, orders=orders)
    np.testing.assert_allclose(moved.rating[perm], base.rating, atol=1e-9)
    ts_base = sequential_trueskill(b, orders=orders)
    ts_moved = sequential_trueskill(relabelled, orders=orders)
    np.testing.assert_allclose(ts_moved.rating[perm], ts_base.rating, atol=1e-9)


def _trueskill_per_step(b: Battles, orders: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Reference: the same closed-form update, one battle position per step across orders
    (the previous implementation of sequential_trueskill)."""
    from engine.ranking._sequential import _v_w

    env = trueskill.TrueSkill()
    beta, tau = float(env.beta), float(env.tau)
    margin = float(trueskill.calc_draw_margin(env.draw_probability, 2, env=env))
    p = len(orders)
    mu = np.full(b.n_systems * p, float(env.mu))
    var = np.full(b.n_systems * p, float(env.sigma) ** 2)
    lane = np.arange(p)
    for step in orders.T:
        s = b.score[step]
        w = np.where(s >= 0.5, b.a[step], b.b[step]) * p + lane
        lo = np.where(s >= 0.5, b.b[step], b.a[step]) * p + lane
        vw, vl = var[w] + tau**2, var[lo] + tau**2
        c = np.sqrt(2 * beta**2 + vw + vl)
        v, ww = _v_w((mu[w] - mu[lo]) / c, margin / c, s == 0.5)
        mu[w] += vw / c * v
        mu[lo] -= vl / c * v
        var[w] = vw * (1 - vw / c**2 * ww)
        var[lo] = vl * (1 - vl / c**2 * ww)
    return mu.reshape(b.n_systems, p).T, np.sqrt(var.reshape(b.n_systems, p).T)


@pytest.mark.parametrize("ties", ["ignore", "draw"])
def test_trueskill_in_rounds_equals_one_battle_per_step_bit_for_bit(ties: str) -> None:
    rng = np.random.default_rng(8)
    b = battles_from_scores(rng.integers(0, 3, (9, 40)).astype(float), ties=ties)  # type: ignore[arg-type]
    orders = np.vstack([rng.permutation(b.n_battles) for _ in range(5)])
    # the numpy replay itself: sequential_trueskill takes the compiled one once Numba is loaded
    env = trueskill.TrueSkill()
    params = (float(env.mu), float(env.sigma), float(env.beta), float(env.tau),
              float(trueskill.calc_draw_margin(env.draw_probability, 2, env=env)))
    ours, var = _trueskill_in_rounds(b, orders, params)
    mu, sd = _trueskill_per_step(b, orders)
    np.testing.assert_array_equal(ours, mu)
    np.testing.assert_allclose(np.sqrt(var).mean(axis=0), sd.mean(axis=0), rtol=1e-15)


@settings(max_examples=40)
@given(st.integers(2, 9), st.integers(0, 60), st.integers(1, 6), st.integers(0, 2**31 - 1))
def test_schedule_keeps_each_order_and_never_repeats_a_system_in_a_round(
        n_systems: int, n_battles: int, n_orders: int, seed: int) -> None:
    from engine.ranking._sequential import _schedule

    rng = np.random.default_rng(seed)
    a = rng.integers(0, n_systems - 1, n_battles)
    b = Battles(a, (a + 1 + rng.integers(0, n_systems - 1, n_battles)) % n_systems,
                np.ones(n_battles), n_systems, "ignore")
    orders = np.vstack([rng.permutation(n_battles) for _ in range(n_orders)]).reshape(n_orders, -1)
    plan = _schedule(b, orders)
    assert plan.bounds[0] == 0 and plan.bounds[-1] == n_orders * n_battles
    for q in range(n_orders):  # read in layout order, each order's battles come in its order
        np.testing.assert_array_equal(plan.battle[plan.lane == q], orders[q])
    for start, stop in zip(plan.bounds[:-1], plan.bounds[1:], strict=True):
        lane, battle = plan.lane[start:stop], plan.battle[start:stop]
        touched = np.concatenate([lane * n_systems + b.a[battle], lane * n_systems + b.b[battle]])
        assert len(np.unique(touched)) == len(touched)  # a round touches each system once
    # greedy: a round ends only where the next battle would repeat a system of the round
    one = _schedule(b, orders[:1])
    for start, stop in zip(one.bounds[:-1], one.bounds[1:], strict=True):
        if stop < n_battles:
            nxt = one.battle[stop]
            used = set(b.a[one.battle[start:stop]]) | set(b.b[one.battle[start:stop]])
            assert {int(b.a[nxt]), int(b.b[nxt])} & {int(u) for u in used}


def test_orders_are_numpys_permuted_rows_in_c_order() -> None:
    from engine.ranking._sequential import _orders

    # numpy's Generator.permuted along axis 1 of the broadcast identity (the previous way
    # of drawing them): the same orders for the same seed, now C-ordered
    ref = np.random.default_rng(7).permuted(np.broadcast_to(np.arange(50), (6, 50)), axis=1)
    got = _orders(50, 6, 7, None)
    np.testing.assert_array_equal(got, ref)
    assert got.flags["C_CONTIGUOUS"]
    np.testing.assert_array_equal(np.sort(got, axis=1), np.broadcast_to(np.arange(50), (6, 50)))


def test_compiled_python_and_vectorised_replays_agree(monkeypatch: pytest.MonkeyPatch) -> None:
    """Issue #32: the compiled loop (Numba), the loop over Python floats and the replay of
    all orders together give the same ratings, up to the last bits of exp (numpy's
    vectorised exp and the C library's may differ by an ulp)."""
    from engine import _jit
    from engine.ranking import _sequential as sq

    rng = np.random.default_rng(3)
    b = battles_from_scores(rng.normal(size=(12, 300)).round(1), ties="draw")
    orders = np.vstack([rng.permutation(b.n_battles) for _ in range(5)])
    c = float(np.log(10.0) / 400.0)
    together = sq._elo_vectorised(b, orders, 4.0, 1000.0, c)
    compiled = sq._elo_by_order(b, orders, 4.0, 1000.0, c, _jit.kernels())
    monkeypatch.setattr(_jit, "kernels", lambda: None)
    plain = sq._elo_by_order(b, orders, 4.0, 1000.0, c)
    np.testing.assert_allclose(compiled, together, rtol=0, atol=1e-9)
    np.testing.assert_allclose(plain, together, rtol=0, atol=1e-9)
    np.testing.assert_allclose(sequential_elo(b, orders=orders).by_permutation, together,
                               rtol=0, atol=1e-9)
