"""Pairwise charts: p-value and effect-size heatmaps, the PWPP, and the per-pair drill-down."""

from __future__ import annotations

import math
from collections.abc import Sequence
from typing import cast

import altair as alt
import numpy as np
import pandas as pd

from app.ranked import plain
from engine import PairwiseResult

SIGNIFICANT = "#d62728"
NOT_SIGNIFICANT = "#8a94a6"
TEXT_CELLS = 16  # write the value in each heatmap cell up to this many systems
P_FLOOR = 1e-12
PWPP_SYSTEMS = 25  # the PWPP shows pairs among the best this many systems


def _long(square: pd.DataFrame, order: Sequence[str], value: str) -> pd.DataFrame:
    square = square.loc[list(order), list(order)]
    # one column level: stack() gives a Series (typed DataFrame | Series)
    stacked = cast(pd.Series, square.rename_axis(index="A", columns="B").stack())
    return stacked.reset_index(name=value)


#: Smallest cell: one label line per system at the axis font size (labels never overlap).
MIN_CELL = 15
#: p-value bands of the heatmap, most significant first: reds below alpha, grey above.
BAND_COLOURS = ("#8b0000", "#d62728", "#f4a3a3", "#e5e7eb")


def _cell_size(n: int) -> int:
    return int(max(MIN_CELL, min(34, 700 / max(n, 1))))


def p_bands(alpha: float) -> list[str]:
    """Legend entries of the p-value heatmap: three bands below alpha, one at or above."""
    return [f"p < {alpha / 100:g}", f"p < {alpha / 10:g}", f"p < {alpha:g} (significant)",
            f"p ≥ {alpha:g} (not significant)"]


def p_band(p: np.ndarray, alpha: float) -> np.ndarray:
    """The band of each adjusted p-value (:func:`p_bands`)."""
    labels = np.array(p_bands(alpha), dtype=object)
    index = np.searchsorted(np.array([alpha / 100, alpha / 10, alpha]), p, side="right")
    return labels[index]


def pvalue_heatmap(result: PairwiseResult, order: Sequence[str]) -> alt.Chart:
    """Adjusted p-values (rows A, columns B) in bands around alpha: red = significant, grey =
    not; blank where not compared."""
    frame = _long(result.matrix("pvalue_adj"), order, "p")
    frame = frame.dropna(subset=["p"])
    frame["band"] = p_band(frame["p"].to_numpy(float), result.alpha)
    return _heatmap(frame, order, color=alt.Color(
        "band:N", title=f"adjusted p (alpha = {result.alpha:g})",
        scale=alt.Scale(domain=p_bands(result.alpha), range=list(BAND_COLOURS)),
        legend=alt.Legend(orient="top", direction="vertical")),
        value="p", fmt=".2g", title="adjusted p")


def effect_heatmap(result: PairwiseResult, order: Sequence[str]) -> alt.Chart:
    """Effect sizes (positive = row system better), diverging colours."""
    frame = _long(result.matrix("effect_size"), order, "effect").dropna(subset=["effect"])
    bound = float(np.nanmax(np.abs(frame["effect"]))) if len(frame) else 1.0
    bound = bound if math.isfinite(bound) and bound > 0 else 1.0
    return _heatmap(frame, order, color=alt.Color(
        "effect:Q", title="effect (A vs B)",
        scale=alt.Scale(scheme="redblue", domain=[-bound, bound], reverse=True),
        legend=alt.Legend(orient="top")),
        value="effect", fmt=".2f", title="effect size")


def _heatmap(frame: pd.DataFrame, order: Sequence[str], *, color: alt.Color, value: str,
             fmt: str, title: str) -> alt.Chart:
    n = len(order)
    size = _cell_size(n)
    # every label drawn (the focus keeps n small enough for one line per system)
    x = alt.X("B:N", sort=list(order), title="system B", axis=alt.Axis(
        labelLimit=180, labelAngle=-60, labelOverlap=False, labelFontSize=11))
    y = alt.Y("A:N", sort=list(order), title="system A", axis=alt.Axis(
        labelLimit=220, labelOverlap=False, labelFontSize=11))
    base = alt.Chart(frame).encode(x=x, y=y)
    rect = base.mark_rect().encode(
        color=color, tooltip=[alt.Tooltip("A:N"), alt.Tooltip("B:N"),
                              alt.Tooltip(f"{value}:Q", title=title, format=fmt)])
    chart = rect
    if n <= TEXT_CELLS:
        chart = rect + base.mark_text(fontSize=10).encode(
            text=alt.Text(f"{value}:Q", format=fmt), color=alt.value("#1f2933"))
    return chart.properties(width=size * n, height=size * n)


