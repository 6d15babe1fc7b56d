"""The upload preview's human labels: for each judge metric with human labels,
how many labels each system has, and whether prediction-powered inference can use them —
refused, with the reason and the fix, when the data themselves show the labels were not a
random sample (``engine.label_preview`` → ``engine.check_random_labels``)."""

from __future__ import annotations

import pandas as pd
import streamlit as st

from app.data import judge
from app.ranked import html_table
from engine.app_support import label_preview, md_isolated


def human_labels(frame: pd.DataFrame, token: str) -> None:
    """Labels per system of each judge/human pair of the file, and the method's verdict."""
    preview = label_preview(frame, links=judge.links(token))
    if not preview.verdicts:
        return
    st.markdown("**Human labels of judge metrics**",
                help="A judge metric's scores are corrected with the human labels "
                     "(prediction-powered inference, PPI++) on the Leaderboard, Pairwise, A/B "
                     "compare, Overall and Judge + humans pages, if the labels are a random "
                     "sample of every system's examples. See Methods.")
    for benchmark, judge_metric, human, refusal in preview.verdicts:
        where = f"{md_isolated(benchmark)}: {md_isolated(judge_metric)} with {md_isolated(human)}"
        if refusal is None and (benchmark, judge_metric, human) in preview.weighted:
            st.caption(f":material/check: {where}: every labelled example has its inclusion "
                       "probability; the judge's scores will be corrected with the labels, "
                       "each weighted by 1 / its probability.")
        elif refusal is None:
            st.caption(f":material/check: {where}: the labels look like a random sample; the "
                       "judge's scores will be corrected with them.")
        else:
            st.warning(f"{where}: the judge's scores will **not** be corrected with these "
                       f"labels. {md_isolated(refusal)}", icon=":material/block:")
    counts = preview.counts.rename(columns={"judged": "judged examples",
                                            "labelled": "human labels"})
    st.html(html_table(counts, label="human labels", max_height=240, help={
        "benchmark": "The benchmark", "judge": "The judge metric",
        "human": "The human metric that labels it", "system": "The system",
        "judged examples": "Examples the judge scored for this system",
        "human labels": "Of those, examples a human labelled"}))
