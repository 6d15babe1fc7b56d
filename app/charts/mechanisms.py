"""Charts of the Mechanisms page as SVG written on the server: the agreement between the
five rankings, and P(A beats B) for every pair.

Why not altair drawn to SVG by vl-convert in a child process, as before: profiled
on humaneval (78 systems), the two charts took 2–4 s of the page's cold first
view — the drawing process's first Vega run and a 1.8 MB SVG for the 6,084 cells of P(A
beats B) — plus 0.15 s of altair's validation, when the rest of the page's script needs
about 1.5 s of CPU. Rectangles and text are written here in tens of milliseconds. Names pass
through :func:`engine.html_text` between Unicode isolates; hover text is ``<title>``.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence

import numpy as np

from app.charts.svg import INK, _name, _num, _open
from engine.app_support import NAME_CHARS, html_text, isolate
from engine.results import PBeats

#: Write the value in each P(A beats B) cell up to this many systems: the page's default focus
#: (the best 20), whose close pairs are near-white cells otherwise.
TEXT_CELLS = 20
#: The five mechanisms compared (engine.CORE_MECHANISMS) and their plain labels, in the
#: agreement matrix and in the page's rankings table.
LABELS = {"mean": "mean", "median": "median", "bradley_terry": "head-to-head",
          "elo": "arena rating", "trueskill": "skill rating"}
#: Names are written beside the P(A beats B) rows and columns up to this many systems.
LABELLED = 80
#: Colour stops, low to high: Vega's "blues" (agreement) and its "redblue" reversed (P(A
#: beats B): red where the row system wins, blue where it loses), as the charts had before.
BLUES = ("#f7fbff", "#deebf7", "#c6dbef", "#9ecae1", "#6baed6", "#4292c6", "#2171b5",
         "#08519c", "#08306b")
BLUE_RED = ("#053061", "#2166ac", "#4393c3", "#92c5de", "#d1e5f0", "#f7f7f7", "#fddbc7",
            "#f4a582", "#d6604d", "#b2182b", "#67001f")
FADED = 0.35  # opacity of a pair the sign test does not separate
TAU_CELL = 56


def ramp(stops: Sequence[str], values: np.ndarray) -> list[str]:
    """The colour of each of ``values`` (0 to 1, clipped; NaN as 0) on the ramp through
    ``stops`` (hex colours, evenly spaced), linear in RGB.

    Examples
    --------
    >>> ramp(("#000000", "#ffffff"), np.array([0.0, 0.5, 1.0]))
    ['#000000', '#808080', '#ffffff']
    """
    rgb = np.array([[int(s[i:i + 2], 16) for i in (1, 3, 5)] for s in stops], dtype=float)
    t = np.clip(np.nan_to_num(np.asarray(values, dtype=float)), 0.0, 1.0)
    at = np.linspace(0.0, 1.0, len(stops))
    channels = np.rint(np.stack([np.interp(t, at, rgb[:, c]) for c in range(3)], axis=-1))
    return ["#" + "".join(f"{int(v):02x}" for v in row) for row in channels]


def _gradient(ident: str, stops: Sequence[str], x: float, y: float, title: str,
              ends: tuple[str, str]) -> str:
    """A horizontal colour bar 120 px wide at (``x``, ``y``) under ``title``, its two ends
    labelled."""
    offsets = "".join(f'<stop offset="{i / (len(stops) - 1):.3f}" stop-color="{c}"/>'
                      for i, c in enumerate(stops))
    return (f'<defs><linearGradient id="{ident}">{offsets}</linearGradient></defs>'
            f'<text x="{_num(x)}" y="{_num(y)}" font-size="11" font-weight="600" '
            f'fill="{INK}">{html_text(title)}</text>'
            f'<rect x="{_num(x)}" y="{_num(y + 6)}" width="120" height="10" '
            f'fill="url(#{ident})"/>'
            f'<text x="{_num(x)}" y="{_num(y + 28)}" font-size="10" fill="{INK}">'
            f"{html_text(ends[0])}</text>"
            f'<text x="{_num(x + 120)}" y="{_num(y + 28)}" font-size="10" text-anchor="end" '
            f'fill="{INK}">{html_text(ends[1])}</text>')


def tau_svg(kendall: Mapping[str, float], names: Sequence[str],
            labels: Mapping[str, str]) -> str:
    """Kendall's tau between every two mechanisms' rankings (1 = the same order), the value
    in each cell; ``kendall`` maps "a|b" (either order) to tau."""
    n = len(names)
    left, top, below = 96.0, 44.0, 80.0
    width, height = left + TAU_CELL * n + 12, top + TAU_CELL * n + below
    taus = np.array([[1.0 if a == b else kendall.get(f"{a}|{b}", kendall.get(f"{b}|{a}",
                                                                              np.nan))
                      for b in names] for a in names], dtype=float)
    fills = ramp(BLUES, taus.ravel())
    parts = [_open(width, height, f"agreement between the rankings of {n} mechanisms"),
             _gradient("sb-tau", BLUES, left, 12, "agreement (Kendall τ)", ("0", "1"))]
    for i, a in enumerate(names):
        for j, b in enumerate(names):
            tau = taus[i, j]
            x, y = left + TAU_CELL * j, top + TAU_CELL * i
            value = "—" if np.isnan(tau) else f"{tau:.2f}"
            tip = html_text(f"{labels[a]} vs {labels[b]}: Kendall tau {value}")
            ink = "white" if tau > 0.6 else INK
            parts.append(f'<g><title>{tip}</title><rect x="{_num(x)}" y="{_num(y)}" '
                         f'width="{TAU_CELL}" height="{TAU_CELL}" fill="{fills[i * n + j]}" '
                         f'stroke="white"/><text x="{_num(x + TAU_CELL / 2)}" '
                         f'y="{_num(y + TAU_CELL / 2 + 4)}" font-size="11" text-anchor="middle"'
                         f' fill="{ink}">{value}</text></g>')
    for i, name in enumerate(names):
        text = html_text(labels[name])
        parts.append(f'<text x="{_num(left - 6)}" y="{_num(top + TAU_CELL * i + TAU_CELL / 2 + 4)}"'
                     f' font-size="11" text-anchor="end" fill="{INK}">{text}</text>'
                     f'<text transform="translate({_num(left + TAU_CELL * i + TAU_CELL / 2 + 4)} '
                     f'{_num(top + TAU_CELL * n + 8)}) rotate(-30)" font-size="11" '
                     f'text-anchor="end" fill="{INK}">{text}</text>')
    parts.append("</svg>")
    return "".join(parts)


def pbeats_cell(n: int) -> int:
    """Pixels of one P(A beats B) cell for ``n`` systems: 11 to 30, the side within 640 px
    where it fits (a 9-pixel label, one per row, needs 11 pixels not to touch the next)."""
    return int(max(11, min(30, 640 / max(n, 1))))


def pbeats_svg(result: PBeats, order: Sequence[str]) -> str:
    """P(row system beats column system) on the shared examples, systems in ``order``:
    significant pairs in full colour, the others faded (sign test, corrected); the value
    in each cell up to :data:`TEXT_CELLS` systems, names beside up to :data:`LABELLED`."""
    order = list(order)
    n = len(order)
    size = pbeats_cell(n)
    prob = result.prob.loc[order, order].to_numpy(float)
    t = result.table
    index = {s: i for i, s in enumerate(order)}
    adjusted = np.full((n, n), np.nan)
    significant = np.zeros((n, n), dtype=bool)
    for a, b, p, sig in zip(t["system_a"], t["system_b"], t["pvalue_adj"].to_numpy(float),
                            t["significant"].astype(bool), strict=True):
        if a in index and b in index:
            i, j = index[a], index[b]
            adjusted[i, j] = adjusted[j, i] = p
            significant[i, j] = significant[j, i] = sig
    labelled = n <= LABELLED
    font = 9 if size < 13 else 11
    longest = 0.55 * font * min(max(map(len, order), default=1), NAME_CHARS)  # pixels, at most
    names_w = round(longest + 14) if labelled else 20
    labels_h = 0.87 * longest + 16 if labelled else 8.0  # a label turned 60° up
    legend_h = 62
    width = max(names_w + size * n + 20, names_w + 300)
    height = legend_h + size * n + labels_h + 18
    fills = ramp(BLUE_RED, prob.ravel())
    parts = [_open(width, height, f"P(A beats B) among {n} systems"),
             _gradient("sb-pbeats", BLUE_RED, names_w, 12, "P(A beats B)", ("0", "1")),
             f'<text x="{names_w + 150}" y="12" font-size="11" font-weight="600" '
             f'fill="{INK}">sign test</text>'
             f'<rect x="{names_w + 150}" y="18" width="14" height="10" fill="{BLUE_RED[-2]}"/>'
             f'<text x="{names_w + 170}" y="27" font-size="10" fill="{INK}">significant'
             f'</text><rect x="{names_w + 150}" y="32" width="14" height="10" '
             f'fill="{BLUE_RED[-2]}" fill-opacity="{FADED}"/><text x="{names_w + 170}" '
             f'y="41" font-size="10" fill="{INK}">not significant</text>']
    # the cells, row by row: every name escaped once (6,084 cells on humaneval)
    names = [html_text(isolate(s)) for s in order]
    verdicts = np.where(significant, "significant", "not significant")
    faded = np.where(significant, "", f' fill-opacity="{FADED}"')
    texts = n <= TEXT_CELLS
    # white on the deep colours (full-colour cells far from 0.5): dark text there could not
    # be read; faded cells are light whatever their value
    inks = np.where(significant & (np.abs(prob - 0.5) > 0.25), "white", INK)
    for i in range(n):
        y = legend_h + size * i
        for j in range(n):
            p = prob[i, j]
            if i == j or np.isnan(p):
                continue
            x = names_w + size * j
            cell = (f'<rect x="{x}" y="{y}" width="{size}" height="{size}" '
                    f'fill="{fills[i * n + j]}"{faded[i, j]}/>')
            if texts:
                cell += (f'<text x="{x + size / 2:g}" y="{y + size / 2 + 3.5:g}" font-size="9" '
                         f'text-anchor="middle" fill="{inks[i, j]}">{p:.2f}</text>')
            parts.append(f"<g><title>{names[i]} vs {names[j]}: P(A beats B) {p:.2f}; sign "
                         f"test, adjusted p {adjusted[i, j]:.2g}: {verdicts[i, j]}</title>"
                         f"{cell}</g>")
    if labelled:
        for i, name in enumerate(order):
            middle = size * i + size / 2 + font / 3
            parts.append(f'<text x="{_num(names_w - 6)}" y="{_num(legend_h + middle)}" '
                         f'font-size="{font}" text-anchor="end" fill="{INK}">{_name(name)}</text>'
                         f'<text transform="translate({_num(names_w + middle)} '
                         f'{_num(legend_h + size * n + 6)})'
                         f' rotate(-60)" font-size="{font}" text-anchor="end" fill="{INK}">'
                         f"{_name(name)}</text>")
    parts.append(f'<text x="{_num(names_w - 6)}" y="{_num(legend_h - 6)}" font-size="11" '
                 f'font-weight="600" text-anchor="end" fill="{INK}">system A ↓ · system B →'
                 "</text></svg>")
    return "".join(parts)
