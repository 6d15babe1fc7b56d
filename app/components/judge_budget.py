"""How many human labels a judge metric needs, on the Plan and Judge + humans
pages: per system, the labels for a target PPI++ interval width from the observed judge–human
correlation (closed form, ``engine.label_budget``), with the closed form checked against
simulated intervals at those labels (``engine.budget_check``)."""

from __future__ import annotations

from dataclasses import replace

import streamlit as st

from app.data import judge
from app.data.query import Query
from app.ranked import html_table
from engine.app_support import md_isolated
from engine.results import JudgeBoard

BUDGET_HELP = {
    "system": "The system", "n_judge": "Examples the judge scored",
    "n_human_now": "Human labels it has now", "sd_human": "Spread (SD) of the human labels",
    "sd_judge": "Spread (SD) of the judge scores",
    "rho": "Judge–human correlation on the labelled examples: the higher, the fewer labels",
    "labels_needed": "Human labels for an interval of the target width (above n_judge: out "
                     "of reach even with every example labelled)",
    "reachable": "Whether labelling every example would be enough",
    "expected_now": "Labels the declared inclusion probabilities give in expectation",
    "scale": "Factor on every declared inclusion probability (each at most 1) that gives "
             "the target width: the design keeps its shape"}
CHECK_HELP = {"system": "The system", "labels_needed": "Labels planned",
              "predicted_width": "Interval width the planner predicts at those labels",
              "simulated_width": "Mean width of 500 simulated PPI++ intervals at those labels",
              "ratio": "Predicted / simulated (1 = exact)"}


def label_budget_section(q: Query, board: JudgeBoard, *, key: str) -> None:
    """The target width, the labels per system, and the simulation check of the closed form,
    of ``board``: the query's judge board (:func:`app.data.judge.board_of`), shown above."""
    metric = q.metric
    widths = (board.table["ppi_high"] - board.table["ppi_low"]).dropna()
    start = float(max(widths.median(), 1e-6)) if len(widths) else 1.0  # today's precision
    width = st.number_input(f"Target interval width ({md_isolated(metric)} units)",
                            min_value=1e-9, value=start, format="%.4g", key=key,
                            help="Full width of the PPI++ interval of each system's mean "
                                 f"human label, at {1 - board.alpha:.0%}.")
    plan, check = judge.budget(replace(q, label_width=float(width)))
    st.html(html_table(plan.table, label="label budget", max_height=None, help=BUDGET_HELP,
                       formats={"sd_human": ".4g", "sd_judge": ".4g", "rho": ".3f"}))
    if plan.designs is None:
        st.caption("Closed form from the PPI++ variance with the observed judge–human "
                   "correlation (Angelopoulos, Duchi & Zrnic 2023), for labels drawn uniformly "
                   "at random.")
    else:
        st.caption("Labels drawn with the declared inclusion probabilities: the plan scales "
                   "them all by one factor (scale) and gives the expected label count; closed "
                   "form of the inverse-probability-weighted PPI++ variance (Zrnic & Candès "
                   "2024), checked on a population resampled from the labelled examples.")
    if not len(check):
        st.caption("No system can reach this width with fewer labels than examples: nothing "
                   "to check by simulation.")
    else:
        worst = float((check["ratio"] - 1).abs().max())
        st.caption(f"Checked by simulation: the predicted widths are within {worst:.0%} of the "
                   "simulated ones.")
        st.html(html_table(check, label="label budget check", max_height=None,
                           help=CHECK_HELP, formats={"predicted_width": ".4g",
                                                     "simulated_width": ".4g",
                                                     "ratio": ".3f"}))


def judge_labels(q: Query) -> None:
    """The Plan page's section when its metric is a judge's with human labels."""
    found = judge.board_of(q)
    if found is None:
        return
    st.subheader("Human labels for the judge")
    if isinstance(found, str):
        st.info(f"The human labels cannot correct this judge: {md_isolated(found)}",
                icon=":material/block:")
        return
    st.caption(f"{md_isolated(q.metric)} is an LLM judge's score with human labels "
               f"({md_isolated(found.human)}): how many labels each system needs for its "
               "judge-corrected mean (PPI++) to be this precise.")
    label_budget_section(q, found, key="plan_judge_width")
