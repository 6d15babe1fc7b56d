"""The interactive significance graph: pyvis, made fully self-contained.

pyvis's template loads bootstrap (and, unless told otherwise, vis-network)
from CDNs. ``cdn_resources="in_line"`` inlines vis-network from the files
bundled in the pyvis package; :func:`self_contained` then removes every
remaining external ``<script src>``/``<link href>`` so the page makes no
request at all. Names are passed as they are: vis-network draws labels on a
canvas and sets tooltips with ``innerText`` (text, never HTML), and the
template writes the data with Jinja's HTML-safe ``tojson`` (``<`` as
``\u003c``), so a name shows once escaped — as itself — and never as markup.
"""

from __future__ import annotations

import re
from collections.abc import Sequence

from pyvis.network import Network

from engine import Leaderboard, isolate

from .graph import BEST, EDGE, NODE, graph_frames

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
WIDTH = 1000  # layout width in vis-network's coordinates (the canvas scales to fit)


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


def network_html(board: Leaderboard, systems: Sequence[str] | None = None, *,
                 height: int = 520) -> str:
    """The significance graph as one self-contained HTML document (vis-network inlined)."""
    nodes, edges = graph_frames(board, systems)
    directed = board.pairwise.alternative != "two-sided"
    net = Network(height=f"{height - 20}px", width="100%", directed=directed,
                  cdn_resources="in_line", bgcolor="#ffffff")
    net.toggle_physics(False)
    low, high = float(nodes["mean"].min()), float(nodes["mean"].max())
    span = (high - low) or 1.0
    flip = 1 if board.higher_is_better else -1
    columns = max(int(nodes["x"].max()) + 1, 1)
    ids = {}
    for i, row in enumerate(nodes.to_dict("records")):
        ids[row["system"]] = i
        best = bool(row["best"])
        net.add_node(
            i, label=str(row["system"]), shape="dot", size=14 if best else 10,
            title=f"{_label(row['system'])} — mean {row['mean']:.4f}, rank {row['rank']} "
                  f"(could be {row['rank_low']}–{row['rank_high']})",
            x=float(row["x"]) * WIDTH / columns,
            y=-flip * (float(row["mean"]) - low) / span * height * 1.4,
            color=BEST if best else NODE, physics=False,
            font={"color": BEST if best else "#1f2933", "size": 18 if best else 14,
                  "mod": "bold" if best else ""},
        )
    for edge in edges.to_dict("records"):
        net.add_edge(ids[edge["system_a"]], ids[edge["system_b"]], width=float(edge["width"]),
                     color=EDGE,
                     title=f"{_label(edge['system_a'])} vs {_label(edge['system_b'])}: "
                           f"adjusted p = {edge['pvalue_adj']:.3g} (not significant)")
    net.set_options('{"interaction": {"hover": true, "navigationButtons": false}, '
                    '"edges": {"smooth": false}}')
    head, _, tail = net.generate_html(notebook=False).rpartition("</body>")
    return self_contained(head + _FIT + tail)
