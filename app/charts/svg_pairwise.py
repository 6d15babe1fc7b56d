"""The Pairwise page's first screen as SVG written on the server: the adjusted p-value
heatmap and the pair's scatter and difference histogram.

Why not Vega-Lite: see ``app/charts/svg.py`` — the Vega bundle the browser must
compile held the page's charts 5 s after its script had finished on a busy
machine. These three charts are rectangles, circles and bars, written here in
milliseconds. The other all-pairs panels (effect sizes, PWPP) stay Vega-Lite,
drawn only when their tab is opened. Names pass through
:func:`engine.html_text` between Unicode isolates; hover text is ``<title>``.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Sequence

import numpy as np

from app.charts.graph import BEST, NODE
from app.charts.pairwise import BAND_COLOURS, TEXT_CELLS, _cell_size, _long, p_band, p_bands
from app.charts.svg import GRID, INK, _label, _name, _num, _open, vertical_grid
from engine.app_support import html_text, isolate, nice_ticks
from engine.results import PairwiseTests

#: A pair whose verdict the examples one side lacks could overturn: pale amber, with "?"
#: (the PWPP draws it in :data:`app.charts.pairwise.UNDECIDED`).
UNDECIDED = "#fde68a"

BLUE, RED = NODE, BEST  # the theme blue and the red of every chart
MAX_POINTS = 5000  # scatter points drawn at most (an even sample beyond; the count is said)


def pvalue_heatmap_svg(result: PairwiseTests, order: Sequence[str]) -> str:
    """Adjusted p-values among ``order`` (rows A, columns B, best first) in bands around
    alpha: dark to light red below alpha (significant), grey at or above; blank where the
    pair was not compared; the value in each cell up to :data:`TEXT_CELLS` systems. A pair
    the table marks ``undecided`` (examples missing) is a pale "?" cell, never a red."""
    order = list(order)
    n = len(order)
    size = _cell_size(n)
    frame = _long(result.matrix("pvalue_adj"), order, "p").dropna(subset=["p"])
    bands = p_bands(result.alpha)
    colour = dict(zip(bands, BAND_COLOURS, strict=True))
    # pairs the missing examples leave open (app.data.results.pairwise_of): "?", not a red
    t = result.table
    open_ = ({} if "undecided" not in t.columns else
             {k: str(u) for a, b, u in zip(t["system_a"], t["system_b"], t["undecided"],
                                           strict=True) if u for k in ((a, b), (b, a))})
    names_w, legend_h, labels_h = 230.0, 96.0 if open_ else 80.0, 170.0  # a third legend row
    width, height = names_w + size * n + 20, legend_h + size * n + labels_h
    parts = [_open(width, height, f"adjusted p-values among {n} systems")]
    parts.append(f'<text x="0" y="14" font-size="12" font-weight="600" fill="{INK}">'
                 f"adjusted p (alpha = {html_text(f'{result.alpha:g}')})</text>")
    for i, band in enumerate(bands):  # two columns of two bands
        lx, ly = 230 * (i // 2), 24 + 16 * (i % 2)
        parts.append(f'<rect x="{lx}" y="{ly}" width="14" height="12" fill="{colour[band]}"/>'
                     f'<text x="{lx + 20}" y="{ly + 10}" font-size="11" fill="{INK}">'
                     f"{html_text(band)}</text>")
    if open_:
        parts.append(f'<rect x="0" y="56" width="14" height="12" fill="{UNDECIDED}"/>'
                     f'<text x="20" y="66" font-size="11" fill="{INK}">? cannot decide '
                     "(examples missing)</text>")
    index = {s: i for i, s in enumerate(order)}
    texts = n <= TEXT_CELLS
    # white on the two deep reds (p < alpha/10): dark text there could not be read
    ink = {band: "white" if i < 2 else INK for i, band in enumerate(bands)}
    for a, b, p, band in zip(frame["A"], frame["B"], frame["p"].to_numpy(float),
                             p_band(frame["p"].to_numpy(float), result.alpha), strict=True):
        x, y = names_w + size * index[b], legend_h + size * index[a]
        why = open_.get((a, b))
        tip = html_text(isolate(f"{a} vs {b}: adjusted p {p:.2g}" + (f", {why}" if why else "")))
        fill = UNDECIDED if why else colour[str(band)]
        cell = (f'<rect x="{_num(x)}" y="{_num(y)}" width="{size}" height="{size}" '
                f'fill="{fill}" stroke="white" stroke-width="0.5"/>')
        if texts or why:
            label = "?" if why else f"{p:.2g}"
            cell += (f'<text x="{_num(x + size / 2)}" y="{_num(y + size / 2 + 3.5)}" '
                     f'font-size="10" text-anchor="middle" '
                     f'fill="{INK if why else ink[str(band)]}">{label}</text>')
        parts.append(f"<g><title>{tip}</title>{cell}</g>")
    for i, name in enumerate(order):
        y = legend_h + size * i + size / 2 + 4
        x = names_w + size * i + size / 2
        parts.append(f'<text x="{_num(names_w - 6)}" y="{_num(y)}" font-size="11" '
                     f'text-anchor="end" fill="{INK}">{_name(name)}</text>'
                     f'<text transform="translate({_num(x + 4)} {_num(legend_h + size * n + 6)})'
                     f' rotate(-60)" font-size="11" text-anchor="end" fill="{INK}">'
                     f"{_name(name)}</text>")
    parts.append(f'<text x="{_num(names_w - 6)}" y="{_num(legend_h - 8)}" font-size="11" '
                 f'font-weight="600" text-anchor="end" fill="{INK}">system A ↓ · system B →'
                 "</text></svg>")
    return "".join(parts)


def plot_axes(parts: list[str], box: tuple[float, float, float, float], xs: Sequence[float],
          ys: Sequence[float], fx: Callable[[float], float], fy: Callable[[float], float],
          titles: tuple[str, str]) -> None:
    """Grid lines, tick labels and axis titles of a plot area ``box`` (left, top, w, h)."""
    left, top, w, h = box
    parts.append(vertical_grid(xs, fx, top, top + h))
    for v in ys:
        y = _num(fy(v))
        parts.append(f'<line x1="{_num(left)}" x2="{_num(left + w)}" y1="{y}" y2="{y}" '
                     f'stroke="{GRID}"/><text x="{_num(left - 6)}" y="{y}" font-size="11" '
                     f'text-anchor="end" dominant-baseline="middle" fill="{INK}">'
                     f"{html_text(_label(v))}</text>")
    parts.append(f'<text x="{_num(left + w / 2)}" y="{_num(top + h + 34)}" font-size="11" '
                 f'font-weight="600" text-anchor="middle" fill="{INK}">'
                 f"{html_text(isolate(titles[0]))}</text>"
                 f'<text transform="translate(12 {_num(top + h / 2)}) rotate(-90)" '
                 f'font-size="11" font-weight="600" text-anchor="middle" fill="{INK}">'
                 f"{html_text(isolate(titles[1]))}</text>")


def count_scale(counts: Sequence[int], top: float, h: float
                ) -> tuple[list[float], Callable[[float], float]]:
    """The y axis of a histogram of ``counts`` in a plot ``h`` pixels high from ``top``: whole
    tick values and the pixel of a count (5% of headroom over the tallest bar)."""
    top_count = max(max(counts, default=0), 1)
    ticks = [v for v in nice_ticks(0.0, float(top_count), 5) if v == int(v)]

    def fy(v: float) -> float:
        return top + h * (1 - v / (top_count * 1.05))
    return ticks, fy


def count_bar(x0: float, x1: float, count: int, tip: str, fy: Callable[[float], float]) -> str:
    """One histogram bar from pixel ``x0`` to ``x1`` with its hover text (escaped here)."""
    return (f'<g><title>{html_text(tip)}</title><rect x="{_num(x0 + 0.5)}" y="{_num(fy(count))}" '
            f'width="{_num(max(x1 - x0 - 1, 1))}" height="{_num(fy(0) - fy(count))}" '
            f'fill="{BLUE}"/></g>')


def pair_scatter_svg(x: np.ndarray, y: np.ndarray, a: str, b: str, *, binary: bool) -> str:
    """A's score (across) against B's (up) on each example, with the diagonal (points above it:
    B better). 0/1 scores: four circles sized by their number of examples, the count inside."""
    width, height, left, top = 460.0, 380.0, 56.0, 12.0
    w, h = width - left - 12, height - top - 44
    if binary:
        lo, hi, ticks = -0.3, 1.3, [0.0, 1.0]
    else:
        both = np.concatenate([x, y])
        both = both[np.isfinite(both)]
        lo, hi = (float(both.min()), float(both.max())) if both.size else (0.0, 1.0)
        pad = (hi - lo) * 0.05 or 0.5
        lo, hi = lo - pad, hi + pad
        ticks = nice_ticks(lo, hi)

    def fx(v: float) -> float:
        return left + w * (v - lo) / (hi - lo)

    def fy(v: float) -> float:
        return top + h * (1 - (v - lo) / (hi - lo))

    parts = [_open(width, height, f"scores of {a} and {b} per example")]
    plot_axes(parts, (left, top, w, h), ticks, ticks, fx, fy, (a, b))
    parts.append(f'<line x1="{_num(fx(lo))}" y1="{_num(fy(lo))}" x2="{_num(fx(hi))}" '
                 f'y2="{_num(fy(hi))}" stroke="#8a94a6" stroke-dasharray="5 4"/>')
    if binary:
        total = max(len(x), 1)
        for vx in (0.0, 1.0):
            for vy in (0.0, 1.0):
                count = int(((x == vx) & (y == vy)).sum())
                if not count:
                    continue
                r = 8 + 30 * math.sqrt(count / total)
                cx, cy = _num(fx(vx)), _num(fy(vy))
                tip = html_text(isolate(f"{a} {vx:g}, {b} {vy:g}: {count} examples"))
                parts.append(f'<g><title>{tip}</title><circle cx="{cx}" cy="{cy}" '
                             f'r="{_num(r)}" fill="{BLUE}" fill-opacity="0.8"/>'
                             f'<text x="{cx}" y="{cy}" font-size="12" font-weight="bold" '
                             f'fill="white" text-anchor="middle" dominant-baseline="middle">'
                             f"{count}</text></g>")
    else:
        keep = np.isfinite(x) & np.isfinite(y)
        xs, ys = x[keep], y[keep]
        if len(xs) > MAX_POINTS:
            pick = np.linspace(0, len(xs) - 1, MAX_POINTS).astype(int)
            xs, ys = xs[pick], ys[pick]
        parts.append(f'<g fill="{BLUE}" fill-opacity="0.45">' + "".join(
            f'<circle cx="{_num(fx(vx))}" cy="{_num(fy(vy))}" r="2.6"/>'
            for vx, vy in zip(xs.tolist(), ys.tolist(), strict=True)) + "</g>")
    parts.append("</svg>")
    return "".join(parts)


def difference_histogram_svg(diff: np.ndarray, a: str, b: str, *, binary: bool) -> str:
    """How many examples have each difference A − B (0/1 scores: −1, 0 and 1; numbers: up to
    40 bins), with a red line at 0."""
    diff = diff[np.isfinite(diff)]
    width, height, left, top = 460.0, 380.0, 56.0, 12.0
    w, h = width - left - 12, height - top - 44
    if binary:
        edges = np.array([-1.5, -0.5, 0.5, 1.5])
        counts = np.array([(diff == v).sum() for v in (-1.0, 0.0, 1.0)])
        lo, hi, xticks = -1.5, 1.5, [-1.0, 0.0, 1.0]
    else:
        span = (float(diff.min()), float(diff.max())) if diff.size else (-1.0, 1.0)
        if span[0] == span[1]:
            span = (span[0] - 0.5, span[1] + 0.5)
        counts, edges = np.histogram(diff, bins=min(40, max(diff.size, 1)), range=span)
        lo, hi = float(min(edges[0], 0.0)), float(max(edges[-1], 0.0))
        xticks = nice_ticks(lo, hi)
    yticks, fy = count_scale(counts.tolist(), top, h)

    def fx(v: float) -> float:
        return left + w * (v - lo) / (hi - lo)

    parts = [_open(width, height, f"differences {a} − {b} per example")]
    plot_axes(parts, (left, top, w, h), xticks, yticks, fx, fy,
          (f"{a} − {b} (per example)", "examples"))
    for count, start, end in zip(counts.tolist(), edges[:-1].tolist(), edges[1:].tolist(),
                                 strict=True):
        if not count:
            continue
        x0, x1 = fx(start), fx(end)
        if binary:  # a bar of fixed width around −1, 0, 1
            middle = (x0 + x1) / 2
            x0, x1 = middle - 30, middle + 30
        tip = (f"{start:.4g} to {end:.4g}: {count} examples" if not binary
               else f"{(start + end) / 2:g}: {count} examples")
        parts.append(count_bar(x0, x1, count, tip, fy))
    if not binary:
        parts.append(f'<line x1="{_num(fx(0))}" x2="{_num(fx(0))}" y1="{_num(top)}" '
                     f'y2="{_num(top + h)}" stroke="{RED}"/>')
    parts.append("</svg>")
    return "".join(parts)
