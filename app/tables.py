"""The leaderboard as a display table: readable columns, metadata joined, filters applied.

The frame's columns are the labels people read (``win rate``); the URL names them
by key (``win_rate``, ``app/url.py``'s ``TABLE_COLUMNS``): :func:`label` maps one to
the other.
"""

from __future__ import annotations

import pandas as pd
import streamlit as st

from app.ranked import DECIMALS, NUMERIC, PERCENT
from app.url import TABLE_COLUMNS, View
from engine import Leaderboard

#: What each leaderboard column means (tooltips of the grid and of the ranked table).
HELP = {
    "rank": "1 = best mean",
    "rank range": "best rank = 1 + systems significantly better; worst rank = systems not "
                  "significantly worse",
    "group": "systems sharing a letter cannot be told apart",
    "CI": "t interval (Wilson for binary scores) at level 1 − alpha",
    "n": "examples scored",
    "runs": "most runs on one example",
    "win rate": "share of decisive example battles won",
    "BT strength": "Bradley–Terry strength (sums to 1)",
    "Elo": "Elo-scale rating",
}
_FORMATS = {**{name: f"%.{places}f" for name, places in DECIMALS.items()},
            **dict.fromkeys(PERCENT, "percent")}

COLUMN_CONFIG = {
    "system": st.column_config.TextColumn("system", pinned=True),
    **{name: st.column_config.TextColumn(name, help=HELP[name])
       for name in ("rank range", "group", "CI")},
    **{name: st.column_config.NumberColumn(name, help=HELP.get(name), format=_FORMATS.get(name))
       for name in NUMERIC},
}


def label(key: str) -> str:
    """The label shown for a column key (a metadata column's key is its label)."""
    return TABLE_COLUMNS.get(key, key)


def fit_height(rows: int, cap: int = 420) -> int:
    """A dataframe height that shows ``rows`` rows without blank space (scrolls past ``cap``)."""
    return min(cap, 38 + 35 * max(rows, 1))


def leaderboard_rows(board: Leaderboard, metadata: pd.DataFrame) -> pd.DataFrame:
    """The engine's table with display columns and the systems' metadata joined on."""
    t = board.table
    rows = pd.DataFrame({
        "system": t["system"].astype(str),
        "rank": t["rank"],
        "rank range": t["rank_low"].astype(str) + "–" + t["rank_high"].astype(str),
        "group": t["group"],
        "mean": t["mean"],
        "CI": [f"[{lo:.4f}, {hi:.4f}]" for lo, hi in zip(t["ci_low"], t["ci_high"], strict=True)],
        "n": t["n"], "runs": t["runs"], "win rate": t["win_rate"],
        "BT strength": t["bt_strength"], "Elo": t["elo"],
    })
    # a metadata column named like a built-in column (by label or key) would be ambiguous
    taken = {*rows.columns, *TABLE_COLUMNS}
    extra = [c for c in metadata.columns if c not in taken]
    if extra:
        meta = metadata[["system", *extra]].astype({"system": str})
        rows = rows.merge(meta, on="system", how="left")
    return rows


def filter_rows(rows: pd.DataFrame, view: View) -> pd.DataFrame:
    """Rows whose name contains ``view.q`` and whose ``view.fcol`` is one of ``view.fval``."""
    keep = pd.Series(True, index=rows.index)
    if view.q:
        keep &= rows["system"].str.contains(view.q, case=False, regex=False)
    if view.fcol and view.fval and view.fcol in rows.columns:
        keep &= rows[view.fcol].astype(str).isin(view.fval)
    return rows[keep].reset_index(drop=True)
