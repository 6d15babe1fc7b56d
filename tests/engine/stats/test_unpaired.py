"""Issue #26 item 6: skewed unpaired scores get the symmetric bootstrap-t past Cochran's rule.

Reference values: Cochran's rule n > 25 G1² (Cochran 1977, Sampling Techniques, §2.15) with
scipy's bias-corrected skewness; the bootstrap-t p-value and interval against a direct
loop over the same resamples (same generator) computing Welch's t with scipy.
"""

from __future__ import annotations

import numpy as np
import pytest
from scipy import stats

from engine._matrix import ScoreMatrix
from engine.stats._pairwise import pairwise_tests
from engine.stats._unpaired import bootstrap_t, needs_bootstrap


def _own_examples(samples: list[np.ndarray]) -> np.ndarray:
    x = np.full((len(samples), sum(len(s) for s in samples)), np.nan)
    start = 0
    for i, s in enumerate(samples):
        x[i, start:start + len(s)] = s
        start += len(s)
    return x


def test_cochran_rule() -> None:
    rng = np.random.default_rng(0)
    skewed = np.exp(1.5 * rng.normal(size=30))
    normal = rng.normal(size=30)
    g1 = stats.skew(skewed, bias=False)
    assert 25 * g1**2 >= 30  # the rule fails for the lognormal sample
    assert needs_bootstrap(_own_examples([skewed, normal])).tolist() == [True, False]


def test_bootstrap_t_matches_a_plain_loop() -> None:
    rng = np.random.default_rng(1)
    a, b = np.exp(rng.normal(size=12)), np.exp(0.5 * rng.normal(size=15))
    x = _own_examples([a, b])
    res = bootstrap_t(x, np.array([0]), np.array([1]), alpha=0.05, alternative="two-sided",
                      n_resamples=999, rng=np.random.default_rng(7))
    t = stats.ttest_ind(a, b, equal_var=False).statistic
    assert res.statistic[0] == pytest.approx(t)
    g = np.random.default_rng(7)
    ia, ib = g.integers(0, len(a), (999, len(a))), g.integers(0, len(b), (999, len(b)))
    tb = stats.ttest_ind((a - a.mean())[ia], (b - b.mean())[ib], axis=1, equal_var=False).statistic
    assert res.pvalue[0] == pytest.approx(((np.abs(tb) >= abs(t)).sum() + 1) / 1000)
    se = np.sqrt(a.var(ddof=1) / len(a) + b.var(ddof=1) / len(b))
    q = np.quantile(np.abs(tb), 0.95)
    d = a.mean() - b.mean()
    assert (res.ci_low[0], res.ci_high[0]) == pytest.approx((d - q * se, d + q * se))


def test_pairwise_switches_only_the_skewed_pairs() -> None:
    rng = np.random.default_rng(2)
    samples = [np.exp(1.2 * rng.normal(size=20)), rng.normal(size=200), rng.normal(size=200)]
    res = pairwise_tests(ScoreMatrix.from_array(_own_examples(samples)))
    tests = dict(zip(zip(res.table["system_a"], res.table["system_b"], strict=True),
                     res.table["test"], strict=True))
    assert tests == {("s0", "s1"): "boot-t", ("s0", "s2"): "boot-t", ("s1", "s2"): "t"}
    assert any("Cochran" in n for n in res.notes)
    for row in res.table.itertuples():  # interval and test agree at 0
        assert ((row.ci_low > 0) or (row.ci_high < 0)) == (row.pvalue < 0.05) or \
            abs(row.pvalue - 0.05) < 0.01
    # a chosen test is left alone
    assert set(pairwise_tests(ScoreMatrix.from_array(_own_examples(samples)),
                              test="t").table["test"]) == {"t"}
