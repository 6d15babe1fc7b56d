"""``leaderboard BATTLES --judge winner --human human_winner`` (Boyeau et al. 2024): the
arena leaderboard of a judge's battles corrected by human verdicts on a random subset."""

from __future__ import annotations

import argparse
from pathlib import Path
from typing import TYPE_CHECKING

from ._common import check_size, emit, upload_limits, wants_json
from ._json import judge_battles_json
from ._text import interval

if TYPE_CHECKING:
    import pandas as pd

__all__ = ["battle_frame", "judge_battle_leaderboard"]


def battle_frame(data: list[str]) -> pd.DataFrame | None:
    """The battle list DATA holds when it is one battle-list file (model_a, model_b, winner,
    with its other columns, e.g. human_winner), else None; read by :func:`engine.ingest` in
    the memory-capped child, as every upload."""
    from ..intake import ingest

    if len(data) != 1 or "://" in data[0] or not Path(data[0]).is_file():
        return None
    check_size(data[0])
    got = ingest(data[0], limits=upload_limits())
    return got.frame if got.kind == "battles" else None


def judge_battle_leaderboard(args: argparse.Namespace, frame: pd.DataFrame) -> int:
    """PPI++ Bradley-Terry ratings: ``--judge`` the judge's verdict column (default winner),
    ``--human`` the human verdicts (default human_winner, empty where not labelled)."""
    from ..io._battles_judged import HUMAN_WINNER, judged_battles
    from ..products._judge_battles import judge_battle_board
    from ._stats_common import test_options

    judge, human = args.judge or "winner", args.human or HUMAN_WINNER
    battles = judged_battles(frame, label=Path(args.data[0]).name, judge=judge, human=human)
    board = judge_battle_board(battles, options=test_options(args), judge=judge, human=human)
    if wants_json(args):
        emit(judge_battles_json(board), None, "json")
        return 0
    t = board.table
    shown = t[["rank", "system"]].assign(
        ppi_rating=t["ppi_rating"].round(1),
        ppi_ci=[interval(lo, hi) for lo, hi in zip(t["ppi_low"], t["ppi_high"], strict=True)],
        n_human=t["n_human"], battles=t["battles"], effective_n=t["effective_n"].round(1),
        judge_rating=t["judge_rating"].round(1), human_rating=t["human_rating"].round(1))
    emit({}, shown, "table")
    sig = board.pairs["significant"]
    print(f"\n{judge} (judge, {board.n_battles} battles) rectified by {human} "
          f"({board.n_human} human verdicts; PPI++ Bradley-Terry, lambda {board.lam:.3f}): "
          f"{int(sig.sum())} of {len(sig)} pairs differ ({board.correction} at alpha "
          f"{board.alpha})")
    return 0
