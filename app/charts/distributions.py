"""Boxplots of scores, bootstrap means and bootstrap ranks, one row per system (seed paper §3).

The engine computes the five numbers and the outliers (``engine.box_stats``);
the chart only draws them, so a 10,000-resample bootstrap ships as a few rows
per system rather than every resample.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import pandas as pd

from engine import BoxStats

from .vl import Chart, Datasets, Spec, as_chart, field, tooltip, top

BOX_COLOR = "#3b5b92"
MAX_OUTLIERS = 5000  # points beyond the whiskers drawn at most (the count is always in the tooltip)
_ROW = 22  # pixels per system: room for a label at the app theme's font size


#: The colouring attribute's field in the chart's data: a fixed, plain name (a metadata
#: column called ``o'brien`` or ``a.b`` would be read as an expression or a nested field).
HUE = "hue"


def box_chart_spec(stats: BoxStats, order: Sequence[str], *, title: str,
                   color: pd.Series | None = None, integer: bool = False) -> Spec:
    """Horizontal boxplots of ``stats`` (systems top to bottom in ``order``), a Vega-Lite dict
    (:mod:`app.charts.vl`).

    ``color`` maps system → an attribute value that colours the boxes (metadata).
    ``integer`` formats the tooltip for ranks.
    """
    box = stats.table.copy()
    column = None
    if color is not None:
        column = str(color.name)
        box[HUE] = box["system"].map(color).fillna("(none)").astype(str)
    number = "d" if integer else ".4g"
    # every label drawn: the app theme's font would otherwise make Vega hide every other one
    y = field("system", "nominal", axis={"labelLimit": 240, "labelOverlap": False},
              sort=list(order), title=None)
    tips = [tooltip("system", "nominal"),
            *([tooltip(HUE, "nominal", title=column)] if column else []),
            tooltip("n", "quantitative"),
            *(tooltip(f, "quantitative", fmt=number)
              for f in ("whisker_low", "q1", "median", "q3", "whisker_high")),
            tooltip("mean", "quantitative", fmt=".4g"), tooltip("outliers", "quantitative")]
    data = Datasets()
    ref = data.ref(box)
    whiskers = {"data": ref, "mark": {"type": "rule", "color": "#555"}, "encoding": {
        "tooltip": tips, "x": field("whisker_low", "quantitative", scale={"zero": False},
                                    title=title),
        "x2": {"field": "whisker_high"}, "y": y}}
    colour: dict[str, Any] = (
        {"value": BOX_COLOR} if column is None else
        field(HUE, "nominal", legend={"orient": "top"}, title=column))
    boxes = {"data": ref, "mark": {"type": "bar", "opacity": 0.85, "size": _ROW * 0.6},
             "encoding": {"color": colour, "tooltip": tips, "x": field("q1", "quantitative"),
                          "x2": {"field": "q3"}, "y": y}}
    # dark, so a box of zero width (the same rank in every resample) still shows its median
    medians = {"data": ref, "mark": {"type": "tick", "color": "#1a1a1a", "size": _ROW * 0.6,
                                     "thickness": 2},
               "encoding": {"tooltip": tips, "x": field("median", "quantitative"), "y": y}}
    layers = [whiskers, boxes, medians]
    if 0 < len(stats.outliers) <= MAX_OUTLIERS:
        layers.append({"data": data.ref(stats.outliers),
                       "mark": {"type": "point", "color": "#555", "filled": True,
                                "opacity": 0.5, "size": 12},
                       "encoding": {"tooltip": [tooltip("system", "nominal"),
                                                tooltip("value", "quantitative", fmt=number)],
                                    "x": field("value", "quantitative"), "y": y}})
    return top({"layer": layers, "height": max(120, _ROW * len(order))}, data)


def box_chart(stats: BoxStats, order: Sequence[str], *, title: str, color: pd.Series | None = None,
              integer: bool = False) -> Chart:
    """:func:`box_chart_spec` as an altair chart."""
    return as_chart(box_chart_spec(stats, order, title=title, color=color, integer=integer))
