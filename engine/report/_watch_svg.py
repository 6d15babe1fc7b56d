"""The chart of a watched comparison: its confidence sequence narrowing over uploads.

Inline SVG written here (no plotting library, nothing fetched), like the report's other
charts (:mod:`engine.report._svg`): x = observations seen, y = the difference; after
each upload the interval holds until the next one (a step band), a dashed line at 0 and
a mark where the sequence first excluded 0. Infinite bounds (a normal mixture's burn-in)
are drawn to the edge of the plot.
"""

from __future__ import annotations

import math

import numpy as np
import pandas as pd

from ._svg import _linear, nice_ticks
from ._text import h, num

__all__ = ["sequence_svg"]

BAND, EDGE, ZERO, MARK = "#9ecae9", "#1f3b63", "#999", "#c0392b"


def _y_range(low: np.ndarray, high: np.ndarray) -> tuple[float, float]:
    finite = np.concatenate([low[np.isfinite(low)], high[np.isfinite(high)], [0.0]])
    vmin, vmax = float(finite.min()), float(finite.max())
    pad = (vmax - vmin) * 0.08 or 0.5
    return vmin - pad, vmax + pad


def sequence_svg(history: pd.DataFrame, *, title: str, y_label: str = "difference",
                 first_excluded_n: int | None = None, width: int = 640,
                 height: int = 260) -> str:
    """The interval after each upload (``history``: ``n_seen, cs_low, cs_high``, one row per
    upload, oldest first) as a step band over the observations seen."""
    n = history["n_seen"].to_numpy(np.float64)
    low = history["cs_low"].to_numpy(np.float64)
    high = history["cs_high"].to_numpy(np.float64)
    left, top, right, bottom = 62, 30, width - 20, height - 50
    parts = [f'<text x="{left}" y="18" font-size="13" font-weight="600">{h(title)}</text>']
    if not len(n):
        parts.append(f'<text x="{left}" y="{top + 30}" font-size="12">no paired observations '
                     "yet</text>")
        return (f'<svg role="img" aria-label="{h(title)}" width="{width}" height="{height}" '
                f'viewBox="0 0 {width} {height}">{"".join(parts)}</svg>')
    vmin, vmax = _y_range(low, high)
    yt = nice_ticks(vmin, vmax, 5)
    vmin, vmax = min(vmin, float(yt[0])), max(vmax, float(yt[-1]))
    n_max = float(n[-1]) if n[-1] > 0 else 1.0
    xs = _linear(0.0, n_max, left, right)
    ys = _linear(vmin, vmax, bottom, top)

    def clip(v: float) -> float:
        return ys(min(max(v, vmin), vmax)) if math.isfinite(v) else (top if v > 0 else bottom)

    starts = np.concatenate([[0.0], n[:-1]])
    for a, b, lo, hi in zip(starts, n, low, high, strict=True):
        parts.append(f'<rect x="{xs(a):.1f}" y="{clip(hi):.1f}" width="{max(xs(b) - xs(a), 1):.1f}" '
                     f'height="{max(clip(lo) - clip(hi), 1):.1f}" fill="{BAND}" stroke="{EDGE}" '
                     f'stroke-width="0.6"><title>after {int(b)}: [{h(num(lo, 3))}, '
                     f"{h(num(hi, 3))}]</title></rect>")
    parts.append(f'<line x1="{left}" y1="{ys(0):.1f}" x2="{right}" y2="{ys(0):.1f}" '
                 f'stroke="{ZERO}" stroke-dasharray="4 3"/>')
    if first_excluded_n is not None:
        x = xs(first_excluded_n)
        parts.append(f'<line x1="{x:.1f}" y1="{top}" x2="{x:.1f}" y2="{bottom}" stroke="{MARK}" '
                     f'stroke-dasharray="2 2"/><text x="{x + 4:.1f}" y="{top + 10}" '
                     f'font-size="11" fill="{MARK}">0 excluded at {int(first_excluded_n)}</text>')
    parts.append(f'<line x1="{left}" y1="{top}" x2="{left}" y2="{bottom}" stroke="#444"/>'
                 f'<line x1="{left}" y1="{bottom}" x2="{right}" y2="{bottom}" stroke="#444"/>')
    for t in yt:
        parts.append(f'<text x="{left - 6}" y="{ys(t) + 4:.1f}" font-size="11" '
                     f'text-anchor="end">{h(num(round(float(t), 12), 3))}</text>')
    for t in [v for v in nice_ticks(0.0, n_max) if v == int(v)]:  # counts: whole ticks only
        parts.append(f'<text x="{xs(t):.1f}" y="{bottom + 16}" font-size="11" '
                     f'text-anchor="middle">{int(t)}</text>')
    parts.append(f'<text x="{(left + right) / 2:.1f}" y="{bottom + 34}" font-size="12" '
                 'text-anchor="middle" class="axis-label">observations seen (one step per '
                 'upload)</text>')
    parts.append(f'<text transform="translate(14 {(top + bottom) / 2:.1f}) rotate(-90)" '
                 f'font-size="12" text-anchor="middle" class="axis-label">{h(y_label)}</text>')
    return (f'<svg role="img" aria-label="{h(title)}" width="{width}" height="{height}" '
            f'viewBox="0 0 {width} {height}">{"".join(parts)}</svg>')
