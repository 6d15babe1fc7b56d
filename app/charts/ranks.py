"""The rank/CI plot: every system's mean with its interval, best first, its rank range beside it.

As arena leaderboards show it: one row per system, a dot at the estimate, a bar
over its confidence interval, and the ranks it could hold written at the right,
so ties are read from the picture (overlapping bars, wide rank ranges) rather
than from group letters.
"""

from __future__ import annotations

import altair as alt
import pandas as pd

from engine import Leaderboard

from .graph import BEST, NODE

ROW = 16  # pixels per system: every name gets its own line at the chart's font size


def rank_frame(board: Leaderboard, *, percent: bool = False) -> pd.DataFrame:
    """One row per system: label, estimate, interval and rank range (in display scale)."""
    t = board.table
    scale = 100.0 if percent else 1.0
    ranks = t["rank_low"].astype(int).astype(str) + "–" + t["rank_high"].astype(int).astype(str)
    same = t["rank_low"] == t["rank_high"]
    return pd.DataFrame({
        "system": t["system"].astype(str),
        "mean": t["mean"].astype(float) * scale,
        "low": t["ci_low"].astype(float) * scale,
        "high": t["ci_high"].astype(float) * scale,
        "ranks": ranks.where(~same, t["rank_low"].astype(int).astype(str)),
        "first": t["rank_low"].astype(int) == 1,
    })


def rank_ci_chart(board: Leaderboard, *, percent: bool = False, width: int = 520
                  ) -> alt.HConcatChart:
    """Means with intervals, sorted best first; the rank range in a column on the right."""
    frame = rank_frame(board, percent=percent)
    order = list(frame["system"])
    unit = " (%)" if percent else ""
    y = alt.Y("system:N", sort=order, title=None,
              axis=alt.Axis(labelLimit=260, labelOverlap=False, labelFontSize=11))
    title = f"mean {board.metric}{unit} and its confidence interval"
    scale = alt.Scale(zero=False, reverse=not board.higher_is_better)
    x = alt.X("mean:Q", title=title, scale=scale)
    tooltip = [alt.Tooltip("system:N"), alt.Tooltip("mean:Q", format=".4g"),
               alt.Tooltip("low:Q", title="interval from", format=".4g"),
               alt.Tooltip("high:Q", title="interval to", format=".4g"),
               alt.Tooltip("ranks:N", title="rank range")]
    base = alt.Chart(frame).encode(y=y, tooltip=tooltip)
    colour = alt.condition("datum.first", alt.value(BEST), alt.value(NODE))
    bars = base.mark_rule(strokeWidth=2).encode(
        x=alt.X("low:Q", title=title, scale=scale), x2="high:Q", color=colour)
    dots = base.mark_circle(size=42, opacity=1).encode(x=x, color=colour)
    ranks = alt.Chart(frame).mark_text(align="left", fontSize=11, color="#1f2933").encode(
        y=alt.Y("system:N", sort=order, axis=None), text="ranks:N")
    plot = (bars + dots).properties(width=width, height=ROW * len(frame))
    column = ranks.properties(width=46, height=ROW * len(frame),
                              title=alt.TitleParams("rank range", fontSize=11, anchor="start"))
    return alt.hconcat(plot, column, spacing=4).configure_mark(aria=False).configure_view(
        stroke=None)
