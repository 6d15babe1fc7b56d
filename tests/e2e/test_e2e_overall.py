"""Real-browser test of the Overall landing page (issue #25): on the bundled demo data and
after an AlpacaEval upload, the first ranked rows are systems that ran every selected
benchmark, and the headline names the #1 and how many cannot be told apart from it.

Data: the demo store (``data/``, Eval-Arena) and the AlpacaEval 2.0 file in
``tests/data/alpaca-eval`` (tests/data/README.md), uploaded through the store while the
app runs (the app's caches key on the store's data version). Playwright drives Debian's
chromium (``conftest.py``); offline: requests off the loopback server are blocked.
"""

from __future__ import annotations

import re
from pathlib import Path
from typing import TYPE_CHECKING

import pytest
from e2e_support import idle, open_context

from engine import read_results
from engine.store import open_store

if TYPE_CHECKING:
    from playwright.sync_api import Browser, Page

pytestmark = pytest.mark.browser

ROOT = Path(__file__).resolve().parents[2]
ALPACA = ROOT / "tests" / "data" / "alpaca-eval" / "alpaca_eval2_weighted_gpt4_turbo_long.jsonl.gz"
WAIT = 120_000  # ms: cold caches on 2 shared cores
HEADLINE = re.compile(r"^(?P<top>\S+) ranks first of (?P<n>\d+) systems on .+?, but (?P<tied>\d+) "
                      r"systems? cannot be told apart from it")
_DB: list[Path] = []


def build_store(path: Path) -> None:
    """The demo store; its path is kept so that a test can upload to it later."""
    store = open_store(f"sqlite:///{path}")
    store.ensure_demo_data(ROOT / "data")
    store.close()
    _DB.append(path)


def _landing(page: Page, server: str) -> tuple[str, list[dict[str, object]]]:
    """The headline and the ranked rows (rank, system, rank range, group, missing cells)."""
    page.goto(f"{server}/")
    page.get_by_role("heading", level=1).filter(has_text="Overall").wait_for(timeout=WAIT)
    table = page.locator("[data-testid=stMain] table[aria-label=overall]")
    table.wait_for(timeout=WAIT)
    idle(page, timeout=WAIT)
    headline = page.locator("[data-testid=stMain] strong").filter(
        has_text="ranks first").first.inner_text()
    ranked = int(table.get_attribute("data-rows") or 0)
    rows = page.evaluate(
        """(n) => Array.from(document.querySelectorAll(
              '[data-testid=stMain] table[aria-label=overall] tbody tr')).slice(0, n).map(r => ({
              rank: r.cells[0].innerText, system: r.cells[1].innerText,
              range: r.cells[2].innerText, group: r.cells[3].innerText,
              missing: r.querySelectorAll('td.miss').length}))""",
        ranked)
    return headline, rows


def _check(headline: str, rows: list[dict[str, object]]) -> re.Match[str]:
    found = HEADLINE.match(headline)
    assert found, headline
    assert rows and int(found["n"]) == len(rows)
    assert all(r["missing"] == 0 for r in rows[:10]), "no 'not run' cell in the first 10 rows"
    assert all(r["missing"] == 0 for r in rows), "every ranked system ran every benchmark"
    top = rows[0]
    assert found["top"] == top["system"] and top["rank"] == "1"
    # the rank range is the rank set (#29); the headline's count is the group's ties
    assert str(top["range"]).startswith("1"), "the first system's rank set holds rank 1"
    if str(top["group"]).startswith("ties with "):
        assert int(found["tied"]) == int(str(top["group"]).removeprefix("ties with "))
    assert "The best system is" in headline, "the headline names the set for the best"
    return found


def test_landing_page_on_demo_data_then_after_an_alpacaeval_upload(
        browser: Browser, server: str) -> None:
    context, page, offline, _ = open_context(browser)
    headline, rows = _landing(page, server)
    before = _check(headline, rows)
    assert int(before["n"]) == 37  # HumanEval, HumanEval+, MBPP, MBPP+ (data/README.md)
    context.close()

    store = open_store(f"sqlite:///{_DB[-1]}")
    store.import_frame(read_results(ALPACA), filename=ALPACA.name)
    store.close()

    context, page, offline2, _ = open_context(browser)
    headline, rows = _landing(page, server)
    after = _check(headline, rows)
    assert after["top"] == before["top"] and after["n"] == before["n"], \
        "AlpacaEval's 60 systems ran none of the code benchmarks: the block stays"
    assert page.locator("table[aria-label=overall] tr.sep").count() > 0
    context.close()
    assert offline.blocked == [] and offline2.blocked == []


@pytest.mark.parametrize("width", [1400, 390])
def test_overall_table_has_no_inner_scroll_box_and_fits_a_phone(browser: Browser, server: str,
                                                                 width: int) -> None:
    """#27/#29: every selected benchmark shown without an inner scroll box on a desktop, and
    nothing clipped at 390 px (a phone gets one card per system, every cell labelled)."""
    context, page, _, _ = open_context(browser, width=width)
    page.goto(f"{server}/overall")
    table = page.locator("[data-testid=stMain] table[aria-label=overall]")
    table.wait_for(timeout=WAIT)
    idle(page, timeout=WAIT)
    box = page.evaluate("""() => { const d = document.querySelector(
        '[data-testid=stMain] .sb-overall'); return {client: d.clientWidth, scroll: d.scrollWidth,
        high: d.clientHeight, tall: d.scrollHeight, page: document.documentElement.scrollWidth}}""")
    assert box["scroll"] <= box["client"] + 1, box  # no sideways scrolling inside the box
    assert box["tall"] <= box["high"] + 1, box  # no inner vertical scroll box
    assert box["page"] <= width, box  # the page itself is not wider than the screen
    context.close()
