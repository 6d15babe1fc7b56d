"""Benchmark health (issue 4): eval-arena's definitions on hand-built and real matrices.

Every reference value says where it comes from: a hand calculation in a comment,
scipy / statsmodels, or a figure eval-arena publishes (Wang et al. 2024, *Eval-Arena: noise
and errors by leaderboard showdowns*, https://github.com/crux-eval/eval-arena).
"""

from __future__ import annotations

import argparse
import glob
import json
import math
import warnings
from pathlib import Path

import numpy as np
import pandas as pd
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from hypothesis.extra import numpy as hnp
from scipy import stats
from statsmodels.stats.power import NormalIndPower, TTestPower

from engine import TestOptions
from engine._contract import MetricSpec
from engine._matrix import ScoreMatrix as ScoreMatrix
from engine._matrix import build_matrix
from engine.cli._json import health_json
from engine.products._health import benchmark_health, kendall_tau_b_binary
from engine.stats._kernels import exact_sign_pvalues


def sign_test_pvalues(a: np.ndarray, b: np.ndarray) -> np.ndarray:
    """The two-sided exact sign test as the health report calls it."""
    return exact_sign_pvalues(a, b, "two-sided")

ARENA = Path(__file__).resolve().parents[3] / "data"  # the bundled eval-arena files
needs_arena = pytest.mark.skipif(False, reason="the demo data is part of the repository")
SQ23 = 2.0 / math.sqrt(6.0)  # tau-b of 3 systems with 2 concordant pairs, see HAND below


def long_frame(rows: dict[str, list[float]], benchmark: str = "b") -> pd.DataFrame:
    """Long table from {system: scores over e1..en} (NaN = no row)."""
    records = [
        {"benchmark": benchmark, "metric": "pass1", "system": s, "example_id": f"e{i + 1}",
         "value": v}
        for s, values in rows.items() for i, v in enumerate(values) if not math.isnan(v)
    ]
    return pd.DataFrame(records)


# Hand-built: 3 systems × 6 examples; means s1 = 4/6, s2 = 3/6, s3 = 2/6.
HAND = {
    "s1": [1, 1, 1, 1, 0, 0],
    "s2": [1, 1, 1, 0, 0, 0],
    "s3": [1, 0, 0, 0, 1, 0],
}


@pytest.fixture(scope="module")
def hand():
    return benchmark_health(build_matrix(long_frame(HAND)))


# ----------------------------------------------------------------- sign test p-values


def test_sign_test_hand_values():
    # (10, 0): 2 · 0.5^10 = 0.001953125.  (3, 1): 2 · P(X ≤ 1 | n=4) = 2 · 5/16 = 0.625.
    # (2, 2): 2 · P(X ≤ 2 | n=4) = 2 · 11/16 > 1 → 1.  (0, 0): no decisive battle → 1.
    p = sign_test_pvalues(np.array([10, 3, 2, 0]), np.array([0, 1, 2, 0]))
    np.testing.assert_allclose(p, [0.001953125, 0.625, 1.0, 1.0], rtol=1e-12)


@pytest.mark.slow
@settings(max_examples=200)
@given(st.integers(0, 400), st.integers(0, 400))
def test_sign_test_matches_scipy_binomtest(a, b):
    expected = stats.binomtest(a, a + b, 0.5).pvalue if a + b else 1.0
    got = float(sign_test_pvalues(np.array([a]), np.array([b]))[0])
    assert got == pytest.approx(expected, rel=1e-9, abs=1e-300)


# ----------------------------------------------------------------- Kendall tau-b


def test_kendall_tau_hand_value():
    # solved = [1, 1, 0, 0], quality = [4, 3, 2, 1]: the 4 solved/unsolved pairs are all
    # concordant, S = 4; n0 = 6, ties in x n1 = C(2,2) + C(2,2) = 2, n2 = 0
    # → tau_b = 4 / sqrt((6 − 2) · 6) = 2 / sqrt(6).
    tau = kendall_tau_b_binary(np.array([[1.0], [1.0], [0.0], [0.0]]), np.array([4, 3, 2, 1.0]))
    assert tau[0] == pytest.approx(2 / math.sqrt(6), rel=1e-12)


