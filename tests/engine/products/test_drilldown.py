"""Example drill-down (engine/products/_drilldown.py)."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pandas as pd
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from scipy import stats

from engine._contract import MetricSpec
from engine._matrix import build_matrix
from engine.io._readers import read_results
from engine.products._drilldown import example_drilldown
from engine.products._health import benchmark_health

# eval-arena HumanEval pass@1, 49 systems × 164 examples (tests/data/mechanisms/README.md)
HUMANEVAL = Path(__file__).resolve().parents[2] / "data" / "mechanisms" / "humaneval.jsonl.gz"


@pytest.fixture(scope="module")
def humaneval() -> pd.DataFrame:
    return read_results(HUMANEVAL)


def test_tau_and_solved_counts_are_the_health_reports(humaneval: pd.DataFrame) -> None:
    m = build_matrix(humaneval)
    report = benchmark_health(m).example_table.set_index("example_id")
    for ex in (*report.index[:3], *report.sort_values("tau").index[:3]):  # incl. suspects
        d = example_drilldown(humaneval, example_id=ex)
        ref = report.loc[ex]
        assert d.n_solved == ref["n_solved"]
        np.testing.assert_allclose(d.tau, ref["tau"], rtol=1e-12, equal_nan=True)
        assert d.n_scored == m.n_systems and d.solved_rule == "score = 1"
        col = m.to_frame()[ex]
        np.testing.assert_array_equal(d.scores.set_index("system")["score"], col.loc[
            d.scores["system"]])
        assert set(d.solved_by) == set(col.index[col == 1])
        assert d.scores["quality"].is_monotonic_decreasing  # best system first
        np.testing.assert_allclose(d.scores.set_index("system")["quality"],
                                   m.to_frame().mean(axis=1).loc[d.scores["system"]])


def _texts() -> pd.DataFrame:
    rows = []
    for s, skill in (("strong", 0.9), ("mid", 0.5), ("weak", 0.1)):
        for i in range(6):
            rows.append({"benchmark": "b", "metric": "score", "system": s, "example_id": f"q{i}",
                         "value": skill + 0.01 * i, "prompt": f"<b>question {i}</b>",
                         "reference": f"answer & {i}", "output": f"{s} says <script>{i}",
                         "tokens": 10 * i + len(s)})
    return pd.DataFrame(rows)


def test_text_columns_come_back_as_plain_unescaped_strings() -> None:
    d = example_drilldown(_texts(), example_id="q2")
    assert d.text == {"prompt": "<b>question 2</b>", "reference": "answer & 2"}
    assert d.scores["system"].tolist() == ["strong", "mid", "weak"]
    assert d.scores["output"].tolist() == [f"{s} says <script>2" for s in ("strong", "mid", "weak")]
    assert "tokens" not in d.scores.columns  # numeric per-output metadata is not text
    only = example_drilldown(_texts(), example_id="q2", text_columns=["reference"])
    assert only.text == {"reference": "answer & 2"} and "output" not in only.scores.columns
    with pytest.raises(ValueError, match="text_columns: \\['nope'\\] are not"):
        example_drilldown(_texts(), example_id="q2", text_columns=["nope"])


@pytest.mark.slow
def test_stored_outputs_join_the_scores_by_system() -> None:
    """Outputs as the store returns them (``system, run, name, value``) replace a column of
    the same name; several runs come one after the other; scores are unchanged."""
    plain = example_drilldown(_texts(), example_id="q2")
    outputs = pd.DataFrame({"system": ["weak", "strong", "strong"], "run": [0, 1, 0],
                            "name": "output", "value": ["<script>w", "s1", "s0"]})
    d = example_drilldown(_texts(), example_id="q2", outputs=outputs)
    assert d.scores["output"].tolist() == ["[run 0]\ns0\n\n[run 1]\ns1", "", "<script>w"]
    pd.testing.assert_frame_equal(d.scores.drop(columns="output"),
                                  plain.scores.drop(columns="output"))
    assert d.tau == plain.tau or (np.isnan(d.tau) and np.isnan(plain.tau))
    empty = example_drilldown(_texts(), example_id="q2",
                              outputs=pd.DataFrame(columns=["system", "run", "name", "value"]))
    assert empty.scores["output"].tolist() == plain.scores["output"].tolist()
    named = example_drilldown(_texts(), example_id="q2", outputs=outputs.assign(name="score"))
    assert named.scores["score"].tolist() == plain.scores["score"].tolist()  # not overwritten
    assert named.scores["score (text)"].tolist()[2] == "<script>w"
    with pytest.raises(ValueError, match="outputs: columns \\['run'\\] are missing"):
        example_drilldown(_texts(), example_id="q2", outputs=outputs.drop(columns="run"))


def test_numeric_metric_needs_a_threshold_for_solved() -> None:
    d = example_drilldown(_texts(), example_id="q1")
    assert d.n_solved is None and np.isnan(d.tau) and d.scores["solved"].isna().all()
    assert any("threshold" in n for n in d.notes)
    t = example_drilldown(_texts(), example_id="q1", threshold=0.4)
    assert t.n_solved == 2 and t.solved_by == ("strong", "mid")
    # scipy's tau-b between solved and the systems' mean scores
    ref = stats.kendalltau([1, 1, 0], [0.925, 0.525, 0.125]).statistic
    assert t.tau == pytest.approx(ref, abs=1e-12)
    spec = example_drilldown(_texts(), example_id="q1", spec=MetricSpec(threshold=0.4))
    assert spec.n_solved == 2


def test_unknown_example_names_the_argument() -> None:
    with pytest.raises(ValueError, match="example_id: 'zz' is not an example"):
        example_drilldown(_texts(), example_id="zz")


@pytest.mark.slow
@settings(max_examples=10)
@given(st.integers(0, 2**31 - 1))
def test_row_order_and_system_names_do_not_matter(seed: int) -> None:
    rng = np.random.default_rng(seed)
    df = pd.DataFrame({"benchmark": "b", "metric": "m", "system": np.repeat(list("ABCDE"), 8),
                       "example_id": np.tile([f"e{i}" for i in range(8)], 5),
                       "value": (rng.random(40) < np.repeat([0.9, 0.7, 0.5, 0.3, 0.1], 8)) * 1.0})
    base = example_drilldown(df, example_id="e3")
    names = dict(zip("ABCDE", rng.permutation(["v", "w", "x", "y", "z"]), strict=True))
    moved = df.assign(system=df["system"].map(names)).sample(frac=1.0, random_state=seed % 2**32)
    got = example_drilldown(moved, example_id="e3")
    assert got.n_solved == base.n_solved
    np.testing.assert_allclose(got.tau, base.tau, equal_nan=True)
    left = base.scores.assign(system=base.scores["system"].map(names)).set_index("system")
    right = got.scores.set_index("system").loc[left.index]
    pd.testing.assert_frame_equal(left, right, check_exact=False, rtol=1e-12)
