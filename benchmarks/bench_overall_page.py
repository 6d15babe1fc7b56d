"""Page speed of the Overall, Mechanisms and A/B compare pages in headless Chromium.

Run: ``.venv/bin/python benchmarks/bench_overall_page.py [--trials N]``

Starts two ``streamlit run`` servers on 127.0.0.1 — sigboard on a temporary store
with the bundled demo data (7 benchmarks, 190 systems) and a one-line page
(``st.write("ready")``) — and measures with Debian's chromium:

1. **Overall, cold load**: a fresh browser context opens ``/overall``; time until
   every row of the systems × benchmarks table is on screen and not stale. The
   first load also fills the server's caches (reported as ``server cold``).
   Target: ≤ 1.5 × the minimal page's cold load.
2. **Overall, settings change**: on the loaded page a benchmark's weight is set to
   a new value (Weights popover, Enter); time until the table of the new run is on
   screen (the caption shows the new weights). Each value is new, so the engine
   recomputes (no cache hit). Also a change back to an earlier value (cache hit).
   Target: ≤ 1 s.
3. **Mechanisms on humaneval**: from the loaded leaderboard, its sidebar link is
   clicked; time until the rankings table is on screen — first with only the
   leaderboard cached (the mechanisms computed then), then cached (target ≤ 1 s);
   also cold loads of the page in fresh browsers.
4. **A/B compare**: cold and warm loads of ``/compare?benchmark=humaneval``.

Requests leaving 127.0.0.1 are counted (must be 0).
"""

from __future__ import annotations

import argparse
import os
import statistics
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "benchmarks"))

from bench_app import ARGS, CHROMIUM, Outside, _serve  # noqa: E402

from engine.store import open_store  # noqa: E402


def _store(path: Path) -> None:
    """The bundled demo data only (7 benchmarks, 190 systems), as a fresh install has."""
    store = open_store(f"sqlite:///{path}")
    store.ensure_demo_data(ROOT / "data")
    store.close()

TABLE_READY = """([label, text]) => {
  const table = document.querySelector(`[data-testid=stMain] table[aria-label=${label}]`);
  const box = table && table.closest('[data-testid=stElementContainer]');
  const caption = !text || [...document.querySelectorAll('[data-testid=stCaptionContainer]')]
    .some(c => c.innerText.includes(text));
  const idle = document.querySelector('[data-testid=stApp]')
    ?.getAttribute('data-test-script-state') === 'notRunning';
  return caption && idle && box && box.getAttribute('data-stale') !== 'true'
    && table.tBodies[0].rows.length === Number(table.dataset.rows);
}"""
VERDICT_READY = """() => [...document.querySelectorAll('[data-testid^=stAlert]')]
  .some(a => a.innerText.includes('Verdict:'))"""


def _open(browser, url: str, ready: str, args: list[str], outside: Outside):  # noqa: ANN001, ANN202
    context = browser.new_context(viewport={"width": 1400, "height": 1000})
    page = context.new_page()
    page.on("request", outside)
    start = time.perf_counter()
    page.goto(url)
    page.wait_for_function(ready, arg=args, timeout=300_000)
    return time.perf_counter() - start, context, page


def _set_weight(page, name: str, value: float, shares: str) -> float:  # noqa: ANN001
    field = page.get_by_role("spinbutton", name=name, exact=True)
    if not field.is_visible():
        page.get_by_role("button", name="Weights").click()
    field.fill(f"{value:g}")
    start = time.perf_counter()
    field.press("Enter")
    page.wait_for_function(TABLE_READY, arg=["overall", shares], timeout=300_000)
    return time.perf_counter() - start


def _follow(page, link: str, table: str) -> float:  # noqa: ANN001
    """Click a sidebar link (no page reload); seconds until that page's table is on screen."""
    start = time.perf_counter()
    page.locator("[data-testid=stSidebar]").get_by_role("link", name=link, exact=True).click()
    page.wait_for_function(TABLE_READY, arg=[table, ""], timeout=300_000)
    return time.perf_counter() - start


