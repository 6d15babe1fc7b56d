"""Methods: which test runs when, and why, in plain words, with the conventions and references.

The text is ``docs/methods.md`` (through :mod:`app.components.methods`, which reads the copy
the package ships), shown as it is written: the page adds only its title and the phone rule.
"""

from __future__ import annotations

import streamlit as st

from app.components.methods import page_markdown

#: At a phone's width the five-column test table ran past the screen's edge: smaller type and
#: padding there, so it fits 390 px.
_PHONE = ("<style>@media (max-width:640px){[data-testid=stMarkdownContainer] table"
          "{font-size:.8rem}[data-testid=stMarkdownContainer] :is(th,td)"
          "{padding:.25rem .35rem}}</style>")

st.title("Methods")
st.html(_PHONE)
st.markdown(page_markdown())
