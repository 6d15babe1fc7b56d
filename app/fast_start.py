"""A faster first visit to any page but the landing one: the HTML says where the server is.

Streamlit's HTML page is the same for every address, so on ``/leaderboard`` the
browser cannot know whether the app is served at ``/`` or under a ``/leaderboard``
prefix: it asks ``/leaderboard/_stcore/health`` first, gets a 404, and tries
``/_stcore/health`` after a back-off — about 0.15 s before the page's script can
even start, on every page but ``/``. This middleware writes Streamlit's own
setting for it, ``window.__streamlit.BACKEND_BASE_URL`` (the origin plus
``server.baseUrlPath``), into the page's ``<head>``, so the first request goes to
the right place.

(Also tried and measured: listing each page's element code as
``<link rel="modulepreload">`` made cold loads slower, not faster — the browser then
compiles that code while it starts the framework.)

Pure ASGI middleware around ``st.App`` (``app/server.py``). It rewrites only the HTML
page — a ``GET`` of an app address (not ``/_stcore``, ``/static``, ``/media``, a
component or a file) answered ``200 text/html`` — and passes everything else (the
socket, scripts, uploads) through untouched.
"""

from __future__ import annotations

import json
from collections.abc import Awaitable, Callable, MutableMapping
from typing import Any

Scope = MutableMapping[str, Any]
Message = MutableMapping[str, Any]
Receive = Callable[[], Awaitable[Message]]
Send = Callable[[Message], Awaitable[None]]
ASGIApp = Callable[[Scope, Receive, Send], Awaitable[None]]

#: First segments of the addresses Streamlit serves itself (never its HTML page).
_OWN_PREFIXES = frozenset({"_stcore", "static", "media", "component", "app", "~"})


def head_script(base_path: str) -> bytes:
    """The ``<script>`` that tells Streamlit's browser code where its server is.

    Examples
    --------
    >>> head_script("")
    b'<script>window.__streamlit=Object.assign(window.__streamlit||{},{BACKEND_BASE_URL:location.origin+"/"})</script>'
    >>> b'"/team/"' in head_script("/team/")
    True
    """
    base = base_path.strip("/")
    prefix = json.dumps(f"/{base}/" if base else "/").replace("<", "\\u003c")  # inert in <script>
    return ("<script>window.__streamlit=Object.assign(window.__streamlit||{},"
            f"{{BACKEND_BASE_URL:location.origin+{prefix}}})</script>").encode()


def is_page_address(path: str, base_path: str) -> bool:
    """Whether ``path`` asks for the app's HTML page (``/``, ``/leaderboard``) rather than one
    of Streamlit's own addresses (assets, the socket, media, a file).

    Examples
    --------
    >>> [is_page_address(p, "") for p in ("/", "/pairwise", "/static/js/a.js", "/favicon.png")]
    [True, True, False, False]
    """
    parts = [p for p in path.split("/") if p]
    head = [p for p in base_path.split("/") if p]
    if parts[:len(head)] != head:
        return False
    parts = parts[len(head):]
    if not parts:
        return True
    return len(parts) == 1 and parts[0] not in _OWN_PREFIXES and "." not in parts[0]


class FastStart:
    """ASGI middleware: adds :func:`head_script` to the HTML page's ``<head>``.

    Parameters
    ----------
    app : ASGI application
        The app it wraps (Streamlit's, inside ``st.App``).
    base_path : callable, optional
        Returns ``server.baseUrlPath`` (read at each request, as Streamlit does); by
        default Streamlit's configuration.
    """

    def __init__(self, app: ASGIApp, base_path: Callable[[], str] | None = None) -> None:
        self.app = app
        self.base_path = base_path or _configured_base_path

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http" or scope.get("method") != "GET":  # the socket, uploads
            await self.app(scope, receive, send)
            return
        base = self.base_path()
        if not is_page_address(scope.get("path", ""), base):
            await self.app(scope, receive, send)
            return
        # the page is a few kilobytes: ask for it uncompressed, so it can be edited here
        scope = dict(scope)
        scope["headers"] = [(k, v) for k, v in scope.get("headers", [])
                            if k.lower() != b"accept-encoding"]
        await self.app(scope, receive, _Rewriter(send, head_script(base)))


