"""Boxplot statistics (engine/stats/_describe.py) against matplotlib's ``cbook.boxplot_stats``."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from hypothesis.extra.numpy import arrays
from matplotlib import cbook

from engine.app_support import box_stats
from engine.stats._describe import BOX_COLUMNS


def _reference(column: np.ndarray, whis: float) -> dict:
    return cbook.boxplot_stats(column[~np.isnan(column)], whis=whis)[0]


@pytest.mark.parametrize("whis", [1.5, 0.5, 3.0])
def test_matches_matplotlib_on_skewed_samples(whis: float) -> None:
    rng = np.random.default_rng(0)
    x = np.column_stack([rng.lognormal(size=400), rng.normal(size=400), rng.integers(0, 2, 400)])
    out = box_stats(x, ["a", "b", "c"], whis=whis)
    assert tuple(out.table.columns) == BOX_COLUMNS
    for j, row in out.table.iterrows():
        ref = _reference(x[:, j], whis)
        assert row.q1 == pytest.approx(ref["q1"]) and row.q3 == pytest.approx(ref["q3"])
        assert row["median"] == pytest.approx(ref["med"]) and row["mean"] == pytest.approx(ref["mean"])
        assert row.whisker_low == pytest.approx(ref["whislo"])
        assert row.whisker_high == pytest.approx(ref["whishi"])
        assert row.outliers == len(ref["fliers"])
        mine = out.outliers.loc[out.outliers["system"] == row.system, "value"]
        np.testing.assert_allclose(np.sort(mine), np.sort(ref["fliers"]))


def test_missing_samples_and_empty_systems() -> None:
    x = np.array([[1.0, np.nan], [2.0, np.nan], [np.nan, np.nan], [10.0, np.nan]])
    out = box_stats(x, ["a", "empty"]).table.set_index("system")
    assert out.loc["a", "n"] == 3 and out.loc["a", "median"] == 2.0
    assert out.loc["empty", "n"] == 0 and np.isnan(out.loc["empty", "median"])
    assert np.isnan(out.loc["empty", "whisker_low"])


@pytest.mark.parametrize(("args", "message"), [
    ((np.zeros(3), ["a"]), "samples: must be 2-D"),
    ((np.zeros((3, 2)), ["a"]), "systems: need one name per column of samples \\(2\\); got 1"),
])
def test_bad_input_is_named(args: tuple, message: str) -> None:
    with pytest.raises(ValueError, match=message):
        box_stats(*args)


def test_negative_whis_is_refused() -> None:
    with pytest.raises(ValueError, match="whis: must be a non-negative number of IQRs; got -1"):
        box_stats(np.zeros((3, 1)), ["a"], whis=-1)


@pytest.mark.slow
@settings(max_examples=60)
@given(arrays(float, (25, 3), elements=st.floats(-1e6, 1e6, allow_nan=False)))
def test_random_samples_match_matplotlib_and_keep_order(x: np.ndarray) -> None:
    out = box_stats(x, ["a", "b", "c"])
    t = out.table
    for j in range(3):
        ref = _reference(x[:, j], 1.5)
        assert t["q1"].iloc[j] == pytest.approx(ref["q1"], rel=1e-9, abs=1e-9)
        assert t["whisker_high"].iloc[j] == pytest.approx(ref["whishi"], rel=1e-9, abs=1e-9)
        assert t["outliers"].iloc[j] == len(ref["fliers"])
    swapped = box_stats(x[:, ::-1], ["c", "b", "a"]).table  # relabelling relabels the output
    np.testing.assert_allclose(swapped[["q1", "median", "q3"]].to_numpy()[::-1],
                               t[["q1", "median", "q3"]].to_numpy())
