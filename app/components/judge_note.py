"""The note of the Leaderboard, Pairwise and A/B compare pages when their metric is an LLM
judge's score with human labels (#31): their figures are the judge's own; the Judge + humans
page gives the PPI++ estimates of the human-label mean."""

from __future__ import annotations

import pandas as pd
import streamlit as st

from app import state
from app.data import judge
from app.url import View
from engine import md_isolated


def human_metric_of(token: str, view: View, catalog: pd.DataFrame) -> str | None:
    """The human metric paired with the page's metric (declared link, else a human_* metric
    of the same benchmark), or None when the metric is not a judge metric."""
    if view.metric.lower().startswith("human"):
        return None
    linked = judge.links(token).get((view.benchmark, view.metric))
    if linked:
        return linked
    metrics = catalog.loc[catalog["benchmark"] == view.benchmark, "metric"].astype(str)
    return next((m for m in metrics if m.lower().startswith("human")), None)


def judge_note(token: str, view: View, catalog: pd.DataFrame) -> None:
    """A caption with a link to the Judge + humans page when the metric has human labels."""
    human = human_metric_of(token, view, catalog)
    if human is None:
        return
    st.caption(f"This benchmark has human labels ({md_isolated(human)}): the figures here are "
               "the judge's own scores, biased if the judge is. The Judge + humans page gives "
               "PPI++ estimates of the human-label mean, with the judge-only and human-only "
               "figures beside them.")
    state.link("judge", "Open the Judge + humans page", icon=":material/gavel:")
