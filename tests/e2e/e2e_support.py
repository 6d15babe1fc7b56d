"""Helpers of the real-browser tests (a helper module, not a test module).

The fixtures that start the app and the browser are in ``tests/e2e/conftest.py``; these
are the plain functions the test modules share: a browser context that blocks every
request leaving the machine, and waits for a page title and for the end of a script run.
"""

from __future__ import annotations

import re
import subprocess
import urllib.request
from dataclasses import dataclass
from typing import TYPE_CHECKING
from urllib.parse import urlparse

if TYPE_CHECKING:
    from playwright.sync_api import Browser, BrowserContext, Page, Route

#: Playwright's default timeout for the waits below (ms): a cold page on 2 shared cores.
WAIT = 120_000


@dataclass(frozen=True)
class Served:
    """A running app (conftest.py's ``served``): its address and its process."""

    url: str
    proc: subprocess.Popen[bytes]


def healthy(url: str) -> bool:
    """Whether the app at ``url`` answers its health check."""
    try:
        with urllib.request.urlopen(f"{url}/_stcore/health", timeout=5) as response:
            return bool(response.read().strip() == b"ok")
    except OSError:
        return False


class Offline:
    """Blocks every request that does not go to the loopback server; records what it blocked."""

    def __init__(self, context: BrowserContext) -> None:
        self.blocked: list[str] = []
        context.route("**/*", self._route)

    def _route(self, route: Route) -> None:
        url = route.request.url
        host = urlparse(url).hostname or ""
        if url.startswith(("data:", "blob:", "about:", "file:")) or host in ("127.0.0.1",
                                                                             "localhost"):
            route.continue_()
        else:
            self.blocked.append(url)
            route.abort()


def open_context(browser: Browser, width: int = 1400, *, downloads: bool = False
                 ) -> tuple[BrowserContext, Page, Offline, list[str]]:
    """A fresh browser context (no cookies, no cache) kept offline, and a page in it.

    Returns the context, the page, its :class:`Offline` record and the messages of any
    JavaScript dialog the page opened (each one dismissed).
    """
    context = browser.new_context(viewport={"width": width, "height": 1000},
                                  accept_downloads=downloads)
    offline = Offline(context)
    page = context.new_page()
    dialogs: list[str] = []
    page.on("dialog", lambda d: (dialogs.append(d.message), d.dismiss()))
    return context, page, offline, dialogs


def title(page: Page, text: str, timeout: float = WAIT) -> None:
    """Wait for the page's title; a stored name in it sits between Unicode isolates."""
    pattern = re.compile(re.escape(text).replace("·\\ ", "·\\ \u2068?"))
    page.get_by_role("heading", level=1).filter(
        has_text=pattern).wait_for(timeout=timeout)


def idle(page: Page, timeout: float = WAIT) -> None:
    """Wait until the app has finished its current run (so widgets and links are current)."""
    page.wait_for_selector(
        "[data-testid=stApp][data-test-script-state=notRunning]", timeout=timeout)
