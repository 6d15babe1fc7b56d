"""The Leaderboard's two charts as SVG text written here: no chart library in the browser.

A page with a Vega-Lite chart makes the browser fetch, compile and run the Vega
bundle before the chart appears, and that work delays everything else on the
page: measured on a busy machine, the ranked table appeared 2.3 s after the
script had finished and the two charts 5 s after it, when a one-line page is
done in 2 s. Both Leaderboard charts are simple marks (a dot and a bar per
system; circles, lines and labels), so they are written directly as SVG in a
few milliseconds and put in the page by the browser's own parser (:func:`svg_html`,
through ``app.widgets.picture``). The same SVG is the download (a standalone document).

Every name and number passes through :func:`engine.html_text` (names also
between Unicode isolates), and hover text is an SVG ``<title>``. Pure
functions, no Streamlit.
"""

from __future__ import annotations

import json
import math
from collections.abc import Callable, Sequence

import numpy as np

from app.charts.graph import BEST, EDGE, NODE, graph_frames
from app.charts.labels import Label, place_labels
from app.charts.ranks import ROW, rank_frame
from engine.app_support import NAME_CHARS, cut_name, html_text, isolate, nice_ticks
from engine.results import Leaderboard

FONT = 'font-family="Source Sans Pro, sans-serif"'
INK = "#1f2933"
GRID = "#e5e7eb"


def _num(value: float) -> str:
    """A coordinate with at most two decimals."""
    return f"{value:.2f}".rstrip("0").rstrip(".")


def _label(value: float) -> str:
    return f"{value:.6g}"


def vertical_grid(values: Sequence[float], x: Callable[[float], float], top: float,
                  bottom: float, label: Callable[[float], str] = _label) -> str:
    """A grid line from ``top`` to ``bottom`` and a tick label under it at each of ``values``
    (``x`` maps a value to its pixel; ``label`` writes a value, default six digits)."""
    parts = []
    for value in values:
        px = _num(x(value))
        parts.append(f'<line x1="{px}" x2="{px}" y1="{_num(top)}" y2="{_num(bottom)}" '
                     f'stroke="{GRID}"/><text x="{px}" y="{_num(bottom + 14)}" font-size="11" '
                     f'text-anchor="middle" fill="{INK}">{html_text(label(value))}</text>')
    return "".join(parts)


def interval_marks(x: Callable[[float], float], y: float, estimate: float, low: float,
                   high: float, *, stroke: str, dot: str, width: float,
                   radius: float) -> list[str]:
    """An interval's line from ``low`` to ``high`` and a dot at ``estimate`` on the row at
    ``y`` (``x`` maps a value to its pixel); a part whose numbers are missing is left out."""
    marks = []
    if math.isfinite(low) and math.isfinite(high):
        marks.append(f'<line x1="{_num(x(low))}" x2="{_num(x(high))}" y1="{_num(y)}" '
                     f'y2="{_num(y)}" stroke="{stroke}" stroke-width="{_num(width)}"/>')
    if math.isfinite(estimate):
        marks.append(f'<circle cx="{_num(x(estimate))}" cy="{_num(y)}" r="{_num(radius)}" '
                     f'fill="{dot}"/>')
    return marks


def _g(value: float, spec: str = ".4g") -> str:
    """A number for a tooltip ("—" when missing)."""
    return format(value, spec) if math.isfinite(value) else "—"


#: Puts the picture in its placeholder: parsed in an inert document (nothing in it loads or
#: runs), stripped of anything active, then moved into the page. The SVG is written here with
#: every name escaped; this is a second line of defence, not the first.
_PLACE = ("((s,text)=>{const box=s.previousElementSibling,"
          "svg=new DOMParser().parseFromString(text,'text/html').body.firstElementChild;"
          "if(!svg||svg.localName!=='svg')return;"
          "for(const e of [svg,...svg.querySelectorAll('*')]){"
          "if(/^(script|foreignobject|iframe|object|embed|a)$/i.test(e.localName)){e.remove();"
          "continue}"
          "for(const a of [...e.attributes])if(/^on/i.test(a.name)||/href$/i.test(a.name))"
          "e.removeAttribute(a.name)}"
          "svg.style.maxWidth='100%';svg.style.height='auto';"  # fits a phone's width
          "box.replaceChildren(document.adoptNode(svg))})")


def svg_html(svg: str) -> str:
    """``svg`` for ``st.html(..., unsafe_allow_javascript=True)``: a placeholder and the script
    that puts the picture in it.

    Why not the SVG itself: ``st.html``'s sanitiser keeps only the HTML profile and drops
    every SVG element. Why not ``st.markdown(..., unsafe_allow_html=True)``, as before:
    markdown turns the picture into one React element per SVG node, through a markdown and
    an HTML parser whose code (~190 KB) the browser fetches first — measured 0.05–0.1 s of a
    first visit per page. Here the browser's own parser reads it, and hover text (an SVG
    ``<title>``) keeps working.

    The SVG travels as a JSON string inside the script with every ``<`` written ``\\u003c``
    (so it can neither end the script nor look like markup to the sanitiser), and is checked
    by :data:`_PLACE` before it is shown.

    Examples
    --------
    >>> html = svg_html('<svg role="img"><title>a</title></svg>')
    >>> html.startswith('<div class="sb-svg"></div><script>') and "</title>" not in html
    True
    """
    text = json.dumps(svg).replace("<", "\\u003c")
    return f'<div class="sb-svg"></div><script>{_PLACE}(document.currentScript,{text})</script>'


