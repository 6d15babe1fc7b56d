"""Real-browser tests of the Overall and A/B compare pages (Playwright + Debian's chromium).

Offline: every request that does not go to the loopback server is blocked and recorded.
The server (over the demo data), the browser and the offline contexts are shared with the
other e2e modules (``conftest.py``, ``e2e_support.py``). Skipped when chromium or
Playwright is missing, unless ``SIGBOARD_REQUIRE_BROWSER=1``.
"""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING
from urllib.parse import parse_qs, urlparse

import pytest
from e2e_support import Offline, idle, open_context

if TYPE_CHECKING:
    from playwright.sync_api import Browser, BrowserContext, Page

pytestmark = pytest.mark.browser

WAIT = 120_000  # ms: the overall leaderboard of 190 systems, cold, on 2 shared cores


def _context(browser: Browser) -> tuple[BrowserContext, Page, Offline]:
    context, page, offline, _ = open_context(browser, downloads=True)
    return context, page, offline


def _idle(page: Page) -> None:
    idle(page, timeout=WAIT)


def _overall_headers(page: Page) -> list[str]:
    table = page.locator("[data-testid=stMain] table[aria-label=overall]")
    table.wait_for(timeout=WAIT)
    return [h.strip() for h in table.locator("thead th").all_inner_texts()]


def test_overall_renders_offline_and_a_shared_link_reopens_the_choice(
        browser: Browser, server: str) -> None:
    context, page, offline = _context(browser)
    page.goto(f"{server}/overall")
    page.get_by_role("heading", level=1).filter(has_text="Overall").wait_for(timeout=WAIT)
    headers = _overall_headers(page)
    assert {"humaneval", "mbpp"} <= set(headers)  # the largest complete block (#25)
    assert page.locator("table[aria-label=overall] td.miss").count() > 0, "missing cells shown"
    # choose two benchmarks (through the link, as a person pastes one), then weigh one
    page.goto(f"{server}/overall?bench=mbpp&bench=humaneval")
    page.wait_for_function("() => { const t = document.querySelector("
                           "'[data-testid=stMain] table[aria-label=overall]'); return t && "
                           "t.tHead.rows[0].cells.length === 7; }", timeout=WAIT)
    _idle(page)
    page.get_by_role("button", name="Weights").click()
    field = page.get_by_role("spinbutton", name="humaneval", exact=True)
    field.fill("3")
    field.press("Enter")
    page.wait_for_function("() => new URL(location.href).searchParams.getAll('bw')"
                           ".includes('humaneval:3')", timeout=WAIT)
    page.get_by_text("humaneval 75%").first.wait_for(timeout=WAIT)
    shared = page.evaluate("location.href")
    context.close()

    fresh, page2, offline2 = _context(browser)
    page2.goto(shared)
    page2.get_by_text("humaneval 75%").first.wait_for(timeout=WAIT)
    assert _overall_headers(page2)[5:] == ["mbpp", "humaneval"]
    query = parse_qs(urlparse(page2.url).query)
    assert query["bench"] == ["mbpp", "humaneval"] and query["bw"] == ["humaneval:3"]
    from playwright.sync_api import expect

    _idle(page2)  # the popover's fields are filled by the script run that may still be going
    page2.get_by_role("button", name="Weights").click()
    expect(page2.get_by_role("spinbutton", name="humaneval", exact=True)).to_have_value(
        "3.00", timeout=WAIT)
    fresh.close()
    assert offline.blocked == [] and offline2.blocked == []


def test_compare_report_downloads_and_opens_offline(browser: Browser, server: str,
                                                    tmp_path: Path) -> None:
    context, page, offline = _context(browser)
    page.goto(f"{server}/compare?benchmark=humaneval")
    page.get_by_role("heading", level=1).filter(has_text="A/B compare").wait_for(timeout=WAIT)
    page.get_by_text("Verdict:").first.wait_for(timeout=WAIT)
    _idle(page)
    verdict = page.get_by_text("Verdict:").first.inner_text()
    with page.expect_download(timeout=WAIT) as info:
        page.get_by_role("button", name="Download HTML report").click()
    report = tmp_path / "report.html"
    info.value.save_as(report)
    text = report.read_text()
    assert "<script" not in text.lower()
    context.close()

    fresh, page2, offline2 = _context(browser)
    page2.goto(report.as_uri())
    shown = page2.locator("#verdict").inner_text()
    assert shown.startswith("Verdict:") and shown.split(":", 1)[1].strip() in verdict
    svg = page2.locator("figure svg").first
    svg.wait_for(timeout=10_000)
    assert svg.bounding_box()["width"] > 100, "the embedded chart is drawn"
    assert page2.locator("table[aria-label=models] tbody tr").count() >= 5
    fresh.close()
    assert offline.blocked == [] and offline2.blocked == []
