"""One page, one answer in a real browser: on a benchmark uploaded with a cluster column
declared, the Leaderboard opens grouped by it, and its rank chart draws each system's
interval and rank range as the table beside it shows them, at 1,400 and 390 px (where the
chart is hidden and the table stays). Before, the chart drew the ungrouped board.

Data: 4 systems × 48 questions in 8 passages with a system × passage effect, so the
grouped intervals are clearly wider than the ungrouped ones.
"""

from __future__ import annotations

import re
from pathlib import Path
from typing import TYPE_CHECKING

import numpy as np
import pandas as pd
import pytest
from e2e_support import WAIT, idle, open_context, title

from app.ranked import NARROW
from engine.store import open_store

if TYPE_CHECKING:
    from playwright.sync_api import Browser, Page

pytestmark = pytest.mark.browser

SYSTEMS = {"base": 0.0, "candidate-with-a-rather-long-name": 0.06, "other": -0.04,
           "fourth": 0.02}
SHOTS = Path("/tmp")


def build_store(path: Path) -> None:
    """This module's store (conftest.py's ``served``): benchmark ``qa``, cluster column
    ``passage`` declared as on upload."""
    g = np.random.default_rng(5)
    level, by_passage = g.normal(0.5, 0.15, 48), g.normal(0, 0.1, (len(SYSTEMS), 8))
    rows = [("qa", system, f"q{i}", "score",
             float(level[i] + shift + by_passage[k, i % 8] + g.normal(0, 0.1)),
             f"passage-{i % 8}")
            for k, (system, shift) in enumerate(SYSTEMS.items()) for i in range(48)]
    frame = pd.DataFrame(rows, columns=["benchmark", "system", "example_id", "metric", "value",
                                        "passage"])
    store = open_store(f"sqlite:///{path}")
    store.import_frame(frame, filename="qa.csv")
    store.set_benchmark_cluster("qa", "passage")
    store.close()


def _table(page: Page) -> dict[str, dict[str, str]]:
    """System → column → cell text of the ranked table."""
    table = page.locator("[data-testid=stMain] table[aria-label=leaderboard]")
    table.wait_for(timeout=WAIT)
    headers = [h.split("\n")[0].strip() for h in table.locator("thead th").all_inner_texts()]
    rows = page.evaluate(
        "(t) => [...t.tBodies[0].rows].map(r => [...r.cells].map(c => c.textContent.trim()))",
        table.element_handle())
    return {re.sub("[\u2066-\u2069]", "", row[headers.index("system")]):
            dict(zip(headers, row, strict=True)) for row in rows}


def _chart(page: Page) -> dict[str, tuple[float, float, str]]:
    """System → (interval from, to, rank range) from the rank chart's hover texts."""
    chart = page.locator(".sb-svg svg[aria-label$='confidence interval']")
    chart.wait_for(state="attached", timeout=WAIT)
    tips = [re.sub("[\u2066-\u2069]", "", t)
            for t in chart.locator("g > title").all_text_contents()]
    found = {}
    for tip in tips:
        m = re.match(r"(.+): mean \S+, interval (\S+) to (\S+), rank range (.+)$", tip)
        assert m, tip
        found[m[1]] = (float(m[2]), float(m[3]), m[4])
    return found


@pytest.mark.parametrize("width", [1400, 390])
def test_rank_chart_draws_the_tables_grouped_intervals(browser: Browser, server: str,
                                                       width: int) -> None:
    context, page, offline, dialogs = open_context(browser, width)
    errors: list[str] = []
    page.on("pageerror", lambda e: errors.append(str(e)))
    page.goto(f"{server}/leaderboard?benchmark=qa")
    title(page, "Leaderboard · qa")
    idle(page)
    page.get_by_text("8 clusters of examples").first.wait_for(timeout=WAIT)
    assert "cluster=passage" in page.url  # the declared column is the default
    table, chart = _table(page), _chart(page)
    assert set(table) == set(chart) == set(SYSTEMS)
    for system, (low, high, ranks) in chart.items():
        shown = [float(x) for x in table[system]["CI"].strip("[]").split(",")]
        assert np.allclose(shown, [low, high], atol=1e-4), (system, shown, low, high)
        assert ranks == table[system]["rank range"], system
    visible = page.locator(".sb-svg svg[aria-label$='confidence interval']").is_visible()
    assert visible == (width > NARROW), "the chart shows on a wide screen, the table on a phone"
    assert not page.get_by_text("Something went wrong").count()
    assert not page.locator("[data-testid=stException]").count()
    # the app scrolls inside its own container: the parts to look at, one picture each
    page.screenshot(path=str(SHOTS / f"one-answer-leaderboard-{width}.png"))
    shown = (page.locator("[data-testid=stMain] table[aria-label=leaderboard]")
             if width <= NARROW else
             page.locator(".sb-svg svg[aria-label$='confidence interval']"))
    shown.scroll_into_view_if_needed()
    page.screenshot(path=str(SHOTS / f"one-answer-leaderboard-{width}-chart.png"))
    assert not errors and not dialogs and not offline.blocked
    context.close()


def test_significance_graph_draws_the_tables_groups(browser: Browser, server: str) -> None:
    context, page, offline, dialogs = open_context(browser, 1400)
    page.goto(f"{server}/leaderboard?benchmark=qa&graph=static")
    title(page, "Leaderboard · qa")
    idle(page)
    table = _table(page)
    graph = page.locator(".sb-svg svg[aria-label^='significance graph']")
    graph.wait_for(state="attached", timeout=WAIT)
    groups = {}
    for tip in graph.locator("g > title").all_text_contents():
        m = re.match(r"(.+): mean \S+, rank \S+, group (.+)$", re.sub("[\u2066-\u2069]", "", tip))
        if m:
            groups[m[1]] = m[2]
    assert groups == {system: row["group"] for system, row in table.items()}
    graph.scroll_into_view_if_needed()
    page.screenshot(path=str(SHOTS / "one-answer-graph-1400.png"))
    assert not dialogs and not offline.blocked
    context.close()
