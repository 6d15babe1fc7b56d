"""Mechanisms' "More battle orders" action (#27 item 3): few orders by default (a fast first
view), the engine's Elo default on request; the page states the orders it used.

No external reference: the numbers come from app.data.results.battle_orders.
"""

from __future__ import annotations

from pathlib import Path

import pytest
from apptest_support import app, no_exception

from app.data import results


@pytest.mark.slow
def test_more_orders_replays_more_and_says_so(db: Path) -> None:
    at = app("views/mechanisms.py", benchmark="mbpp")
    no_exception(at)
    elo, trueskill = results.battle_orders()
    stated = " ".join(c.value for c in at.caption)
    assert f"{elo} random orders and the skill rating in {trueskill} " in stated
    assert not at.get("progress"), "the progress bar is gone once the results are in"
    at.toggle(key="mechanisms_more").set_value(True).run()
    no_exception(at)
    elo, trueskill = results.battle_orders(more=True)
    assert (elo, trueskill) == (results.MORE_ELO_ORDERS, results.MORE_TRUESKILL_ORDERS)
    stated = " ".join(c.value for c in at.caption)
    assert f"{elo} random orders and the skill rating in {trueskill} " in stated
