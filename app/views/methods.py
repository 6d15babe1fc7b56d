"""Methods: which test runs when, and why, in plain words, with the conventions and references.

The text lives in :mod:`app.components.methods`, one module per group of sections.
"""

from __future__ import annotations

import streamlit as st

from app.components.methods import SECTIONS
from engine import MIN_PAIRED_OVERLAP

st.title("Methods")
st.markdown("".join(SECTIONS).replace("MIN_OVERLAP", str(MIN_PAIRED_OVERLAP)))
