"""pairwise_tests against published reference values, plus its options and degenerate cases.

Reference values and where they come from are given next to each test.
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence

import numpy as np
import pandas as pd
import pytest
from scipy import stats

from engine._contract import MetricSpec, validate_long
from engine._matrix import ScoreMatrix as ScoreMatrix
from engine._matrix import build_matrix
from engine.stats._pairwise import TABLE_COLUMNS, _adjust, pairwise_tests


def _matrix(scores: Mapping[str, Sequence[float]], *, shared: bool = True,
            higher_is_better: bool = True) -> ScoreMatrix:
    """A ScoreMatrix from per-system score lists; ``shared=False`` gives every system its own
    example ids (no pairing at all)."""
    spec = MetricSpec(higher_is_better=higher_is_better)
    if shared:
        return ScoreMatrix.from_array(scores, benchmark="bench", metric="m", spec=spec)
    # each system on its own examples: a block-diagonal matrix, NaN elsewhere
    widths = [len(v) for v in scores.values()]
    x = np.full((len(scores), sum(widths)), np.nan)
    for i, (vals, start) in enumerate(zip(scores.values(), np.cumsum([0, *widths]), strict=False)):
        x[i, start:start + len(vals)] = vals
    return ScoreMatrix.from_array(x, systems=list(scores), benchmark="bench", metric="m", spec=spec)


def _one(res: object) -> pd.Series:
    table = res.table  # type: ignore[attr-defined]
    assert len(table) == 1
    return table.iloc[0]


# R's `sleep` data set (Cushny & Peebles 1905; datasets::sleep): extra hours of sleep.
SLEEP_1 = [0.7, -1.6, -0.2, -1.2, -0.1, 3.4, 3.7, 0.8, 0.0, 2.0]
SLEEP_2 = [1.9, 0.8, 1.1, 0.1, -0.1, 4.4, 5.5, 1.6, 4.6, 3.4]


# ---------------------------------------------------------------- reference values


def test_holm_sidak_reference() -> None:
    # R: multtest::mt.rawp2adjp(p, "SidakSD") on these ten p-values gives
    # 0.0099551 0.0178567 0.0237495 0.0276662 0.0296275 then 0.2262191 ×5.
    p = np.array([.001, .002, .003, .004, .005, .05, .06, .07, .08, .09])
    expected = [0.0099551, 0.0178567, 0.0237495, 0.0276662, 0.0296275] + [0.2262191] * 5
    np.testing.assert_allclose(_adjust(p, "holm-sidak", 0.05), expected, atol=5e-8)


def test_other_corrections() -> None:
    # Holm (1979) and Bonferroni by hand; Benjamini–Hochberg (1995) step-up by hand.
    p = np.array([0.01, 0.04, 0.03, 0.5])
    np.testing.assert_allclose(_adjust(p, "bonferroni", 0.05), [0.04, 0.16, 0.12, 1.0])
    np.testing.assert_allclose(_adjust(p, "holm", 0.05), [0.04, 0.09, 0.09, 0.5])
    np.testing.assert_allclose(_adjust(p, "fdr_bh", 0.05), [0.04, 0.05333333, 0.05333333, 0.5])
    np.testing.assert_array_equal(_adjust(p, "none", 0.05), p)
    assert _adjust(np.array([]), "holm-sidak", 0.05).shape == (0,)
    # p = 1 must not produce NaN/warnings through Šidák's log(1 - p)
    np.testing.assert_array_equal(_adjust(np.array([1.0, 1.0]), "holm-sidak", 0.05), [1.0, 1.0])


def test_exact_mcnemar_reference() -> None:
    # Fagerland, Lydersen & Laake (2013), BMC Med Res Methodol 13:91: b = 1, c = 7
    # discordant pairs → exact conditional McNemar p = 0.0703125 (= 2 · P(Bin(8, ½) ≤ 1) = 18/256).
    a = [1] * 7 + [0] * 1 + [1] * 6 + [0] * 4  # 7 examples only A solves, 1 only B solves
    b = [0] * 7 + [1] * 1 + [1] * 6 + [0] * 4  # plus 6 + 4 concordant examples
    res = pairwise_tests(_matrix({"A": a, "B": b}))
    row = _one(res)
    assert res.test == "mcnemar" and res.paired
    assert row["pvalue"] == pytest.approx(0.0703125, abs=1e-12)
    assert row["statistic"] == 1  # statsmodels' exact McNemar reports min(b, c)
    assert (row["wins_a"], row["wins_b"]) == (7, 1)
    assert row["n"] == 18
    assert row["a_better"] and not row["significant"]
    assert row["effect_name"] == "paired_d"
    d = np.array(a, float) - np.array(b, float)
    assert row["effect_size"] == pytest.approx(d.mean() / d.std(ddof=1))  # paired d_z


def test_welch_t_sleep_reference() -> None:
    # R: t.test(extra ~ group, data = sleep) → t = -1.8608, df = 17.776, p-value = 0.07939
    res = pairwise_tests(_matrix({"g1": SLEEP_1, "g2": SLEEP_2}), paired=False)
    row = _one(res)
    assert res.test == "t" and not res.paired
    assert row["statistic"] == pytest.approx(-1.8608, abs=5e-5)
    assert row["df"] == pytest.approx(17.776, abs=5e-4)
    assert row["pvalue"] == pytest.approx(0.07939, abs=5e-6)
    assert row["n"] == 20
    assert row["effect_name"] == "cohen_d"
    # Cohen's d with pooled SD (equal n: sqrt of the mean of the variances)
    sp = math.sqrt((np.var(SLEEP_1, ddof=1) + np.var(SLEEP_2, ddof=1)) / 2)
    assert row["effect_size"] == pytest.approx((np.mean(SLEEP_1) - np.mean(SLEEP_2)) / sp)
    assert "Unpaired tests on data that shares examples" in res.notes[0]


def test_paired_t_sleep_reference() -> None:
    # R: t.test(sleep$extra[1:10], sleep$extra[11:20], paired = TRUE)
    #    → t = -4.0621, df = 9, p-value = 0.002833
    for paired in (True, None):  # explicit, and chosen automatically for full overlap
        res = pairwise_tests(_matrix({"g1": SLEEP_1, "g2": SLEEP_2}), paired=paired)
        row = _one(res)
        assert res.test == "paired-t" and res.paired
        assert row["statistic"] == pytest.approx(-4.0621, abs=5e-5)
        assert row["df"] == 9
        assert row["pvalue"] == pytest.approx(0.002833, abs=5e-7)
        assert row["significant"] and not row["a_better"]
        # paired Cohen's d_z = mean diff / SD diff = t / sqrt(n)
        assert row["effect_size"] == pytest.approx(-4.0621 / math.sqrt(10), abs=2e-5)
        assert (row["wins_a"], row["wins_b"]) == (0, 9)  # one tie: -0.1 vs -0.1


def test_two_proportion_reference() -> None:
    # R: prop.test(c(73, 90), c(86, 93), correct = FALSE) → X-squared = 7.7611, p-value = 0.005338
    # (the χ² test equals the pooled two-proportion z-test: z² = X-squared)
    m = _matrix({"A": [1] * 73 + [0] * 13, "B": [1] * 90 + [0] * 3}, shared=False)
    assert m.pairing == "none"
    res = pairwise_tests(m)
    row = _one(res)
    assert res.test == "z" and not res.paired
    assert "fewer than 2 examples are shared" in res.reason
    assert row["pvalue"] == pytest.approx(0.0053382, abs=5e-8)
    assert row["statistic"] ** 2 == pytest.approx(7.7611, abs=5e-4)
    assert row["statistic"] < 0
    assert row["n"] == 179
    assert row["effect_name"] == "cohen_h"
    assert (row["wins_a"], row["wins_b"]) == (0, 0)  # no battles without pairing


def test_cohens_h_reference() -> None:
    # Cohen (1988), ch. 6: h = 2 asin √p1 − 2 asin √p2; h(0.65, 0.45) = 0.40486
    m = _matrix({"A": [1] * 65 + [0] * 35, "B": [1] * 45 + [0] * 55}, shared=False)
    row = _one(pairwise_tests(m))
    assert row["effect_size"] == pytest.approx(0.40486, abs=5e-6)
    assert row["mean_a"] == pytest.approx(0.65) and row["mean_b"] == pytest.approx(0.45)


# ---------------------------------------------------------------- the result object


def test_table_columns_and_pair_order() -> None:
    rng = np.random.default_rng(0)
    scores = {s: rng.normal(size=12) for s in "ABCD"}
    res = pairwise_tests(_matrix(scores))
    assert tuple(res.table.columns) == TABLE_COLUMNS
    assert list(zip(res.table["system_a"], res.table["system_b"], strict=True)) == [
        ("A", "B"), ("A", "C"), ("A", "D"), ("B", "C"), ("B", "D"), ("C", "D")]
    assert res.systems == ("A", "B", "C", "D")
    assert res.benchmark == "bench" and res.metric == "m"
    assert (res.alpha, res.correction, res.compare, res.alternative, res.criterion) == (
        0.05, "holm-sidak", "all", "two-sided", "pvalue")
    assert res.wins is not None and res.wins.shape == (4, 4)


def test_compare_first_and_successive() -> None:
    rng = np.random.default_rng(1)
    scores = {s: rng.normal(size=12) for s in "ABCD"}
    first = pairwise_tests(_matrix(scores), compare="first")
    assert list(zip(first.table["system_a"], first.table["system_b"], strict=True)) == [
        ("A", "B"), ("A", "C"), ("A", "D")]
    succ = pairwise_tests(_matrix(scores), compare="successive", order=["D", "B", "A", "C"])
    assert list(zip(succ.table["system_a"], succ.table["system_b"], strict=True)) == [
        ("D", "B"), ("B", "A"), ("A", "C")]
    assert succ.systems == ("D", "B", "A", "C")
    # the same pair has the same raw p-value whichever set it is tested in
    full = pairwise_tests(_matrix(scores)).table.set_index(["system_a", "system_b"])["pvalue"]
    assert first.table["pvalue"].tolist() == pytest.approx(
        [full[("A", "B")], full[("A", "C")], full[("A", "D")]])


def test_matrix_view_is_antisymmetric_for_signed_columns() -> None:
    res = pairwise_tests(_matrix({"A": SLEEP_1, "B": SLEEP_2, "C": SLEEP_2[::-1]}))
    p = res.matrix()
    assert list(p.index) == ["A", "B", "C"]
    assert np.isnan(np.diag(p.to_numpy())).all()
    np.testing.assert_array_equal(p.to_numpy(), p.to_numpy().T)
    t = res.matrix("statistic").to_numpy()
    np.testing.assert_allclose(t, -t.T)
    assert t[0, 1] == pytest.approx(-4.0621, abs=5e-5)


def test_lower_is_better_flips_direction_not_means() -> None:
    # Same sleep data, metric declared lower-is-better: g1 (smaller) is now the better system.
    res = pairwise_tests(_matrix({"g1": SLEEP_1, "g2": SLEEP_2}, higher_is_better=False))
    row = _one(res)
    assert row["statistic"] == pytest.approx(4.0621, abs=5e-5)
    assert row["effect_size"] > 0 and row["a_better"]
    assert row["mean_a"] == pytest.approx(0.75) and row["diff"] == pytest.approx(-1.58)
    # binary lower-is-better (e.g. an error flag): wins are counted on 1 - x
    res = pairwise_tests(_matrix({"A": [0, 0, 0, 1], "B": [1, 1, 1, 1]}, higher_is_better=False))
    row = _one(res)
    assert (row["wins_a"], row["wins_b"]) == (3, 0) and row["a_better"]


def test_partial_overlap_pairs_on_the_pairs_own_examples_and_says_so() -> None:
    # 12 shared examples (≥ MIN_PAIRED_OVERLAP = 10), plus 2 only A has and 1 only B has
    rows = {"A": [1, 0, 1, 1, 0, 1] * 2, "B": [0, 0, 1, 1, 1, 0] * 2}
    df = pd.DataFrame(
        [("b", s, f"e{i:02d}", "m", v) for s, vals in rows.items() for i, v in enumerate(vals)]
        + [("b", "A", "extra1", "m", 1), ("b", "A", "extra2", "m", 0), ("b", "B", "extra3", "m", 1)],
        columns=["benchmark", "system", "example_id", "metric", "value"])
    m = build_matrix(validate_long(df))
    res = pairwise_tests(m)
    row = _one(res)
    assert res.paired and res.test == "mcnemar" and row["paired"]
    assert "each pair paired on the examples it shares" in res.reason
    assert row["n"] == 12
    assert (row["wins_a"], row["wins_b"]) == (4, 2)
    assert res.notes and "n per pair: 12–12" in res.notes[0]
    assert "A: 1" in res.notes[0] and "B: 2" in res.notes[0]  # examples each system lacks
    # the user may switch to unpaired: every example of each system is used
    un = pairwise_tests(m, paired=False)
    assert un.test == "z" and _one(un)["n"] == 14 + 13 and not _one(un)["paired"]


def test_pairs_sharing_few_examples_are_tested_unpaired() -> None:
    # A and B share 12 examples; C shares only 2 with each: no paired t with 1 df
    a, b = [1.0, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12], [2.0, 2, 4, 4, 6, 6, 8, 8, 10, 9, 12, 13]
    c = [5.0, 7.0] + [np.nan] * 10
    res = pairwise_tests(ScoreMatrix.from_array({"A": a, "B": b, "C": c}))
    t = res.table.set_index(["system_a", "system_b"])
    assert t.loc[("A", "B"), "paired"] and t.loc[("A", "B"), "test"] == "paired-t"
    assert t.loc[("A", "B"), "n"] == 12
    for pair in (("A", "C"), ("B", "C")):
        assert not t.loc[pair, "paired"] and t.loc[pair, "test"] == "t"
        assert t.loc[pair, "n"] == 12 + 2  # each system's own examples
    assert any("share fewer than 10" in n for n in res.notes)


def test_forcing_paired_without_overlap_is_an_error() -> None:
    m = _matrix({"A": [1, 0, 1], "B": [0, 1, 1]}, shared=False)
    with pytest.raises(ValueError, match="paired test is impossible"):
        pairwise_tests(m, paired=True)


@pytest.mark.parametrize(("kwargs", "message"), [
    ({"test": "anova"}, "test: must be one of"),
    ({"alternative": "bigger"}, "alternative: must be one of"),
    ({"compare": "some"}, "compare: must be one of"),
    ({"correction": "sidak"}, "correction: must be one of"),
    ({"criterion": "huge"}, "criterion: must be one of"),
    ({"alpha": 0.0}, "alpha: must be strictly between 0 and 1"),
    ({"alpha": 1.0}, "alpha: must be strictly between 0 and 1"),
    ({"n_resamples": 0}, "n_resamples: must be a positive integer"),
    ({"test": "permutation", "criterion": "small"}, "permutation test has no effect size"),
    ({"test": "t"}, "needs unpaired data"),
    ({"test": "mcnemar", "paired": False}, "needs paired data"),
    ({"test": "mcnemar"}, "needs binary"),
    ({"test": "z", "paired": False}, "needs binary"),
    ({"order": ["g1", "nobody"]}, "unknown system"),
])
def test_bad_options(kwargs: dict[str, object], message: str) -> None:
    with pytest.raises(ValueError, match=message):
        pairwise_tests(_matrix({"g1": SLEEP_1, "g2": SLEEP_2}), **kwargs)  # type: ignore[arg-type]


def test_effect_size_criterion() -> None:
    # sleep: paired d_z = -1.2846 (large); Welch's pooled d = -0.832 (large), p = 0.079
    m = _matrix({"g1": SLEEP_1, "g2": SLEEP_2})
    un = pairwise_tests(m, paired=False, criterion="large")
    # |d| ≥ 0.8 but p > 0.05: an effect size alone never makes a pair significant
    assert not bool(_one(un)["significant"])
    assert _one(un)["criterion_effect_name"] == "cohen_d"
    assert not bool(_one(pairwise_tests(m, paired=False))["significant"])
    # one-sided: the effect must point in the alternative's direction
    assert not bool(_one(pairwise_tests(m, alternative="greater", criterion="small"))["significant"])
    assert bool(_one(pairwise_tests(m, alternative="less", criterion="small"))["significant"])


def test_one_sided_alternatives_sleep() -> None:
    # one-sided p is half of R's two-sided paired p-value 0.002833 (t < 0, symmetric t
    # distribution): 0.0014165 for "less", 1 - 0.0014165 for "greater"
    m = _matrix({"g1": SLEEP_1, "g2": SLEEP_2})
    assert _one(pairwise_tests(m, alternative="less"))["pvalue"] == pytest.approx(0.0014165, abs=1e-6)
    assert _one(pairwise_tests(m, alternative="greater"))["pvalue"] == pytest.approx(1 - 0.0014165,
                                                                                    abs=1e-6)


def test_adjusted_pvalues_in_table() -> None:
    rng = np.random.default_rng(3)
    scores = {s: rng.normal(loc=i * 0.3, size=20) for i, s in enumerate("ABCDE")}
    for correction in ("holm-sidak", "holm", "bonferroni", "fdr_bh", "none"):
        res = pairwise_tests(_matrix(scores), correction=correction)
        np.testing.assert_allclose(res.table["pvalue_adj"],
                                   _adjust(res.table["pvalue"].to_numpy(), correction, 0.05))
        assert (res.table["significant"] == (res.table["pvalue_adj"] < 0.05)).all()


def test_permutation_is_reproducible_with_a_seed() -> None:
    rng = np.random.default_rng(4)
    x = rng.normal(size=(3, 30))  # 2^30 sign patterns: Monte Carlo, not exact
    m = _matrix({s: x[i] for i, s in enumerate("ABC")})
    a = pairwise_tests(m, test="permutation", n_resamples=999, seed=7).table["pvalue"]
    b = pairwise_tests(m, test="permutation", n_resamples=999, seed=7).table["pvalue"]
    np.testing.assert_array_equal(a, b)
    # Monte Carlo p-values are (1 + hits) / (1 + n_resamples): never 0
    assert (a >= 1 / 1000).all()
    assert (pairwise_tests(m, test="permutation", seed=7).table["effect_name"] == "none").all()


# ---------------------------------------------------------------- degenerate cases
# Documented in engine.stats._pairwise.pairwise_tests (Notes) and engine.stats._kernels.


@pytest.mark.parametrize("test", ["paired-t", "wilcoxon", "sign", "permutation"])
def test_identical_columns_numeric(test: str) -> None:
    res = pairwise_tests(_matrix({"A": [1.0, 2.0, 3.5, 0.5], "B": [1.0, 2.0, 3.5, 0.5]}), test=test)
    row = _one(res)
    assert row["pvalue"] == 1.0 and row["pvalue_adj"] == 1.0
    assert row["statistic"] == 0
    if test != "permutation":
        assert row["effect_size"] == 0
    assert not row["significant"] and not row["a_better"]


def test_identical_columns_binary_and_unpaired() -> None:
    same = [1, 0, 1, 1]
    row = _one(pairwise_tests(_matrix({"A": same, "B": same})))
    assert (row["statistic"], row["pvalue"], row["effect_size"]) == (0, 1.0, 0)
    for test in ("t", "z"):
        row = _one(pairwise_tests(_matrix({"A": same, "B": same}), paired=False, test=test))
        assert (row["statistic"], row["pvalue"], row["effect_size"]) == (0, 1.0, 0)


def test_constant_difference_paired_t() -> None:
    # zero-variance, non-zero difference → statistic ±inf, effect ±inf, and the exact
    # sign-flip p-value: the constant pattern is 1 of 2^n equally likely sign patterns,
    # so p = 2^(1-n) two-sided (0.125 for n = 4) and 2^-n one-sided, never 0
    a, b = [2.0, 3.0, 4.5, 1.5], [1.0, 2.0, 3.5, 0.5]
    m = _matrix({"A": a, "B": b})
    row = _one(pairwise_tests(m))
    assert row["statistic"] == math.inf and row["pvalue"] == 0.125 and row["effect_size"] == math.inf
    assert not row["significant"] and row["a_better"]
    assert _one(pairwise_tests(m, alternative="greater"))["pvalue"] == 0.0625
    assert _one(pairwise_tests(m, alternative="less"))["pvalue"] == 1.0
    flipped = _one(pairwise_tests(_matrix({"A": b, "B": a})))
    assert flipped["statistic"] == -math.inf and flipped["pvalue"] == 0.125


def test_constant_difference_is_robust_to_rounding() -> None:
    # differences 0.1 each, which are not exactly equal in float64 (0.3 - 0.2 != 0.1):
    # the Gram-matrix variance is rounding noise and must count as zero.
    a = np.array([0.3, 1.1, 2.7, 5.3, 0.9])
    row = _one(pairwise_tests(_matrix({"A": a + 0.1, "B": a})))
    assert row["statistic"] == math.inf and row["pvalue"] == 2.0 ** (1 - 5)  # exact, n = 5


def test_constant_samples_welch() -> None:
    # both samples constant but different: zero variance → ±inf, p = 0
    row = _one(pairwise_tests(_matrix({"A": [2.0, 2.0, 2.0], "B": [1.0, 1.0, 1.0]}), paired=False))
    assert row["statistic"] == math.inf and row["pvalue"] == 0.0


def test_no_discordant_pairs() -> None:
    # McNemar/sign with b = c = 0 → p = 1, statistic 0, though the columns differ nowhere
    same = [1, 1, 0, 0, 1]
    for test in ("mcnemar", "sign"):
        row = _one(pairwise_tests(_matrix({"A": same, "B": same}), test=test))
        assert (row["wins_a"], row["wins_b"], row["statistic"], row["pvalue"]) == (0, 0, 0, 1.0)
    # numeric ties only: the sign test has no decisive pair either
    row = _one(pairwise_tests(_matrix({"A": [0.5, 0.5], "B": [0.5, 0.5]}), test="sign"))
    assert row["pvalue"] == 1.0


def test_all_discordant_one_way_is_exact() -> None:
    # b = 5, c = 0 → two-sided exact p = 2 / 2^5 = 0.0625 (not 0, unlike the t-test)
    row = _one(pairwise_tests(_matrix({"A": [1] * 5, "B": [0] * 5})))
    assert row["pvalue"] == pytest.approx(0.0625)
    assert row["statistic"] == 0 and (row["wins_a"], row["wins_b"]) == (5, 0)


def test_single_system_is_an_error() -> None:
    m = _matrix({"A": [1.0, 2.0], "B": [1.0, 3.0]}).subset(["A"])
    with pytest.raises(ValueError, match="at least 2 systems are needed to compare; got 1"):
        pairwise_tests(m)
    with pytest.raises(ValueError, match="got 1"):
        pairwise_tests(_matrix({"A": [1.0, 2.0], "B": [1.0, 3.0]}), order=["B"])


def test_single_example_binary() -> None:
    # one shared example: fewer than 2 → unpaired two-proportion z (defined, not significant)
    res = pairwise_tests(_matrix({"A": [1], "B": [0]}))
    row = _one(res)
    assert not res.paired and res.test == "z"
    assert 0.0 <= row["pvalue"] <= 1.0
    assert row["pvalue"] == pytest.approx(2 * stats.norm.sf(math.sqrt(2)))  # z = 1/sqrt(.25·2)
    assert not row["significant"]
    row = _one(pairwise_tests(_matrix({"A": [1], "B": [1]})))
    assert (row["statistic"], row["pvalue"]) == (0, 1.0)


def test_single_example_numeric() -> None:
    # One example per system: no variance estimate, so Welch's t is undefined. Documented
    # answer (pairwise_tests Notes): statistic NaN, p = 1 — no evidence either way.
    res = pairwise_tests(_matrix({"A": [0.5], "B": [0.2], "C": [0.5]}))
    assert res.test == "t" and not res.paired
    t = res.table
    assert t["statistic"].isna().all()
    assert (t["pvalue"] == 1.0).all() and (t["pvalue_adj"] == 1.0).all()
    assert not t["significant"].any()


def test_single_score_side_welch() -> None:
    # A scored on 1 example, B on 4 (no overlap): A's side has no variance → p = 1
    rows = [("b", "A", "a0", "m", 0.9)] + [("b", "B", f"b{i}", "m", v)
                                           for i, v in enumerate([0.1, 0.2, 0.15, 0.12])]
    df = pd.DataFrame(rows, columns=["benchmark", "system", "example_id", "metric", "value"])
    row = _one(pairwise_tests(build_matrix(validate_long(df))))
    assert np.isnan(row["statistic"]) and row["pvalue"] == 1.0 and not row["significant"]


def test_unpaired_permutation_on_pairable_data() -> None:
    # A = [1, 2, 3], B = [4, 5, 6] share their example ids, but the user asks for unpaired
    # tests. Two-sample permutation test of the mean difference: of the C(6, 3) = 20 splits,
    # only the observed one reaches -3 (and one reaches +3) → p = 2 · 1/20 = 0.1
    # (scipy.stats.permutation_test, permutation_type="independent"). The paired sign-flip
    # test gives 2/8 = 0.25 instead.
    a, b = np.array([1.0, 2.0, 3.0]), np.array([4.0, 5.0, 6.0])
    ref = stats.permutation_test((a, b), lambda u, v, axis: u.mean(axis) - v.mean(axis),
                                 permutation_type="independent", vectorized=True,
                                 n_resamples=np.inf)
    assert ref.pvalue == pytest.approx(0.1)
    res = pairwise_tests(_matrix({"A": a, "B": b}), test="permutation", paired=False)
    assert not res.paired
    assert _one(res)["pvalue"] == pytest.approx(0.1)  # the paired sign-flip test would give 0.25


@pytest.mark.parametrize("alternative", ["greater", "less"])
@pytest.mark.parametrize(("test", "paired"), [
    ("mcnemar", True), ("sign", True), ("wilcoxon", True), ("permutation", True),
    ("auto", True),
])
def test_identical_columns_one_sided(test: str, paired: bool, alternative: str) -> None:
    # pairwise_tests Notes: "identical scores → statistic 0, p = 1, effect 0" — with no
    # alternative singled out. McNemar/sign/Wilcoxon/permutation give p = 1 for both one-sided
    # alternatives; the t- and z-tests give 0.5 (the CDF at statistic 0).
    for same in ([1.0, 0.0, 1.0, 1.0], [0.5, 2.0, 1.25, 3.0]):
        if test == "mcnemar" and same[1] == 2.0:
            continue
        res = pairwise_tests(_matrix({"A": same, "B": same}), test=test, paired=paired,
                             alternative=alternative)
        row = _one(res)
        assert row["statistic"] == 0
        assert row["pvalue"] == 1.0


@pytest.mark.parametrize("alternative", ["greater", "less"])
def test_unpaired_equal_means_one_sided_is_one_half(alternative: str) -> None:
    # Unpaired samples with equal means but spread: t = 0 and a one-sided p of 0.5, exactly as
    # scipy.stats.ttest_ind(equal_var=False) (only *paired* identical columns, where every
    # difference is 0, get the documented p = 1).
    same = [0.5, 2.0, 1.25, 3.0]
    ref = stats.ttest_ind(same, same, equal_var=False, alternative=alternative)
    row = _one(pairwise_tests(_matrix({"A": same, "B": same}), paired=False, alternative=alternative))
    assert row["statistic"] == pytest.approx(ref.statistic)
    assert row["pvalue"] == pytest.approx(ref.pvalue) == 0.5


@pytest.mark.filterwarnings("ignore:Precision loss:RuntimeWarning")  # scipy, on the constant sample
def test_welch_with_one_constant_sample() -> None:
    # one side has zero variance, the other not: Welch's t is still defined (df = n_b - 1);
    # reference: scipy.stats.ttest_ind(equal_var=False)
    a, b = [1.0, 1.0, 1.0], [0.0, 1.0, 2.0, 3.5]
    row = _one(pairwise_tests(_matrix({"A": a, "B": b}, shared=False)))
    ref = stats.ttest_ind(a, b, equal_var=False)
    assert row["statistic"] == pytest.approx(ref.statistic)
    assert row["pvalue"] == pytest.approx(ref.pvalue)
    assert row["df"] == pytest.approx(3.0)


def test_single_score_sides_are_not_significant_by_effect_size() -> None:
    res = pairwise_tests(_matrix({"A": [0.5], "B": [0.2]}), criterion="large")
    row = _one(res)
    assert row["pvalue"] == 1.0
    assert np.isnan(row["effect_size"])  # undefined like the statistic
    assert not row["significant"]