@st.composite
def solved_and_quality(draw):
    n_sys = draw(st.integers(1, 9))
    n_ex = draw(st.integers(1, 6))
    solved = draw(hnp.arrays(np.int8, (n_sys, n_ex), elements=st.integers(0, 1)))
    # Few distinct quality values so that ties in the ratings are common.
    values = st.one_of(st.sampled_from([0.0, 0.25, 0.5, 1.0]), st.floats(0, 1, width=32))
    quality = draw(hnp.arrays(float, n_sys, elements=values))
    return solved.astype(float), quality


@pytest.mark.slow
@settings(max_examples=300)
@given(solved_and_quality())
def test_kendall_tau_matches_scipy(data):
    solved, quality = data
    got = kendall_tau_b_binary(solved, quality)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # scipy warns on constant input (tau undefined)
        expected = [stats.kendalltau(solved[:, e], quality).statistic
                    for e in range(solved.shape[1])]
    np.testing.assert_allclose(got, expected, rtol=1e-12, atol=1e-12, equal_nan=True)


# ----------------------------------------------------------------- hand-built report


def test_hand_counts_and_battles(hand):
    assert (hand.size, len(hand.systems), hand.n_dropped) == (6, 3, 0)
    # Wins (A > 0.5, B ≤ 0.5): s1 beats s2 on e4 only; s1 vs s3: e2, e3, e4 vs e5;
    # s2 vs s3: e2, e3 vs e5.
    pairs = hand.pairs.set_index(["system_a", "system_b"])
    assert pairs.loc[("s1", "s2"), ["wins_a", "wins_b"]].tolist() == [1, 0]
    assert pairs.loc[("s1", "s3"), ["wins_a", "wins_b"]].tolist() == [3, 1]
    assert pairs.loc[("s3", "s2"), ["wins_a", "wins_b"]].tolist() == [1, 2]
    assert len(hand.pairs) == 6  # ordered pairs, no self-pairs
    # p: (1,0) → 1; (3,1) → 0.625; (2,1) → 2·P(X ≤ 1 | n=3) = 2 · 4/8 = 1 — none < 0.05,
    # so p5_min is undefined and p5_max = largest gap |3 − 1| / 6 = 1/3.
    assert pairs.loc[("s1", "s3"), "pvalue"] == pytest.approx(0.625)
    assert math.isnan(hand.p5_min)
    assert hand.p5_max == pytest.approx(1 / 3)


def test_hand_solved_and_tau(hand):
    # e6 is solved by nobody; e4 only by s1 (mean 4/6), e5 only by s3 (mean 2/6).
    assert hand.no_solve == ("e6",)
    assert hand.solved_by_one.to_dict("list") == {
        "example_id": ["e4", "e5"], "system": ["s1", "s3"], "rating": [4 / 6, 2 / 6]}
    # tau-b vs quality (4/6, 3/6, 2/6): e2, e3 = solved (1,1,0) → S = 2, n1 = 1, n0 = 3
    # → 2/sqrt(2·3); e4 = (1,0,0) → same; e5 = (0,0,1) → S = −2 → −2/sqrt(6);
    # e1 (all solve) and e6 (none) have a constant indicator → undefined (NaN, not counted).
    tau = hand.example_table["tau"].to_numpy()
    np.testing.assert_allclose(tau, [np.nan, SQ23, SQ23, SQ23, -SQ23, np.nan], equal_nan=True)
    assert hand.tau_neg == 1
    assert hand.suspects.to_dict("list") == {"example_id": ["e5"], "tau": [pytest.approx(-SQ23)]}


