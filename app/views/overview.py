"""Overview: every benchmark in the store with its size and health, one click from its leaderboard."""

from __future__ import annotations

import pandas as pd
import streamlit as st

from app import cache, state
from app.components.health_summary import HEALTH_CONFIG, health_summary

token = cache.token()
catalog = cache.catalog(token)
view = state.view()

st.title("Benchmarks")
st.caption("Which of your systems are *really* better: paired significance tests, groups of "
           "systems that cannot be told apart, and the examples that look broken.")
if catalog.empty:
    st.info("The store is empty: upload example-level results on the Upload page.")
    state.link("upload", "Upload results", icon=":material/upload:")
    st.stop()

summary = health_summary(token, catalog, view.alpha)
st.dataframe(summary, hide_index=True, column_config=HEALTH_CONFIG, width="stretch")

st.subheader("Open a benchmark")
columns = st.columns(3)
for i, row in enumerate(summary.to_dict("records")):
    with columns[i % 3], st.container(border=True):
        st.markdown(f"**{row['benchmark']}** · {row['metric']}")
        suspects = "–" if row["suspects"] is pd.NA else row["suspects"]
        st.caption(f"{row['systems']} systems · {row['examples']} examples · {suspects} suspect "
                   "examples")
        target = {"benchmark": row["benchmark"], "metric": row["metric"], "a": "", "b": "",
                  "fcol": "", "fval": (), "cols": ()}
        left, right = st.columns(2)
        with left:
            state.link("leaderboard", "Leaderboard", icon=":material/leaderboard:", **target)
        with right:
            state.link("examples", "Examples", icon=":material/quiz:", **target)
