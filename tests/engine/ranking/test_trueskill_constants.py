"""The engine's own TrueSkill constants and draw margin (engine.ranking._sequential: TrueSkillEnv,
draw_margin; Herbrich, Minka & Graepel 2006) against the ``trueskill`` package 0.4.5, which is a
test dependency only (requirements-test.txt), on random inputs."""

from __future__ import annotations

import numpy as np
import pytest
import trueskill
from hypothesis import given, settings
from hypothesis import strategies as st

from engine.ranking._sequential import (
    TrueSkillEnv,
    battles_from_scores,
    draw_margin,
    sequential_trueskill,
)


def test_default_constants_are_the_packages_bit_for_bit() -> None:
    ours, theirs = TrueSkillEnv(), trueskill.TrueSkill()
    for name in ("mu", "sigma", "beta", "tau", "draw_probability"):
        assert getattr(ours, name) == getattr(theirs, name), name


@pytest.mark.slow
@settings(max_examples=200)
@given(st.floats(0.0, 0.9), st.floats(0.01, 100.0), st.integers(2, 8))
def test_draw_margin_equals_the_packages(p: float, beta: float, size: int) -> None:
    exact = trueskill.TrueSkill(beta=beta, backend="scipy")  # scipy's normal ppf: exact
    np.testing.assert_allclose(draw_margin(p, beta, size),
                               trueskill.calc_draw_margin(p, size, env=exact), rtol=1e-13, atol=0)
    default = trueskill.TrueSkill(beta=beta)  # the package's own ppf, an approximation
    np.testing.assert_allclose(draw_margin(p, beta, size),
                               trueskill.calc_draw_margin(p, size, env=default), rtol=2e-6,
                               atol=1e-7 * beta * size)  # its ppf(0.5) is ~2.7e-8, not 0


@pytest.mark.slow
@settings(max_examples=15)
@given(st.integers(0, 2**31 - 1))
def test_ratings_with_random_constants_equal_the_packages(seed: int) -> None:
    rng = np.random.default_rng(seed)
    mu = float(rng.uniform(0, 50))
    sigma = float(rng.uniform(1, 10))
    env = TrueSkillEnv(mu=mu, sigma=sigma, beta=float(rng.uniform(0.5, 6)),
                       tau=float(rng.uniform(0, 0.5)), draw_probability=float(rng.uniform(0, 0.4)))
    theirs = trueskill.TrueSkill(mu=env.mu, sigma=env.sigma, beta=env.beta, tau=env.tau,
                                 draw_probability=env.draw_probability, backend="scipy")
    b = battles_from_scores(rng.integers(0, 3, (5, 12)).astype(float), ties="draw")
    order = rng.permutation(b.n_battles)
    ours = sequential_trueskill(b, orders=order[None], env=env)
    ratings = [theirs.create_rating() for _ in range(5)]
    for t in order:  # the package, one rate_1vs1 per battle (winner first)
        i, j, s = int(b.a[t]), int(b.b[t]), b.score[t]
        w, lo = (i, j) if s >= 0.5 else (j, i)
        ratings[w], ratings[lo] = trueskill.rate_1vs1(ratings[w], ratings[lo], drawn=s == 0.5,
                                                        env=theirs)
    assert ours.sigma is not None
    np.testing.assert_allclose(ours.rating, [r.mu for r in ratings], rtol=1e-7, atol=1e-7)
    np.testing.assert_allclose(ours.sigma, [r.sigma for r in ratings], rtol=1e-7, atol=1e-7)
    # a package environment works where a TrueSkillEnv is taken (the same five attributes)
    again = sequential_trueskill(b, orders=order[None], env=theirs)
    np.testing.assert_array_equal(again.rating, ours.rating)
