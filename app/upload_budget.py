"""Byte budgets on Streamlit's upload endpoint, per session and for the whole server.

Streamlit keeps every uploaded file in memory, per session, until the session ends or
the file is removed; any open session may upload (the :class:`app.fast_start.Guard`
refuses sessions without the token, but an open server has no token). 80 sessions each
sending 40 MiB killed a server in 3 GiB. :class:`UploadBudget`, ASGI middleware of
``app/server.py``, refuses an upload before its body is read when the bytes the server
already holds (Streamlit's store of uploaded files) plus the uploads in flight plus this
one would pass the session's budget (413) or the server's (503, try again later):

- ``SIGBOARD_SESSION_UPLOAD_BUDGET`` (default 200 MiB) per session;
- ``SIGBOARD_UPLOAD_BUDGET`` (default 384 MiB) for every session together: Streamlit holds
  a file about twice while it arrives, so 80 x 40 MiB from 80 sessions peaked at 1,014 MB
  under a 512 MiB budget (12 accepted) and stays under 1 GB under this one.

An upload without a ``Content-Length`` (chunked) is refused (411): its size must be known
before it is let in. Sizes take units as the upload limits do (``64M``, ``1G``).
"""

from __future__ import annotations

import os
import threading
from collections.abc import Callable, Mapping
from dataclasses import dataclass

from app.fast_start import ASGIApp, Receive, Scope, Send, _configured_base_path, _core_parts, _refuse

__all__ = ["Budgets", "UploadBudget", "held_bytes"]

_MiB = 1 << 20


@dataclass(frozen=True)
class Budgets:
    """Most bytes of uploads held at once: per session, and for the server."""

    session: int = 200 * _MiB
    server: int = 384 * _MiB

    @classmethod
    def from_env(cls, env: Mapping[str, str]) -> Budgets:
        """From ``SIGBOARD_SESSION_UPLOAD_BUDGET`` and ``SIGBOARD_UPLOAD_BUDGET``.

        >>> Budgets.from_env({"SIGBOARD_UPLOAD_BUDGET": "1G"}).server
        1073741824
        """
        from engine import Limits

        values = {}
        for field, var in (("session", "SIGBOARD_SESSION_UPLOAD_BUDGET"),
                           ("server", "SIGBOARD_UPLOAD_BUDGET")):
            text = str(env.get(var, "")).strip()
            if text:  # the same units as SIGBOARD_MAX_BYTES
                values[field] = Limits.from_mapping({"SIGBOARD_MAX_BYTES": text}).max_bytes
        return cls(**values)


def held_bytes() -> dict[str, int]:
    """Bytes of uploaded files Streamlit holds in memory, per session ({} when unknown)."""
    try:
        from streamlit.runtime import Runtime

        storage = getattr(Runtime.instance().uploaded_file_mgr, "file_storage", {})
        return {session: sum(len(rec.data) for rec in files.values())
                for session, files in list(storage.items())}
    except Exception:  # noqa: BLE001 - no runtime yet (tests), another file manager
        return {}


class UploadBudget:
    """ASGI middleware: refuse an upload past the session's or the server's byte budget
    before its body is read (see the module docstring)."""

    def __init__(self, app: ASGIApp, budgets: Budgets | None = None,
                 held: Callable[[], dict[str, int]] | None = None,
                 base_path: Callable[[], str] | None = None) -> None:
        self.app = app
        self.budgets = budgets or Budgets.from_env(os.environ)
        self.held = held or held_bytes
        self.base_path = base_path or _configured_base_path
        self.in_flight: dict[str, int] = {}
        self._lock = threading.Lock()

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        parts = _core_parts(scope.get("path", ""), self.base_path()) \
            if scope["type"] == "http" else []
        if parts[:1] != ["upload_file"] or len(parts) < 2 \
                or scope.get("method") not in ("PUT", "POST"):
            await self.app(scope, receive, send)
            return
        session = parts[1]
        size = _content_length(scope)
        if size is None:
            await _refuse(send, 411, b"an upload must state its Content-Length")
            return
        refusal = self._reserve(session, size)
        if refusal is not None:
            await _refuse(send, *refusal)
            return
        try:
            await self.app(scope, receive, send)
        finally:
            with self._lock:
                left = self.in_flight.get(session, 0) - size
                if left > 0:
                    self.in_flight[session] = left
                else:
                    self.in_flight.pop(session, None)

    def _reserve(self, session: str, size: int) -> tuple[int, bytes] | None:
        held = self.held()
        with self._lock:
            mine = held.get(session, 0) + self.in_flight.get(session, 0)
            everyone = sum(held.values()) + sum(self.in_flight.values())
            if mine + size > self.budgets.session:
                return 413, b"this session holds too many uploaded bytes; remove a file first"
            if everyone + size > self.budgets.server:
                return 503, b"the server holds too many uploads right now; try again later"
            self.in_flight[session] = self.in_flight.get(session, 0) + size
        return None


def _content_length(scope: Scope) -> int | None:
    for key, value in scope.get("headers", []):
        if key.lower() == b"content-length":
            try:
                size = int(value)
            except ValueError:
                return None
            return size if size >= 0 else None
    return None