def _summary(label: str, times: list[float]) -> str:
    if not times:
        return f"{label}: –"
    return (f"{label}: median {statistics.median(times):.2f} s, min {min(times):.2f}, "
            f"max {max(times):.2f} (n={len(times)})")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--trials", type=int, default=5)
    args = parser.parse_args()
    from playwright.sync_api import sync_playwright

    with tempfile.TemporaryDirectory() as tmp:
        db = Path(tmp) / "sigboard.db"
        _store(db)
        minimal = Path(tmp) / "minimal.py"
        minimal.write_text('import streamlit as st\nst.write("ready")\n')
        env = {**os.environ, "SIGBOARD_DB_PATH": str(db),
               "STREAMLIT_BROWSER_GATHER_USAGE_STATS": "false",
               # others may edit the checkout meanwhile: no "source changed" reruns mid-run
               "STREAMLIT_SERVER_FILE_WATCHER_TYPE": "none"}
        env.pop("SIGBOARD_DB_URL", None)
        servers = [_serve("app/main.py", env), _serve(str(minimal), env)]
        try:
            with sync_playwright() as p:
                browser = p.chromium.launch(executable_path=CHROMIUM, args=ARGS)
                _measure(browser, servers[0][1], servers[1][1], args.trials)
                browser.close()
        finally:
            for proc, _ in servers:
                proc.terminate()
                proc.wait(timeout=10)


def _measure(browser, app: str, minimal: str, trials: int) -> None:  # noqa: ANN001
    outside = Outside()
    ready_min = "() => [...document.querySelectorAll('p')].some(p => p.innerText === 'ready')"
    overall_url = f"{app}/overall"
    first, context, _ = _open(browser, overall_url, TABLE_READY, ["overall", ""], outside)
    context.close()
    print(f"Overall, server cold (engine computes, caches fill): {first:.2f} s")
    cold, mini = [], []
    for _ in range(trials):
        t, context, _ = _open(browser, minimal, ready_min, [], outside)
        mini.append(t)
        context.close()
        t, context, _ = _open(browser, overall_url, TABLE_READY, ["overall", ""], outside)
        cold.append(t)
        context.close()
    print(_summary("minimal page, cold load", mini))
    print(_summary("Overall, cold load (fresh browser, warm server)", cold))
    print(f"  ratio of medians: {statistics.median(cold) / statistics.median(mini):.2f} "
          "(target ≤ 1.5)")

    _, context, page = _open(browser, f"{app}/overall?bench=humaneval&bench=mbpp", TABLE_READY,
                             ["overall", ""], outside)
    fresh, back = [], []
    for i in range(trials):
        weight = 2.0 + i  # humaneval w, mbpp 1: shares w/(w+1)
        fresh.append(_set_weight(page, "humaneval", weight,
                                 f"humaneval {weight / (weight + 1):.0%}"))
        back.append(_set_weight(page, "humaneval", 2.0, "humaneval 67%"))
    context.close()
    print(_summary("Overall (2 benchmarks), weight changed to a new value → table", fresh))
    print(_summary("Overall (2 benchmarks), weight changed back (cached) → table", back))

    board = f"{app}/leaderboard?benchmark=humaneval&metric=pass1"
    _, context, page = _open(browser, board, TABLE_READY, ["leaderboard", ""], outside)
    clicks = []
    for _ in range(trials + 1):  # the first click computes the mechanisms
        clicks.append(_follow(page, "Mechanisms", "mechanisms"))
        _follow(page, "Leaderboard", "leaderboard")
    context.close()
    print(f"Mechanisms humaneval, from the leaderboard's sidebar link, computed: {clicks[0]:.2f} s")
    print(_summary("Mechanisms humaneval, from the leaderboard's sidebar link, cached",
                   clicks[1:]))
    mech = f"{app}/mechanisms?benchmark=humaneval&metric=pass1"
    warm = []
    for _ in range(trials):
        t, context, _ = _open(browser, mech, TABLE_READY, ["mechanisms", ""], outside)
        warm.append(t)
        context.close()
    print(_summary("Mechanisms humaneval, cached, cold load (fresh browser)", warm))

    ab = f"{app}/compare?benchmark=humaneval&metric=pass1"
    t, context, _ = _open(browser, ab, VERDICT_READY, [], outside)
    context.close()
    print(f"A/B compare humaneval, computed: {t:.2f} s")
    warm = []
    for _ in range(trials):
        t, context, _ = _open(browser, ab, VERDICT_READY, [], outside)
        warm.append(t)
        context.close()
    print(_summary("A/B compare humaneval, cached (fresh browser)", warm))
    print(f"requests leaving 127.0.0.1: {len(outside.urls)}")


if __name__ == "__main__":
    main()
