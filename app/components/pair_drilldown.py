"""One pair of systems: pickers, its test in one sentence, its scores side by side, the 2×2 table."""

from __future__ import annotations

import html

import numpy as np
import streamlit as st

from app import state
from app.charts.pairwise import difference_histogram, pair_scatter, two_by_two
from app.url import View
from engine import Leaderboard, PairwiseResult, ScoreMatrix


def pair_scores(matrix: ScoreMatrix, a: str, b: str, *, paired: bool
                ) -> tuple[np.ndarray, np.ndarray]:
    """Scores of A and B on the examples both have (paired) or on all their examples."""
    index = {s: i for i, s in enumerate(matrix.systems)}
    x, y = matrix.values[index[a]], matrix.values[index[b]]
    if paired:
        both = ~np.isnan(x) & ~np.isnan(y)
        return x[both], y[both]
    return x[~np.isnan(x)], y[~np.isnan(y)]


def _md(text: str) -> str:
    """A system name safe inside markdown (no HTML, no markdown syntax)."""
    escaped = html.escape(text)
    return "".join(f"\\{c}" if c in "\\`*_{}[]()#+-.!|<>~$:" else c for c in escaped)


def pair_summary(result: PairwiseResult, a: str, b: str, n: int, *, higher_is_better: bool) -> str:
    """The pair's test result in one sentence (or why it was not tested)."""
    t = result.table
    row = t[(t["system_a"] == a) & (t["system_b"] == b)]
    sign = 1.0
    if row.empty:
        row, sign = t[(t["system_a"] == b) & (t["system_b"] == a)], -1.0
    if row.empty:
        return (f"{_md(a)} and {_md(b)} are not compared under the '{result.compare}' "
                "comparison set; choose all pairs to test them.")
    r = row.iloc[0]
    diff = sign * float(r["diff"]) * (1 if higher_is_better else -1)
    ahead = f"{_md(a)} is ahead" if diff > 0 else f"{_md(b)} is ahead" if diff < 0 else "a tie"
    verdict = ("**significantly different**" if bool(r["significant"])
               else "**not significantly different**")
    wins = ""
    if result.paired and np.isfinite(r["wins_a"]):
        wa, wb = (r["wins_a"], r["wins_b"]) if sign > 0 else (r["wins_b"], r["wins_a"])
        wins = f" {_md(a)} wins {int(wa)} examples, {_md(b)} wins {int(wb)}."
    return (f"{_md(a)} vs {_md(b)}: {verdict} ({r['test']}, n = {n}, adjusted p = "
            f"{r['pvalue_adj']:.3g}, raw p = {r['pvalue']:.3g}, {r['effect_name']} = "
            f"{sign * r['effect_size']:.3f}, mean difference = {sign * r['diff']:.4f}; "
            f"{ahead}).{wins}")


def pair_drilldown(board: Leaderboard, view: View, matrix: ScoreMatrix) -> None:
    """Pick two systems; their test, per-example scatter, differences and 2×2 table."""
    order = list(board.table["system"])
    left, right = st.columns(2)
    with left:
        state.bound(st.selectbox, "System A", "a", view.a, options=order)
    with right:
        state.bound(st.selectbox, "System B", "b", view.b,
                    options=[s for s in order if s != view.a] or order)
    paired = board.pairwise.paired
    x, y = pair_scores(matrix, view.a, view.b, paired=paired)
    st.markdown(pair_summary(board.pairwise, view.a, view.b, len(x),
                             higher_is_better=board.higher_is_better))
    scatter, histogram = st.columns(2)
    with scatter:
        st.altair_chart(pair_scatter(x, y, view.a, view.b, binary=matrix.binary),
                        width="stretch")
    with histogram:
        if paired:
            st.altair_chart(difference_histogram(x - y, view.a, view.b, binary=matrix.binary),
                            width="stretch")
        else:
            st.caption("Unpaired comparison: there are no per-example differences to show.")
    if matrix.binary and paired:
        st.markdown("**2×2 table** (discordant cells drive McNemar's test)")
        st.table(two_by_two(x, y, view.a, view.b))