def skew_position(p: np.ndarray, alpha: float, decades: int) -> np.ndarray:
    """PWPP axis: [alpha·10^-decades, alpha] on a log scale fills the left half, [alpha, 1] the right."""
    p = np.clip(np.asarray(p, float), P_FLOOR, 1.0)
    left = 0.5 * (1 + np.log10(p / alpha) / decades)
    right = 0.5 + 0.5 * (p - alpha) / (1 - alpha)
    return np.where(p < alpha, np.clip(left, 0, 0.5), right)


def _decades(p: np.ndarray, alpha: float) -> int:
    smallest = float(np.nanmin(np.clip(p, P_FLOOR, 1))) if len(p) else alpha
    return int(min(10, max(2, math.ceil(-math.log10(smallest / alpha)))))


def _ticks(alpha: float, decades: int) -> tuple[list[float], str]:
    values = [alpha * 10.0**-k for k in range(decades, -1, -1)] + [0.25, 0.5, 1.0]
    values = sorted(set(values))
    positions = skew_position(np.array(values), alpha, decades).round(6).tolist()
    expr = "''"
    for pos, value in zip(positions, values, strict=True):
        expr = f"abs(datum.value - {pos}) < 1e-6 ? '{value:g}' : ({expr})"
    return positions, expr


def pwpp(result: PairwiseResult, order: Sequence[str]) -> alt.LayerChart:
    """Pairwise p-values plot (after emmeans): each pair a segment at its adjusted p-value.

    Systems run down the vertical axis best first; the horizontal axis gives
    the region below alpha (log scale) as much room as the rest.
    """
    keep = set(order)
    table = result.table[result.table["system_a"].isin(keep) & result.table["system_b"].isin(keep)]
    p = table["pvalue_adj"].to_numpy(float)
    decades = _decades(p, result.alpha)
    frame = pd.DataFrame({
        "A": table["system_a"].to_numpy(), "B": table["system_b"].to_numpy(), "p": p,
        "pos": skew_position(p, result.alpha, decades),
        "verdict": np.where(table["significant"].to_numpy(bool), "significant", "not significant"),
    })
    ticks, label_expr = _ticks(result.alpha, decades)
    x = alt.X("pos:Q", title="adjusted p-value (skewed scale: p < alpha widened)",
              scale=alt.Scale(domain=[0, 1]),
              axis=alt.Axis(values=ticks, labelExpr=label_expr, grid=True))
    colour = alt.Color("verdict:N", title=None, scale=alt.Scale(
        domain=["significant", "not significant"], range=[SIGNIFICANT, NOT_SIGNIFICANT]))
    tooltip = [alt.Tooltip("A:N"), alt.Tooltip("B:N"), alt.Tooltip("p:Q", format=".3g")]
    y_scale = alt.Scale(domain=list(order))  # one explicit order shared by every layer
    y_axis = alt.Axis(labelLimit=240)
    segments = alt.Chart(frame).mark_rule(strokeWidth=1.5, opacity=0.8).encode(
        x=x, y=alt.Y("A:N", scale=y_scale, title=None, axis=y_axis), y2="B:N", color=colour,
        tooltip=tooltip)
    ends = pd.concat([frame.assign(system=frame["A"]), frame.assign(system=frame["B"])])
    dots = alt.Chart(ends).mark_circle(size=36, opacity=0.9).encode(
        x=x, y=alt.Y("system:N", scale=y_scale, title=None, axis=y_axis), color=colour,
        tooltip=tooltip)
    cut = alt.Chart(pd.DataFrame({"pos": [0.5]})).mark_rule(strokeDash=[4, 4], color="#1f2933")
    return (cut.encode(x=x) + segments + dots).properties(height=alt.Step(22))


