"""Real-browser tests of the navigation (issue #27): every page opened by its address and by a
reload shows the whole sidebar with its sections, and old addresses still open their page.

The demo data has no example or system metadata, so Slices and Conditions stop early here:
their links must be drawn all the same. Playwright drives Debian's chromium (conftest.py);
skipped when either is missing, unless ``SIGBOARD_REQUIRE_BROWSER=1``.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

import pytest
from e2e_support import idle, open_context, title

if TYPE_CHECKING:
    from playwright.sync_api import Browser, Page

pytestmark = pytest.mark.browser

WAIT = 180_000  # ms: a cold page on 2 shared cores
SECTIONS = ["Leaderboards", "Compare", "Diagnose", "Data", "Help"]
LINKS = ["Overall", "Leaderboard", "Benchmarks", "Pairwise", "A/B compare", "Examples",
         "Distributions", "Mechanisms", "Slices", "Conditions", "Upload", "Methods"]
#: address -> the page's title (old addresses included)
PAGES = {
    "": "Overall", "overall": "Overall", "leaderboard?benchmark=humaneval": "Leaderboard",
    "benchmarks": "Benchmarks", "overview": "Benchmarks", "pairwise?benchmark=humaneval": "Pairwise",
    "compare?benchmark=humaneval": "A/B compare", "plan?benchmark=humaneval": "Plan",
    "examples?benchmark=humaneval": "Examples", "distributions?benchmark=humaneval": "Distributions",
    "mechanisms?benchmark=humaneval": "Mechanisms", "slices?benchmark=humaneval": "Slices",
    "conditions?benchmark=humaneval": "Conditions", "upload": "Upload results", "methods": "Methods",
}


def _sidebar(page: Page) -> tuple[list[str], list[str]]:
    """The sidebar's section headings and link labels, as drawn."""
    side = page.locator("[data-testid=stSidebar]")
    side.locator("[data-testid=stPageLink]").last.wait_for(timeout=WAIT)
    sections = [t.strip() for t in side.locator("[data-testid=stCaptionContainer] strong")
                .all_inner_texts()]
    # a link's text is its icon's ligature, then its label
    links = [t.strip().splitlines()[-1].strip()
             for t in side.locator("[data-testid=stPageLink]").all_inner_texts()]
    return sections, links


def _check(page: Page) -> None:
    # The sidebar arrives as one batch of elements, but the browser may be read while it is
    # still adding them (seen on CI's first pages, while the server compiled Numba's
    # kernels in its start-up thread): read again for a few seconds before judging.
    for _ in range(20):
        sections, links = _sidebar(page)
        if sections[:5] == SECTIONS and [x for x in links if x in LINKS] == LINKS:
            return
        page.wait_for_timeout(500)
    assert sections[:5] == SECTIONS, sections
    assert [x for x in links if x in LINKS] == LINKS, links


@pytest.mark.parametrize("address", list(PAGES))
def test_a_direct_link_and_a_reload_show_the_whole_navigation(
        browser: Browser, server: str, address: str) -> None:
    context, page, offline, _ = open_context(browser)
    try:
        page.goto(f"{server}/{address}")
        title(page, PAGES[address], timeout=WAIT)
        _check(page)  # while or after the page computes: the links are there
        idle(page, timeout=WAIT)
        _check(page)
        page.reload()
        title(page, PAGES[address], timeout=WAIT)
        idle(page, timeout=WAIT)
        _check(page)
        assert not offline.blocked
    finally:
        context.close()
