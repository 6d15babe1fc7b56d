"""The joint model's chart: every system's ability with its interval, best first.

x: the system's rank (1 = best), y: its ability (the predicted score, in percent, on the
reference benchmark) with its interval as a vertical bar, coloured by how many benchmarks
the system ran, so the wide bars of systems resting on few benchmarks stand out. Drawn
from the same :class:`engine.results.JointFit` table as the page's table. Altair, rendered
by Streamlit's bundled Vega-Lite (nothing fetched).
"""

from __future__ import annotations

import altair as alt
import pandas as pd

__all__ = ["ability_chart", "chart_frame"]


def chart_frame(table: pd.DataFrame) -> pd.DataFrame:
    """The chart's rows: one per system, with its rank set written out for the tooltip.

    >>> t = pd.DataFrame({"system": ["a"], "rank": [1], "ability": [50.0],
    ...                   "ability_low": [40.0], "ability_high": [60.0], "rank_set_low": [1],
    ...                   "rank_set_high": [3], "benchmarks_run": [2]})
    >>> chart_frame(t)["rank set"].tolist()
    ['1–3']
    """
    data = table[["system", "rank", "ability", "ability_low", "ability_high",
                  "benchmarks_run"]].copy()
    data["rank set"] = [f"{lo}–{hi}" if lo != hi else f"{lo}" for lo, hi in
                        zip(table["rank_set_low"], table["rank_set_high"], strict=True)]
    data["position"] = range(1, len(data) + 1)
    return data


def ability_chart(table: pd.DataFrame) -> alt.LayerChart:
    """Intervals and estimates of :func:`chart_frame`'s rows (the fit's table, best first)."""
    data = chart_frame(table)
    base = alt.Chart(data)
    x = alt.X("position:Q", title="Systems, best first (rank)",
              scale=alt.Scale(domain=[0, len(data) + 1], nice=False),
              axis=alt.Axis(format="d", tickMinStep=1))
    y_axis = alt.Axis(title="Ability (%)", format="d")
    colour = alt.Color("benchmarks_run:O", title="benchmarks run",
                       scale=alt.Scale(scheme="viridis", reverse=True),
                       legend=alt.Legend(orient="bottom", direction="horizontal"))
    tips = [alt.Tooltip("system:N"), alt.Tooltip("ability:Q", format=".1f", title="ability %"),
            alt.Tooltip("ability_low:Q", format=".1f", title="interval from"),
            alt.Tooltip("ability_high:Q", format=".1f", title="to"),
            alt.Tooltip("rank set:N"), alt.Tooltip("benchmarks_run:O", title="benchmarks run")]
    bars = base.mark_rule(strokeWidth=3, opacity=0.85).encode(
        x=x, y=alt.Y("ability_low:Q", axis=y_axis, scale=alt.Scale(zero=False, nice=True)),
        y2="ability_high:Q", color=colour, tooltip=tips)
    points = base.mark_point(filled=True, size=10, color="#1f2933").encode(
        x="position:Q", y="ability:Q", tooltip=tips)
    return alt.layer(bars, points).properties(height=340).configure_view(strokeWidth=0)
