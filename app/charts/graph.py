"""The significance graph (Ackerman et al. 2025, §5.1) as frames, and the clique view as a
Vega-Lite dict (the graph itself is drawn as SVG, :func:`app.charts.svg.static_graph_svg`).

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

from .vl import Datasets, Spec, field, tooltip, top

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
