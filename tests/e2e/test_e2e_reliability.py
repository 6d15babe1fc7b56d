"""Repeated tries in a real browser: a CSV of agents' tries (``run``, 0/1 per try) uploaded
through the Upload page opens the Leaderboard's reliability view — pass^k and pass@k per
system ranked by pass^k at the URL's k, the k-curves beside the table drawing the table's
numbers — and the Examples page's flaky list, at 1,400 and 390 px, nothing wider than the
screen.

Data: ``tests/app/reliability_support.py`` (4 agents × 40 tasks × 8 tries, seeded).
"""

from __future__ import annotations

import re
import sys
from pathlib import Path
from typing import TYPE_CHECKING

import pytest
from e2e_support import WAIT, idle, open_context, title

from engine.store import open_store

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "app"))
from reliability_support import (  # type: ignore[import-not-found]  # noqa: E402
    AGENTS,
    BENCHMARK,
    write_csv,
)

if TYPE_CHECKING:
    from playwright.sync_api import Browser, Page

pytestmark = pytest.mark.browser

SHOTS = Path("/tmp")
_INVISIBLE = "[\u2060\u2066-\u2069]"


def build_store(path: Path) -> None:
    """An empty store: the first test uploads the tries itself."""
    open_store(f"sqlite:///{path}").close()


def _table(page: Page, label: str) -> list[dict[str, str]]:
    """The rows of the static table ``label``: column → cell text."""
    table = page.locator(f"[data-testid=stMain] table[aria-label='{label}']")
    table.wait_for(timeout=WAIT)
    headers = [re.sub(_INVISIBLE, "", h.split("\n")[0].strip())
               for h in table.locator("thead th").all_inner_texts()]
    rows = page.evaluate(
        "(t) => [...t.tBodies[0].rows].map(r => [...r.cells].map(c => c.textContent.trim()))",
        table.element_handle())
    return [dict(zip(headers, (re.sub(_INVISIBLE, "", c) for c in row), strict=True))
            for row in rows]


def _wide_enough(page: Page, width: int) -> None:
    """Nothing on the page is wider than the screen (no sideways scroll, nothing cut off)."""
    assert page.evaluate("document.documentElement.scrollWidth") <= width
    for label in ("reliability", "flaky per system", "flaky examples", "pair reliability"):
        boxes = page.locator(f"table[aria-label='{label}']")
        if boxes.count():  # the table fits its box: no inner sideways scroll either
            fits = page.evaluate("(t) => t.parentElement.scrollWidth <= "
                                 "t.parentElement.clientWidth + 1", boxes.element_handle())
            assert fits, label


@pytest.fixture(scope="module")
def uploaded(browser: Browser, server: str, tmp_path_factory: pytest.TempPathFactory) -> str:
    """The tries uploaded as a user does: a CSV on the Upload page, committed."""
    csv = write_csv(tmp_path_factory.mktemp("tries") / "agent_tasks.csv")
    context, page, offline, _ = open_context(browser, 1400)
    page.goto(f"{server}/upload")
    title(page, "Upload results")
    page.locator("input[type=file]").set_input_files(str(csv))
    page.get_by_role("button", name="Commit to the store").click()
    page.get_by_text("stored as upload").wait_for(timeout=WAIT)
    context.close()
    assert offline.blocked == []
    return server


