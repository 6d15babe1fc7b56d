"""One benchmark's leaderboard as a function of its rows: the unit of a fan-out.

When results outgrow one machine (docs/scale.md), every (benchmark, metric) is still
small — systems × examples — and independent of the others, so a cluster engine fans the
long table out by (benchmark, metric) and runs the same function on each group: Spark's
``df.groupBy("benchmark", "metric").applyInPandas(board_of_group, BOARD_SCHEMA)``, Ray
Data's ``ds.groupby(["benchmark", "metric"]).map_groups(board_of_group,
batch_format="pandas")``, or pandas' ``groupby(...).apply`` on one machine. The function is
:func:`engine.leaderboard` (the same tests, rank sets and groups as every page), its rows
flattened into a fixed schema, so the groups' answers concatenate into one table.
"""

from __future__ import annotations

from typing import Any

import numpy as np
import pandas as pd

from .._contract import validate_long
from .._matrix import build_matrix
from .._options import TestOptions, resolve
from ._leaderboard import leaderboard

__all__ = ["BOARD_COLUMNS", "BOARD_SCHEMA", "board_of_group"]

#: The columns :func:`board_of_group` returns, in order.
BOARD_COLUMNS = ("benchmark", "metric", "system", "rank", "rank_set_low", "rank_set_high",
                 "in_best_set", "group", "mean", "ci_low", "ci_high", "n", "test", "alpha",
                 "correction")
#: The same as a Spark DDL schema string (``applyInPandas`` needs it declared).
BOARD_SCHEMA = ("benchmark string, metric string, system string, rank long, rank_set_low long, "
                "rank_set_high long, in_best_set boolean, group string, mean double, "
                "ci_low double, ci_high double, n long, test string, alpha double, "
                "correction string")


def board_of_group(df: pd.DataFrame, *, options: TestOptions | None = None,
                   **overrides: Any) -> pd.DataFrame:
    """The leaderboard of one (benchmark, metric) group of the long table, as rows.

    Parameters
    ----------
    df : DataFrame
        The group's rows: benchmark, system, example_id, metric, value (and run), one
        benchmark and one metric; any row order.
    options : TestOptions, keyword-only
        How pairs are tested (as :func:`engine.leaderboard`); ``**overrides`` by field name.
        Keyword-only: the function takes one positional argument, as Spark's
        ``applyInPandas`` requires of a function called without the group's key (it counts
        the positional parameters; two would receive ``(key, df)``).

    Returns
    -------
    DataFrame
        :data:`BOARD_COLUMNS`, one row per system, best first: rank, the simultaneous rank
        set (``rank_set_low``/``rank_set_high``, ``in_best_set``), group letters, mean and
        interval, examples scored, and the test that made them.

    Examples
    --------
    >>> rows = pd.DataFrame({"benchmark": "qa", "system": ["A"] * 40 + ["B"] * 40,
    ...                      "example_id": [f"q{i}" for i in range(40)] * 2, "metric": "acc",
    ...                      "value": [1] * 35 + [0] * 5 + [1] * 10 + [0] * 30})
    >>> board_of_group(rows)[["system", "rank", "group"]].to_dict("list")
    {'system': ['A', 'B'], 'rank': [1, 2], 'group': ['a', 'b']}
    """
    if df.empty:  # an engine may call the function on an empty partition
        return pd.DataFrame({c: pd.Series(dtype=_dtype(c)) for c in BOARD_COLUMNS})
    rows = validate_long(df, source="group")
    keys = rows[["benchmark", "metric"]].drop_duplicates()
    if len(keys) != 1:
        raise ValueError(f"df: one (benchmark, metric) group per call; got {len(keys)} "
                         f"({keys.head(3).to_dict('records')}); group by benchmark and metric")
    opts = resolve(options, overrides)
    board = leaderboard(build_matrix(rows), opts, bt_resamples=0)
    t = board.table
    if board.rank_sets is not None:
        sets = board.rank_sets.table.assign(system=board.rank_sets.table["system"].astype(str))
        by = sets.set_index("system").reindex(t["system"].astype(str))
        low, high = by["rank_set_low"].to_numpy(np.int64), by["rank_set_high"].to_numpy(np.int64)
        best = by["in_best_set"].to_numpy(bool)
    else:  # fewer than 2 examples: the pairwise tests' range, as the pages show it
        low, high = t["rank_low"].to_numpy(np.int64), t["rank_high"].to_numpy(np.int64)
        best = low == 1
    out = pd.DataFrame({
        "benchmark": board.benchmark, "metric": board.metric,
        "system": t["system"].astype(str).to_numpy(), "rank": t["rank"].to_numpy(np.int64),
        "rank_set_low": low, "rank_set_high": high, "in_best_set": best,
        "group": t["group"].astype(str).to_numpy(), "mean": t["mean"].to_numpy(float),
        "ci_low": t["ci_low"].to_numpy(float), "ci_high": t["ci_high"].to_numpy(float),
        "n": t["n"].to_numpy(np.int64), "test": board.test, "alpha": board.pairwise.alpha,
        "correction": board.pairwise.correction})
    return out[list(BOARD_COLUMNS)]


def _dtype(column: str) -> str:
    if column in ("rank", "rank_set_low", "rank_set_high", "n"):
        return "int64"
    if column in ("mean", "ci_low", "ci_high", "alpha"):
        return "float64"
    return "bool" if column == "in_best_set" else "object"
