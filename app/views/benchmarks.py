"""Benchmarks: every benchmark in the store with its size, one click from its pages (at
``/benchmarks``; ``/overview``, its old address, opens it too).

It summarises from the store's catalog only (no pairwise tests): the page stays
light whatever the number of systems; each benchmark's health is on its Examples page.
"""

from __future__ import annotations

import pandas as pd
import streamlit as st

from app import state
from app.data import store
from engine import md_isolated

token = store.token()
catalog = store.catalog(token)
view = state.view()

st.title("Benchmarks")
st.caption("Which of your systems are *really* better: paired significance tests, groups of "
           "systems that cannot be told apart, and the examples that look broken.")
if catalog.empty:
    st.info("The store is empty: upload example-level results on the Upload page.")
    state.link("upload", "Upload results", icon=":material/upload:")
    st.stop()

summary = catalog[["benchmark", "metric", "systems", "examples", "rows", "last_upload"]].copy()
summary["last_upload"] = pd.to_datetime(summary["last_upload"], utc=True, errors="coerce")
st.dataframe(summary, hide_index=True, width="stretch", column_config={
    "benchmark": st.column_config.TextColumn("benchmark", pinned=True,
                                             help="The benchmark's name as uploaded"),
    "metric": st.column_config.TextColumn(help="One score of the benchmark (a benchmark may "
                                          "have several)"),
    "systems": st.column_config.NumberColumn(help="Systems with scores on it"),
    "examples": st.column_config.NumberColumn(help="Distinct examples scored"),
    "rows": st.column_config.NumberColumn(help="Stored scores (system × example × run)"),
    "last_upload": st.column_config.DatetimeColumn("last upload", format="YYYY-MM-DD HH:mm",
                                                   help="When its latest results arrived (UTC)"),
})

st.subheader("Open a benchmark")
columns = st.columns(3)
for i, row in enumerate(summary.to_dict("records")):
    with columns[i % 3], st.container(border=True):
        st.markdown(f"**{md_isolated(row['benchmark'])}** · {md_isolated(row['metric'])}")
        st.caption(f"{row['systems']} systems · {row['examples']} examples")
        target = {"benchmark": row["benchmark"], "metric": row["metric"], "a": "", "b": "",
                  "fcol": "", "fval": (), "cols": (), "focus": (), "color": ""}
        # one under the other: side by side, narrow cards cut the labels off
        state.link("leaderboard", "Leaderboard", icon=":material/leaderboard:", **target)
        state.link("examples", "Examples", icon=":material/quiz:", **target)
