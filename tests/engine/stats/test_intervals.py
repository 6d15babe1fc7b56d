"""Issue #12 B: intervals for the difference between two systems (engine.stats._intervals).

Reference values: Newcombe's published worked examples (paired: Stat Med 17:2635–2650,
Table II; unpaired: Stat Med 17:873–890, Table II), the R package PropCIs' ``scoreci.mp``
(Tango 1998; its source read and run in R 4 for the figures below), scipy's t intervals
(``ttest_1samp`` / ``ttest_ind(equal_var=False)``) and statsmodels'
``confint_proportions_2indep(method="newcomb")``. Coverage is checked by simulation.
"""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import assume, given, settings
from hypothesis import strategies as st
from hypothesis.extra import numpy as hnp
from scipy import stats
from statsmodels.stats.proportion import confint_proportions_2indep, proportion_confint

from engine.stats._intervals import (
    _TangoTerms,
    newcombe_paired_ci,
    newcombe_unpaired_ci,
    paired_binary_ci,
    paired_numeric_ci,
    welch_ci,
    wilson_ci,
)

Z95 = stats.norm.ppf(0.975)


def _tango_score(delta: np.ndarray, b: np.ndarray, c: np.ndarray, n: np.ndarray) -> np.ndarray:
    """Tango's score statistic for H0: p_1 − p_2 = delta (decreasing in delta), from the
    terms the interval's solver uses."""
    return np.asarray(_TangoTerms(b, c, n).score(delta))


# ------------------------------------------------------------------ paired binary


@pytest.mark.parametrize(("table", "expected"), [
    # Newcombe (1998b) Table II, method 10, examples (a)–(d), printed to 4 decimals (the
    # same figures are asserted in the R package propint's tests/testthat).
    ((36, 12, 2, 0), (0.0569, 0.3404)),
    ((18, 12, 2, 18), (0.0562, 0.3290)),
    ((53, 0, 0, 1), (-0.0729, 0.0729)),
    ((0, 30, 0, 0), (0.8395, 1.0000)),
])
def test_newcombe_paired_published_examples(table: tuple[int, ...], expected: tuple[float, ...]
                                            ) -> None:
    low, high = newcombe_paired_ci(*[[v] for v in table])
    assert (round(float(low[0]), 4), round(float(high[0]), 4)) == expected


@pytest.mark.parametrize(("b", "c", "n", "expected"), [
    # PropCIs 0.3 scoreci.mp(b, c, n, 0.95) (Tango 1998), run in R 4; PropCIs gives the
    # interval of (c − b)/n, shown here negated and swapped for (b − c)/n. Its bisection
    # stops at a step of 1e-7, hence the tolerance below.
    (12, 2, 50, (0.0611124, 0.3447088)),
    (0, 0, 54, (-0.0664136, 0.0664136)),
    (30, 0, 30, (0.7729732, 1.0)),
    (1, 7, 40, (-0.3011269, -0.0143595)),
    (0, 0, 1, (-0.7934507, 0.7934508)),
    (1, 0, 1, (-0.5869014, 1.0)),
    (5, 3, 20, (-0.1878980, 0.3723408)),
])
def test_tango_matches_propcis(b: int, c: int, n: int, expected: tuple[float, float]) -> None:
    low, high = paired_binary_ci([b], [c], [n])
    np.testing.assert_allclose([low[0], high[0]], expected, atol=2e-7)


def test_tango_all_pairs_at_once_and_its_defining_equations() -> None:
    b = np.array([12, 0, 3, 40, 7])
    c = np.array([2, 0, 9, 1, 7])
    n = np.array([50, 20, 30, 160, 14])
    low, high = paired_binary_ci(b, c, n)
    for i in range(len(b)):  # vectorised = one pair at a time
        one = paired_binary_ci(b[i], c[i], n[i])
        assert (one[0], one[1]) == (pytest.approx(low[i]), pytest.approx(high[i]))
    inside = (low > -1) & (high < 1)
    # the limits are where the score statistic equals ±z
    np.testing.assert_allclose(_tango_score(low, b, c, n)[inside], Z95, atol=1e-9)
    np.testing.assert_allclose(_tango_score(high, b, c, n)[inside], -Z95, atol=1e-9)
    # at Δ = 0 the statistic is McNemar's z = (b − c) / √(b + c)
    some = b + c > 0
    np.testing.assert_allclose(_tango_score(np.zeros(5), b, c, n)[some],
                               (b - c)[some] / np.sqrt((b + c)[some]))
    assert ((low <= (b - c) / n) & ((b - c) / n <= high)).all()


