"""Confidence sequences (engine.stats._confseq), e-BH (engine.stats._ebh) and the arrival
order of paired observations (engine.stats._arrivals).

Reference values: the normal-mixture boundary's closed form (Howard, Ramdas, McAuliffe &
Sekhon 2021, Annals of Statistics 49(2), eq. (14)), computed by hand below; the tests of
the authors' ``confseq`` package (github.com/gostevehoward/confseq,
test/python_tests/test_betting.py) re-stated on this module's API; e-BH against BH on
1/e (Wang & Ramdas 2022, JRSS-B 84(3), Proposition 2) through statsmodels.
"""

from __future__ import annotations

import math

import numpy as np
import pandas as pd
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from statsmodels.stats.multitest import multipletests

from engine.stats._arrivals import advance, arrivals, watch_frame
from engine.stats._confseq import (
    betting_cs,
    betting_martingale,
    logical_cs,
    normal_mixture_halfwidth,
    normal_mixture_radius,
    null_log_wealth,
    start_sequence,
    state_from_json,
)
from engine.stats._ebh import e_bh


def test_normal_mixture_halfwidth_reference_values() -> None:
    """σ = 1, ρ = 1, α = 0.05: sqrt((t+1) log((t+1)/α²)) / t (Howard et al. 2021, eq. (14));
    by hand: t = 10 → sqrt(11 · log(4400)) / 10 = 0.96064."""
    got = normal_mixture_halfwidth([10, 100, 1000], sigma=1.0, rho=1.0, alpha=0.05)
    np.testing.assert_allclose(got, [0.9606, 0.3273, 0.1136], atol=5e-5)
    assert float(got[0]) == pytest.approx(math.sqrt(11 * math.log(11 / 0.05**2)) / 10, rel=1e-12)


def test_known_sigma_sequence_is_the_closed_form() -> None:
    rng = np.random.default_rng(3)
    d = rng.normal(0.2, 1.0, 500)
    state, steps = start_sequence(bounds=None, sigma=1.0).update(d, running_intersection=False)
    t = np.arange(1, 501)
    half = normal_mixture_radius(t, rho=state.rho, alpha=0.05) / t
    np.testing.assert_allclose(steps.cs_high - steps.cs_low, 2 * half, rtol=1e-12)
    np.testing.assert_allclose((steps.cs_high + steps.cs_low) / 2, np.cumsum(d) / t, atol=1e-12)


def test_logical_cs_of_confseq() -> None:
    """confseq's test_logical_cs: all ones → lower i/N, upper 1; all zeros → 0, 1 − i/N."""
    n = 100
    low, high = logical_cs(np.ones(n), n)
    assert np.array_equal(low, np.arange(1, n + 1) / n) and np.array_equal(high, np.ones(n))
    low, high = logical_cs(np.zeros(n), n)
    assert np.array_equal(low, np.zeros(n)) and np.array_equal(high, 1 - np.arange(1, n + 1) / n)


@pytest.mark.parametrize("m", [0.1, 0.4, 0.5, 0.6, 0.9])
def test_convex_combination_is_at_least_the_maximum(m: float) -> None:
    """confseq's test_betting_mart_convex_comb."""
    x = np.random.default_rng(int(m * 10)).beta(1, 1, 10_000)
    assert np.all(betting_martingale(x, m, convex=True) >= betting_martingale(x, m))


def test_hedged_bets_have_two_sided_power() -> None:
    """confseq's test_betting_mart_power, θ = 1/2 (and θ = 1 only one-sided)."""
    x = np.random.default_rng(11).binomial(1, 0.5, 10_000).astype(float)
    assert betting_martingale(x, 0.25).max() > 20 and betting_martingale(x, 0.75).max() > 20
    assert betting_martingale(x, 0.4, theta=1.0).max() > 20
    assert betting_martingale(x, 0.6, theta=1.0).max() <= 20


@pytest.mark.parametrize("m", [0.45, 0.5, 0.55])
@pytest.mark.parametrize("alpha", [0.05, 0.1])
def test_cs_is_where_the_martingale_stays_below_one_over_alpha(m: float, alpha: float) -> None:
    """confseq's test_cs_from_martingale: outside [l, u] the martingale is ≥ 1/α; inside,
    one grid step in from the ends, it is below."""
    breaks = 1000
    x = np.random.default_rng(7).beta(1, 1, 1000)
    low, high = betting_cs(x, alpha=alpha, breaks=breaks, running_intersection=False)
    mart = betting_martingale(x, m, alpha=alpha)
    assert np.all(mart[(m < low) | (high < m)] >= 1 / alpha)
    assert np.all(mart[(low + 1 / breaks <= m) & (m <= high - 1 / breaks)] < 1 / alpha)