def _configured_base_path() -> str:
    from streamlit import config

    return str(config.get_option("server.baseUrlPath") or "")


class _Rewriter:
    """Holds an HTML response until its body is complete, then sends it with the tags added;
    passes any other response through as it comes."""

    def __init__(self, send: Send, tags: bytes) -> None:
        self.send, self.tags = send, tags
        self.start: Message | None = None
        self.body = b""

    async def __call__(self, message: Message) -> None:
        if message["type"] == "http.response.start" and _is_plain_html(message):
            self.start = message
            return
        if message["type"] == "http.response.body" and self.start is not None:
            self.body += message.get("body", b"")
            if not message.get("more_body"):
                await self._send_rewritten(self.start)
            return
        await self.send(message)

    async def _send_rewritten(self, start: Message) -> None:
        body = self.body.replace(b"<head>", b"<head>" + self.tags, 1)
        # the length changed; the validator named the unedited file
        headers = [(k, v) for k, v in start.get("headers", [])
                   if k.lower() not in (b"content-length", b"etag")]
        headers.append((b"content-length", str(len(body)).encode()))
        await self.send({**start, "headers": headers})
        await self.send({"type": "http.response.body", "body": body})


def _is_plain_html(start: Message) -> bool:
    headers = {k.lower(): v for k, v in start.get("headers", [])}
    return (start.get("status") == 200 and b"content-encoding" not in headers
            and headers.get(b"content-type", b"").startswith(b"text/html"))


class Guard:
    """ASGI middleware in front of Streamlit's own endpoints that need not be public.

    - ``/_stcore/metrics`` answers 404 unless ``SIGBOARD_METRICS=1``: Streamlit has no
      setting for it, and it tells anyone the server's sessions and memory.
    - An upload to ``/_stcore/upload_file/SESSION/…`` is refused with 403 before its body is
      read unless that session may upload (:func:`app.auth.upload_session_allowed`: the
      server is open, or the session unlocked uploads with the token or a login): without
      the token nobody can fill the server's memory through the upload endpoint.
    """

    def __init__(self, app: ASGIApp, base_path: Callable[[], str] | None = None,
                 allowed: Callable[[str], bool] | None = None) -> None:
        self.app = app
        self.base_path = base_path or _configured_base_path
        self.allowed = allowed or _session_allowed

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] == "http":
            parts = _core_parts(scope.get("path", ""), self.base_path())
            if parts[:1] == ["metrics"] and not _metrics_on():
                await _refuse(send, 404, b"not found")
                return
            if parts[:1] == ["upload_file"] and scope.get("method") in ("PUT", "POST") \
                    and not (len(parts) >= 2 and self.allowed(parts[1])):
                await _refuse(send, 403, b"uploading is restricted on this server")
                return
        await self.app(scope, receive, send)


def _core_parts(path: str, base_path: str) -> list[str]:
    """The segments after ``[base]/_stcore/`` ([] for any other address)."""
    parts = [p for p in path.split("/") if p]
    head = [p for p in base_path.split("/") if p]
    if parts[:len(head)] != head:
        return []
    rest = parts[len(head):]
    return rest[1:] if rest[:1] == ["_stcore"] else []


def _metrics_on() -> bool:
    import os

    return os.environ.get("SIGBOARD_METRICS", "").strip().lower() in ("1", "true", "yes")


def _session_allowed(session_id: str) -> bool:
    from app.auth import upload_session_allowed

    return upload_session_allowed(session_id)


async def _refuse(send: Send, status: int, body: bytes) -> None:
    await send({"type": "http.response.start", "status": status,
                "headers": [(b"content-type", b"text/plain; charset=utf-8"),
                            (b"content-length", str(len(body)).encode())]})
    await send({"type": "http.response.body", "body": body})
