"""The A/B gate's verdict with the examples one side lacks at the worst and best score
(engine.stats._missing_bounds).

Reference values: the 0/1 tables below are built by hand from four kinds of examples (both
pass, baseline only, candidate only, both fail), so each bound's difference is a count
over 300 and each verdict is the exact McNemar test on the discordant counts (scipy's
binomtest, computed in the comments); the numeric bounds are means taken by hand.
"""

from __future__ import annotations

from dataclasses import replace

import numpy as np
import pandas as pd
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from scipy import stats

from engine._contract import MetricSpec
from engine.stats._ab import compare_ab
from engine.stats._missing_bounds import TOLERANCE, MissingBounds, _filled, missing_bounds

BETTER, WORSE = "candidate is significantly better", "candidate is significantly worse"
NSD = "no significant difference"


def _kinds(both: int, base_only: int, cand_only: int, neither: int
           ) -> tuple[np.ndarray, np.ndarray]:
    base = np.r_[np.ones(both), np.ones(base_only), np.zeros(cand_only), np.zeros(neither)]
    cand = np.r_[np.ones(both), np.zeros(base_only), np.ones(cand_only), np.zeros(neither)]
    return base, cand


def _frame(base: np.ndarray, cand: np.ndarray, keep_b: np.ndarray | None = None,
           keep_c: np.ndarray | None = None) -> pd.DataFrame:
    n = len(base)
    keep_b = np.ones(n, bool) if keep_b is None else keep_b
    keep_c = np.ones(n, bool) if keep_c is None else keep_c
    ids = np.array([f"e{i:03d}" for i in range(n)])
    return pd.DataFrame({"benchmark": "b", "metric": "acc",
                         "system": ["base"] * int(keep_b.sum()) + ["cand"] * int(keep_c.sum()),
                         "example_id": np.r_[ids[keep_b], ids[keep_c]],
                         "value": np.r_[base[keep_b], cand[keep_c]]})


def dropped_failures() -> pd.DataFrame:
    """300 examples, no true difference (60 won by each side alone, McNemar p = 1); the
    candidate's harness dropped 60 of its 150 failures: 30 of the 60 it lost alone and 30
    of the 90 both fail. The baseline passes half the dropped examples and half the kept
    ones, so the Mann–Whitney check of engine.stats._missing sees nothing (p = 1)."""
    base, cand = _kinds(90, 60, 60, 90)
    keep = np.ones(300, bool)
    keep[np.arange(90, 150, 2)] = False  # 30 of the 60 it lost alone
    keep[np.arange(210, 300, 3)] = False  # 30 of the 90 both fail
    return _frame(base, cand, keep_c=keep)


def _bounds(df: pd.DataFrame, **kw: object) -> MissingBounds:
    b = missing_bounds(df, compare_ab(df, baseline="base", candidate="cand"), **kw)  # type: ignore[arg-type]
    assert b is not None
    return b


def test_dropped_failures_cannot_decide() -> None:
    df = dropped_failures()
    obs = compare_ab(df, baseline="base", candidate="cand")
    # on the 240 shared: 60 won by the candidate alone, 30 by the baseline, exact McNemar
    assert obs.verdict == BETTER and obs.exit_code == 0 and obs.missing == ()
    assert stats.binomtest(30, 90).pvalue < 0.05
    b = missing_bounds(df, obs)
    assert b is not None
    assert (b.n, b.candidate_lacks, b.baseline_lacks) == (300, 60, 0)
    # with the 60 failed: the complete table, 60 vs 60, difference 0, McNemar p = 1
    assert b.low == pytest.approx(0.0, abs=1e-12) and b.low_verdict == NSD
    # with the 60 passed: the candidate 210/300 against 150/300
    assert b.high == pytest.approx(0.20) and b.high_verdict == BETTER
    assert not b.survives and not b.decided
    assert b.sentence() == (
        "cand lacks 60 of 300 examples base has: with them failed the difference is +0.0 "
        "points, with them passed +20.0 points; cannot decide — rerun the missing examples "
        "or declare them with --allow-missing 60")
    assert b.sentence(flag=None).endswith("rerun the missing examples or declare them")


