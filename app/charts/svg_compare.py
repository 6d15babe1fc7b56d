"""The A/B compare page's two charts as SVG text written here: the difference by model and
where the variance is.

Why not altair drawn by vl-convert in a child process, as before: profiled on humaneval,
the page's cold first view (about 2.4 s) spent about 1.2 s on these two charts — altair's
validation about 0.35 s, the drawing process about 0.95 s — for a line and a dot per
model and a bar per variance component. Written here they take about a millisecond.
The page shows them with ``app.widgets.picture`` and the HTML report embeds the same text
(``app.components.compare_report.report_html``), so both have a viewBox and hover text.

Every name and number passes through :func:`engine.html_text` (names also between Unicode
isolates, :func:`engine.isolate`), and hover text is an SVG ``<title>``. Pure functions,
no Streamlit.
"""

from __future__ import annotations

import math
from collections.abc import Sequence

import numpy as np
import pandas as pd

from app.charts.compare import COMPONENT_NAMES, model_label
from app.charts.graph import BEST, EDGE, NODE
from app.charts.svg import (
    INK,
    _g,
    _name,
    _num,
    _open,
    interval_marks,
    vertical_grid,
)
from app.charts.svg_boxes import _BREAK
from engine.app_support import POINTS, html_text, isolate, nice_ticks

MODEL_ROW, COMPONENT_ROW = 30.0, 28.0  # pixels per row, as the altair charts' steps
#: Characters of a model's label shown (the rest in its hover text): the verdict's label
#: with a long test name runs past 100 characters.
MODEL_CHARS = 50
COMPONENT_CHARS = 18
MUTED = EDGE  # the graphs' grey
_TOP, _BOTTOM, _RIGHT = 30.0, 46.0, 24.0  # room for the title; tick labels and axis title


def axis_domain(low: float, high: float, count: int = 10) -> tuple[float, float, list[float]]:
    """Round ticks covering [low, high], the first and last at the ends of the axis (as a
    Vega "nice" scale): the domain and its ticks. An empty or one-point range spans at least ±0.5 around it.

    Examples
    --------
    >>> axis_domain(-0.0750, 0.0994)
    (-0.08, 0.1, [-0.08, -0.06, -0.04, -0.02, 0.0, 0.02, 0.04, 0.06, 0.08, 0.1])
    >>> axis_domain(0.0, 0.0, 6)
    (-0.6, 0.6, [-0.6, -0.4, -0.2, 0.0, 0.2, 0.4, 0.6])
    """
    if not (math.isfinite(low) and math.isfinite(high)) or high <= low:
        middle = low if math.isfinite(low) else 0.0
        low, high = middle - 0.5, middle + 0.5
    ticks = nice_ticks(low, high, count)
    step = ticks[1] - ticks[0]  # nice_ticks' step is at most 2.5 times the range / count
    first = math.floor(low / step + 1e-9)
    last = math.ceil(high / step - 1e-9)
    # + 0.0: a tick at minus zero would be labelled "-0"
    values = [round(k * step, 12) + 0.0 for k in range(first, last + 1)]
    return values[0], values[-1], values


def _title(x: float, text: str) -> str:
    return (f'<text x="{_num(x)}" y="18" font-size="13" font-weight="600" '
            f'text-anchor="middle" fill="{INK}">{html_text(text)}</text>')


def _axis_title(x: float, y: float, text: str) -> str:
    return (f'<text x="{_num(x)}" y="{_num(y)}" font-size="11" font-weight="600" '
            f'text-anchor="middle" fill="{INK}">{html_text(isolate(text))}</text>')


def _tip(lines: Sequence[str]) -> str:
    """Hover text of one row: its lines (escaped here), one per line."""
    return f"<title>{_BREAK.join(html_text(line) for line in lines)}</title>"


