"""The Mechanisms page's rankings side by side, as static HTML (pure, no Streamlit).

One row per system (in the order of the mean), one column per mechanism with the
system's position there; a position that differs from the mean's is highlighted.
The leaderboard's rank range (its rank confidence set) and the Tukey simultaneous rank interval
close the row.
"""

from __future__ import annotations

from collections.abc import Mapping

import numpy as np
import pandas as pd

from app.charts.mechanisms import LABELS
from app.rank_span import HELP as RANK_HELP
from app.rank_span import rank_span, span_texts
from engine.app_support import html_text
from engine.results import Leaderboard, Mechanisms, RankIntervals

#: What each mechanism is and its unit (its label: ``LABELS``); a cell's tip adds ": value".
TIPS = {"mean": "Mean score over the examples every system has (in the metric's units)",
        "median": "Median score over the examples every system has (in the metric's units)",
        "bradley_terry": "Bradley–Terry strength from the example-level battles (ties as half wins); "
                         "a share: the strengths sum to 1, and A beats B with odds A's : B's",
        "elo": "Sequential Elo (K = 4) over the battles, averaged over random battle orders "
               "(Elo points, 1000 = average; 400 points more = 10:1 odds of winning a battle)",
        "trueskill": "TrueSkill mean skill (μ) over the battles, averaged over random orders "
                     "(TrueSkill points, 25 = a new player)"}
#: Headers wrap at their spaces: with long system names the last column ("Tukey rank
#: interval") ran past the page at 1,400 px.
_STYLE = """<style>
.sb-mech{overflow:auto;border:1px solid rgba(31,41,51,.14);border-radius:.5rem;max-height:560px}
.sb-mech table{border-collapse:separate;border-spacing:0;width:100%;margin:0;font-size:.84rem;
  font-variant-numeric:tabular-nums;color:inherit}
.sb-mech th{position:sticky;top:0;z-index:1;background:#f3f4f6;text-align:right;font-weight:600;
  padding:.4rem .5rem;border:0;border-bottom:1px solid rgba(31,41,51,.2);white-space:normal;
  vertical-align:bottom}
.sb-mech th:first-child,.sb-mech td:first-child{text-align:left}
.sb-mech td{padding:.3rem .5rem;border:0;border-bottom:1px solid rgba(31,41,51,.07);
  text-align:right;white-space:nowrap}
.sb-mech td.up{background:#e3f1e6;font-weight:600}
.sb-mech td.down{background:#fbe4e4;font-weight:600}
@media (max-width:640px){.sb-mech td:first-child{white-space:normal;overflow-wrap:anywhere;
  min-width:6rem;max-width:8rem}
  .sb-mech th{white-space:normal;vertical-align:bottom}.sb-mech :is(th,td){padding:.3rem .3rem}
  .sb-mech :is(th,td):nth-child(n+7){display:none}}
</style>""".replace("\n", "")


def positions(result: Mechanisms) -> pd.DataFrame:
    """Each system's position (1 = best) under each of the five mechanisms, mean order."""
    order = list(result.rankings["mean"])
    return pd.DataFrame({m: [result.rankings[m].index(s) + 1 for s in order] for m in LABELS},
                        index=pd.Index(order, name="system"))


def rankings_html(result: Mechanisms, board: Leaderboard | None,
                  intervals: RankIntervals | None, *, level: str) -> str:
    """Rankings side by side (differences from the mean highlighted), rank range, rank interval."""
    pos = positions(result)
    scores = {m: dict(zip(result.scores["system"].astype(str), result.scores[m].astype(float),
                          strict=True)) for m in LABELS}
    ranges: Mapping[str, str] = {}
    if board is not None:
        spans = rank_span(board.table, board.rank_sets)  # the same set on every page
        ranges = dict(zip(spans["system"], span_texts(spans), strict=True))
    simultaneous: Mapping[str, str] = {}
    if intervals is not None:
        t = intervals.table
        simultaneous = dict(zip(t["system"].astype(str), t["rank_ci_low"].astype(str) + "–"
                                + t["rank_ci_high"].astype(str), strict=True))
    head = ["<th>system</th>"] + [f'<th title="{html_text(TIPS[m])}">{LABELS[m]}</th>'
                                  for m in LABELS]
    head.append(f'<th title="The Leaderboard\'s rank range: {html_text(RANK_HELP)}">rank '
                'range (leaderboard)</th>')
    head.append(f'<th title="Simultaneous {level} intervals for all ranks at once (Tukey, '
                f'Al Mohamad et al. 2022) for independent means of equal variance: a different '
                f'question from the rank range, which uses the paired covariance of the '
                f'means">Tukey rank '
                f'interval</th>')
    body = []
    for system, row in pos.iterrows():
        cells = [f"<td>{html_text(system)}</td>"]
        for m in LABELS:
            shift = int(row[m]) - int(row["mean"])
            css = "" if shift == 0 else (' class="up"' if shift < 0 else ' class="down"')
            tip = html_text(f"{TIPS[m]}: {scores[m][str(system)]:.4g}")
            cells.append(f'<td{css} title="{tip}">{int(row[m])}</td>')
        cells.append(f"<td>{ranges.get(str(system), '')}</td>")
        cells.append(f"<td>{simultaneous.get(str(system), '')}</td>")
        body.append(f"<tr>{''.join(cells)}</tr>")
    return (f'{_STYLE}<div class="sb-mech"><table aria-label="mechanisms" '
            f'data-rows="{len(pos)}"><thead><tr>{"".join(head)}</tr></thead>'
            f"<tbody>{''.join(body)}</tbody></table></div>")


