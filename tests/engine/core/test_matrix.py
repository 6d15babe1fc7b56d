"""build_matrix: the systems × examples matrix of one (benchmark, metric) (SPEC, "Data contract":
pairing by example id, repeated runs averaged, modality detected from values in {0, 1})."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pandas as pd
import pytest

from engine._contract import DataContractError, MetricSpec, validate_long
from engine._matrix import ScoreMatrix as ScoreMatrix
from engine._matrix import build_matrix, orient

DATA = Path(__file__).resolve().parents[3] / "data"  # bundled eval-arena files


def _long(rows: list[tuple[object, ...]], run: bool = False) -> pd.DataFrame:
    cols = ["benchmark", "system", "example_id", "metric", "value"] + (["run"] if run else [])
    return validate_long(pd.DataFrame(rows, columns=cols), require_comparison=False)


def _simple() -> pd.DataFrame:
    return _long([
        ("b", "Z", "e2", "acc", 1), ("b", "Z", "e1", "acc", 0), ("b", "Z", "e10", "acc", 1),
        ("b", "A", "e1", "acc", 1), ("b", "A", "e2", "acc", 1), ("b", "A", "e10", "acc", 0),
    ])


def test_systems_in_data_order_examples_sorted() -> None:
    m = build_matrix(_simple())
    assert isinstance(m, ScoreMatrix)
    assert m.systems == ("Z", "A")  # order of first appearance (the "pre-registered" order)
    assert m.examples == ("e1", "e10", "e2")  # sorted (as strings)
    np.testing.assert_array_equal(m.values, [[0, 1, 1], [1, 0, 1]])
    np.testing.assert_array_equal(m.runs, np.ones((2, 3)))
    assert (m.n_systems, m.n_examples, m.n_common) == (2, 3, 3)
    assert m.binary and m.pairing == "full" and m.higher_is_better
    assert (m.benchmark, m.metric) == ("b", "acc")


def test_to_frame_labels() -> None:
    m = build_matrix(_simple())
    f = m.to_frame()
    assert list(f.index) == ["Z", "A"] and list(f.columns) == ["e1", "e10", "e2"]
    assert f.loc["A", "e2"] == 1.0 and f.loc["Z", "e1"] == 0.0


def test_runs_are_averaged_and_counted() -> None:
    df = _long([
        ("b", "A", "e1", "acc", 1, 0), ("b", "A", "e1", "acc", 0, 1), ("b", "A", "e1", "acc", 1, 2),
        ("b", "A", "e2", "acc", 1, 0),
        ("b", "B", "e1", "acc", 0, 0), ("b", "B", "e2", "acc", 1, 0), ("b", "B", "e2", "acc", 1, 1),
    ], run=True)
    m = build_matrix(df)
    np.testing.assert_allclose(m.values, [[2 / 3, 1], [0, 1]])
    np.testing.assert_array_equal(m.runs, [[3, 1], [1, 2]])
    assert not m.binary  # 2/3 is not 0 or 1


def test_averaged_runs_that_are_whole_stay_binary() -> None:
    df = _long([
        ("b", "A", "e1", "m", 1, 0), ("b", "A", "e1", "m", 1, 1), ("b", "A", "e1", "m", 1, 2),
        ("b", "A", "e2", "m", 0, 0),
        ("b", "B", "e1", "m", 0, 0), ("b", "B", "e2", "m", 1, 0), ("b", "B", "e2", "m", 1, 1),
    ], run=True)
    m = build_matrix(df)
    assert m.binary
    np.testing.assert_array_equal(m.values, [[1, 0], [0, 1]])


def test_values_are_never_altered() -> None:
    # (1.1 + 1.3 + 0.6) / 3 is 1.0000000000000002 in float64 (numpy's bincount, the summation
    # build_matrix uses): the mean of runs is kept as computed, and it is not a 0/1 score.
    df = _long([
        ("b", "A", "e1", "m", 1.1, 0), ("b", "A", "e1", "m", 1.3, 1), ("b", "A", "e1", "m", 0.6, 2),
        ("b", "B", "e1", "m", 0, 0),
    ], run=True)
    m = build_matrix(df)
    assert m.values[0, 0] == (1.1 + 1.3 + 0.6) / 3
    assert not m.binary


@pytest.mark.parametrize("value", [123456.7, 1234.005, 99.9995, 1.000004, 0.999996, 0.999992])
def test_values_close_to_integers_are_kept(value: float) -> None:
    """Issue #12's examples: np.isclose at its default rtol (1e-5) used to snap these to
    integers (123456.7 → 123457, 0.999996 → 1), changing scores and faking binary metrics."""
    m = ScoreMatrix.from_array([[value, 0.0], [0.0, 1.0]])
    assert m.values[0, 0] == value
    assert not m.binary
    df = _long([("b", "A", "e1", "m", value, 0), ("b", "B", "e1", "m", 0.0, 0)], run=True)
    assert build_matrix(df).values[0, 0] == value and not build_matrix(df).binary


def test_numeric_modality() -> None:
    df = _long([("b", "A", "e1", "m", 0.5), ("b", "B", "e1", "m", 1.0)])
    assert not build_matrix(df).binary


def test_partial_pairing_and_common_examples() -> None:
    df = _long([
        ("b", "A", "e1", "m", 1), ("b", "A", "e2", "m", 0), ("b", "A", "e3", "m", 1),
        ("b", "B", "e1", "m", 1), ("b", "B", "e2", "m", 1),
        ("b", "C", "e2", "m", 0), ("b", "C", "e1", "m", 1), ("b", "C", "e4", "m", 1),
    ])
    m = build_matrix(df)
    assert m.pairing == "partial"
    assert m.examples == ("e1", "e2", "e3", "e4")
    np.testing.assert_array_equal(m.common, [True, True, False, False])
    assert m.n_common == 2
    np.testing.assert_array_equal(m.paired_values(), [[1, 0], [1, 1], [1, 0]])
    assert np.isnan(m.values[1, 2]) and m.runs[1, 2] == 0


def test_no_overlap_is_unpaired() -> None:
    df = _long([("b", "A", "a1", "m", 1), ("b", "A", "a2", "m", 0), ("b", "B", "b1", "m", 1)])
    m = build_matrix(df)
    assert m.pairing == "none"
    assert m.n_common == 0
    assert m.paired_values().shape == (2, 0)


def test_orient() -> None:
    x = np.array([[0.0, 1.0], [0.25, 1.0]])
    np.testing.assert_array_equal(orient(x, higher_is_better=True, binary=False), x)
    np.testing.assert_array_equal(orient(x, higher_is_better=False, binary=False), -x)
    b = np.array([[0.0, 1.0]])
    np.testing.assert_array_equal(orient(b, higher_is_better=False, binary=True), [[1.0, 0.0]])


def test_oriented_lower_is_better() -> None:
    m = build_matrix(_simple(), spec=MetricSpec(higher_is_better=False))
    assert not m.higher_is_better
    np.testing.assert_array_equal(m.oriented(paired=True), 1 - m.values)


def test_pick_benchmark_and_metric() -> None:
    df = _long([
        ("b1", "A", "e1", "m1", 1), ("b1", "B", "e1", "m1", 0),
        ("b1", "A", "e1", "m2", 0.5), ("b1", "B", "e1", "m2", 0.25),
        ("b2", "A", "e1", "m1", 0), ("b2", "C", "e1", "m1", 1),
    ])
    m = build_matrix(df, benchmark="b1", metric="m2")
    np.testing.assert_array_equal(m.values, [[0.5], [0.25]])
    m = build_matrix(df, benchmark="b2")  # b2 has a single metric: no need to name it
    assert m.systems == ("A", "C") and m.metric == "m1"
    with pytest.raises(DataContractError, match=r"several benchmarks present \(b1, b2\)") as info:
        build_matrix(df)
    assert info.value.problems[0].column == "benchmark"
    assert "--benchmark" in info.value.problems[0].fix
    with pytest.raises(DataContractError, match="several metrics present"):
        build_matrix(df, benchmark="b1")
    with pytest.raises(DataContractError, match=r"benchmark 'nope' not found \(present: b1, b2\)"):
        build_matrix(df, benchmark="nope")
    with pytest.raises(DataContractError, match="metric 'nope' not found"):
        build_matrix(df, benchmark="b1", metric="nope")


def test_subset_reorders_and_recomputes() -> None:
    df = _long([
        ("b", "A", "e1", "m", 1), ("b", "A", "e2", "m", 0.5),
        ("b", "B", "e1", "m", 0), ("b", "B", "e2", "m", 1),
        ("b", "C", "e1", "m", 1),
    ])
    m = build_matrix(df)
    assert m.pairing == "partial" and not m.binary
    s = m.subset(["C", "B"])
    assert s.systems == ("C", "B")
    np.testing.assert_array_equal(s.values[1], [0, 1])
    assert s.binary  # recomputed: A's 0.5 is gone
    assert s.pairing == "partial"
    with pytest.raises(ValueError, match="unknown system"):
        m.subset(["A", "X"])


def test_matrix_equals_brute_force_pivot_on_eval_arena() -> None:
    from engine.io._readers import read_results

    df = read_results(DATA / "humaneval+.jsonl.gz")
    m = build_matrix(df)
    # eval-arena humaneval+: 49 systems × 164 problems, every system on every problem
    assert (m.n_systems, m.n_examples) == (49, 164)
    assert m.pairing == "full" and m.binary
    assert m.systems == tuple(dict.fromkeys(df["system"]))
    pivot = df.pivot_table(index="system", columns="example_id", values="value", aggfunc="mean")
    pivot = pivot.loc[list(m.systems), list(m.examples)]
    np.testing.assert_array_equal(m.values, pivot.to_numpy())
