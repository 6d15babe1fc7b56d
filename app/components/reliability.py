"""The Leaderboard's reliability view and the Examples page's flaky tasks: repeated tries.

For a benchmark whose systems tried each task several times (runs, each scored 0/1):
pass^k (all k tries succeed) and pass@k (at least one of k tries succeeds) per system with
intervals over tasks, ranked by pass^k at the k in the URL (``k``), the k-curves beside
the table, and, on the Examples page, the flaky tasks and the outcome consistency. Each
view draws one :class:`app.data.reliability.ReliabilityAnswer` (table and charts alike).
"""

from __future__ import annotations

from dataclasses import replace
from typing import Any

import pandas as pd
import streamlit as st

from app import state, widgets
from app.charts.reliability import CURVE_SYSTEMS, k_curve_svg, percent
from app.data.query import Query
from app.data.reliability import ReliabilityAnswer, Tries, reliability_of
from app.downloads import file_name, safe_csv
from app.ranked import NARROW, html_table
from app.url import View
from engine.app_support import PassKCurves, Reliability, md_isolated, md_text

#: The two measures in one line each: what every reliability screen says first.
PLAIN = ("**pass^k**: all k tries of a task succeed. **pass@k**: at least one of k tries "
         "succeeds. Each is the chance for a task picked at random (averaged over tasks), "
         "estimated without bias from the tries (Chen et al. 2021; Yao et al. 2024).")


#: At a phone's width the tables of this module wrap their cells (names, intervals) with
#: tighter padding instead of scrolling sideways: at 390 px the last column was cut off.
_WRAP = "sb_rel_wrap"
_PHONE_WRAP = (f"<style>@media (max-width:{NARROW}px){{[class*=st-key-{_WRAP}] .sb-ranked td,"
               f"[class*=st-key-{_WRAP}] .sb-ranked th{{white-space:normal;"
               "padding:.3rem .25rem;font-size:.78rem}}</style>")


def _table(frame: pd.DataFrame, name: str, **kwargs: Any) -> None:
    """A static table (:func:`app.ranked.html_table`) whose cells wrap on a phone."""
    st.html(_PHONE_WRAP)
    with st.container(key=f"{_WRAP}_{name.replace(' ', '_')}"):
        st.html(html_table(frame, label=name, **kwargs))


def interval(low: float, high: float) -> str:
    """An interval in percent, as the table writes it: "55.1–69.3%"."""
    return f"{percent(low).removesuffix('%')}–{percent(high)}"


def checked_k(view: View, tries: Tries) -> tuple[View, int]:
    """The view's k if it is a number of tries the benchmark has (else the default, with a
    note), and the k shown."""
    if view.k > tries.most:
        state.warn([f"URL parameter `k`={view.k} is more than the most tries of any task "
                    f"({tries.most}); using k = {tries.default_k()}."])
        view = replace(view, k=0)
        state.set_view(view)
    return view, view.k or tries.default_k()


def reliability_rows(answer: ReliabilityAnswer) -> pd.DataFrame:
    """The reliability table as shown: rank, system, pass^k and pass@k with their intervals
    (percent), tasks used (and excluded, when any were)."""
    t, k = answer.table, answer.k
    rows = pd.DataFrame({
        "rank": t["rank"], "system": t["system"].astype(str),
        f"pass^{k}": [percent(v) for v in t["pass_hat_k"]],
        f"pass^{k} interval": [interval(a, b) for a, b in zip(
            t["pass_hat_k_low"], t["pass_hat_k_high"], strict=True)],
        f"pass@{k}": [percent(v) for v in t["pass_at_k"]],
        f"pass@{k} interval": [interval(a, b) for a, b in zip(
            t["pass_at_k_low"], t["pass_at_k_high"], strict=True)],
        "tasks": t["tasks"]})
    if t["excluded"].any():
        rows["excluded"] = t["excluded"]
    return rows


def _headline(answer: ReliabilityAnswer) -> str:
    t, k = answer.table, answer.k
    if t.empty or not pd.notna(t["pass_hat_k"].iloc[0]):
        return f"No system has a task with {k} tries."
    best = t.iloc[0]
    return (f"Most reliable at k = {k}: {md_isolated(best['system'])}, all {k} tries succeed "
            f"on {percent(best['pass_hat_k'])} of tasks "
            f"({interval(best['pass_hat_k_low'], best['pass_hat_k_high'])}).")


#: Pairs named in the sentence on pass^k differences at most (the largest differences).
_NAMED_PAIRS = 6


def _pairs_sentence(answer: ReliabilityAnswer) -> str:
    """How many pairs differ in pass^k at the answer's k, the largest ones named."""
    pairs, k = answer.result.pairs.table, answer.k
    if pairs.empty:
        return ""
    sig = pairs[pairs["significant"].astype(bool)]
    sig = sig.reindex(sig["diff_pass_hat_k"].abs().sort_values(ascending=False).index)
    named = []
    for a, b, d in zip(sig["system_a"], sig["system_b"], sig["diff_pass_hat_k"], strict=True):
        better, worse = (a, b) if d > 0 else (b, a)
        named.append(f"{md_isolated(better)} above {md_isolated(worse)} by "
                     f"{100 * abs(float(d)):.1f} points")
    more = f" (and {len(named) - _NAMED_PAIRS} more)" if len(named) > _NAMED_PAIRS else ""
    return (f"{len(sig)} of {len(pairs)} pairs of systems differ in pass^{k} on the tasks both "
            "ran (paired test, adjusted for the comparisons)"
            + (": " + "; ".join(named[:_NAMED_PAIRS]) + more if named else "") + ".")


