"""The leaderboard as a display table: readable columns, metadata joined, filters applied.

The frame's columns are the labels people read (``win rate``); the URL names them
by key (``win_rate``, ``app/url.py``'s ``TABLE_COLUMNS``): :func:`label` maps one to
the other.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

import pandas as pd
import streamlit as st

from app import rank_span as span
from app.ranked import DECIMALS, NUMERIC, PERCENT
from app.url import TABLE_COLUMNS, View
from engine.app_support import POINTS, interval_text
from engine.results import Leaderboard

#: What each leaderboard column means (tooltips of the grid and of the ranked table); the
#: technical names are here and on the Methods page, not in the headers.
HELP = {
    "rank": "1 = best mean",
    "rank range": span.HELP,
    "group": "which systems it cannot be told apart from by the pairwise tests: systems "
             "sharing a letter tie (compact letter display); when the letters would be long, "
             "how many other systems it ties with",
    "CI": "confidence interval of the mean at level 1 − alpha (t interval; Wilson for 0/1 "
          "scores)",
    "n": "examples scored",
    "runs": "most runs on one example",
    "win rate": "share of decisive example battles won (ties left out)",
    # the unit in the header (no bare "strength"): each system's share of the total
    "strength (share)": "Bradley–Terry strength: the system's share of all systems' strength "
                        "(sums to 1 over the systems; ties count half)",
    "Elo": "the Bradley–Terry strengths on the Elo scale",
}
#: Group letters longer than this are replaced by the ranks the system ties with.
SHORT_LETTERS = 3
#: Percent columns hold points (×100, :func:`in_points`) written with one decimal, as the
#: ranked table writes them (Streamlit's "percent" format has two: 80.81% beside 80.8%).
_POINTS = "%.1f%%"
_FORMATS = {**{name: f"%.{places}f" for name, places in DECIMALS.items()},
            **dict.fromkeys(PERCENT, _POINTS)}


def in_points(table: pd.DataFrame, *, percent: bool = False) -> pd.DataFrame:
    """``table`` with its percent columns (the win rate; the mean of a 0/1 metric when
    ``percent``) × 100, for the grid's :func:`column_config`."""
    scaled = [c for c in table.columns if c in PERCENT or (percent and c == "mean")]
    return table.assign(**{c: table[c] * 100 for c in scaled}) if scaled else table


def column_config(*, percent: bool = False) -> dict[str, Any]:
    """The grid's columns (the mean in percent for 0/1 metrics; the table through
    :func:`in_points`)."""
    formats = {**_FORMATS, **({"mean": _POINTS} if percent else {})}
    return {
        "system": st.column_config.TextColumn("system", pinned=True),
        **{name: st.column_config.TextColumn(name, help=HELP[name])
           for name in ("rank range", "CI")},
        # wide enough for "ties with 21" (sized for letters, the grid cut it to "ties with")
        "group": st.column_config.TextColumn("group", help=HELP["group"], width=100),
        **{name: st.column_config.NumberColumn(name, help=HELP.get(name),
                                               format=formats.get(name))
           for name in NUMERIC},
    }



def label(key: str) -> str:
    """The label shown for a column key (a metadata column's key is its label)."""
    return TABLE_COLUMNS.get(key, key)


def fit_height(rows: int, cap: int = 420) -> int:
    """A dataframe height that shows ``rows`` rows without blank space (scrolls past ``cap``)."""
    return min(cap, 38 + 35 * max(rows, 1))


def group_cells(board: Leaderboard) -> list[str]:
    """Group letters where they are short; else "ties with 21" (how many other systems it
    cannot be told apart from): a count, so that a row shows one rank span only, its rank
    set (one rank uncertainty on every page)."""
    counts = span.tie_counts(board.table["system"], board.groups.calm_pairs)
    return [letters if len(letters) <= SHORT_LETTERS else span.tie_count_text(n)
            for letters, n in zip(board.table["group"].astype(str), counts, strict=True)]


def interval(low: float, high: float, *, percent: bool) -> str:
    """``[low, high]`` in the table's scale ("—" when missing): the engine's one formatter."""
    return interval_text(low, high, percent=percent)


#: The difference columns of the Pairwise page's table of all pairs.
PAIR_DIFFERENCES = ("A − B", "interval from", "interval to")


def pairs_in_points(rows: pd.DataFrame, help: Mapping[str, str], *,
                    percent: bool) -> tuple[pd.DataFrame, dict[str, Any]]:
    """The pairs table of a 0/1 metric in percentage points, as every page writes a
    difference (:func:`engine.app_support.difference_text`): its difference columns × 100
    and their grid columns ("+4.2 points"). Other metrics: ``rows`` as they are, no columns."""
    if not percent:
        return rows, {}
    shown = [c for c in PAIR_DIFFERENCES if c in rows.columns]
    return (rows.assign(**{c: rows[c] * 100 for c in shown}),
            {c: st.column_config.NumberColumn(help=f"{help.get(c, c)}, in percentage points",
                                              format=f"%+.1f {POINTS}") for c in shown})


def leaderboard_rows(board: Leaderboard, metadata: pd.DataFrame, *,
                     percent: bool = False) -> pd.DataFrame:
    """The engine's table with display columns and the systems' metadata joined on.

    ``percent``: the CI is written in percent (0/1 metrics); the stored values are unchanged.
    """
    t = board.table
    rows = pd.DataFrame({
        "system": t["system"].astype(str),
        "rank": t["rank"],
        "rank range": span.span_texts(span.rank_span(t, board.rank_sets)),
        "group": group_cells(board),
        "mean": t["mean"],
        "CI": [interval(lo, hi, percent=percent)
               for lo, hi in zip(t["ci_low"], t["ci_high"], strict=True)],
        "n": t["n"], "runs": t["runs"], "win rate": t["win_rate"],
        "strength (share)": t["bt_strength"], "Elo": t["elo"],
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
