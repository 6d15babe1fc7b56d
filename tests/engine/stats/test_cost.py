"""Paired cost/latency differences and cost per success (engine.stats._cost)."""

from __future__ import annotations

import itertools

import numpy as np
import pandas as pd
import pytest

from engine.stats._cost import cost_pairs, cost_per_success, paired_mean_difference


def _exact_sign_flip_p(d: np.ndarray) -> float:
    """Every one of the 2^n sign patterns (Fisher's exact randomisation test)."""
    observed = abs(d.sum())
    stats = [abs(np.dot(signs, d)) for signs in itertools.product((-1, 1), repeat=len(d))]
    return float(np.mean(np.array(stats) >= observed - 1e-12))


def test_difference_of_means_and_monte_carlo_p_near_the_exact_p() -> None:
    a = np.array([0.8, 3.1, 0.4, 12.0, 1.1, 0.9, 2.2, 0.5, 5.0, 1.3])
    b = np.array([0.7, 1.0, 0.5, 2.0, 1.0, 1.2, 1.1, 0.4, 1.9, 1.0])
    r = paired_mean_difference(a, b, n_resamples=20000)
    assert r.difference == pytest.approx(a.mean() - b.mean(), abs=1e-12)
    assert r.n == 10 and r.mean_a == pytest.approx(a.mean()) and r.mean_b == pytest.approx(b.mean())
    exact = _exact_sign_flip_p(a - b)  # enumerated: 1,024 patterns
    assert abs(r.p_value - exact) < 4 * np.sqrt(exact * (1 - exact) / 20000) + 1e-4
    assert r.low <= r.difference <= r.high


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
    assert r.p_value == pytest.approx(2 / 8, abs=0.1)  # only the two all-equal sign patterns reach |Σd|


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
