"""The Overall page's tables, as pure functions (no Streamlit): unit-testable.

:func:`systems_html` is the systems × benchmarks table (static HTML, like the
leaderboard's ranked table: it needs no data-grid code, so the landing page
loads light); :func:`pairs_frame` is the pairs × benchmarks heatmap table
(rows ordered by the combined p-value, cells as in the Across-metrics table).
Every name is escaped (:func:`engine.html_text`).
"""

from __future__ import annotations

import math
from collections.abc import Mapping

import numpy as np
import pandas as pd

from app.tables import SHORT_LETTERS, tie_ranks, tie_text
from engine import Overall, PairwiseResult, html_text

MISSING = "not run"
UNTESTED = 9  # direction code of a pair not tested on a benchmark (a system has no results)
#: Columns of :func:`pairs_frame` before the benchmarks' (a benchmark named like one is suffixed).
PAIR_COLUMNS = ("system A", "system B", "combined p", "adjusted p", "effect", "significant")
_STYLE = """<style>
.sb-overall{overflow:auto;border:1px solid rgba(31,41,51,.14);border-radius:.5rem;max-height:640px}
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
.sb-overall small{color:#616d7e;display:block}
.sb-overall tr.top td{background:#eef3fb}
.sb-overall a{color:inherit;text-decoration:none;border-bottom:1px dotted rgba(31,41,51,.4)}
@media (max-width:640px){.sb-overall td:nth-child(2){white-space:normal;overflow-wrap:anywhere;
  min-width:7rem;max-width:9rem}.sb-overall td:nth-child(4),.sb-overall th:nth-child(4){display:none}}
</style>""".replace("\n", "")


def _num(x: object, places: int = 3) -> str:
    value = float(x)  # type: ignore[arg-type]
    return "" if math.isnan(value) else f"{value:.{places}f}"


def _cell(cell: Mapping[str, object] | None) -> str:
    # numbers are right-aligned by column (CSS nth-child), not by a class on 1,500 cells;
    # no per-cell tooltip: 1,000+ cells of repeated text would double the page's payload
    # (the header says what the cells hold)
    if cell is None:
        return f'<td class="miss">{MISSING}</td>'
    letters = str(cell["group"])  # long letters are left out: the benchmark's leaderboard
    shown = f" · {html_text(letters)}" if len(letters) <= SHORT_LETTERS else ""  # has them
    return (f'<td>{_num(cell["mean"])}<small>[{_num(cell["ci_low"])}, '
            f'{_num(cell["ci_high"])}]{shown}</small></td>')


def _group(letters: str, low: int, high: int) -> str:
    """Short letters as they are; long ones as the ranks the system ties with (as the
    leaderboard's table does), the letters in a tooltip."""
    if len(letters) <= SHORT_LETTERS:
        return html_text(letters)
    return f'<span title="group letters: {html_text(letters)}">{tie_text(low, high)}</span>'


def systems_html(result: Overall, *, links: Mapping[str, str] | None = None,
                 groups: bool = True) -> str:
    """The systems (best first) × benchmarks table: overall rank, rank range, group, score and
    interval, then per benchmark the mean with its interval and group letters there.

    A system not scored on a benchmark gets a visible, hatched *not run* cell.
    ``links``: benchmark → URL of its leaderboard (the header becomes a link);
    ``groups`` False leaves the overall group letters blank. The
    table carries ``data-rows`` and ``data-missing`` (counts) for tests.
    """
    links = links or {}
    alpha = result.options.alpha
    records: list[dict[str, object]] = result.cells.to_dict(orient="records")  # type: ignore[assignment]
    cells = {(str(r["system"]), str(r["benchmark"])): r for r in records}
    head = ['<th title="1 = best overall score">rank</th>', "<th>system</th>",
            '<th title="best and worst rank the tests allow">rank range</th>',
            '<th title="systems sharing a letter cannot be told apart across the benchmarks; '
            'where the letters would be long, the ranks of the systems it cannot be told apart '
            'from">group</th>',
            '<th title="standardised mean across the chosen benchmarks (seed paper '
            f'§6.3), with its {1 - alpha:.0%} interval; higher is better">score</th>']
    for b in result.benchmarks:
        name = html_text(b)
        label = f'<a href="{html_text(links[b])}" target="_self">{name}</a>' if b in links else name
        head.append(f'<th title="{name}: mean, its {1 - alpha:.0%} interval and the '
                    f'group letters on this benchmark alone (where they are short)">{label}</th>')
    body, missing = [], 0
    low, high = tie_ranks(result.table, result.pairs)
    for k, row in enumerate(result.table.to_dict(orient="records")):
        system = str(row["system"])
        per = []
        for b in result.benchmarks:
            cell = cells.get((system, b))
            missing += cell is None
            per.append(_cell(cell))
        shade = ' class="top"' if int(row["rank_low"]) == 1 else ""
        body.append(
            f'<tr{shade}><td>{int(row["rank"])}</td><td>{html_text(system)}</td>'
            f'<td>{int(row["rank_low"])}–{int(row["rank_high"])}</td>'
            f'<td class="grp">{_group(str(row["group"]), low[k], high[k]) if groups else ""}</td>'
            f'<td>{_num(row["score"], 2)}<small>[{_num(row["ci_low"], 2)}, '
            f'{_num(row["ci_high"], 2)}]</small></td>{"".join(per)}</tr>')
    return (f'{_STYLE}<div class="sb-overall"><table aria-label="overall" '
            f'data-rows="{len(result.table)}" data-missing="{missing}">'
            f"<thead><tr>{''.join(head)}</tr></thead><tbody>{''.join(body)}</tbody></table></div>")


def _keys(a: pd.Series, b: pd.Series) -> pd.Series:
    return a.astype(str) + "\x00" + b.astype(str)


def pairs_frame(result: Overall, per_benchmark: Mapping[str, PairwiseResult]
                ) -> tuple[pd.DataFrame, pd.DataFrame]:
    """Every compared pair (most significant combined p first) × benchmark.

    Returns the table — system A (ranked higher overall), system B, combined p
    (harmonic mean p over the benchmarks that tested the pair), adjusted p, pooled
    effect (positive = A better), significant, then one column per benchmark holding
    the adjusted p-value where the pair differs significantly there (NaN elsewhere)
    — and, with the same index and benchmark columns, the direction on each
    benchmark (+1 A better, −1 B better, 0 tie or not significant, :data:`UNTESTED` when
    the pair was not tested there: one of the two systems has no results on it).
    """
    pairs = result.pairs.sort_values(["p_hmp", "system_a", "system_b"], kind="stable",
                                     na_position="last").reset_index(drop=True)
    keys = _keys(pairs["system_a"], pairs["system_b"])
    names = {b: (f"{b} (benchmark)" if b in PAIR_COLUMNS else b) for b in result.benchmarks}
    table = pd.DataFrame({"system A": pairs["system_a"].astype(str),
                          "system B": pairs["system_b"].astype(str),
                          "combined p": pairs["p_hmp"], "adjusted p": pairs["p_hmp_adj"],
                          "effect": pairs["effect"], "significant": pairs["significant"]})
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
