"""One pair of systems: pickers, its test in one sentence, its scores side by side, the 2×2 table."""

from __future__ import annotations

import math

import numpy as np
import pandas as pd
import streamlit as st

from app import state, widgets
from app.charts.pairwise import two_by_two
from app.data import figures
from app.ranked import html_table
from app.url import View
from engine import EFFECT_THRESHOLDS, ScoreMatrix
from engine.app_support import md_isolated, md_text, zero_one
from engine.results import Leaderboard, PairwiseTests

#: Effect-size names of the engine, said in words (the technical name stays in brackets).
EFFECT_NAMES = {"cohen_d": "Cohen's d", "cohen_h": "Cohen's h", "paired_d": "paired Cohen's d",
                "d_av": "Cohen's d_av"}

#: The 2×2 table's headers and row labels are system names: they wrap (anywhere, for one
#: long name) instead of pushing the table past a phone's width (390 px cut it off).
_WRAP_TWO_BY_TWO = ('<style>.sb-ranked table[aria-label="2×2 table"] th,'
                    '.sb-ranked table[aria-label="2×2 table"] td'
                    "{white-space:normal;overflow-wrap:anywhere;min-width:4.5rem}</style>")


def pair_scores(matrix: ScoreMatrix, a: str, b: str, *, paired: bool
                ) -> tuple[np.ndarray, np.ndarray]:
    """Scores of A and B on the examples both have (paired) or on all their examples."""
    index = {s: i for i, s in enumerate(matrix.systems)}
    x, y = matrix.values[index[a]], matrix.values[index[b]]
    if paired:
        both = ~np.isnan(x) & ~np.isnan(y)
        return x[both], y[both]
    return x[~np.isnan(x)], y[~np.isnan(y)]


def pair_row(result: PairwiseTests, a: str, b: str) -> tuple[pd.Series | None, float]:
    """The pair's row of the table and +1 (stored as a vs b) or −1 (stored as b vs a)."""
    t = result.table
    row = t[(t["system_a"] == a) & (t["system_b"] == b)]
    if not row.empty:
        return row.iloc[0], 1.0
    row = t[(t["system_a"] == b) & (t["system_b"] == a)]
    return (row.iloc[0], -1.0) if not row.empty else (None, 1.0)


def amount(value: float, *, percent: bool) -> str:
    """A difference in the metric's units, or in percentage points for 0/1 metrics."""
    return f"{100 * value:.1f} points" if percent else f"{value:.4g}"


def _bound(value: float, *, percent: bool) -> str:
    return f"{100 * value:.1f}" if percent else f"{value:.4g}"


def difference_text(difference: float, low: float, high: float, a: str, b: str, *,
                    percent: bool, level: str) -> str:
    """"A beats B by 3.2 points [1.1, 5.3]" (``difference``: positive = A better)."""
    first, second = (a, b) if difference >= 0 else (b, a)
    lo, hi = (low, high) if difference >= 0 else (-high, -low)
    interval = (f" [{_bound(lo, percent=percent)}, {_bound(hi, percent=percent)}] "
                f"({level} interval)" if math.isfinite(lo) and math.isfinite(hi) else "")
    if difference == 0:
        return f"{md_isolated(a)} and {md_isolated(b)} tie on average{interval}"
    return (f"{md_isolated(first)} beats {md_isolated(second)} by "
            f"{amount(abs(difference), percent=percent)}{interval}")


def pair_summary(result: PairwiseTests, a: str, b: str, *, percent: bool = False) -> str:
    """The pair's test result in words (or why it was not tested): who beats whom by how
    much with its interval, n, paired or not, the test and its p-values."""
    r, sign = pair_row(result, a, b)
    if r is None:
        return (f"{md_isolated(a)} and {md_isolated(b)} are not compared under the '{result.compare}' "
                "comparison set; choose all pairs to test them.")
    difference = sign * float(r["difference"])
    low, high = float(r["ci_low"]), float(r["ci_high"])
    if sign < 0:
        low, high = -high, -low
    level = f"{1 - result.alpha:.0%}"
    verdict = ("**significantly different**" if bool(r["significant"])
               else "**not significantly different**")
    if str(r.get("undecided") or ""):  # as the A/B gate: the lacking examples could overturn it
        verdict = (f"**{md_text(r['undecided'])}**: with the missing examples at their "
                   "worst score the difference could vanish, so it is not called significant")
    paired = bool(r["paired"])
    design = (f"paired on the {int(r['n'])} examples both scored" if paired
              else f"unpaired, {int(r['n'])} scores in all")
    effect = ""
    name = str(r["effect_name"])
    value = float(r["effect_size"])
    if name in EFFECT_NAMES and math.isfinite(value):  # of the leader; its name in the tooltip
        effect = f", effect size {abs(value):.2f}: {effect_words(abs(value))}"
    wins = ""
    if paired and np.isfinite(r["wins_a"]):
        wa, wb = (r["wins_a"], r["wins_b"]) if sign > 0 else (r["wins_b"], r["wins_a"])
        wins = f" {md_isolated(a)} wins {int(wa)} examples, {md_isolated(b)} wins {int(wb)}."
    return (f"{difference_text(difference, low, high, a, b, percent=percent, level=level)}: "
            f"{verdict} (n = {int(r['n'])}, {design}; p = {r['pvalue_adj']:.3g} after "
            f"correcting for the other pairs{effect}).{wins}")


