"""The significance graph (seed paper §5.1) as frames and as static altair charts.

Vertices are systems at the height of their mean (up = better); an edge joins
two systems whose difference is *not* significant, thicker when less
significant; the best system is drawn in red bold. The clique view lays out
every group of indistinguishable systems (and every isolated system) side by
side in descending mean.
"""

from __future__ import annotations

import math
from collections.abc import Sequence

import altair as alt
import numpy as np
import pandas as pd

from engine import EFFECT_THRESHOLDS, Leaderboard

BEST = "#d62728"
NODE = "#3b5b92"
EDGE = "#8a94a6"


def _columns(n: int) -> int:
    """How many x positions to spread n vertices over (consecutive ranks never share one)."""
    return n if n <= 6 else max(6, math.ceil(math.sqrt(n) * 1.6))


def x_positions(n: int) -> np.ndarray:
    """Horizontal slots by rank (the position itself means nothing, seed paper §5.1).

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
    nodes = nodes.assign(best=np.arange(len(nodes)) == 0)
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


def _mean_scale(board: Leaderboard, values: pd.Series) -> alt.Scale:
    low, high = float(np.nanmin(values)), float(np.nanmax(values))
    pad = (high - low) * 0.06 or 0.01
    return alt.Scale(domain=[low - pad, high + pad], reverse=not board.higher_is_better,
                     zero=False, nice=False)


def static_graph(board: Leaderboard, systems: Sequence[str] | None = None) -> alt.LayerChart:
    """The significance graph as an altair chart (the app draws it to SVG on the server);
    every system shown is labelled (``systems``: the focus, see :func:`graph_frames`)."""
    nodes, edges = graph_frames(board, systems)
    # only what the chart encodes: the spec (sent on every run) stays small
    edges = edges[["system_a", "system_b", "pvalue_adj", "effect_size", "x", "y", "x2", "y2",
                   "width"]].round({"pvalue_adj": 6, "effect_size": 6, "y": 6, "y2": 6,
                                    "width": 3})
    nodes = nodes[["system", "mean", "rank", "group", "x", "best"]]
    height = min(900, max(420, 9 * len(nodes)))
    y_scale = _mean_scale(board, nodes["mean"])
    x_axis = alt.X("x:Q", axis=None, scale=alt.Scale(domain=[-0.6, nodes["x"].max() + 2.4]))
    y_axis = alt.Y("mean:Q", title=f"mean {board.metric}", scale=y_scale)
    opacity = 0.55 if len(edges) < 300 else 0.25
    edge_layer = alt.Chart(edges).mark_rule(color=EDGE, opacity=opacity).encode(
        x=x_axis, y=alt.Y("y:Q", scale=y_scale, title=f"mean {board.metric}"), x2="x2:Q", y2="y2:Q",
        strokeWidth=alt.StrokeWidth("width:Q", legend=None, scale=None),
        tooltip=[alt.Tooltip("system_a:N", title="A"), alt.Tooltip("system_b:N", title="B"),
                 alt.Tooltip("pvalue_adj:Q", title="adjusted p", format=".3g"),
                 alt.Tooltip("effect_size:Q", title="effect size", format=".3f")],
    )
    tooltip = [alt.Tooltip("system:N"), alt.Tooltip("mean:Q", format=".4f"),
               alt.Tooltip("rank:Q"), alt.Tooltip("group:N")]
    points = alt.Chart(nodes).mark_circle(opacity=1).encode(x=x_axis, y=y_axis, tooltip=tooltip)
    point_layer = (points.mark_circle(size=140, opacity=1, color=NODE)
                   .transform_filter("!datum.best")
                   + points.mark_circle(size=220, opacity=1, color=BEST)
                   .transform_filter("datum.best"))
    text = alt.Chart(nodes).encode(x=x_axis, y=y_axis, text="system:N", tooltip=tooltip)
    others = text.mark_text(align="left", dx=9, fontSize=12, color="#1f2933").transform_filter(
        "!datum.best")
    best = text.mark_text(align="left", dx=10, fontSize=14, fontWeight="bold",
                          color=BEST).transform_filter("datum.best")
    label_layer = others + best
    # No per-mark ARIA text: with ~1,200 edges for 78 systems it would double the drawing.
    return (edge_layer + point_layer + label_layer).properties(height=height).configure_mark(
        aria=False)


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


def clique_chart(board: Leaderboard, *, height: int = 420) -> alt.LayerChart:
    """The clique view: each group a column of its members at the height of their means."""
    frame = clique_frame(board)
    y_scale = _mean_scale(board, frame["mean"])
    best = board.table["system"].iloc[0]
    frame["best"] = frame["system"] == best
    x = alt.X("group:O", title="group (best first)", axis=alt.Axis(labelAngle=0))
    y = alt.Y("mean:Q", scale=y_scale, title=f"mean {board.metric}")
    span = frame.groupby("group", as_index=False).agg(low=("mean", "min"), high=("mean", "max"))
    rules = alt.Chart(span).mark_rule(color=EDGE, strokeWidth=3).encode(
        x=x, y=alt.Y("low:Q", scale=y_scale, title=f"mean {board.metric}"), y2="high:Q")
    tooltip = [alt.Tooltip("group:O"), alt.Tooltip("system:N"), alt.Tooltip("mean:Q", format=".4f")]
    points = alt.Chart(frame).encode(x=x, y=y, tooltip=tooltip)
    others = points.mark_circle(size=110, opacity=1, color=NODE).transform_filter("!datum.best")
    best = points.mark_circle(size=170, opacity=1, color=BEST).transform_filter("datum.best")
    return (rules + others + best).properties(height=height)
