"""Page speed in headless Chromium: sigboard's pages vs a minimal one-line Streamlit page.

Run: ``.venv/bin/python benchmarks/bench_app.py [--trials N] [--pages leaderboard,examples]``

In one run, on this machine, it starts two ``streamlit run`` servers on 127.0.0.1 —
sigboard (a temporary SQLite store with the bundled demo data plus a synthetic
benchmark of 100 systems × 1,000 examples and one of 300 systems × 5,000 examples
built here) and a page whose whole script is ``st.write("ready")`` — and measures
with Debian's chromium, for the Leaderboard, Pairwise, Distributions and Examples
pages on ``humaneval`` (78 systems) and on the 100 × 1,000 benchmark, and for the
Leaderboard and Pairwise pages on the 300 × 5,000 one:

1. **server cold**: the first load of the page (the server's caches are empty).
2. **cold load**: a fresh browser context opens the page on a warm server; time
   until the content is on screen (the page's title, its main element — the
   ranked table; the charts, Vega-Lite ones drawn or SVG pictures in place — the run
   finished, nothing stale). Minimal page:
   its text. Target: every page ≤ 1.5 × the minimal page.
3. **settings change → updated content**: on a loaded page, alpha is set to a new
   value in the sidebar's test settings (Enter); time until the new run's
   content is on screen (the sidebar summary names the new alpha, the run has
   finished and nothing is stale). Each value is new, so the engine really
   recomputes. Target: ≤ 1 s.

Every request that does not go to 127.0.0.1 is counted (it must be 0). The machine's
1-minute load average is printed with every figure: on a shared machine the
ratio to the minimal page, measured in the same minutes, is the comparable one.

``--every-page`` measures instead every page of the navigation on the
demo benchmark ``humaneval`` (78 × 164) and on AlpacaEval 2.0 (60 × 805, from
``tests/data/alpaca-eval``), with the minimal page loaded alternately in the same run:

1. **cold first view**: a fresh server (caches empty) warmed by one load of the Methods
   page (no computation), then the page is opened: time until its title is on screen and
   its run has finished with nothing stale. Target ≤ 2 s on the demo data, ≤ 5 s on
   AlpacaEval. Twice, each on its own fresh server: in a new tab of the browser that made
   the warm-up visit (*returning*: a new Streamlit session, an uncached result, Streamlit's
   scripts in the browser's cache — a team member opening a shared link), and in a fresh
   browser context (*fresh*: a first-time visitor, whose browser first fetches and starts
   Streamlit's ~5 MB of scripts, as the minimal page's does).
2. **cached revisit**, three ways a user comes back to a page whose result the server holds:

   - *in the app*: from another page of the same browser tab (Methods; for Plan, A/B compare)
     the page's sidebar link is clicked — how a user moves between pages. Target ≤ 1 s.
   - *reload*: the same tab reloads the address (a new Streamlit session; the browser's
     cache holds Streamlit's scripts, as a returning visitor's does).
   - *fresh browser*: a new browser context (empty cache, new profile) opens the address;
     the minimal page's load in the same minutes is its floor (it fetches and starts
     Streamlit's scripts before any content: 0.8–1.6 s on this kind of machine).

With each, the server process's CPU seconds (``/proc``: user + system) while it was served:
on a shared machine, wall clock grows with the load, the server's CPU much less.
"""

from __future__ import annotations

import argparse
import json
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

import numpy as np  # noqa: E402
import pandas as pd  # noqa: E402

from engine.store import open_store  # noqa: E402

SYNTHETIC = "synthetic-100x1000"
LARGE = "synthetic-300x5000"
#: Pages measured on the large benchmark (the others stop or sample past 100 systems).
LARGE_PAGES = ("leaderboard", "pairwise")

CHROMIUM = "/usr/bin/chromium"
ARGS = ["--no-sandbox", "--disable-gpu", "--disable-background-networking",
        "--disable-component-update", "--disable-sync", "--no-first-run"]