@pytest.mark.parametrize("width", [1400, 390])
def test_reliability_view_and_its_k_curves(browser: Browser, uploaded: str, width: int) -> None:
    context, page, offline, dialogs = open_context(browser, width)
    errors: list[str] = []
    page.on("pageerror", lambda e: errors.append(str(e)))
    page.goto(f"{uploaded}/leaderboard?benchmark={BENCHMARK}&table=reliability&k=4")
    title(page, f"Leaderboard · {BENCHMARK}")
    idle(page)
    rows = _table(page, "reliability")
    assert {r["system"] for r in rows} == set(AGENTS)
    assert [int(r["rank"]) for r in rows] == [1, 2, 3, 4]
    shares = [float(r["pass^4"].rstrip("%")) for r in rows]
    assert shares == sorted(shares, reverse=True), "ranked by pass^4"
    page.get_by_text("all k tries of a task succeed").first.wait_for(timeout=WAIT)
    chart = page.locator(".sb-svg svg[aria-label^='pass^k']")
    chart.wait_for(state="attached", timeout=WAIT)
    drawn = {}
    for tip in chart.locator("g > title").all_text_contents():
        m = re.match(r"(.+): pass\^k at k = 4 (\S+), interval (\S+) to (\S+),",
                     re.sub(_INVISIBLE, "", tip))
        if m:
            drawn[m[1]] = (m[2], f"{m[3].rstrip('%')}–{m[4]}")
    assert drawn == {r["system"]: (r["pass^4"], r["pass^4 interval"]) for r in rows}
    curves = page.locator(".sb-svg svg[aria-label*='against k']")
    for i in range(2):  # pass^k and pass@k both shown, also on a phone (stacked)
        curves.nth(i).wait_for(timeout=WAIT)
    assert curves.count() == 2
    _wide_enough(page, width)
    page.screenshot(path=str(SHOTS / f"reliability-leaderboard-{width}.png"))
    chart.scroll_into_view_if_needed()
    page.screenshot(path=str(SHOTS / f"reliability-curves-{width}.png"))
    # the k chosen in the page goes to the address bar
    box = page.get_by_role("combobox", name=re.compile("tries per task"))
    # scrolled back first: a list opened by a click that also scrolls the page closes again
    box.scroll_into_view_if_needed()
    page.wait_for_timeout(500)
    box.click()
    page.get_by_role("option", name="2", exact=True).first.click()
    page.wait_for_function("() => new URL(location.href).searchParams.get('k') === '2'",
                           timeout=WAIT)
    idle(page)
    assert "pass^2" in {h for r in _table(page, "reliability") for h in r}
    assert not errors and not dialogs and not offline.blocked
    context.close()


@pytest.mark.parametrize("width", [1400, 390])
def test_flaky_examples_list(browser: Browser, uploaded: str, width: int) -> None:
    context, page, offline, dialogs = open_context(browser, width)
    page.goto(f"{uploaded}/examples?benchmark={BENCHMARK}")
    title(page, f"Examples · {BENCHMARK}")
    idle(page)
    counts = _table(page, "flaky per system")
    listed = _table(page, "flaky examples")
    assert {r["system"] for r in counts} == set(AGENTS)
    assert sum(int(r["flaky tasks"]) for r in counts) == len(listed) > 0
    for row in listed:  # the rule: its tries both passed and failed
        assert 0 < int(row["successes"]) < int(row["tries"]), row
    page.get_by_text("excludes both always-fail (0%) and always-pass (100%)").first.wait_for(
        timeout=WAIT)
    _wide_enough(page, width)
    page.locator("table[aria-label='flaky examples']").scroll_into_view_if_needed()
    page.screenshot(path=str(SHOTS / f"reliability-flaky-{width}.png"))
    assert not dialogs and not offline.blocked
    context.close()


@pytest.mark.parametrize("width", [1400, 390])
@pytest.mark.parametrize(("path", "a", "b"), [
    ("pairwise?a=agent-steady&b=agent-rough", "agent-steady", "agent-rough"),
    ("compare?base=agent-base&cand=agent-bold", "agent-bold", "agent-base")])
def test_pair_pass_k_difference(browser: Browser, uploaded: str, width: int, path: str, a: str,
                                b: str) -> None:
    context, page, offline, dialogs = open_context(browser, width)
    errors: list[str] = []
    page.on("pageerror", lambda e: errors.append(str(e)))
    page.goto(f"{uploaded}/{path}&benchmark={BENCHMARK}")
    idle(page)
    rows = _table(page, "pair reliability")
    assert [r["measure"] for r in rows] == ["pass^8", "pass@8"]
    assert "difference (points)" in rows[0]
    said = re.sub(_INVISIBLE, "", page.locator("[data-testid=stMain]").inner_text())
    assert f"Differences {a} − {b}, paired over the 40 tasks" in said
    page.get_by_text("Repeated tries: pass^8 and pass@8").first.wait_for(timeout=WAIT)
    _wide_enough(page, width)
    table = page.locator("table[aria-label='pair reliability']")
    table.scroll_into_view_if_needed()
    page.screenshot(path=str(SHOTS / f"reliability-{path.split('?')[0]}-{width}.png"))
    assert not errors and not dialogs and not offline.blocked
    context.close()
