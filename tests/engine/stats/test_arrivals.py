"""Arrival order of paired observations (engine.stats._arrivals): the array version (one run of
each example counted) equals the pandas one it replaced (#27 item 3: the Watch page computes
it once per challenger), bit for bit — a stored watch fingerprints its observations, so they
must not move; with several runs the pandas version itself runs."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from engine.stats._arrivals import _example_arrivals, _example_arrivals_runs, arrivals


def _uploads(seed: int, n_rows: int, runs: bool) -> pd.DataFrame:
    """Rows of two systems in upload order: examples missing for one system, numeric scores;
    with ``runs``, runs of an example spread over several uploads, else one row each."""
    rng = np.random.default_rng(seed)
    frame = pd.DataFrame({"system": rng.choice(["base", "cand"], n_rows),
                          "example_id": rng.choice([f"e{i}" for i in range(12)], n_rows),
                          "value": rng.normal(size=n_rows).round(rng.integers(0, 4)),
                          "batch": np.sort(rng.integers(1, 6, n_rows))})
    return frame if runs else frame.drop_duplicates(["system", "example_id"])


@pytest.mark.slow  # 39 s of the fast loop on two loaded cores: 200 examples, each through pandas
@settings(max_examples=200)
@given(st.integers(0, 2**32 - 1), st.integers(0, 80), st.booleans())
def test_arrays_equal_the_pandas_version_bit_for_bit(seed: int, n_rows: int,
                                                     runs: bool) -> None:
    rows = _uploads(seed, n_rows, runs)
    got = _example_arrivals(rows, "base", "cand")
    if rows["system"].nunique() < 2:  # pandas' version needs both (the store refuses earlier)
        assert got.empty
        return
    want = _example_arrivals_runs(rows, "base", "cand")  # pandas: group, pivot, merge
    assert got["example_id"].tolist() == want["example_id"].tolist()
    for column in ("arrival", "order"):
        assert got[column].astype(np.int64).tolist() == want[column].astype(np.int64).tolist()
    for column in ("d_base", "d_cand"):
        assert np.array_equal(got[column].to_numpy(np.float64),
                              want[column].to_numpy(np.float64))


def test_one_upload_each_gives_the_scores_in_row_order() -> None:
    rows = pd.DataFrame({"system": ["base", "base", "cand", "cand", "cand"],
                         "example_id": ["b", "a", "a", "b", "c"],
                         "value": [1.0, 0.0, 1.0, 1.0, 0.0], "batch": [1, 1, 2, 2, 2]})
    arr = arrivals(rows, baseline="base", candidate="cand")
    # a arrives at row 2, b at row 3 (both in upload 2); c has no baseline score
    assert arr.label.tolist() == ["a", "b"] and arr.d.tolist() == [1.0, 0.0]
    assert arr.batch.tolist() == [2, 2]