@pytest.mark.slow
@pytest.mark.parametrize("m", [0.2, 0.5, 0.8])
def test_crossing_probability_at_most_alpha(m: float) -> None:
    """confseq's test_betting_mart_crossing_probabilities: 500 Bernoulli(m) sequences of
    10,000; the share whose martingale ever reaches 1/α = 10 is ≤ α = 0.1 (binomial upper
    bound: 0.1 + 3 standard errors)."""
    x = np.random.default_rng(int(m * 100)).binomial(1, m, (500, 10_000)).astype(float)
    crossed = (null_log_wealth(x, m, alpha=0.1) >= math.log(10)).any(axis=1).mean()
    assert crossed <= 0.1 + 3 * math.sqrt(0.1 * 0.9 / 500)


def test_vectorised_wealth_matches_the_single_sequence() -> None:
    x = np.random.default_rng(5).beta(2, 3, (3, 400))
    many = null_log_wealth(x, 0.4)
    for row in range(3):
        np.testing.assert_allclose(np.exp(many[row]), betting_martingale(x[row], 0.4), rtol=1e-9)


@settings(max_examples=25)
@given(cuts=st.lists(st.integers(1, 299), max_size=4), seed=st.integers(0, 1000),
       bounded=st.booleans())
def test_batches_change_nothing(cuts: list[int], seed: int, bounded: bool) -> None:
    """Fed in any batches, the sequence is the one of a single update (bets are predictable)."""
    rng = np.random.default_rng(seed)
    d = (rng.binomial(1, 0.6, 300) - rng.binomial(1, 0.5, 300)).astype(float) if bounded \
        else rng.standard_t(5, 300)
    start = start_sequence(bounds=(0.0, 1.0) if bounded else None)
    whole, steps = start.update(d)
    state, lows = start, []
    for part in np.split(d, sorted(set(cuts))):
        state, s = state_from_json(state.to_json()).update(part)  # through its JSON, as stored
        lows.append(s.cs_low)
    np.testing.assert_allclose(np.concatenate(lows), steps.cs_low, rtol=1e-12, atol=1e-12)
    assert state.n == whole.n == 300
    assert state.cs_high == pytest.approx(whole.cs_high, abs=1e-12)
    assert state.max_log_e == pytest.approx(whole.max_log_e, rel=1e-9, abs=1e-9)


def test_running_intersection_only_shrinks_and_p_only_falls() -> None:
    rng = np.random.default_rng(9)
    d = rng.beta(2, 2, 2000) - rng.beta(2, 2, 2000)
    _, steps = start_sequence(bounds=(0.0, 1.0)).update(d)
    assert np.all(np.diff(steps.cs_low) >= 0) and np.all(np.diff(steps.cs_high) <= 0)
    assert np.all(np.diff(steps.p_always_valid) <= 0)
    assert steps.cs_low[-1] <= d.mean() <= steps.cs_high[-1]


@pytest.mark.slow
def test_self_normalised_mixture_is_calibrated_for_symmetric_nulls() -> None:
    """Exchangeable systems → differences symmetric about 0; the always-valid p-value
    reaches 0.05 in at most 5% of 400 sequences (+ 3 standard errors)."""
    rng = np.random.default_rng(21)
    hits = 0
    for _ in range(400):
        d = rng.standard_t(3, 500) * rng.choice([-1, 1], 500)
        _, steps = start_sequence(bounds=None).update(d)
        hits += bool(steps.p_always_valid[-1] <= 0.05)
    assert hits / 400 <= 0.05 + 3 * math.sqrt(0.05 * 0.95 / 400)


def test_bad_settings_are_named() -> None:
    with pytest.raises(ValueError, match="alpha"):
        start_sequence(bounds=(0, 1), alpha=1.5)
    with pytest.raises(ValueError, match="bounds"):
        start_sequence(bounds=(1, 0))
    with pytest.raises(ValueError, match="breaks"):
        start_sequence(bounds=(0, 1), breaks=999)
    with pytest.raises(ValueError, match="outside"):
        start_sequence(bounds=(0, 1)).update([0.5, 1.5])


