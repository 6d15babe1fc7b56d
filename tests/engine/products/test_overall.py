"""The overall leaderboard: coverage, units, an earned direction, and pairs combined across
metrics or benchmarks (Ackerman et al. 2025, arXiv:2501.18243, §6–7; issue #25).

References: with one benchmark the overall leaderboard must be :func:`engine.leaderboard`
itself (same significant pairs, rank ranges, ranks; score = 100 × mean, interval = its
Wilson interval); the percent score against the weighted mean of the benchmarks'
leaderboard means computed here; the correlation against ``numpy.corrcoef``; the
combined p-value of one benchmark against that benchmark's own p-value; pairs across
metrics against harmonicmeanp (via :func:`engine.across._hmp.harmonic_mean_p`, itself
checked against the package vignette) and statsmodels' ``combine_effects``. Data: the
bundled Eval-Arena files in ``data/`` (data/README.md), bt-eval dialogue scores
(tests/data/overall/README.md), and simulated reversals.
"""

from pathlib import Path

import numpy as np
import pandas as pd
import pytest
from hypothesis import HealthCheck, Phase, given, settings
from hypothesis import strategies as st
from statsmodels.stats.meta_analysis import combine_effects

from engine._contract import validate_long
from engine._matrix import build_matrix
from engine._options import TestOptions
from engine.across._combine import combine_differences, shared_correlation
from engine.across._coverage import default_selection
from engine.across._hmp import harmonic_mean_p
from engine.across._meta import corrected_effect
from engine.across._pairs_across import PAIRS_ACROSS_COLUMNS, pairs_across
from engine.io._readers import read_results
from engine.products._leaderboard import leaderboard
from engine.products._overall import overall
from engine.products._overall_pairs import BETTER, MIXED
from engine.report._overall_json import overall_document
from engine.stats._pairwise import pairwise_tests

ROOT = Path(__file__).resolve().parents[3]
DATA = ROOT / "tests" / "data" / "overall" / "bt_eval_dialogue.csv.gz"
METRICS = ("ROUGE_L", "BERTScore", "JS_2")
CODE = ("humaneval", "humaneval+", "mbpp", "mbpp+")


@pytest.fixture(scope="module")
def long():
    return validate_long(pd.read_csv(DATA, dtype={"example_id": str}))


@pytest.fixture(scope="module")
def code():
    """The four bundled code benchmarks (data/README.md: Eval-Arena)."""
    return pd.concat([read_results(ROOT / "data" / f"{b}.jsonl.gz") for b in CODE],
                     ignore_index=True)


@pytest.fixture(scope="module")
def code_result(code):
    return overall(code, benchmarks=list(CODE))


def _reversal(names=("A", "B"), n=200) -> pd.DataFrame:
    """Issue #25's reversal: A at 0.8 on b1 and 0.5 on b2, B the reverse, 200 examples each."""
    rows = []
    for bench, (pa, pb) in {"b1": (0.8, 0.5), "b2": (0.5, 0.8)}.items():
        for system, p in zip(names, (pa, pb), strict=True):
            k = round(p * n)
            rows.append(pd.DataFrame({"benchmark": bench, "system": system,
                                      "example_id": [f"{bench}-{i}" for i in range(n)],
                                      "metric": "pass1", "value": [1.0] * k + [0.0] * (n - k)}))
    return pd.concat(rows, ignore_index=True)


# ------------------------------------------------------------------ coverage and selection


@pytest.mark.slow
def test_complete_systems_are_ranked_above_every_partial_one(code_result):
    out = overall_document(code_result)
    systems = out["systems"]
    ranked = [s for s in systems if s["rank"] is not None]
    partial = [s for s in systems if s["rank"] is None]
    assert len(ranked) == 37  # data/README.md: 37 systems ran all four
    assert all(set(s["coverage"]) == set(CODE) for s in ranked)
    assert all(len(s["coverage"]) < 4 for s in partial)
    assert systems[:len(ranked)] == ranked  # every complete one before every partial one
    assert "gpt-4-1106-preview" in {s["system"] for s in partial}  # no humaneval results
    assert [s["rank"] for s in ranked] == sorted(s["rank"] for s in ranked)


