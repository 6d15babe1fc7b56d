"""The additive model's adjusted means stay within the range of the scores.

A predicted mean of scores cannot leave the scores' range; least squares on a two-way
layout can (a 0/1 system scored on one passed example that the others failed got
1 + 0.83 = 183%, on the real interrupted Inspect logs of
tests/data/harness-logs-real/inspect/interrupted). Reference values are worked by hand
from the model y = mu + a_s + b_e (engine/stats/_additive.py's docstring).
"""

from __future__ import annotations

import numpy as np
from hypothesis import given, settings
from hypothesis import strategies as st

from engine.stats._additive import additive_fit


def test_one_passed_example_is_at_most_100_percent() -> None:
    # B fails example 0 and passes the other five: unbounded, A = 1 + (5/6 - 0) = 1.833
    x = np.array([[1.0] + [np.nan] * 5, [0.0] + [1.0] * 5])
    fit = additive_fit(x)
    assert fit.adjusted_mean.tolist() == [1.0, 5 / 6]
    assert fit.bounds == (0.0, 1.0)


def test_complete_data_is_the_raw_mean_still() -> None:
    x = np.array([[0.0, 1.0, 1.0], [1.0, 1.0, 0.0], [0.0, 0.0, 0.0]])
    np.testing.assert_allclose(additive_fit(x).adjusted_mean, x.mean(axis=1))


@settings(deadline=None, max_examples=60)
@given(st.integers(0, 2**32 - 1), st.floats(0.1, 0.7))
def test_adjusted_means_within_the_observed_range(seed: int, drop: float) -> None:
    rng = np.random.default_rng(seed)
    x = rng.integers(0, 2, size=(4, 12)).astype(float)
    x[rng.random(x.shape) < drop] = np.nan
    x[:, 0] = rng.integers(0, 2, size=4)  # one shared example keeps the design connected
    fit = additive_fit(x)
    lo, hi = np.nanmin(x), np.nanmax(x)
    assert ((fit.adjusted_mean >= lo) & (fit.adjusted_mean <= hi)).all()
