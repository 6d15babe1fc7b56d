"""Overview: every benchmark in the store with its size and health, one click from its leaderboard."""

from __future__ import annotations

import streamlit as st

from app import data, state
from app.overview import HEALTH_CONFIG, health_summary

token = data.token()
catalog = data.catalog(token)
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
for i, row in enumerate(summary.itertuples(index=False)):
    with columns[i % 3], st.container(border=True):
        st.markdown(f"**{row.benchmark}** · {row.metric}")
        st.caption(f"{row.systems} systems · {row.examples} examples · "
                   f"{row.suspects if row.suspects == row.suspects else '–'} suspect examples")
        state.link("leaderboard", "Leaderboard", icon=":material/leaderboard:",
                   benchmark=row.benchmark, metric=row.metric, a="", b="", fcol="", fval=(),
                   cols=())
