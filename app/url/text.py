"""Values from the URL inside messages: quoted, inert (no markdown, no HTML), isolated."""

from __future__ import annotations

from app.url.choices import MAX_TEXT
from engine.app_support import md_isolated, md_text


def quoted(value: str) -> str:
    """A value from the URL inside a message: quoted, inert (no markdown, no HTML), isolated."""
    return f"“{md_isolated(value[:MAX_TEXT])}”"


def inert(text: str) -> str:
    """``text`` (from the URL) inside a markdown message: inert, at most MAX_TEXT long."""
    return md_text(text[:MAX_TEXT])
