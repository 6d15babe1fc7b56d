"""The significance graph (Ackerman et al. 2025, §5.1) as frames and as static altair charts.

Vertices are systems at the height of their mean (up = better); an edge joins
two systems whose difference is *not* significant, thicker when less
significant; the best system is drawn in red bold. The clique view lays out
every group of indistinguishable systems (and every isolated system) side by
side in descending mean.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from typing import Any

import numpy as np
import pandas as pd

from app.rank_span import rank_span
from engine import EFFECT_THRESHOLDS
from engine.results import Leaderboard

from .vl import Chart, Datasets, Spec, as_chart, field, tooltip, top

BEST = "#d62728"
NODE = "#3b5b92"
EDGE = "#8a94a6"


def _columns(n: int) -> int:
    """How many x positions to spread n vertices over (consecutive ranks never share one)."""
    return n if n <= 6 else max(6, math.ceil(math.sqrt(n) * 1.6))


def x_positions(n: int) -> np.ndarray:
    """Horizontal slots by rank (the position itself means nothing, Ackerman et al. 2025, §5.1).

    Neighbours in rank usually have close means, so they are put several
    columns apart (a stride coprime with the column count) and their labels
    do not collide.
    """
    cols = _columns(n)
    stride = next((k for k in range(max(cols // 3, 1), 0, -1) if math.gcd(k, cols) == 1), 1)
    return (np.arange(n) * stride) % cols


def insignificance(pairs: pd.DataFrame, criterion: str, alpha: float) -> np.ndarray:
    """0..1 per pair: how far from significant (1 = p-value 1 or effect size 0)."""
    if criterion == "pvalue":
        p = pairs["pvalue_adj"].to_numpy(float)
        return np.clip((p - alpha) / (1 - alpha), 0, 1)
    effect = np.abs(pairs["effect_size"].to_numpy(float))
    return np.clip(1 - effect / EFFECT_THRESHOLDS[criterion], 0, 1)


def graph_frames(board: Leaderboard, systems: Sequence[str] | None = None
                 ) -> tuple[pd.DataFrame, pd.DataFrame]:
    """Vertices (system, mean, rank, group, x, best) and edges (non-significant pairs).

    ``systems``: the focus (default every system); edges only among them.
    """
    nodes = board.table[["system", "mean", "rank", "rank_low", "rank_high", "group"]]
    spans = rank_span(board.table, board.rank_sets)  # "could be" ranks: the rank set
    nodes = nodes.assign(rank_low=spans["low"].to_numpy(), rank_high=spans["high"].to_numpy(),
                         best=np.arange(len(nodes)) == 0)
    if systems is not None:
        nodes = nodes[nodes["system"].isin(set(systems))]
    nodes = nodes.copy()
    nodes["x"] = x_positions(len(nodes))
    pw = board.pairwise
    keep = set(nodes["system"])
    pairs = pw.table[~pw.table["significant"].astype(bool) & pw.table["system_a"].isin(keep)
                     & pw.table["system_b"].isin(keep)]
    pairs = pairs[["system_a", "system_b", "pvalue_adj", "effect_size"]].copy()
    pairs["weight"] = insignificance(pairs, pw.criterion, pw.alpha)
    pos = nodes.set_index("system")
    edges = pairs.assign(
        x=pos.loc[pairs["system_a"], "x"].to_numpy(), y=pos.loc[pairs["system_a"], "mean"].to_numpy(),
        x2=pos.loc[pairs["system_b"], "x"].to_numpy(), y2=pos.loc[pairs["system_b"], "mean"].to_numpy(),
        width=0.3 + 3.2 * pairs["weight"].to_numpy(),
    )
    return nodes.reset_index(drop=True), edges.reset_index(drop=True)


def _mean_scale(board: Leaderboard, values: pd.Series) -> dict[str, Any]:
    low, high = float(np.nanmin(values)), float(np.nanmax(values))
    pad = (high - low) * 0.06 or 0.01
    return {"domain": [low - pad, high + pad], "nice": False,
            "reverse": not board.higher_is_better, "zero": False}


def static_graph_spec(board: Leaderboard, systems: Sequence[str] | None = None) -> Spec:
    """The significance graph as a Vega-Lite dict (:mod:`app.charts.vl`); every system shown
    is labelled (``systems``: the focus, see :func:`graph_frames`)."""
    nodes, edges = graph_frames(board, systems)
    # only what the chart encodes: the spec (sent on every run) stays small
    edges = edges[["system_a", "system_b", "pvalue_adj", "effect_size", "x", "y", "x2", "y2",
                   "width"]].round({"pvalue_adj": 6, "effect_size": 6, "y": 6, "y2": 6,
                                    "width": 3})
    nodes = nodes[["system", "mean", "rank", "group", "x", "best"]]
    height = min(900, max(420, 9 * len(nodes)))
    y_scale = _mean_scale(board, nodes["mean"])
    title = f"mean {board.metric}"
    x_axis = field("x", "quantitative", axis=None,
                   scale={"domain": [-0.6, float(nodes["x"].max()) + 2.4]})
    y_axis = field("mean", "quantitative", scale=y_scale, title=title)
    opacity = 0.55 if len(edges) < 300 else 0.25
    data = Datasets()
    edge_layer = {"data": data.ref(edges), "mark": {"type": "rule", "color": EDGE,
                                                    "opacity": opacity},
                  "encoding": {
                      "strokeWidth": field("width", "quantitative", legend=None, scale=None),
                      "tooltip": [tooltip("system_a", "nominal", title="A"),
                                  tooltip("system_b", "nominal", title="B"),
                                  tooltip("pvalue_adj", "quantitative", title="adjusted p",
                                          fmt=".3g"),
                                  tooltip("effect_size", "quantitative", title="effect size",
                                          fmt=".3f")],
                      "x": x_axis, "x2": {"field": "x2"},
                      "y": field("y", "quantitative", scale=y_scale, title=title),
                      "y2": {"field": "y2"}}}
    tips = [tooltip("system", "nominal"), tooltip("mean", "quantitative", fmt=".4f"),
            tooltip("rank", "quantitative"), tooltip("group", "nominal")]

    def mark(spec: dict[str, Any], best: bool, text: bool = False) -> Spec:
        encoding = {"tooltip": tips, "x": x_axis, "y": y_axis}
        if text:
            encoding = {"text": field("system", "nominal"), **encoding}
        return {"mark": spec, "encoding": encoding,
                "transform": [{"filter": "datum.best" if best else "!datum.best"}]}

    ref = data.ref(nodes)
    point_layer = {"layer": [
        mark({"type": "circle", "color": NODE, "opacity": 1, "size": 140}, False),
        mark({"type": "circle", "color": BEST, "opacity": 1, "size": 220}, True)], "data": ref}
    label_layer = {"layer": [
        mark({"type": "text", "align": "left", "color": "#1f2933", "dx": 9, "fontSize": 12},
             False, True),
        mark({"type": "text", "align": "left", "color": BEST, "dx": 10, "fontSize": 14,
              "fontWeight": "bold"}, True, True)], "data": ref}
    # No per-mark ARIA text: with ~1,200 edges for 78 systems it would double the drawing.
    return top({"layer": [edge_layer, point_layer, label_layer], "height": height}, data,
               config={"mark": {"aria": False}})


def static_graph(board: Leaderboard, systems: Sequence[str] | None = None) -> Chart:
    """:func:`static_graph_spec` as an altair chart (the SVG download draws it)."""
    return as_chart(static_graph_spec(board, systems))


def clique_frame(board: Leaderboard) -> pd.DataFrame:
    """One row per (group, member): every clique and every system in none, best group first."""
    means = board.table.set_index("system")["mean"]
    groups = [list(c) for c in board.cliques]
    covered = {s for c in groups for s in c}
    groups += [[s] for s in board.table["system"] if s not in covered]
    sign = 1 if board.higher_is_better else -1
    groups.sort(key=lambda members: -sign * float(means[members].mean()))
    rows = [{"group": i + 1, "system": s, "mean": float(means[s]), "size": len(members)}
            for i, members in enumerate(groups) for s in members]
    return pd.DataFrame(rows, columns=["group", "system", "mean", "size"])


def clique_spec(board: Leaderboard, *, height: int = 420) -> Spec:
    """The clique view: each group a column of its members at the height of their means
    (a Vega-Lite dict, :mod:`app.charts.vl`)."""
    frame = clique_frame(board)
    y_scale = _mean_scale(board, frame["mean"])
    best = board.table["system"].iloc[0]
    frame["best"] = frame["system"] == best
    x = field("group", "ordinal", axis={"labelAngle": 0}, title="group (best first)")
    title = f"mean {board.metric}"
    span = frame.groupby("group", as_index=False).agg(low=("mean", "min"), high=("mean", "max"))
    data = Datasets()
    rules = {"data": data.ref(span), "mark": {"type": "rule", "color": EDGE, "strokeWidth": 3},
             "encoding": {"x": x, "y": field("low", "quantitative", scale=y_scale, title=title),
                          "y2": {"field": "high"}}}
    tips = [tooltip("group", "ordinal"), tooltip("system", "nominal"),
            tooltip("mean", "quantitative", fmt=".4f")]
    ref = data.ref(frame)
    encoding = {"tooltip": tips, "x": x,
                "y": field("mean", "quantitative", scale=y_scale, title=title)}
    others = {"data": ref, "mark": {"type": "circle", "color": NODE, "opacity": 1, "size": 110},
              "encoding": encoding, "transform": [{"filter": "!datum.best"}]}
    top_one = {"data": ref, "mark": {"type": "circle", "color": BEST, "opacity": 1, "size": 170},
               "encoding": encoding, "transform": [{"filter": "datum.best"}]}
    return top({"layer": [rules, others, top_one], "height": height}, data)
