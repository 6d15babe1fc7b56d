"""Mechanisms' "More battle orders" action (#27 item 3): few orders by default (a fast first
view), the engine's Elo default on request; the page states the orders it used.

No external reference: the numbers come from app.data.results.battle_orders.
"""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest
from apptest_support import app, no_exception

from app.data import results
from engine import build_matrix, open_store


@pytest.mark.slow
def test_more_orders_replays_more_and_says_so(db: Path) -> None:
    at = app("views/mechanisms.py", benchmark="mbpp")
    no_exception(at)
    store = open_store(f"sqlite:///{db}")
    m = build_matrix(store.load_frame(benchmark="mbpp", metric="pass1"))
    store.close()
    complete = int((~np.isnan(m.values)).all(axis=0).sum())
    elo, trueskill = results.battle_orders(
        battles=m.n_systems * (m.n_systems - 1) // 2 * complete)
    stated = " ".join(c.value for c in at.caption)
    assert f"{elo} random orders and the skill rating in {trueskill} " in stated
    assert not at.get("progress"), "the progress bar is gone once the results are in"
    at.toggle(key="mechanisms_more").set_value(True).run()
    no_exception(at)
    elo, trueskill = results.battle_orders(more=True)
    assert (elo, trueskill) == (results.MORE_ELO_ORDERS, results.MORE_TRUESKILL_ORDERS)
    stated = " ".join(c.value for c in at.caption)
    assert f"{elo} random orders and the skill rating in {trueskill} " in stated


def test_fewer_default_orders_past_the_replay_budget() -> None:
    # humaneval: 78 systems x 164 examples = 492,492 battles at most -> the default 10 orders;
    # AlpacaEval: 60 x 805 = 1,424,850 -> 3; far past the budget, never fewer than 2; the
    # "more" action is not budgeted. (Numbers: results.REPLAY_BUDGET = 5,000,000.)
    assert results.battle_orders(battles=492_492) == (results.ELO_ORDERS, 1)
    assert results.battle_orders(battles=1_424_850) == (3, 1)
    assert results.battle_orders(battles=10**9) == (results.MIN_ELO_ORDERS, 1)
    assert results.battle_orders(True, 10**9) == (results.MORE_ELO_ORDERS,
                                                   results.MORE_TRUESKILL_ORDERS)
