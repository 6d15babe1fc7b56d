"""Helpers that drive the app under ``streamlit.testing`` (a helper module, not a test module).

Shared by the AppTest modules of ``tests/app/``; the fixtures (``db``, ``template_db``,
``bt_eval``, ``tac_db``) are in ``tests/app/conftest.py``.
"""

from __future__ import annotations

import json
from html.parser import HTMLParser
from pathlib import Path
from typing import Any

import pandas as pd
from streamlit.testing.v1 import AppTest

ROOT = Path(__file__).resolve().parents[2]
#: AppTests start from the entry file's absolute path, whatever the working directory.
MAIN = str(ROOT / "app" / "main.py")
TIMEOUT = 120


def app(page: str | None = None, **params: str) -> AppTest:
    at = AppTest.from_file(MAIN, default_timeout=TIMEOUT)
    for key, value in params.items():
        at.query_params[key] = value
    if page:
        at.switch_page(page)
    return at.run()


def no_exception(at: AppTest) -> None:
    """No exception, and no page replaced by the friendly error of ``app/main.py``."""
    assert not at.exception, [e.value for e in at.exception]
    failed = [e.value for e in at.error if "Something went wrong" in e.value]
    assert not failed, failed


def table(at: AppTest, index: int = 0) -> Any:
    return at.dataframe[index].value


class _RankedTable(HTMLParser):
    """Header, cells and row links of the leaderboard's ranked HTML table."""

    def __init__(self) -> None:
        super().__init__()
        self.header: list[str] = []
        self.rows: list[list[str]] = []
        self.links: dict[str, str] = {}
        self._cell: list[str] | None = None
        self._href = ""

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        if tag == "tr":
            self.rows.append([])
        elif tag in ("td", "th"):
            self._cell, self._href = [], ""
        elif tag == "a":
            self._href = dict(attrs).get("href") or ""

    def handle_data(self, data: str) -> None:
        if self._cell is not None:
            self._cell.append(data)

    def handle_endtag(self, tag: str) -> None:
        if tag in ("td", "th") and self._cell is not None:
            text = "".join(self._cell)
            (self.header if tag == "th" else self.rows[-1]).append(text)
            if self._href:
                self.links[text] = self._href
            self._cell = None


def ranked(at: AppTest) -> tuple[pd.DataFrame, dict[str, str]]:
    """The leaderboard's ranked table (the default view) as text cells, and its row links."""
    bodies = [h.proto.body for h in at.get("html") if 'aria-label="leaderboard"' in h.proto.body]
    assert len(bodies) == 1, "one ranked table on the page"
    parser = _RankedTable()
    parser.feed(bodies[0])
    rows = [r for r in parser.rows if r]
    return pd.DataFrame(rows, columns=parser.header), parser.links


def _html_table(at: AppTest, label: str) -> _RankedTable:
    bodies = [h.proto.body for h in at.get("html") if f'aria-label="{label}"' in h.proto.body]
    assert len(bodies) == 1, f"one table named {label!r} on the page"
    parser = _RankedTable()
    parser.feed(bodies[0])
    return parser


def html_frame(at: AppTest, label: str) -> pd.DataFrame:
    """The static HTML table (``app.ranked.html_table``) named ``label``, as text cells."""
    parser = _html_table(at, label)
    return pd.DataFrame([r for r in parser.rows if r], columns=parser.header)


def html_links(at: AppTest, label: str) -> dict[str, str]:
    """Cell text → link address of the static HTML table named ``label``."""
    return _html_table(at, label).links


#: How a server-drawn chart starts (``app.charts.svg.svg_html``): a placeholder and the script
#: that puts the SVG, a JSON string, in it.
PICTURE = '<div class="sb-svg"></div><script>'


def pictures(at: AppTest) -> list[str]:
    """The SVG text of every server-drawn chart on the page, in page order."""
    bodies = [h.proto.body for h in at.get("html") if h.proto.body.startswith(PICTURE)]
    return [json.loads(b.rsplit("(document.currentScript,", 1)[1].removesuffix(")</script>"))
            for b in bodies]


def other_html(at: AppTest) -> list[str]:
    """The bodies of the page's ``st.html`` elements that are not charts."""
    return [h.proto.body for h in at.get("html") if not h.proto.body.startswith(PICTURE)]


def params(at: AppTest) -> dict[str, str]:
    return {k: v for k, v in at.query_params.items()}