def pair_scatter(x: np.ndarray, y: np.ndarray, a: str, b: str, *, binary: bool) -> alt.LayerChart:
    """A's vs B's score on each example, with the diagonal (points above it: B better)."""
    frame = pd.DataFrame({a: x, b: y})
    low = float(np.nanmin([np.nanmin(x), np.nanmin(y)]))
    high = float(np.nanmax([np.nanmax(x), np.nanmax(y)]))
    if binary:
        scale = alt.Scale(domain=[-0.3, 1.3], nice=False)
        axis = alt.Axis(values=[0, 1], grid=False)
    else:
        scale, axis = alt.Scale(domain=[low, high], nice=True, zero=False), alt.Axis()
    enc_x = alt.X("x:Q", title=a, scale=scale, axis=axis)
    enc_y = alt.Y("y:Q", title=b, scale=scale, axis=axis)
    diagonal = alt.Chart(pd.DataFrame({"x": [low, high], "y": [low, high]})).mark_line(
        color="#8a94a6", strokeDash=[5, 4]).encode(x=enc_x, y=enc_y)
    frame.columns = ["x", "y"]
    if binary:
        counts = frame.value_counts().rename("examples").reset_index()
        points = alt.Chart(counts).mark_circle(color="#3b5b92", opacity=0.8).encode(
            x=enc_x, y=enc_y,
            size=alt.Size("examples:Q", scale=alt.Scale(range=[200, 4000]), legend=None),
            tooltip=["x:Q", "y:Q", "examples:Q"])
        labels = alt.Chart(counts).mark_text(color="white", fontWeight="bold").encode(
            x=enc_x, y=enc_y, text="examples:Q")
        return (diagonal + points + labels).properties(height=360)
    points = alt.Chart(frame).mark_circle(size=28, opacity=0.45, color="#3b5b92").encode(
        x=enc_x, y=enc_y, tooltip=[alt.Tooltip("x:Q", title=a), alt.Tooltip("y:Q", title=b)])
    return (diagonal + points).properties(height=360)


def difference_histogram(diff: np.ndarray, a: str, b: str, *, binary: bool) -> alt.LayerChart:
    """Histogram of per-example differences A − B, with a rule at 0."""
    frame = pd.DataFrame({"diff": diff})
    title = f"{a} − {b} (per example)"
    if binary:  # only −1, 0, 1: one bar each
        x = alt.X("diff:Q", title=title, scale=alt.Scale(domain=[-1.5, 1.5]),
                  axis=alt.Axis(values=[-1, 0, 1], grid=False))
        bars = alt.Chart(frame).mark_bar(color="#3b5b92", size=60).encode(
            x=x, y=alt.Y("count():Q", title="examples"), tooltip=["diff:Q", "count():Q"])
        return bars.properties(height=360)
    bars = alt.Chart(frame).mark_bar(color="#3b5b92").encode(
        x=alt.X("diff:Q", bin=alt.Bin(maxbins=40), title=title),
        y=alt.Y("count():Q", title="examples"))
    zero = alt.Chart(pd.DataFrame({"diff": [0.0]})).mark_rule(color=SIGNIFICANT).encode(x="diff:Q")
    return (bars + zero).properties(height=360)


def two_by_two(x: np.ndarray, y: np.ndarray, a: str, b: str) -> pd.DataFrame:
    """The 2×2 table of a binary metric: rows A passed/failed, columns B passed/failed.

    ``st.table`` renders its labels as markdown, so the names are made inert here.
    """
    xa, yb = x.astype(bool), y.astype(bool)
    return pd.DataFrame(
        [[int((xa & yb).sum()), int((xa & ~yb).sum())],
         [int((~xa & yb).sum()), int((~xa & ~yb).sum())]],
        index=[f"{plain(a)} solved", f"{plain(a)} failed"],
        columns=[f"{plain(b)} solved", f"{plain(b)} failed"])
