"""The placement script of server-drawn charts (``app.charts.svg.svg_html``) in a real browser.

Its SVG is written by the app with every name escaped; the script is a second line of
defence, checked here on markup the app never writes: nothing active survives, nothing
runs, and an ordinary picture keeps its hover text. No app server needed: the HTML is set
on a blank page, as ``st.html(..., unsafe_allow_javascript=True)`` would insert it.
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import TYPE_CHECKING

import pytest
from conftest import ARGS, CHROMIUM, require_browser

from app.charts.svg import svg_html

if TYPE_CHECKING:
    from playwright.sync_api import Page

pytestmark = pytest.mark.browser

HOSTILE = ('<svg role="img" aria-label="x" onload="alert(1)"><script>alert(2)</script>'
           '<rect width="5" height="5" onclick="alert(3)" onmouseover="alert(4)"/>'
           '<a href="javascript:alert(5)"><text>link</text></a>'
           '<foreignObject><img src="x" onerror="alert(6)"></foreignObject>'
           '<image href="http://evil.example/p.png"/><title>kept</title></svg>')


@pytest.fixture(scope="module")
def page() -> Iterator[Page]:
    require_browser()
    from playwright.sync_api import sync_playwright

    with sync_playwright() as p:
        browser = p.chromium.launch(executable_path=CHROMIUM, args=ARGS)
        context = browser.new_context()
        context.route("**/*", lambda route: route.abort())  # nothing may load
        yield context.new_page()
        browser.close()


def _place(page, svg: str) -> list[str]:  # noqa: ANN001
    dialogs: list[str] = []
    page.on("dialog", lambda d: (dialogs.append(d.message), d.dismiss()))
    page.set_content(f"<body>{svg_html(svg)}</body>")
    page.wait_for_timeout(300)  # let any handler that survived fire
    return dialogs


def test_nothing_active_survives_and_nothing_runs(page) -> None:  # noqa: ANN001
    dialogs = _place(page, HOSTILE)
    assert dialogs == []
    placed = page.locator(".sb-svg > svg")
    assert placed.count() == 1 and placed.get_attribute("aria-label") == "x"
    markup = page.eval_on_selector(".sb-svg", "e => e.innerHTML")
    for gone in ("onload", "onclick", "onmouseover", "onerror", "<script", "<a ", "href",
                 "foreignobject", "<img"):
        assert gone not in markup.lower(), gone
    assert page.locator(".sb-svg rect").count() == 1, "the harmless shapes stay"


def test_a_picture_keeps_its_hover_text(page) -> None:  # noqa: ANN001
    svg = ('<svg xmlns="http://www.w3.org/2000/svg" role="img" aria-label="ranks">'
           '<g><title>model &lt;b&gt; \u2068x\u2069: mean 0.5</title><circle r="3"/></g></svg>')
    assert _place(page, svg) == []
    title = page.locator(".sb-svg svg g title")
    assert title.text_content() == "model <b> \u2068x\u2069: mean 0.5"
    assert page.locator(".sb-svg svg circle").count() == 1


def test_anything_but_an_svg_is_not_placed(page) -> None:  # noqa: ANN001
    assert _place(page, '<img src="x" onerror="alert(1)">') == []
    assert page.eval_on_selector(".sb-svg", "e => e.innerHTML") == ""
