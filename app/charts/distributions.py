"""Boxplots of scores, bootstrap means and bootstrap ranks, one row per system (seed paper §3).

The engine computes the five numbers and the outliers (``engine.box_stats``);
the chart only draws them, so a 10,000-resample bootstrap ships as a few rows
per system rather than every resample.
"""

from __future__ import annotations

from collections.abc import Sequence

import altair as alt
import pandas as pd

from engine import BoxStats

BOX_COLOR = "#3b5b92"
MAX_OUTLIERS = 5000  # points beyond the whiskers drawn at most (the count is always in the tooltip)
_ROW = 22  # pixels per system: room for a label at the app theme's font size


#: The colouring attribute's field in the chart's data: a fixed, plain name (a metadata
#: column called ``o'brien`` or ``a.b`` would be read as an expression or a nested field).
HUE = "hue"


def _color(title: str | None) -> alt.Color | alt.ColorValue:
    if title is None:
        return alt.ColorValue(BOX_COLOR)
    return alt.Color(f"{HUE}:N", title=title, legend=alt.Legend(orient="top"))


def box_chart(stats: BoxStats, order: Sequence[str], *, title: str, color: pd.Series | None = None,
              integer: bool = False) -> alt.LayerChart:
    """Horizontal boxplots of ``stats`` (systems top to bottom in ``order``).

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
    y = alt.Y("system:N", sort=list(order), title=None,
              axis=alt.Axis(labelLimit=240, labelOverlap=False))
    tooltip: list[str | alt.Tooltip] = ["system:N",
                                        *([alt.Tooltip(f"{HUE}:N", title=column)] if column
                                          else []), "n:Q",
               *(alt.Tooltip(f"{f}:Q", format=number) for f in
                 ("whisker_low", "q1", "median", "q3", "whisker_high")),
               alt.Tooltip("mean:Q", format=".4g"), "outliers:Q"]
    base = alt.Chart(box).encode(y=y, tooltip=tooltip)
    whiskers = base.mark_rule(color="#555").encode(x=alt.X("whisker_low:Q", title=title,
                                                           scale=alt.Scale(zero=False)),
                                                   x2="whisker_high:Q")
    boxes = base.mark_bar(size=_ROW * 0.6, opacity=0.85).encode(x="q1:Q", x2="q3:Q",
                                                                 color=_color(column))
    # dark, so a box of zero width (the same rank in every resample) still shows its median
    medians = base.mark_tick(color="#1a1a1a", thickness=2, size=_ROW * 0.6).encode(x="median:Q")
    layers: list[alt.Chart] = [whiskers, boxes, medians]
    if 0 < len(stats.outliers) <= MAX_OUTLIERS:
        layers.append(alt.Chart(stats.outliers).mark_point(
            size=12, color="#555", opacity=0.5, filled=True).encode(
            x="value:Q", y=y, tooltip=["system:N", alt.Tooltip("value:Q", format=number)]))
    chart = alt.LayerChart(layer=layers)
    return chart.properties(height=max(120, _ROW * len(order)))
