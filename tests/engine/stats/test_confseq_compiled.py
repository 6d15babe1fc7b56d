"""The compiled kernels of the confidence sequences (#27 item 3) against the numpy code they
stand in for (itself checked against the authors' ``confseq`` package and the closed forms in
test_confseq.py). The betting walk (engine._jit._betting_walk): the same interval ends after
every observation and the same log wealth (to 1e-9: products in linear space instead of sums
of logs), from a fresh start and from a stored state, on continuous, three-valued (paired 0/1
differences) and near-constant data, long enough for the scale to be folded many times. The
self-normalised mixture's root search (engine._jit._mixture_roots): the same ends to the last
places of the mean and the half-width."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import assume, given, settings
from hypothesis import strategies as st

from engine import _jit
from engine.stats._confseq import (
    _compiled_walk,
    _mixture_interval,
    _numpy_walk,
    plugin_bets,
    start_sequence,
)

pytestmark = pytest.mark.skipif(_jit.kernels() is None, reason="Numba is not installed")


def _data(rng: np.random.Generator, kind: int, n: int) -> np.ndarray:
    if kind == 0:
        return rng.random(n)
    if kind == 1:
        return rng.choice([0.0, 0.5, 1.0], n, p=[0.2, 0.5, 0.3])
    return np.clip(rng.normal(0.7, 0.02, n), 0.0, 1.0)


@pytest.mark.slow
@settings(max_examples=120)
@given(st.integers(0, 2**32 - 1), st.integers(1, 700), st.sampled_from([4, 100, 1000]),
       st.integers(0, 2), st.sampled_from([0.01, 0.05, 0.2]), st.booleans())
def test_compiled_walk_equals_the_numpy_blocks(seed: int, n: int, breaks: int, kind: int,
                                               alpha: float, resumed: bool) -> None:
    rng = np.random.default_rng(seed)
    x = _data(rng, kind, n)
    lam, _, _ = plugin_bets(x, alpha=alpha)
    grid = np.linspace(0.0, 1.0, breaks + 1)
    up = rng.normal(0, 3, breaks + 1) if resumed else np.zeros(breaks + 1)
    down = rng.normal(0, 3, breaks + 1) if resumed else np.zeros(breaks + 1)
    up_n, down_n, up_c, down_c = up.copy(), down.copy(), up.copy(), down.copy()
    want = _numpy_walk(x, lam, grid, up_n, down_n, alpha)
    got = _compiled_walk(x, lam, grid, up_c, down_c, alpha, _jit.kernels())
    assert np.array_equal(got[0], want[0]) and np.array_equal(got[1], want[1])
    np.testing.assert_allclose(got[2], want[2], rtol=1e-9, atol=1e-9)
    np.testing.assert_allclose(up_c, up_n, rtol=1e-9, atol=1e-9)
    np.testing.assert_allclose(down_c, down_n, rtol=1e-9, atol=1e-9)


def test_a_sequence_far_from_its_start_keeps_exact_wealth() -> None:
    """20,000 observations of a mean 0.9 against grid means near 0: the wealth passes e^709,
    float64's largest (folded into its offset many times), and sinks for the others."""
    rng = np.random.default_rng(4)
    d = 2 * (rng.random(20_000) < 0.9) - 1.0
    state = start_sequence(bounds=(0.0, 1.0), alpha=0.05, breaks=200)
    compiled, steps = state.update(d)
    lam, _, _ = plugin_bets((d + 1) / 2, alpha=0.05)
    up, down = np.zeros(201), np.zeros(201)
    _, _, log_e = _numpy_walk((d + 1) / 2, lam, np.linspace(0, 1, 201), up, down, 0.05)
    np.testing.assert_allclose(compiled.log_up, up, rtol=1e-9)
    np.testing.assert_allclose(compiled.log_down, down, rtol=1e-9)
    assert up.max() > np.log(np.finfo(np.float64).max)  # past float64 in linear space
    np.testing.assert_allclose(steps.log_e, log_e, rtol=1e-9)


@pytest.mark.slow
@settings(max_examples=120)
@given(st.integers(0, 2**32 - 1), st.integers(1, 900), st.booleans(),
       st.sampled_from([0.01, 0.05, 0.2]))
def test_compiled_mixture_roots_equal_the_numpy_search(seed: int, n: int, ties: bool,
                                                       alpha: float) -> None:
    """The self-normalised normal mixture's ends (unbounded scores: AlpacaEval's preferences)
    by the compiled root search equal the numpy search's to the last places, and are
    infinite at the same times (the first observations, before a bound exists)."""
    rng = np.random.default_rng(seed)
    d = rng.choice([-1.0, 0.0, 1.0], n) if ties else rng.normal(rng.normal(0, 0.3),
                                                                 rng.uniform(0.01, 3), n)
    state = start_sequence(bounds=None, alpha=alpha, breaks=1000)
    burned, _ = state.update(d[:10])
    rest = d[10:]
    assume(len(rest) > 0 and burned.rho != 0.0)
    t = np.arange(1.0, len(rest) + 1)
    s, q = np.cumsum(rest), np.cumsum(rest**2)
    want = _mixture_interval(t, s, q, burned, None)
    got = _mixture_interval(t, s, q, burned, _jit.kernels())
    for a, b in zip(got, want, strict=True):
        assert np.array_equal(np.isfinite(a), np.isfinite(b))
        # the end is mean ± half-width: a unit in the last place of either (1e-16 of values
        # near 1) may be 3e-15 of an end near 0
        np.testing.assert_allclose(a, b, rtol=1e-14, atol=1e-15)
