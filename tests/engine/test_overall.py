"""The overall leaderboard and pairs combined across metrics or benchmarks (seed paper §6–7).

References: the combined p-value per pair is checked against
:func:`engine.across._hmp.harmonic_mean_p` one pair at a time (itself checked against
the harmonicmeanp vignette in test_hmp.py), the pooled effect against
statsmodels' ``combine_effects`` (fixed-effect row), the scores against
:func:`engine.across._meta.standardized_means`; data: bt-eval dialogue scores
(tests/data/overall/README.md).
"""

from pathlib import Path

import numpy as np
import pandas as pd
import pytest
from hypothesis import Phase, given, settings
from hypothesis import strategies as st
from statsmodels.stats.meta_analysis import combine_effects

from engine._contract import validate_long
from engine._matrix import build_matrix
from engine._options import TestOptions
from engine.across._hmp import harmonic_mean_p
from engine.across._meta import corrected_effect
from engine.across._overall import overall
from engine.across._pairs_across import PAIRS_ACROSS_COLUMNS, pairs_across
from engine.products._leaderboard import leaderboard
from engine.stats._pairwise import pairwise_tests

DATA = Path(__file__).resolve().parents[1] / "data" / "overall" / "bt_eval_dialogue.csv.gz"
METRICS = ("ROUGE_L", "BERTScore", "JS_2")


@pytest.fixture(scope="module")
def long():
    return validate_long(pd.read_csv(DATA, dtype={"example_id": str}))


@pytest.fixture(scope="module")
def result(long):
    return overall(long)


def _synthetic(seed, shift=(0.0, 0.3, 0.6, 0.9), benchmarks=3, n=40):
    rng = np.random.default_rng(seed)
    rows = []
    for b in range(benchmarks):
        difficulty = rng.normal(size=n)
        for k, s in enumerate(shift):
            for m in ("m1", "m2"):
                v = s + difficulty + rng.normal(size=n)
                rows.append(pd.DataFrame({"benchmark": f"b{b}", "system": f"s{k}",
                                          "example_id": [f"e{i}" for i in range(n)],
                                          "metric": m, "value": v}))
    return pd.concat(rows, ignore_index=True)


def test_json_is_the_spec_shape(result):
    out = result.to_dict()
    assert list(out) == ["benchmarks", "systems", "cliques"]
    assert out["benchmarks"] == ["Dialogue-pc", "Dialogue-tc"]  # data order
    first = out["systems"][0]
    assert list(first) == ["system", "score", "ci_low", "ci_high", "rank", "rank_low",
                           "rank_high", "group", "cells"]
    assert list(first["cells"]) == ["Dialogue-pc", "Dialogue-tc"]
    assert list(first["cells"]["Dialogue-tc"]) == ["mean", "ci_low", "ci_high", "group"]
    assert [s["rank"] for s in out["systems"]] == sorted(s["rank"] for s in out["systems"])


def test_missing_system_is_shown_not_dropped(result):
    systems = {s["system"]: s for s in result.to_dict()["systems"]}
    assert set(systems) == {"M0", "M1", "M2", "M3", "M4"}
    assert systems["M4"]["cells"]["Dialogue-pc"] == dict.fromkeys(("mean", "ci_low", "ci_high",
                                                                    "group"))
    assert systems["M4"]["cells"]["Dialogue-tc"]["mean"] is not None
    # M4's pairs are combined over the one benchmark where it was tested
    m4 = result.pairs[(result.pairs["system_a"] == "M4") | (result.pairs["system_b"] == "M4")]
    assert (m4["tested"] == 1).all() and len(m4) == 4


def test_cells_are_each_benchmarks_own_leaderboard(long, result):
    agg = result.cells[result.cells["benchmark"] == "Dialogue-tc"].set_index("system")
    from engine.across._aggregate import aggregate_metric
    rows = aggregate_metric(long, benchmark="Dialogue-tc", metrics=list(METRICS))
    board = leaderboard(build_matrix(rows, benchmark="Dialogue-tc")).table.set_index("system")
    np.testing.assert_allclose(agg["mean"], board.loc[agg.index, "mean"], rtol=1e-12)
    assert (agg["group"] == board.loc[agg.index, "group"]).all()