def test_complete_evaluation_has_no_bounds() -> None:
    df = _frame(*_kinds(100, 50, 50, 100))
    assert missing_bounds(df, compare_ab(df, baseline="base", candidate="cand")) is None


def test_declared_missingness_decides() -> None:
    df = dropped_failures()
    b = _bounds(df, declared=60)
    assert b.decided and not b.survives
    assert "declared with --allow-missing 60: the verdict stands on the 240 examples" in \
        b.sentence()
    assert not _bounds(df, declared=59).decided


def test_a_pass_must_not_turn_worse() -> None:
    # truly worse (20 vs 60 won alone: McNemar p ≈ 1e-5); the candidate drops 40 of its 60
    # losses and 60 of the 120 both fail: on the shared examples 20 vs 20, no difference
    base, cand = _kinds(100, 60, 20, 120)
    keep = np.ones(300, bool)
    keep[np.arange(120, 160)] = False
    keep[np.arange(180, 300, 2)] = False
    df = _frame(base, cand, keep_c=keep)
    b = _bounds(df)
    assert b.observed_verdict == NSD and b.low_verdict == WORSE
    assert b.low == pytest.approx(-40 / 300) and not b.decided


def test_worse_must_stay_worse_with_the_gaps_for_the_candidate() -> None:
    # no true difference (40 vs 40); the candidate lacks its 40 lone wins and 50 of the
    # 100 shared wins: 40 vs 0 on the shared, worse; with them passed: 40 vs 40
    base, cand = _kinds(100, 40, 40, 120)
    keep = np.ones(300, bool)
    keep[np.arange(140, 180)] = False
    keep[np.arange(0, 100, 2)] = False
    b = _bounds(_frame(base, cand, keep_c=keep))
    assert b.observed_verdict == WORSE and b.high_verdict == NSD and not b.decided
    assert b.high == pytest.approx(0.0, abs=1e-12) and b.low == pytest.approx(-90 / 300)


def test_a_better_verdict_that_survives() -> None:
    # 100 vs 20 won alone; the candidate lacks 40 of the 100 both fail: still better with
    # them failed (the complete table)
    base, cand = _kinds(80, 20, 100, 100)
    keep = np.ones(300, bool)
    keep[np.arange(200, 240)] = False
    b = _bounds(_frame(base, cand, keep_c=keep))
    assert b.survives and b.decided and b.low_verdict == BETTER
    assert b.sentence().endswith("the verdict holds with the missing scores against it")


def test_tolerance() -> None:
    # the dropped-failures table with only 20 failures dropped (6.7% < 10%)
    base, cand = _kinds(100, 50, 50, 100)
    keep = np.ones(300, bool)
    keep[np.arange(100, 120)] = False
    df = _frame(base, cand, keep_c=keep)
    b = _bounds(df)
    assert TOLERANCE == 0.10 and b.within_tolerance and b.decided
    if not b.survives:
        assert "at most 10% of the examples missing on each side, tolerated" in b.sentence()
    strict = replace(b, tolerance=0.0)
    assert strict.decided == strict.survives
    with pytest.raises(ValueError, match="tolerance"):
        missing_bounds(df, compare_ab(df, baseline="base", candidate="cand"), tolerance=1.0)
    with pytest.raises(ValueError, match="declared"):
        missing_bounds(df, compare_ab(df, baseline="base", candidate="cand"), declared=-1)


def test_both_sides_lack_examples() -> None:
    base, cand = _kinds(100, 50, 50, 100)
    keep_b, keep_c = np.ones(300, bool), np.ones(300, bool)
    keep_b[:10] = False  # the baseline lacks 10 shared wins
    keep_c[200:230] = False  # the candidate lacks 30 shared failures
    b = _bounds(_frame(base, cand, keep_b, keep_c))
    assert (b.baseline_lacks, b.candidate_lacks) == (10, 30)
    # low: the candidate's 30 failed (as they are), the baseline's 10 passed (as they are)
    assert b.low == pytest.approx(0.0, abs=1e-12)
    # high: the candidate's 30 passed, the baseline's 10 failed: +40 over 300
    assert b.high == pytest.approx(40 / 300)
    assert b.sentence().startswith("cand lacks 30 and base lacks 10 of the 300 examples "
                                   "either has: with cand's failed and base's passed")


