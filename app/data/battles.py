"""Battle lists in the store (issue #32): the arenas, and each arena's LMArena-style
leaderboard and win rates, cached by the store's token like every reader of ``app/data``."""

from __future__ import annotations

import pandas as pd
import streamlit as st

from app.data import store
from engine import (
    DataContractError,
    JudgeBattleBoard,
    arena_elo,
    arena_ratings,
    judge_battle_board,
    judged_battles,
    win_rate_matrix,
)


@st.cache_resource(show_spinner=False, max_entries=16)
def arenas(token: str) -> list[str]:
    """Names of the arenas with stored battles (live uploads)."""
    return store.current().battle_arenas()


@st.cache_resource(show_spinner="Fitting Bradley–Terry to the battles…", max_entries=8)
def arena_board(token: str, arena: str) -> tuple[pd.DataFrame, pd.DataFrame, int]:
    """The arena's leaderboard (rank, system, Bradley–Terry rating on the Elo scale with its
    sandwich interval, win rate, battles, group, online Elo in the battles' order), its
    win-rate matrix (ties as half) and its number of battles."""
    battles = store.current().load_battles(arena)
    ratings = arena_ratings(battles)
    elo = arena_elo(battles)
    table = ratings.table.assign(online_elo=ratings.table["system"].map(elo))
    systems = list(ratings.counts.systems)
    rates = pd.DataFrame(win_rate_matrix(ratings.counts), index=systems, columns=systems)
    return table, rates, len(battles)


@st.cache_resource(show_spinner="Correcting the judge with the human verdicts…", max_entries=8)
def judged_board(token: str, arena: str) -> JudgeBattleBoard | str | None:
    """The arena's PPI++ Bradley–Terry board when its battles carry human verdicts
    (``human_winner``, #31), the sentence saying why they cannot be used, or None."""
    battles = store.current().load_battles(arena)
    if "human_winner" not in battles.columns:
        return None
    try:
        return judge_battle_board(judged_battles(battles, label=arena))
    except (DataContractError, ValueError) as exc:
        return str(exc)
