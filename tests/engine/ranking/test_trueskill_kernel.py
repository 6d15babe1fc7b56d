"""The compiled TrueSkill replay (engine._jit._trueskill_replay, #27 item 3) against the numpy
replay in rounds (the reference, itself equal bit for bit to one battle per step in
test_elo.py) and against the ``trueskill`` package 0.4.5 (``rate_1vs1``)."""

from __future__ import annotations

import numpy as np
import pytest
import trueskill
from hypothesis import given, settings
from hypothesis import strategies as st

from engine import _jit
from engine.ranking import _sequential as sq

ENV = trueskill.TrueSkill()
PARAMS = (float(ENV.mu), float(ENV.sigma), float(ENV.beta), float(ENV.tau),
          float(trueskill.calc_draw_margin(ENV.draw_probability, 2, env=ENV)))
KERNELS = _jit.kernels()
pytestmark = pytest.mark.skipif(KERNELS is None, reason="Numba is not installed")


@pytest.mark.slow
@settings(max_examples=20)
@given(st.integers(2, 12), st.integers(1, 60), st.integers(1, 6), st.sampled_from(["ignore", "draw"]),
       st.integers(0, 2**31 - 1))
def test_kernel_equals_the_numpy_replay_in_rounds(n_systems: int, n_examples: int, n_orders: int,
                                                  ties: str, seed: int) -> None:
    rng = np.random.default_rng(seed)
    x = rng.integers(0, 3, (n_systems, n_examples)).astype(float)  # few levels: many ties
    b = sq.battles_from_scores(x, ties=ties)  # type: ignore[arg-type]
    orders = sq._orders(b.n_battles, n_orders, rng, None)
    mu, var = sq._trueskill_by_order(b, orders, PARAMS, KERNELS)
    ref_mu, ref_var = sq._trueskill_in_rounds(b, orders, PARAMS)
    np.testing.assert_allclose(mu, ref_mu, rtol=0, atol=1e-9)
    np.testing.assert_allclose(var, ref_var, rtol=0, atol=1e-9)


def test_kernel_matches_the_package_battle_by_battle() -> None:
    rng = np.random.default_rng(5)
    b = sq.battles_from_scores(rng.integers(0, 3, (6, 20)).astype(float), ties="draw")
    order = rng.permutation(b.n_battles)
    mu, var = sq._trueskill_by_order(b, order[None], PARAMS, KERNELS)
    ratings = [trueskill.Rating() for _ in range(6)]
    for t in order:  # trueskill 0.4.5, one rate_1vs1 per battle (winner first)
        i, j, s = int(b.a[t]), int(b.b[t]), b.score[t]
        w, lo = (i, j) if s >= 0.5 else (j, i)
        ratings[w], ratings[lo] = trueskill.rate_1vs1(ratings[w], ratings[lo], drawn=s == 0.5)
    # the package's normal cdf is an erfc approximation (~1e-7 relative)
    np.testing.assert_allclose(mu[0], [r.mu for r in ratings], atol=1e-5)
    np.testing.assert_allclose(np.sqrt(var[0]), [r.sigma for r in ratings], atol=1e-5)


# One upset: system 0 (mu 0, var 0.09) beats system 1 (mu = gap, var 0.04), beta 0.2,
# tau 0.01, draw margin 0.05, so x = t - eps runs from -0.11 to -4362 (pdf and cdf underflow
# past -38). Reference: the closed form evaluated by mpmath 1.3.0 at 50 digits (mu after,
# var after), pdf/cdf = mp.npdf(x) / mp.ncdf(x).
TAIL = {
    0.0: ([0.17069480102386214026, -0.075969606227046302156],
          [0.064621610681789949456, 0.035053257657039724837]),
    5.0: ([2.1821878312830071891, 4.0287932071648325385],
          [0.051783168015231050811, 0.0325102275065159666]),
    40.0: ([17.169256710443901945, 32.358632696017752852],
           [0.051484647986331239841, 0.032451096858528198041]),
    150.0: ([64.317941083273137669, 121.3745900395199465],
            [0.051479951405677529957, 0.032450166562968452237]),
    2000.0: ([857.30025913069587535, 1618.4490522625870743],
             [0.051479592895242444028, 0.032450095549460865707]),
}


@pytest.mark.parametrize("gap", sorted(TAIL))
def test_kernel_upsets_far_in_the_tail_equal_mpmath(gap: float) -> None:
    mu, var = np.array([0.0, gap]), np.array([0.09, 0.04])
    one = np.zeros(1, dtype=np.int32)
    KERNELS.trueskill_replay(one, one + 1, np.zeros(1, dtype=bool), mu, var, 0.2, 0.01, 0.05)
    np.testing.assert_allclose(mu, TAIL[gap][0], rtol=1e-13)
    np.testing.assert_allclose(var, TAIL[gap][1], rtol=1e-12)


def test_sequential_trueskill_replays_with_the_kernel_once_numba_is_worth_it(
        monkeypatch: pytest.MonkeyPatch) -> None:
    rng = np.random.default_rng(2)
    b = sq.battles_from_scores(rng.normal(size=(8, 50)).round(1))
    orders = sq._orders(b.n_battles, 3, 0, None)
    monkeypatch.setattr(_jit, "kernels_for", lambda seconds: None)
    plain = sq.sequential_trueskill(b, orders=orders)
    used = []
    monkeypatch.setattr(_jit, "kernels_for", lambda seconds: used.append(seconds) or KERNELS)
    compiled = sq.sequential_trueskill(b, orders=orders)
    assert used and used[0] == pytest.approx(b.n_battles * (sq._ROUND_STEP_S + 3 * sq._ROUNDS_BATTLE_S))
    np.testing.assert_allclose(compiled.by_permutation, plain.by_permutation, rtol=0, atol=1e-9)
    assert compiled.sigma is not None and plain.sigma is not None
    np.testing.assert_allclose(compiled.sigma, plain.sigma, rtol=0, atol=1e-9)