def test_combined_pairs_match_one_pair_at_a_time(long, result):
    # L = compared pairs (10 among 5 systems) × 2 benchmarks; w = 1/L per test
    assert result.n_tests == 20
    per = {}
    for b in result.benchmarks:
        from engine.across._aggregate import aggregate_metric
        rows = aggregate_metric(long, benchmark=b)
        t = pairwise_tests(build_matrix(rows, benchmark=b)).table
        for r in t.itertuples():
            per.setdefault(frozenset((r.system_a, r.system_b)), []).append(r.pvalue)
    for r in result.pairs.itertuples():
        p = per[frozenset((r.system_a, r.system_b))]
        ref = harmonic_mean_p(p, np.full(len(p), 1 / 20), L=20)
        assert r.p_hmp == pytest.approx(ref.pvalue, rel=1e-10)
        assert r.p_hmp_adj == pytest.approx(ref.pvalue_adj, rel=1e-10)
        assert r.significant == (ref.pvalue_adj < 0.05)


def test_scores_order_the_table(result):
    t = result.table
    assert (np.diff(t["score"].to_numpy()) <= 0).all()
    assert (t["ci_low"] <= t["score"]).all() and (t["score"] <= t["ci_high"]).all()
    assert (t["rank_low"] <= t["rank_high"]).all()


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


@pytest.mark.parametrize(("call", "match"), [
    (lambda r: pairs_across(r, across="systems"), "across: must be one of metrics, benchmarks"),
    (lambda r: pairs_across([], across="metrics"), "results: need at least one"),
    (lambda r: pairs_across([r[0], r[0]], across="metrics"), "results: each metric may appear once"),
    (lambda r: pairs_across(r, across="metrics"), "results: across metrics needs one benchmark"),
])
def test_pairs_across_bad_input(long, call, match):
    results = [pairwise_tests(build_matrix(long, benchmark=b, metric="BERTScore"))
               for b in ("Dialogue-tc", "Dialogue-pc")]
    with pytest.raises(ValueError, match=match):
        call(results)


def test_ordered_set_is_right_tailed():
    df = _synthetic(1)
    res = overall(df, options=TestOptions(compare="successive"))
    assert res.alternative == "greater" and res.n_tests == 3 * 3
    assert list(res.table["system"]) == ["s3", "s2", "s1", "s0"]
    assert list(zip(res.pairs["system_a"], res.pairs["system_b"], strict=True)) == \
        [("s3", "s2"), ("s2", "s1"), ("s1", "s0")]
    assert res.pairs["a_better"].all()


def test_clear_differences_are_found():
    res = overall(_synthetic(2, shift=(0.0, 0.0, 1.5, 1.5), n=60))
    assert set(res.table["system"][:2]) == {"s2", "s3"}
    assert [sorted(c) for c in res.cliques] == [["s2", "s3"], ["s0", "s1"]]
    top = res.table.set_index("system")
    assert top.loc["s2", "rank_high"] == 2 and top.loc["s0", "rank_low"] == 3


def test_weights_and_errors(long):
    by_list = overall(long, metrics=list(METRICS), weights=[2, 1, 1])
    by_map = overall(long, weights={"ROUGE_L": 2, "BERTScore": 1, "JS_2": 1})
    pd.testing.assert_frame_equal(by_list.table, by_map.table)
    with pytest.raises(ValueError, match="weights: a list of weights needs the metrics"):
        overall(long, weights=[1, 1, 1])
    with pytest.raises(ValueError, match="benchmarks: need distinct benchmarks"):
        overall(long, benchmarks=["nope"])
    with pytest.raises(ValueError, match="metrics: none of"):
        overall(long, metrics=["BLEU"])


fast = settings(max_examples=6, deadline=None, phases=[Phase.generate], database=None)


@fast
@given(st.permutations(range(3)), st.permutations(range(4)))
def test_reordering_benchmarks_or_relabelling_systems_changes_nothing(bench_order, relabel):
    df = _synthetic(4)
    base = overall(df)
    names = {f"s{i}": f"x{j}" for i, j in enumerate(relabel)}
    moved = df.assign(system=df["system"].map(names))
    res = overall(moved, benchmarks=[f"b{i}" for i in bench_order])
    back = {v: k for k, v in names.items()}
    got = res.table.assign(system=res.table["system"].map(back))
    pd.testing.assert_frame_equal(got.drop(columns="group").reset_index(drop=True),
                                  base.table.drop(columns="group").reset_index(drop=True),
                                  rtol=1e-10)
    key = ["system_a", "system_b"]
    pa = res.pairs.assign(system_a=res.pairs["system_a"].map(back),
                          system_b=res.pairs["system_b"].map(back)).set_index(key).sort_index()
    pb = base.pairs.set_index(key).sort_index()
    np.testing.assert_allclose(pa["p_hmp"], pb["p_hmp"], rtol=1e-10)
    np.testing.assert_allclose(pa["effect"], pb["effect"], rtol=1e-10)
