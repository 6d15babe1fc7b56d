"""Page speed in headless Chromium: sigboard's leaderboard vs a minimal one-line Streamlit page.

Run: ``.venv/bin/python benchmarks/bench_app.py [--trials N]``

In one run, on this machine, it starts two ``streamlit run`` servers on 127.0.0.1 —
sigboard (a temporary SQLite store with the bundled demo data) and a page whose
whole script is ``st.write("ready")`` — and measures with Debian's chromium:

1. **cold load**: a fresh browser context opens the page; time until the content
   is on screen (sigboard: all 78 rows of the ``humaneval`` ranked table — the
   page's default view — plus the caption naming the test and alpha; minimal
   page: its text). The first sigboard load also fills the server's caches
   (``server cold``); later ones are fresh browsers on a warm server.
   Target: ≤ 1.5 × the minimal page.
2. **settings change → updated table**: on a loaded leaderboard, alpha is set to
   a new value in the sidebar's test settings (Enter); time until the table of
   the new run is on screen (its caption names the new alpha and the table is no
   longer stale). Each value is new, so the engine really recomputes (no cache
   hit). Target: ≤ 1 s.

Every request that does not go to 127.0.0.1 is counted (it must be 0).
"""

from __future__ import annotations

import argparse
import os
import socket
import statistics
import subprocess
import sys
import tempfile
import time
import urllib.request
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from engine.store import open_store  # noqa: E402

CHROMIUM = "/usr/bin/chromium"
ARGS = ["--no-sandbox", "--disable-gpu", "--disable-background-networking",
        "--disable-component-update", "--disable-sync", "--no-first-run"]
LOCAL = ("http://127.0.0.1", "ws://127.0.0.1", "data:", "blob:", "about:")
TABLE_READY = """([alpha]) => {
  const caption = [...document.querySelectorAll('[data-testid=stCaptionContainer]')]
    .some(c => c.innerText.includes('(alpha = ' + alpha + ')'));
  const table = document.querySelector('[data-testid=stMain] table[aria-label=leaderboard]');
  const box = table && table.closest('[data-testid=stElementContainer]');
  return caption && box && box.getAttribute('data-stale') !== 'true'
    && table.tBodies[0].rows.length === Number(table.dataset.rows);
}"""


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def _serve(script: str, env: dict[str, str]) -> tuple[subprocess.Popen[bytes], str]:
    port = _free_port()
    proc = subprocess.Popen(
        [sys.executable, "-m", "streamlit", "run", script, "--server.address", "127.0.0.1",
         "--server.port", str(port), "--server.headless", "true"],
        cwd=ROOT, env=env, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    url = f"http://127.0.0.1:{port}"
    for _ in range(200):
        try:
            with urllib.request.urlopen(f"{url}/_stcore/health", timeout=2) as r:
                if r.read().strip() == b"ok":
                    return proc, url
        except OSError:
            time.sleep(0.2)
    raise RuntimeError(f"{script} did not start")


def _store(path: Path) -> None:
    store = open_store(f"sqlite:///{path}")
    store.ensure_demo_data(ROOT / "data")  # the repository's bundled demo files
    store.close()


class Outside:
    """Counts requests that leave 127.0.0.1 (listening only: routing every request through
    Playwright would slow the page with many script chunks more than the minimal one)."""

    def __init__(self) -> None:
        self.urls: list[str] = []

    def __call__(self, request) -> None:  # noqa: ANN001
        if not request.url.startswith(LOCAL):
            self.urls.append(request.url)


def _load(browser, url: str, ready, outside: Outside) -> tuple[float, object, object]:  # noqa: ANN001
    context = browser.new_context(viewport={"width": 1400, "height": 1000})
    page = context.new_page()
    page.on("request", outside)
    start = time.perf_counter()
    page.goto(url)
    ready(page)
    return time.perf_counter() - start, context, page


def _change_alpha(page, value: float) -> float:  # noqa: ANN001
    field = page.get_by_label("Alpha", exact=True)
    if not field.is_visible():  # the settings live in a sidebar popover
        page.get_by_role("button", name="Test settings").click()
    field.fill(f"{value:.3f}")
    start = time.perf_counter()
    field.press("Enter")
    page.wait_for_function(TABLE_READY, arg=[f"{value:g}"], timeout=60_000)
    return time.perf_counter() - start


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--trials", type=int, default=9)
    args = parser.parse_args()
    from playwright.sync_api import sync_playwright

    with tempfile.TemporaryDirectory() as tmp:
        db = Path(tmp) / "sigboard.db"
        _store(db)
        minimal = Path(tmp) / "minimal.py"
        minimal.write_text('import streamlit as st\nst.write("ready")\n')
        env = {**os.environ, "SIGBOARD_DB_PATH": str(db),
               "STREAMLIT_BROWSER_GATHER_USAGE_STATS": "false"}
        env.pop("SIGBOARD_DB_URL", None)
        servers = [_serve("app/main.py", env), _serve(str(minimal), env)]
        try:
            _measure(sync_playwright, servers[0][1], servers[1][1], args.trials)
        finally:
            for proc, _ in servers:
                proc.terminate()
                proc.wait(timeout=10)


def _measure(sync_playwright, app_url: str, minimal_url: str, trials: int) -> None:  # noqa: ANN001
    outside = Outside()
    board_url = f"{app_url}/leaderboard?benchmark=humaneval&metric=pass1"

    def board_ready(page) -> None:  # noqa: ANN001
        page.wait_for_function(TABLE_READY, arg=["0.05"], timeout=120_000)

    def minimal_ready(page) -> None:  # noqa: ANN001
        page.get_by_text("ready", exact=True).wait_for(timeout=60_000)

    with sync_playwright() as p:
        browser = p.chromium.launch(executable_path=CHROMIUM, args=ARGS)
        first, context, _ = _load(browser, board_url, board_ready, outside)
        context.close()
        minimal, board = [], []
        for _ in range(trials):  # interleaved, so both see the same machine load
            seconds, context, _ = _load(browser, minimal_url, minimal_ready, outside)
            minimal.append(seconds)
            context.close()
            seconds, context, _ = _load(browser, board_url, board_ready, outside)
            board.append(seconds)
            context.close()
        _, context, page = _load(browser, board_url, board_ready, outside)
        changes = [_change_alpha(page, 0.05 + 0.001 * (i + 1)) for i in range(trials)]
        context.close()
        browser.close()

    m_min, m_board = statistics.median(minimal), statistics.median(board)
    print(f"cold load, minimal one-line page : median {m_min:.2f} s  "
          f"({', '.join(f'{s:.2f}' for s in minimal)})")
    print(f"cold load, humaneval leaderboard : median {m_board:.2f} s  "
          f"({', '.join(f'{s:.2f}' for s in board)}); ratio {m_board / m_min:.2f} "
          "(target <= 1.5)")
    print(f"  first load, server caches cold : {first:.2f} s (ratio {first / m_min:.2f})")
    print(f"settings change -> updated table : median {statistics.median(changes):.2f} s, "
          f"max {max(changes):.2f} s  ({', '.join(f'{s:.2f}' for s in changes)}) (target <= 1 s)")
    print(f"requests leaving 127.0.0.1       : {len(outside.urls)} {outside.urls[:3]}")


if __name__ == "__main__":
    main()
