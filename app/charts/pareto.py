"""The Trade-offs chart: each system's confidence box of score (up is better) against cost
(left is better), a point at its estimate, coloured by whether it may be the best trade-off.

Drawn from the same :class:`engine.app_support.ParetoSet` table as the page's table.
Altair, rendered by Streamlit's bundled Vega-Lite (nothing fetched).
"""

from __future__ import annotations

import altair as alt
import numpy as np
import pandas as pd

from engine.app_support import POSSIBLY_OPTIMAL

__all__ = ["LABELLED", "STATUS_WORDS", "edges", "trade_off_chart"]

#: the engine's statuses in plain words (the table and the legend)
STATUS_WORDS = {POSSIBLY_OPTIMAL: "may be the best trade-off",
                "certainly dominated": "beaten: another is better and cheaper"}
#: systems labelled by name on the chart (more would overlap; the table names them all)
LABELLED = 12
_COLOURS = ["#1f77b4", "#b0b0b0"]


def edges(data: pd.DataFrame, axis: str) -> tuple[pd.Series, pd.Series]:
    """An axis's box bounds with an infinite side moved to the chart's edge: a tenth of the
    finite span beyond the farthest finite bound or estimate.

    >>> t = pd.DataFrame({"cost": [1.0, 2.0], "cost_low": [0.5, -np.inf],
    ...                   "cost_high": [1.5, np.inf]})
    >>> [list(b) for b in edges(t, "cost")]
    [[0.5, 0.35], [1.5, 2.15]]
    """
    low, high = data[f"{axis}_low"].astype(float), data[f"{axis}_high"].astype(float)
    finite = np.concatenate([data[axis].to_numpy(float), low[np.isfinite(low)].to_numpy(),
                             high[np.isfinite(high)].to_numpy()])
    span = float(np.ptp(finite)) or max(abs(float(finite.max())), 1.0)
    bottom, top = float(finite.min()) - span / 10, float(finite.max()) + span / 10
    return low.where(np.isfinite(low), bottom), high.where(np.isfinite(high), top)


def trade_off_chart(table: pd.DataFrame, score_title: list[str], cost_title: list[str], *,
                    percent: bool = False) -> alt.LayerChart:
    """Boxes (``score_low..score_high`` × ``cost_low..cost_high``), estimates and each
    system's number (its row in the table: names would overlap on a phone's width).

    ``score_title`` / ``cost_title`` are the axis titles, one line each item (units
    included); ``percent`` shows a 0/1 score's axis in percent.
    """
    data = table[["system", "score", "score_low", "score_high", "cost", "cost_low",
                  "cost_high"]].copy()
    for axis in ("score", "cost"):  # an unbounded side (too few examples) ends at the edge
        data[f"{axis}_low"], data[f"{axis}_high"] = edges(data, axis)
    data["status"] = table["status"].map(STATUS_WORDS).fillna(table["status"])
    data["dominated by"] = [", ".join(d) or "none" for d in table["dominated_by"]]
    data["label"] = [str(i) for i in range(1, len(data) + 1)]  # the table's "#" column
    middle = float(data["cost"].median())
    base = alt.Chart(data)
    y_axis = alt.Axis(title=score_title, format=".0%" if percent else "~g")
    x_axis = alt.Axis(title=cost_title, format="~g", labelOverlap=True)
    colour = alt.Color("status:N", title=None,
                       scale=alt.Scale(domain=list(STATUS_WORDS.values()), range=_COLOURS),
                       legend=alt.Legend(orient="bottom", direction="vertical", symbolOpacity=1,
                                         symbolStrokeWidth=0, labelLimit=0))
    tips = [alt.Tooltip("system:N"), alt.Tooltip("status:N"),
            alt.Tooltip("score:Q", format=".4g"), alt.Tooltip("score_low:Q", format=".4g"),
            alt.Tooltip("score_high:Q", format=".4g"), alt.Tooltip("cost:Q", format=".4g"),
            alt.Tooltip("cost_low:Q", format=".4g"), alt.Tooltip("cost_high:Q", format=".4g"),
            alt.Tooltip("dominated by:N")]
    boxes = base.mark_rect(opacity=0.22, stroke="black", strokeWidth=0.6).encode(
        x=alt.X("cost_low:Q", axis=x_axis, scale=alt.Scale(zero=False, nice=True)),
        x2="cost_high:Q",
        y=alt.Y("score_low:Q", axis=y_axis, scale=alt.Scale(zero=False, nice=True)),
        y2="score_high:Q", color=colour, tooltip=tips)
    points = base.mark_point(filled=True, size=40).encode(
        x="cost:Q", y="score:Q", color=alt.Color("status:N", legend=None,
                                                 scale=alt.Scale(domain=list(STATUS_WORDS.values()),
                                                                 range=_COLOURS)),
        tooltip=tips)
    layers: list[alt.Chart] = [boxes, points]
    if len(data) <= LABELLED:  # left of the middle: number on the right, else on the left
        for right, keep in ((False, f"datum.cost <= {middle!r}"), (True, f"datum.cost > {middle!r}")):
            layers.append(base.transform_filter(keep).mark_text(
                align="right" if right else "left", dx=-6 if right else 6, dy=-7, fontSize=12,
                fontWeight="bold").encode(x="cost:Q", y="score:Q", text="label:N"))
    return alt.layer(*layers).properties(height=420).configure_view(strokeWidth=0)