def _name(text: str, limit: int = NAME_CHARS) -> str:
    """A name for the picture: cut (:func:`engine.app_support.cut_name`), isolated, escaped."""
    return html_text(isolate(cut_name(text, limit)))


def _open(width: float, height: float, label: str) -> str:
    return (f'<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 {_num(width)} {_num(height)}"'
            f' width="{_num(width)}" style="max-width:100%;height:auto" role="img" '
            f'aria-label="{html_text(label)}" {FONT}>')


def rank_ci_svg(board: Leaderboard, *, percent: bool = False, width: int = 520,
                systems: Sequence[str] | None = None) -> str:
    """Means with intervals, best first, each system's rank range on the right, as SVG.

    The rows of :func:`app.charts.ranks.rank_frame`, one of :data:`ROW` pixels per
    system (every name has its line), a dot at the mean, a bar over the interval, red for
    systems that could rank first. ``systems``: the rows shown (default all).
    """
    frame = rank_frame(board, percent=percent)
    if systems is not None:
        frame = frame[frame["system"].isin(set(systems))].reset_index(drop=True)
    names_w, ranks_w, top, bottom = 240.0, 56.0, 22.0, 44.0
    total_w = names_w + width + 12 + ranks_w
    height = top + ROW * len(frame) + bottom
    values = frame[["mean", "low", "high"]].to_numpy(float)
    finite = values[np.isfinite(values)]
    low, high = (float(finite.min()), float(finite.max())) if finite.size else (0.0, 1.0)
    pad = (high - low) * 0.04 or 0.5
    low, high = low - pad, high + pad

    def x(value: float) -> float:
        share = (value - low) / (high - low)
        return names_w + width * (share if board.higher_is_better else 1 - share)

    unit = " (%)" if percent else ""
    title = f"mean {board.metric}{unit} and its confidence interval"
    parts = [_open(total_w, height, title)]
    parts.append(vertical_grid(nice_ticks(low, high), x, top, top + ROW * len(frame)))
    parts.append(f'<text x="{_num(names_w + width / 2)}" y="{_num(height - 8)}" font-size="11" '
                 f'font-weight="600" text-anchor="middle" fill="{INK}">{html_text(title)}</text>'
                 f'<text x="{_num(total_w - ranks_w)}" y="14" font-size="11" '
                 f'fill="{INK}">rank range</text>')
    rows = zip(frame["system"].astype(str), values[:, 0], values[:, 1], values[:, 2],
               frame["ranks"].astype(str), frame["first"].astype(bool), strict=True)
    for i, (system, mean, lo, hi, ranks, first) in enumerate(rows):
        y = top + ROW * i + ROW / 2
        colour = BEST if first else NODE
        tip = f"{system}: mean {_g(mean)}, interval {_g(lo)} to {_g(hi)}, rank range {ranks}"
        marks = interval_marks(x, y, mean, lo, hi, stroke=colour, dot=colour, width=2,
                               radius=3.7)
        parts.append(f"<g><title>{html_text(isolate(tip))}</title>"
                     f'<text x="{_num(names_w - 8)}" y="{_num(y + 4)}" font-size="11" '
                     f'text-anchor="end" fill="{INK}">{_name(system)}</text>'
                     + "".join(marks)
                     + f'<text x="{_num(total_w - ranks_w)}" y="{_num(y + 4)}" font-size="11" '
                     f'fill="{INK}">{html_text(ranks)}</text></g>')
    parts.append("</svg>")
    return "".join(parts)


def graph_labels(points: Sequence[tuple[float, float, bool]], systems: Sequence[str], *,
                 width: float, room: tuple[float, float, float, float]) -> list[Label]:
    """The significance graph's labels, none overlapping (:func:`app.charts.labels.place_labels`):
    ``points`` are (x, y, best) in pixels, best system first; ``room`` is (left, right, top,
    bottom) of the plot."""
    left, right, top, bottom = room
    cut = [cut_name(s) for s in systems]
    return place_labels([(x, y, 8.4 if best else 6.7) for x, y, best in points], cut,
                        [14 if best else 12 for *_, best in points], left=left,
                        right=right, top=top, bottom=bottom)


def graph_height(systems: int) -> float:
    """The significance graph's height in pixels for ``systems`` vertices: 18 px each, from
    420 to 900. At 9 px each (before) 37 systems whose means lie within a few points of each
    other pushed most labels off their points."""
    return float(min(900, max(420, 18 * systems)))


