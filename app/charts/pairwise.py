"""Pairwise charts: p-value and effect-size heatmaps, the PWPP, and the per-pair drill-down."""

from __future__ import annotations

import math
from collections.abc import Sequence
from typing import Any, cast

import numpy as np
import pandas as pd

from engine.app_support import isolate
from engine.results import PairwiseTests

from .vl import Datasets, Spec, field, tooltip, top

SIGNIFICANT = "#d62728"
NOT_SIGNIFICANT = "#8a94a6"
#: A pair whose verdict the examples one side lacks could overturn ("cannot decide").
UNDECIDED = "#f59e0b"
TEXT_CELLS = 16  # write the value in each heatmap cell up to this many systems
P_FLOOR = 1e-12


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


def effect_heatmap_spec(result: PairwiseTests, order: Sequence[str]) -> Spec:
    """Effect sizes (positive = row system better), diverging colours (a Vega-Lite dict)."""
    frame = _long(result.matrix("effect_size"), order, "effect").dropna(subset=["effect"])
    bound = float(np.nanmax(np.abs(frame["effect"]))) if len(frame) else 1.0
    bound = bound if math.isfinite(bound) and bound > 0 else 1.0
    color = field("effect", "quantitative", legend={"orient": "top"},
                  scale={"domain": [-bound, bound], "reverse": True, "scheme": "redblue"},
                  title="effect (A vs B)")
    return _heatmap(frame, order, color=color, value="effect", fmt=".2f", title="effect size")


def _heatmap(frame: pd.DataFrame, order: Sequence[str], *, color: dict[str, Any], value: str,
             fmt: str, title: str) -> Spec:
    n = len(order)
    size = _cell_size(n)
    # every label drawn (the focus keeps n small enough for one line per system)
    x = field("B", "nominal", axis={"labelAngle": -60, "labelFontSize": 11, "labelLimit": 180,
                                    "labelOverlap": False}, sort=list(order), title="system B")
    y = field("A", "nominal", axis={"labelFontSize": 11, "labelLimit": 220,
                                    "labelOverlap": False}, sort=list(order), title="system A")
    rect = {"mark": {"type": "rect"}, "encoding": {
        "color": color, "tooltip": [tooltip("A", "nominal"), tooltip("B", "nominal"),
                                    tooltip(value, "quantitative", title=title, fmt=fmt)],
        "x": x, "y": y}}
    data = Datasets()
    ref = data.ref(frame)
    if n <= TEXT_CELLS:
        text = {"mark": {"type": "text", "fontSize": 10}, "encoding": {
            "color": {"value": "#1f2933"}, "text": field(value, "quantitative", format=fmt),
            "x": x, "y": y}}
        body: Spec = {"layer": [rect, text], "data": ref}
    else:
        body = {"data": ref, **rect}
    return top({**body, "height": size * n, "width": size * n}, data)


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


def pwpp_spec(result: PairwiseTests, order: Sequence[str]) -> Spec:
    """Pairwise p-values plot (after emmeans): each pair a segment at its adjusted p-value.

    Systems run down the vertical axis best first; the horizontal axis gives
    the region below alpha (log scale) as much room as the rest. A Vega-Lite dict.
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
    if "undecided" in table.columns:  # examples missing could overturn it (results.pairwise_of)
        frame.loc[(table["undecided"] != "").to_numpy(), "verdict"] = "cannot decide"
    ticks, label_expr = _ticks(result.alpha, decades)
    x = field("pos", "quantitative", axis={"grid": True, "labelExpr": label_expr, "values": ticks},
              scale={"domain": [0, 1]},
              title="adjusted p-value (skewed scale: p < alpha widened)")
    verdicts = {"significant": SIGNIFICANT, "not significant": NOT_SIGNIFICANT,
                "cannot decide": UNDECIDED}
    if not (frame["verdict"] == "cannot decide").any():  # the legend names what is drawn
        verdicts.pop("cannot decide")
    colour = field("verdict", "nominal", scale={
        "domain": list(verdicts), "range": list(verdicts.values())}, title=None)
    tips = [tooltip("A", "nominal"), tooltip("B", "nominal"),
            tooltip("p", "quantitative", fmt=".3g")]
    y_scale = {"domain": list(order)}  # one explicit order shared by every layer
    y_axis = {"labelLimit": 240}
    data = Datasets()
    cut = {"data": data.ref(pd.DataFrame({"pos": [0.5]})),
           "mark": {"type": "rule", "color": "#1f2933", "strokeDash": [4, 4]},
           "encoding": {"x": x}}
    segments = {"data": data.ref(frame),
                "mark": {"type": "rule", "opacity": 0.8, "strokeWidth": 1.5},
                "encoding": {"color": colour, "tooltip": tips, "x": x,
                             "y": field("A", "nominal", axis=y_axis, scale=y_scale, title=None),
                             "y2": {"field": "B"}}}
    ends = pd.concat([frame.assign(system=frame["A"]), frame.assign(system=frame["B"])])
    dots = {"data": data.ref(ends), "mark": {"type": "circle", "opacity": 0.9, "size": 36},
            "encoding": {"color": colour, "tooltip": tips, "x": x,
                         "y": field("system", "nominal", axis=y_axis, scale=y_scale,
                                    title=None)}}
    return top({"layer": [cut, segments, dots], "height": {"step": 22}}, data)


def two_by_two(x: np.ndarray, y: np.ndarray, a: str, b: str) -> pd.DataFrame:
    """The 2×2 table of a binary metric: rows A solved/failed, columns B solved/failed.

    A plain frame for :func:`app.ranked.html_table` (which escapes every cell and header);
    the first column holds the row labels, and each name sits between Unicode isolates so a
    right-to-left name cannot reorder its label.
    """
    xa, yb = x.astype(bool), y.astype(bool)
    name_a, name_b = isolate(str(a)), isolate(str(b))
    return pd.DataFrame({
        "": [f"{name_a} solved", f"{name_a} failed"],
        f"{name_b} solved": [int((xa & yb).sum()), int((~xa & yb).sum())],
        f"{name_b} failed": [int((xa & ~yb).sum()), int((~xa & ~yb).sum())]})
