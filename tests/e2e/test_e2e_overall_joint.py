"""Real-browser test of the Overall page's "Model all systems" choice on the demo store:
every system the joint model can place ranked in one table with its rank set, the chart
drawn, nothing clipped or scrolling sideways at 1,400 and 390 px, and the choice kept in
the URL.

Data: the demo store (``data/``, Eval-Arena; data/README.md). Playwright drives Debian's
chromium (``conftest.py``); offline: requests off the loopback server are blocked.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

import pytest
from e2e_support import idle, open_context

if TYPE_CHECKING:
    from playwright.sync_api import Browser

pytestmark = pytest.mark.browser

WAIT = 120_000  # ms: cold caches on 2 shared cores


@pytest.mark.parametrize("width", [1400, 390])
def test_model_all_systems_in_a_browser(browser: Browser, server: str, width: int) -> None:
    context, page, offline, _ = open_context(browser, width=width)
    page.goto(f"{server}/overall")
    page.get_by_role("heading", level=1).filter(has_text="Overall").wait_for(timeout=WAIT)
    idle(page, timeout=WAIT)
    page.get_by_text("Model all systems").click()
    page.locator("[data-testid=stMain] strong").filter(
        has_text="every system is ranked").first.wait_for(timeout=WAIT)
    idle(page, timeout=WAIT)
    assert "omodel=irt" in page.url
    grid = page.locator("[data-testid=stMain] [data-testid=stDataFrame]").first
    grid.wait_for(timeout=WAIT)
    chart = page.locator("[data-testid=stMain] [data-testid=stVegaLiteChart]").first
    chart.wait_for(timeout=WAIT)
    assert chart.bounding_box() is not None
    box = chart.bounding_box()
    assert box is not None and box["x"] >= 0 and box["x"] + box["width"] <= width + 1, box
    text = page.locator("[data-testid=stMain]").inner_text()
    assert "cells missing" in text and "rest on fewer than half the benchmarks" in text
    assert "left out: lcb_codegen" in text
    wide = page.evaluate("() => document.documentElement.scrollWidth")
    assert wide <= width, wide  # the page itself is not wider than the screen
    page.reload()  # the URL keeps the choice
    page.locator("[data-testid=stMain] strong").filter(
        has_text="every system is ranked").first.wait_for(timeout=WAIT)
    context.close()
    assert offline.blocked == []
