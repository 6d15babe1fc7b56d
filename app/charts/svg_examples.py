"""The Examples page's difficulty histogram as SVG written on the server.

Why not Vega-Lite: see ``app/charts/svg.py`` (the Vega bundle held a page's charts
seconds after its script had finished). A histogram of about twenty bars is written
here in a millisecond; the page then needs no chart code until the every-score
heatmap is asked for (its own tab).
"""

from __future__ import annotations

import pandas as pd

from app.charts.svg import _num, _open, nice_ticks
from app.charts.svg_pairwise import BLUE, _axes
from app.ranked import escape


def difficulty_svg(difficulty: pd.DataFrame) -> str:
    """Bars of the health report's histogram of per-example mean score (``bin_low``,
    ``bin_high``, ``count``; 0 = solved by none), x from 0 to 1, hover text per bar."""
    width, height, left, top = 640.0, 300.0, 56.0, 12.0
    w, h = width - left - 12, height - top - 44
    counts: list[int] = [int(c) for c in difficulty["count"]]
    top_count = max(max(counts, default=0), 1)
    yticks = [v for v in nice_ticks(0.0, float(top_count), 5) if v == int(v)]

    def fx(v: float) -> float:
        return left + w * min(max(v, 0.0), 1.0)

    def fy(v: float) -> float:
        return top + h * (1 - v / (top_count * 1.05))

    parts = [_open(width, height, "examples by mean score over systems")]
    _axes(parts, (left, top, w, h), [0.0, 0.2, 0.4, 0.6, 0.8, 1.0], yticks, fx, fy,
          ("mean score over systems (per example)", "examples"))
    for low, high, count in zip(difficulty["bin_low"], difficulty["bin_high"], counts,
                                strict=True):
        if not count:
            continue
        x0, x1 = fx(float(low)), fx(float(high))
        tip = escape(f"{float(low):.2f} to {float(high):.2f}: {int(count)} examples")
        parts.append(f'<g><title>{tip}</title><rect x="{_num(x0 + 0.5)}" y="{_num(fy(count))}" '
                     f'width="{_num(max(x1 - x0 - 1, 1))}" height="{_num(fy(0) - fy(count))}" '
                     f'fill="{BLUE}"/></g>')
    parts.append("</svg>")
    return "".join(parts)
