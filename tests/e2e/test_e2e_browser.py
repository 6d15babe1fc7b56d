"""Real-browser tests: Playwright drives Debian's chromium against ``streamlit run`` on 127.0.0.1.

The server, the browser and the offline contexts are shared with the other e2e modules
(``conftest.py``, ``e2e_support.py``). Skipped when chromium or Playwright is missing,
unless ``SIGBOARD_REQUIRE_BROWSER=1`` (CI), which turns that into a failure.
"""

from __future__ import annotations

import io
import re
import time
from pathlib import Path
from typing import TYPE_CHECKING
from urllib.parse import parse_qs, urlparse

import pytest
from e2e_support import Offline, idle, open_context, title

from engine.store import open_store

if TYPE_CHECKING:
    from playwright.sync_api import Browser, BrowserContext, Locator, Page

pytestmark = pytest.mark.browser

ROOT = Path(__file__).resolve().parents[2]
XSS = "<img src=x onerror=alert(1)>"
WAIT = 90_000  # ms: a cold leaderboard on 2 shared cores


def _xss_csv() -> bytes:
    rows = ["benchmark,system,example_id,metric,value"]
    for i, system in enumerate(["plain-model", XSS, "other-model"]):
        rows += [f"xss-bench,\"{system}\",ex{j},pass1,{int((j + i) % 3 == 0)}" for j in range(30)]
    return ("\n".join(rows) + "\n").encode()


def build_store(path: Path) -> None:
    """This module's store (conftest.py's ``served``): the demo data and a hostile name."""
    store = open_store(f"sqlite:///{path}")
    store.ensure_demo_data(ROOT / "data")
    buffer = io.BytesIO(_xss_csv())
    buffer.name = "xss.csv"
    store.import_file(buffer)
    store.close()


def _context(browser: Browser, width: int = 1400) -> tuple[BrowserContext, Page, Offline, list[str]]:
    return open_context(browser, width)


def _title(page: Page, text: str) -> None:
    title(page, text, timeout=WAIT)


def _idle(page: Page) -> None:
    """Wait until the app has finished its current run (so widgets and links are current)."""
    idle(page, timeout=WAIT)


def _choose(page: Page, label: str, option: str) -> None:
    _idle(page)
    _choose_open(page, label)
    page.get_by_role("option", name=option, exact=True).first.click()


def _choose_open(page: Page, label: str) -> None:
    """Open the select box ``label`` (and the popover it is in)."""
    box = page.get_by_role("combobox", name=label, exact=True)
    _open_picker(page, box, label)
    box.click()


def _open_picker(page: Page, box: Locator, label: str) -> None:
    """Pickers live in popovers: the benchmark's ("Benchmark … · metric …") and the pair's
    ("A vs B") buttons open them."""
    if box.is_visible():
        return
    name = r"^Benchmark " if label in ("Benchmark", "Metric") else r" vs "
    page.get_by_role("button", name=re.compile(name)).first.click()
    box.wait_for(timeout=WAIT)


def _selected(page: Page, label: str) -> str:
    box = page.get_by_role("combobox", name=label, exact=True)
    _open_picker(page, box, label)
    return box.input_value()


def _wait_url(page: Page, name: str, value: str) -> None:
    page.wait_for_function(
        "([k, v]) => new URL(location.href).searchParams.get(k) === v", arg=[name, value],
        timeout=WAIT)


def test_shared_link_reopens_the_same_view(browser: Browser, server: str) -> None:
    context, page, offline, _ = _context(browser)
    page.goto(f"{server}/leaderboard?benchmark=humaneval")
    _title(page, "Leaderboard · humaneval")
    _choose(page, "Benchmark", "mbpp")
    _title(page, "Leaderboard · mbpp")
    _wait_url(page, "benchmark", "mbpp")
    table = page.locator("[data-testid=stMain] table[aria-label=leaderboard]")
    row_link = table.locator("tbody tr").nth(2).get_by_role("link")
    page.wait_for_function("() => [...document.querySelectorAll('table[aria-label=leaderboard] a')]"
                           ".some(a => a.href.includes('/pairwise') && "
                           "a.href.includes('benchmark=mbpp'))", timeout=WAIT)
    _idle(page)  # the mbpp run has finished drawing, as when a person reads it and clicks on
    opened = row_link.inner_text().strip()
    row_link.click()  # a system in the ranked table: its pair with the best system
    _title(page, "Pairwise · mbpp")
    _idle(page)
    assert _selected(page, "System A") == opened
    _choose_open(page, "System B")
    option = page.get_by_role("option").nth(2)
    option.wait_for(timeout=WAIT)
    pick = option.inner_text().strip()
    assert pick and pick != _selected(page, "System B")
    option.click()
    _wait_url(page, "b", pick)
    shared = page.evaluate("location.href")
    a = _selected(page, "System A")
    context.close()

    fresh, page2, offline2, _ = _context(browser)
    page2.goto(shared)
    _title(page2, "Pairwise · mbpp")
    assert _selected(page2, "System A") == a
    assert _selected(page2, "System B") == pick
    query = parse_qs(urlparse(page2.url).query)
    assert query["benchmark"] == ["mbpp"] and query["b"] == [pick]
    fresh.close()
    assert offline.blocked == [] and offline2.blocked == []


