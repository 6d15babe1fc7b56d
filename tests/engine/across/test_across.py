"""The heatmap table across metrics (engine/across/_metrics_table.py) on TAC2008's 14 metrics (bt-eval).

References: each cell is the engine's own per-metric pairwise result (tested
against scipy/statsmodels in test_pairwise.py); the ordering statistic is
checked against ``scipy.stats.hmean`` of the raw p-values (Wilson 2019's HMP
with equal weights).
"""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pandas as pd
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from scipy import stats

from engine import build_matrix, harmonic_mean_p, pairs_across_metrics, pairwise_tests, read_results


@pytest.fixture(scope="module")
def tac(test_data: Path) -> pd.DataFrame:
    df = read_results(test_data / "bt-eval" / "bt_eval_scores_long.csv.gz")
    return df[df["benchmark"] == "TAC2008"].reset_index(drop=True)


@pytest.fixture(scope="module")
def results(tac: pd.DataFrame) -> list:
    return [pairwise_tests(build_matrix(tac, metric=m)) for m in pd.unique(tac["metric"])]


@pytest.mark.slow
def test_tac2008_table_shape_and_order(results: list) -> None:
    out = pairs_across_metrics(results)
    assert len(out.metrics) == 14 and len(out.table) == 58 * 57 // 2
    assert list(out.table.columns[:7]) == ["system_a", "system_b", "p_hmp", "p_hmp_adj",
                                           "hmp_stat", "significant_in", "conflict"]
    assert list(out.table.columns[7:]) == list(out.metrics)
    assert out.table["p_hmp"].is_monotonic_increasing
    assert len(out.cells) == 14 * len(out.table)


@pytest.mark.slow
def test_hmp_is_scipy_harmonic_mean_of_raw_pvalues(results: list) -> None:
    out = pairs_across_metrics(results)
    row = out.table.iloc[100]
    raw = [r.table.set_index(["system_a", "system_b"])["pvalue"] for r in results]
    ps = [s.get((row.system_a, row.system_b), s.get((row.system_b, row.system_a))) for s in raw]
    assert row.hmp_stat == pytest.approx(stats.hmean(ps), rel=1e-12)  # the raw statistic


def test_combined_p_is_wilsons_landau_exact_hmp(results: list) -> None:
    """Issue #15: the column next to p-values is the asymptotically exact HMP p-value
    (harmonicmeanp::p.hmp, reproduced by engine.harmonic_mean_p and its vignette tests),
    in a family of L = pairs × metrics with equal weights — not the raw harmonic mean."""
    out = pairs_across_metrics(results)
    family = len(out.table) * len(results)
    raw = [r.table.set_index(["system_a", "system_b"])["pvalue"] for r in results]
    for idx in (0, 100, 1000):
        row = out.table.iloc[idx]
        ps = np.array([s.get((row.system_a, row.system_b), s.get((row.system_b, row.system_a)))
                       for s in raw])
        ref = harmonic_mean_p(ps, np.full(len(ps), 1 / family), L=family)
        assert row.p_hmp == pytest.approx(ref.pvalue, rel=1e-9)
        assert row.p_hmp_adj == pytest.approx(ref.pvalue_adj, rel=1e-9)
        assert row.p_hmp_adj >= row.p_hmp


def test_cells_are_the_per_metric_results(results: list) -> None:
    out = pairs_across_metrics(results)
    for r in (results[0], results[-1]):
        sig = r.table[r.table["significant"]].iloc[0]
        assert out.table.set_index(["system_a", "system_b"]).loc[
            (sig.system_a, sig.system_b), r.metric] == sig.pvalue_adj
        not_sig = r.table[~r.table["significant"]]
        assert len(not_sig), "TAC2008 has pairs this metric does not separate"
        row = not_sig.iloc[0]
        assert np.isnan(out.table.set_index(["system_a", "system_b"]).loc[
                (row.system_a, row.system_b), r.metric])
    counts = out.cells.groupby(["system_a", "system_b"])["significant"].sum()
    merged = out.table.set_index(["system_a", "system_b"])["significant_in"]
    pd.testing.assert_series_equal(merged.sort_index(), counts.sort_index(), check_names=False,
                                   check_dtype=False)


