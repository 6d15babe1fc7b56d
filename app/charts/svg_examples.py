"""The Examples page's difficulty histogram as SVG written on the server.

Why not Vega-Lite: see ``app/charts/svg.py`` (the Vega bundle held a page's charts
seconds after its script had finished). A histogram of about twenty bars is written
here in a millisecond; the page then needs no chart code until the every-score
heatmap is asked for (its own tab).
"""

from __future__ import annotations

import pandas as pd

from app.charts.svg import _open
from app.charts.svg_pairwise import count_bar, count_scale, plot_axes


def difficulty_svg(difficulty: pd.DataFrame) -> str:
    """Bars of the health report's histogram of per-example mean score (``bin_low``,
    ``bin_high``, ``count``; 0 = solved by none), x from 0 to 1, hover text per bar."""
    width, height, left, top = 640.0, 300.0, 56.0, 12.0
    w, h = width - left - 12, height - top - 44
    counts: list[int] = [int(c) for c in difficulty["count"]]
    yticks, fy = count_scale(counts, top, h)

    def fx(v: float) -> float:
        return left + w * min(max(v, 0.0), 1.0)

    parts = [_open(width, height, "examples by mean score over systems")]
    plot_axes(parts, (left, top, w, h), [0.0, 0.2, 0.4, 0.6, 0.8, 1.0], yticks, fx, fy,
          ("mean score over systems (per example)", "examples"))
    for low, high, count in zip(difficulty["bin_low"], difficulty["bin_high"], counts,
                                strict=True):
        if not count:
            continue
        parts.append(count_bar(fx(float(low)), fx(float(high)), count,
                               f"{float(low):.2f} to {float(high):.2f}: {count} examples", fy))
    parts.append("</svg>")
    return "".join(parts)
