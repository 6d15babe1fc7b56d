"""The heatmap table across metrics as a styled table (pure: no Streamlit calls).

Seed paper §5.2: white = not significant on that metric; otherwise the cell
shows the adjusted p-value (or the effect size) on a background that is red
when the row's first system is better and blue when the second is, darker
when more significant.
"""

from __future__ import annotations

import math

import numpy as np
import pandas as pd
from pandas.io.formats.style import Styler

from engine import MetricsTable

MAX_ROWS = 200  # pairs shown on the page (all of them go into the CSV download)
_RED, _BLUE = (192, 34, 34), (38, 84, 176)
_DARKEST_P = 8.0  # orders of magnitude below alpha at which the colour is darkest
_DARKEST_EFFECT = 2.0  # effect size at which the colour is darkest
_NAMES = {"hmp": "HMP", "significant_in": "significant in"}


def strength(values: pd.Series, *, value: str, alpha: float) -> pd.Series:
    """0..1 darkness of each significant cell: p far below alpha, or a large effect."""
    x = values.astype(float)
    if value == "pvalue_adj":
        with np.errstate(divide="ignore"):
            depth = np.log10(alpha / x.clip(lower=np.finfo(float).tiny)) / _DARKEST_P
    else:
        depth = x.abs() / _DARKEST_EFFECT
    return pd.Series(np.clip(depth, 0.0, 1.0), index=values.index)


def cell_css(direction: int, darkness: float) -> str:
    """Background (red: first system better, blue: second) and a readable text colour."""
    if math.isnan(darkness) or direction == 0:
        return ""
    r, g, b = _RED if direction > 0 else _BLUE
    opacity = 0.15 + 0.75 * darkness
    text = "white" if opacity > 0.55 else "black"
    return f"background-color: rgba({r}, {g}, {b}, {opacity:.2f}); color: {text}"


def css_frame(result: MetricsTable, shown: pd.DataFrame, *, alpha: float) -> pd.DataFrame:
    """One CSS string per metric cell of ``shown`` (rows of ``result.table``)."""
    keys = pd.MultiIndex.from_frame(shown[["system_a", "system_b"]])
    directions = result.cells.pivot(index=["system_a", "system_b"], columns="metric",
                                    values="direction").reindex(keys).fillna(0)
    out = pd.DataFrame("", index=shown.index, columns=shown.columns)
    for metric in result.metrics:
        darkness = strength(shown[metric], value=result.value, alpha=alpha)
        out[metric] = [cell_css(int(d), float(s))
                       for d, s in zip(directions[metric], darkness, strict=True)]
    return out


def format_cell(x: float, value: str) -> str:
    """Adjusted p-values as 0.012 / 3.4e-07; effect sizes signed (+0.45); blank if not significant."""
    if pd.isna(x):
        return ""
    if value == "effect_size":
        return f"{x:+.2f}"
    return f"{x:.3f}" if x >= 0.001 else f"{x:.1e}"


def styled(result: MetricsTable, *, alpha: float, rows: int = MAX_ROWS) -> Styler:
    """The first ``rows`` pairs (most significant first) as a coloured, formatted table."""
    head = result.table.head(rows)
    css = css_frame(result, head, alpha=alpha).rename(columns=_NAMES)
    formats: dict[str, object] = {m: (lambda x, v=result.value: format_cell(x, v))
                                  for m in result.metrics}
    formats["HMP"] = "{:.2g}".format
    return head.rename(columns=_NAMES).style.apply(lambda _: css, axis=None).format(formats)
