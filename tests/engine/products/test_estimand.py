"""Issue #26 item 4: a complete system's interval keeps its estimand (its own population mean)
whatever other systems are missing. Reference: the Wilson interval of statsmodels'
proportion_confint and scipy's t interval of the system's own scores."""

from __future__ import annotations

import numpy as np
import pytest
from scipy import stats
from statsmodels.stats.proportion import proportion_confint

from engine._matrix import ScoreMatrix
from engine.products._leaderboard import leaderboard


def test_one_missing_score_elsewhere_leaves_complete_intervals_alone() -> None:
    rng = np.random.default_rng(0)
    x = (rng.random((5, 100)) < 0.6).astype(float)
    full = leaderboard(ScoreMatrix.from_array(x), bt_resamples=0).table.set_index("system")
    y = x.copy()
    y[4, 0] = np.nan  # one score of one system deleted
    part = leaderboard(ScoreMatrix.from_array(y), bt_resamples=0).table.set_index("system")
    complete = ["s0", "s1", "s2", "s3"]
    np.testing.assert_allclose(part.loc[complete, ["mean", "ci_low", "ci_high"]],
                               full.loc[complete, ["mean", "ci_low", "ci_high"]], rtol=1e-12)
    low, high = proportion_confint(x[0].sum(), 100, alpha=0.05, method="wilson")
    assert (part.loc["s0", "ci_low"], part.loc["s0", "ci_high"]) == pytest.approx((low, high))


def test_numeric_complete_system_gets_its_t_interval() -> None:
    rng = np.random.default_rng(1)
    x = rng.normal(size=(3, 40))
    x[2, :5] = np.nan
    row = leaderboard(ScoreMatrix.from_array(x), bt_resamples=0).table.set_index("system").loc["s0"]
    ref = stats.ttest_1samp(x[0], 0.0).confidence_interval(0.95)
    assert (row["ci_low"], row["ci_high"]) == pytest.approx((ref.low, ref.high))
