"""The Trade-offs chart: each system's confidence box of score (up is better) against cost
(left is better), a point at its estimate, coloured by whether it may be the best trade-off.

Drawn from the same :class:`engine.app_support.ParetoSet` table as the page's table.
Altair, rendered by Streamlit's bundled Vega-Lite (nothing fetched).
"""

from __future__ import annotations

import altair as alt
import pandas as pd

from engine.app_support import POSSIBLY_OPTIMAL

__all__ = ["LABELLED", "STATUS_WORDS", "trade_off_chart"]

#: the engine's statuses in plain words (the table and the legend)
STATUS_WORDS = {POSSIBLY_OPTIMAL: "may be the best trade-off",
                "certainly dominated": "beaten: another is better and cheaper"}
#: systems labelled by name on the chart (more would overlap; the table names them all)
LABELLED = 12
_COLOURS = ["#1f77b4", "#b0b0b0"]


def trade_off_chart(table: pd.DataFrame, score_title: str, cost_title: str, *,
                    percent: bool = False) -> alt.LayerChart:
    """Boxes (``score_low..score_high`` × ``cost_low..cost_high``), estimates and names.

    ``score_title`` / ``cost_title`` are the axis titles, units included; ``percent`` shows
    a 0/1 score's axis in percent.
    """
    data = table[["system", "score", "score_low", "score_high", "cost", "cost_low",
                  "cost_high"]].copy()
    data["status"] = table["status"].map(STATUS_WORDS).fillna(table["status"])
    data["dominated by"] = [", ".join(d) or "none" for d in table["dominated_by"]]
    base = alt.Chart(data)
    y_axis = alt.Axis(title=score_title, format=".0%" if percent else "~g")
    x_axis = alt.Axis(title=cost_title, format="~g", labelOverlap=True)
    colour = alt.Color("status:N", title=None,
                       scale=alt.Scale(domain=list(STATUS_WORDS.values()), range=_COLOURS),
                       legend=alt.Legend(orient="bottom", direction="vertical"))
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
    if len(data) <= LABELLED:
        layers.append(base.mark_text(align="left", dx=5, dy=-6, fontSize=11,
                                     limit=140).encode(x="cost:Q", y="score:Q", text="system:N"))
    return alt.layer(*layers).properties(height=420).configure_view(strokeWidth=0)