def test_effect_sizes_follow_one_orientation(tac: pd.DataFrame) -> None:
    """A metric whose systems come in reverse order is flipped to the first metric's pairs."""
    m1 = build_matrix(tac, metric="ROUGE_1")
    m2 = build_matrix(tac, metric="ROUGE_2")
    r1 = pairwise_tests(m1)
    r2 = pairwise_tests(m2.subset(list(reversed(m2.systems))))
    out = pairs_across_metrics([r1, r2], value="effect_size")
    cells = out.cells[out.cells["metric"] == "ROUGE_2"].set_index(["system_a", "system_b"])
    own = r2.table.set_index(["system_b", "system_a"])  # reversed order: every pair is flipped
    pair = cells.index[0]
    assert cells.loc[pair, "effect_size"] == pytest.approx(-own.loc[pair, "effect_size"])
    expected = -1 if own.loc[pair, "a_better"] else (1 if own.loc[pair, "diff"] != 0 else 0)
    assert cells.loc[pair, "direction"] == expected


def test_conflicting_metrics_are_flagged() -> None:
    """Two metrics that disagree on the best system: the pair is significant both ways."""
    rng = np.random.default_rng(0)
    good, bad = rng.normal(1, 0.1, 50), rng.normal(0, 0.1, 50)

    def frame(metric: str, a: np.ndarray, b: np.ndarray) -> pd.DataFrame:
        return pd.DataFrame({"benchmark": "b", "metric": metric, "system": ["A"] * 50 + ["B"] * 50,
                             "example_id": [f"e{i}" for i in range(50)] * 2,
                             "value": np.concatenate([a, b])})

    r1 = pairwise_tests(build_matrix(frame("m1", good, bad)))
    r2 = pairwise_tests(build_matrix(frame("m2", bad, good)))
    out = pairs_across_metrics([r1, r2])
    assert bool(out.table["conflict"].iloc[0])
    assert sorted(out.cells["direction"]) == [-1, 1]


@pytest.mark.parametrize(("value", "message"), [
    ("pvalue", "value: must be one of pvalue_adj, effect_size; got 'pvalue'"),
])
def test_bad_value(results: list, value: str, message: str) -> None:
    with pytest.raises(ValueError, match=message):
        pairs_across_metrics(results, value=value)


def test_bad_results(results: list, demo_data: Path) -> None:
    with pytest.raises(ValueError, match="need the pairwise results of at least one metric"):
        pairs_across_metrics([])
    with pytest.raises(ValueError, match="each metric may appear once; repeated: \\['S3_pyr'\\]"):
        pairs_across_metrics([results[0], results[0]])
    other = read_results(demo_data / "humaneval.jsonl.gz")
    with pytest.raises(ValueError, match="all metrics must come from one benchmark"):
        pairs_across_metrics([results[0], pairwise_tests(build_matrix(other))])


@pytest.mark.slow
@settings(max_examples=25)
@given(st.integers(0, 2**32 - 1), st.randoms())
def test_row_order_does_not_matter(seed: int, shuffle) -> None:
    rng = np.random.default_rng(seed)
    systems, n = ["x", "y", "z", "w"], 30
    df = pd.DataFrame({
        "benchmark": "b", "metric": np.repeat(["m1", "m2"], 4 * n),
        "system": np.tile(np.repeat(systems, n), 2),
        "example_id": np.tile([f"e{i}" for i in range(n)], 8),
        "value": rng.normal(size=8 * n) + np.tile(np.repeat([0.0, 0.3, 0.6, 0.9], n), 2),
    })

    def table(frame: pd.DataFrame) -> pd.DataFrame:
        res = [pairwise_tests(build_matrix(frame, metric=m)) for m in ("m1", "m2")]
        out = pairs_across_metrics(res).table
        # orientation follows the order systems first appear: normalise it before comparing
        key = out.apply(lambda r: tuple(sorted((r.system_a, r.system_b))), axis=1)
        return out.assign(key=key).set_index("key")[["p_hmp", "significant_in"]].sort_index()

    order = list(range(len(df)))
    shuffle.shuffle(order)
    pd.testing.assert_frame_equal(table(df), table(df.iloc[order].reset_index(drop=True)))
