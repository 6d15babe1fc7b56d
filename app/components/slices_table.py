"""The Slices page's tables, as pure functions (no Streamlit): unit-testable.

:func:`estimates_html` is the systems × slices table (each cell the slice's mean and
its interval, "—" where a system has no result in the slice; each slice's header links
to the Leaderboard restricted to it); :func:`changes_html` lists the pairs whose
verdict changes between slices. Static HTML like the leaderboard's ranked table:
every name is escaped (:func:`engine.html_text`).
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from numbers import Real

import pandas as pd

from engine.app_support import html_text, interval_text, score_text
from engine.results import SliceTable

MISSING = "—"
#: Rows of the changes table shown on the page (all of them are in the CSV download).
MAX_CHANGES = 100
_STYLE = """<style>
.sb-slices{overflow-x:auto;border:1px solid rgba(31,41,51,.14);border-radius:.5rem;
  margin-bottom:.5rem}
.sb-slices table{border-collapse:separate;border-spacing:0;width:100%;margin:0;font-size:.84rem;
  font-variant-numeric:tabular-nums;color:inherit}
.sb-slices th{position:sticky;top:0;z-index:1;background:#f3f4f6;text-align:left;font-weight:600;
  padding:.4rem .5rem;border:0;border-bottom:1px solid rgba(31,41,51,.2);vertical-align:bottom}
.sb-slices td{padding:.3rem .5rem;border:0;border-bottom:1px solid rgba(31,41,51,.07);
  vertical-align:top}