def test_paired_binary_degenerate_cases() -> None:
    # b = c = 0 (e.g. all ones): symmetric, ± z² / (n + z²) (the Wilson limit of 0 / n)
    low, high = paired_binary_ci([0, 0], [0, 0], [10, 1])
    np.testing.assert_allclose(high, Z95**2 / (np.array([10, 1]) + Z95**2), rtol=1e-12)
    np.testing.assert_allclose(low, -high)
    # all ones for Newcombe: both Wilson intervals equal, φ = 0 (empty margin) → ± z²/(n+z²)
    nl, nh = newcombe_paired_ci([10], [0], [0], [0])
    assert nh[0] == pytest.approx(Z95**2 / (10 + Z95**2)) and nl[0] == pytest.approx(-nh[0])
    # no shared example: no interval
    assert np.isnan(paired_binary_ci([0], [0], [0])).all()
    assert np.isnan(newcombe_paired_ci([0], [0], [0], [0])).all()
    # one example, a single discordant pair: the interval reaches the edge on its side
    low, high = paired_binary_ci([0], [1], [1])
    assert high[0] == pytest.approx(0.5869014, abs=2e-7) and low[0] == -1.0
    with pytest.raises(ValueError, match="b, c: discordant counts"):
        paired_binary_ci([3], [2], [4])
    with pytest.raises(ValueError, match="b: counts must be ≥ 0"):
        paired_binary_ci([-1], [2], [4])
    with pytest.raises(ValueError, match="alpha: must be strictly between 0 and 1; got 2"):
        paired_binary_ci([1], [2], [4], alpha=2)


# ------------------------------------------------------------------ unpaired binary


@pytest.mark.parametrize(("counts", "expected"), [
    # Newcombe (1998a) Table II, method 10, examples (a) and (b)
    ((56, 70, 48, 80), (0.0524, 0.3339)),
    ((9, 10, 3, 10), (0.1705, 0.8090)),
])
def test_newcombe_unpaired_published_examples(counts: tuple[int, ...],
                                              expected: tuple[float, float]) -> None:
    low, high = newcombe_unpaired_ci(*[[v] for v in counts])
    assert (round(float(low[0]), 4), round(float(high[0]), 4)) == expected


@pytest.mark.slow
@settings(max_examples=100)
@given(st.integers(1, 200), st.integers(1, 200), st.data(), st.sampled_from([0.05, 0.1, 0.01]))
def test_newcombe_unpaired_matches_statsmodels(n_a: int, n_b: int, data: st.DataObject,
                                               alpha: float) -> None:
    x_a, x_b = data.draw(st.integers(0, n_a)), data.draw(st.integers(0, n_b))
    low, high = newcombe_unpaired_ci([x_a], [n_a], [x_b], [n_b], alpha=alpha)
    ref = confint_proportions_2indep(x_a, n_a, x_b, n_b, compare="diff", method="newcomb",
                                     alpha=alpha)
    np.testing.assert_allclose([low[0], high[0]], ref, atol=1e-12)


def test_wilson_matches_statsmodels_and_degenerate_unpaired() -> None:
    x, n = np.array([0, 3, 10, 7]), np.array([10, 10, 10, 30])
    low, high = wilson_ci(x, n, alpha=0.1)
    ref = proportion_confint(x, n, alpha=0.1, method="wilson")
    np.testing.assert_allclose(low, ref[0], atol=1e-12)
    np.testing.assert_allclose(high, ref[1], atol=1e-12)
    assert np.isnan(newcombe_unpaired_ci([0], [0], [1], [3])).all()
    low, high = newcombe_unpaired_ci([1], [1], [1], [1])  # n = 1 each, both succeed
    assert low[0] < 0 < high[0] and low[0] == pytest.approx(-high[0])


# ------------------------------------------------------------------ numeric


@pytest.mark.slow
@settings(max_examples=60)
@given(hnp.arrays(float, st.integers(2, 40), elements=st.floats(-100, 100, width=32)),
       st.sampled_from([0.05, 0.1, 0.2]))
