"""sigboard's server: ``streamlit run app/server.py`` (from the repository root).

The app itself is ``app/main.py`` (its pages, its navigation; tests run it directly);
this entry serves it with :class:`app.fast_start.FastStart`, which makes a first
visit to any page faster (see that module).
"""

from __future__ import annotations

import threading
from pathlib import Path

import streamlit as st
from starlette.middleware import Middleware

from app.fast_start import FastStart, Guard
from app.upload_budget import UploadBudget
from engine import load_kernels

# Numba's import and first kernel load (~1 s CPU) while the server waits for its first
# visitor, not during the first page that replays battles (Mechanisms, #27 item 3)
threading.Thread(target=load_kernels, name="load-kernels", daemon=True).start()

# Guard first: /_stcore/metrics off, uploads only from sessions that may upload (#33); then
# the byte budgets of the upload endpoint (per session and for the server, token or not)
app = st.App(Path(__file__).with_name("main.py"),
             middleware=[Middleware(Guard), Middleware(UploadBudget), Middleware(FastStart)])
