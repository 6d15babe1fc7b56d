"""The note of the fixed-n pages (Leaderboard, Pairwise, A/B compare) when their data came in
several uploads: their p-values and intervals assume one look; the Watch page's hold at
every look."""

from __future__ import annotations

import streamlit as st

from app import state
from app.data import watch
from app.data.query import Query


def several_uploads(q: Query) -> None:
    """A caption with a link to the Watch page when the query's metric's rows came in more
    than one upload."""
    count = watch.upload_count(q)
    if count < 2:
        return
    st.caption(f"These results arrived in {count} uploads. The p-values and intervals on this "
               "page assume the data were looked at once, at a size fixed in advance: checked "
               "after every upload they declare differences that are not there far more often "
               "than alpha. The Watch page's intervals stay valid at every look.")
    state.link("watch", "Open the Watch page", icon=":material/visibility:")