def test_hand_difficulty_and_min_rating(hand):
    # Example means: e1 1, e2 2/3, e3 2/3, e4 1/3, e5 1/3, e6 0.
    np.testing.assert_allclose(hand.example_table["mean"], [1, 2 / 3, 2 / 3, 1 / 3, 1 / 3, 0])
    # Lowest mean among solvers: e1 → s3 (2/6); e2, e3 → s2 (3/6); e4 → s1; e5 → s3; e6 none.
    np.testing.assert_allclose(hand.example_table["min_rating"],
                               [2 / 6, 3 / 6, 3 / 6, 4 / 6, 2 / 6, np.nan], equal_nan=True)
    # 10 bins of width 0.1 on [0, 1]: 0 → bin 0; 1/3 → bin 3; 2/3 → bin 6; 1 → last bin.
    assert hand.difficulty["count"].tolist() == [1, 0, 0, 2, 0, 0, 2, 0, 0, 1]
    four = benchmark_health(build_matrix(long_frame(HAND)), bins=4)
    assert four.difficulty["count"].tolist() == [1, 2, 2, 1]


def test_hand_standard_errors(hand):
    # s1 = [1,1,1,1,0,0]: sample variance (4·(1/3)² + 2·(2/3)²) / 5 = 4/15, SE = sqrt(4/15/6).
    se = hand.system_table.set_index("system")["se"]
    assert se["s1"] == pytest.approx(math.sqrt(4 / 15 / 6))
    for s, values in HAND.items():
        assert se[s] == pytest.approx(stats.sem(values))  # scipy.stats.sem, ddof = 1
    # Paired differences: s1−s2 = [0,0,0,1,0,0] var 1/6; s1−s3 = [0,1,1,1,−1,0] var 2/3;
    # s2−s3 = [0,1,1,0,−1,0] var 17/30 → median SD = sqrt(17/30).
    pairs = hand.pairs.set_index(["system_a", "system_b"])
    assert pairs.loc[("s1", "s2"), "sd_diff"] == pytest.approx(math.sqrt(1 / 6))
    assert pairs.loc[("s1", "s3"), "sd_diff"] == pytest.approx(math.sqrt(2 / 3))
    assert hand.sd_diff == pytest.approx(math.sqrt(17 / 30))
    assert hand.se_diff == pytest.approx(math.sqrt(17 / 30) / math.sqrt(6))
    r12 = stats.pearsonr(HAND["s1"], HAND["s2"]).statistic
    assert pairs.loc[("s1", "s2"), "corr"] == pytest.approx(r12)
    corrs = [stats.pearsonr(HAND[a], HAND[b]).statistic
             for a, b in (("s1", "s2"), ("s1", "s3"), ("s2", "s3"))]
    assert hand.corr == pytest.approx(float(np.median(corrs)))


def test_mdd_formula_and_statsmodels(hand):
    # MDD = (z_0.975 + z_0.8) · sd_diff / sqrt(n) = (1.959964 + 0.841621) · sqrt(17/30) / sqrt(6).
    z = stats.norm.ppf(0.975) + stats.norm.ppf(0.8)
    assert hand.mdd == pytest.approx(z * math.sqrt(17 / 30) / math.sqrt(6), rel=1e-12)
    # statsmodels' one-sample normal power (ratio=0) also counts the far tail, negligible here.
    d = NormalIndPower().solve_power(effect_size=None, nobs1=6, alpha=0.05, power=0.8, ratio=0)
    assert hand.mdd == pytest.approx(d * hand.sd_diff, rel=1e-4)


def test_p5_thresholds_hand():
    # A solves all 10, B e1–e5, D e1–e6, C nothing. Wins and sign tests:
    # A–C (10,0) p = 2/1024 sig gap 1.0; D–C (6,0) p = 2/64 = 0.031 sig gap 0.6;
    # A–B (5,0) and B–C (5,0) p = 2/32 = 0.0625 gap 0.5; A–D (4,0) p = 0.125 gap 0.4;
    # B–D (0,1) p = 1 gap 0.1.  → p5_min = 0.6, p5_max = 0.5.
    rows = {"A": [1] * 10, "B": [1] * 5 + [0] * 5, "C": [0] * 10, "D": [1] * 6 + [0] * 4}
    matrix = build_matrix(long_frame(rows))
    report = benchmark_health(matrix)
    assert (report.p5_min, report.p5_max) == (pytest.approx(0.6), pytest.approx(0.5))
    # At alpha = 0.1 the 0.0625 pairs become significant: p5_min = 0.5, p5_max = 0.4.
    loose = benchmark_health(matrix, options=TestOptions(alpha=0.1))
    assert (loose.p5_min, loose.p5_max) == (pytest.approx(0.5), pytest.approx(0.4))
    assert loose.alpha == 0.1