def pair_details(result: PairwiseTests, a: str, b: str) -> str | None:
    """The pair's test by name with its raw p-value: the tooltip of :func:`pair_summary`."""
    r, _ = pair_row(result, a, b)
    if r is None:
        return None
    test = widgets.TEST_NAMES.get(str(r["test"]), str(r["test"]))
    effect = EFFECT_NAMES.get(str(r["effect_name"]))
    size = (f" Effect size: {effect} (0.2 small, 0.5 medium, 0.8 large)." if effect and
            math.isfinite(float(r["effect_size"])) else "")
    return (f"Test: {test}; p = {r['pvalue']:.3g} before the correction for testing many "
            f"pairs (Test settings, Methods).{size}")


def effect_words(size: float) -> str:
    """An effect size's size in words, by Cohen's (1988) thresholds (engine
    ``EFFECT_THRESHOLDS``: 0.2 small, 0.5 medium, 0.8 large).

    Examples
    --------
    >>> effect_words(0.1), effect_words(0.2), effect_words(0.79), effect_words(1.3)
    ('negligible', 'small', 'medium', 'large')
    """
    passed = [word for word, at in EFFECT_THRESHOLDS.items() if size >= at]
    return passed[-1] if passed else "negligible"


def pair_drilldown(board: Leaderboard, view: View, matrix: ScoreMatrix,
                   result: PairwiseTests | None = None) -> None:
    """Pick two systems; their test, per-example scatter, differences and 2×2 table
    (``result``: the page's tests, :func:`app.data.results.pairwise_of`; default the
    board's)."""
    result = board.pairwise if result is None else result
    order = list(board.table["system"])
    # in a popover: the select boxes are drawn only when it opens (a lighter first screen)
    with st.popover(f"{md_isolated(view.a)} vs {md_isolated(view.b)}", icon=":material/compare_arrows:",
                    help="Choose the two systems to compare."):
        state.bound(st.selectbox, "System A", "a", view.a, options=order)
        state.bound(st.selectbox, "System B", "b", view.b,
                    options=[s for s in order if s != view.a] or order)
    r, _ = pair_row(result, view.a, view.b)
    paired = bool(r["paired"]) if r is not None else result.paired
    x, y = pair_scores(matrix, view.a, view.b, paired=paired)
    st.markdown(pair_summary(result, view.a, view.b, percent=zero_one(matrix)),
                help=pair_details(result, view.a, view.b))
    # the names are in the sentence above: a short label is not cut off on a phone
    state.link("compare", "A/B compare of this pair (runs, models, power, report)",
               icon=":material/compare_arrows:", cand=view.a,
               base=view.b, pdiff="")  # the same "Group examples by"
    scatter, histogram = st.columns(2)
    pictures = figures.pair_svgs(x, y, view.a, view.b, binary=matrix.binary, paired=paired)
    with scatter:
        widgets.picture(pictures[0])
    with histogram:
        if pictures[1] is not None:
            widgets.picture(pictures[1])
        else:
            st.caption("Unpaired comparison: there are no per-example differences to show.")
    if matrix.binary and paired:
        st.markdown("**2×2 table** (the examples only one of them solves decide the test)",
                    help="McNemar's exact test counts only the discordant examples (Methods).")
        # static HTML (st.html is on every page already), not st.table: that element's browser
        # code is ~1 MB (Arrow) to fetch and compile on a first visit
        st.html(_WRAP_TWO_BY_TWO + html_table(two_by_two(x, y, view.a, view.b),
                                              label="2×2 table", max_height=None))
