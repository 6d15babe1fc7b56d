"""Issue #12's worked examples: numbers a reviewer can trust under partial overlap, with
untested pairs, effect-size criteria, constant differences, and with an interval for
every difference.

Reference values: scipy (``binomtest`` = exact McNemar on the discordant pairs,
``ttest_rel``/``ttest_ind`` and their ``confidence_interval``), statsmodels
(``confint_proportions_2indep(method="newcomb")``), and the exact sign-flip
distribution (2^n equally likely sign patterns) worked by hand in the comments.
"""

from __future__ import annotations

import numpy as np
import pytest
from scipy import stats
from statsmodels.stats.proportion import confint_proportions_2indep

from engine import MetricSpec, ScoreMatrix, TestOptions, leaderboard, pairwise_tests
from engine.cli._json import leaderboard_json


def _pair(res, a: str, b: str):  # type: ignore[no-untyped-def]
    t = res.table
    return t[(t["system_a"] == a) & (t["system_b"] == b)].iloc[0]


# ------------------------------------------------------------------ pairing per pair

def _two_on_500_one_on_40() -> tuple[np.ndarray, int, int]:
    """A and B on 500 examples (A wins 50 discordant examples, B 20); C only on the first 40,
    where A and B happen to be nearly even (A 4, B 3)."""
    a, b = np.zeros(500), np.zeros(500)
    a[:200] = b[:200] = 1                     # both solve 200
    a[200:250] = 1                            # 50 only A solves …
    b[250:270] = 1                            # … 20 only B solves
    # rearrange so that the first 40 examples hold only 4 A-wins and 3 B-wins
    order = np.r_[np.arange(200, 204), np.arange(250, 253), np.arange(0, 33),
                  np.setdiff1d(np.arange(500), np.r_[np.arange(200, 204), np.arange(250, 253),
                                                     np.arange(0, 33)])]
    a, b = a[order], b[order]
    c = np.full(500, np.nan)
    c[:40] = np.random.default_rng(0).integers(0, 2, 40)
    return np.array([a, b, c]), 50, 20


def test_each_pair_is_paired_on_its_own_shared_examples() -> None:
    x, wins_a, wins_b = _two_on_500_one_on_40()
    res = pairwise_tests(ScoreMatrix.from_array(x, systems=["A", "B", "C"]))
    ab = _pair(res, "A", "B")
    assert ab["paired"] and ab["n"] == 500 and (ab["wins_a"], ab["wins_b"]) == (wins_a, wins_b)
    # exact McNemar on A and B's own 500 examples: binomtest(20, 70) = 0.000311…
    assert ab["pvalue"] == pytest.approx(stats.binomtest(wins_b, wins_a + wins_b).pvalue, rel=1e-12)
    # what pairing on the 40 examples every system has gave: binomtest(3, 7) = 1.0
    assert stats.binomtest(3, 7).pvalue > 0.5
    assert _pair(res, "A", "C")["n"] == 40 and _pair(res, "A", "C")["paired"]


def test_n_and_pairing_reach_the_json() -> None:
    x, _, _ = _two_on_500_one_on_40()
    lb = leaderboard(ScoreMatrix.from_array(x, systems=["A", "B", "C"]))
    pairs = lb.pairwise.table.to_dict(orient="records")
    for key in ("n", "paired", "difference", "ci_low", "ci_high"):
        assert all(key in p for p in pairs)


# ------------------------------------------------------------------ leaderboard agrees with itself

def _c_only_on_easy_examples() -> ScoreMatrix:
    """A and B on 2,000 examples of rising difficulty; C, worse than A everywhere, scored only on
    the 833 easiest (issue #12: C used to be shown at rank 1 with rank range 2–3)."""
    rng = np.random.default_rng(12)
    e = np.arange(2000) / 2000
    p_a = 0.95 - 0.7 * e
    x = np.array([rng.random(2000) < p_a, rng.random(2000) < p_a - 0.04,
                  rng.random(2000) < p_a - 0.08]).astype(float)
    x[2, 833:] = np.nan
    return ScoreMatrix.from_array(x, systems=["A", "B", "C"])


