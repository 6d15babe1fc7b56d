"""Charts of the reports as inline SVG: intervals (a dot and a line per row) and histograms.

No plotting library and nothing fetched: the SVG is written here, with round axis
ticks, labelled axes and every label HTML-escaped, so a report opens offline and
prints as it looks.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Sequence

import numpy as np
from numpy.typing import ArrayLike

from ._text import h, num

__all__ = ["NAME_CHARS", "cut_name", "histogram_svg", "interval_svg", "nice_ticks"]

#: Longer names are cut with "…" on a chart, the reports' and the pages' alike (tables and
#: tooltips show them whole).
NAME_CHARS = 38


def nice_ticks(low: float, high: float, count: int = 6) -> list[float]:
    """Round tick values covering [low, high] (steps of 1, 2 or 5 × 10^k, about ``count``
    of them): the axes of the reports' charts and of the pages' SVG pictures.

    Examples
    --------
    >>> nice_ticks(0.12, 0.87)
    [0.2, 0.4, 0.6, 0.8]
    """
    if not (math.isfinite(low) and math.isfinite(high)) or high <= low:
        return [low] if math.isfinite(low) else []
    raw = (high - low) / max(count - 1, 1)
    power = 10.0 ** math.floor(math.log10(raw))
    step = next(m * power for m in (1, 2, 5, 10) if m * power >= raw)
    first = math.ceil(low / step - 1e-9) * step
    values = np.arange(first, high + step * 1e-9, step)
    return [float(round(v, 12)) for v in values]


def cut_name(text: str, limit: int = NAME_CHARS) -> str:
    """``text`` as a chart shows it: at most ``limit`` characters, the last "…" when cut."""
    return text if len(text) <= limit else text[:limit - 1] + "…"


def _linear(d0: float, d1: float, r0: float, r1: float) -> Callable[[float], float]:
    """The map of data range [d0, d1] onto pixels [r0, r1]."""
    def scale(v: float) -> float:
        return r0 + (float(v) - d0) / (d1 - d0) * (r1 - r0)
    return scale


def _x_axis(scale: Callable[[float], float], lo: float, hi: float, left: float, bottom: float, right: float,
            label: str) -> list[str]:
    out = [f'<line x1="{left}" y1="{bottom}" x2="{right}" y2="{bottom}" stroke="#444"/>']
    for t in nice_ticks(lo, hi):
        x = scale(t)
        out.append(f'<line x1="{x:.1f}" y1="{bottom}" x2="{x:.1f}" y2="{bottom + 4}" '
                   f'stroke="#444"/><text x="{x:.1f}" y="{bottom + 16}" font-size="11" '
                   f'text-anchor="middle">{h(num(round(float(t), 12), 3))}</text>')
    out.append(f'<text x="{(left + right) / 2:.1f}" y="{bottom + 34}" font-size="12" '
               f'text-anchor="middle" class="axis-label">{h(label)}</text>')
    return out


def interval_svg(labels: Sequence[str], estimates: ArrayLike, lows: ArrayLike,
                 highs: ArrayLike, *, x_label: str, title: str,
                 reference: float | None = None) -> str:
    """Each label's estimate (dot) with its interval (line), one row each, x axis labelled.

    ``reference`` draws a dashed vertical line (e.g. 0 for differences).
    """
    est, lo, hi = (np.asarray(v, dtype=float) for v in (estimates, lows, highs))
    finite = np.concatenate([est, lo, hi, [] if reference is None else [reference]])
    finite = finite[np.isfinite(finite)]
    vmin, vmax = (float(finite.min()), float(finite.max())) if finite.size else (0.0, 1.0)
    pad = (vmax - vmin) * 0.05 or 0.5
    vmin, vmax = vmin - pad, vmax + pad
    ticks = nice_ticks(vmin, vmax)
    vmin, vmax = min(vmin, float(ticks[0])), max(vmax, float(ticks[-1]))
    row, left, width = 22, 24 + 7 * min(NAME_CHARS, max((len(s) for s in labels), default=4)), 640
    right, top = width - 20, 30
    bottom = top + row * len(labels) + 6
    scale = _linear(vmin, vmax, left, right)
    parts = [f'<text x="{left}" y="18" font-size="13" font-weight="600">{h(title)}</text>']
    if reference is not None:
        x = scale(reference)
        parts.append(f'<line x1="{x:.1f}" y1="{top}" x2="{x:.1f}" y2="{bottom}" stroke="#999" '
                     'stroke-dasharray="4 3"/>')
    for i, name in enumerate(labels):
        y = top + row * i + row / 2
        parts.append(f'<text x="{left - 8}" y="{y + 4:.1f}" font-size="11" text-anchor="end">'
                     f"{h(cut_name(str(name)))}</text>")
        if np.isfinite(lo[i]) and np.isfinite(hi[i]):
            parts.append(f'<line x1="{scale(lo[i]):.1f}" y1="{y:.1f}" x2="{scale(hi[i]):.1f}" '
                         f'y2="{y:.1f}" stroke="#4c78a8" stroke-width="2"/>')
        if np.isfinite(est[i]):
            parts.append(f'<circle cx="{scale(est[i]):.1f}" cy="{y:.1f}" r="4" fill="#1f3b63"/>')
    parts += _x_axis(scale, vmin, vmax, left, bottom, right, x_label)
    height = bottom + 44
    return (f'<svg role="img" aria-label="{h(title)}" width="{width}" height="{height}" '
            f'viewBox="0 0 {width} {height}">{"".join(parts)}</svg>')


def histogram_svg(values: ArrayLike, *, x_label: str, title: str,
                  y_label: str = "examples", marks: dict[str, float] | None = None) -> str:
    """Histogram of ``values`` (numpy's "auto" bins, at most 40) with labelled axes;
    ``marks`` draws named vertical lines (e.g. 0 and the mean)."""
    v = np.asarray(values, dtype=float)
    v = v[np.isfinite(v)]
    if v.size == 0:
        v = np.zeros(1)
    edges = np.histogram_bin_edges(v, bins="auto")
    if len(edges) > 41:
        edges = np.histogram_bin_edges(v, bins=40)
    counts, edges = np.histogram(v, bins=edges)
    lo, hi = float(edges[0]), float(edges[-1])
    for x in (marks or {}).values():
        lo, hi = min(lo, x), max(hi, x)
    if hi == lo:
        lo, hi = lo - 0.5, hi + 0.5
    width, height, left, top = 640, 280, 56, 30
    right, bottom = width - 20, height - 50
    scale = _linear(lo, hi, left, right)
    cmax = max(int(counts.max()), 1)
    yscale = _linear(0.0, cmax, bottom, top)
    parts = [f'<text x="{left}" y="18" font-size="13" font-weight="600">{h(title)}</text>',
             f'<line x1="{left}" y1="{top}" x2="{left}" y2="{bottom}" stroke="#444"/>']
    for c in nice_ticks(0, cmax, 5):
        if c == int(c):
            parts.append(f'<text x="{left - 6}" y="{yscale(c) + 4:.1f}" font-size="11" '
                         f'text-anchor="end">{int(c)}</text>')
    parts.append(f'<text transform="translate(14 {(top + bottom) / 2:.1f}) rotate(-90)" '
                 f'font-size="12" text-anchor="middle" class="axis-label">{h(y_label)}</text>')
    for c, a, b in zip(counts, edges[:-1], edges[1:], strict=True):
        x0, x1 = scale(a), scale(b)
        parts.append(f'<rect x="{x0:.1f}" y="{yscale(c):.1f}" width="{max(x1 - x0 - 1, 1):.1f}" '
                     f'height="{bottom - yscale(c):.1f}" fill="#9ecae9"><title>{int(c)} in '
                     f"[{h(num(a, 3))}, {h(num(b, 3))})</title></rect>")
    for name, x in (marks or {}).items():
        parts.append(f'<line x1="{scale(x):.1f}" y1="{top}" x2="{scale(x):.1f}" y2="{bottom}" '
                     f'stroke="#c0392b" stroke-dasharray="4 3"/><text x="{scale(x) + 4:.1f}" '
                     f'y="{top + 10}" font-size="11" fill="#c0392b">{h(name)}</text>')
    parts += _x_axis(scale, lo, hi, left, bottom, right, x_label)
    return (f'<svg role="img" aria-label="{h(title)}" width="{width}" height="{height}" '
            f'viewBox="0 0 {width} {height}">{"".join(parts)}</svg>')
