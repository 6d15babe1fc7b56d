"""Paired cost/latency differences, cost per success and per point (engine.stats._cost)."""

from __future__ import annotations

import itertools

import numpy as np
import pandas as pd
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from scipy import stats

from engine.stats._cost import cost_pairs, cost_per_point, cost_per_success, paired_mean_difference


def _exact_bootstrap_t_p(d: np.ndarray) -> float:
    """The bootstrap-t p-value with every one of the n^n resamples enumerated (the ideal
    bootstrap, Efron & Tibshirani 1993, §6.3, of the symmetric studentised statistic,
    Hall 1988 eq. 2.3): P*(|d̄* − d̄|/se* ≥ |d̄|/se), a resample of equal values (se* = 0)
    counted as reaching it."""
    n = len(d)
    t_obs = abs(d.mean()) / (d.std(ddof=1) / np.sqrt(n))
    hits = 0
    for idx in itertools.product(range(n), repeat=n):
        x = d[list(idx)]
        se = x.std(ddof=1) / np.sqrt(n)
        hits += se == 0 or abs(x.mean() - d.mean()) / se >= t_obs
    return hits / n**n


def test_difference_of_means_and_monte_carlo_p_near_the_ideal_bootstrap_p() -> None:
    a = np.array([0.8, 3.1, 0.4, 12.0, 1.1])
    b = np.array([0.7, 1.0, 0.5, 2.0, 1.0])
    r = paired_mean_difference(a, b, n_resamples=20000)
    assert r.difference == pytest.approx(a.mean() - b.mean(), abs=1e-12)
    assert r.n == 5 and r.mean_a == pytest.approx(a.mean()) and r.mean_b == pytest.approx(b.mean())
    exact = _exact_bootstrap_t_p(a - b)  # enumerated: 5^5 = 3,125 resamples
    assert abs(r.p_value - exact) < 4 * np.sqrt(exact * (1 - exact) / 20000) + 1e-4
    assert r.low <= r.difference <= r.high


def test_interval_near_scipy_bootstrap_on_a_large_sample() -> None:
    # reference: scipy.stats.bootstrap (BCa) of the mean difference on the same examples;
    # two second-order accurate intervals of one mean agree closely at n = 400
    rng = np.random.default_rng(8)
    u = rng.lognormal(0, 0.5, 400)
    a, b = u * rng.lognormal(0, 0.5, 400), u * rng.lognormal(0, 0.3, 400)
    r = paired_mean_difference(a, b, n_resamples=4999)
    ref = stats.bootstrap((a - b,), np.mean, n_resamples=4999, method="BCa",
                          random_state=np.random.default_rng(1)).confidence_interval
    width = ref.high - ref.low
    assert abs(r.low - ref.low) < 0.1 * width and abs(r.high - ref.high) < 0.1 * width


@settings(max_examples=25, deadline=None)
@given(seed=st.integers(0, 2**31 - 1), n=st.integers(3, 40),
       confidence=st.sampled_from([0.8, 0.9, 0.95, 0.99]), shift=st.floats(-1.0, 1.0))
def test_p_below_alpha_exactly_when_the_interval_excludes_0(seed: int, n: int, confidence: float,
                                                            shift: float) -> None:
    rng = np.random.default_rng(seed)
    a, b = rng.lognormal(shift, 1, n), rng.lognormal(0, 1, n)
    r = paired_mean_difference(a, b, confidence=confidence, n_resamples=199, seed=seed)
    alpha = round(1 - confidence, 9)
    assert (r.p_value < alpha) == (not r.low <= 0 <= r.high)


def test_swapping_the_systems_negates_the_difference_and_keeps_p() -> None:
    rng = np.random.default_rng(3)
    a, b = rng.lognormal(0, 1, 50), rng.lognormal(0, 1, 50)
    ab = paired_mean_difference(a, b, n_resamples=999, seed=7)
    ba = paired_mean_difference(b, a, n_resamples=999, seed=7)
    assert ab.p_value == ba.p_value
    assert (ab.difference, ab.low, ab.high) == pytest.approx((-ba.difference, -ba.high, -ba.low))


def test_constant_difference_is_a_point_interval() -> None:
    r = paired_mean_difference([2.0, 3.0, 4.0], [1.0, 2.0, 3.0], n_resamples=199)
    assert (r.low, r.high) == (1.0, 1.0)
    assert r.p_value == 1 / 200  # the interval excludes 0, so p is the least it can be
    same = paired_mean_difference([2.0, 3.0], [2.0, 3.0], n_resamples=199)
    assert (same.low, same.high, same.p_value) == (0.0, 0.0, 1.0)


