"""Methods: which test runs when, and why, in plain words, with the conventions and references.

The text lives in :mod:`app.components.methods`, one module per group of sections.
"""

from __future__ import annotations

import streamlit as st

from app.components.methods import SECTIONS
from engine.app_support import MIN_PAIRED_OVERLAP

#: At a phone's width the four-column test table ran past the screen's edge (#27
#: screenshots): smaller type and padding there, so it fits 390 px.
_PHONE = ("<style>@media (max-width:640px){[data-testid=stMarkdownContainer] table"
          "{font-size:.8rem}[data-testid=stMarkdownContainer] :is(th,td)"
          "{padding:.25rem .35rem}}</style>")

st.title("Methods")
st.html(_PHONE)
st.markdown("".join(SECTIONS).replace("MIN_OVERLAP", str(MIN_PAIRED_OVERLAP)))