# ------------------------------------------------------------------ e-BH


@settings(max_examples=60)
@given(e=st.lists(st.floats(0, 1e4), min_size=1, max_size=30), alpha=st.sampled_from([0.05, 0.1, 0.2]))
def test_e_bh_is_bh_on_inverse_e_values(e: list[float], alpha: float) -> None:
    """Wang & Ramdas (2022): e-BH rejects what BH rejects on p = min(1, 1/e)."""
    values = np.asarray(e)
    p = np.minimum(1.0, 1.0 / np.maximum(values, 1e-300))
    expected, *_ = multipletests(p, alpha=alpha, method="fdr_bh")
    got = e_bh(values, alpha=alpha)
    # BH on 1/e compares with a relative tolerance; skip the ties at the threshold
    near = np.isclose(values * alpha * np.arange(1, len(e) + 1).max(), len(e), rtol=1e-9)
    if not near.any():
        assert np.array_equal(got.rejected, expected)


def test_e_bh_by_hand_and_bad_input() -> None:
    """K = 4, α = 0.05: thresholds K/(αk) = 80, 40, 26.7, 20; e = 100, 50 pass at k = 2."""
    res = e_bh([50.0, 1.0, 100.0, 0.5], alpha=0.05)
    assert res.rejected.tolist() == [True, False, True, False] and res.threshold == 40.0
    assert not e_bh([10.0, 10.0], alpha=0.05).rejected.any()
    with pytest.raises(ValueError, match="e_values"):
        e_bh([1.0, -1.0])


# ------------------------------------------------------------------ arrivals


def _long(rows: list[tuple[str, str, float, int]]) -> pd.DataFrame:
    return pd.DataFrame(rows, columns=["system", "example_id", "value", "batch"]).assign(
        benchmark="b", metric="m")


def test_an_example_arrives_when_both_systems_have_it_and_runs_are_averaged() -> None:
    frame = _long([("A", "e1", 1.0, 1), ("A", "e1", 0.0, 1), ("A", "e2", 1.0, 1),
                   ("B", "e2", 0.0, 1), ("B", "e1", 1.0, 2), ("A", "e1", 1.0, 3)])
    arr = arrivals(frame, baseline="A", candidate="B")
    assert arr.label.tolist() == ["e2", "e1"] and arr.batch.tolist() == [1, 2]
    assert arr.d.tolist() == [-1.0, 0.5]  # e1: B 1 − mean(A's runs up to batch 2) 0.5
    flipped = arrivals(frame, baseline="A", candidate="B", higher_is_better=False)
    assert flipped.d.tolist() == [1.0, -0.5]


def test_clusters_arrive_whole_and_late_examples_are_counted() -> None:
    frame = _long([(s, e, v, b) for e, b, va, vb in [("e1", 1, 1, 0), ("e2", 1, 1, 1),
                                                     ("e3", 2, 0, 1), ("e4", 2, 0, 0)]
                   for s, v in (("A", float(va)), ("B", float(vb)))])
    clusters = pd.Series({"e1": "c1", "e2": "c1", "e3": "c2", "e4": "c1"})
    arr = arrivals(frame, baseline="A", candidate="B", clusters=clusters)
    assert arr.unit == "cluster" and arr.label.tolist() == ["c1", "c2"]
    assert arr.d.tolist() == [-0.5, 1.0] and arr.dropped == 1


@pytest.mark.slow
def test_advance_records_the_first_exclusion() -> None:
    rng = np.random.default_rng(2)
    frame = pd.concat([_long([("A", f"e{i}", float(rng.random() < 0.5), 1 + i // 200),
                              ("B", f"e{i}", float(rng.random() < 0.8), 1 + i // 200)])
                       for i in range(600)], ignore_index=True)
    report = watch_frame(frame, baseline="A", candidate="B", benchmark="b", metric="m")
    assert report.first_excluded_n is not None and report.first_excluded_upload == 1
    assert report.history["n_seen"].tolist() == [200, 400, 600]
    assert report.cs_low > 0 and report.p_always_valid <= 0.05
    budget = watch_frame(frame, baseline="A", candidate="B", benchmark="b", metric="m", max_n=5)
    assert budget.n_seen == 5 and budget.stopped_at == 5
    again = advance(start_sequence(bounds=(0.0, 1.0)), arrivals(frame, baseline="A",
                                                               candidate="B"))
    assert again.state.cs_low == report.cs_low
