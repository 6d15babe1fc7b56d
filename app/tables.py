"""The leaderboard as a display table: readable columns, metadata joined, filters applied."""

from __future__ import annotations

import pandas as pd
import streamlit as st

from app.state import View
from engine import Leaderboard

DEFAULT_COLUMNS = ("rank", "rank range", "group", "mean", "CI", "n", "runs", "win rate",
                   "BT strength", "Elo")

COLUMN_CONFIG = {
    "system": st.column_config.TextColumn("system", pinned=True),
    "rank": st.column_config.NumberColumn("rank", help="1 = best mean"),
    "rank range": st.column_config.TextColumn(
        "rank range", help="best rank = 1 + systems significantly better; worst rank = systems "
        "not significantly worse"),
    "group": st.column_config.TextColumn(
        "group", help="systems sharing a letter cannot be told apart"),
    "mean": st.column_config.NumberColumn("mean", format="%.4f"),
    "CI": st.column_config.TextColumn("CI", help="t interval (Wilson for binary scores) at "
                                          "level 1 − alpha"),
    "n": st.column_config.NumberColumn("n", help="examples scored"),
    "runs": st.column_config.NumberColumn("runs", help="most runs on one example"),
    "win rate": st.column_config.NumberColumn(
        "win rate", format="percent", help="share of decisive example battles won"),
    "BT strength": st.column_config.NumberColumn("BT strength", format="%.4f",
                                                 help="Bradley–Terry strength (sums to 1)"),
    "Elo": st.column_config.NumberColumn("Elo", format="%.0f", help="Elo-scale rating"),
}


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
    extra = [c for c in metadata.columns if c != "system" and c not in rows.columns]
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
