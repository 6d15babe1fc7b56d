"""sigboard's server: ``streamlit run app/server.py`` (from the repository root).

The app itself is ``app/main.py`` (its pages, its navigation; tests run it directly);
this entry serves it with :class:`app.fast_start.FastStart`, which makes a first
visit to any page faster (see that module).
"""

from __future__ import annotations

import sys
from pathlib import Path

import streamlit as st
from starlette.middleware import Middleware

from app.fast_start import FastStart, Guard
from app.preload import import_app_code
from app.upload_budget import UploadBudget
from engine.app_support import warm_kernels

# Every Numba kernel compiled, or loaded from its disk cache, before the port opens:
# loading cached kernels costs ~1 s of CPU once, and no page pays for it; a fresh
# checkout that skipped `sigboard warm` compiles here (~10 s of CPU) instead of while its
# first pages are drawn (a compiling thread beside them took 14-26 s of CPU and left the
# sidebar half drawn)
try:
    print(f"sigboard: {warm_kernels().sentence()}", file=sys.stderr, flush=True)
except (OSError, RuntimeError) as exc:  # Numba found no cache folder it may write: the pages
    # compile a kernel when they first need it, as before; the server still starts
    print(f"sigboard: the compiled kernels were not prepared ahead ({exc}); pages compile "
          "them on first need", file=sys.stderr, flush=True)

# Every module the pages use imported now, not during someone's first visit
print(f"sigboard: {import_app_code().sentence()}", file=sys.stderr, flush=True)

# Guard first: /_stcore/metrics off, uploads only from sessions that may upload; then
# the byte budgets of the upload endpoint (per session and for the server, token or not)
app = st.App(Path(__file__).with_name("main.py"),
             middleware=[Middleware(Guard), Middleware(UploadBudget), Middleware(FastStart)])

# Streamlit prints "You can now view your Streamlit app" before it imports this file, so
# on a fresh checkout (kernels compiling) that line came ~10 s before the port answered;
# this one is printed when everything is prepared and the port opens next
_host = st.get_option("server.address") or "localhost"
print(f"sigboard: ready, open http://{_host}:{st.get_option('server.port')} (the address "
      "above answers from now on)", file=sys.stderr, flush=True)
