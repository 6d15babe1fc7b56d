"""Judge + humans: LLM-judge scores made honest with a few human labels (PPI++).

A judge metric scored on every example and a human metric on a random subset give, per
system, the PPI++ estimate of the human-label mean (engine.judge_board) with the judge-only
and human-only figures beside it; every pair's PPI++ difference; how far the judge agrees
with the humans (bias by system, calibration); and how many labels a target width needs.
"""

from __future__ import annotations

from dataclasses import replace

import pandas as pd
import streamlit as st

from app import widgets
from app.components.judge_budget import label_budget_section
from app.data import judge
from app.data.query import Query
from engine.app_support import md_isolated

token, catalog, view = widgets.benchmark_page(
    "Judge + humans",
    "An LLM judge scores every example; humans label a random subset. Prediction-"
    "powered inference (PPI++; Angelopoulos, Duchi & Zrnic 2023) rectifies the judge's "
    "mean with the labelled examples: an estimate of the **human-label** mean, valid "
    "whatever the judge's bias, never wider than the human labels alone (in large "
    "samples). See Methods.")

metrics = list(catalog.loc[catalog["benchmark"] == view.benchmark, "metric"].astype(str))
linked = {j: h for (b, j), h in judge.links(token).items() if b == view.benchmark}
humans = list(dict.fromkeys([*linked.values(),
                             *(m for m in metrics if m.lower().startswith("human"))]))
judges = [m for m in metrics if m not in humans]
if not humans or not judges:
    st.info("This benchmark has no judge metric with human labels. Upload a file with a judge "
            "column (e.g. `judge_score`) on every row and a `human_…` column filled on a random "
            "subset, or declare the link with `sigboard judge-link STORE --benchmark B --judge "
            "J --human H`.")
    st.stop()
default_judge = view.metric if view.metric in judges else (next(iter(linked), None) or judges[0])
left, right = st.columns(2)
judge_metric = left.selectbox("Judge metric", judges, index=judges.index(default_judge),
                              key="judge_metric", format_func=widgets.names)
human_default = linked.get(judge_metric, humans[0])
human_metric = right.selectbox("Human metric", humans, index=humans.index(human_default),
                               key="human_metric", format_func=widgets.names)
# the one question of the page: the table, the pairs, the agreement and the label budget are
# this query's answer (the page's correction too, as on every page showing the judge board)
query = Query.of(view, token, human=human_metric).with_metric(judge_metric)
result = judge.board_of(query)
if result is None:  # a human metric is always chosen here: never None
    st.stop()
if isinstance(result, str):
    st.warning(f"PPI cannot be used here: {md_isolated(result)}", icon=":material/block:")
    st.stop()
board = result
table = board.table
sig = board.pairs.table["significant"]
top = table.iloc[0]
st.markdown(f"**{md_isolated(top['system'])}** leads at {top['ppi_mean']:.4g} "
            f"[{top['ppi_low']:.4g}, {top['ppi_high']:.4g}] (PPI++, {int(top['n_human'])} human "
            f"labels worth about {top['effective_n']:.0f}); **{int(sig.sum())} of {len(sig)}** "
            f"pairs differ, "
            f"{widgets.error_rate(replace(view, correction=board.correction, alpha=board.alpha))}.",
            help=f"Pairs corrected by {board.correction} at α = {board.alpha:g}.")

st.subheader("Leaderboard (PPI++ estimates of the human-label mean)")
shown = pd.DataFrame({
    "rank": table["rank"], "system": table["system"].astype(str),
    "PPI mean": table["ppi_mean"], "PPI low": table["ppi_low"], "PPI high": table["ppi_high"],
    "human labels": table["n_human"], "effective labels": table["effective_n"],
    "judge only": table["judge_mean"], "judge low": table["judge_low"],
    "judge high": table["judge_high"], "human only": table["human_mean"],
    "human low": table["human_low"], "human high": table["human_high"],
    "judge bias": table["bias"]})
