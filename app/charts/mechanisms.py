"""Charts of the Mechanisms page: agreement between rankings, and P(A beats B)."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import cast

import altair as alt
import pandas as pd

from engine import PBeats

TEXT_CELLS = 16  # write the value in each P(A beats B) cell up to this many systems
#: The five mechanisms compared (engine.CORE_MECHANISMS) and their plain labels, in the
#: agreement matrix and in the page's rankings table.
LABELS = {"mean": "mean", "median": "median", "bradley_terry": "head-to-head",
          "elo": "arena rating", "trueskill": "skill rating"}


def tau_heatmap(kendall: Mapping[str, float], names: Sequence[str],
                labels: Mapping[str, str]) -> alt.LayerChart:
    """Kendall's tau between every two mechanisms' rankings (1 = same order), value in each cell."""
    rows = []
    for a in names:
        for b in names:
            tau = 1.0 if a == b else kendall.get(f"{a}|{b}", kendall.get(f"{b}|{a}"))
            rows.append({"A": labels[a], "B": labels[b], "tau": tau})
    frame = pd.DataFrame(rows)
    order = [labels[n] for n in names]
    base = alt.Chart(frame).encode(
        x=alt.X("B:N", sort=order, title=None, axis=alt.Axis(labelAngle=-30, labelLimit=160)),
        y=alt.Y("A:N", sort=order, title=None, axis=alt.Axis(labelLimit=160)))
    rect = base.mark_rect().encode(
        color=alt.Color("tau:Q", title="agreement (Kendall τ)",
                        scale=alt.Scale(scheme="blues", domain=[0, 1], clamp=True)),
        tooltip=[alt.Tooltip("A:N", title="ranking"), alt.Tooltip("B:N", title="vs"),
                 alt.Tooltip("tau:Q", title="Kendall tau", format=".3f")])
    text = base.mark_text(fontSize=11).encode(
        text=alt.Text("tau:Q", format=".2f"),
        color=alt.condition("datum.tau > 0.6", alt.value("white"), alt.value("#1f2933")))
    size = 56 * len(names)
    return (rect + text).properties(width=size, height=size)


def pbeats_size(n: int) -> int:
    """Pixels of the P(A beats B) heatmap's side for ``n`` systems (11 to 30 per cell: its
    9-pixel labels, one per row, need 11 pixels not to touch)."""
    return int(max(11, min(30, 640 / max(n, 1)))) * n


def pbeats_heatmap(result: PBeats, order: Sequence[str]) -> alt.LayerChart:
    """P(row system beats column system) on the shared examples; significant pairs full colour,
    others faded (sign test, corrected)."""
    prob = result.prob.loc[list(order), list(order)]
    stacked = cast(pd.Series, prob.rename_axis(index="A", columns="B").stack())
    frame = stacked.rename("p_beats").reset_index()
    t = result.table
    significant = set(zip(t.loc[t["significant"], "system_a"], t.loc[t["significant"], "system_b"],
                          strict=True))
    adjusted = dict(zip(zip(t["system_a"], t["system_b"], strict=True), t["pvalue_adj"],
                        strict=True))
    frame["significant"] = [(a, b) in significant or (b, a) in significant
                            for a, b in zip(frame["A"], frame["B"], strict=True)]
    frame["sign_p"] = [adjusted.get((a, b), adjusted.get((b, a)))
                       for a, b in zip(frame["A"], frame["B"], strict=True)]
    frame["verdict"] = frame["significant"].map({True: "significant", False: "not significant"})
    n = len(order)
    size = pbeats_size(n) // max(n, 1)
    labels = n <= 80
    base = alt.Chart(frame).encode(
        x=alt.X("B:N", sort=list(order), title="system B", axis=alt.Axis(
            labels=labels, labelAngle=-60, labelLimit=160, labelFontSize=9, labelOverlap=False)),
        y=alt.Y("A:N", sort=list(order), title="system A", axis=alt.Axis(
            labels=labels, labelLimit=200, labelFontSize=9, labelOverlap=False)))
    rect = base.mark_rect().encode(
        color=alt.Color("p_beats:Q", title="P(A beats B)",
                        scale=alt.Scale(scheme="redblue", domain=[0, 1], reverse=True)),
        opacity=alt.Opacity("verdict:N", title="sign test", scale=alt.Scale(
            domain=["significant", "not significant"], range=[1.0, 0.35])),
        tooltip=[alt.Tooltip("A:N", title="system A"), alt.Tooltip("B:N", title="system B"),
                 alt.Tooltip("p_beats:Q", title="P(A beats B)", format=".2f"),
                 alt.Tooltip("sign_p:Q", title="sign test, adjusted p", format=".2g"),
                 alt.Tooltip("verdict:N", title="verdict")])
    chart: alt.LayerChart | alt.Chart = rect
    if n <= TEXT_CELLS:
        chart = rect + base.mark_text(fontSize=9).encode(
            text=alt.Text("p_beats:Q", format=".2f"), color=alt.value("#1f2933"))
    return chart.properties(width=size * n, height=size * n)  # type: ignore[return-value]