def reliability_view(q: Query, view: View, tries: Tries) -> None:
    """The reliability tab: the k chosen, the table ranked by pass^k, the k-curves."""
    view, k = checked_k(view, tries)
    answer = reliability_of(replace(q, k=k))
    level = f"{1 - answer.result.options.alpha:.0%}"
    st.markdown(f"**{_headline(answer)}**")
    st.caption(PLAIN)
    with st.container(width=220):
        state.bound(st.selectbox, "k: tries per task", "k", k,
                    options=list(range(1, tries.most + 1)),
                    help="The number of tries pass^k and pass@k are about. The table ranks "
                         "the systems by pass^k at this k.")
    rows = reliability_rows(answer)
    _table(rows, "reliability", max_height=None, help={
        f"pass^{k}": f"Chance that all {k} tries of a task succeed",
        f"pass^{k} interval": f"{level} confidence interval over tasks",
        f"pass@{k}": f"Chance that at least one of {k} tries of a task succeeds",
        f"pass@{k} interval": f"{level} confidence interval over tasks",
        "tasks": f"Tasks with at least {k} tries (the others are left out)"})
    rule = answer.result.estimates.rule()
    st.caption(f"Ranked by pass^{k}. Intervals: {level}, over tasks (tasks are the sample; "
               f"tries are nested in them). {md_text(rule[:1].upper() + rule[1:])}.")
    st.caption(_pairs_sentence(answer))
    st.subheader("pass^k and pass@k for every k")
    order = list(answer.table["system"].astype(str))
    shown = order[:CURVE_SYSTEMS]
    st.caption("Each line is one system; the shaded band is its **simultaneous** "
               f"{level} band: it holds the whole curve at once, so it is wider than each "
               "point's own interval. The dashed line marks the k of the table."
               + (f" The best {CURVE_SYSTEMS} of {len(order)} systems by pass^{k}; the table "
                  "has every one." if len(order) > CURVE_SYSTEMS else ""))
    # two pictures side by side; Streamlit stacks columns on a phone's width
    for column, measure in zip(st.columns(2), ("pass_hat_k", "pass_at_k"), strict=True):
        with column:
            widgets.picture(k_curve_svg(answer.curves, measure, chosen=k, systems=shown))
    st.download_button("Download the k-curves (CSV)", lambda: safe_csv(answer.curves.table),
                       icon=":material/download:", on_click="ignore", mime="text/csv",
                       file_name=file_name(q.benchmark, q.metric, "k-curves"),
                       help="Every system's pass@k and pass^k for k = 1…n with pointwise "
                            "intervals and simultaneous bands, one row per system and k.")


def report_parts(q: Query, view: View, tries: Tries
                 ) -> tuple[Reliability, PassKCurves] | None:
    """What the leaderboard report's section on repeated tries reads (the result at the
    view's k and its k-curves: the answer the view shows), None without repeated tries."""
    if not tries.available:
        return None
    answer = reliability_of(replace(q, k=view.k if view.k <= tries.most else 0))
    return answer.result, answer.curves


# ----------------------------------------------------------------- the Examples page


FLAKY_RULE = ("**Flaky**: a task whose tries both passed and failed — the exact {level} "
              "interval of its success rate excludes both always-fail (0%) and always-pass "
              "(100%).")


def flaky_section(q: Query, tries: Tries, links: dict[str, str]) -> None:
    """Flaky tasks per system (tries, successes, success rate, exact interval), counted per
    system with its outcome consistency; ``links``: example → its detail on the page."""
    answer = reliability_of(replace(q, k=0))
    flaky, consistency = answer.result.flaky, answer.result.consistency
    level = f"{1 - flaky.alpha:.0%}"
    st.subheader("Flaky examples (repeated tries)")
    st.caption(FLAKY_RULE.format(level=level) + " Outcome consistency: the share of tasks "
               "whose tries all agree (1 = every task always passes or always fails), with "
               "its interval over tasks.")
    c = consistency.table
    counts = pd.DataFrame({
        "system": list(flaky.systems), "flaky tasks": flaky.counts,
        "tasks (2+ tries)": c["tasks"],
        "outcome consistency": [f"{v:.2f}" if pd.notna(v) else "—" for v in c["c_out"]],
        "interval": [f"{a:.2f}–{b:.2f}" if pd.notna(a) else "—"
                     for a, b in zip(c["low"], c["high"], strict=True)]})
    listed = flaky.flaky()
    left, right = st.columns([1.2, 1.8])
    with left:
        _table(counts, "flaky per system", help={
            "flaky tasks": "Tasks whose tries both passed and failed",
            "tasks (2+ tries)": "Tasks it tried at least twice (consistency needs two)",
            "outcome consistency": "Share of tasks whose tries all agree (0 to 1): HAL's "
                                   "C_out (Rabanser et al. 2026), 1 − variance/(p(1 − p)) "
                                   "averaged over tasks",
            "interval": f"{level} confidence interval over tasks"})
    with right:
        if listed.empty:
            st.caption(f"No flaky task: every task's {tries.most} tries or fewer all agree.")
            return
        shown = pd.DataFrame({
            "example": listed["example_id"].astype(str), "system": listed["system"],
            "tries": listed["tries"], "successes": listed["successes"],
            "success rate": [percent(v) for v in listed["rate"]],
            "interval": [interval(a, b) for a, b in zip(listed["low"], listed["high"],
                                                        strict=True)]})
        _table(shown, "flaky examples", links=links, help={
            "example": "Open the example in detail below.",
            "success rate": "Share of its tries that passed",
            "interval": f"{level} exact (Clopper–Pearson) interval of the success rate"})
