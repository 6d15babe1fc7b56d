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

``--baseline REV`` also serves a committed revision of the app (``git archive`` into a
temporary folder, its own store) and measures its Overall page in the same run,
alternating with the current one, so before/after figures share the machine's load.
``--only overall`` skips the Mechanisms and A/B compare pages. ``--all`` adds weight
changes on the landing page itself (all benchmarks).
"""

from __future__ import annotations

import argparse
import os
import statistics
import subprocess
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


def _baseline(rev: str, folder: Path) -> Path:
    """``rev``'s app, engine, data and settings in ``folder``, with its own demo store."""
    folder.mkdir()
    archive = subprocess.run(["git", "archive", rev, "app", "engine", "data", ".streamlit"],
                             cwd=ROOT, check=True, capture_output=True).stdout
    subprocess.run(["tar", "-x", "-C", str(folder)], input=archive, check=True)
    db = folder / "sigboard.db"
    code = ("import sys; sys.path.insert(0, sys.argv[1]); from pathlib import Path; "
            "from engine.store import open_store; s = open_store('sqlite:///' + sys.argv[2]); "
            "s.ensure_demo_data(Path(sys.argv[1]) / 'data'); s.close()")
    subprocess.run([sys.executable, "-c", code, str(folder), str(db)], cwd=folder, check=True)
    return db


def _serve_in(folder: Path, env: dict[str, str]) -> tuple[subprocess.Popen[bytes], str]:
    """``streamlit run app/server.py`` from ``folder`` (its settings, its code); a revision from
    before ``app/server.py`` existed runs ``app/main.py``."""
    entry = folder / "app" / "server.py"
    return _serve(str(entry if entry.is_file() else folder / "app" / "main.py"), env, cwd=folder)


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
    parser.add_argument("--baseline", metavar="REV", help="also measure this committed revision")
    parser.add_argument("--only", choices=["overall"], help="measure the Overall page only")
    parser.add_argument("--all", action="store_true",
                        help="also change a weight on the landing page (all benchmarks)")
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
        servers = [_serve("app/server.py", env), _serve(str(minimal), env)]
        apps = {"current": servers[0][1]}
        if args.baseline:
            base_db = _baseline(args.baseline, Path(tmp) / "baseline")
            servers.append(_serve_in(Path(tmp) / "baseline", {**env,
                                                               "SIGBOARD_DB_PATH": str(base_db)}))
            apps[f"baseline {args.baseline}"] = servers[-1][1]
        try:
            with sync_playwright() as p:
                browser = p.chromium.launch(executable_path=CHROMIUM, args=ARGS)
                outside = Outside()
                _measure_overall(browser, apps, servers[1][1], args.trials, outside, args.all)
                if args.only is None:
                    _measure(browser, servers[0][1], args.trials, outside)
                print(f"requests leaving 127.0.0.1: {len(outside.urls)}")
                browser.close()
        finally:
            for proc, _ in servers:
                proc.terminate()
                proc.wait(timeout=10)


def _weights(browser, apps: dict[str, str], trials: int, outside: Outside,  # noqa: ANN001
             query: str, field: str, other: int, title: str) -> None:
    """Weight changes of ``field`` (the other chosen benchmarks weigh 1 each) on each app."""
    pages = {}
    for name, app in apps.items():
        _, context, page = _open(browser, f"{app}/overall?{query}", TABLE_READY,
                                 ["overall", ""], outside)
        pages[name] = (context, page)
    fresh: dict[str, list[float]] = {n: [] for n in apps}
    back: dict[str, list[float]] = {n: [] for n in apps}
    total = 1 + other
    for i in range(trials):
        weight = 2.0 + i  # w for the field, 1 for each other: shares w / (w + other)
        for name, (_, page) in pages.items():
            fresh[name].append(_set_weight(page, field, weight,
                                           f"{field} {weight / (weight + other):.0%}"))
            back[name].append(_set_weight(page, field, 2.0, f"{field} {2 / (2 + other):.0%}"))
    for name, (context, _) in pages.items():
        context.close()
        print(_summary(f"[{name}] Overall ({total} benchmarks){title}, weight changed to a new "
                       "value → table", fresh[name]))
        print(_summary(f"[{name}] Overall ({total} benchmarks){title}, weight changed back "
                       "(cached) → table", back[name]))


def _measure_overall(browser, apps: dict[str, str], minimal: str, trials: int,  # noqa: ANN001
                     outside: Outside, everything: bool) -> None:
    ready_min = "() => [...document.querySelectorAll('p')].some(p => p.innerText === 'ready')"
    for name, app in apps.items():
        first, context, _ = _open(browser, f"{app}/overall", TABLE_READY, ["overall", ""],
                                  outside)
        context.close()
        print(f"[{name}] Overall, server cold (engine computes, caches fill): {first:.2f} s")
    cold: dict[str, list[float]] = {n: [] for n in apps}
    mini = []
    for _ in range(trials):
        t, context, _ = _open(browser, minimal, ready_min, [], outside)
        mini.append(t)
        context.close()
        for name, app in apps.items():
            t, context, _ = _open(browser, f"{app}/overall", TABLE_READY, ["overall", ""],
                                  outside)
            cold[name].append(t)
            context.close()
    print(_summary("minimal page, cold load", mini))
    for name in apps:
        print(_summary(f"[{name}] Overall, cold load (fresh browser, warm server)", cold[name]))
        print(f"  ratio of medians: {statistics.median(cold[name]) / statistics.median(mini):.2f}"
              " (target ≤ 1.5)")
    _weights(browser, apps, trials, outside, "bench=humaneval&bench=mbpp", "humaneval", 1, "")
    if everything:
        _weights(browser, apps, trials, outside, "", "humaneval", 6, ", the landing page")


def _measure(browser, app: str, trials: int, outside: Outside) -> None:  # noqa: ANN001
    """The Mechanisms and A/B compare pages."""
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


if __name__ == "__main__":
    main()
