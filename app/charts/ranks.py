"""The rank/CI plot: every system's mean with its interval, best first, its rank range beside it.

As arena leaderboards show it: one row per system, a dot at the estimate, a bar
over its confidence interval, and the ranks it could hold written at the right,
so ties are read from the picture (overlapping bars, wide rank ranges) rather
than from group letters.
"""

from __future__ import annotations

from collections.abc import Sequence

import pandas as pd

from app.rank_span import rank_span, span_texts
from engine.results import Leaderboard

from .graph import BEST, NODE
from .vl import Datasets, Spec, field, tooltip, top

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


def rank_ci_spec(board: Leaderboard, *, percent: bool = False, width: int = 520,
                 systems: Sequence[str] | None = None) -> Spec:
    """Means with intervals, sorted best first; the rank range in a column on the right.

    ``systems``: the rows shown (default every system), in table order. A Vega-Lite dict
    (:mod:`app.charts.vl`): built in milliseconds on every settings change.
    """
    frame = rank_frame(board, percent=percent)
    if systems is not None:
        frame = frame[frame["system"].isin(set(systems))].reset_index(drop=True)
    order = list(frame["system"])
    unit = " (%)" if percent else ""
    data = Datasets()
    y = field("system", "nominal", axis={"labelFontSize": 11, "labelLimit": 260,
                                         "labelOverlap": False}, sort=order, title=None)
    title = f"mean {board.metric}{unit} and its confidence interval"
    scale = {"reverse": not board.higher_is_better, "zero": False}
    tips = [tooltip("system", "nominal"), tooltip("mean", "quantitative", fmt=".4g"),
            tooltip("low", "quantitative", title="interval from", fmt=".4g"),
            tooltip("high", "quantitative", title="interval to", fmt=".4g"),
            tooltip("ranks", "nominal", title="rank range")]
    colour = {"condition": {"test": "datum.first", "value": BEST}, "value": NODE}
    bars = {"mark": {"type": "rule", "strokeWidth": 2}, "encoding": {
        "color": colour, "tooltip": tips,
        "x": field("low", "quantitative", scale=scale, title=title), "x2": {"field": "high"},
        "y": y}}
    dots = {"mark": {"type": "circle", "opacity": 1, "size": 42}, "encoding": {
        "color": colour, "tooltip": tips,
        "x": field("mean", "quantitative", scale=scale, title=title), "y": y}}
    height = ROW * len(frame)
    ranks = {"mark": {"type": "text", "align": "left", "color": "#1f2933", "fontSize": 11},
             "encoding": {"text": field("ranks", "nominal"),
                          "y": field("system", "nominal", axis=None, sort=order)},
             "height": height, "title": {"text": "rank range", "anchor": "start", "fontSize": 11},
             "width": 46}
    body = {"hconcat": [{"layer": [bars, dots], "height": height, "width": width}, ranks],
            "data": data.ref(frame), "spacing": 4}
    return top(body, data, config={"view": {"stroke": None}, "mark": {"aria": False}})
