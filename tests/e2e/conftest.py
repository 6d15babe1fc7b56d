"""Fixtures of the real-browser tests: the app served by ``streamlit run`` on 127.0.0.1, and
Debian's chromium driven by Playwright (never a downloaded browser).

Each test module gets its own server and store: the store is built by the module's
``build_store(path)`` when it defines one, else it holds the bundled demo data; a module's
``server_options(request, url)`` adds environment variables and ``streamlit run`` options
(the login tests' allow-list and secrets file). The
tests are skipped when chromium or Playwright is missing, unless
``SIGBOARD_REQUIRE_BROWSER=1`` (CI), which turns that into a failure. Plain helpers
(offline contexts, waits) are in ``e2e_support.py``.
"""

from __future__ import annotations

import os
import socket
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path
from typing import TYPE_CHECKING

import pytest
from e2e_support import Served, healthy

from engine.store import open_store

if TYPE_CHECKING:
    from playwright.sync_api import Browser

ROOT = Path(__file__).resolve().parents[2]
CHROMIUM = "/usr/bin/chromium"
ARGS = ["--no-sandbox", "--disable-gpu", "--disable-background-networking",
        "--disable-component-update", "--disable-sync", "--no-first-run"]
#: Settings of the developer's environment that would point the app elsewhere.
_CLEARED = ("SIGBOARD_DB_URL", "SIGBOARD_UPLOAD_TOKEN", "SIGBOARD_UPLOAD_ALLOW")


def require_browser() -> None:
    """Skip (or, with SIGBOARD_REQUIRE_BROWSER=1, fail) when Playwright or chromium is missing."""
    missing = None
    try:
        import playwright.sync_api  # noqa: F401
    except ImportError:
        missing = "the playwright package is not installed"
    if missing is None and not os.access(CHROMIUM, os.X_OK):
        missing = f"{CHROMIUM} is missing (apt-get install chromium)"
    if missing:
        if os.environ.get("SIGBOARD_REQUIRE_BROWSER") == "1":
            pytest.fail(f"browser tests are required but {missing}")
        pytest.skip(missing)


def demo_store(path: Path) -> None:
    """A store holding the bundled demo data (``data/``)."""
    store = open_store(f"sqlite:///{path}")
    store.ensure_demo_data(ROOT / "data")
    store.close()


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def _no_options(request: pytest.FixtureRequest, url: str) -> tuple[dict[str, str], list[str]]:
    return {}, []


@pytest.fixture(scope="module")
def served(request: pytest.FixtureRequest,
           tmp_path_factory: pytest.TempPathFactory) -> Iterator[Served]:
    """The app on a free loopback port over this module's own store (``build_store``), with
    the settings of the module's ``server_options(request, url)`` when it defines one
    (extra environment variables and ``streamlit run`` options)."""
    require_browser()
    db = tmp_path_factory.mktemp("e2e") / "sigboard.db"
    getattr(request.module, "build_store", demo_store)(db)
    port = _free_port()
    url = f"http://127.0.0.1:{port}"
    extra_env, extra_args = getattr(request.module, "server_options", _no_options)(request, url)
    env = {k: v for k, v in os.environ.items() if k not in _CLEARED}
    env.update(SIGBOARD_DB_PATH=str(db), STREAMLIT_BROWSER_GATHER_USAGE_STATS="false",
               **extra_env)
    proc = subprocess.Popen(
        [sys.executable, "-m", "streamlit", "run", "app/server.py", "--server.address", "127.0.0.1",
         "--server.port", str(port), "--server.headless", "true", *extra_args],
        cwd=ROOT, env=env, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    try:
        # a checkout whose kernels were never compiled (`sigboard warm`) compiles them before
        # the port opens: ~10 s of CPU, a minute's wall on a loaded machine (#27 item 3)
        deadline = time.monotonic() + 180
        while not healthy(url):
            if proc.poll() is not None:
                raise RuntimeError(f"streamlit exited with {proc.returncode}")
            if time.monotonic() > deadline:
                raise RuntimeError("streamlit did not become healthy")
            time.sleep(0.3)
        yield Served(url, proc)
    finally:
        proc.terminate()
        try:
            proc.wait(timeout=10)
        except subprocess.TimeoutExpired:
            proc.kill()


@pytest.fixture(scope="module")
def server(served: Served) -> str:
    """The address of this module's app (``http://127.0.0.1:PORT``)."""
    return served.url


@pytest.fixture(scope="module")
def browser(server: str) -> Iterator[Browser]:
    """Debian's chromium, launched once per module (each test opens fresh contexts)."""
    from playwright.sync_api import sync_playwright

    with sync_playwright() as p:
        chromium = p.chromium.launch(executable_path=CHROMIUM, args=ARGS)
        yield chromium
        chromium.close()
