"""Real-browser checks at a phone's width (issue #27): past 30 systems the Pairwise heatmap
gives way to the table of the most significant pairs, and the 2×2 table fits 390 px; at
1,400 px the heatmap shows and the phone table does not.

Playwright drives Debian's chromium (conftest.py); skipped when either is missing, unless
``SIGBOARD_REQUIRE_BROWSER=1``.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

import pytest
from e2e_support import idle, open_context, title

if TYPE_CHECKING:
    from playwright.sync_api import Browser

pytestmark = pytest.mark.browser

WAIT = 180_000
ADDRESS = "pairwise?benchmark=humaneval&top=40"
PAIRS = "table[aria-label='most significant pairs']"
HEATMAP = "[class*=st-key-sb_heatmap] svg[role=img]"
TWO_BY_TWO = "table[aria-label='2×2 table']"


def test_phone_shows_the_pairs_table_instead_of_the_heatmap(browser: Browser,
                                                             server: str) -> None:
    context, page, offline, _ = open_context(browser, width=390)
    try:
        page.goto(f"{server}/{ADDRESS}")
        title(page, "Pairwise", timeout=WAIT)
        idle(page, timeout=WAIT)
        pairs = page.locator(PAIRS)
        pairs.wait_for(timeout=WAIT)
        assert pairs.is_visible() and not page.locator(HEATMAP).is_visible()
        assert pairs.locator("tbody tr").count() == 30
        for table in (pairs, page.locator(TWO_BY_TWO)):  # nothing scrolls sideways
            box = table.evaluate("t => [t.scrollWidth, t.parentElement.clientWidth]")
            assert box[0] <= box[1] + 1, box
        assert not offline.blocked
    finally:
        context.close()


def test_desktop_keeps_the_heatmap(browser: Browser, server: str) -> None:
    context, page, _, _ = open_context(browser, width=1400)
    try:
        page.goto(f"{server}/{ADDRESS}")
        title(page, "Pairwise", timeout=WAIT)
        idle(page, timeout=WAIT)
        page.locator(HEATMAP).wait_for(timeout=WAIT)
        assert not page.locator(PAIRS).is_visible()
    finally:
        context.close()
