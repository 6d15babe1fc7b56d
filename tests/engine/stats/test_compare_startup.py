"""What ``sigboard compare`` spends once DATA is read: the same answers by cheaper means.

The A/B comparison's statistics are imported without statsmodels (its Wilson interval is
statsmodels' formula, operation for operation), its slice is filtered once, and the
examples a side lacks are found without walking a string column one scalar at a time.
Nothing here is timed (benchmarks/bench_startup.py measures it); each test checks that the
cheaper means give what the old ones gave.
"""

from __future__ import annotations

import subprocess
import sys

import numpy as np
import pandas as pd
import pytest
from statsmodels.stats.proportion import proportion_confint

from engine.stats._ab import _equal, _slice, compare_ab
from engine.stats._churn import _wilson
from engine.stats._missing_bounds import missing_bounds


@pytest.mark.slow
def test_the_compare_statistics_import_no_statsmodels() -> None:
    code = ("import sys, engine.stats._ab, engine.stats._churn, engine.stats._missing_bounds; "
            "print(sorted(m for m in sys.modules if m.split('.')[0] == 'statsmodels')[:3])")
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                          check=True)
    assert done.stdout.strip() == "[]"


@pytest.mark.parametrize("n", [1, 2, 7, 100, 10_000, 99_991])
@pytest.mark.parametrize("alpha", [0.001, 0.05, 0.2])
def test_wilson_is_statsmodels_to_the_last_bit(n: int, alpha: float) -> None:
    # reference: statsmodels.stats.proportion.proportion_confint(method="wilson")
    for k in sorted({0, 1, n // 3, n // 2, n - 1, n}):
        low, high = proportion_confint(k, n, alpha=alpha, method="wilson")
        assert _wilson(k, n, alpha) == (float(low), float(high))


def test_equal_is_the_column_compared_row_by_row() -> None:
    column = pd.Series(np.array(["a", "b", None, "a", "c"], dtype=object))
    for value in ("a", "b", "z"):
        got = _equal(column, value)
        assert got is not None and got.tolist() == (column == value).tolist()
    assert _equal(pd.Series(["a", "a"], dtype=object), "a") is None  # every row: no copy


def _table() -> pd.DataFrame:
    rng = np.random.default_rng(3)
    rows = [{"benchmark": bench, "metric": met, "system": s, "example_id": f"e{i}", "run": r,
             "value": float(rng.random() < 0.5 + 0.1 * (s == "B"))}
            for bench in ("b1", "b2") for met in ("acc", "f1") for s in ("A", "B", "C")
            for i in range(40) for r in range(3)]
    return pd.DataFrame(rows)


def test_a_slice_of_a_larger_table_compares_as_the_slice_alone() -> None:
    df = _table()
    alone = df[(df["benchmark"] == "b2") & (df["metric"] == "f1")].reset_index(drop=True)
    part, bench, met = _slice(df, "b2", "f1")
    assert (bench, met, len(part)) == ("b2", "f1", len(alone))
    assert part["system"].tolist() == alone["system"].tolist()
    whole = compare_ab(df, baseline="A", candidate="B", benchmark="b2", metric="f1")
    single = compare_ab(alone, baseline="A", candidate="B")
    assert whole.test == single.test
    assert whole.pairwise == single.pairwise
    pd.testing.assert_frame_equal(whole.models, single.models)
    pd.testing.assert_frame_equal(whole.descriptives, single.descriptives)


def test_unknown_benchmark_still_gets_the_pick_message() -> None:
    with pytest.raises(ValueError, match="benchmark 'b3' not found"):
        compare_ab(_table(), baseline="A", candidate="B", benchmark="b3", metric="acc")


def test_missing_bounds_find_the_lacking_examples_as_before() -> None:
    # the docstring's example of missing_bounds: cand lacks 10 of base's 40 examples
    ids = [f"e{i}" for i in range(40)]
    df = pd.DataFrame({"benchmark": "b", "metric": "acc",
                       "system": ["base"] * 40 + ["cand"] * 30, "example_id": ids + ids[:30],
                       "value": [0.0] * 20 + [1.0] * 20 + [1.0] * 30})
    b = missing_bounds(df, compare_ab(df, baseline="base", candidate="cand"))
    assert b is not None
    assert (b.n, b.baseline_lacks, b.candidate_lacks) == (40, 0, 10)
    full = df[df["example_id"].isin(ids[:30])]
    assert missing_bounds(full, compare_ab(full, baseline="base", candidate="cand")) is None