def test_partial_overlap_order_estimate_and_rank_range_agree() -> None:
    m = _c_only_on_easy_examples()
    raw = np.nanmean(m.values, axis=1)
    assert raw[2] > raw[0]  # the raw mean of C (easy examples only) beats A's
    lb = leaderboard(m).table.set_index("system")
    assert lb.loc["A", "rank"] == 1 and lb.loc["C", "rank"] == 3
    assert lb.loc["C", "mean"] < lb.loc["A", "mean"]  # on equal footing (adjusted means)
    assert (lb["rank_low"] <= lb["rank"]).all() and (lb["rank"] <= lb["rank_high"]).all()
    assert (lb["ci_low"] <= lb["mean"]).all() and (lb["mean"] <= lb["ci_high"]).all()


def test_missingness_that_follows_difficulty_is_flagged() -> None:
    notes = leaderboard(_c_only_on_easy_examples()).notes
    assert any(n.startswith("C's ") and "missing example(s) are harder" in n for n in notes)


@pytest.mark.slow
def test_every_rank_lies_in_its_range_on_random_partial_data() -> None:
    rng = np.random.default_rng(5)
    for _ in range(20):
        x = (rng.random((6, 60)) < rng.uniform(0.3, 0.8, (6, 1))).astype(float)
        x[rng.random(x.shape) < 0.3] = np.nan
        t = leaderboard(ScoreMatrix.from_array(x)).table
        assert ((t["rank_low"] <= t["rank"]) & (t["rank"] <= t["rank_high"])).all()


# ------------------------------------------------------------------ untested pairs

def test_untested_pairs_are_not_shown_to_differ() -> None:
    base = [1.0] * 30 + [0.0] * 10
    same = [1.0] * 10 + [0.0] * 30
    m = ScoreMatrix.from_array({"A": base, "B": same, "C": same})
    for compare in ("first", "successive"):
        lb = leaderboard(m, compare=compare, alternative="greater")
        t = lb.table.set_index("system")
        # B and C are identical: they share a letter (they got "b" and "c" before)
        assert set(t.loc["B", "group"]) & set(t.loc["C", "group"])
        assert t.loc["B", "rank_low"] <= 2 and t.loc["C", "rank_low"] <= 2


def test_one_sided_all_pairs_leaderboard_is_refused() -> None:
    m = ScoreMatrix.from_array({"A": [1.0] * 30 + [0.0] * 10, "B": [1.0] * 12 + [0.0] * 28})
    with pytest.raises(ValueError, match="alternative: a ranked leaderboard of all pairs"):
        leaderboard(m, alternative="greater")


# ------------------------------------------------------------------ effect-size criterion

def test_effect_size_never_makes_a_pair_significant_alone() -> None:
    # n = 3, p = 0.53: a large effect on three examples is not a finding
    m = ScoreMatrix.from_array({"A": [3.0, 0.0, 5.0], "B": [1.0, 2.0, 2.0]})
    row = pairwise_tests(m, criterion="small").table.iloc[0]
    assert row["pvalue"] == pytest.approx(stats.ttest_rel([3, 0, 5], [1, 2, 2]).pvalue)  # 0.58
    assert row["pvalue"] > 0.5 and abs(row["criterion_effect"]) > 0.2
    assert not row["significant"]


def test_criterion_effect_is_one_cohen_defined() -> None:
    m = ScoreMatrix.from_array({"A": [1.0] * 30 + [0.0] * 10, "B": [1.0] * 12 + [0.0] * 28})
    row = pairwise_tests(m, criterion="small").table.iloc[0]
    # Cohen's h of the two proportions: 2 asin √0.75 − 2 asin √0.3 (Cohen 1988, ch. 6)
    h = 2 * np.arcsin(np.sqrt(0.75)) - 2 * np.arcsin(np.sqrt(0.3))
    assert row["criterion_effect_name"] == "cohen_h"
    assert row["criterion_effect"] == pytest.approx(h)


@pytest.mark.slow
def test_effect_size_criterion_keeps_false_alarms_below_alpha() -> None:
    """Null: 10 systems × 30 examples, no true difference. With criterion=small the share of
    runs flagging any pair used to be 0.28; now a pair must also pass the corrected test."""
    rng = np.random.default_rng(30)
    runs, flagged = 200, 0
    for _ in range(runs):
        x = rng.normal(size=(10, 30)) + rng.normal(size=(1, 30))  # shared example effects
        res = pairwise_tests(ScoreMatrix.from_array(x), criterion="small")
        flagged += bool(res.table["significant"].any())
    rate = flagged / runs
    assert rate <= 0.05 + 3 * np.sqrt(0.05 * 0.95 / runs)


