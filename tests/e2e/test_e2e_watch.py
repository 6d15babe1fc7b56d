"""Real-browser test of the Watch page (issue #30): the confidence-sequence chart is drawn
by the server and shows offline (Playwright + Debian's chromium; every request leaving the
machine is blocked and recorded). Skipped when chromium or Playwright is missing, unless
``SIGBOARD_REQUIRE_BROWSER=1``."""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING

import numpy as np
import pandas as pd
import pytest
from e2e_support import idle, open_context, title

from engine.store import open_store

if TYPE_CHECKING:
    from playwright.sync_api import Browser

pytestmark = pytest.mark.browser

WAIT = 120_000


def build_store(path: Path) -> None:
    """Three uploads of 120 examples: a champion and two challengers, one clearly worse."""
    rng = np.random.default_rng(4)
    store = open_store(f"sqlite:///{path}")
    for k in range(3):
        ex = [f"e{i}" for i in range(k * 120, (k + 1) * 120)]
        store.import_frame(pd.concat([pd.DataFrame({
            "benchmark": "arrive", "metric": "acc", "system": s, "example_id": ex,
            "value": rng.binomial(1, p, 120).astype(float)})
            for s, p in (("champ", 0.8), ("close", 0.78), ("weak", 0.45))]),
            filename=f"batch{k}.csv")
    store.close()


def test_the_sequence_chart_renders_offline(browser: Browser, server: str) -> None:
    context, page, offline, dialogs = open_context(browser)
    page.goto(f"{server}/watch?benchmark=arrive")
    title(page, "Watch")
    idle(page, timeout=WAIT)
    chart = page.locator("[data-testid=stMain] .sb-svg > svg").first
    chart.wait_for(timeout=WAIT)
    box = chart.bounding_box()
    assert box is not None and box["width"] > 200 and box["height"] > 100
    assert chart.locator("rect").count() == 3, "one band per upload"
    label = chart.get_attribute("aria-label") or ""
    assert "confidence sequence" in label
    assert offline.blocked == [] and dialogs == []
    context.close()
