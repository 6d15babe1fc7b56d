"""Slices in a real browser (#18 item 3): a slice's link opens the Leaderboard restricted to it,
and the same link in a fresh browser context (no session, no cache of its own) shows the
same table.

Data: HumanEval from the demo data (no per-example attribute) and AlpacaEval 2.0's first
8 systems (tests/data/README.md), whose ``subset`` says which of 5 source datasets each
of the 805 instructions comes from.
"""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING

import pytest
from e2e_support import WAIT, idle, open_context, title

from engine import read_results
from engine.store import open_store

if TYPE_CHECKING:
    from playwright.sync_api import Browser, Page

pytestmark = pytest.mark.browser

ROOT = Path(__file__).resolve().parents[2]
ALPACA = ROOT / "tests" / "data" / "alpaca-eval" / "alpaca_eval2_weighted_gpt4_turbo_long.jsonl.gz"
BENCH = "alpaca_eval2_weighted_gpt4_turbo"


def build_store(path: Path) -> None:
    """This module's store (conftest.py's ``served``): HumanEval and 8 AlpacaEval systems."""
    df = read_results(ALPACA)
    keep = sorted(df["system"].unique())[:8]
    part = df[df["system"].isin(keep)].reset_index(drop=True)
    part.attrs = df.attrs
    store = open_store(f"sqlite:///{path}")
    store.import_file(ROOT / "data" / "humaneval.jsonl.gz")
    store.import_frame(part, filename="alpaca_eval 8 systems")
    store.close()


def _cells(page: Page, label: str) -> list[list[str]]:
    """Every body row of the table ``label`` as its cells' texts."""
    table = page.locator(f"[data-testid=stMain] table[aria-label='{label}']")
    table.wait_for(timeout=WAIT)
    rows = page.evaluate(
        "(t) => [...t.tBodies[0].rows].map(r => [...r.cells].map(c => c.innerText.trim()))",
        table.element_handle())
    return [list(map(str, row)) for row in rows]


def _koala_means(page: Page) -> dict[str, float]:
    """System → mean in the koala column of the Slices table (first line of the cell)."""
    headers = page.locator(
        "[data-testid=stMain] table[aria-label=slices] thead th").all_inner_texts()
    column = next(i for i, h in enumerate(headers) if h.split("\n")[0].strip() == "koala")
    return {row[0]: float(row[column].split("\n")[0].rstrip("%"))
            for row in _cells(page, "slices")}


def test_slice_link_opens_the_same_leaderboard_in_a_fresh_browser(
        browser: Browser, server: str) -> None:
    context, page, offline, _ = open_context(browser)
    page.goto(f"{server}/slices?benchmark={BENCH}")
    title(page, f"Slices · {BENCH}")
    idle(page)
    per_slice = _koala_means(page)
    assert len(per_slice) == 8
    page.locator("table[aria-label=slices] thead a", has_text="koala").click()
    title(page, f"Leaderboard · {BENCH}")
    page.get_by_text("Only examples with").first.wait_for(timeout=WAIT)
    idle(page)
    note = page.get_by_text("Only examples with").first.inner_text()
    assert "koala" in note and "(156 of 805)" in note  # AlpacaEval: 156 koala instructions
    board = _cells(page, "leaderboard")
    headers = page.locator(
        "[data-testid=stMain] table[aria-label=leaderboard] thead th").all_inner_texts()
    system, mean = headers.index("system"), headers.index("mean")
    # the leaderboard of the slice agrees with the Slices table (3 decimals there, 4 here)
    shown = {row[system]: float(row[mean]) for row in board}
    assert shown.keys() == per_slice.keys()
    assert all(abs(shown[s] - per_slice[s]) <= 5.5e-4 for s in shown), (shown, per_slice)
    shared = page.evaluate("location.href")
    assert "scol=subset" in shared and "sval=koala" in shared
    context.close()

    fresh, page2, offline2, _ = open_context(browser)
    page2.goto(shared)
    title(page2, f"Leaderboard · {BENCH}")
    page2.get_by_text("Only examples with").first.wait_for(timeout=WAIT)
    idle(page2)
    assert _cells(page2, "leaderboard") == board, "the same table from the link alone"
    fresh.close()
    assert offline.blocked == [] and offline2.blocked == []


def test_slices_page_fits_a_phone_and_says_when_there_is_nothing_to_split(
        browser: Browser, server: str) -> None:
    context, page, offline, _ = open_context(browser, width=390)
    page.goto(f"{server}/slices?benchmark={BENCH}")
    title(page, f"Slices · {BENCH}")
    idle(page)
    assert len(_cells(page, "slices")) == 8
    wide = page.evaluate("() => document.documentElement.scrollWidth")
    assert wide <= 391, f"the page scrolls sideways ({wide} px)"
    page.goto(f"{server}/slices?benchmark=humaneval")
    title(page, "Slices · humaneval")
    page.get_by_text("has no information about its examples").wait_for(timeout=WAIT)
    context.close()
    assert offline.blocked == []