def test_fractional_scores_are_numeric_not_thresholded_at_half():
    # Issue #12 C. Before: fractional scores were cut at 0.5 (A "won" e1 only, since 0.5 is
    # not > 0.5) and every cell > 0 counted as solved. Now a fractional metric is numeric:
    # wins compare the scores themselves (A > B on e1 and e2), the noise test is the paired t,
    # and "solved" needs a declared threshold.
    matrix = build_matrix(long_frame({"A": [0.6, 0.5], "B": [0.5, 0.4]}))
    report = benchmark_health(matrix)
    first = report.pairs.iloc[0]
    assert (first["system_a"], first["wins_a"], first["wins_b"]) == ("A", 2, 0)
    assert report.noise_test == "paired-t" and not report.solved_defined
    assert report.no_solve == () and report.solved_by_one.empty and report.tau_neg is None
    # differences (0.1, 0.1) are constant: the paired t is infinite, p = 0 → significant
    assert report.p5_min == pytest.approx(0.1) and math.isnan(report.p5_max)
    strict = benchmark_health(matrix, threshold=0.3)
    # at 0.3 every cell is solved (score ≥ 0.3): nothing unsolved, nothing solved by one
    assert strict.solved_defined and strict.solved_rule == "score ≥ 0.3"
    assert strict.no_solve == () and strict.solved_by_one.empty and strict.tau_neg == 0
    assert strict.threshold == 0.3
    assert benchmark_health(matrix, threshold=0.55).solved_by_one["system"].tolist() == ["A"]


def test_given_ratings(hand):
    ratings = {"s1": 1500.0, "s2": 1400.0, "s3": 1600.0}
    report = benchmark_health(build_matrix(long_frame(HAND)), ratings=ratings)
    assert report.rating_source == "given"
    # Sorted by descending rating: e5 (s3, 1600) before e4 (s1, 1500).
    assert report.solved_by_one["example_id"].tolist() == ["e5", "e4"]
    assert report.example_table["min_rating"].tolist()[:2] == [1400.0, 1400.0]
    # tau keeps using the means (the definition), so the suspects do not change.
    assert report.suspects["example_id"].tolist() == hand.suspects["example_id"].tolist()
    with pytest.raises(ValueError, match="no rating for system"):
        benchmark_health(build_matrix(long_frame(HAND)), ratings={"s1": 1.0})


def test_partial_pairing_uses_common_examples():
    rows = {k: list(map(float, v)) for k, v in HAND.items()}
    rows["s3"][5] = math.nan  # s3 has no score for e6
    report = benchmark_health(build_matrix(long_frame(rows)))
    assert (report.size, report.n_dropped) == (5, 1)
    assert report.no_solve == ()  # e6 (solved by nobody) is left out
    assert health_json(report)["n_dropped"] == 1


def test_direction_and_range():
    # Lower is better on binary data: 1 − x, so the error indicator [0, 1] becomes [1, 0].
    df = long_frame({"A": [0, 1], "B": [1, 1]})
    report = benchmark_health(build_matrix(df, spec=MetricSpec(higher_is_better=False)))
    assert report.no_solve == ("e2",) and report.solved_rule == "score = 0 (lower is better)"
    # Issue #12 C: scores outside [0, 1] used to be refused; a numeric metric is analysed
    # in its own units (before: ValueError "health needs scores in [0, 1]").
    wide = benchmark_health(build_matrix(long_frame({"A": [3.0, 1.0], "B": [0.5, 2.0]})))
    assert wide.noise_test == "paired-t" and "pass1 units" in wide.units
    # lower-is-better numeric metric: solved at or below the threshold
    errors = build_matrix(long_frame({"A": [3.0, 1.0], "B": [0.5, 2.0]}),
                          spec=MetricSpec(higher_is_better=False))
    low = benchmark_health(errors, threshold=1.0)
    assert low.solved_rule == "score ≤ 1 (lower is better)"
    assert low.solved_by_one.to_dict("list")["example_id"] == ["e1", "e2"]
    with pytest.raises(ValueError, match="alpha and power"):
        benchmark_health(build_matrix(df), power=1.0)
    with pytest.raises(ValueError, match="threshold: must be a finite number"):
        benchmark_health(build_matrix(df), threshold=float("nan"))