.sb-slices td.num,.sb-slices th.num{text-align:right;white-space:nowrap}
.sb-slices td.name{overflow-wrap:anywhere;min-width:6rem}
.sb-slices td.miss{color:#8a94a6;text-align:center}
.sb-slices small{color:#616d7e;display:block;font-weight:400}
.sb-slices th a{color:inherit;text-decoration:none;border-bottom:1px dotted rgba(31,41,51,.4)}
.sb-slices th a:hover{color:#3b5b92;border-bottom-style:solid}
.sb-slices td.rev{color:#9b2c2c;font-weight:600}
@media (max-width:640px){.sb-slices{overflow-x:visible}
  .sb-slices table,.sb-slices thead,.sb-slices tbody,.sb-slices tr{display:block}
  .sb-slices thead tr{display:flex;flex-wrap:wrap;gap:.1rem .6rem;background:#f3f4f6;
    padding:.3rem .4rem;border-bottom:1px solid rgba(31,41,51,.2)}
  .sb-slices thead th,.sb-slices thead th.num{position:static;display:block;border:0;
    padding:.1rem;text-align:left}
  .sb-slices thead th:first-child,.sb-slices thead.labels{display:none}
  .sb-slices tbody tr{display:flex;flex-wrap:wrap;padding:.35rem .2rem;
    border-bottom:1px solid rgba(31,41,51,.12)}
  .sb-slices td{display:block;border:0;flex:1 1 30%;min-width:6.5rem;padding:.15rem .3rem;
    text-align:left !important;white-space:normal !important}
  .sb-slices td.name{flex:1 1 100%;font-weight:600}
  .sb-slices td[data-label]::before{content:attr(data-label);display:block;color:#616d7e;
    font-size:.72rem;font-weight:400}}
</style>""".replace("\n", "")  # one line: markdown ends an HTML block at a blank line


def _float(value: object) -> float:
    return float(value) if isinstance(value, Real) else math.nan


def cell_text(mean: float, low: float, high: float, *, percent: bool) -> tuple[str, str]:
    """A slice's mean and its interval as shown, in the units of every page
    (:mod:`engine._units`: "82.9%" and "[76.4%, 87.9%]" for a 0/1 metric, else four
    decimals); "—" when missing."""
    if not math.isfinite(mean):
        return MISSING, ""
    return score_text(mean, percent=percent), interval_text(low, high, percent=percent)


def estimates_html(result: SliceTable, order: Sequence[str], *, counts: Mapping[str, int],
                   links: Mapping[str, str] | None = None, percent: bool = False) -> str:
    """Systems (in ``order``) × slices: each cell the mean and its 1 − alpha interval.

    Parameters
    ----------
    result : SliceTable
        The engine's slice table (:func:`engine.slice_table`).
    order : sequence of str
        Systems from best to worst on the whole benchmark; systems not in ``result`` are
        left out.
    counts : mapping
        Slice → its number of examples (shown under the slice's name).
    links : mapping, optional
        Slice → URL of the Leaderboard restricted to it (the header becomes a link).
    percent : bool
        Means and intervals in percent: a 0/1 metric (:func:`engine.app_support.zero_one`).

    Returns
    -------
    str
        A ``<style>`` block and the table (``aria-label="slices"``, ``data-rows`` and
        ``data-missing`` for tests).
    """
    links = links or {}
    level = f"{1 - result.options.alpha:.0%}"
    records: list[dict[str, object]] = result.estimates.to_dict(orient="records")  # type: ignore[assignment]
    est = {(str(r["system"]), str(r["slice"])): r for r in records}
    head = ["<th>system</th>"]
    for name in result.slices:
        label = html_text(name)
        if name in links:
            label = f'<a href="{html_text(links[name])}" target="_self">{label}</a>'
        n = counts.get(name)
        size = f"<small>{n:,} examples</small>" if n is not None else ""
        head.append(f'<th class="num" title="mean on the examples of this slice and its {level} '
                    f'interval; the name opens the leaderboard of this slice">{label}{size}</th>')
    body, missing = [], 0
    for system in [s for s in order if s in set(result.estimates["system"])]:
        cells = [f'<td class="name"><bdi>{html_text(system)}</bdi></td>']
        for name in result.slices:
            row = est.get((system, name))
            if row is None:
                missing += 1
                cells.append(f'<td class="miss" data-label="{html_text(name)}">{MISSING}</td>')
                continue
            mean, interval = cell_text(_float(row["mean"]), _float(row["ci_low"]),
                                       _float(row["ci_high"]), percent=percent)
            cells.append(f'<td class="num" data-label="{html_text(name)}">{mean}'
                         f"<small>{interval}</small></td>")
        body.append(f"<tr>{''.join(cells)}</tr>")
    return (f'{_STYLE}<div class="sb-slices"><table aria-label="slices" data-rows="{len(body)}" '
            f'data-missing="{missing}"><thead><tr>{"".join(head)}</tr></thead>'
            f"<tbody>{''.join(body)}</tbody></table></div>")


#: Columns of :func:`changes_frame` (plain words; the engine's names are in the tooltips).
CHANGE_COLUMNS = ("system A", "system B", "A better in", "B better in", "no clear difference in",
                  "kind of change")
_CHANGE_HELP = {
    "A better in": "slices where system A is significantly better (tests of every slice "
                   "adjusted together)",
    "B better in": "slices where system B is significantly better",
    "no clear difference in": "slices where the test does not show a difference (a small "
                              "slice has less power: weak evidence of no difference)",
    "kind of change": "reverses: each system is significantly better in some slice; "
                      "otherwise significant in some slices only",
}


def changes_frame(result: SliceTable) -> pd.DataFrame:
    """One row per pair whose verdict changes between slices, reversals first."""
    c = result.changes
    if c.empty:
        return pd.DataFrame(columns=list(CHANGE_COLUMNS))
    frame = pd.DataFrame({
        "system A": c["system_a"].astype(str), "system B": c["system_b"].astype(str),
        "A better in": [", ".join(map(str, v)) or MISSING for v in c["a_better_in"]],
        "B better in": [", ".join(map(str, v)) or MISSING for v in c["b_better_in"]],
        "no clear difference in": [", ".join(map(str, v)) or MISSING
                                   for v in c["not_different_in"]],
        "kind of change": ["reverses" if r else "significant in some slices only"
                           for r in c["reversal"]],
    })
    order = c["reversal"].astype(bool).to_numpy()
    return pd.concat([frame[order], frame[~order]], ignore_index=True)


def changes_html(frame: pd.DataFrame, *, limit: int = MAX_CHANGES) -> str:
    """The first ``limit`` rows of :func:`changes_frame` as an escaped HTML table."""
    head = "".join(f'<th title="{html_text(_CHANGE_HELP[c])}">{html_text(c)}</th>'
                   if c in _CHANGE_HELP else f"<th>{html_text(c)}</th>" for c in CHANGE_COLUMNS)
    rows = []
    for record in frame.head(limit).to_dict(orient="records"):
        cells = []
        for column in CHANGE_COLUMNS:
            text, label = html_text(record[column]), html_text(column)
            if column == "system A":
                cells.append(f'<td class="name"><bdi>{text}</bdi></td>')
            elif column == "system B":  # on a phone: "A vs B" on one line, the slices below
                cells.append(f'<td class="name" data-label="vs"><bdi>{text}</bdi></td>')
            elif column == "kind of change" and record[column] == "reverses":
                cells.append(f'<td class="rev" data-label="{label}">{text}</td>')
            else:
                cells.append(f'<td data-label="{label}">{text}</td>')
        rows.append(f"<tr>{''.join(cells)}</tr>")
    return (f'{_STYLE}<div class="sb-slices"><table aria-label="slice changes" '
            f'data-rows="{len(rows)}"><thead class="labels"><tr>{head}</tr></thead>'
            f"<tbody>{''.join(rows)}</tbody></table></div>")