def test_upload_bad_then_good_file(browser: Browser, server: str, tmp_path: Path) -> None:
    bad, good = tmp_path / "bad.csv", tmp_path / "good.csv"
    bad.write_text("benchmark,system,example_id,metric,value\nmbpp,x,Mbpp/2,pass1,oops\n")
    good.write_text("benchmark,system,example_id,metric,value\n"
                    + "".join(f"e2e-bench,sys-{s},ex{j},pass1,{(j * s) % 2}\n"
                              for s in (1, 2, 3) for j in range(20)))
    context, page, offline, _ = _context(browser)
    page.goto(f"{server}/upload")
    _title(page, "Upload results")
    page.locator("input[type=file]").set_input_files(str(bad))
    page.get_by_text("problem(s) found").wait_for(timeout=WAIT)
    assert page.get_by_role("button", name="Commit to the store").count() == 0
    page.locator("input[type=file]").set_input_files(str(good))
    page.get_by_text("rows read without problems").wait_for(timeout=WAIT)
    page.get_by_role("button", name="Commit to the store").click()
    page.get_by_text("stored as upload").wait_for(timeout=WAIT)
    page.get_by_role("link", name="See e2e-bench on the leaderboard").click()
    _title(page, "Leaderboard · e2e-bench")
    context.close()
    assert offline.blocked == []


def test_significance_graph_renders_offline(browser: Browser, server: str) -> None:
    context, page, offline, _ = _context(browser)
    page.goto(f"{server}/leaderboard?benchmark=humaneval&graph=interactive")
    _title(page, "Leaderboard · humaneval")
    graph = page.frame_locator("iframe").first
    graph.locator("#mynetwork canvas").wait_for(timeout=WAIT)
    page.get_by_role("tab", name="Significance graph").click()
    # the static graph: an SVG drawn on the server, inline in the page
    page.locator("[data-testid=stMain] [class*=st-key-sb_wide_graph] svg[role=img]"
                 ).first.wait_for(timeout=WAIT)
    page.get_by_role("tab", name="Groups (cliques)").click()
    page.locator("[data-testid=stVegaLiteChart] canvas, [data-testid=stVegaLiteChart] svg"
                 ).first.wait_for(timeout=WAIT)
    page.locator("[data-testid=stMain] table[aria-label=groups]").wait_for(timeout=WAIT)
    context.close()
    assert offline.blocked == [], offline.blocked


def test_script_in_a_system_name_is_shown_as_text(browser: Browser, server: str) -> None:
    context, page, offline, dialogs = _context(browser)
    page.goto(f"{server}/pairwise?benchmark=xss-bench&a=plain-model&b={XSS}")
    _title(page, "Pairwise · xss-bench")
    assert _selected(page, "System B") == XSS, "the name is shown literally"
    page.locator("[data-testid=stMarkdownContainer]").filter(has_text="significantly different"
                                                             ).filter(has_text=XSS
                                                                      ).first.wait_for(timeout=WAIT)
    page.goto(f"{server}/leaderboard?benchmark=xss-bench&graph=interactive")
    _title(page, "Leaderboard · xss-bench")
    board = page.locator("[data-testid=stMain] table[aria-label=leaderboard]")
    board.get_by_text(XSS, exact=True).wait_for(timeout=WAIT)
    page.frame_locator("iframe").first.locator("#mynetwork canvas").wait_for(timeout=WAIT)
    time.sleep(1)
    assert page.locator("img[src=x]").count() == 0
    assert page.frame_locator("iframe").first.locator("img[src=x]").count() == 0
    assert dialogs == []
    context.close()
    assert offline.blocked == []


