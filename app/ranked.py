"""The leaderboard as a static ranked HTML table: the light first screen of the Leaderboard page.

Why not ``st.dataframe``: the data grid's browser code (about 1.5 MB) loads and
compiles on first use, which more than doubles a cold page load. This table is
plain HTML sent through ``st.html`` (a 30 KB sanitiser, then ``innerHTML``): the
ranking is on screen nearly as fast as a one-line page, and the grid stays one
tab away for sorting and row selection. (Measured: HTML inside ``st.markdown``
renders slower, through a markdown parser and React elements per cell.)

*Every* value is escaped here (:func:`engine.html_text`: HTML's special characters and
markdown's, as entities), before ``st.html`` runs DOMPurify on the result, so the same
HTML is also safe where markdown renders it. A system named ``<img src=x onerror=…>`` is
shown as text. Pure functions, no Streamlit: unit-testable.
"""

from __future__ import annotations

import math
from collections.abc import Collection, Mapping, Sequence
from numbers import Integral, Real

import pandas as pd

from engine.app_support import html_text

#: How the numeric leaderboard columns are shown (the grid's formats derive from these too).
INTEGERS = frozenset({"rank", "n", "runs"})
DECIMALS = {"mean": 4, "strength (share)": 4, "Elo": 0}
PERCENT = frozenset({"win rate"})
NUMERIC = INTEGERS | DECIMALS.keys() | PERCENT
MISSING = "—"
#: Below this width only the columns that answer "how good, how sure" stay (no sideways scroll).
NARROW = 640
_NARROW_KEEP = ("system", "mean", "CI", "rank range")
_STYLE = """<style>
.sb-ranked{overflow-x:auto;border:1px solid rgba(31,41,51,.14);border-radius:.5rem}
.sb-ranked table{border-collapse:separate;border-spacing:0;width:100%;margin:0;
  font-size:.84rem;font-variant-numeric:tabular-nums;color:inherit}
.sb-ranked th{position:sticky;top:0;z-index:1;background:#f3f4f6;text-align:left;
  font-weight:600;white-space:nowrap;padding:.4rem .5rem;border:0;
  border-bottom:1px solid rgba(31,41,51,.2)}
.sb-ranked td{padding:.3rem .5rem;white-space:nowrap;border:0;
  border-bottom:1px solid rgba(31,41,51,.07)}
.sb-ranked tr.top td{background:#eef3fb}
.sb-ranked a{color:inherit;text-decoration:none;border-bottom:1px dotted rgba(31,41,51,.4)}
.sb-ranked a:hover{color:#3b5b92;border-bottom-style:solid}
@media print{.sb-ranked{overflow:visible}}
</style>""".replace("\n", "")  # one line: markdown ends an HTML block at a blank line


def ranked_html(rows: pd.DataFrame, columns: Sequence[str], *, top: Collection[str] = (),
                links: Mapping[str, str] | None = None,
                help: Mapping[str, str] | None = None, percent: Collection[str] = ()) -> str:
    """The rows as an escaped HTML table, in their order, with a sticky header.

    Parameters
    ----------
    rows : DataFrame
        Display rows (``app.tables.leaderboard_rows``), one per system, in rank order.
    columns : sequence of str
        Columns to show, in order; must be columns of ``rows``.
    top : collection of str
        Systems whose rows are shaded: those that could rank first.
    links : mapping, optional
        System name → relative URL; the name becomes a link.
    help : mapping, optional
        Column name → tooltip of its header.
    percent : collection of str
        Columns shown in percent besides the win rate (the mean of a 0/1 metric).

    Returns
    -------
    str
        A ``<style>`` block and a ``<div class="sb-ranked">`` holding the ``<table>``;
        the table carries ``data-rows`` (the row count) for tests and benchmarks.
        Every row is in the page (no inner scroll box: it prints and screenshots whole);
        below :data:`NARROW` pixels only system, mean, CI and rank range are shown.
    """
    links, help = links or {}, help or {}
    head = "".join(_header(c, help.get(c)) for c in columns)
    records: list[dict[str, object]] = rows.to_dict("records")  # type: ignore[assignment]
    scale = PERCENT | set(percent)
    body = "".join(_row(record, columns, top, links, scale) for record in records)
    return (f"{_STYLE}{_column_style(columns)}"
            '<div class="sb-ranked">'
            f'<table aria-label="leaderboard" data-rows="{len(rows)}">'
            f"<thead><tr>{head}</tr></thead><tbody>{body}</tbody></table></div>")


def format_cell(column: str, value: object, percent: Collection[str] = PERCENT) -> str:
    """A value as the table shows it (unescaped): fixed decimals, percent, "—" for missing."""
    if value is None or (pd.api.types.is_scalar(value) and pd.isna(value)):  # type: ignore[call-overload]
        return MISSING
    if column in percent and isinstance(value, Real):
        return f"{100 * float(value):.1f}%"
    if column in DECIMALS and isinstance(value, Real):
        return f"{float(value):.{DECIMALS[column]}f}"
    if column in INTEGERS and isinstance(value, Real) and float(value).is_integer():
        return str(int(float(value)))
    if isinstance(value, Real) and not isinstance(value, Integral | bool):
        return f"{float(value):g}"
    return str(value)


