"""Real browser: a promptfoo output with its cost and latency (written by promptfoo 0.123.1:
tests/data/harness-logs-real/promptfoo/results.json) uploaded through the Upload page, whose
preview lists the usage, then the Trade-offs page at 1,400 and 390 px: the chart drawn
inside the page with labelled axes, the table's systems, the headline, nothing cut off.

Reference values: the store's rows after the upload through ``pareto_set`` (the page's
engine result).
"""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING

import pytest
from e2e_support import idle, open_context, title

from engine.app_support import pareto_set
from engine.store import open_store

if TYPE_CHECKING:
    from playwright.sync_api import Browser

pytestmark = pytest.mark.browser

ROOT = Path(__file__).resolve().parents[2]
LOG = ROOT / "tests" / "data" / "harness-logs-real" / "promptfoo" / "results.json"
WAIT = 90_000  # ms
_DB: dict[str, Path] = {}


def build_store(path: Path) -> None:
    """An empty store: the test uploads the log itself."""
    open_store(f"sqlite:///{path}").close()
    _DB["path"] = path


@pytest.fixture(scope="module")
def uploaded(browser: Browser, server: str) -> str:
    """The promptfoo output uploaded as a user does, its usage seen in the preview."""
    context, page, offline, _ = open_context(browser, 1400)
    page.goto(f"{server}/upload")
    title(page, "Upload results", timeout=WAIT)
    page.locator("input[type=file]").set_input_files(str(LOG))
    page.get_by_text("Cost and speed the log recorded").first.wait_for(timeout=WAIT)
    page.get_by_role("button", name="Commit to the store").click()
    page.get_by_text("stored as upload").wait_for(timeout=WAIT)
    context.close()
    assert offline.blocked == []
    return server


@pytest.mark.parametrize("width", [1400, 390])
def test_trade_offs_chart_and_table_fit(browser: Browser, uploaded: str, width: int) -> None:
    store = open_store(f"sqlite:///{_DB['path']}")
    want = pareto_set(store.load_frame(benchmark="sig_arith"), "pass", "latency_ms")
    store.close()
    context, page, offline, _ = open_context(browser, width, downloads=True)
    page.goto(f"{uploaded}/pareto?benchmark=sig_arith&metric=pass&cost=latency_ms")
    title(page, "Trade-offs · sig_arith", timeout=WAIT)
    idle(page, timeout=WAIT)
    main = page.locator("[data-testid=stMain]")
    main.get_by_text(want.headline[:40], exact=False).first.wait_for(timeout=WAIT)
    chart = main.locator("[data-testid=stVegaLiteChart]").first
    drawn = chart.locator("canvas, svg").first
    drawn.wait_for(timeout=WAIT)
    page.wait_for_timeout(500)  # Vega lays out after the element appears
    block = page.locator("[data-testid=stMainBlockContainer]").bounding_box()
    box = drawn.bounding_box()
    assert block is not None and box is not None
    assert box["x"] >= block["x"] - 1 and box["x"] + box["width"] <= block["x"] + block["width"] + 1
    assert box["width"] > 0.6 * block["width"], "the chart uses the column"
    assert page.evaluate("document.documentElement.scrollWidth") <= width, "no sideways scroll"
    page.screenshot(path=f"/tmp/sigboard-pareto-{width}.png", full_page=True)
    # the table beside it: one row per system of the engine's result (a canvas grid: its
    # CSV download holds the same rows)
    main.locator("[data-testid=stDataFrame]").last.wait_for(timeout=WAIT)
    with page.expect_download() as got:
        main.get_by_role("button", name="Download the table (CSV)").click()
    rows = Path(got.value.path()).read_text(encoding="utf-8").splitlines()
    assert [r.split(",")[0] for r in rows[1:]] == list(want.table["system"])
    context.close()
    assert offline.blocked == []
