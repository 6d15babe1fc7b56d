"""The aggregate metric of one benchmark (Ackerman et al. 2025, §6.1).

Reference: the recipe of Ackerman, Farchi, Raz & Toledo (2025, arXiv:2501.18243), §6.1,
written out with plain pandas (z-score per metric over the benchmark, flip by direction,
weighted mean per example) on real bt-eval dialogue scores (tests/data/overall/README.md).
"""

from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd
import pytest
from hypothesis import Phase, given, settings
from hypothesis import strategies as st

from engine._contract import MetricSpec, validate_long
from engine._matrix import build_matrix
from engine.across._aggregate import aggregate_metric, metric_weights
from engine.stats._pairwise import pairwise_tests

DATA = Path(__file__).resolve().parents[2] / "data" / "overall" / "bt_eval_dialogue.csv.gz"
BENCH = "Dialogue-tc"


@pytest.fixture(scope="module")
def long():
    return validate_long(pd.read_csv(DATA, dtype={"example_id": str}))


def _by_hand(df, benchmark, weights, directions):
    part = df[df["benchmark"] == benchmark]
    wide = part.pivot_table(index=["system", "example_id"], columns="metric", values="value")
    total: Any = 0
    for metric, w in weights.items():
        col = wide[metric]
        total = total + w * directions[metric] * (col - col.mean()) / col.std()
    return total.dropna()


def test_matches_the_recipe_by_hand(long):
    weights = {"ROUGE_L": 0.5, "BERTScore": 0.3, "JS_2": 0.2}
    specs = {(BENCH, "ROUGE_L"): MetricSpec(higher_is_better=False)}  # a flip to check the sign
    out = aggregate_metric(long, benchmark=BENCH, weights=weights, specs=specs, name="agg")
    expected = _by_hand(long, BENCH, weights, {"ROUGE_L": -1, "BERTScore": 1, "JS_2": 1})
    got = out.set_index(["system", "example_id"])["value"]
    assert len(out) == 5 * 60 and set(out["metric"]) == {"agg"} and set(out["benchmark"]) == {BENCH}
    pd.testing.assert_series_equal(got.sort_index(), expected.sort_index(), check_names=False,
                                   rtol=1e-12)
    validate_long(out)  # a valid long table, usable by every view


def test_pooled_standardisation_gives_mean_zero(long):
    out = aggregate_metric(long, benchmark=BENCH, metrics=["BERTScore"])
    assert out["value"].mean() == pytest.approx(0, abs=1e-12)
    assert out["value"].std() == pytest.approx(1, rel=1e-12)


def test_one_metric_aggregate_tests_like_the_metric(long):
    # a z-score is affine, so the paired t-test on the aggregate equals the one on the metric
    raw = pairwise_tests(build_matrix(long, benchmark=BENCH, metric="BERTScore")).table
    agg = aggregate_metric(long, benchmark=BENCH, metrics=["BERTScore"])
    res = pairwise_tests(build_matrix(agg, benchmark=BENCH)).table
    np.testing.assert_allclose(res["pvalue"], raw["pvalue"], rtol=1e-9)
    np.testing.assert_allclose(res["effect_size"], raw["effect_size"], rtol=1e-9)


def test_missing_metric_leaves_the_example_out(long):
    part = long[long["benchmark"] == BENCH]
    drop = (part["system"] == "M1") & (part["example_id"].isin(["0", "1"])) & \
        (part["metric"] == "JS_2")
    out = aggregate_metric(part[~drop], benchmark=BENCH)
    assert len(out) == 5 * 60 - 2 and out.attrs["incomplete"] == 2
    m1 = out[out["system"] == "M1"]["example_id"]
    assert not m1.isin(["0", "1"]).any()


def test_runs_are_aggregated_run_by_run():
    df = pd.DataFrame({
        "benchmark": "b", "system": ["x"] * 4 + ["y"] * 4, "example_id": "e",
        "metric": ["m1", "m2"] * 4, "run": [0, 0, 1, 1] * 2,
        "value": [1.0, 2.0, 3.0, 4.0, 0.0, 1.0, 2.0, 5.0]})
    out = aggregate_metric(df, benchmark="b")
    assert list(out.columns) == ["benchmark", "system", "example_id", "metric", "value", "run"]
    assert len(out) == 4 and sorted(out["run"].unique()) == [0, 1]


def test_metadata_is_carried(long):
    df = long.assign(family=long["system"].str[-1])
    out = aggregate_metric(df, benchmark=BENCH)
    assert (out["family"] == out["system"].str[-1]).all()


def test_constant_metric_contributes_zero():
    df = pd.DataFrame({"benchmark": "b", "system": ["x", "x", "y", "y"], "example_id": "e",
                       "metric": ["m", "c", "m", "c"], "value": [1.0, 5.0, 0.0, 5.0]})
    out = aggregate_metric(df, benchmark="b")
    assert out.attrs["constant"] == ["c"]
    assert out["value"].tolist() == pytest.approx([0.5 * 0.7071067811865476, -0.5 * 0.7071067811865476])


def test_weights():
    assert metric_weights(["a", "b", "c"], None).tolist() == pytest.approx([1 / 3] * 3)
    assert metric_weights(["a", "b"], [1, 3]).tolist() == [0.25, 0.75]
    assert metric_weights(["a", "b"], {"b": 2}).tolist() == [0.0, 1.0]


@pytest.mark.parametrize(("kwargs", "match"), [
    ({"benchmark": "nope"}, "benchmark: 'nope' is not in the table"),
    ({"benchmark": BENCH, "metrics": ["BLEU"]}, r"metrics: \['BLEU'\] not measured"),
    ({"benchmark": BENCH, "name": "JS_2"}, "name: 'JS_2' is already a metric"),
    ({"benchmark": BENCH, "weights": [1, -1, 1]}, "weights: must be finite, non-negative"),
    ({"benchmark": BENCH, "weights": [1, 1]}, r"weights: need one weight per metric \(3\)"),
    ({"benchmark": BENCH, "weights": {"BLEU": 1}}, r"weights: unknown name\(s\) \['BLEU'\]"),
])
def test_bad_input(long, kwargs, match):
    with pytest.raises(ValueError, match=match):
        aggregate_metric(long, **kwargs)


@pytest.mark.slow
@settings(max_examples=8, phases=[Phase.generate], database=None)
@given(st.randoms(use_true_random=False), st.permutations(range(5)))
def test_row_order_and_system_labels_do_not_matter(random, relabel):
    df = pd.read_csv(DATA, dtype={"example_id": str})
    df = df[df["benchmark"] == BENCH]
    base = aggregate_metric(df, benchmark=BENCH).set_index(["system", "example_id"])["value"]
    order = list(range(len(df)))
    random.shuffle(order)
    names = {f"M{i}": f"sys-{j}" for i, j in enumerate(relabel)}
    moved = df.iloc[order].assign(system=lambda d: d["system"].map(names))
    out = aggregate_metric(moved, benchmark=BENCH)
    back = {v: k for k, v in names.items()}
    got = out.assign(system=out["system"].map(back)).set_index(["system", "example_id"])["value"]
    pd.testing.assert_series_equal(got.sort_index(), base.sort_index(), rtol=1e-12, atol=1e-12)