def test_clear_difference_found_on_heavy_tails() -> None:
    rng = np.random.default_rng(11)
    u = rng.lognormal(0, 1, 200)
    a, b = 2.0 * u * rng.lognormal(0, 0.3, 200), u * rng.lognormal(0, 0.3, 200)
    r = paired_mean_difference(a, b, n_resamples=1999)
    assert r.p_value < 0.01 and r.low > 0


@pytest.mark.parametrize(("a", "b", "match"), [
    ([1.0], [1.0], "at least 2"),
    ([1.0, 2.0], [1.0], "one length"),
    ([1.0, np.nan], [1.0, 2.0], "finite"),
])
def test_bad_input_says_the_rule(a: list[float], b: list[float], match: str) -> None:
    with pytest.raises(ValueError, match=match):
        paired_mean_difference(a, b)


def test_cost_per_success_ratio_and_interval() -> None:
    cost = np.array([2.0, 2.0, 4.0, 4.0, 1.0, 9.0, 3.0, 2.5])
    ok = np.array([1, 0, 1, 1, 0, 1, 1, 0])
    r = cost_per_success(cost, ok, n_resamples=999)
    assert r.ratio == pytest.approx(27.5 / 5)  # Σ cost 27.5, 5 successes
    assert (r.total, r.successes) == (27.5, 5.0)
    assert 0 < r.low < r.ratio < r.high
    with pytest.raises(ValueError, match="no example succeeded"):
        cost_per_success([1.0, 2.0], [0, 0])
    with pytest.raises(ValueError, match="0 or 1"):
        cost_per_success([1.0, 2.0], [0.5, 1])


def test_cost_per_point_percentage_point_or_unit() -> None:
    cost = np.array([2.0, 2.0, 4.0, 4.0, 1.0, 9.0, 3.0, 2.5])
    ok = np.array([1, 0, 1, 1, 0, 1, 1, 0])
    per_success = cost_per_success(cost, ok, n_resamples=999)
    per_point = cost_per_point(cost, ok, percent=True, n_resamples=999)
    # a 0/1 score: one percentage point of the share of successes = a hundredth of a success
    assert (per_point.ratio, per_point.low, per_point.high) == pytest.approx(
        (per_success.ratio / 100, per_success.low / 100, per_success.high / 100))
    graded = np.array([0.5, 0.2, 0.9, 0.7, 0.1, 1.0, 0.6, 0.3])
    r = cost_per_point(cost, graded, percent=False, n_resamples=999)
    assert r.ratio == pytest.approx(27.5 / graded.sum())  # by hand: Σ cost / Σ score
    assert 0 < r.low < r.ratio < r.high
    with pytest.raises(ValueError, match="mean score must be > 0"):
        cost_per_point(cost, -graded, percent=False)


def test_ratio_standard_error_is_the_delta_method() -> None:
    # reference: the linearised variance of a ratio estimator, Cochran 1977 eq. 6.9,
    # var(R) ≈ Σ(c − R·s)² / ((n − 1)·n·s̄²), written out by hand
    from engine.stats._cost import _ratio_se

    rng = np.random.default_rng(2)
    c, s = rng.lognormal(0, 1, 30), rng.random(30)
    ratio = c.sum() / s.sum()
    hand = np.sqrt(((c - ratio * s) ** 2).sum() / (29 * 30)) / s.mean()
    assert float(_ratio_se(c, s, np.asarray(ratio))) == pytest.approx(hand, rel=1e-12)


def test_cost_pairs_every_pair_on_shared_examples_runs_averaged() -> None:
    rows = []
    rng = np.random.default_rng(0)
    for system, scale in (("a", 1.0), ("b", 1.0), ("c", 3.0)):
        for i in range(30):
            for run in (1, 2):
                rows.append(("bench", system, f"e{i}", "cost", scale * rng.lognormal(0, 0.5), run))
    frame = pd.DataFrame(rows, columns=["benchmark", "system", "example_id", "metric", "value", "run"])
    frame = frame[~((frame["system"] == "b") & (frame["example_id"] == "e0"))]  # b lacks e0
    out = cost_pairs(frame, "cost", n_resamples=999)
    table = out.table.set_index(["system_a", "system_b"])
    assert list(table.index) == [("a", "b"), ("a", "c"), ("b", "c")]
    assert table.loc[("a", "b"), "n"] == 29 and table.loc[("a", "c"), "n"] == 30
    mean_a = frame[frame["system"] == "a"].groupby("example_id")["value"].mean().mean()
    assert table.loc[("a", "c"), "mean_a"] == pytest.approx(mean_a)
    assert (table["p_holm"] >= table["p_value"]).all()
    assert table.loc[("a", "c"), "p_holm"] < 0.01
    with pytest.raises(ValueError, match="not in the data"):
        cost_pairs(frame, "latency_ms")
