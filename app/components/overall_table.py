"""The Overall page's tables, as pure functions (no Streamlit): unit-testable.

:func:`systems_html` is the systems × benchmarks table (static HTML, like the
leaderboard's ranked table: it needs no data-grid code, so the landing page
loads light); :func:`pairs_frame` is the pairs × benchmarks heatmap table
(rows ordered by the combined p-value, cells as in the Across-metrics table).
Every name is escaped (:func:`engine.html_text`).
"""

from __future__ import annotations

import math
from collections.abc import Collection, Mapping

import numpy as np
import pandas as pd

from app import rank_span as span
from app.tables import SHORT_LETTERS
from engine.app_support import html_text
from engine.results import Overall, PairwiseTests

MISSING = "not run"
UNRANKED = "—"  # the rank of a system that did not run every selected benchmark
UNTESTED = 9  # direction code of a pair not tested on a benchmark (a system has no results)
#: Columns of :func:`pairs_frame` before the benchmarks' (a benchmark named like one is suffixed).
PAIR_COLUMNS = ("system A", "system B", "difference", "adjusted p", "verdict",
                "differs somewhere p")
_STYLE = """<style>
.sb-overall{overflow-x:auto;border:1px solid rgba(31,41,51,.14);border-radius:.5rem}
.sb-overall table{border-collapse:separate;border-spacing:0;width:100%;margin:0;font-size:.84rem;
  font-variant-numeric:tabular-nums;color:inherit}
.sb-overall th{position:sticky;top:0;z-index:1;background:#f3f4f6;text-align:left;font-weight:600;
  padding:.4rem .5rem;border:0;border-bottom:1px solid rgba(31,41,51,.2);vertical-align:bottom}
.sb-overall td{padding:.3rem .5rem;border:0;border-bottom:1px solid rgba(31,41,51,.07);
  vertical-align:top;white-space:nowrap}
.sb-overall td:nth-child(1),.sb-overall th:nth-child(1),.sb-overall td:nth-child(n+5),
  .sb-overall th:nth-child(n+5){text-align:right}
.sb-overall td.grp{font-family:"Source Code Pro",monospace;white-space:nowrap}
.sb-overall td.miss{color:#8a94a6;font-style:italic;background:repeating-linear-gradient(
  45deg,transparent,transparent 4px,rgba(138,148,166,.10) 4px,rgba(138,148,166,.10) 8px)}
.sb-overall small{color:#616d7e;display:block;white-space:normal}
.sb-overall td:nth-child(2){white-space:normal;overflow-wrap:anywhere;min-width:8rem}
.sb-overall tr.top td{background:#eef3fb}
.sb-overall tr.sep td{background:#f7f7f9;color:#4a5563;font-weight:600;white-space:normal;
  text-align:left;border-top:2px solid rgba(31,41,51,.18)}
.sb-overall tr.unranked td:nth-child(-n+5){color:#8a94a6}
.sb-overall a{color:inherit;text-decoration:none;border-bottom:1px dotted rgba(31,41,51,.4)}
@media (max-width:640px){.sb-overall{overflow:visible}.sb-overall thead{display:none}
  .sb-overall table,.sb-overall tbody{display:block}
  .sb-overall tr{display:flex;flex-wrap:wrap;gap:.15rem .9rem;padding:.45rem .5rem;
  border-bottom:1px solid rgba(31,41,51,.12)}
  .sb-overall td{display:block;border:0;padding:0;text-align:left!important;white-space:normal}
  .sb-overall td:nth-child(2){flex-basis:70%;font-weight:600;min-width:0}
  .sb-overall td[data-label]::before{content:attr(data-label);display:block;font-size:.68rem;
  color:#616d7e;font-family:inherit}.sb-overall td:empty{display:none}
  .sb-overall tr.sep td{flex-basis:100%}}
</style>""".replace("\n", "")


def _num(x: object, places: int = 3) -> str:
    value = float(x)  # type: ignore[arg-type]
    return "" if math.isnan(value) else f"{value:.{places}f}"


def _cell(cell: Mapping[str, object] | None, *, percent: bool, label: str) -> str:
    # numbers are right-aligned by column (CSS nth-child), not by a class on 1,500 cells;
    # no per-cell tooltip: 1,000+ cells of repeated text would double the page's payload
    # (the header says what the cells hold). ``label`` (the escaped benchmark name) is what
    # a phone shows above the cell, where the rows become cards without a header
    if cell is None:
        return f'<td class="miss" data-label="{label}">{MISSING}</td>'
    letters = str(cell["group"])  # long letters are left out: the benchmark's leaderboard
    shown = f" · {html_text(letters)}" if len(letters) <= SHORT_LETTERS else ""  # has them
    if percent:  # a 0–1 score in its own units: percent, one decimal
        return (f'<td data-label="{label}">{_pct(cell["mean"])}<small>[{_pct(cell["ci_low"])}, '
                f'{_pct(cell["ci_high"])}]{shown}</small></td>')
    return (f'<td data-label="{label}">{_num(cell["mean"])}<small>[{_num(cell["ci_low"])}, '
            f'{_num(cell["ci_high"])}]{shown}</small></td>')