def models_svg(models: pd.DataFrame, *, metric: str, level: str, width: int = 560,
               percent: bool = False) -> str:
    """Each model's estimate of candidate − baseline with its interval, as SVG.

    Parameters
    ----------
    models : DataFrame
        ``ABComparison.models``: ``model``, ``estimate``, ``ci_low``, ``ci_high`` and
        ``pvalue``, one row per model, top to bottom.
    metric, level : str
        The axis title's metric (uploaded text: escaped) and interval level (``"95%"``).
    width : int
        Pixels of the plot; the labels take 320 more on its left.
    percent : bool
        A 0/1 metric (:func:`engine.app_support.zero_one`): the axis, its ticks and the hover
        text in percentage points, as the verdict and the models' table beside the chart.

    Returns
    -------
    str
        A standalone ``<svg>``: one row of :data:`MODEL_ROW` pixels per model with its plain
        label (:func:`app.charts.compare.model_label`, cut after :data:`MODEL_CHARS`
        characters), a line over the interval and a dot at the estimate; a dashed red line
        at 0; round ticks; hover text per row with the model's names, estimate, interval
        and p-value. A missing estimate leaves its row without marks, "not estimable".
    """
    names = models["model"].astype(str).tolist()
    numbers = models[["estimate", "ci_low", "ci_high", "pvalue"]].to_numpy(float)
    # a 0/1 metric drawn in points: round ticks in points (1, 2, 5 ...), not fractions
    scale = 100.0 if percent else 1.0
    numbers = numbers * np.array([scale, scale, scale, 1.0])
    # 0 always in view: the dashed line says which side of "no difference" each model is
    values = np.append(numbers[:, :3].ravel(), 0.0)
    finite = values[np.isfinite(values)]
    low, high, ticks = axis_domain(float(finite.min()), float(finite.max()))
    names_w = 320.0
    plot_h = MODEL_ROW * len(names)
    total_w, height = names_w + width + _RIGHT, _TOP + plot_h + _BOTTOM

    def x(value: float) -> float:
        return names_w + width * (value - low) / (high - low)

    # hover text as the verdict writes it: "+1.2 points" (engine._units.difference_text)
    spec, unit = ("+.1f", f" {POINTS}") if percent else (".4f", "")
    units = f", {POINTS}" if percent else ""
    parts = [_open(total_w, height, f"Difference by model: candidate − baseline in {metric} "
                                    f"estimated by {len(names)} models"),
             _title(names_w + width / 2, "Difference by model"),
             vertical_grid(ticks, x, _TOP, _TOP + plot_h),
             _axis_title(names_w + width / 2, height - 8,
                         f"candidate − baseline ({metric}{units}; {level} interval)")]
    zero = _num(x(0.0))
    parts.append(f'<line x1="{zero}" x2="{zero}" y1="{_num(_TOP)}" y2="{_num(_TOP + plot_h)}" '
                 f'stroke="{BEST}" stroke-dasharray="4 4"/>')
    for i, (model, (estimate, ci_low, ci_high, pvalue)) in enumerate(zip(names, numbers,
                                                                         strict=True)):
        y = _TOP + MODEL_ROW * i + MODEL_ROW / 2
        label = model_label(model)
        marks = [f'<text x="{_num(names_w - 8)}" y="{_num(y + 4)}" font-size="11" '
                 f'text-anchor="end" fill="{INK}">{_name(label, MODEL_CHARS)}</text>',
                 *interval_marks(x, y, estimate, ci_low, ci_high, stroke=NODE, dot=INK,
                                 width=2.5, radius=4.7)]
        if not math.isfinite(estimate):
            marks.append(f'<text x="{_num(names_w + 6)}" y="{_num(y + 4)}" font-size="11" '
                         f'fill="{MUTED}">— not estimable</text>')
        tip = [isolate(label), f"model: {isolate(model)}",
               f"estimate: {_g(estimate, spec)}{unit}",
               f"interval: {_g(ci_low, spec)} to {_g(ci_high, spec)}{unit}",
               f"p: {_g(pvalue, '.3g')}"]
        parts.append(f"<g>{_tip(tip)}{''.join(marks)}</g>")
    parts.append("</svg>")
    return "".join(parts)


def _percent(value: float) -> str:
    return f"{value:.0%}"


def variance_svg(variance: pd.DataFrame, *, width: int = 360) -> str:
    """Each variance component's share of the score's variance as a bar, as SVG.

    ``variance`` is ``ABComparison.variance`` (``component``, ``variance``, ``share``); rows
    without a share (not estimable from these runs) are left out. x runs from 0 to 100%
    (five ticks: at 360 px ten labels ran together, "90%100%"); the
    labels are :data:`app.charts.compare.COMPONENT_NAMES`; hover text per bar with the
    component, its variance and its share. ``width``: pixels of the plot.
    """
    frame = variance.dropna(subset=["share"])
    components = frame["component"].astype(str).tolist()
    numbers = frame[["variance", "share"]].to_numpy(float)
    names_w = 116.0  # the engine's longest component name, "system × example": ~95 px
    plot_h = COMPONENT_ROW * len(components)
    total_w, height = names_w + width + _RIGHT, _TOP + plot_h + _BOTTOM

    def x(share: float) -> float:
        return names_w + width * min(max(share, 0.0), 1.0)

    parts = [_open(total_w, height, f"Where the variance is: the share of {len(components)} "
                                    "components"),
             _title(names_w + width / 2, "Where the variance is"),
             vertical_grid([0.0, 0.25, 0.5, 0.75, 1.0], x, _TOP, _TOP + plot_h, _percent),
             _axis_title(names_w + width / 2, height - 8, "share of the variance")]
    for i, (component, (value, share)) in enumerate(zip(components, numbers, strict=True)):
        y = _TOP + COMPONENT_ROW * i + COMPONENT_ROW / 2
        label = COMPONENT_NAMES.get(component, component)
        tip = [isolate(label), f"component: {isolate(component)}",
               f"variance: {_g(value)}", f"share: {_g(share, '.1%')}"]
        parts.append(f"<g>{_tip(tip)}"
                     f'<text x="{_num(names_w - 8)}" y="{_num(y + 4)}" font-size="11" '
                     f'text-anchor="end" fill="{INK}">{_name(label, COMPONENT_CHARS)}</text>'
                     f'<rect x="{_num(x(0.0))}" y="{_num(y - 11)}" '
                     f'width="{_num(x(share) - x(0.0))}" height="22" fill="{NODE}"/></g>')
    parts.append("</svg>")
    return "".join(parts)