def test_default_selection_is_the_largest_complete_block(code):
    sel = default_selection(code)
    assert set(sel.benchmarks) == set(CODE) and len(sel.complete) == 37


@pytest.mark.slow
def test_partial_systems_are_grouped_by_what_they_ran(code_result):
    un = code_result.unranked
    assert list(un["ran"]) == sorted(un["ran"], reverse=True)
    gpt4 = un.loc[un["system"] == "gpt-4-1106-preview", "coverage"].iloc[0]
    assert "humaneval" not in gpt4 and code_result.coverage["gpt-4-1106-preview"] == gpt4


@pytest.mark.slow
def test_score_is_the_weighted_mean_of_the_benchmarks_own_scores(code):
    weights = {"humaneval": 2.0, "humaneval+": 1.0, "mbpp": 1.0, "mbpp+": 0.0}
    res = overall(code, benchmarks=list(CODE), benchmark_weights=weights)
    assert res.scale.units == "percent" and res.scale.label == "score (%)"
    cells = res.cells.pivot(index="system", columns="benchmark", values="mean")
    w = np.array([weights[b] for b in CODE]) / sum(weights.values())
    expected = 100 * (cells.loc[res.table["system"], list(CODE)].to_numpy() * w).sum(axis=1)
    np.testing.assert_allclose(res.table["score"], expected, rtol=1e-12)
    assert (res.table["ci_low"] <= res.table["score"]).all()
    assert (res.table["score"] <= res.table["ci_high"]).all()


def test_mixed_units_are_a_labelled_standardised_score(long):
    res = overall(long)
    assert res.scale.units == "standardised" and res.scale.label == "standardised score"
    assert "standardised" in res.scale.explanation
    assert res.metrics == {"Dialogue-pc": ("JS_2",), "Dialogue-tc": ("JS_2",)}  # first in data


# ------------------------------------------------------------------ an earned direction


@pytest.mark.parametrize("names", [("A", "B"), ("Z", "B"), ("B", "A")])
def test_reversal_has_no_overall_order_whatever_the_names(names):
    res = overall(_reversal(names))
    pair = res.pairs.iloc[0]
    assert pair["difference"] == 0.0 and pair["pvalue"] == 1.0
    assert not pair["significant"] and pair["verdict"] == MIXED
    assert pair["p_hmp_adj"] < 1e-10  # they do differ, benchmark by benchmark
    assert list(res.table["rank"]) == [1, 1]
    assert list(res.table["rank_low"]) == [1, 1] and list(res.table["rank_high"]) == [2, 2]


def test_no_significant_pair_is_ranked_backwards(code_result):
    pairs = code_result.pairs
    rank = code_result.table.set_index("system")["rank"]
    sig = pairs[pairs["significant"]]
    assert len(sig) > 100
    assert (sig["verdict"] == BETTER).all() and sig["a_better"].all()
    assert (rank[sig["system_a"]].to_numpy() <= rank[sig["system_b"]].to_numpy()).all()
    assert (sig["difference"] > 0).all() and (sig["ci_low"] > 0).all()


def test_opposite_benchmarks_are_no_overall_order(code_result):
    """Issue #25: openchat ahead on HumanEval(+), starcoder2-15b-oci on MBPP(+)."""
    p = code_result.pairs
    row = p[(p["system_a"].isin(["openchat", "starcoder2-15b-oci"]))
            & (p["system_b"].isin(["openchat", "starcoder2-15b-oci"]))].iloc[0]
    assert not row["significant"] and row["verdict"] == MIXED


