"""``board_of_group``: the per-benchmark function of a fan-out (docs/scale.md), exercised as
Spark's ``applyInPandas`` and Ray's ``map_groups`` call it — once per (benchmark, metric)
group of the long table — with pandas' ``groupby.apply`` on one machine.

Reference values: :func:`engine.leaderboard` on each benchmark's matrix (the one
implementation; its own tests hold its numbers), on the demo data in data/ (Eval-Arena's
HumanEval+ and MBPP+, MIT; data/README.md).
"""

from __future__ import annotations

import re
from pathlib import Path

import numpy as np
import pandas as pd
import pytest

from engine import build_matrix, leaderboard, read_results
from engine.products._fanout import BOARD_COLUMNS, BOARD_SCHEMA, board_of_group

DATA = Path(__file__).resolve().parents[3] / "data"


@pytest.fixture(scope="module")
def long() -> pd.DataFrame:
    frames = [read_results(DATA / name) for name in ("humaneval+.jsonl.gz", "mbpp+.jsonl.gz")]
    return pd.concat(frames, ignore_index=True)


@pytest.mark.slow  # two leaderboards of 49 and 59 systems, twice
def test_groupby_apply_equals_each_benchmarks_leaderboard(long: pd.DataFrame) -> None:
    cols = ["benchmark", "system", "example_id", "metric", "value"]
    fanned = (long.groupby(["benchmark", "metric"])[cols].apply(board_of_group)
              .reset_index(drop=True))
    assert list(fanned.columns) == list(BOARD_COLUMNS)
    assert set(fanned["benchmark"]) == {"humaneval+", "mbpp+"}
    for bench, rows in fanned.groupby("benchmark"):
        board = leaderboard(build_matrix(long, benchmark=str(bench)))
        t = board.table
        assert rows["system"].tolist() == t["system"].astype(str).tolist()
        assert rows["group"].tolist() == t["group"].tolist()
        np.testing.assert_array_equal(rows["mean"], t["mean"])
        np.testing.assert_array_equal(rows["ci_low"], t["ci_low"])
        sets = board.rank_sets.table.set_index("system").reindex(t["system"])
        assert rows["rank_set_low"].tolist() == sets["rank_set_low"].tolist()
        assert rows["rank_set_high"].tolist() == sets["rank_set_high"].tolist()
    # a shuffled partition (as a cluster delivers its rows) gives the same answer
    one = long[long["benchmark"] == "humaneval+"]
    pd.testing.assert_frame_equal(board_of_group(one.sample(frac=1.0, random_state=3)),
                                  board_of_group(one))


def test_one_positional_parameter_as_spark_counts_them() -> None:
    """applyInPandas passes (key, df) to a function with two positional parameters."""
    import inspect

    assert inspect.getfullargspec(board_of_group).args == ["df"]
    rows = pd.DataFrame({"benchmark": "qa", "system": ["A"] * 20 + ["B"] * 20,
                         "example_id": [f"q{i}" for i in range(20)] * 2, "metric": "acc",
                         "value": [1.0] * 15 + [0.0] * 5 + [1.0] * 5 + [0.0] * 15})
    assert board_of_group(rows, alpha=0.01)["alpha"].iloc[0] == 0.01


def test_schema_names_every_column_and_empty_groups() -> None:
    assert [part.split()[0] for part in BOARD_SCHEMA.split(", ")] == list(BOARD_COLUMNS)
    empty = board_of_group(pd.DataFrame(columns=["benchmark", "system", "example_id",
                                                 "metric", "value"]))
    assert list(empty.columns) == list(BOARD_COLUMNS) and empty.empty


def test_one_group_per_call() -> None:
    rows = pd.DataFrame({"benchmark": ["a", "b"] * 4, "system": ["x", "x", "y", "y"] * 2,
                         "example_id": ["1", "1", "1", "1", "2", "2", "2", "2"],
                         "metric": "m", "value": [1.0, 0, 0, 1] * 2})
    with pytest.raises(ValueError, match=re.escape("one (benchmark, metric) group per call")):
        board_of_group(rows)
