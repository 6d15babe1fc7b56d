"""The rank/CI plot's rows: every system's mean with its interval, best first, its rank range.

As arena leaderboards show it (:func:`app.charts.svg.rank_ci_svg` draws them): one row per
system, a dot at the estimate, a bar over its confidence interval, and the ranks it could
hold written at the right, so ties are read from the picture (overlapping bars, wide rank
ranges) rather than from group letters.
"""

from __future__ import annotations

import pandas as pd

from app.rank_span import rank_span, span_texts
from engine.results import Leaderboard

ROW = 16  # pixels per system: every name gets its own line at the chart's font size


def rank_frame(board: Leaderboard, *, percent: bool = False) -> pd.DataFrame:
    """One row per system: label, estimate, interval and rank range (in display scale)."""
    t = board.table
    scale = 100.0 if percent else 1.0
    spans = rank_span(t, board.rank_sets)  # the rank set, as on every page
    return pd.DataFrame({
        "system": t["system"].astype(str),
        "mean": t["mean"].astype(float) * scale,
        "low": t["ci_low"].astype(float) * scale,
        "high": t["ci_high"].astype(float) * scale,
        "ranks": span_texts(spans),
        "first": spans["best"].to_numpy(),
    })