@pytest.mark.slow
@pytest.mark.parametrize("benchmark", ["humaneval+", "mbpp"])
def test_one_benchmark_is_its_leaderboard(code, benchmark):
    one = overall(code, benchmarks=[benchmark])
    board = leaderboard(build_matrix(code, benchmark=benchmark, metric="pass1"))
    a = one.table.set_index("system")
    b = board.table.set_index("system").loc[a.index]
    assert len(a) == len(b) == len(board.table)
    for col in ("rank", "rank_low", "rank_high"):
        assert (a[col] == b[col]).all(), col
    np.testing.assert_allclose(a["score"], 100 * b["mean"], rtol=1e-12)
    np.testing.assert_allclose(a["ci_low"], 100 * b["ci_low"], rtol=1e-12)
    ours = {frozenset(x) for x in one.pairs.loc[one.pairs["significant"],
                                                ["system_a", "system_b"]].to_numpy()}
    t = board.pairwise.table
    theirs = {frozenset(x) for x in t.loc[t["significant"], ["system_a", "system_b"]].to_numpy()}
    assert ours == theirs


def test_one_benchmark_combination_is_its_own_test():
    p = np.array([[0.0703], [0.5], [1.0]])
    d = np.array([[-0.12], [0.01], [0.0]])
    res = combine_differences(d, np.array([[0.06], [0.02], [0.03]]), np.array([1.0]), {},
                              own_pvalue=p)
    assert res.pvalue.tolist() == [0.0703, 0.5, 1.0]


_fast = settings(max_examples=12, phases=[Phase.generate], database=None,
                 suppress_health_check=[HealthCheck.too_slow])


@pytest.mark.slow
@_fast
@given(st.integers(0, 10_000), st.permutations(range(5)))
def test_relabelling_systems_changes_nothing(seed, relabel):
    """Including a pair whose pooled effect is exactly 0 (a reversal) and names that sort
    the other way round."""
    rng = np.random.default_rng(seed)
    frames = [_reversal(("s0", "s1"), n=60)]
    for k in (2, 3, 4):
        for bench in ("b1", "b2"):
            frames.append(pd.DataFrame({"benchmark": bench, "system": f"s{k}",
                                        "example_id": [f"{bench}-{i}" for i in range(60)],
                                        "metric": "pass1",
                                        "value": (rng.random(60) < 0.3 + 0.15 * k).astype(float)}))
    df = pd.concat(frames, ignore_index=True)
    names = {f"s{i}": f"{'zyxwv'[j]}" for i, j in enumerate(relabel)}
    base, moved = overall(df), overall(df.assign(system=df["system"].map(names)))
    back = {v: k for k, v in names.items()}
    cols = ["score", "ci_low", "ci_high", "rank", "rank_low", "rank_high"]
    a = base.table.set_index("system")[cols].sort_index()
    b = moved.table.assign(system=moved.table["system"].map(back)).set_index("system")[cols]
    pd.testing.assert_frame_equal(a, b.sort_index(), rtol=1e-12)

    def wins(res, rename):
        sig = res.pairs[res.pairs["significant"]]
        return {(rename.get(w, w), rename.get(x, x)) for w, x, ab in
                zip(sig["system_a"], sig["system_b"], sig["a_better"], strict=True)
                for w, x in [(w, x) if ab else (x, w)]}

    assert wins(base, {}) == wins(moved, back)
    mixed = base.pairs[(base.pairs["system_a"].isin(["s0", "s1"]))
                       & (base.pairs["system_b"].isin(["s0", "s1"]))].iloc[0]
    assert mixed["difference"] == 0.0 and not mixed["significant"]


# ------------------------------------------------------------------ correlated benchmarks


def test_shared_ids_correlation_is_numpys():
    rng = np.random.default_rng(3)
    x = rng.normal(size=(3, 100))
    y = 0.8 * x + 0.6 * rng.normal(size=(3, 100))
    ids = tuple(f"e{i}" for i in range(100))
    systems, pairs = shared_correlation(x, ids, y, ids)
    for s in range(3):
        assert systems[s] == pytest.approx(np.corrcoef(x[s], y[s])[0, 1], rel=1e-10)
    assert pairs[0, 1] == pytest.approx(np.corrcoef(x[0] - x[1], y[0] - y[1])[0, 1], rel=1e-10)
    no, none = shared_correlation(x, ids, y, tuple(f"f{i}" for i in range(100)))
    assert not no.any() and not none.any()