def test_degenerate_single_system_and_example():
    one = benchmark_health(build_matrix(long_frame({"A": [1, 0, 1]})))
    assert one.pairs.empty and math.isnan(one.p5_min) and math.isnan(one.mdd)
    assert one.tau_neg == 0 and one.solved_by_one["example_id"].tolist() == ["e1", "e3"]
    single = benchmark_health(build_matrix(long_frame({"A": [1], "B": [0]})))
    assert single.size == 1 and math.isnan(single.sd_diff)
    json.dumps(health_json(single), allow_nan=True)


def test_to_dict_has_spec_keys(hand):
    out = health_json(hand)
    spec = ["size", "systems", "p5_min", "p5_max", "no_solve", "solved_by_one", "tau_neg",
            "suspects"]
    assert list(out)[2:10] == spec
    assert out["systems"] == 3 and out["suspects"] == [{"example_id": "e5", "tau": -SQ23}]
    assert out["solved_by_one"][0] == {"example_id": "e4", "system": "s1", "rating": 4 / 6}
    assert {"se_system", "se_diff", "sd_diff", "corr", "mdd", "difficulty", "examples",
            "system_stats", "alpha", "power", "threshold", "rating"} <= set(out)
    json.dumps(out, allow_nan=True)


# ----------------------------------------------------------------- real eval-arena data


@pytest.fixture(scope="module")
def arena_frame():
    from engine.io._readers import read_results

    files = sorted(glob.glob(str(ARENA / "*.jsonl.gz")))
    return pd.concat([read_results(f) for f in files], ignore_index=True)


@pytest.mark.slow
@needs_arena
def test_humaneval_plus_published_p5_min(arena_frame):
    report = benchmark_health(build_matrix(arena_frame, benchmark="humaneval+"))
    assert (report.size, len(report.systems)) == (164, 49)
    # eval-arena README: "a difference of 6.7% is the minimum required to achieve a p-value
    # of 0.05" on HumanEval+ (p5_min column of its summary page) = 11 of 164 examples.
    assert report.p5_min == pytest.approx(11 / 164)
    assert round(report.p5_min, 3) == 0.067
    # Cross-checks with scipy on the real matrix: every pair's p-value and every tau.
    pairs = report.pairs.sample(200, random_state=0)
    for row in pairs.itertuples():
        n = row.wins_a + row.wins_b
        expected = stats.binomtest(row.wins_a, n).pvalue if n else 1.0
        assert row.pvalue == pytest.approx(expected, rel=1e-9)
    matrix = build_matrix(arena_frame, benchmark="humaneval+")
    x = matrix.paired_values()
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        taus = [stats.kendalltau(x[:, e] > 0, x.mean(axis=1)).statistic for e in range(164)]
    np.testing.assert_allclose(report.example_table["tau"], taus, atol=1e-12, equal_nan=True)
    # MDD vs statsmodels' paired t-test power: the z formula is 0.6% below the t answer at n=164.
    d = TTestPower().solve_power(effect_size=None, nobs=164, alpha=0.05, power=0.8)
    assert report.mdd == pytest.approx(d * report.sd_diff, rel=0.01)


@pytest.mark.slow
@needs_arena
def test_mbpp_plus_suspects_include_the_inspected_errors(arena_frame):
    report = benchmark_health(build_matrix(arena_frame, benchmark="mbpp+"))
    top10 = set(report.suspects["example_id"].head(10))
    # eval-arena README: of the 10 most suspect MBPP+ examples, 7 are wrong on inspection:
    # 459 (wrong reference), 581, 102, 615 (contradict instruction), 558, 559, 87 (underspecified).
    inspected = {f"Mbpp/{i}" for i in (459, 581, 102, 615, 558, 559, 87)}
    assert inspected <= top10
    assert report.tau_neg == len(report.suspects)
    assert report.suspects["tau"].is_monotonic_increasing