def static_graph_svg(board: Leaderboard, systems: Sequence[str] | None = None, *,
                     width: int = 1000) -> str:
    """The significance graph (Ackerman et al. 2025, §5.1) as SVG: systems at the height of their mean,
    a line between two systems whose difference is not significant (thicker when less
    significant), the best system in red bold; every system shown is labelled.

    ``systems``: the focus (default every system), see :func:`app.charts.graph.graph_frames`.
    """
    nodes, edges = graph_frames(board, systems)
    height = graph_height(len(nodes))
    left, right, top, bottom = 64.0, 24.0, 16.0, 24.0
    plot_w, plot_h = width - left - right, height - top - bottom
    means = nodes["mean"].to_numpy(float)
    finite = means[np.isfinite(means)]
    lo, hi = (float(finite.min()), float(finite.max())) if finite.size else (0.0, 1.0)
    pad = (hi - lo) * 0.06 or 0.01
    lo, hi = lo - pad, hi + pad
    x_max = float(nodes["x"].max()) if len(nodes) else 0.0

    def px(value: float) -> float:
        return left + plot_w * (value + 0.6) / (x_max + 3.0)

    def py(value: float) -> float:
        share = (value - lo) / (hi - lo)
        return top + plot_h * (1 - share if board.higher_is_better else share)

    title = f"mean {board.metric}"
    parts = [_open(width, height, f"significance graph, {len(nodes)} systems")]
    for tick in nice_ticks(lo, hi):
        y = _num(py(tick))
        parts.append(f'<line x1="{_num(left)}" x2="{_num(width - right)}" y1="{y}" y2="{y}" '
                     f'stroke="{GRID}"/><text x="{_num(left - 6)}" y="{y}" font-size="11" '
                     f'text-anchor="end" dominant-baseline="middle" fill="{INK}">'
                     f"{html_text(_label(tick))}</text>")
    parts.append(f'<text transform="translate(14 {_num(top + plot_h / 2)}) rotate(-90)" '
                 f'font-size="11" font-weight="600" text-anchor="middle" fill="{INK}">'
                 f"{html_text(title)}</text>")
    opacity = 0.55 if len(edges) < 300 else 0.25
    coords = edges[["x", "y", "x2", "y2", "width", "pvalue_adj", "effect_size"]].to_numpy(float)
    pairs = zip(edges["system_a"].astype(str), edges["system_b"].astype(str), coords, strict=True)
    for a, b, (x1, y1, x2, y2, stroke, p, effect) in pairs:
        tip = f"{a} – {b}: adjusted p {_g(p, '.3g')}"
        if math.isfinite(effect):
            tip += f", effect size {effect:.3f}"
        parts.append(f'<line x1="{_num(px(x1))}" y1="{_num(py(y1))}" x2="{_num(px(x2))}" '
                     f'y2="{_num(py(y2))}" stroke="{EDGE}" stroke-opacity="{opacity}" '
                     f'stroke-width="{_num(stroke)}"><title>{html_text(isolate(tip))}</title>'
                     "</line>")
    vertices = [v for v in zip(nodes["system"].astype(str), nodes["x"].to_numpy(float), means,
                               nodes["rank"].tolist(), nodes["group"].astype(str),
                               nodes["best"].astype(bool), strict=True)
                if math.isfinite(v[2])]  # best first: it picks its label's place first
    labels = graph_labels([(px(x), py(mean), best) for _, x, mean, _, _, best in vertices],
                          [system for system, *_ in vertices], width=width,
                          room=(left, width, top, top + plot_h))  # labels may use the margin
    marks: list[str] = []
    names: list[str] = []
    for (system, x, mean, rank, group, best), label in zip(vertices, labels, strict=True):
        tip = html_text(isolate(f"{system}: mean {_g(mean, '.4f')}, rank {rank}, group {group}"))
        colour, r, size, weight = ((BEST, 8.4, 14, ' font-weight="bold"') if best
                                   else (NODE, 6.7, 12, ""))
        mark = (f"<g><title>{tip}</title><circle cx=\"{_num(px(x))}\" cy=\"{_num(py(mean))}\" "
                f'r="{r}" fill="{colour}"/></g>')
        marks.insert(len(marks) if best else 0, mark)  # the best drawn last, on top
        line = (f'<line x1="{_num(px(x))}" y1="{_num(py(mean))}" x2="{_num(label.x)}" '
                f'y2="{_num(label.y)}" stroke="{EDGE}" stroke-width="0.8"/>'
                if label.moved else "")
        names.append(f"<g><title>{tip}</title>{line}<text x=\"{_num(label.x)}\" "
                     f'y="{_num(label.y)}" font-size="{size}"{weight} '
                     f'text-anchor="{label.anchor}" dominant-baseline="middle" '
                     f'stroke="#fff" stroke-width="3" paint-order="stroke" '
                     f'fill="{colour if best else INK}">{_name(system)}</text></g>')
    parts += marks + names
    bottom_edge = max([height, *(label.box.y1 + 4 for label in labels)])
    if bottom_edge > height:  # labels in rows under the plot: the picture grows to hold them
        parts[0] = _open(width, bottom_edge, f"significance graph, {len(nodes)} systems")
    parts.append("</svg>")
    return "".join(parts)