@pytest.mark.slow
def test_shared_examples_are_named_and_widen_the_intervals(code, code_result):
    assert {(a, b) for a, b, _ in code_result.correlated} == {("humaneval", "humaneval+"),
                                                             ("mbpp", "mbpp+")}
    assert any("correlation" in n for n in code_result.notes)
    renamed = code.assign(example_id=code["benchmark"] + ":" + code["example_id"])
    independent = overall(renamed, benchmarks=list(CODE))
    assert independent.correlated == ()
    assert any("independent" in n for n in independent.notes)
    width = (code_result.table["ci_high"] - code_result.table["ci_low"]).mean()
    narrow = (independent.table["ci_high"] - independent.table["ci_low"]).mean()
    assert width > 1.1 * narrow  # HumanEval and HumanEval+ agree on most examples


# ------------------------------------------------------------------ one-sided sets (#26 item 8)


def test_one_sided_sets_need_an_order_fixed_in_advance():
    df = _reversal()
    with pytest.raises(ValueError, match="order: compare='first' tests one-sided"):
        overall(df, options=TestOptions(compare="first"))
    with pytest.raises(ValueError, match="order: only for compare='first'"):
        overall(df, order=["A", "B"])


@pytest.mark.slow
def test_ordered_set_is_one_sided_in_the_given_order(code):
    order = ["starcoder2-15b-oci", "claude-3-opus-20240229", "openchat"]
    res = overall(code, benchmarks=list(CODE), options=TestOptions(compare="successive"),
                  order=order)
    assert res.alternative == "greater" and res.order == tuple(order)
    tested = res.pairs[res.pairs["tested"] > 0]
    assert len(tested) == 2 and res.n_tests == 2 * 4
    # H1 "starcoder2 better than claude" fails (claude is far ahead): one-sided p near 1
    first = tested[tested["system_b"] == "starcoder2-15b-oci"].iloc[0]
    assert first["pvalue"] > 0.99 and not first["significant"]


# ------------------------------------------------------------------ pairs across metrics


def test_pairs_across_metrics(long):
    results = [pairwise_tests(build_matrix(long, benchmark="Dialogue-tc", metric=m))
               for m in METRICS]
    out = pairs_across(results, across="metrics")
    assert tuple(out.columns) == PAIRS_ACROSS_COLUMNS and len(out) == 10
    big_l = 10 * 3
    for r in out.itertuples():
        ps, effects, variances = [], [], []
        for res in results:
            t = res.table
            row = t[((t["system_a"] == r.system_a) & (t["system_b"] == r.system_b))
                    | ((t["system_a"] == r.system_b) & (t["system_b"] == r.system_a))].iloc[0]
            sign = 1 if row["system_a"] == r.system_a else -1
            ps.append(row["pvalue"])
            g, v = corrected_effect(np.array([sign * row["effect_size"]]), np.array([row["n"]]),
                                    row["effect_name"])
            effects.append(g[0])
            variances.append(v[0])
        ref = harmonic_mean_p(ps, np.full(3, 1 / big_l), L=big_l)
        assert r.p_hmp == pytest.approx(ref.pvalue, rel=1e-10)
        sm = combine_effects(np.array(effects), np.array(variances), use_t=False)
        fe = sm.summary_frame().loc["fixed effect"]
        assert (r.effect, r.effect_ci_low, r.effect_ci_high) == pytest.approx(
            (fe["eff"], fe["ci_low"], fe["ci_upp"]), rel=1e-9)
        assert r.i2 == pytest.approx(max(sm.i2, 0.0), abs=1e-12)
    assert (np.diff(out["p_hmp"].to_numpy()) >= 0).all()