# ----------------------------------------------------------------- numeric metrics (#12 C)

TESTS_DATA = Path(__file__).resolve().parents[2] / "data"


def _t_thresholds(x: np.ndarray, alpha: float = 0.05) -> tuple[float, float]:
    """p5_min / p5_max from scipy.stats.ttest_rel on every ordered pair (reference)."""
    ia, ja = np.nonzero(~np.eye(len(x), dtype=bool))
    p = stats.ttest_rel(x[ia], x[ja], axis=1).pvalue
    gap = np.abs(x[ia].mean(axis=1) - x[ja].mean(axis=1))
    return float(gap[p < alpha].min()), float(gap[p > alpha].max())


def test_chrf_tac2009_noise_is_measured_in_chrf_units():
    # Issue #12 C worked example: bt-eval TAC2009 ChrF++ (55 systems × 44 topics, scores in
    # [0, 0.61]). Before: thresholded at 0.5, p5_min = 100 % and p5_max = 0 % (no system
    # ever "wins" a battle). Now: paired t-tests in ChrF++ units.
    from engine.io._readers import read_results

    df = read_results(TESTS_DATA / "bt-eval" / "bt_eval_scores_long.csv.gz")
    matrix = build_matrix(df, benchmark="TAC2009", metric="Chrfpp")
    report = benchmark_health(matrix)
    assert report.noise_test == "paired-t" and report.units.startswith("Chrfpp units")
    expected = _t_thresholds(matrix.paired_values())  # scipy.stats.ttest_rel, pair by pair
    assert (report.p5_min, report.p5_max) == (pytest.approx(expected[0], rel=1e-9),
                                              pytest.approx(expected[1], rel=1e-9))
    assert 0 < report.p5_min < 0.05 and 0 < report.p5_max < 0.05  # ChrF gaps, not 100 % / 0 %
    # "solved" has no meaning without a threshold: not reported, and said so
    out = health_json(report)
    assert out["no_solve"] is None and out["solved_by_one"] is None
    assert out["tau_neg"] is None and out["suspects"] is None
    assert out["noise_test"] == "paired-t" and "threshold" in out["notes"][0]
    json.dumps(out, allow_nan=True)


@pytest.mark.slow
def test_alpaca_eval_preference_scale_is_analysed():
    # Issue #12 C: AlpacaEval 2.0 preferences on a 1–2 scale (60 systems × 805 instructions,
    # 797 shared) used to be refused ("health needs scores in [0, 1]").
    from engine.io._readers import read_results

    path = TESTS_DATA / "alpaca-eval" / "alpaca_eval2_weighted_gpt4_turbo_long.jsonl.gz"
    matrix = build_matrix(read_results(path))
    report = benchmark_health(matrix)
    assert (report.size, len(report.systems), report.noise_test) == (797, 60, "paired-t")
    expected = _t_thresholds(matrix.oriented(paired=True))
    assert report.p5_min == pytest.approx(expected[0], rel=1e-9)
    assert report.p5_max == pytest.approx(expected[1], rel=1e-9)
    lo, hi = report.difficulty["bin_low"].iloc[0], report.difficulty["bin_high"].iloc[-1]
    assert 1.0 <= lo < hi <= 2.0  # the histogram spans the example means, not [0, 1]
    # with a declared threshold (preference ≥ 1.5: the annotator prefers the system)
    solved = benchmark_health(matrix, threshold=1.5)
    assert solved.solved_defined and solved.tau_neg == len(solved.suspects)
    x = matrix.paired_values()
    assert len(solved.no_solve) == int(((x >= 1.5).sum(axis=0) == 0).sum())


@settings(max_examples=40)
@given(hnp.arrays(float, st.tuples(st.integers(2, 5), st.integers(3, 12)),
                  elements=st.floats(-50, 50, allow_nan=False, width=32)))
