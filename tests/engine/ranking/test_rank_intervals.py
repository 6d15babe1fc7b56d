"""Simultaneous rank intervals, Tukey-based (engine/ranking/_rank_intervals.py)."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pandas as pd
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from engine import build_matrix, read_results
from engine.cli._json import rank_intervals_json
from engine.ranking._rank_intervals import rank_intervals, rank_intervals_of, tukey_critical_value

DATA = Path(__file__).resolve().parents[2] / "data" / "mechanisms"

# ICRanks 3.1 (CRAN; Al Mohamad, van Zwet & Goeman), the example of man/ic.ranks.Rd:
# n = 5, TrueCenters = 1:n, sigma = rep(0.5, n), y sorted ascending. Its y is drawn with
# rnorm and no seed, so y is fixed here; reference values are the output of
# ic.ranks(y, sigma, Method = "Tukey", alpha = 0.05) in R 4.2.2, sourcing the package's
# R/ic.ranks.R (version 3.1) with multcomp 1.4-22. ICRanks ranks ascending (rank 1 =
# smallest y), hence higher_is_better=False below.
Y = [0.82, 2.31, 2.64, 4.37, 4.96]


def _by_input_order(res: object, labels: list[str]) -> tuple[list[int], list[int]]:
    table = res.table.set_index("system").loc[labels]  # type: ignore[attr-defined]
    return table["rank_ci_low"].tolist(), table["rank_ci_high"].tolist()


def test_icranks_tukey_equal_sigma_example() -> None:
    # R: qtukey(0.95, 5, Inf)/sqrt(2) = 2.727774383; $Lower 1 1 1 3 4, $Upper 3 3 4 5 5
    labels = list("abcde")
    res = rank_intervals(Y, [0.5] * 5, labels=labels, higher_is_better=False)
    assert res.equal_se and res.n_draws is None
    assert res.critical_value == pytest.approx(2.727774383, abs=1e-7)  # R qtukey: eps 1e-8 relative
    assert _by_input_order(res, labels) == ([1, 1, 1, 3, 4], [3, 3, 4, 5, 5])


def test_icranks_tukey_unequal_sigma_example() -> None:
    # R: set.seed(16021988); ic.ranks(y, c(0.3, 0.6, 0.4, 0.8, 0.5), Method = "Tukey",
    #    control = list(N = 2e5)) → $Lower 1 1 2 2 4, $Upper 2 4 4 5 5, Monte Carlo
    #    critical value 2.710584794. The closest |T_ij| to it are 2.22 and 3.39, so the
    #    intervals do not depend on the Monte Carlo draws.
    labels = list("abcde")
    res = rank_intervals(Y, [0.3, 0.6, 0.4, 0.8, 0.5], labels=labels, higher_is_better=False,
                         n_draws=40_000, rng=1)
    assert not res.equal_se and res.n_draws == 40_000
    assert res.critical_value == pytest.approx(2.710584794, abs=0.03)  # Monte Carlo error
    assert _by_input_order(res, labels) == ([1, 1, 2, 2, 4], [2, 4, 4, 5, 5])


def test_icranks_tukey_ten_centers_alpha_02() -> None:
    # R: ic.ranks(y3, rep(1, 10), Method = "Tukey", alpha = 0.2); qtukey(0.8, 10, Inf)/sqrt(2)
    #    = 2.637706411 → $Lower 1 1 1 1 1 2 2 6 6 8, $Upper 5 7 7 7 7 9 9 10 10 10
    y3 = [-1.9, -0.4, 0.3, 0.9, 1.0, 2.2, 3.1, 4.8, 5.0, 7.4]
    labels = [f"s{i}" for i in range(10)]
    res = rank_intervals(y3, [1.0] * 10, alpha=0.2, labels=labels, higher_is_better=False)
    assert res.critical_value == pytest.approx(2.637706411, abs=1e-7)
    assert _by_input_order(res, labels) == ([1, 1, 1, 1, 1, 2, 2, 6, 6, 8],
                                            [5, 7, 7, 7, 7, 9, 9, 10, 10, 10])


def test_higher_is_better_mirrors_the_ranks() -> None:
    labels = list("abcde")
    low, high = _by_input_order(rank_intervals(Y, [0.5] * 5, labels=labels), labels)
    assert low == [6 - h for h in [3, 3, 4, 5, 5]] and high == [6 - lo for lo in [1, 1, 1, 3, 4]]


@pytest.mark.slow
def test_simultaneous_coverage_by_simulation() -> None:
    # All true ranks inside their intervals at once in >= 1 - alpha of the samples
    # (Al Mohamad et al. 2022, Theorem 1); 400 samples: Monte Carlo SE ~ 0.011.
    rng = np.random.default_rng(7)
    centers, sigma = np.arange(6, dtype=float) * 0.8, np.full(6, 0.5)
    true_rank = 6 - np.arange(6)  # higher is better
    covered = 0
    for _ in range(400):
        res = rank_intervals(centers + rng.normal(0, sigma), sigma, labels=[str(i) for i in range(6)])
        low, high = _by_input_order(res, [str(i) for i in range(6)])
        covered += bool(((np.array(low) <= true_rank) & (true_rank <= np.array(high))).all())
    assert covered / 400 >= 0.95 - 3 * 0.011


def test_monte_carlo_critical_value_agrees_with_the_exact_one() -> None:
    # Nearly equal SEs take the Monte Carlo branch; it must land on the studentized range value.
    crit, exact = tukey_critical_value(np.array([1.0, 1.0 + 1e-9, 1.0, 1.0]), 0.05,
                                       n_draws=40_000, rng=3)
    assert not exact
    assert crit == pytest.approx(tukey_critical_value(np.ones(4), 0.05)[0], abs=0.03)


def _full_matrix_critical_value(ses: np.ndarray, alpha: float, n_draws: int, seed: int) -> float:
    """The Monte Carlo critical value as first written: every ordered pair, in one batch."""
    z = np.random.default_rng(seed).standard_normal((n_draws, len(ses))) * ses
    scale = 1.0 / np.sqrt(ses[:, None] ** 2 + ses[None, :] ** 2)
    maxima = (np.abs(z[:, :, None] - z[:, None, :]) * scale).max(axis=(1, 2))
    return float(np.quantile(maxima, 1.0 - alpha))


@settings(max_examples=30)
@given(st.integers(2, 40), st.integers(100, 900), st.integers(0, 2**31 - 1))
def test_monte_carlo_over_each_pair_once_matches_the_full_matrix(systems: int, n_draws: int,
                                                                seed: int) -> None:
    # Reference: the full S × S formula above in double precision (the same draws): taking
    # each pair once through the rank sets' single-precision pair maximum (#27 item 3 made it
    # faster) moves the critical value by its rounding only (~1e-7 relative), far below the
    # Monte Carlo error of the estimate (~1e-2).
    ses = np.random.default_rng(seed).uniform(0.01, 1.0, systems)
    crit, exact = tukey_critical_value(ses, 0.05, n_draws=n_draws, rng=seed)
    assert not exact
    assert crit == pytest.approx(_full_matrix_critical_value(ses, 0.05, n_draws, seed),
                                 rel=1e-6)


@pytest.mark.slow
@settings(max_examples=30)
@given(st.lists(st.floats(-5, 5), min_size=2, max_size=8), st.integers(0, 2**31 - 1))
def test_intervals_contain_the_point_rank_and_ignore_input_order(ys: list[float], seed: int) -> None:
    rng = np.random.default_rng(seed)
    ses = rng.uniform(0.2, 1.0, len(ys))
    labels = [f"s{i}" for i in range(len(ys))]
    res = rank_intervals(ys, ses, labels=labels, n_draws=500, rng=1)
    t = res.table
    assert (t["rank_ci_low"] <= t["rank"]).all() and (t["rank"] <= t["rank_ci_high"]).all()
    assert (t["rank_ci_low"] >= 1).all() and (t["rank_ci_high"] <= len(ys)).all()
    perm = rng.permutation(len(ys))
    shuffled = rank_intervals(np.asarray(ys)[perm], ses[perm], labels=[labels[i] for i in perm],
                              n_draws=500, rng=1)
    a = t.set_index("system").sort_index()[["rank_ci_low", "rank_ci_high"]]
    b = shuffled.table.set_index("system").sort_index()[["rank_ci_low", "rank_ci_high"]]
    if res.equal_se:  # Monte Carlo draws are per position, so only the exact branch is order-free
        pd.testing.assert_frame_equal(a, b)


def test_bad_inputs_name_the_argument() -> None:
    with pytest.raises(ValueError, match="alpha: must be strictly between 0 and 1; got 2"):
        rank_intervals([1, 2], [1, 1], alpha=2)
    with pytest.raises(ValueError, match="ses: must have one value per estimate"):
        rank_intervals([1, 2], [1])
    with pytest.raises(ValueError, match="ses: must be positive"):
        rank_intervals([1, 2], [1, 0])
    with pytest.raises(ValueError, match="labels: must have one label"):
        rank_intervals([1, 2], [1, 1], labels=["a"])


def test_matrix_convenience_on_humaneval() -> None:
    m = build_matrix(read_results(DATA / "humaneval.jsonl.gz"))
    res = rank_intervals_of(m, rng=0)
    x = m.values
    se = x.std(axis=1, ddof=1) / np.sqrt(x.shape[1])
    direct = rank_intervals(x.mean(axis=1), se, labels=m.systems, rng=0)
    pd.testing.assert_frame_equal(res.table, direct.table)
    assert len(res.table) == m.n_systems and res.table["rank"].iloc[0] == 1
    assert set(rank_intervals_json(res)) >= {"systems", "alpha", "critical_value"}
