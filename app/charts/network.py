"""The interactive significance graph: pyvis, made fully self-contained.

pyvis's template loads bootstrap (and, unless told otherwise, vis-network)
from CDNs. ``cdn_resources="in_line"`` inlines vis-network from the files
bundled in the pyvis package; :func:`self_contained` then removes every
remaining external ``<script src>``/``<link href>`` so the page makes no
request at all. Names are passed as they are: vis-network draws labels on a
canvas and sets tooltips with ``innerText`` (text, never HTML), and the
template writes the data with Jinja's HTML-safe ``tojson`` (``<`` as
``\u003c``), so a name shows once escaped — as itself — and never as markup.

Readable labels: the graph uses the static graph's layout and label places
(:func:`app.charts.svg.graph_labels`), fixed (no physics, nodes not draggable). vis-network
can only draw a dot's label centred under it, so each system is two nodes: its dot (no
label) and its label, a ``text`` node centred on the label's box; a label moved away from
its dot is joined to it by a thin line, as in the static graph. The canvas zooms text and
positions together, so boxes that do not meet in layout coordinates never meet on screen.

pyvis is optional (the ``network`` extra: ``pip install 'sigboard[network]'``; it depends on
IPython): without it :func:`network_html` returns a short page that says how to install it,
and the static graph (:mod:`app.charts.svg`) is unaffected.
"""

from __future__ import annotations

import math
import re
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np
import pandas as pd

try:  # optional (pyvis brings IPython): pip install 'sigboard[network]'
    from pyvis.network import Network

    HAVE_PYVIS = True
except ImportError:  # the "Significance graph" tab draws the same graph as SVG without it
    HAVE_PYVIS = False

from engine.app_support import cut_name, isolate
from engine.results import Leaderboard

from .graph import BEST, EDGE, NODE, graph_frames
from .labels import Label
from .svg import graph_height, graph_labels

_EXTERNAL_TAG = re.compile(
    r"<script\b[^>]*\bsrc\s*=\s*[\"']?(?:https?:)?//[^>]*>\s*</script>"
    r"|<link\b[^>]*\bhref\s*=\s*[\"']?(?:https?:)?//[^>]*>",
    re.IGNORECASE | re.DOTALL,
)
_EXTERNAL_REF = re.compile(r"\b(?:src|href)\s*=\s*[\"']?(?:https?:)?//", re.IGNORECASE)
#: The graph's data, one JSON line each (Jinja's ``tojson``: ``<`` and newlines escaped): names
#: in it are strings that vis-network draws as text, never a reference, so a name holding
#: ``src=http://`` is not a resource to refuse.
_DATA_LINE = re.compile(r"^[ \t]*(?:nodes|edges) = new vis\.DataSet\(.*\);[ \t]*$", re.MULTILINE)
_EMPTY_HEADING = re.compile(r"<center>\s*<h1>\s*</h1>\s*</center>")
_FIT = "<script>network.fit(); setTimeout(function () { network.fit(); }, 0);</script>\n</body>"
WIDTH = 1000  # layout width in vis-network's coordinates, as the static graph (the canvas zooms)
#: The static graph's margins (left, right, top, bottom) in pixels: :func:`static_graph_svg`.
MARGINS = (64.0, 24.0, 16.0, 24.0)
INK = "#1f2933"
#: Dot radius and label font size: best system, others (as the static graph).
RADIUS = (8.4, 6.7)
FONT_SIZE = (14, 12)


#: The interactive graph's page where pyvis is not installed (self-contained, like the graph).
MISSING_PYVIS = (
    '<!DOCTYPE html><html lang="en"><head><meta charset="utf-8"><title>Interactive graph</title>'
    "</head><body style=\"font-family: sans-serif; color: #1f2933\"><p>The interactive graph "
    "needs pyvis, which is not installed here: <code>pip install 'sigboard[network]'</code> "
    "(in a checkout: <code>pip install -e '.[network]'</code>), then restart the server. The "
    "<b>Significance graph</b> tab shows the same graph as a picture.</p></body></html>"
)


class ExternalResourceError(RuntimeError):
    """The generated HTML still refers to something outside the page."""


def self_contained(page: str) -> str:
    """Remove external script/stylesheet tags; raise if any external reference is left."""
    page = _EMPTY_HEADING.sub("", _EXTERNAL_TAG.sub("", page))
    if _EXTERNAL_REF.search(_DATA_LINE.sub("", page)):
        raise ExternalResourceError("the graph's HTML still loads an external resource")
    return page


def _label(text: object) -> str:
    """A name inside a tooltip sentence: isolated, so a right-to-left override inside it
    cannot reorder the words around it (a canvas label stands alone: the name as it is)."""
    return isolate(text)


