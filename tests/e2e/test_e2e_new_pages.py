"""Real-browser tests of the Overall and A/B compare pages (Playwright + Debian's chromium).

Offline: every request that does not go to the loopback server is blocked and recorded.
Skipped when chromium or Playwright is missing, unless ``SIGBOARD_REQUIRE_BROWSER=1``.
"""

from __future__ import annotations

import os
import socket
import subprocess
import sys
import time
import urllib.request
from collections.abc import Iterator
from pathlib import Path
from urllib.parse import parse_qs, urlparse

import pytest

from engine.store import open_store

pytestmark = pytest.mark.browser

ROOT = Path(__file__).resolve().parents[2]
CHROMIUM = "/usr/bin/chromium"
ARGS = ["--no-sandbox", "--disable-gpu", "--disable-background-networking",
        "--disable-component-update", "--disable-sync", "--no-first-run"]
WAIT = 120_000  # ms: the overall leaderboard of 190 systems, cold, on 2 shared cores


def _require_browser() -> None:
    missing = None
    try:
        import playwright.sync_api  # noqa: F401
    except ImportError:
        missing = "the playwright package is not installed"
    if missing is None and not os.access(CHROMIUM, os.X_OK):
        missing = f"{CHROMIUM} is missing (apt-get install chromium)"
    if missing:
        if os.environ.get("SIGBOARD_REQUIRE_BROWSER") == "1":
            pytest.fail(f"browser tests are required but {missing}")
        pytest.skip(missing)


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


@pytest.fixture(scope="module")
def server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    _require_browser()
    db = tmp_path_factory.mktemp("e2e_pages") / "sigboard.db"
    store = open_store(f"sqlite:///{db}")
    store.ensure_demo_data(ROOT / "data")
    store.close()
    port = _free_port()
    env = {k: v for k, v in os.environ.items()
           if k not in ("SIGBOARD_DB_URL", "SIGBOARD_UPLOAD_TOKEN", "SIGBOARD_UPLOAD_ALLOW")}
    env.update(SIGBOARD_DB_PATH=str(db), STREAMLIT_BROWSER_GATHER_USAGE_STATS="false")
    proc = subprocess.Popen(
        [sys.executable, "-m", "streamlit", "run", "app/main.py", "--server.address", "127.0.0.1",
         "--server.port", str(port), "--server.headless", "true"],
        cwd=ROOT, env=env, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    url = f"http://127.0.0.1:{port}"
    try:
        deadline = time.monotonic() + 60
        while True:
            if proc.poll() is not None or time.monotonic() > deadline:
                raise RuntimeError("streamlit did not become healthy")
            try:
                with urllib.request.urlopen(f"{url}/_stcore/health", timeout=2) as response:
                    if response.read().strip() == b"ok":
                        break
            except OSError:
                time.sleep(0.3)
        yield url
    finally:
        proc.terminate()
        try:
            proc.wait(timeout=10)
        except subprocess.TimeoutExpired:
            proc.kill()


@pytest.fixture(scope="module")
def browser(server: str) -> Iterator[object]:
    from playwright.sync_api import sync_playwright

    with sync_playwright() as p:
        chromium = p.chromium.launch(executable_path=CHROMIUM, args=ARGS)
        yield chromium
        chromium.close()


class Offline:
    """Blocks every request that does not go to the loopback server; records what it blocked."""

    def __init__(self, context: object) -> None:
        self.blocked: list[str] = []
        context.route("**/*", self._route)

    def _route(self, route: object) -> None:
        url = route.request.url
        host = urlparse(url).hostname or ""
        if url.startswith(("data:", "blob:", "about:", "file:")) or host in ("127.0.0.1",
                                                                             "localhost"):
            route.continue_()
        else:
            self.blocked.append(url)
            route.abort()


def _context(browser: object) -> tuple[object, object, Offline]:
    context = browser.new_context(viewport={"width": 1400, "height": 1000}, accept_downloads=True)
    offline = Offline(context)
    return context, context.new_page(), offline


def _idle(page: object) -> None:
    page.wait_for_selector("[data-testid=stApp][data-test-script-state=notRunning]", timeout=WAIT)


def _overall_headers(page: object) -> list[str]:
    table = page.locator("[data-testid=stMain] table[aria-label=overall]")
    table.wait_for(timeout=WAIT)
    return [h.strip() for h in table.locator("thead th").all_inner_texts()]


def test_overall_renders_offline_and_a_shared_link_reopens_the_choice(
        browser: object, server: str) -> None:
    context, page, offline = _context(browser)
    page.goto(f"{server}/overall")
    page.get_by_role("heading", level=1).filter(has_text="Overall").wait_for(timeout=WAIT)
    headers = _overall_headers(page)
    assert {"humaneval", "mbpp", "lcb_codegen"} <= set(headers)
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


def test_compare_report_downloads_and_opens_offline(browser: object, server: str,
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