def test_numeric_lower_is_better() -> None:
    # latency-like scores, lower is better: the worst score seen is the highest (9.0)
    ids = [f"e{i}" for i in range(6)]
    df = pd.DataFrame({"benchmark": "b", "metric": "sec", "system": ["base"] * 6 + ["cand"] * 4,
                       "example_id": ids + ids[:4],
                       "value": [2.0, 3.0, 4.0, 5.0, 9.0, 1.0, 1.5, 2.5, 3.5, 4.5]})
    spec = MetricSpec(higher_is_better=False)
    obs = compare_ab(df, baseline="base", candidate="cand", spec=spec)
    b = missing_bounds(df, obs, spec=spec)
    assert b is not None and (b.worst, b.best) == (9.0, 1.0) and not b.binary
    # low: the candidate's e4, e5 at 9.0: means 4.0 (base) and 30/6 = 5.0 (cand); oriented
    # (positive = candidate better) 4.0 − 5.0 = −1.0; high: at 1.0: 4.0 − 14/6
    assert b.low == pytest.approx(-1.0) and b.high == pytest.approx(4.0 - 14 / 6)
    assert "at the worst score seen (9)" in b.sentence()


def test_filled_rows_take_the_other_sides_columns_and_own_runs() -> None:
    df = pd.DataFrame({"benchmark": "b", "metric": "acc",
                       "system": ["base"] * 3 + ["cand"] * 4,
                       "example_id": ["e0", "e1", "e2", "e0", "e0", "e1", "e1"],
                       "run": [0, 0, 0, 0, 1, 0, 1], "family": ["x", "y", "z", "x", "x", "y", "y"],
                       "value": [1.0, 0.0, 1.0, 1.0, 1.0, 0.0, 1.0]})
    rows = _filled(df, "cand", "base", ["e2"], 0.0)
    assert sorted(rows["run"]) == [0, 1] and set(rows["family"]) == {"z"}
    assert set(rows["system"]) == {"cand"} and set(rows["value"]) == {0.0}


@st.composite
def _tables(draw: st.DrawFn) -> pd.DataFrame:
    n = draw(st.integers(12, 40))
    base = np.array(draw(st.lists(st.sampled_from([0.0, 1.0]), min_size=n, max_size=n)))
    cand = np.array(draw(st.lists(st.sampled_from([0.0, 1.0]), min_size=n, max_size=n)))
    keep_b = np.array(draw(st.lists(st.booleans(), min_size=n, max_size=n)))
    keep_c = np.array(draw(st.lists(st.booleans(), min_size=n, max_size=n)))
    keep_b[:4] = keep_c[:4] = True  # at least 4 shared examples
    keep_b[4], keep_c[4] = True, False  # the candidate lacks one the baseline has
    return _frame(base, cand, keep_b, keep_c)


@pytest.mark.slow
@settings(max_examples=25, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(_tables())
def test_swapping_the_sides_mirrors_the_bounds(df: pd.DataFrame) -> None:
    ab = missing_bounds(df, compare_ab(df, baseline="base", candidate="cand"))
    ba = missing_bounds(df, compare_ab(df, baseline="cand", candidate="base"))
    assert ab is not None and ba is not None
    assert (ba.baseline_lacks, ba.candidate_lacks, ba.n) == \
        (ab.candidate_lacks, ab.baseline_lacks, ab.n)
    # the bound against one side is the bound for the other: low ↔ −high
    assert ba.low == pytest.approx(-ab.high, abs=1e-12)
    assert ba.high == pytest.approx(-ab.low, abs=1e-12)
    mirror = {BETTER: WORSE, WORSE: BETTER, NSD: NSD}
    assert ba.low_verdict == mirror[ab.high_verdict]
    assert ba.high_verdict == mirror[ab.low_verdict]
