"""Text and tables of the reports: escaping, number formats, HTML and Markdown tables.

Every user string is HTML-escaped in HTML (:func:`h`) and made inert in Markdown
(:func:`markdown_text`: ``|`` cannot break a table). Numbers are shown with four
significant digits, "—" for missing and ∞ for infinite values.
"""

from __future__ import annotations

import math
from typing import Any

import numpy as np
import pandas as pd

from .._text import html_text, markdown_text

__all__ = ["cells", "h", "html_table", "markdown_text", "md_table", "num", "signed"]


def h(text: object) -> str:
    """``text`` inert in a report's HTML (the escaping the app shares, :mod:`engine._text`): a
    document no markdown renderer reads, so its source keeps markdown's characters as written."""
    return html_text(text, markdown_safe=False)


def num(value: Any, digits: int = 4) -> str:
    if value is None or isinstance(value, str):
        return "" if value is None else value
    if isinstance(value, bool | np.bool_):
        return "yes" if value else "no"
    if isinstance(value, int | np.integer):
        return f"{int(value):,}"
    x = float(value)
    if math.isnan(x):
        return "—"
    if math.isinf(x):
        return "∞" if x > 0 else "−∞"
    return f"{x:.{digits}g}"


def signed(x: float) -> str:
    return f"{x:+.4f}" if math.isfinite(x) else num(x)


def cells(frame: pd.DataFrame) -> list[list[str]]:
    return [[num(v) if not isinstance(v, str) else v for v in row]
            for row in frame.itertuples(index=False, name=None)]


def html_table(frame: pd.DataFrame, label: str) -> str:
    head = "".join(f"<th>{h(c)}</th>" for c in frame.columns)
    body = "".join("<tr>" + "".join(f"<td>{h(c)}</td>" for c in row) + "</tr>"
                   for row in cells(frame))
    return (f'<table aria-label="{h(label)}"><thead><tr>{head}</tr></thead>'
            f"<tbody>{body}</tbody></table>")


def md_table(frame: pd.DataFrame) -> str:
    head = "| " + " | ".join(markdown_text(c) for c in frame.columns) + " |"
    rule = "|" + "|".join("---" for _ in frame.columns) + "|"
    rows = ["| " + " | ".join(markdown_text(c) for c in row) + " |" for row in cells(frame)]
    return "\n".join([head, rule, *rows])
