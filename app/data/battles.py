"""Battle lists in the store: the arenas, and each arena's LMArena-style leaderboard and win
rates, cached by the page's :class:`app.data.query.ArenaQuery` (the store's token and the
arena), like every answer of ``app/data``."""

from __future__ import annotations

import pandas as pd
import streamlit as st

from app.data import store
from app.data.query import ArenaQuery
from engine import DataContractError, arena_ratings
from engine.app_support import arena_elo, judge_battle_board, judged_battles, win_rate_matrix
from engine.results import JudgeBattleBoard


@st.cache_resource(show_spinner=False, max_entries=16)
def arenas(token: str) -> list[str]:
    """Names of the arenas with stored battles (live uploads): what a page offers to pick."""
    return store.current().battle_arenas()


@st.cache_resource(show_spinner="Fitting Bradley–Terry to the battles…", max_entries=8)
def arena_board(q: ArenaQuery) -> tuple[pd.DataFrame, pd.DataFrame, int]:
    """The arena's leaderboard (rank, system, Bradley–Terry rating on the Elo scale with its
    sandwich interval, win rate, battles, group, online Elo in the battles' order), its
    win-rate matrix (ties as half) and its number of battles: one answer, so the Leaderboard's
    arena table and the Mechanisms page's win rates order the same fit."""
    battles = store.current().load_battles(q.arena)
    ratings = arena_ratings(battles)
    elo = arena_elo(battles)
    table = ratings.table.assign(online_elo=ratings.table["system"].map(elo))
    systems = list(ratings.counts.systems)
    rates = pd.DataFrame(win_rate_matrix(ratings.counts), index=systems, columns=systems)
    return table, rates, len(battles)


@st.cache_resource(show_spinner="Correcting the judge with the human verdicts…", max_entries=8)
def judged_board(q: ArenaQuery) -> JudgeBattleBoard | str | None:
    """The arena's PPI++ Bradley–Terry board when its battles carry human verdicts
    (``human_winner``), the sentence saying why they cannot be used, or None."""
    battles = store.current().load_battles(q.arena)
    if "human_winner" not in battles.columns:
        return None
    try:
        return judge_battle_board(judged_battles(battles, label=q.arena))
    except (DataContractError, ValueError) as exc:
        return str(exc)