def test_paired_t_matches_scipy(d: np.ndarray, alpha: float) -> None:
    assume(np.ptp(d) >= 1e-6)  # scipy's interval of a constant sample is NaN; ours is the point (below)
    low, high = paired_numeric_ci([d.mean()], [d.std(ddof=1)], [len(d)], alpha=alpha)
    ref = stats.ttest_1samp(d, 0.0).confidence_interval(1 - alpha)
    np.testing.assert_allclose([low[0], high[0]], [ref.low, ref.high], rtol=1e-9, atol=1e-9)


@pytest.mark.slow
@settings(max_examples=60)
@given(hnp.arrays(float, st.integers(2, 30), elements=st.floats(-100, 100, width=32)),
       hnp.arrays(float, st.integers(2, 30), elements=st.floats(-100, 100, width=32)))
def test_welch_matches_scipy(a: np.ndarray, b: np.ndarray) -> None:
    assume(np.ptp(a) >= 1e-6 and np.ptp(b) >= 1e-6)
    low, high = welch_ci([a.mean() - b.mean()], [a.var(ddof=1)], [len(a)], [b.var(ddof=1)],
                         [len(b)])
    ref = stats.ttest_ind(a, b, equal_var=False).confidence_interval(0.95)
    np.testing.assert_allclose([low[0], high[0]], [ref.low, ref.high], rtol=1e-8, atol=1e-8)


def test_numeric_degenerate_cases() -> None:
    low, high = paired_numeric_ci([0.5, 0.2, 0.0], [0.0, 1.0, 0.0], [10, 1, 5])
    assert (low[0], high[0]) == (0.5, 0.5)  # constant differences: the point itself
    assert np.isnan(low[1]) and np.isnan(high[1])  # one example: no spread, no interval
    assert (low[2], high[2]) == (0.0, 0.0)
    wl, wh = welch_ci([1.0, 1.0, 0.3], [0.0, 2.0, 1.0], [5, 1, 4], [0.0, 2.0, 1.0], [5, 9, 4])
    assert (wl[0], wh[0]) == (1.0, 1.0)
    assert np.isnan(wl[1]) and np.isnan(wh[1])
    assert wl[2] < 0.3 < wh[2]


# ------------------------------------------------------------------ calibration


def test_coverage_by_simulation() -> None:
    # No true difference, 20,000 replicates each; Monte Carlo SE of a 95 % coverage is
    # 0.0015, so [0.935, 0.965] is ±10 SE around nominal yet catches a wrong formula.
    rng = np.random.default_rng(2024)
    reps, n = 20_000, 60
    # paired binary: P(only a) = P(only b) = 0.1
    cells = rng.multinomial(n, [0.4, 0.1, 0.1, 0.4], size=reps)
    low, high = paired_binary_ci(cells[:, 1], cells[:, 2], n)
    assert 0.935 <= np.mean((low <= 0) & (high >= 0)) <= 0.965
    low, high = newcombe_paired_ci(*cells.T)
    assert 0.935 <= np.mean((low <= 0) & (high >= 0)) <= 0.975  # method 10 errs high
    # paired numeric: differences with mean 0.3 (normal: the t interval is exact)
    d = rng.normal(0.3, 2.0, size=(reps, 40))
    low, high = paired_numeric_ci(d.mean(axis=1), d.std(axis=1, ddof=1), 40)
    assert 0.935 <= np.mean((low <= 0.3) & (high >= 0.3)) <= 0.965
    # unpaired numeric: unequal variances and sizes, true difference 0
    a = rng.normal(0, 3, size=(reps, 12))
    b = rng.normal(0, 1, size=(reps, 40))
    low, high = welch_ci(a.mean(1) - b.mean(1), a.var(1, ddof=1), 12, b.var(1, ddof=1), 40)
    assert 0.935 <= np.mean((low <= 0) & (high >= 0)) <= 0.965
    # unpaired binary: p = 0.3 on both sides
    xa, xb = rng.binomial(50, 0.3, reps), rng.binomial(80, 0.3, reps)
    low, high = newcombe_unpaired_ci(xa, 50, xb, 80)
    assert 0.935 <= np.mean((low <= 0) & (high >= 0)) <= 0.97
