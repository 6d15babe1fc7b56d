"""Pairwise and A/B compare on repeated tries: one pair's paired pass^k and pass@k difference.

When every score of the benchmark is 0/1 and some system tried some task more than once,
the pair's difference in pass^k (all k tries succeed) and pass@k (at least one succeeds) at
the benchmark's default k, on the tasks both ran with at least k tries: the engine's paired
test and interval over tasks (:func:`engine.app_support.reliability`, the MOVER interval,
p-values adjusted over all pairs), the same cached answer as the Leaderboard's reliability
view, so the numbers agree with it and with ``sigboard passk`` / ``compare --pass-hat-k``.
"""

from __future__ import annotations

import pandas as pd
import streamlit as st

from app import state
from app.data.query import Query
from app.data.reliability import pair_difference, reliability_of, tries_of
from app.ranked import NARROW, html_table
from engine.app_support import md_isolated

#: At a phone's width the table's cells wrap with tighter padding (as the Leaderboard's
#: reliability tables do) instead of scrolling sideways: five columns did not fit 390 px.
_WRAP = "sb_pair_rel"
_PHONE_WRAP = (f"<style>@media (max-width:{NARROW}px){{[class*=st-key-{_WRAP}] .sb-ranked td,"
               f"[class*=st-key-{_WRAP}] .sb-ranked th{{white-space:normal;"
               "padding:.3rem .25rem;font-size:.78rem}}</style>")


def _points(x: float) -> str:
    return f"{100 * x:+.1f}"


def pair_reliability(q: Query, a: str, b: str) -> None:
    """The section, or nothing when the benchmark has no repeated 0/1 tries."""
    if not a or not b or a == b:
        return
    tries = tries_of(q.token, q.benchmark, q.metric)
    if not tries.available:
        return
    try:
        answer = reliability_of(q)
    except ValueError:
        return
    row = pair_difference(answer, a, b)
    if row is None:
        return
    k, res = answer.k, answer.result
    level = f"{1 - res.options.alpha:.0%}"
    st.subheader(f"Repeated tries: pass^{k} and pass@{k}")
    d = float(row["diff_pass_hat_k"])
    shown = bool(row["significant"])
    if not shown:
        verdict = f"no significant pass^{k} difference"
    else:
        verdict = f"{md_isolated(a if d > 0 else b)} is significantly more reliable"
    st.markdown(
        f"**pass^{k}** (all {k} tries of a task succeed): {md_isolated(a)} − {md_isolated(b)} "
        f"= **{_points(d)} points** [{_points(float(row['diff_pass_hat_k_low']))}, "
        f"{_points(float(row['diff_pass_hat_k_high']))}]: {verdict}.")
    table = pd.DataFrame({
        "measure": [f"pass^{k}", f"pass@{k}"],
        "difference (points)": [_points(d), _points(float(row["diff_pass_at_k"]))],
        f"{level} interval": [
            f"{_points(float(row['diff_pass_hat_k_low']))} to "
            f"{_points(float(row['diff_pass_hat_k_high']))}",
            f"{_points(float(row['diff_pass_at_k_low']))} to "
            f"{_points(float(row['diff_pass_at_k_high']))}"],
        "p (adjusted)": [f"{float(row['pvalue_adj']):.3g}",
                         f"{float(row['pvalue_adj_pass_at_k']):.3g}"],
        "significant": ["yes" if shown else "no",
                        "yes" if bool(row["significant_pass_at_k"]) else "no"]})
    st.html(_PHONE_WRAP)
    with st.container(key=_WRAP):
        st.html(html_table(table, label="pair reliability", max_height=None, help={
            "difference (points)": f"{a} − {b}, in percentage points",
            f"{level} interval": "Interval of the difference over tasks (MOVER)",
            "p (adjusted)": "p-value of 'no difference', adjusted over all pairs",
            "significant": "Whether the adjusted p-value is below alpha"}))
    st.caption(
        f"Differences {md_isolated(a)} − {md_isolated(b)}, paired over the "
        f"{int(row['tasks'])} tasks both systems ran with at least {k} tries "
        f"(tasks are the sample, tries nested in them); {level} interval, p-value adjusted "
        f"over all pairs ({res.pairs.correction}). pass@{k}: at least one of {k} tries "
        "succeeds. The same numbers as the Leaderboard's reliability view, where k can be "
        "changed.")
    state.link("leaderboard", "pass^k of every system and the k-curves",
               icon=":material/repeat:", table="reliability")