def test_pairs_across_benchmarks_and_weights(long):
    results = [pairwise_tests(build_matrix(long, benchmark=b, metric="BERTScore"))
               for b in ("Dialogue-tc", "Dialogue-pc")]
    equal = pairs_across(results, across="benchmarks")
    assert len(equal) == 10  # the union of pairs; M4's only on Dialogue-tc
    tilted = pairs_across(results, across="benchmarks", weights={"Dialogue-tc": 3, "Dialogue-pc": 1})
    assert not np.allclose(equal["p_hmp"].sort_values(), tilted["p_hmp"].sort_values())


@pytest.mark.slow
def test_weights_and_errors(long):
    by_list = overall(long, metrics=list(METRICS), weights=[2, 1, 1])
    by_map = overall(long, metrics=list(METRICS), weights={"ROUGE_L": 2, "BERTScore": 1, "JS_2": 1})
    pd.testing.assert_frame_equal(by_list.table, by_map.table)
    assert by_list.metrics["Dialogue-tc"] == METRICS  # named metrics: the aggregate
    with pytest.raises(ValueError, match="weights: a list of weights needs the metrics"):
        overall(long, weights=[1, 1, 1])
    with pytest.raises(ValueError, match="benchmarks: need distinct benchmarks"):
        overall(long, benchmarks=["nope"])
    with pytest.raises(ValueError, match="metrics: none of"):
        overall(long, metrics=["BLEU"])


def test_json_shape(code_result):
    out = overall_document(code_result)
    assert list(out)[:3] == ["benchmarks", "systems", "cliques"]
    assert {"headline", "score_units", "score_label", "weights", "correlated"} <= set(out)
    first = out["systems"][0]
    assert list(first) == ["system", "score", "ci_low", "ci_high", "rank", "rank_low",
                           "rank_high", "group", "coverage", "cells", "rank_set_low",
                           "rank_set_high", "in_best_set"]
    assert list(first["cells"]["mbpp"]) == ["mean", "ci_low", "ci_high", "group"]
    assert out["headline"].startswith(first["system"] + " ranks first of 37 systems")


@pytest.mark.slow
def test_score_interval_on_benchmarks_of_different_sizes_by_hand() -> None:
    """Two 0/1 benchmarks of 10 and 200 examples, their own examples (no correlation), equal
    weights: each benchmark's standard error is the larger of its interval's half-width over
    z and sd/√n (Wilson's interval, shrunk toward 1/2, is narrower on 10 examples), and the
    critical value is Student's t on the Welch–Satterthwaite degrees of freedom
    (Satterthwaite 1946) — computed here from the leaderboards with scipy. With the normal
    critical value and Wilson-derived errors the interval covered 0.866 (calibrate_overall_sizes.py)."""
    from scipy import stats

    rng = np.random.default_rng(4)
    rows = []
    for b, n in (("small", 10), ("large", 200)):
        for s in ("x", "y", "z"):
            rows += [(b, s, f"{b}{i}", "pass1", float(rng.random() < 0.5)) for i in range(n)]
    df = pd.DataFrame(rows, columns=["benchmark", "system", "example_id", "metric", "value"])
    got = overall(df).table.set_index("system")
    z = stats.norm.isf(0.025)
    for s in ("x", "y", "z"):
        se, var_df = [], []
        for b in ("small", "large"):
            x = df[(df["benchmark"] == b) & (df["system"] == s)]["value"].to_numpy()
            cell = leaderboard(build_matrix(df[df["benchmark"] == b]), bt_resamples=0).table
            cell = cell.set_index("system").loc[s]
            e = 50 * max((cell["ci_high"] - cell["ci_low"]) / (2 * z), x.std(ddof=1) / np.sqrt(len(x)))
            se.append(e)
            var_df.append((e ** 2) ** 2 / (len(x) - 1))
        v = sum(e ** 2 for e in se)
        half = stats.t.isf(0.025, v ** 2 / sum(var_df)) * np.sqrt(v)
        assert got.loc[s, "ci_high"] - got.loc[s, "ci_low"] == pytest.approx(2 * half, rel=1e-9)
