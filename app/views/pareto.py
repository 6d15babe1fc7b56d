"""Trade-offs: which systems may be the best trade-off of a score and a cost (or a time) on
one benchmark, each system's confidence box in a chart and a table, and the engine's
headline (:mod:`app.data.pareto`). The address bar keeps the benchmark, the score
(``metric``), the cost (``cost``), the confidence (``alpha``) and the seed."""

from __future__ import annotations

import math
from dataclasses import replace

import numpy as np
import pandas as pd
import streamlit as st

from app import state, widgets
from app.charts.pareto import STATUS_WORDS, trade_off_chart
from app.data.pareto import PRICED, axes, trade_offs
from app.downloads import safe_csv
from engine.app_support import (
    CERTAINLY_DOMINATED,
    PRICE_COLUMNS,
    USAGE_MEANINGS,
    md_isolated,
    md_text,
)

#: confidence choices: alpha -> how the page says it
CONFIDENCE = {0.05: "95%", 0.1: "90%", 0.01: "99%"}
_PRICES_KEY = "pareto_prices"
_BOUNDS = ["score_low", "score_high", "cost_low", "cost_high"]

token, catalog, view = widgets.page_context()
benchmarks = list(dict.fromkeys(catalog["benchmark"].astype(str)))
with_costs = [b for b in benchmarks if all(axes(catalog, b))]
switched = ""
if view.benchmark not in with_costs and with_costs:  # the first benchmark with costs instead
    switched, view = view.benchmark, replace(view, benchmark=with_costs[0], metric="")
scores, costs = axes(catalog, view.benchmark)
prices = st.session_state.get(_PRICES_KEY)
tokens = {"tokens_in", "tokens_out"} <= set(
    catalog.loc[catalog["benchmark"].astype(str) == view.benchmark, "metric"].astype(str))
if prices is not None and tokens:
    costs = [PRICED, *costs]
metric = view.metric if view.metric in scores else (scores[0] if scores else "")
cost = view.cost if view.cost in costs else ("cost" if "cost" in costs else
                                              (costs[0] if costs else ""))
if view.cost and view.cost != cost:
    state.warn([f"URL parameter `cost`={md_isolated(view.cost)} is not a cost of "
                f"{md_isolated(view.benchmark)}; showing {md_isolated(cost or 'none')}."])
alpha = view.alpha if view.alpha in CONFIDENCE else 0.05
view = replace(view, metric=metric, cost=cost, alpha=alpha)
state.set_view(view)

st.title(f"Trade-offs · {md_isolated(view.benchmark)}")
st.caption("Is the expensive system really better, and worth its price? Each system's score "
           "is set against its cost or its speed, both with their uncertainty: a system is "
           "marked beaten only when another is surely better and surely cheaper.")
with st.popover(f"Benchmark {md_isolated(view.benchmark)} · {md_isolated(metric or 'no score')} "
                f"against {md_isolated(cost or 'no cost')}", icon=":material/swap_horiz:"):
    state.bound(st.selectbox, "Benchmark", "benchmark", view.benchmark,
                options=with_costs or [view.benchmark], format_func=widgets.names,
                clears=("metric", "cost"),
                help="The benchmarks whose uploads recorded a cost or a time beside a score.")
    if scores:
        state.bound(st.selectbox, "Score (higher is better)", "metric", metric, options=scores,
                    format_func=widgets.names)
    if costs:
        state.bound(st.selectbox, "Cost or time (lower is better)", "cost", cost,
                    options=costs, format_func=widgets.names)
    state.bound(st.selectbox, "Confidence", "alpha", alpha, options=list(CONFIDENCE),
                format_func=lambda a: f"{CONFIDENCE[a]} for all systems at once")

_RECORDED = ("Harness logs that record usage (Inspect's tokens and times, promptfoo's cost and "
             "latency, HELM's tokens and runtime) give one when uploaded.")
if not scores or not costs:
    st.info("No benchmark has both a score and a cost or time recorded yet. " + _RECORDED,
            icon=":material/info:")
    st.stop()
if switched:
    st.info(f"{md_isolated(switched)} has no cost or time recorded, so this page shows "
            f"{md_isolated(view.benchmark)}. " + _RECORDED, icon=":material/info:")

with st.expander("Prices (optional): compute the cost from tokens", icon=":material/sell:"):
    st.caption(f"A CSV with the columns {', '.join(PRICE_COLUMNS)}: each system's price of one "
               "input token and one output token, in your currency. The cost of each example "
               "is then tokens in × input price + tokens out × output price. Prices are used "
               "as you give them, never looked up.")
    up = st.file_uploader("Price table (CSV)", type=["csv"], key="pareto_prices_file")
    if up is not None:
        st.session_state[_PRICES_KEY] = (up.name, up.getvalue())
    elif _PRICES_KEY in st.session_state:
        st.session_state.pop(_PRICES_KEY)
    if up is not None and not tokens:
        st.warning(f"{md_isolated(view.benchmark)} has no token counts to price.")
    elif (up is not None) != (prices is not None):
        st.rerun()  # the cost choices change with the table