st.dataframe(shown, hide_index=True, key="judge_table", column_config={
    "rank": st.column_config.NumberColumn(help="Position by the PPI++ mean"),
    "system": st.column_config.TextColumn(help="The system scored"),
    "PPI mean": st.column_config.NumberColumn(format="%.4g", help="PPI++ estimate of the "
                                              "mean human label"),
    "PPI low": st.column_config.NumberColumn(format="%.4g", help="Lower end of its interval"),
    "PPI high": st.column_config.NumberColumn(format="%.4g", help="Upper end of its interval"),
    "human labels": st.column_config.NumberColumn(help="Examples of this system a human "
                                                  "labelled"),
    "effective labels": st.column_config.NumberColumn(
        format="%.0f", help="Human labels alone needed for the same interval width"),
    "judge only": st.column_config.NumberColumn(format="%.4g", help="Mean judge score: biased "
                                                "if the judge is; shown for comparison"),
    "judge low": st.column_config.NumberColumn(format="%.4g", help="Lower end of the "
                                               "judge-only interval"),
    "judge high": st.column_config.NumberColumn(format="%.4g", help="Upper end of the "
                                                "judge-only interval"),
    "human only": st.column_config.NumberColumn(format="%.4g", help="Mean of the human labels "
                                                "alone"),
    "human low": st.column_config.NumberColumn(format="%.4g", help="Lower end of the "
                                               "human-only interval"),
    "human high": st.column_config.NumberColumn(format="%.4g", help="Upper end of the "
                                                "human-only interval"),
    "judge bias": st.column_config.NumberColumn(format="%.3g", help="Mean judge score minus "
                                                "mean human label on the labelled examples"),
})

st.subheader("Pairs (PPI++ mean paired difference)")
pairs = board.pairs.table
st.dataframe(pd.DataFrame({
    "pair": pairs["system_a"].astype(str) + " − " + pairs["system_b"].astype(str),
    "difference": pairs["estimate"], "low": pairs["low"], "high": pairs["high"],
    "labelled for both": pairs["n_both"], "p": pairs["pvalue"],
    "adjusted p": pairs["p_adjusted"], "differs": pairs["significant"]}),
    hide_index=True, key="judge_pairs", column_config={
        "pair": st.column_config.TextColumn(help="First system − second system"),
        "difference": st.column_config.NumberColumn(format="%.4g", help="PPI++ difference of "
                                                    "the human-label means"),
        "low": st.column_config.NumberColumn(format="%.4g", help="Lower end of its interval"),
        "high": st.column_config.NumberColumn(format="%.4g", help="Upper end of its interval"),
        "labelled for both": st.column_config.NumberColumn(help="Examples with a human label "
                                                           "for both systems"),
        "p": st.column_config.NumberColumn(format="%.3g", help="p-value of this pair alone"),
        "adjusted p": st.column_config.NumberColumn(format="%.3g", help="Corrected for testing "
                                                    "every pair (see the sentence above)"),
        "differs": st.column_config.CheckboxColumn(help="Significant after the correction")})

st.subheader("Does the judge agree with the humans?")
agree = board.agreement
cols = st.columns(4)
cols[0].metric("Pearson r", "—" if agree["pearson"] is None else f"{agree['pearson']:.3f}")
cols[1].metric("Mean bias (judge − human)", f"{agree['mean_bias']:.3g}")
cols[2].metric("Mean |judge − human|", f"{agree['mean_abs_difference']:.3g}")
p_bias = agree["bias_differs_pvalue"]
cols[3].metric("Bias differs by system (p)", "—" if p_bias is None else f"{p_bias:.3g}")
if agree.get("bias_differs"):
    st.warning("The judge's bias differs between systems: the judge-only ranking favours some "
               "systems. The PPI++ column corrects it.", icon=":material/balance:")
st.dataframe(board.bias, hide_index=True, key="judge_bias")
st.caption("Calibration: mean human label per bin of judge score (labelled examples).")
st.dataframe(board.calibration, hide_index=True, key="judge_calibration")

st.subheader("How many human labels?")
label_budget_section(query, board, key="judge_width")
