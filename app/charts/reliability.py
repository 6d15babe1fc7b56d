"""The reliability view's k-curves as SVG written on the server (no chart library in the browser).

One picture per measure: pass^k (all k tries succeed) or pass@k (at least one of k tries
succeeds) against k = 1…n, one line per system, its simultaneous band shaded (the band
covers the whole curve at once), the k chosen marked. The picture is 440 px wide: on a
phone (390 px) it is shown at about its own size, and the page puts the two side by side
on a wide screen. Names and numbers pass through :func:`engine.app_support.html_text`
between isolates; each point's hover text (``<title>``) gives its numbers, the same as the
table beside it (both read one :class:`app.data.reliability.ReliabilityAnswer`).
"""

from __future__ import annotations

import math
from collections.abc import Sequence

import numpy as np

from app.charts.svg import GRID, INK, _name, _num, _open
from app.charts.svg_boxes import PALETTE
from engine.app_support import PassKCurves, html_text, isolate, nice_ticks

#: What each measure means, in the words the page uses (axis titles and captions).
MEASURES = {"pass_hat_k": ("pass^k", "all k tries succeed"),
            "pass_at_k": ("pass@k", "at least one of k tries succeeds")}
#: Systems drawn at most (best pass^k at the chosen k first); the table has every one.
CURVE_SYSTEMS = 8


def percent(value: float) -> str:
    """A probability as the page writes it: percent with one decimal ("—" when missing)."""
    return f"{100 * value:.1f}%" if math.isfinite(value) else "—"


def point_tip(curves: PassKCurves, measure: str, s: int, j: int) -> str:
    """The hover text of system ``s``'s point at k = ``curves.ks[j]`` of ``measure``."""
    name, _ = MEASURES[measure]

    def get(suffix: str) -> float:
        return float(getattr(curves, measure + suffix)[s, j])

    return (f"{curves.systems[s]}: {name} at k = {int(curves.ks[j])} {percent(get(''))}, "
            f"interval {percent(get('_low'))} to {percent(get('_high'))}, simultaneous band "
            f"{percent(get('_band_low'))} to {percent(get('_band_high'))}, "
            f"{int(curves.tasks[s, j])} tasks")


def k_curve_svg(curves: PassKCurves, measure: str, *, chosen: int,
                systems: Sequence[str]) -> str:
    """``measure`` ("pass_hat_k" or "pass_at_k") of each of ``systems`` (in that order, at most
    :data:`CURVE_SYSTEMS`) against k, with simultaneous bands and the ``chosen`` k marked."""
    name, words = MEASURES[measure]
    rows = [curves.systems.index(s) for s in systems][:CURVE_SYSTEMS]
    ks = curves.ks.astype(float)
    width, left, top, plot_h = 440.0, 50.0, 14.0, 210.0
    plot_w = width - left - 14
    legend_top = top + plot_h + 50
    height = legend_top + 16 * len(rows) + 6
    k_lo, k_hi = float(ks[0]), float(ks[-1])

    def fx(k: float) -> float:
        share = 0.5 if k_hi == k_lo else (k - k_lo) / (k_hi - k_lo)
        return left + plot_w * share

    def fy(v: float) -> float:
        return top + plot_h * (1 - min(max(v, 0.0), 1.0))

    parts = [_open(width, height, f"{name} ({words}) against k, one line per system")]
    for v in (0.0, 0.25, 0.5, 0.75, 1.0):  # the y grid, in percent
        y = _num(fy(v))
        parts.append(f'<line x1="{_num(left)}" x2="{_num(left + plot_w)}" y1="{y}" y2="{y}" '
                     f'stroke="{GRID}"/><text x="{_num(left - 5)}" y="{y}" font-size="11" '
                     f'text-anchor="end" dominant-baseline="middle" fill="{INK}">'
                     f"{int(100 * v)}%</text>")
    ticks = [t for t in nice_ticks(k_lo, k_hi, 8) if t == int(t)] if k_hi > k_lo else [k_lo]
    for t in ticks:
        x = _num(fx(t))
        parts.append(f'<line x1="{x}" x2="{x}" y1="{_num(top)}" y2="{_num(top + plot_h)}" '
                     f'stroke="{GRID}"/><text x="{x}" y="{_num(top + plot_h + 14)}" '
                     f'font-size="11" text-anchor="middle" fill="{INK}">{int(t)}</text>')
    if k_lo <= chosen <= k_hi:
        x = _num(fx(float(chosen)))
        parts.append(f'<line x1="{x}" x2="{x}" y1="{_num(top)}" y2="{_num(top + plot_h)}" '
                     f'stroke="{INK}" stroke-dasharray="4 3"><title>k = {chosen}, the k of '
                     "the table</title></line>")
    parts.append(f'<text x="{_num(left + plot_w / 2)}" y="{_num(top + plot_h + 32)}" '
                 f'font-size="11" font-weight="600" text-anchor="middle" fill="{INK}">'
                 "k (number of tries)</text>"
                 f'<text transform="translate(11 {_num(top + plot_h / 2)}) rotate(-90)" '
                 f'font-size="11" font-weight="600" text-anchor="middle" fill="{INK}">'
                 f"{html_text(name)}: {html_text(words)}</text>")
    for i, s in enumerate(rows):
        colour = PALETTE[i % len(PALETTE)]
        values = getattr(curves, measure)[s].astype(float)
        lows = getattr(curves, measure + "_band_low")[s].astype(float)
        highs = getattr(curves, measure + "_band_high")[s].astype(float)
        ok = np.isfinite(values) & np.isfinite(lows) & np.isfinite(highs)
        group = [f"<g><title>{html_text(isolate(curves.systems[s]))}</title>"]
        if ok.sum() >= 2:
            upper = [f"{_num(fx(k))},{_num(fy(v))}" for k, v in zip(ks[ok], highs[ok],
                                                                    strict=True)]
            lower = [f"{_num(fx(k))},{_num(fy(v))}" for k, v in zip(ks[ok], lows[ok],
                                                                    strict=True)]
            group.append(f'<polygon points="{" ".join(upper + lower[::-1])}" fill="{colour}" '
                         'fill-opacity="0.13" stroke="none"/>')
            line = " ".join(f"{_num(fx(k))},{_num(fy(v))}" for k, v in zip(
                ks[ok], values[ok], strict=True))
            group.append(f'<polyline points="{line}" fill="none" stroke="{colour}" '
                         'stroke-width="2"/>')
        group.append("</g>")
        parts.append("".join(group))
        for j in np.flatnonzero(np.isfinite(values)):
            tip = html_text(isolate(point_tip(curves, measure, s, int(j))))
            parts.append(f'<g><title>{tip}</title><circle cx="{_num(fx(float(ks[j])))}" '
                         f'cy="{_num(fy(float(values[j])))}" r="3" fill="{colour}"/></g>')
        row_y = legend_top + 16 * i
        parts.append(f'<rect x="{_num(left)}" y="{_num(row_y + 1)}" width="14" height="4" '
                     f'fill="{colour}"/><text x="{_num(left + 20)}" y="{_num(row_y + 7)}" '
                     f'font-size="11" fill="{INK}">{_name(curves.systems[s], 52)}</text>')
    parts.append("</svg>")
    return "".join(parts)
