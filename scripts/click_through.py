"""Click through the app as a new user would, with a real upload, at desktop and phone width.

Run from the repository root: ``.venv/bin/python scripts/click_through.py OUTDIR [NAME ...]``
(names: only the views whose name contains one of them; ``upload`` also uploads first).

Starts the app like ``scripts/screenshots.py`` (a temporary SQLite store with the demo data,
Debian's chromium, every request leaving 127.0.0.1 blocked), uploads the AlpacaEval file of
``tests/data/alpaca-eval`` through the Upload page (60 systems × 805 examples: past 30
systems, numeric scores) and commits it, then opens each view at 1,400 and at 390 pixels.
Writes one full-length PNG per view and width (``OUTDIR/<view>-<width>.png``, the page's
whole height) and the same cut into screen-sized pieces (``OUTDIR/cut/``) to look at, and
prints how long each view took to show its title. Written for a review of every
screen; nothing checks the pictures: look at them.
"""

from __future__ import annotations

import sys
import time
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "scripts"))

import screenshots as shots  # noqa: E402

ALPACA = ROOT / "tests/data/alpaca-eval/alpaca_eval2_weighted_gpt4_turbo_long.jsonl.gz"
A = "alpaca_eval2_weighted_gpt4_turbo"
#: view name → URL path and query; views on the uploaded benchmark end in "-alpaca"
VIEWS = {
    "overall": "", "overall-pairs": "?otab=pairs", "overall-joint": "?omodel=irt",
    "leaderboard": "leaderboard?benchmark=humaneval",
    "leaderboard-grid": "leaderboard?benchmark=humaneval&table=grid",
    "significance-graph": "leaderboard?benchmark=CRUXEval-input&graph=static",
    "benchmarks": "benchmarks", "pairwise": "pairwise?benchmark=humaneval",
    "compare": "compare?benchmark=humaneval", "plan": "plan?benchmark=humaneval",
    "examples": "examples?benchmark=mbpp",
    "distributions": "distributions?benchmark=CRUXEval-input&dist=ranks",
    "upload": "upload", "methods": "methods", "watch": "watch?benchmark=humaneval",
    "slices": "slices?benchmark=humaneval", "conditions": "conditions?benchmark=humaneval",
    "judge": "judge",
    "leaderboard-alpaca": f"leaderboard?benchmark={A}", "pairwise-alpaca": f"pairwise?benchmark={A}",
    "compare-alpaca": f"compare?benchmark={A}", "mechanisms-alpaca": f"mechanisms?benchmark={A}",
    "watch-alpaca": f"watch?benchmark={A}", "slices-alpaca": f"slices?benchmark={A}",
}
WIDTHS = ((1400, 1000), (390, 844))


def _cut(path: Path, out: Path) -> None:
    from PIL import Image

    with Image.open(path) as im:
        width, height = im.size
        step = 1800 if width < 600 else 1400
        for k, top in enumerate(range(0, height, step)):
            im.crop((0, top, width, min(height, top + step))).save(out / f"{path.stem}-{k}.png")


def _shot(page: Any, out: Path, name: str) -> None:
    """The whole page: Streamlit scrolls inside its main section, so the window grows to hold
    all of it for the picture."""
    shots._idle(page)
    shots._grids(page)
    time.sleep(2)
    tall = page.evaluate("() => Math.max(...[...document.querySelectorAll('section, div')]"
                         ".map(e => e.scrollHeight))")
    size = page.viewport_size
    page.set_viewport_size({"width": size["width"], "height": min(int(tall) + 40, 16000)})
    time.sleep(2)
    shots._idle(page)
    path = out / f"{name}-{size['width']}.png"
    page.screenshot(path=str(path))
    page.set_viewport_size(size)
    _cut(path, out / "cut")
    print(path, flush=True)


def _upload(page: Any, url: str, out: Path) -> None:
    page.goto(f"{url}/upload")
    page.get_by_role("heading", level=1).first.wait_for(timeout=300_000)
    shots._idle(page)
    page.locator("input[type=file]").first.set_input_files(str(ALPACA))
    page.get_by_text("rows read without problems").first.wait_for(timeout=300_000)
    shots._idle(page)
    _shot(page, out, "upload-review")
    page.get_by_role("button", name="Commit to the store").first.click()
    page.get_by_text("Where the new results land").first.wait_for(timeout=300_000)
    _shot(page, out, "upload-done")


def main() -> None:
    from playwright.sync_api import sync_playwright

    out = Path(sys.argv[1])
    (out / "cut").mkdir(parents=True, exist_ok=True)
    wanted = sys.argv[2:]
    upload = not wanted or "upload" in wanted
    views = {name: path for name, path in VIEWS.items()
             if (not wanted or any(w in name for w in wanted))
             and (upload or not name.endswith("-alpaca"))}
    with shots.served() as url, sync_playwright() as p:
        browser = p.chromium.launch(executable_path=shots.CHROMIUM, args=["--no-sandbox"])
        for width, height in WIDTHS:
            context = browser.new_context(viewport={"width": width, "height": height})
            context.route("**/*", shots._offline)
            page = context.new_page()
            if upload and width == WIDTHS[0][0]:
                _upload(page, url, out)
            for name, path in views.items():
                start = time.time()
                page.goto(f"{url}/{path}")
                try:
                    page.get_by_role("heading", level=1).first.wait_for(timeout=240_000)
                    print(f"  {name} at {width} px: title after "
                          f"{time.time() - start:.1f} s", flush=True)
                    _shot(page, out, name)
                except Exception as exc:  # a picture of what is there, and go on
                    page.screenshot(path=str(out / f"FAILED-{name}-{width}.png"))
                    print(f"FAILED {name} {width}: {exc.__class__.__name__}", flush=True)
            context.close()
        browser.close()


if __name__ == "__main__":
    main()
