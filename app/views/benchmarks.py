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
from app.ranked import html_table
from engine.app_support import md_isolated

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
# a static table (app.ranked.html_table), not st.dataframe: no data-grid code (~1.5 MB) for
# the browser to fetch before the page shows
shown = summary.assign(last_upload=summary["last_upload"].dt.strftime("%Y-%m-%d %H:%M"))
# at a phone's width the row count gives way and the date wraps: nothing is cut off; only
# the cells break inside a word (a long benchmark name), headers at spaces ("last uploa|d")
_PHONE = ("<style>@media (max-width:640px){.sb-ranked table[aria-label^=bench] "
          ":is(th,td):nth-child(5){display:none}.sb-ranked table[aria-label^=bench] "
          ":is(th,td):is(:nth-child(1),:nth-child(6)){white-space:normal}"
          ".sb-ranked table[aria-label^=bench] td:is(:nth-child(1),:nth-child(6))"
          "{overflow-wrap:anywhere}}</style>")
table = html_table(shown.rename(columns={"last_upload": "last upload"}), label="benchmarks",
                   max_height=None, help={
                       "benchmark": "The benchmark's name as uploaded",
                       "metric": "One score of the benchmark (a benchmark may have several)",
                       "systems": "Systems with scores on it",
                       "examples": "Distinct examples scored",
                       "rows": "Stored scores (system × example × run)",
                       "last upload": "When its latest results arrived (UTC)"})
st.html(_PHONE + table)

st.subheader("Open a benchmark")
records = summary.to_dict("records")
# one row of columns per three cards: a phone stacks them in reading order (one set of
# columns would stack column by column: 1, 4, 7, 2, 5, …)
cards = [(column, row) for start in range(0, len(records), 3)
         for column, row in zip(st.columns(3), records[start:start + 3], strict=False)]
for column, row in cards:
    with column, st.container(border=True):
        st.markdown(f"**{md_isolated(row['benchmark'])}** · {md_isolated(row['metric'])}")
        st.caption(f"{row['systems']} systems · {row['examples']} examples")
        target = {"benchmark": row["benchmark"], "metric": row["metric"], "a": "", "b": "",
                  "fcol": "", "fval": (), "cols": (), "focus": (), "color": ""}
        # one under the other: side by side, narrow cards cut the labels off
        state.link("leaderboard", "Leaderboard", icon=":material/leaderboard:", **target)
        state.link("examples", "Examples", icon=":material/quiz:", **target)
