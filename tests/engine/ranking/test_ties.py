"""competition_ranks, the one rank-with-ties of the engine's tables.

Reference: ``scipy.stats.rankdata(-x, method="min")`` (SciPy's own standard competition
ranking; ``rankdata(x, method="min")`` when lower is better) on random inputs drawn with
many ties (values from a small pool), infinities, signed zeros and float noise; also
pandas' ``Series.rank(method="min", ascending=False)``, which the tables used before.
"""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from scipy import stats

from engine.ranking._ties import competition_ranks

# few distinct values so that ties are common; ±inf and ±0.0 among them
POOL = st.sampled_from([0.0, -0.0, 0.1, 0.1 + 1e-17, 0.3, 1.0, -2.5, 1e300, np.inf, -np.inf])
VALUES = st.lists(st.one_of(POOL, st.floats(-1e6, 1e6, allow_nan=False)), max_size=60)


@pytest.mark.slow
@settings(max_examples=300)
@given(values=VALUES, higher=st.booleans())
def test_matches_scipy_rankdata_min(values: list[float], higher: bool) -> None:
    x = np.asarray(values, dtype=float)
    got = competition_ranks(x, higher_is_better=higher)
    expected = stats.rankdata(-x if higher else x, method="min").astype(np.int64)
    assert got.dtype == np.int64
    np.testing.assert_array_equal(got, expected)


@pytest.mark.slow
@settings(max_examples=100)
@given(values=st.lists(POOL, min_size=1, max_size=40))
def test_matches_the_pandas_rank_it_replaces(values: list[float]) -> None:
    x = np.asarray(values, dtype=float)
    before = pd.Series(x).rank(method="min", ascending=False).astype(int).to_numpy()
    np.testing.assert_array_equal(competition_ranks(x), before)


def test_hand_example() -> None:
    # ranks written by hand: 0.9 first; the two 0.7 share rank 2; 0.1 is 4th ("1224")
    assert competition_ranks([0.7, 0.9, 0.7, 0.1]).tolist() == [2, 1, 2, 4]
    assert competition_ranks([]).tolist() == []


@pytest.mark.parametrize(("values", "match"), [
    ([1.0, float("nan")], "must not hold NaN; got NaN at position 1"),
    ([[1.0, 2.0]], r"must be one-dimensional; got shape \(1, 2\)"),
])
def test_refuses_nan_and_matrices(values: list, match: str) -> None:
    with pytest.raises(ValueError, match=match):
        competition_ranks(values)
