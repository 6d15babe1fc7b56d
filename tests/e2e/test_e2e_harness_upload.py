"""Real browser: the Upload page takes a folder of current Inspect ``.eval`` logs (Zstandard zip
members, written by inspect-ai 0.3.285: tests/data/harness-logs-real/inspect/eval), and the
Examples drill-down then shows the sample's input and target and each system's output.

Reference values: tests/data/harness-logs-real/inspect/expected.csv (inspect-ai's own reader)
for sample 1 of task ``arith``.
"""

from __future__ import annotations

import csv
from pathlib import Path
from typing import TYPE_CHECKING

import pytest
from e2e_support import idle, open_context, title

from engine.store import open_store

if TYPE_CHECKING:
    from playwright.sync_api import Browser

pytestmark = pytest.mark.browser

ROOT = Path(__file__).resolve().parents[2]
LOGS = ROOT / "tests" / "data" / "harness-logs-real" / "inspect"
WAIT = 90_000  # ms


def build_store(path: Path) -> None:
    """An empty store: the test uploads the logs itself."""
    open_store(f"sqlite:///{path}").close()


def test_upload_eval_logs_then_see_texts_on_examples(browser: Browser, server: str) -> None:
    with open(LOGS / "expected.csv", newline="") as f:
        sample = next(r for r in csv.DictReader(f)
                      if r["file"].startswith("eval/") and r["id"] == "1" and r["epoch"] == "1")
    context, page, offline, _ = open_context(browser, 1400)
    page.goto(f"{server}/upload")
    title(page, "Upload results", timeout=WAIT)
    page.locator("input[type=file]").set_input_files(
        [str(p) for p in sorted((LOGS / "eval").glob("*.eval"))])
    # one harness output of several files: read together by default (re-runs and settings
    # across logs), the box ticked without a click
    box = page.get_by_role("checkbox", name="Read these files together as one upload")
    box.wait_for(timeout=WAIT)
    assert box.is_checked()
    page.get_by_text("96 scores imported from 4 inspect files").first.wait_for(timeout=WAIT)
    page.get_by_text("2 logs with the same settings (seeds 1, 2) are 2 runs of one system",
                     exact=False).first.wait_for(timeout=WAIT)
    page.get_by_role("button", name="Commit to the store").click()
    page.get_by_text("stored as upload").wait_for(timeout=WAIT)
    page.goto(f"{server}/examples?benchmark=arith&metric=match&ex=1")
    title(page, "Examples · arith", timeout=WAIT)
    idle(page, timeout=WAIT)
    main = page.locator("[data-testid=stMain]")
    main.get_by_text(sample["input"]).first.wait_for(timeout=WAIT)  # the prompt, open, literal
    main.get_by_text("reference", exact=True).first.click()
    main.get_by_text(sample["target"], exact=True).first.wait_for(timeout=WAIT)
    # each system's output on this example: in the scores table
    table = main.locator("table[aria-label='scores on this example']")
    table.wait_for(timeout=WAIT)
    assert "output" in table.inner_text()
    assert sample["completion"] in table.inner_text()
    context.close()
    assert offline.blocked == []