def test_distributions_page_from_the_sidebar_draws_offline(browser: Browser, server: str) -> None:
    context, page, offline, _ = _context(browser)
    page.goto(f"{server}/leaderboard?benchmark=mbpp")
    _title(page, "Leaderboard · mbpp")
    _idle(page)
    page.locator("[data-testid=stSidebar]").get_by_role("link", name="Distributions").click()
    _title(page, "Distributions · mbpp")
    page.get_by_role("tab", name="Bootstrap ranks").click()
    _wait_url(page, "dist", "ranks")
    page.locator("[data-testid=stMain] svg[role=img]").first.wait_for(timeout=WAIT)
    shared = page.evaluate("location.href")
    fresh, page2, offline2, _ = _context(browser)
    page2.goto(shared)
    _title(page2, "Distributions · mbpp")
    page2.get_by_role("tab", name="Bootstrap ranks", selected=True).wait_for(timeout=WAIT)
    page2.locator("[data-testid=stMain] svg[role=img]").first.wait_for(timeout=WAIT)
    context.close()
    fresh.close()
    assert offline.blocked == [] and offline2.blocked == []


def test_overview_path_opens_the_overview(browser: Browser, server: str) -> None:
    context, page, offline, _ = _context(browser)
    page.goto(f"{server}/overview")
    _title(page, "Benchmarks")
    _idle(page)
    assert page.get_by_text("Page not found").count() == 0
    context.close()
    assert offline.blocked == []


def test_a_page_finds_its_server_at_the_first_try(browser: Browser, server: str) -> None:
    """app/server.py names the server in the page (app/fast_start.py): without it the browser
    first asks /leaderboard/_stcore/health, gets a 404 and retries after a back-off."""
    context, page, offline, _ = _context(browser)
    failed: list[str] = []
    health: list[str] = []
    page.on("response", lambda r: r.status >= 400 and failed.append(f"{r.status} {r.url}"))
    page.on("request", lambda r: "/_stcore/health" in r.url and health.append(urlparse(r.url).path))
    page.goto(f"{server}/leaderboard?benchmark=humaneval")
    _title(page, "Leaderboard")
    _idle(page)
    context.close()
    assert failed == []
    assert health and set(health) == {"/_stcore/health"}
    assert offline.blocked == []


def test_phone_width_shows_mean_and_interval_without_sideways_scrolling(
        browser: Browser, server: str) -> None:
    context, page, offline, _ = _context(browser, width=390)
    page.goto(f"{server}/leaderboard?benchmark=humaneval")
    _title(page, "Leaderboard · humaneval")
    _idle(page)
    table = page.locator("[data-testid=stMain] table[aria-label=leaderboard]")
    table.wait_for(timeout=WAIT)
    for header in ("mean", "CI"):
        box = table.locator("th", has_text=header).first.bounding_box()
        assert box is not None and box["x"] >= 0 and box["x"] + box["width"] <= 390, header
    wide = page.evaluate("() => document.documentElement.scrollWidth")
    assert wide <= 391, f"the page scrolls sideways ({wide} px)"
    inner = page.evaluate("(t) => t.parentElement.scrollWidth - t.parentElement.clientWidth",
                          table.element_handle())
    assert inner <= 1, "the table does not scroll sideways either"
    context.close()
    assert offline.blocked == []


def test_leaderboard_reads_at_100_systems(browser: Browser, server: str) -> None:
    """The rank/CI plot comes first; the ranked table has no inner scroll box."""
    context, page, offline, _ = _context(browser, width=1280)
    page.goto(f"{server}/leaderboard?benchmark=humaneval")
    _title(page, "Leaderboard · humaneval")
    _idle(page)
    # the first chart of the page is the rank/CI plot (an SVG written on the server)
    first = page.locator("[data-testid=stMain] svg[role=img]").first
    first.wait_for(timeout=WAIT)
    assert page.evaluate("(c) => !!c.closest('[class*=st-key-sb_wide_ranks]')",
                         first.element_handle()), "the first chart is the rank/CI plot"
    box = page.locator("[data-testid=stMain] .sb-ranked").first
    sizes = page.evaluate("(b) => [b.scrollHeight, b.clientHeight]", box.element_handle())
    assert sizes[0] <= sizes[1] + 1, "all 78 rows in the page, no inner scroll"
    context.close()
    assert offline.blocked == []


def test_examples_heatmap_fits_its_column(browser: Browser, server: str) -> None:
    context, page, offline, _ = _context(browser, width=1280)
    page.goto(f"{server}/examples?benchmark=CRUXEval-input&etab=scores")
    _title(page, "Examples · CRUXEval-input")
    chart = page.locator("[data-testid=stVegaLiteChart]").last
    chart.locator("canvas, svg").first.wait_for(timeout=WAIT)
    _idle(page)
    main = page.locator("[data-testid=stMainBlockContainer]").bounding_box()
    drawn = chart.locator("canvas, svg").first.bounding_box()
    assert drawn["x"] + drawn["width"] <= main["x"] + main["width"] + 1, "no overflow"
    context.close()
    assert offline.blocked == []
