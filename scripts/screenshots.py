"""Regenerate the page screenshots under ``docs/`` from the bundled demo data.

Run from the repository root: ``.venv/bin/python scripts/screenshots.py [NAME.png ...]``
(no names: every view).

Starts ``streamlit run app/server.py`` on 127.0.0.1 with a temporary SQLite store
(the demo data), opens each view in Debian's chromium and writes one PNG per
view. Every request that leaves 127.0.0.1 is blocked, so the pictures also show
that the pages draw offline.
"""

from __future__ import annotations

import os
import socket
import subprocess
import sys
import tempfile
import time
import urllib.request
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from engine.store import open_store  # noqa: E402

CHROMIUM = "/usr/bin/chromium"
DOCS = ROOT / "docs"
#: file name → (URL path and query, viewport height, text of a tab to open first or "");
#: an optional fourth item is the viewport width (default 1400)
VIEWS: dict[str, tuple[str, int, str] | tuple[str, int, str, int]] = {
    "overall.png": ("", 1400, ""),
    "overall-phone.png": ("", 1600, "", 390),
    "benchmarks.png": ("benchmarks", 1000, ""),
    "benchmarks-phone.png": ("benchmarks", 1400, "", 390),
    "leaderboard.png": ("leaderboard?benchmark=humaneval", 1000, ""),
    "leaderboard-page.png": ("leaderboard?benchmark=humaneval", 2000, ""),
    "leaderboard-phone.png": ("leaderboard?benchmark=humaneval", 1600, "", 390),
    "significance-graph.png": ("leaderboard?benchmark=CRUXEval-input&graph=static&top=40", 1400,
                               "Significance graph"),
    "cliques.png": ("leaderboard?benchmark=CRUXEval-input&graph=groups", 2000, "Groups (cliques)"),
    "pairwise.png": ("pairwise?benchmark=humaneval&a=gpt-3.5-turbo&b=claude-3-opus-20240229",
                     2000, ""),
    "pwpp.png": ("pairwise?benchmark=CRUXEval-input&panel=pwpp", 2000, "P-value plot"),
    "distributions.png": ("distributions?benchmark=CRUXEval-input&dist=ranks",
                          2000, "Bootstrap ranks"),
    "examples.png": ("examples?benchmark=mbpp", 2000, ""),
    "mechanisms.png": ("mechanisms?benchmark=humaneval", 2000, ""),
    "mechanisms-phone.png": ("mechanisms?benchmark=humaneval", 2400, "", 390),
    "compare.png": ("compare?benchmark=humaneval", 2000, ""),
    "compare-phone.png": ("compare?benchmark=humaneval", 2000, "", 390),
    "pairwise-phone.png": ("pairwise?benchmark=humaneval", 2000, "", 390),
    # past 10 systems shown a phone gets the most significant pairs instead of the heatmap
    "pairwise-pairs-phone.png": ("pairwise?benchmark=humaneval&top=40", 1600,
                                 "Adjusted p-values", 390),
    "plan.png": ("plan?benchmark=humaneval", 1400, ""),
    "upload.png": ("upload", 1200, ""),
    "methods.png": ("methods", 1400, ""),
}


def _serve(db: Path) -> tuple[subprocess.Popen[bytes], str]:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    env = {**os.environ, "SIGBOARD_DB_PATH": str(db)}
    env.pop("SIGBOARD_DB_URL", None)
    proc = subprocess.Popen(
        [sys.executable, "-m", "streamlit", "run", "app/server.py", "--server.address",
         "127.0.0.1", "--server.port", str(port), "--server.headless", "true"],
        cwd=ROOT, env=env, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    url = f"http://127.0.0.1:{port}"
    for _ in range(300):
        try:
            with urllib.request.urlopen(f"{url}/_stcore/health", timeout=2):
                return proc, url
        except OSError:
            time.sleep(0.2)
    proc.terminate()
    raise RuntimeError("streamlit did not start")


@contextmanager
def served() -> Iterator[str]:
    """The app on a free local port over a temporary SQLite store with the demo data: its URL;
    the server stops on leaving."""
    with tempfile.TemporaryDirectory() as tmp:
        db = Path(tmp) / "sigboard.db"
        store = open_store(f"sqlite:///{db}")
        store.ensure_demo_data(ROOT / "data")
        store.close()
        proc, url = _serve(db)
        try:
            yield url
        finally:
            proc.terminate()
            proc.wait(timeout=10)


def _offline(route: Any) -> None:
    url = route.request.url
    if url.startswith(("http://127.0.0.1", "ws://127.0.0.1", "data:", "blob:", "about:")):
        route.continue_()
    else:
        route.abort()


def _idle(page: Any) -> None:
    page.wait_for_selector("[data-testid=stApp][data-test-script-state=notRunning]",
                           timeout=120_000)


def _grids(page: Any) -> None:
    """Wait (up to 60 s) until every data grid has drawn: its code loads after the page runs,
    and a picture taken before showed empty boxes (the Plan page's tables)."""
    try:
        page.wait_for_function(
            "() => [...document.querySelectorAll('[data-testid=stDataFrame]')]"
            ".every(e => e.querySelector('canvas') && e.getBoundingClientRect().height > 40)",
            timeout=60_000)
    except Exception as exc:  # a picture anyway; say which view may lack its tables
        print(f"  (data grids not drawn: {exc.__class__.__name__})")


def main() -> None:
    from playwright.sync_api import sync_playwright

    with served() as url, sync_playwright() as p:
        browser = p.chromium.launch(executable_path=CHROMIUM, args=["--no-sandbox"])
        wanted = sys.argv[1:] or list(VIEWS)
        for name, (path, height, tab, *rest) in VIEWS.items():
            if name not in wanted:
                continue
            width = rest[0] if rest else 1400
            context = browser.new_context(viewport={"width": width, "height": height})
            context.route("**/*", _offline)
            page = context.new_page()
            page.goto(f"{url}/{path}")
            page.get_by_role("heading", level=1).first.wait_for(timeout=300_000)
            _idle(page)
            if tab:
                # the tab at the top of the picture, its content below it
                page.get_by_role("tab", name=tab).evaluate(
                    "e => e.scrollIntoView({block: 'start'})")
            _grids(page)
            time.sleep(2)  # charts and the interactive graph settle
            page.screenshot(path=str(DOCS / name))
            print(f"docs/{name}")
            context.close()
        browser.close()


if __name__ == "__main__":
    main()