LOCAL = ("http://127.0.0.1", "ws://127.0.0.1", "data:", "blob:", "about:")


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def _serve(script: str, env: dict[str, str], cwd: Path = ROOT
           ) -> tuple[subprocess.Popen[bytes], str]:
    """``streamlit run script`` from ``cwd`` (its settings, its code), once it answers."""
    port = _free_port()
    proc = subprocess.Popen(
        [sys.executable, "-m", "streamlit", "run", script, "--server.address", "127.0.0.1",
         "--server.port", str(port), "--server.headless", "true"],
        cwd=cwd, env=env, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    url = f"http://127.0.0.1:{port}"
    for _ in range(300):
        try:
            with urllib.request.urlopen(f"{url}/_stcore/health", timeout=2) as r:
                if r.read().strip() == b"ok":
                    return proc, url
        except OSError:
            time.sleep(0.2)
    raise RuntimeError(f"{script} did not start")


def synthetic_frame(systems: int = 100, examples: int = 1000, seed: int = 0,
                    benchmark: str = SYNTHETIC) -> pd.DataFrame:
    """0/1 scores with a spread of system skills and example difficulties (a logistic model)."""
    rng = np.random.default_rng(seed)
    skill = np.sort(rng.normal(0, 1, systems))[::-1]
    difficulty = rng.normal(0, 1.5, examples)
    p = 1 / (1 + np.exp(-(skill[:, None] - difficulty[None, :])))
    scores = (rng.random((systems, examples)) < p).astype(float)
    return pd.DataFrame({
        "benchmark": benchmark, "metric": "pass1",
        "system": np.repeat([f"model-{i:03d}" for i in range(systems)], examples),
        "example_id": np.tile([f"ex{j:04d}" for j in range(examples)], systems),
        "value": scores.ravel()})


def _store(path: Path, benchmarks: list[str]) -> None:
    store = open_store(f"sqlite:///{path}")
    store.ensure_demo_data(ROOT / "data")  # the repository's bundled demo files
    if SYNTHETIC in benchmarks:
        store.import_frame(synthetic_frame(), filename="synthetic.csv")
    if LARGE in benchmarks:
        store.import_frame(synthetic_frame(300, 5000, seed=1, benchmark=LARGE),
                           filename="synthetic-large.csv")
    store.close()


def _load_average() -> float:
    return os.getloadavg()[0]


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


READY = """([title, alpha, table]) => {
  const app = document.querySelector('[data-testid=stApp]');
  if (!app || app.getAttribute('data-test-script-state') !== 'notRunning') return false;
  const h1 = document.querySelector('[data-testid=stMain] h1');
  if (!h1 || !h1.innerText.replace(/[\u2068\u2069]/g, '').includes(title)) return false;
  if (document.querySelector('[data-testid=stMain] [data-stale=true]')) return false;
  const summary = [...document.querySelectorAll('[data-testid=stSidebar] [data-testid=stCaptionContainer]')]
    .some(c => c.innerText.includes('α = ' + alpha + ' '));
  if (!summary) return false;
  if (table) {
    const t = document.querySelector('[data-testid=stMain] table[aria-label=leaderboard]');
    return !!t && t.tBodies[0].rows.length === Number(t.dataset.rows);
  }
  // charts: Vega-Lite ones drawn (canvas or svg), or SVG pictures written by the server
  const charts = [...document.querySelectorAll('[data-testid=stMain] [data-testid=stVegaLiteChart]')];
  const pictures = document.querySelectorAll('[data-testid=stMain] svg[role=img]').length;
  return charts.length + pictures > 0 && charts.every(c => c.querySelector('canvas, svg'));
}"""
PAGES = {"leaderboard": "Leaderboard", "pairwise": "Pairwise", "distributions": "Distributions",
         "examples": "Examples"}


def _ready(page_name: str, benchmark: str, alpha: str):  # noqa: ANN202
    args = [f"{PAGES[page_name]} · {benchmark}", alpha, page_name == "leaderboard"]

    def wait(page) -> None:  # noqa: ANN001
        page.wait_for_function(READY, arg=args, timeout=180_000)
    return wait


def _change(page, page_name: str, benchmark: str, value: float) -> float:  # noqa: ANN001
    field = page.get_by_label("Alpha", exact=True)
    if not field.is_visible():  # the settings live in a sidebar popover
        page.get_by_role("button", name="Test settings").click()
    field.fill(f"{value:.3f}")
    start = time.perf_counter()
    field.press("Enter")
    _ready(page_name, benchmark, f"{value:g}")(page)
    return time.perf_counter() - start


ALPACA = "alpaca_eval2_weighted_gpt4_turbo"
ALPACA_FILE = ROOT / "tests" / "data" / "alpaca-eval" / f"{ALPACA}_long.jsonl.gz"
#: Every page of the navigation: address -> its title.
EVERY_PAGE = {"home": "Overall", "leaderboard": "Leaderboard", "benchmarks": "Benchmarks",
              "pairwise": "Pairwise", "compare": "A/B compare", "plan": "Plan",
              "examples": "Examples", "distributions": "Distributions",
              "mechanisms": "Mechanisms", "slices": "Slices", "conditions": "Conditions",
              "upload": "Upload results", "methods": "Methods", "watch": "Watch",
              "judge": "Judge + humans"}
CONTENT = """(title) => {
  const app = document.querySelector('[data-testid=stApp]');
  if (!app || app.getAttribute('data-test-script-state') !== 'notRunning') return false;
  const h1 = document.querySelector('[data-testid=stMain] h1');
  if (!h1 || !h1.innerText.replace(/[\u2068\u2069]/g, '').includes(title)) return false;
  return !document.querySelector('[data-testid=stMain] [data-stale=true]');
}"""


def _content(title: str):  # noqa: ANN202
    def wait(page) -> None:  # noqa: ANN001
        page.wait_for_function(CONTENT, arg=title, timeout=300_000)
    return wait


def every_page(args: argparse.Namespace) -> None:
    """Cold first view and cached revisit of every page, on humaneval and on AlpacaEval."""
    from playwright.sync_api import sync_playwright

    from engine import read_results

    # "overall" names the landing page too (its old address); an unknown name is an error, not
    # a silent run of every page
    pages = ["home" if p == "overall" else p for p in args.pages.split(",") if p]
    unknown = [p for p in pages if p not in EVERY_PAGE]
    if unknown:
        raise SystemExit(f"--pages: unknown {unknown}; choose from {', '.join(EVERY_PAGE)}")
    rows = []
    with tempfile.TemporaryDirectory() as tmp:
        db = Path(tmp) / "sigboard.db"
        store = open_store(f"sqlite:///{db}")
        store.ensure_demo_data(ROOT / "data")
        store.import_frame(read_results(ALPACA_FILE), filename=ALPACA_FILE.name)
        store.close()
        minimal_script = Path(tmp) / "minimal.py"
        minimal_script.write_text('import streamlit as st\nst.write("ready")\n')
        env = {**os.environ, "SIGBOARD_DB_PATH": str(db),
               "STREAMLIT_BROWSER_GATHER_USAGE_STATS": "false"}
        env.pop("SIGBOARD_DB_URL", None)
        outside = Outside()
        minimal_proc, minimal_url = _serve(str(minimal_script), env)

        def minimal_ready(page) -> None:  # noqa: ANN001
            page.get_by_text("ready", exact=True).wait_for(timeout=60_000)

        try:
            with sync_playwright() as p:
                browser = p.chromium.launch(executable_path=CHROMIUM, args=ARGS)
                for benchmark in args.benchmarks.split(","):
                    for name in pages:
                        rows.append(_one_page(browser, env, name, benchmark, args.trials,
                                              minimal_url, minimal_ready, outside))
                browser.close()
        finally:
            minimal_proc.terminate()
            minimal_proc.wait(timeout=10)
    targets = {"humaneval": 2.0, ALPACA: 5.0}
    print(f"\n{'':>34} {'':<13} {'--- cold first view ---':>27} {'--- cached revisit ---':>22}"
          f"\n{'benchmark':>34} {'page':<13} {'return':>6} {'fresh':>6} {'-min':>5} {'CPU':>6} "
          f"{'in app':>6} {'reload':>6} {'fresh':>6} {'CPU':>5} {'minimal':>7} {'load':>5}  "
          "targets: cold <= 2 s (demo) / 5 s (AlpacaEval), revisit <= 1 s, checked on the "
          "returning browser (a new session in a browser that has visited sigboard before) and "
          "in the app; fresh browser (a new profile): its excess over the minimal page (-min, "
          "loaded in the same minutes) is the comparable figure; CPU: the server's seconds")
    for r in rows:
        over = r["cold_returning"] > targets[r["benchmark"]] or r["in_app"] > 1
        print(f"{r['benchmark']:>34} {r['page']:<13} {r['cold_returning']:6.2f} {r['cold']:6.2f} "
              f"{r['cold'] - r['minimal']:5.2f} {r['cold_cpu']:6.2f} {r['in_app']:6.2f} "
              f"{r['reload']:6.2f} {r['revisit']:6.2f} {r['revisit_cpu']:5.2f} "
              f"{r['minimal']:7.2f} {r['load']:5.2f}{'  <- over target' if over else ''}")
    print(f"requests leaving 127.0.0.1: {len(outside.urls)} {outside.urls[:3]}")
    if args.json:
        args.json.write_text(json.dumps({"rows": rows}, indent=1))


def server_cpu(pid: int) -> float:
    """CPU seconds (user + system) of process ``pid`` and of its children that have ended and
    been waited for, from /proc (Linux): the server's own work, whatever the machine's load."""
    fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    ticks = sum(int(v) for v in fields[11:15])  # utime, stime, cutime, cstime
    return ticks / os.sysconf("SC_CLK_TCK")


#: The page a revisit in the app starts from, and the link text it clicks (default: Methods
#: and the page's sidebar title); Plan is linked from A/B compare, not from the sidebar.
NAV_FROM = {"plan": ("compare", "Plan the next run: examples, runs, power")}
#: Sidebar labels that differ from the page's title.
SIDEBAR = {"upload": "Upload"}


def _in_app(browser, url: str, name: str, benchmark: str, ready,  # noqa: ANN001
            outside: Outside) -> tuple[float, float]:
    """Seconds to the page's content (1) when its link is clicked on another page of the same
    tab (its result cached, the session and the browser's cache live) and (2) when the tab
    then reloads its address (a new session; the scripts from the browser's cache)."""
    origin, label = NAV_FROM.get(name, ("methods", SIDEBAR.get(name, EVERY_PAGE[name])))
    _, context, page = _load(browser, f"{url}/{origin}?benchmark={benchmark}",
                             _content(EVERY_PAGE[origin]), outside)
    try:
        where = "stMain" if name in NAV_FROM else "stSidebar"
        link = page.locator(f"[data-testid={where}] a", has_text=label).first
        start = time.perf_counter()
        link.click()
        ready(page)
        clicked = time.perf_counter() - start
        start = time.perf_counter()
        page.reload()
        ready(page)
        return clicked, time.perf_counter() - start
    finally:
        context.close()


def _cold_view(browser, env: dict[str, str], path: str, ready, outside: Outside, *,  # noqa: ANN001
               returning: bool) -> tuple[float, float, subprocess.Popen[bytes], str]:
    """A fresh server warmed by one visit to Methods (its code imported, nothing computed),
    then the page's cold first view — in a new tab of the browser that made the warm-up
    visit (``returning``: a new session, Streamlit's scripts in the browser's cache) or in a
    fresh browser. Seconds, the server's CPU seconds, and the server (still running)."""
    proc, url = _serve("app/server.py", env)
    try:
        _, warm_up, _ = _load(browser, f"{url}/methods", _content("Methods"), outside)
        if not returning:
            warm_up.close()
        time.sleep(2)  # the warm-up page's work has settled (its CPU off the cold view)
        before = server_cpu(proc.pid)
        if returning:
            tab = warm_up.new_page()
            tab.on("request", outside)
            start = time.perf_counter()
            tab.goto(f"{url}/{path}")
            ready(tab)
            seconds = time.perf_counter() - start
        else:
            seconds, warm_up, _ = _load(browser, f"{url}/{path}", ready, outside)
        cpu = server_cpu(proc.pid) - before
        warm_up.close()
    except BaseException:
        proc.terminate()
        raise
    return seconds, cpu, proc, url


def _one_page(browser, env: dict[str, str], name: str, benchmark: str, trials: int,  # noqa: ANN001
              minimal_url: str, minimal_ready, outside: Outside) -> dict[str, object]:  # noqa: ANN001
    """One page: its cold first view in a returning browser and in a fresh one (a fresh
    server each), then on the second server cached revisits (wall clock, and the server's
    CPU seconds for each) in a fresh browser, in the app and on reload."""
    path, ready = f"{name}?benchmark={benchmark}", _content(EVERY_PAGE[name])
    returning, returning_cpu, proc, _ = _cold_view(browser, env, path, ready, outside,
                                                   returning=True)
    proc.terminate()
    proc.wait(timeout=10)
    cold, cold_cpu, proc, url = _cold_view(browser, env, path, ready, outside, returning=False)
    address = f"{url}/{path}"
    try:
        revisits, revisit_cpus, minimal = [], [], []
        for _ in range(trials):  # alternately with the minimal page: same machine load
            seconds, context, _ = _load(browser, minimal_url, minimal_ready, outside)
            minimal.append(seconds)
            context.close()
            before = server_cpu(proc.pid)
            seconds, context, _ = _load(browser, address, ready, outside)
            revisit_cpus.append(server_cpu(proc.pid) - before)
            revisits.append(seconds)
            context.close()
        in_app = [_in_app(browser, url, name, benchmark, ready, outside) for _ in range(trials)]
    finally:
        proc.terminate()
        proc.wait(timeout=10)
    row = {"benchmark": benchmark, "page": name, "cold": cold, "cold_cpu": cold_cpu,
           "cold_returning": returning, "cold_returning_cpu": returning_cpu,
           "revisit": statistics.median(revisits), "revisits": revisits,
           "revisit_cpu": statistics.median(revisit_cpus),
           "minimal": statistics.median(minimal), "load": _load_average(),
           "in_app": statistics.median(c for c, _ in in_app),
           "reload": statistics.median(r for _, r in in_app)}
    print(f"{benchmark:>34} {name:<13} cold: returning browser {returning:6.2f} s (server CPU "
          f"{returning_cpu:5.2f} s), fresh browser {cold:6.2f} s (CPU {cold_cpu:5.2f} s) | "
          f"revisit median: in the app {row['in_app']:5.2f} s, reload {row['reload']:5.2f} s, "
          f"fresh browser {row['revisit']:5.2f} s (CPU {row['revisit_cpu']:5.2f} s) | minimal "
          f"page {row['minimal']:5.2f} s | load average {row['load']:.2f}", flush=True)
    return row


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--every-page", action="store_true",
                        help="every page's cold first view and cached revisit on humaneval and "
                             "AlpacaEval")
    parser.add_argument("--trials", type=int, default=3)
    parser.add_argument("--pages", default=",".join(PAGES),
                        help="comma-separated: " + ", ".join(PAGES))
    parser.add_argument("--benchmarks", default=f"humaneval,{SYNTHETIC},{LARGE}",
                        help=f"comma-separated; {LARGE} is measured on {', '.join(LARGE_PAGES)} "
                             f"only (--every-page: humaneval,{ALPACA} unless given)")
    parser.add_argument("--json", type=Path, help="also write the figures here")
    args = parser.parse_args()
    if args.every_page:
        if args.pages == ",".join(PAGES):
            args.pages = ",".join(EVERY_PAGE)
        if args.benchmarks == parser.get_default("benchmarks"):
            args.benchmarks = f"humaneval,{ALPACA}"
        every_page(args)
        return
    from playwright.sync_api import sync_playwright

    with tempfile.TemporaryDirectory() as tmp:
        db = Path(tmp) / "sigboard.db"
        _store(db, args.benchmarks.split(","))
        minimal = Path(tmp) / "minimal.py"
        minimal.write_text('import streamlit as st\nst.write("ready")\n')
        env = {**os.environ, "SIGBOARD_DB_PATH": str(db),
               "STREAMLIT_BROWSER_GATHER_USAGE_STATS": "false"}
        env.pop("SIGBOARD_DB_URL", None)
        servers = [_serve("app/server.py", env), _serve(str(minimal), env)]
        try:
            _measure(sync_playwright, servers[0][1], servers[1][1], args)
        finally:
            for proc, _ in servers:
                proc.terminate()
                proc.wait(timeout=10)