def _pct(x: object) -> str:
    value = float(x)  # type: ignore[arg-type]
    return "" if math.isnan(value) else f"{100 * value:.1f}%"


def _group(letters: str, ties: int) -> str:
    """Short letters as they are; long ones as how many systems it ties with (a count, not a
    second span beside the rank set: one rank uncertainty), the letters in a tooltip."""
    if len(letters) <= SHORT_LETTERS:
        return html_text(letters)
    return (f'<span title="group letters: {html_text(letters)}">'
            f'{span.tie_count_text(ties)}</span>')


def _score(value: object, percent: bool) -> str:
    return f"{float(value):.1f}%" if percent else _num(value, 2)  # type: ignore[arg-type]


def systems_html(result: Overall, *, links: Mapping[str, str] | None = None,
                 groups: bool = True, zero_one: Collection[str] = ()) -> str:
    """The systems × benchmarks table: first the ranked systems (they ran every selected
    benchmark), best first — rank, rank range, group, score and interval, then per benchmark
    its primary metric in its own units with its interval and group letters there; then the
    systems that did not run every benchmark, unranked, under one line per group of what
    they ran ("ran 2 of 4: …").

    A system not scored on a benchmark gets a visible, hatched *not run* cell.
    ``links``: benchmark → URL of its leaderboard (the header becomes a link);
    ``groups`` False leaves the overall group letters blank; ``zero_one``: the benchmarks
    whose metric is 0/1 (:func:`engine.app_support.zero_one`), whose cells are in percent
    beside a standardised score too (every cell is when the score is in percent). The table carries
    ``data-rows`` (ranked rows), ``data-unranked`` and ``data-missing`` (counts) for tests.
    """
    links = links or {}
    alpha = result.options.alpha
    percent = result.scale.units == "percent"
    records: list[dict[str, object]] = result.cells.to_dict(orient="records")  # type: ignore[assignment]
    cells = {(str(r["system"]), str(r["benchmark"])): r for r in records}
    head = ['<th title="1 = best overall score, among the systems that ran every selected '
            'benchmark">rank</th>', "<th>system</th>",
            f'<th title="{html_text(span.HELP)}">{span.LABEL}</th>',
            '<th title="systems sharing a letter cannot be told apart across the benchmarks '
            '(pairwise tests); where the letters would be long, how many systems it ties '
            'with">group</th>',
            f'<th title="{html_text(result.scale.explanation)} With its {1 - alpha:.0%} '
            f'interval; higher is better.">{html_text(result.scale.label)}</th>']
    for b in result.benchmarks:
        name = html_text(b)
        label = f'<a href="{html_text(links[b])}" target="_self">{name}</a>' if b in links else name
        several = len(result.metrics[b]) > 1
        what = "aggregate of " + ", ".join(result.metrics[b]) if several else result.metrics[b][0]
        # the aggregate (standardised units) is said on the header itself, not only on hover
        shown = f"{label}<small>aggregate of {len(result.metrics[b])} metrics</small>" \
            if several else label
        head.append(f'<th title="{name} ({html_text(what)}): its own score, its '
                    f'{1 - alpha:.0%} interval and the group letters on this benchmark alone '
                    f'(where they are short)">{shown}</th>')
    body, missing = [], 0
    labels = {b: html_text(b) for b in result.benchmarks}
    score_label = html_text(result.scale.label)
    spans = span.rank_span(result.table, result.rank_sets)  # the rank set
    ties = span.tie_counts(result.table["system"], result.groups.calm_pairs)
    lows, highs, best = (spans[c].to_numpy() for c in ("low", "high", "best"))
    for k, row in enumerate(result.table.to_dict(orient="records")):
        system = str(row["system"])
        per = []
        for b in result.benchmarks:
            cell = cells.get((system, b))
            missing += cell is None
            per.append(_cell(cell, percent=percent or b in zero_one, label=labels[b]))
        low, high = int(lows[k]), int(highs[k])
        shade = ' class="top"' if best[k] else ""  # may be the best
        body.append(
            f'<tr{shade}><td>{int(row["rank"])}</td><td>{html_text(system)}</td>'
            f'<td data-label="{span.LABEL}">{span.span_text(low, high)}</td>'
            f'<td class="grp" data-label="group">'
            f'{_group(str(row["group"]), int(ties[k])) if groups else ""}</td>'
            f'<td data-label="{score_label}">{_score(row["score"], percent)}'
            f'<small>[{_score(row["ci_low"], percent)}, '
            f'{_score(row["ci_high"], percent)}]</small></td>{"".join(per)}</tr>')
    unranked = _unranked_rows(result, cells, {b: percent or b in zero_one
                                              for b in result.benchmarks})
    missing += unranked[1]
    return (f'{_STYLE}<div class="sb-overall"><table aria-label="overall" '
            f'data-rows="{len(result.table)}" data-unranked="{len(result.unranked)}" '
            f'data-missing="{missing}">'
            f"<thead><tr>{''.join(head)}</tr></thead><tbody>{''.join(body)}{unranked[0]}"
            "</tbody></table></div>")