@dataclass(frozen=True)
class Layout:
    """Where each system's dot (``x``, ``y``) and label go, in the static graph's pixels."""

    nodes: pd.DataFrame  # graph_frames' vertices with a finite mean, best first
    x: list[float]
    y: list[float]
    labels: list[Label]


def graph_layout(board: Leaderboard, nodes: pd.DataFrame, width: int = WIDTH) -> Layout:
    """The static graph's positions (:func:`app.charts.svg.static_graph_svg`'s ``px``/``py``)
    and label places for ``nodes`` (from :func:`app.charts.graph.graph_frames`)."""
    nodes = nodes[np.isfinite(nodes["mean"].to_numpy(float))]
    height = graph_height(len(nodes))  # the static graph's own
    left, right, top, bottom = MARGINS
    plot_w, plot_h = width - left - right, height - top - bottom
    means = nodes["mean"].to_numpy(float)
    lo, hi = (float(means.min()), float(means.max())) if means.size else (0.0, 1.0)
    pad = (hi - lo) * 0.06 or 0.01
    lo, hi = lo - pad, hi + pad
    x_max = float(nodes["x"].max()) if len(nodes) else 0.0
    xs = [left + plot_w * (x + 0.6) / (x_max + 3.0) for x in nodes["x"].to_numpy(float)]
    shares = (means - lo) / (hi - lo)
    ys = [top + plot_h * float(1 - s if board.higher_is_better else s) for s in shares]
    labels = graph_labels(list(zip(xs, ys, nodes["best"].astype(bool), strict=True)),
                          list(nodes["system"].astype(str)), width=width,
                          room=(left, width, top, top + plot_h))
    return Layout(nodes, xs, ys, labels)


def _add_system(net: Network, i: int, row: dict[Any, Any], x: float, y: float, label: Label,
                count: int) -> None:
    """System ``i``'s dot (id ``i``) and its label (id ``count + i``) at their places."""
    best = bool(row["best"])
    title = (f"{_label(row['system'])} — mean {row['mean']:.4f}, rank {row['rank']} "
             f"(could be {row['rank_low']}–{row['rank_high']})")
    colour, radius, size = (BEST, RADIUS[0], FONT_SIZE[0]) if best else (NODE, RADIUS[1],
                                                                         FONT_SIZE[1])
    net.add_node(i, label=" ", shape="dot", size=radius, title=title, x=x, y=y, color=colour,
                 physics=False)
    net.node_map[i]["label"] = ""  # pyvis puts the id where a label is empty
    box = label.box
    net.add_node(count + i, label=cut_name(str(row["system"])), shape="text", title=title,
                 x=(box.x0 + box.x1) / 2, y=(box.y0 + box.y1) / 2, physics=False,
                 font={"color": BEST if best else INK, "size": size, "face": "arial",
                       "mod": "bold" if best else "", "strokeWidth": 3,
                       "strokeColor": "#ffffff"})
    if label.moved:  # away from its dot: a thin line joins them
        net.add_edge(i, count + i, width=0.8, color=EDGE, arrows={"to": {"enabled": False}})


def network_html(board: Leaderboard, systems: Sequence[str] | None = None, *,
                 height: int = 520) -> str:
    """The significance graph as one self-contained HTML document (vis-network inlined):
    the static graph's layout and label places, fixed, so no two labels overlap. Without
    pyvis: :data:`MISSING_PYVIS`, a page that says how to install it."""
    if not HAVE_PYVIS:
        return MISSING_PYVIS
    frame, edges = graph_frames(board, systems)
    layout = graph_layout(board, frame)
    directed = board.pairwise.alternative != "two-sided"
    net = Network(height=f"{height - 20}px", width="100%", directed=directed,
                  cdn_resources="in_line", bgcolor="#ffffff")
    net.toggle_physics(False)
    count = len(layout.nodes)
    ids = {}
    rows = layout.nodes.to_dict("records")
    for i, (row, x, y, label) in enumerate(zip(rows, layout.x, layout.y, layout.labels,
                                               strict=True)):
        ids[row["system"]] = i
        _add_system(net, i, row, x, y, label, count)
    for edge in edges.to_dict("records"):
        a, b = ids.get(edge["system_a"]), ids.get(edge["system_b"])
        if a is None or b is None or not math.isfinite(edge["width"]):
            continue  # a system without a finite mean has no place on the graph
        net.add_edge(a, b, width=float(edge["width"]), color=EDGE,
                     title=f"{_label(edge['system_a'])} vs {_label(edge['system_b'])}: "
                           f"adjusted p = {edge['pvalue_adj']:.3g} (not significant)")
    net.set_options('{"interaction": {"hover": true, "navigationButtons": false, '
                    '"dragNodes": false}, "edges": {"smooth": false}, '
                    '"physics": {"enabled": false}}')
    head, _, tail = net.generate_html(notebook=False).rpartition("</body>")
    return self_contained(head + _FIT + tail)