def _measure(sync_playwright, app_url: str, minimal_url: str, args) -> None:  # noqa: ANN001
    outside = Outside()
    trials = args.trials

    def minimal_ready(page) -> None:  # noqa: ANN001
        page.get_by_text("ready", exact=True).wait_for(timeout=60_000)

    rows = []
    with sync_playwright() as p:
        browser = p.chromium.launch(executable_path=CHROMIUM, args=ARGS)
        minimal = []
        for _ in range(trials):
            seconds, context, _ = _load(browser, minimal_url, minimal_ready, outside)
            minimal.append(seconds)
            context.close()
        for benchmark in args.benchmarks.split(","):
            for name in args.pages.split(","):
                if benchmark == LARGE and name not in LARGE_PAGES:
                    continue
                url = f"{app_url}/{name}?benchmark={benchmark}"
                ready = _ready(name, benchmark, "0.05")
                first, context, _ = _load(browser, url, ready, outside)
                context.close()
                loads = []
                for _ in range(trials):  # interleaved with the minimal page: same machine load
                    seconds, context, _ = _load(browser, minimal_url, minimal_ready, outside)
                    minimal.append(seconds)
                    context.close()
                    seconds, context, _ = _load(browser, url, ready, outside)
                    loads.append(seconds)
                    context.close()
                _, context, page = _load(browser, url, ready, outside)
                changes = [_change(page, name, benchmark, 0.05 + 0.001 * (i + 1))
                           for i in range(trials)]
                context.close()
                load = _load_average()
                rows.append({"benchmark": benchmark, "page": name, "server_cold": first,
                             "cold": statistics.median(loads), "loads": loads,
                             "change": statistics.median(changes), "change_max": max(changes),
                             "minimal_here": statistics.median(minimal[-trials:]),
                             "load": load})
                print(f"{benchmark:>20} {name:<13} server cold {first:6.2f} s | cold load "
                      f"median {statistics.median(loads):5.2f} s (minimal page meanwhile "
                      f"{statistics.median(minimal[-trials:]):5.2f} s) | settings change median "
                      f"{statistics.median(changes):5.2f} s, max {max(changes):5.2f} s | load "
                      f"average {load:.2f}", flush=True)
        browser.close()

    m_min = statistics.median(minimal)
    print(f"\ncold load, minimal one-line page: median {m_min:.2f} s over {len(minimal)} loads; "
          f"load average now {_load_average():.2f}")
    print("ratio: the page's cold load over the minimal page's, loaded alternately with it")
    print(f"{'benchmark':>20} {'page':<13} {'cold':>6} {'ratio':>6} {'server cold':>11} "
          f"{'change':>7} {'max':>6} {'load':>5}  targets: ratio <= 1.5, change <= 1 s")
    for r in rows:
        r["ratio"] = r["cold"] / r["minimal_here"]  # the minimal page loaded in the same minutes
        print(f"{r['benchmark']:>20} {r['page']:<13} {r['cold']:6.2f} {r['ratio']:6.2f} "
              f"{r['server_cold']:11.2f} {r['change']:7.2f} {r['change_max']:6.2f} "
              f"{r['load']:5.2f}"
              f"{'' if r['ratio'] <= 1.5 and r['change'] <= 1 else '  <- over target'}")
    print(f"requests leaving 127.0.0.1: {len(outside.urls)} {outside.urls[:3]}")
    if args.json:
        args.json.write_text(json.dumps({"minimal": m_min, "rows": rows}, indent=1))


if __name__ == "__main__":
    main()
