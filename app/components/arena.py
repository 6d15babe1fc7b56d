"""Battle lists (model_a, model_b, winner): their review and commit on the
Upload page, their leaderboards on the Leaderboard page and their win rates on Mechanisms.

Every user-provided string (file, arena and model names) is shown in tables or through
:func:`engine.md_text`, never as live Markdown.
"""

from __future__ import annotations

import hashlib

import pandas as pd
import streamlit as st

from app.data import battles as data
from app.data import store
from app.data.query import ArenaQuery
from engine import DataContractError
from engine.app_support import md_text

_COLUMNS = {"rank": "Rank", "system": "Model", "rating": "Rating", "rating_low": "Low",
            "rating_high": "High", "win_rate": "Win rate", "battles": "Battles",
            "group": "Group", "online_elo": "Online Elo"}


def review(name: str, content: bytes, battles: pd.DataFrame, uploader: str) -> None:
    """A battle list read without problems (in the capped parse child, any table format:
    :func:`app.components.upload_read.parse`): what it holds and the commit form (an arena
    name). Its problems, if any, were shown as any upload's are."""
    st.markdown(f"#### {md_text(name)}")
    models = pd.concat([battles["model_a"], battles["model_b"]]).value_counts()
    st.success(f"{len(battles)} battles among {len(models)} models read without problems "
               "(a battle list: model_a, model_b, winner).", icon=":material/task_alt:")
    if "human_winner" in battles.columns:  # a judged battle list
        labelled = int((battles["human_winner"] != "").sum())
        st.info(f"{labelled} of {len(battles)} battles have a human verdict (human_winner): "
                "the Leaderboard corrects the judge's verdicts (winner) with them, assuming "
                "they were drawn at random.", icon=":material/fact_check:")
    st.dataframe(models.rename_axis("model").rename("battles").reset_index(), hide_index=True)
    with st.form(key=f"battles-{hashlib.sha256(content).hexdigest()[:16]}"):
        arena = st.text_input("Arena (the set these battles belong to)",
                              value=name.split(".")[0], max_chars=120)
        note = st.text_input("Note (optional)", max_chars=200)
        if st.form_submit_button("Commit battles to the store", type="primary",
                                 icon=":material/cloud_upload:"):
            _commit(battles, name, content, str(arena), note, uploader)


def _commit(battles: pd.DataFrame, name: str, content: bytes, arena: str, note: str,
            uploader: str) -> None:
    try:
        report = store.current().import_battles(battles, arena=arena, filename=name,
                                                content=content, uploader=uploader, note=note)
    except (DataContractError, PermissionError, ValueError) as exc:
        st.error(f"{md_text(name)}: nothing was stored: {md_text(str(exc))}")
        return
    if report.duplicate_of is not None:
        st.info(md_text(report.message))
        return
    st.success(md_text(report.message), icon=":material/check_circle:")


def _pick_arena(title: str, key: str) -> ArenaQuery | None:
    """Under ``title``, the query of the stored arena to show (a picker when there are
    several); None (and nothing drawn) when no battle list is stored."""
    token = store.token()
    names = data.arenas(token)
    if not names:
        return None
    st.subheader(title)
    return ArenaQuery(token, str(st.selectbox("Arena", names, key=key) if len(names) > 1
                                 else names[0]))


def arena_boards() -> None:
    """Each stored arena's leaderboard (Bradley–Terry on the battles, LMArena's scale, sandwich
    intervals), below the results leaderboard."""
    q = _pick_arena("Arenas (battle lists)", "arena_board")
    if q is None:
        return
    table, _, n = data.arena_board(q)
    st.caption(f"{n:,} battles of {md_text(q.arena)}. Rating: Bradley–Terry fitted to the "
               "battles (ties as half a win), on the Elo scale (400 points = 10:1 odds, mean "
               "1000); Low–High its 95% sandwich interval; Group: models not shown to differ "
               "share a letter; Online Elo: one pass in the battles' order (K = 4).")
    st.dataframe(table.rename(columns=_COLUMNS), hide_index=True,
                 column_config={c: st.column_config.NumberColumn(format="%.1f")
                                for c in ("Rating", "Low", "High", "Online Elo")}
                 | {"Win rate": st.column_config.NumberColumn(format="%.3f")})
    judged_arena(q)


def arena_mechanisms() -> None:
    """Each stored arena's win rates between every pair of models (ties as half)."""
    q = _pick_arena("Arenas: who beats whom", "arena_mech")
    if q is None:
        return
    table, rates, _ = data.arena_board(q)
    order = table["system"].tolist()
    st.caption(f"Share of {md_text(q.arena)}'s battles the row model won against the column "
               "model (ties as half); models in rating order.")
    st.dataframe(rates.loc[order, order], column_config={
        c: st.column_config.NumberColumn(format="%.2f") for c in order})


_JUDGED = {"rank": "Rank", "system": "Model", "ppi_rating": "Corrected rating",
           "ppi_low": "Low", "ppi_high": "High", "n_human": "Human verdicts",
           "effective_n": "Effective verdicts", "judge_rating": "Judge only",
           "human_rating": "Humans only", "battles": "Battles"}


def judged_arena(q: ArenaQuery) -> None:
    """An arena whose battles carry human verdicts on a random subset: the ratings of
    the judge's battles corrected by them (PPI++ Bradley–Terry), beside judge-only and
    human-only ratings."""
    board = data.judged_board(q)
    if board is None:
        return
    st.markdown("##### Judge corrected by human verdicts")
    if isinstance(board, str):
        st.info(f"The human verdicts cannot correct this judge: {md_text(board)}",
                icon=":material/block:")
        return
    st.caption(f"{board.n_human:,} of {board.n_battles:,} battles have a human verdict. "
               "Corrected rating: Bradley–Terry of the human verdicts, rectifying the "
               "judge's verdicts on every battle (PPI++, Boyeau et al. 2024; λ = "
               f"{board.lam:.2f}), on the same scale; Low–High its 95% interval; Effective "
               "verdicts: human verdicts alone that would be as precise.")
    st.dataframe(board.table[list(_JUDGED)].rename(columns=_JUDGED), hide_index=True,
                 column_config={c: st.column_config.NumberColumn(format="%.1f")
                                for c in ("Corrected rating", "Low", "High", "Judge only",
                                          "Humans only", "Effective verdicts")})
