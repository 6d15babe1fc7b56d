"""The server entry's middleware (``app/fast_start.py``): the HTML page names the server.

Driven here as plain ASGI (a stand-in app that answers like Streamlit's static handler);
the real server and browser are checked in ``tests/e2e/test_e2e_browser.py``
(``test_a_page_finds_its_server_at_the_first_try``).
"""

from __future__ import annotations

import asyncio
import json
import re
from typing import Any

import pytest

from app.fast_start import FastStart, head_script, is_page_address

PAGE = b"<!DOCTYPE html><html><head><title>Streamlit</title></head><body></body></html>"


def _answering(status: int, content_type: bytes, chunks: list[bytes], *,
               seen: list[dict[str, Any]]):  # noqa: ANN202
    async def app(scope, receive, send) -> None:  # noqa: ANN001
        seen.append(scope)
        body = b"".join(chunks)
        await send({"type": "http.response.start", "status": status, "headers": [
            (b"content-type", content_type), (b"content-length", str(len(body)).encode()),
            (b"etag", b'"abc"'), (b"cache-control", b"no-cache")]})
        for i, chunk in enumerate(chunks):
            await send({"type": "http.response.body", "body": chunk,
                        "more_body": i < len(chunks) - 1})
    return app


def _get(middleware: FastStart, path: str, **scope: Any) -> list[dict[str, Any]]:
    sent: list[dict[str, Any]] = []

    async def receive() -> dict[str, Any]:
        return {"type": "http.request", "body": b""}

    async def send(message: dict[str, Any]) -> None:
        sent.append(message)

    full = {"type": "http", "method": "GET", "path": path,
            "headers": [(b"accept-encoding", b"gzip"), (b"host", b"x")], **scope}
    asyncio.run(middleware(full, receive, send))
    return sent


def _body(sent: list[dict[str, Any]]) -> bytes:
    return b"".join(m.get("body", b"") for m in sent if m["type"] == "http.response.body")


def _headers(sent: list[dict[str, Any]]) -> dict[bytes, bytes]:
    return dict(sent[0]["headers"])


@pytest.mark.parametrize("chunks", [[PAGE], [PAGE[:20], PAGE[20:40], PAGE[40:]]])
def test_the_page_gets_the_server_address_first_in_its_head(chunks: list[bytes]) -> None:
    seen: list[dict[str, Any]] = []
    app = FastStart(_answering(200, b"text/html; charset=utf-8", chunks, seen=seen),
                    base_path=lambda: "")
    sent = _get(app, "/leaderboard")
    body = _body(sent)
    assert body.startswith(b"<!DOCTYPE html><html><head><script>window.__streamlit=")
    assert body.endswith(PAGE[len(b"<!DOCTYPE html><html><head>"):])
    headers = _headers(sent)
    assert int(headers[b"content-length"]) == len(body)
    assert b"etag" not in headers, "the validator named the unedited file"
    assert headers[b"cache-control"] == b"no-cache"
    assert b"accept-encoding" not in dict(seen[0]["headers"]), "asked for uncompressed HTML"
    assert [m["type"] for m in sent] == ["http.response.start", "http.response.body"]


@pytest.mark.parametrize(("path", "status", "kind"), [
    ("/static/js/index.js", 200, b"text/javascript"),   # an asset: not a page address
    ("/_stcore/health", 200, b"text/plain"),
    ("/leaderboard", 304, b"text/html"),                 # not modified: no body to edit
    ("/leaderboard", 200, b"application/json"),          # not HTML
])
def test_everything_else_passes_through_untouched(path: str, status: int, kind: bytes) -> None:
    seen: list[dict[str, Any]] = []
    app = FastStart(_answering(status, kind, [b"payload"], seen=seen), base_path=lambda: "")
    sent = _get(app, path)
    assert _body(sent) == b"payload"
    assert _headers(sent)[b"etag"] == b'"abc"'


def test_a_socket_and_a_post_pass_through() -> None:
    seen: list[dict[str, Any]] = []
    app = FastStart(_answering(200, b"text/html", [PAGE], seen=seen), base_path=lambda: "")
    assert _body(_get(app, "/", method="POST")) == PAGE
    assert _body(_get(app, "/", type="websocket")) == PAGE
    assert all(dict(s["headers"]).get(b"accept-encoding") == b"gzip" for s in seen)


def test_the_address_includes_the_configured_base_path() -> None:
    seen: list[dict[str, Any]] = []
    app = FastStart(_answering(200, b"text/html", [PAGE], seen=seen), base_path=lambda: "team")
    assert b'location.origin+"/team/"' in _body(_get(app, "/team/pairwise"))
    assert _body(_get(app, "/pairwise")) == PAGE, "outside the base path: not the app's page"


@pytest.mark.parametrize(("path", "base", "expected"), [
    ("/", "", True), ("", "", True), ("/leaderboard", "", True), ("/leaderboard/", "", True),
    ("/team", "team", True), ("/team/overall", "/team/", True), ("/a/b", "", False),
    ("/favicon.png", "", False), ("/static/js/x.js", "", False), ("/_stcore/stream", "", False),
    ("/media/abc", "", False), ("/component/x", "", False), ("/other/overall", "team", False),
])
def test_page_addresses(path: str, base: str, expected: bool) -> None:
    assert is_page_address(path, base) is expected


@pytest.mark.parametrize("base", ["", "team", "/a/b/", "</script><script>alert(1)</script>",
                                  'x"+alert(1)+"'])
def test_the_script_is_inert_whatever_the_base_path(base: str) -> None:
    script = head_script(base).decode()
    inner = re.fullmatch(r"<script>(.*)</script>", script)
    assert inner is not None and "</script" not in inner.group(1).lower()
    literal = re.search(r"location\.origin\+(\".*\")\}\)$", inner.group(1))
    assert literal is not None
    value = json.loads(literal.group(1))  # one JSON string literal: no code can follow
    assert value == ("/" + "/".join(p for p in base.split("/") if p) + "/").replace("//", "/")