def test_numeric_pvalues_match_scipy_ttest_rel(x):
    if np.unique(x).size < 3:  # nearly constant data: scipy's p-values degenerate differently
        return
    rows = {f"s{i}": list(map(float, r)) for i, r in enumerate(x)}
    matrix = build_matrix(long_frame(rows), spec=MetricSpec(binary=False))
    report = benchmark_health(matrix)
    pairs = report.pairs
    a = pairs["system_a"].str[1:].astype(int).to_numpy()
    b = pairs["system_b"].str[1:].astype(int).to_numpy()
    d = x[a] - x[b]
    varying = d.std(axis=1) > 1e-6 * np.abs(x).max()
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        expected = stats.ttest_rel(x[a], x[b], axis=1).pvalue
    np.testing.assert_allclose(pairs["pvalue"].to_numpy()[varying], expected[varying],
                               rtol=1e-6, atol=1e-12)
    np.testing.assert_allclose(pairs["gap"], np.abs(d.mean(axis=1)), rtol=1e-6, atol=1e-6)


def test_binary_metric_ignores_a_threshold(hand):
    again = benchmark_health(build_matrix(long_frame(HAND)), threshold=0.3)
    assert again.threshold is None and again.solved_rule == "score = 1"
    assert again.noise_test == "sign" and again.units.startswith("fraction of examples")
    assert again.no_solve == hand.no_solve and again.p5_max == hand.p5_max


# ----------------------------------------------------------------- command line


def _run(argv, capsys):
    from engine.cli.health import register

    parser = argparse.ArgumentParser()
    register(parser.add_subparsers())
    args = parser.parse_args(argv)
    code = args.handler(args)
    return code, capsys.readouterr().out


@pytest.mark.slow
@needs_arena
def test_cli_all_seven_benchmarks_in_one_command(capsys):
    files = sorted(glob.glob(str(ARENA / "*.jsonl.gz")))
    assert len(files) == 8  # humaneval_hf shares the benchmark id "humaneval"
    code, out = _run(["health", *files, "--format", "json"], capsys)
    assert code == 0
    objects = json.loads(out)
    by_name = {o["benchmark"]: o for o in objects}
    assert len(objects) == 7 and len(by_name) == 7
    assert by_name["humaneval"]["systems"] == 78  # 49 + 29 (data README)
    assert by_name["humaneval+"]["p5_min"] == pytest.approx(11 / 164)
    assert by_name["CRUXEval-input"]["size"] == 800


@needs_arena
@pytest.mark.slow
def test_cli_one_benchmark_is_one_object_and_table(capsys):
    path = str(ARENA / "humaneval+.jsonl.gz")
    code, out = _run(["health", path, "--format", "json", "--alpha", "0.1"], capsys)
    obj = json.loads(out)
    assert code == 0 and isinstance(obj, dict)
    assert (obj["benchmark"], obj["size"], obj["alpha"]) == ("humaneval+", 164, 0.1)
    code, out = _run(["health", path], capsys)
    assert code == 0 and "humaneval+" in out and "p5_min" in out


@pytest.mark.slow
def test_cli_unknown_benchmark_exits_2(tmp_path, capsys):
    from engine.cli import main

    path = tmp_path / "r.csv"
    long_frame(HAND).to_csv(path, index=False)
    assert main(["health", str(path), "--benchmark", "nope"]) == 2
    assert "nope" in capsys.readouterr().err
    assert main(["health", str(path), "--format", "json"]) == 0
    assert json.loads(capsys.readouterr().out)["no_solve"] == ["e6"]


@pytest.mark.slow
def test_cli_skips_unusable_slices_when_processing_several(tmp_path, capsys):
    from engine.cli import main

    good = long_frame(HAND)
    # unusable: no example scored by every system (a BLEU-like 0..40 scale is fine since #12)
    bad = good.assign(metric="bleu", value=good["value"] * 40,
                      example_id=good["system"] + "-" + good["example_id"])
    path = tmp_path / "r.csv"
    pd.concat([good, bad]).to_csv(path, index=False)
    assert main(["health", str(path), "--format", "json"]) == 0
    captured = capsys.readouterr()
    objects = json.loads(captured.out)
    assert isinstance(objects, list) and [o["metric"] for o in objects] == ["pass1"]
    assert "skipped" in captured.err and "bleu" in captured.err
    # Asked for explicitly, the unusable slice is an error (exit code 2).
    assert main(["health", str(path), "--metric", "bleu"]) == 2
