"""The Distributions page's boxplots as SVG text written here: no chart library in the browser.

Why not Vega-Lite: see ``app/charts/svg.py`` — the Vega bundle (about 1.9 MB the
browser fetches and compiles on a page's first use) held the page's chart for
seconds after its script had finished. A boxplot is a line, a rectangle, a tick
and a few points per system, written here in milliseconds and shown by
``app.widgets.picture`` (:func:`app.charts.svg.svg_html`). The engine computes the five
numbers and the outliers (``engine.box_stats``), so a 10,000-resample bootstrap
is drawn from a few numbers per system.

Every name and number passes through :func:`engine.html_text` (names and
metadata values also between Unicode isolates, :func:`engine.isolate`), and
hover text is an SVG ``<title>``. Pure functions, no Streamlit.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Sequence

import numpy as np
import pandas as pd

from app.charts.graph import NODE
from app.charts.svg import INK, _g, _name, _num, _open, vertical_grid
from engine.app_support import NAME_CHARS, html_text, isolate, nice_ticks
from engine.results import BoxStats

BOX_COLOR = NODE  # the theme blue of every chart
#: Points beyond the whiskers drawn at most (the count is always in the row's tooltip).
MAX_OUTLIERS = 5000
_ROW = 22  # pixels per system: room for a label at the app theme's font size
#: Colours of metadata values (Tableau 10, Vega-Lite's default for categories), in the
#: order of the sorted values; more values than colours reuse them.
PALETTE = ("#4c78a8", "#f58518", "#e45756", "#72b7b2", "#54a24b", "#eeca3b", "#b279a2",
           "#ff9da6", "#9d755d", "#bab0ac")
NONE = "(none)"  # a system without the attribute (grey, last in the legend)
NONE_COLOR = "#9ca3af"
WHISKER = "#555"
MEDIAN = "#1a1a1a"  # dark, so a box of zero width (the same rank every time) shows its median
_NAMES_W, _PLOT_W, _RIGHT, _BOTTOM = 240.0, 600.0, 16.0, 44.0
_CHAR_W = 6.2  # average width of a character at font-size 11, to wrap the legend
_BREAK = "&#10;"  # a line break inside a <title>, as a character reference


def _legend(values: Sequence[str], colours: dict[str, str], column: str,
            width: float) -> tuple[list[str], float]:
    """Swatches and values from the left, wrapped to ``width``; the parts and their height."""
    parts = [f'<text x="0" y="13" font-size="11" font-weight="600" fill="{INK}">'
             f"{_name(column)}</text>"]
    x, y = 0.0, 22.0
    for value in values:
        step = 24 + _CHAR_W * min(len(value), NAME_CHARS)  # a long value is cut by _name
        if x and x + step > width:
            x, y = 0.0, y + 16
        parts.append(f'<rect x="{_num(x)}" y="{_num(y)}" width="11" height="11" '
                     f'fill="{colours[value]}"/><text x="{_num(x + 15)}" y="{_num(y + 9.5)}" '
                     f'font-size="11" fill="{INK}">{_name(value)}</text>')
        x += step
    return parts, y + 22


def _hues(color: pd.Series, systems: Sequence[str]) -> tuple[dict[str, str], dict[str, str]]:
    """Each system's attribute value (``NONE`` when missing), and each value's colour."""
    values = {s: (NONE if pd.isna(v) else str(v))
              for s, v in ((s, color.get(s)) for s in systems)}
    shown = sorted(set(values.values()) - {NONE}) + ([NONE] if NONE in values.values() else [])
    colours = {v: (NONE_COLOR if v == NONE else PALETTE[i % len(PALETTE)])
               for i, v in enumerate(shown)}
    return values, colours


def box_svg(stats: BoxStats, order: Sequence[str], *, title: str,
            color: pd.Series | None = None, integer: bool = False) -> str:
    """Horizontal boxplots of ``stats``, one row per system (top to bottom in ``order``), as SVG.

    Parameters
    ----------
    stats : BoxStats
        Five numbers, mean, count and outliers per system (:func:`engine.box_stats`).
    order : sequence of str
        The rows, top to bottom; systems of ``stats`` not in it follow, in its order.
    title : str
        The x axis title (the metric's name may be uploaded text: it is escaped).
    color : Series, optional
        System → attribute value (metadata, the Series' name is the attribute): one colour per
        value with a legend on top; missing values show as "(none)".
    integer : bool
        Ranks: only whole-number ticks on the axis.

    Returns
    -------
    str
        A standalone ``<svg>`` (one line): a whisker line, a box from q1 to q3, a dark median
        tick and the outliers on each row, an x axis with round ticks, every system's name, and
        a tooltip per row with n, whiskers, quartiles, median, mean and the outlier count.

    Notes
    -----
    Outliers that land on the same half pixel of a row are drawn once (ranks repeat a lot);
    beyond :data:`MAX_OUTLIERS` distinct points an even sample of them is drawn (the Vega
    chart drew none) — the count in each row's tooltip is always the whole one.
    """
    table = stats.table.set_index("system", drop=False)
    table = table[~table.index.duplicated()]
    listed = [str(s) for s in order]
    rows = listed + [s for s in table.index.astype(str) if s not in set(listed)]
    numbers = table[["whisker_low", "q1", "median", "q3", "whisker_high", "mean"]].to_numpy(float)
    outliers = stats.outliers[stats.outliers["system"].astype(str).isin(set(rows))]
    values = outliers["value"].to_numpy(float)
    finite = np.concatenate([numbers[:, :5].ravel(), values])
    finite = finite[np.isfinite(finite)]
    low, high = (float(finite.min()), float(finite.max())) if finite.size else (0.0, 1.0)
    pad = (high - low) * 0.03 or 0.5
    low, high = low - pad, high + pad

    def x(value: float) -> float:
        return _NAMES_W + _PLOT_W * (value - low) / (high - low)

    hues: dict[str, str] = {}
    colours: dict[str, str] = {}
    column = ""
    legend: list[str] = []
    legend_h = 8.0
    if color is not None:
        column = str(color.name)
        hues, colours = _hues(color, rows)
        legend, legend_h = _legend(list(colours), colours, column, _NAMES_W + _PLOT_W)
    top = legend_h
    plot_h = _ROW * len(rows)
    width, height = _NAMES_W + _PLOT_W + _RIGHT, top + plot_h + _BOTTOM
    parts = [_open(width, height, f"boxplots of {title}, {len(rows)} systems"), *legend]
    ticks = nice_ticks(low, high)
    if integer:
        ticks = [t for t in ticks if float(t).is_integer()]
    parts.append(vertical_grid(ticks, x, top, top + plot_h))
    parts.append(f'<text x="{_num(_NAMES_W + _PLOT_W / 2)}" y="{_num(height - 8)}" '
                 f'font-size="11" font-weight="600" text-anchor="middle" fill="{INK}">'
                 f"{html_text(isolate(title))}</text>")
    points = _points(outliers, x)
    half = _ROW * 0.3
    for i, system in enumerate(rows):
        y = top + _ROW * i + _ROW / 2
        known = system in table.index
        box = numbers[table.index.get_loc(system)] if known else np.full(6, np.nan)
        fill = colours[hues[system]] if color is not None else BOX_COLOR
        tip = [isolate(system)]
        if color is not None:
            tip.append(f"{isolate(column)}: {isolate(hues[system])}")
        if known:
            row = table.loc[system]
            tip += [f"n: {int(row['n'])}",
                    f"whiskers: {_g(box[0])} to {_g(box[4])}",
                    f"quartiles: {_g(box[1])} to {_g(box[3])}",
                    f"median: {_g(box[2])}", f"mean: {_g(box[5])}",
                    f"outliers: {int(row['outliers'])}"]
        else:
            tip.append("no samples")
        marks = [f'<text x="{_num(_NAMES_W - 8)}" y="{_num(y + 4)}" font-size="11" '
                 f'text-anchor="end" fill="{INK}">{_name(system)}</text>']
        w_low, q1, median, q3, w_high = box[:5]
        if math.isfinite(w_low) and math.isfinite(w_high):
            marks.append(f'<line x1="{_num(x(w_low))}" x2="{_num(x(w_high))}" y1="{_num(y)}" '
                         f'y2="{_num(y)}" stroke="{WHISKER}"/>')
        if math.isfinite(q1) and math.isfinite(q3):
            marks.append(f'<rect x="{_num(x(q1))}" y="{_num(y - half)}" '
                         f'width="{_num(max(x(q3) - x(q1), 0.0))}" height="{_num(2 * half)}" '
                         f'fill="{fill}" fill-opacity="0.85"/>')
        if math.isfinite(median):
            marks.append(f'<line x1="{_num(x(median))}" x2="{_num(x(median))}" '
                         f'y1="{_num(y - half)}" y2="{_num(y + half)}" stroke="{MEDIAN}" '
                         f'stroke-width="2"/>')
        if points.get(system):
            marks.append(f'<g fill="{WHISKER}" fill-opacity="0.5">' + "".join(
                f'<circle cx="{px}" cy="{_num(y)}" r="1.95"/>' for px in points[system])
                + "</g>")
        parts.append(f"<g><title>{_BREAK.join(html_text(t) for t in tip)}</title>"
                     + "".join(marks) + "</g>")
    parts.append("</svg>")
    return "".join(parts)


def _points(outliers: pd.DataFrame, x: Callable[[float], float]) -> dict[str, list[str]]:
    """Each row's outlier positions (as coordinates), one per half pixel, at most
    :data:`MAX_OUTLIERS` in all (an even sample beyond)."""
    if outliers.empty:
        return {}
    frame = pd.DataFrame({"system": outliers["system"].astype(str),
                          "value": outliers["value"].to_numpy(float)})
    frame = frame[np.isfinite(frame["value"])]
    frame["px"] = [round(x(v) * 2) / 2 for v in frame["value"]]
    frame = frame.drop_duplicates(["system", "px"])
    if len(frame) > MAX_OUTLIERS:
        frame = frame.iloc[np.linspace(0, len(frame) - 1, MAX_OUTLIERS).astype(int)]
    return {str(s): [_num(p) for p in group["px"]]
            for s, group in frame.groupby("system", sort=False)}