# ------------------------------------------------------------------ constant differences

def test_constant_difference_gets_the_exact_sign_flip_pvalue() -> None:
    # 2 examples, difference 0.01 on both: of the 4 sign patterns, 2 are as extreme
    # (all + or all −) → p = 2/4 = 0.5, never 0
    m = ScoreMatrix.from_array({"A": [0.51, 0.71], "B": [0.50, 0.70]})
    row = pairwise_tests(m).table.iloc[0]
    assert row["pvalue"] == 0.5 and not row["significant"]


# ------------------------------------------------------------------ intervals of differences

def test_paired_numeric_difference_interval_is_the_t_interval() -> None:
    rng = np.random.default_rng(8)
    a = rng.normal(0.5, 1, 50)
    b = a - 0.3 + rng.normal(0, 0.5, 50)
    row = pairwise_tests(ScoreMatrix.from_array({"A": a, "B": b}), alpha=0.1).table.iloc[0]
    ci = stats.ttest_rel(a, b).confidence_interval(confidence_level=0.9)
    assert row["difference"] == pytest.approx(np.mean(a - b))
    assert (row["ci_low"], row["ci_high"]) == pytest.approx((ci.low, ci.high), rel=1e-9)


def test_lower_is_better_interval_is_oriented() -> None:
    a, b = np.arange(12.0), np.arange(12.0) + 2 + np.r_[0.1, -0.1] .repeat(6)
    m = ScoreMatrix.from_array({"A": a, "B": b}, spec=MetricSpec(higher_is_better=False))
    row = pairwise_tests(m).table.iloc[0]
    ci = stats.ttest_rel(b, a).confidence_interval()  # A errs less: positive = A better
    assert row["difference"] == pytest.approx(2.0)
    assert (row["ci_low"], row["ci_high"]) == pytest.approx((ci.low, ci.high), rel=1e-9)


def test_unpaired_intervals_welch_and_newcombe() -> None:
    rng = np.random.default_rng(9)
    a, b = rng.normal(1, 1, 40), rng.normal(0.4, 2, 55)
    x = np.full((2, 95), np.nan)
    x[0, :40], x[1, 40:] = a, b
    row = pairwise_tests(ScoreMatrix.from_array(x, systems=["A", "B"])).table.iloc[0]
    ci = stats.ttest_ind(a, b, equal_var=False).confidence_interval()
    assert not row["paired"]
    assert (row["ci_low"], row["ci_high"]) == pytest.approx((ci.low, ci.high), rel=1e-9)
    pa, pb = np.r_[np.ones(73), np.zeros(13)], np.r_[np.ones(90), np.zeros(3)]
    y = np.full((2, 179), np.nan)
    y[0, :86], y[1, 86:] = pa, pb
    row = pairwise_tests(ScoreMatrix.from_array(y, systems=["A", "B"])).table.iloc[0]
    low, high = confint_proportions_2indep(73, 86, 90, 93, method="newcomb", compare="diff")
    assert (row["ci_low"], row["ci_high"]) == pytest.approx((low, high), rel=1e-9)


def test_options_object_and_keywords_agree() -> None:
    m = ScoreMatrix.from_array({"A": [1.0] * 30 + [0.0] * 10, "B": [1.0] * 12 + [0.0] * 28})
    a = pairwise_tests(m, TestOptions(alpha=0.01, correction="holm")).table
    b = pairwise_tests(m, alpha=0.01, correction="holm").table
    assert a.equals(b)


# ------------------------------------------------------------------ Bradley–Terry in the leaderboard

def test_leaderboard_reports_convergence_and_rating_intervals() -> None:
    rng = np.random.default_rng(21)
    x = (rng.random((5, 120)) < np.linspace(0.3, 0.8, 5)[:, None]).astype(float)
    lb = leaderboard(ScoreMatrix.from_array(x), bt_resamples=100)
    d = leaderboard_json(lb, [])
    assert d["converged"] is True
    for row in d["systems"]:  # type: ignore[attr-defined]
        assert row["bt_low"] <= row["bt_strength"] <= row["bt_high"]
        assert row["elo_low"] <= row["elo"] <= row["elo_high"]
        assert row["win_rate_low"] <= row["win_rate"] <= row["win_rate_high"]
    assert leaderboard(ScoreMatrix.from_array(x), bt_resamples=0).table["bt_low"].isna().all()