def _column_style(columns: Sequence[str]) -> str:
    """Per-column CSS (numbers right-aligned, group letters monospaced, the name bold on top
    rows) by position: one rule per column instead of a class on every cell."""
    rules = []
    narrow = [f".sb-ranked td:nth-child({i}),.sb-ranked th:nth-child({i})"
              for i, column in enumerate(columns, start=1) if column not in _NARROW_KEEP]
    if narrow and any(c in columns for c in ("mean", "CI")):
        # on a phone the name and the interval may wrap; a number never breaks
        wrap = ",".join(f".sb-ranked td:nth-child({i})" for i, c in enumerate(columns, start=1)
                        if c in ("system", "CI"))
        rules.append(f"@media (max-width:{NARROW}px){{{','.join(narrow)}{{display:none}}"
                     f"{wrap or '.sb-none'}{{white-space:normal;overflow-wrap:anywhere}}}}")
    for i, column in enumerate(columns, start=1):
        cells = f".sb-ranked td:nth-child({i})"
        if column in NUMERIC:
            rules.append(f"{cells},.sb-ranked th:nth-child({i}){{text-align:right}}")
        elif column == "group":
            # letters are at most three (longer groups read "ranks 1–22", app/tables.py)
            rules.append(f'{cells}{{font-family:"Source Code Pro",monospace}}')
        elif column == "system":
            rules.append(f".sb-ranked tr.top td:nth-child({i}){{font-weight:600}}")
    return f"<style>{''.join(rules)}</style>"


def _header(column: str, tip: str | None) -> str:
    title = f' title="{html_text(tip)}"' if tip else ""
    return f"<th{title}>{html_text(column)}</th>"


def _row(record: Mapping[str, object], columns: Sequence[str], top: Collection[str],
         links: Mapping[str, str], percent: Collection[str]) -> str:
    system = str(record["system"])
    cells = []
    for column in columns:
        text = html_text(format_cell(column, record[column], percent))
        if column == "system":
            text = f"<bdi>{text}</bdi>"  # a right-to-left name cannot reorder the row
        if column == "system" and system in links:
            # target=_self: markdown links open a new tab unless told otherwise
            text = f'<a href="{html_text(links[system])}" target="_self">{text}</a>'
        cells.append(f"<td>{text}</td>")
    shade = ' class="top"' if system in top else ""
    return f"<tr{shade}>{''.join(cells)}</tr>"


def html_table(frame: pd.DataFrame, *, label: str, formats: Mapping[str, str] | None = None,
               help: Mapping[str, str] | None = None, max_height: int | None = 420,
               links: Mapping[str, str] | None = None) -> str:
    """Any small frame as an escaped static HTML table in the ranked table's style.

    For the read-only tables of the Examples, Distributions and Pairwise pages: unlike
    ``st.dataframe`` it needs no data-grid code in the browser (about 1.5 MB to load and
    compile on a page's first use), so those pages are not held up by it.

    Parameters
    ----------
    frame : DataFrame
        The rows, in order; every column is shown.
    label : str
        The table's accessible name (``aria-label``).
    formats : mapping, optional
        Column → format spec for numbers (``".3f"``, ``".1%"``); other numbers as in
        :func:`format_cell`; missing values as "—".
    help : mapping, optional
        Column → tooltip of its header.
    max_height : int or None
        Pixels before the table scrolls inside its box (None: every row in the page).
    links : mapping, optional
        Value of the first column → the address its cell links to (same tab).

    Returns
    -------
    str
        A ``<style>`` block and a ``<div class="sb-ranked">`` holding the table.

    Examples
    --------
    >>> html = html_table(pd.DataFrame({"example": ["<b>"], "tau": [0.5]}), label="t",
    ...                   formats={"tau": ".3f"})
    >>> "&lt;b&gt;" in html and "0.500" in html
    True
    """
    formats, help, links = formats or {}, help or {}, links or {}
    columns = [str(c) for c in frame.columns]
    numeric = [pd.api.types.is_numeric_dtype(frame[c]) for c in frame.columns]
    rules = "".join(f".sb-plain td:nth-child({i}),.sb-plain th:nth-child({i}){{text-align:right}}"
                    for i, is_number in enumerate(numeric, start=1) if is_number)
    # headers wrap at their spaces when the table would not fit otherwise: the Distributions
    # page's eleven columns ran past the page, its last ones hidden
    rules += ".sb-plain th{white-space:normal;vertical-align:bottom}"
    head = "".join(_header(c, help.get(c)) for c in columns)
    rows = []
    for values in frame.itertuples(index=False, name=None):
        cells = []
        for column, value in zip(columns, values, strict=True):
            if column in formats and isinstance(value, Real) and math.isfinite(float(value)):
                text = format(float(value), formats[column])
            else:
                text = format_cell(column, value)
            cell = f"<bdi>{html_text(text)}</bdi>"
            if column == columns[0] and text in links:
                cell = f'<a href="{html_text(links[text])}" target="_self">{cell}</a>'
            cells.append(f"<td>{cell}</td>")
        rows.append(f"<tr>{''.join(cells)}</tr>")
    box = f' style="max-height:{max_height}px;overflow-y:auto"' if max_height else ""
    return (f"{_STYLE}<style>{rules}</style>"
            f'<div class="sb-ranked sb-plain"{box}><table aria-label="{html_text(label)}" '
            f'data-rows="{len(frame)}"><thead><tr>{head}</tr></thead>'
            f"<tbody>{''.join(rows)}</tbody></table></div>")