steps = widgets.Progress(1)
steps.step("Computing each system's score and cost with their uncertainty")
name, content = prices if (prices is not None and cost == PRICED) else ("", b"")
try:
    answer = trade_offs(token, view.benchmark, metric, cost, 1 - alpha, view.seed,
                        prices=content, prices_name=name)
except ValueError as exc:
    steps.done()
    st.warning(md_text(exc), icon=":material/warning:")
    st.stop()
steps.done()
res = answer.result
shown_cost = res.cost_metric
unit = USAGE_MEANINGS.get(shown_cost, ("", "as uploaded"))[1]
if cost == PRICED:
    unit = "your currency"
score_title = [f"{metric}: {'share of examples' if answer.binary else 'mean'}",
               "(higher is better)"]
cost_title = [f"{shown_cost}: mean per example", f"({unit}, lower is better)"]

st.markdown(f"**{md_text(res.headline)}**")
if answer.prices:
    st.caption(md_text(answer.prices))
t = res.table
st.altair_chart(trade_off_chart(t, score_title, cost_title, percent=answer.binary),
                width="stretch")
st.caption("Each number is a system's row in the table. Each box: the range the system's "
           f"true {md_text(metric)} (up) and true mean "
           f"{md_text(shown_cost)} (right) lie in, {CONFIDENCE[alpha]} sure for all "
           f"{len(t)} systems at once; {res.n_examples} examples every system has both for."
           + (" A box reaching the chart's edge has no bound on that side: too few examples "
              "to bound it." if not np.isfinite(t[_BOUNDS].to_numpy(float)).all() else ""))


def _num(value: float, percent: bool | None = None) -> str:
    if not math.isfinite(value):  # too few examples to bound this side
        return "unbounded"
    return f"{value:.1%}" if (answer.binary if percent is None else percent) else f"{value:.4g}"


rows = pd.DataFrame({
    "#": range(1, len(t) + 1),  # the system's number on the chart
    "system": t["system"],
    "trade-off": t["status"].map(STATUS_WORDS),
    metric: [_num(v) for v in t["score"]],
    f"{metric} range": [f"{_num(a)} to {_num(b)}"
                        for a, b in zip(t["score_low"], t["score_high"], strict=True)],
    shown_cost: [_num(v, False) for v in t["cost"]],
    f"{shown_cost} range": [f"{_num(a, False)} to {_num(b, False)}"
                            for a, b in zip(t["cost_low"], t["cost_high"], strict=True)],
    "beaten by": [", ".join(d) for d in t["dominated_by"]],
})


def _ratio(column: str) -> list[str]:
    """A system's cost per success or per point: "0.0123 (0.0101 to 0.0150)"."""
    return [f"{_num(v, False)} ({_num(a, False)} to {_num(b, False)})" if math.isfinite(v) else "—"
            for v, a, b in zip(t[column], t[f"{column}_low"], t[f"{column}_high"], strict=True)]


_POINT = "percentage point" if answer.binary else "point of " + metric
if "cost_per_success" in t:
    rows[f"{shown_cost} per success"] = _ratio("cost_per_success")
if "cost_per_point" in t:
    rows[f"{shown_cost} per {_POINT}"] = _ratio("cost_per_point")
order = (t["status"] == CERTAINLY_DOMINATED).to_numpy().argsort(kind="stable")
st.dataframe(rows.iloc[order], hide_index=True, width="stretch")
st.download_button("Download the table (CSV)", safe_csv(t.assign(
    dominated_by=[";".join(d) for d in t["dominated_by"]])),
    file_name=f"trade-offs-{view.benchmark}-{metric}-{shown_cost}.csv", mime="text/csv",
    icon=":material/download:")

command = (f"sigboard pareto DATA --score {metric} --cost {shown_cost}"
           + (" --prices FILE" if cost == PRICED else "")).replace("`", "'")
with st.expander("How this is computed"):
    st.markdown(
        f"Each system gets a **simultaneous confidence box**: an interval for its mean score "
        f"(t interval) and one for its mean cost (studentised bootstrap of the mean, "
        f"{4999:,} resamples, seed {view.seed}: costs are heavy-tailed), each at the Šidák "
        f"level {res.per_interval:.4f}, so that all {2 * len(t)} intervals hold at once with "
        f"probability at least {CONFIDENCE[alpha]}. A system is *certainly dominated* when "
        "another system's box is better on both axes than its whole box (higher score "
        "bound, lower cost bound); otherwise it is *possibly optimal*: the possibly-optimal "
        "set contains the true Pareto front with that confidence. Repeated tries are "
        "averaged per example. The cost per success (a pass/fail score) and per point of "
        "score (a percentage point of a pass/fail score, else one unit) are the system's "
        "total cost over its total score, each with its own interval at the same confidence "
        "for that system alone (bootstrap-t on the log of the ratio, delta-method standard "
        "error): what its quality costs, not part of the boxes. "
        "The command line gives the same answer: "
        f"`{command}`.")