def _unranked_rows(result: Overall, cells: Mapping[tuple[str, str], Mapping[str, object]],
                   percent: Mapping[str, bool]) -> tuple[str, int]:
    """The systems that did not run every benchmark, one heading row per group of what they
    ran, and the number of their *not run* cells (``percent``: per benchmark)."""
    rows, missing, width = [], 0, 5 + len(result.benchmarks)
    total = len(result.benchmarks)
    last: tuple[str, ...] | None = None
    for row in result.unranked.to_dict(orient="records"):
        ran = tuple(row["coverage"])  # type: ignore[arg-type]
        if ran != last:
            names = ", ".join(ran)
            rows.append(f'<tr class="sep"><td colspan="{width}">Not ranked — ran {len(ran)} of '
                        f'{total}: {html_text(names)}</td></tr>')
            last = ran
        system = str(row["system"])
        per = []
        for b in result.benchmarks:
            cell = cells.get((system, b))
            missing += cell is None
            per.append(_cell(cell, percent=percent[b], label=html_text(b)))
        rows.append(f'<tr class="unranked"><td>{UNRANKED}</td><td>{html_text(system)}</td>'
                    f'<td></td><td class="grp"></td><td></td>{"".join(per)}</tr>')
    return "".join(rows), missing


def _keys(a: pd.Series, b: pd.Series) -> pd.Series:
    return a.astype(str) + "\x00" + b.astype(str)


def pairs_frame(result: Overall, per_benchmark: Mapping[str, PairwiseTests]
                ) -> tuple[pd.DataFrame, pd.DataFrame]:
    """Every pair of ranked systems (most significant overall first) × benchmark.

    Returns the table — system A (ranked higher overall), system B, difference (of the two
    scores, in the score's units), adjusted p of that difference, verdict (better / differs
    by benchmark, no overall order / not shown to differ), the adjusted harmonic mean p of
    the pair's benchmark tests (does it differ on some benchmark), then one column per benchmark holding
    the adjusted p-value where the pair differs significantly there (NaN elsewhere)
    — and, with the same index and benchmark columns, the direction on each
    benchmark (+1 A better, −1 B better, 0 tie or not significant, :data:`UNTESTED` when
    the pair was not tested there: one of the two systems has no results on it).
    """
    pairs = result.pairs.sort_values(["pvalue_adj", "p_hmp", "system_a", "system_b"],
                                     kind="stable", na_position="last").reset_index(drop=True)
    keys = _keys(pairs["system_a"], pairs["system_b"])
    names = {b: (f"{b} (benchmark)" if b in PAIR_COLUMNS else b) for b in result.benchmarks}
    table = pd.DataFrame({"system A": pairs["system_a"].astype(str),
                          "system B": pairs["system_b"].astype(str),
                          "difference": pairs["difference"], "adjusted p": pairs["pvalue_adj"],
                          "verdict": pairs["verdict"].astype(str),
                          "differs somewhere p": pairs["p_hmp_adj"]})
    directions = pd.DataFrame(0, index=table.index, columns=list(names.values()))
    for b, column in names.items():
        res = per_benchmark.get(b)
        if res is None:
            table[column] = np.nan
            directions[column] = UNTESTED
            continue
        t = res.table
        sign = np.where(t["a_better"].to_numpy(bool), 1,
                        np.where(t["diff"].to_numpy(float) != 0, -1, 0))
        shown = t["pvalue_adj"].where(t["significant"].astype(bool)).to_numpy(float)
        forward = pd.DataFrame({"p": shown, "d": sign}, index=_keys(t["system_a"], t["system_b"]))
        backward = pd.DataFrame({"p": shown, "d": -sign},
                                index=_keys(t["system_b"], t["system_a"]))
        both = pd.concat([forward, backward])
        both = both[~both.index.duplicated()]
        found = both.reindex(keys.to_numpy())
        table[column] = found["p"].to_numpy(float)
        d = found["d"].to_numpy(float)
        directions[column] = np.where(np.isnan(d), UNTESTED, d).astype(int)
    return table, directions