#: The columns of :func:`verdicts_beside` explained (every column has a tooltip).
VERDICT_HELP = {
    "system A": "The row system of the pair", "system B": "The column system of the pair",
    "P(A beats B)": "Share of the shared examples where A scores higher than B (ties count "
                    "half): 0 to 1",
    "wins (sign test)": "Who wins more examples, if the sign test on wins says so after "
                        "correction",
    "leaderboard": "The Leaderboard's verdict on the two means (its paired test)"}


def verdicts_beside(p_beats: pd.DataFrame, board: Leaderboard | None) -> pd.DataFrame:
    """Each pair's sign-test answer (who wins more examples) beside the Leaderboard's verdict
    (its test of the difference in means), and whether the two agree.

    Columns: system A, system B, P(A beats B), wins (sign test), leaderboard, agree. The
    leaderboard column is "A better", "B better" or "not shown to differ" (blank without a
    leaderboard).
    """
    t = p_beats
    sign = np.where(~t["significant"].astype(bool), "not shown to differ",
                    np.where(t["p_a_beats_b"].to_numpy(float) > 0.5, "A wins more",
                             "B wins more"))
    verdict = [""] * len(t)  # a list, not a Series: 3,003 .iloc writes took 0.1 s
    if board is not None:
        lb = board.pairwise.table
        better = np.where(lb["a_better"].astype(bool), lb["system_a"], lb["system_b"])
        said = {frozenset((a, b)): (w if s else None) for a, b, w, s in zip(
            lb["system_a"].astype(str), lb["system_b"].astype(str), better.astype(str),
            lb["significant"].astype(bool), strict=True)}
        for i, (a, b) in enumerate(zip(t["system_a"].astype(str), t["system_b"].astype(str),
                                       strict=True)):
            key = frozenset((a, b))
            if key not in said:
                continue
            w = said[key]
            verdict[i] = ("not shown to differ" if w is None else
                          "A better" if w == a else "B better")
    def side(text: str) -> str:  # "A", "B" or "-" (not shown to differ)
        return text[:1] if text[:1] in ("A", "B") else "-"

    agree = [v == "" or side(v) == side(s) for v, s in zip(verdict, sign, strict=True)]
    return pd.DataFrame({"system A": t["system_a"].astype(str),
                         "system B": t["system_b"].astype(str),
                         "P(A beats B)": t["p_a_beats_b"].astype(float),
                         "wins (sign test)": sign, "leaderboard": verdict,
                         "agree": agree})


def decisive_pairs(table: pd.DataFrame, systems: tuple[str, ...] | list[str], rows: int
                   ) -> pd.DataFrame:
    """The phone's replacement of the P(A beats B) heatmap: the ``rows`` pairs among
    ``systems`` with the smallest adjusted sign-test p (then the most lopsided), the system
    that wins more examples first.

    ``table`` is :class:`engine.PBeats`' (system_a, system_b, p_a_beats_b, pvalue_adj,
    significant); a pair listed in both orders is kept once.
    """
    keep = set(systems)
    t = table[table["system_a"].isin(keep) & table["system_b"].isin(keep)]
    t = t[t["system_a"].astype(str) < t["system_b"].astype(str)] if _both_orders(t) else t
    p = t["p_a_beats_b"].to_numpy(float)
    t = t.assign(lopsided=np.abs(p - 0.5)).sort_values(["pvalue_adj", "lopsided"],
                                                       ascending=[True, False]).head(rows)
    share = t["p_a_beats_b"].to_numpy(float)
    first = share >= 0.5
    a, b = t["system_a"].astype(str).to_numpy(), t["system_b"].astype(str).to_numpy()
    return pd.DataFrame({"wins more": np.where(first, a, b), "than": np.where(first, b, a),
                         "P(beats)": np.where(first, share, 1 - share),
                         "adjusted p": t["pvalue_adj"].to_numpy(float),
                         "differs": t["significant"].astype(bool).to_numpy()})


def _both_orders(t: pd.DataFrame) -> bool:
    """True when each pair appears as (a, b) and as (b, a)."""
    pairs = set(zip(t["system_a"].astype(str), t["system_b"].astype(str), strict=True))
    return bool(pairs) and all((b, a) in pairs for a, b in pairs)
