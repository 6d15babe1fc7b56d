"""Cached answers of the Judge page (#31): the PPI++ judge leaderboard and the declared
judge → human metric links of the store."""

from __future__ import annotations

import streamlit as st

from app.data import store
from engine import JudgeBoard, JudgeContractError, judge_board, judge_links


@st.cache_resource(show_spinner=False, max_entries=16)
def links(token: str) -> dict[tuple[str, str], str]:
    """(benchmark, judge metric) → human metric, as declared in the store."""
    return judge_links(store.current())


@st.cache_resource(show_spinner="Rectifying the judge with the human labels…", max_entries=16)
def board(token: str, benchmark: str, judge: str, human: str, alpha: float,
          higher_is_better: bool) -> JudgeBoard | str:
    """The judge leaderboard, or the sentence saying why the labels cannot be used."""
    frame = store.current().load_frame(benchmark)
    try:
        return judge_board(frame, judge=judge, human=human, benchmark=benchmark, alpha=alpha,
                           higher_is_better=higher_is_better)
    except JudgeContractError as exc:
        return str(exc)
