"""Friedman test, mean ranks and Nemenyi critical difference (engine/across/_friedman.py)."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pandas as pd
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from scipy import stats

from engine import build_matrix, read_results
from engine.across._friedman import friedman, friedman_of

DATA = Path(__file__).resolve().parents[2] / "data" / "mechanisms"

# Demšar (2006), JMLR 7:1–30, Table 6: AUC of C4.5, C4.5+m, C4.5+cf and C4.5+m+cf on
# 14 UCI data sets (rows adult (sample) … wine). The table prints 0.975 for both
# C4.5+cf and C4.5+m+cf on "voting" but ranks them 2 and 3; as in scipy's own test of
# friedmanchisquare, 0.9751 reproduces those ranks.
SYSTEMS = ["C4.5", "C4.5+m", "C4.5+cf", "C4.5+m+cf"]
DEMSAR = np.array([
    [0.763, 0.599, 0.954, 0.628, 0.882, 0.936, 0.661, 0.583, 0.775, 1.000, 0.940, 0.619, 0.972, 0.957],
    [0.768, 0.591, 0.971, 0.661, 0.888, 0.931, 0.668, 0.583, 0.838, 1.000, 0.962, 0.666, 0.981, 0.978],
    [0.771, 0.590, 0.968, 0.654, 0.886, 0.916, 0.609, 0.563, 0.866, 1.000, 0.965, 0.614, 0.9751, 0.946],
    [0.798, 0.569, 0.967, 0.657, 0.898, 0.931, 0.685, 0.625, 0.875, 1.000, 0.962, 0.669, 0.975, 0.970],
]).T


def test_demsar_worked_example() -> None:
    res = friedman(DEMSAR, systems=SYSTEMS)
    # Table 6, "average rank": 3.143, 2.000, 2.893, 1.964
    assert res.mean_ranks[SYSTEMS].round(3).tolist() == [3.143, 2.000, 2.893, 1.964]
    # §3.2.4: χ²_F = 9.28 (no tie correction) and F_F = 3.69 with 3 and 39 degrees of freedom
    assert res.statistic_uncorrected == pytest.approx(9.28, abs=0.005)
    assert res.f_statistic_uncorrected == pytest.approx(3.69, abs=0.005)
    # Nemenyi: q_0.05 = 2.569 and CD = 1.25; q_0.10 = 2.291 and CD = 1.12 (Table 5(a))
    assert res.q_alpha == pytest.approx(2.569, abs=5e-4)
    assert res.critical_difference == pytest.approx(1.25, abs=0.005)
    at_10 = friedman(DEMSAR, systems=SYSTEMS, alpha=0.10)
    assert at_10.q_alpha == pytest.approx(2.291, abs=5e-4)
    assert at_10.critical_difference == pytest.approx(1.12, abs=0.005)
    # At 0.05 no pair differs (largest gap 3.143 - 1.964 = 1.179 < 1.25); at 0.10 C4.5 is
    # worse than C4.5+m (1.143) and C4.5+m+cf (1.179), both > 1.12.
    assert not res.pairs["significant"].any()
    sig = at_10.pairs[at_10.pairs["significant"]]
    assert {frozenset(p) for p in zip(sig["system_a"], sig["system_b"], strict=True)} == {
        frozenset({"C4.5", "C4.5+m"}), frozenset({"C4.5", "C4.5+m+cf"})}


def test_corrected_statistic_equals_scipy() -> None:
    res = friedman(DEMSAR, systems=SYSTEMS)
    ref = stats.friedmanchisquare(*DEMSAR.T)
    assert res.statistic == pytest.approx(ref.statistic, rel=1e-12)
    assert res.pvalue == pytest.approx(ref.pvalue, rel=1e-10)


@pytest.mark.slow
@settings(max_examples=40)
@given(st.integers(2, 9), st.integers(3, 6), st.integers(0, 2**31 - 1))
def test_against_scipy_on_random_tables_with_ties(n: int, k: int, seed: int) -> None:
    rng = np.random.default_rng(seed)
    x = rng.integers(0, 4, (n, k)).astype(float)
    if (np.ptp(x, axis=1) == 0).all():  # every block tied: scipy divides by zero
        x[0, 0] += 1
    res = friedman(x)
    ref = stats.friedmanchisquare(*x.T)
    assert res.statistic == pytest.approx(ref.statistic, rel=1e-9, abs=1e-12)
    # relabelling systems relabels the mean ranks; block order does not matter
    perm = rng.permutation(k)
    moved = friedman(x[rng.permutation(n)][:, perm], systems=[str(i) for i in perm])
    pd.testing.assert_series_equal(moved.mean_ranks.sort_index(), res.mean_ranks.sort_index())


def test_lower_is_better_reverses_the_ranks() -> None:
    up = friedman(DEMSAR, systems=SYSTEMS)
    down = friedman(-DEMSAR, systems=SYSTEMS, higher_is_better=False)
    pd.testing.assert_series_equal(up.mean_ranks, down.mean_ranks)


@pytest.mark.slow
def test_false_alarm_rate_without_differences() -> None:
    # iid scores: the chi-square p-value (scipy's) rejects at most alpha of the time;
    # 300 tables, Monte Carlo SE ~ 0.0126.
    rng = np.random.default_rng(3)
    rejections = sum(friedman(rng.normal(size=(12, 4))).pvalue < 0.05 for _ in range(300))
    assert rejections / 300 <= 0.05 + 3 * 0.0126


def test_bad_inputs_name_the_argument() -> None:
    with pytest.raises(ValueError, match="alpha: must be strictly between 0 and 1; got 0"):
        friedman(DEMSAR, alpha=0)
    with pytest.raises(ValueError, match="scores: need at least 2 blocks and 2 systems"):
        friedman(DEMSAR[:1])
    with pytest.raises(ValueError, match="scores: must have a score for every system"):
        friedman(np.array([[1.0, np.nan], [2.0, 1.0]]))
    with pytest.raises(ValueError, match="systems: must name the 4 columns"):
        friedman(DEMSAR, systems=["a"])


def test_across_benchmarks_from_matrices() -> None:
    df = read_results(DATA / "humaneval.jsonl.gz")
    # four pseudo-benchmarks: the examples split by id into quarters
    ids = sorted(df["example_id"].unique())
    part = {e: f"q{i * 4 // len(ids)}" for i, e in enumerate(ids)}
    df = df.assign(benchmark=df["example_id"].map(part))
    matrices = [build_matrix(df, benchmark=f"q{i}") for i in range(4)]
    res = friedman_of(matrices)
    table = pd.DataFrame({f"q{i}/pass1": pd.Series(m.values.mean(axis=1), index=m.systems)
                          for i, m in enumerate(matrices)}).T
    direct = friedman(table)
    pd.testing.assert_series_equal(res.mean_ranks, direct.mean_ranks)
    assert res.n_blocks == 4 and res.blocks == ("q0/pass1", "q1/pass1", "q2/pass1", "q3/pass1")
    with pytest.raises(ValueError, match="matrices: need at least 2 benchmarks"):
        friedman_of(matrices[:1])
