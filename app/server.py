"""sigboard's server: ``streamlit run app/server.py`` (from the repository root).

The app itself is ``app/main.py`` (its pages, its navigation; tests run it directly);
this entry serves it with :class:`app.fast_start.FastStart`, which makes a first
visit to any page faster (see that module).
"""

from __future__ import annotations

import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))

import streamlit as st  # noqa: E402
from starlette.middleware import Middleware  # noqa: E402

from app.fast_start import FastStart  # noqa: E402

app = st.App(Path(__file__).with_name("main.py"), middleware=[Middleware(FastStart)])
