"""Equivalence by two one-sided tests (engine/stats/_equivalence.py)."""

from __future__ import annotations

import json
import math
from pathlib import Path

import numpy as np
import pandas as pd
import pytest
from hypothesis import assume, given, settings
from hypothesis import strategies as st
from statsmodels.stats.weightstats import ttost_paired

from engine.cli import main
from engine.cli._json import ab_json
from engine.stats._ab import compare_ab
from engine.stats._equivalence import tost, tost_paired

# Student's (1908) sleep data, R's `sleep`: extra hours of sleep of 10 patients under two
# drugs (group 1, group 2), the example of R's ?t.test and of the TOSTER vignette
# "IntroTOSTt" (t_TOST(extra ~ group, data = sleep, paired = TRUE, eqb = 0.5)).
SLEEP_1 = [0.7, -1.6, -0.2, -1.2, -0.1, 3.4, 3.7, 0.8, 0.0, 2.0]
SLEEP_2 = [1.9, 0.8, 1.1, 0.1, -0.1, 4.4, 5.5, 1.6, 4.6, 3.4]


def test_sleep_paired_tost_textbook_example() -> None:
    res = tost_paired(SLEEP_1, SLEEP_2, margin=0.5)
    # R: t.test(extra ~ group, data = sleep, paired = TRUE) -> t = -4.0621, df = 9,
    # p-value = 0.002833, mean difference -1.58 (R's documented example output)
    assert res.estimate == pytest.approx(-1.58)
    assert res.df == 9
    assert res.estimate / res.se == pytest.approx(-4.0621, abs=5e-5)
    assert res.p_two_sided == pytest.approx(0.002833, abs=5e-7)
    # the two one-sided tests: statsmodels.stats.weightstats.ttost_paired(x1, x2, -0.5, 0.5)
    # gives p = 0.98924 (t_lower = -2.77664, p 0.98924; t_upper = -5.34761, p 0.000232)
    assert res.t_lower == pytest.approx(-2.7766442, abs=1e-6)
    assert res.p_lower == pytest.approx(0.9892408, abs=1e-6)
    assert res.t_upper == pytest.approx(-5.3476111, abs=1e-6)
    assert res.p_upper == pytest.approx(0.00023190, abs=1e-8)
    assert res.pvalue == res.p_lower
    # not equivalent within ±0.5, and different from 0 (Lakens 2017's "not equivalent, different")
    assert res.verdict == "different" and not res.equivalent


@settings(max_examples=50)
@given(st.lists(st.floats(-5, 5), min_size=3, max_size=40), st.floats(0.05, 3),
       st.floats(-2, 2))
def test_tost_equals_statsmodels_and_the_interval_rule(values: list[float], margin: float,
                                                       shift: float) -> None:
    d = np.asarray(values) + shift
    assume(np.std(d) >= 1e-6)
    res = tost_paired(d, margin=margin)
    p_sm, (t1, p1, _), (t2, p2, _) = ttost_paired(d, np.zeros_like(d), -margin, margin)
    assert res.pvalue == pytest.approx(float(p_sm), abs=1e-9)
    assert (res.t_lower, res.p_lower) == pytest.approx((float(t1), float(p1)), abs=1e-9)
    assert (res.t_upper, res.p_upper) == pytest.approx((float(t2), float(p2)), abs=1e-9)
    # equivalent exactly when the 1 − 2α interval lies inside the bounds (Schuirmann 1987)
    inside = -margin < res.ci_low and res.ci_high < margin
    if abs(res.pvalue - 0.05) > 1e-9:
        assert res.equivalent == inside


def test_verdicts_equivalent_and_not_shown() -> None:
    assert tost(0.01, 0.01, 99, margin=0.05).verdict == "equivalent"
    assert tost(0.0, 0.2, 20, margin=0.05).verdict == "not shown"
    assert tost(0.3, 0.01, math.inf, margin=0.05).verdict == "different"
    exact = tost(0.0, 0.0, 10, margin=0.05)  # a difference known without error
    assert exact.verdict == "equivalent" and exact.pvalue == 0.0


@pytest.mark.parametrize(("kwargs", "message"), [
    ({"margin": -1.0}, "margin: must be a positive number"),
    ({}, "margin: give the equivalence margin"),
    ({"margin": 0.1, "low": -1.0}, "margin: give either margin or low and high"),
    ({"low": 1.0, "high": 0.5}, "low, high: must be finite with low < high"),
    ({"margin": 0.1, "alpha": 0.6}, "alpha: must be strictly between 0 and 0.5"),
])
def test_bad_arguments_are_named(kwargs: dict[str, float], message: str) -> None:
    with pytest.raises(ValueError, match=message):
        tost(0.0, 1.0, 10, **kwargs)


def _pair_table() -> pd.DataFrame:
    rng = np.random.default_rng(7)
    base = (rng.random(400) < 0.6).astype(float)
    cand = np.where(rng.random(400) < 0.1, 1 - base, base)
    return pd.DataFrame({"benchmark": "b", "metric": "acc",
                         "system": ["old"] * 400 + ["new"] * 400,
                         "example_id": [f"e{i:03d}" for i in range(400)] * 2,
                         "value": np.concatenate([base, cand])})


def test_compare_equivalence_uses_the_verdict_test() -> None:
    res = compare_ab(_pair_table(), baseline="old", candidate="new", equivalence=0.1)
    assert res.equivalence is not None
    t = res.test
    again = tost(t.estimate, t.se, t.df, margin=0.1)
    assert res.equivalence == again
    assert ab_json(res)["equivalence"]["verdict"] == again.verdict


@pytest.mark.slow
def test_cli_compare_equivalence(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    path = tmp_path / "pair.csv"
    _pair_table().to_csv(path, index=False)
    code = main(["compare", str(path), "--baseline", "old", "--candidate", "new",
                 "--equivalence", "0.1", "--format", "json"])
    out = json.loads(capsys.readouterr().out)
    assert code == out["exit_code"]
    assert out["equivalence"]["low"] == -0.1 and out["equivalence"]["high"] == 0.1
    assert out["equivalence"]["verdict"] in ("equivalent", "different", "not shown")
    assert main(["compare", str(path), "--baseline", "old", "--candidate", "new",
                 "--equivalence", "-1"]) == 2
    assert "margin: must be a positive number" in capsys.readouterr().err
