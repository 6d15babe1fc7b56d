"""The texts a harness log holds for one example: its prompt, its reference and a system's output.

Every reader that finds them adds three columns to its rows (docs/formats.md, "Texts"):
``prompt`` and ``reference`` (the same for every system that ran the example, so they
become example metadata) and ``output`` (one system's answer on one example and run, kept
per observation in the store's ``outputs`` table), plus ``content_hash``, a short hash of
prompt and reference that tells whether two systems saw the same example
(:func:`engine.harness._pairing.split_conflicts`). Texts are kept as written; the store
caps their length and the app shows them literally.
"""

from __future__ import annotations

from typing import Any

from ._common import short_hash

__all__ = ["TEXT_COLUMNS", "chat_text", "content_hash"]

#: The text columns a reader may add, in this order.
TEXT_COLUMNS: tuple[str, ...] = ("prompt", "reference", "output", "content_hash")


def _part_text(part: Any) -> str:
    if isinstance(part, str):
        return part
    if isinstance(part, dict):
        for key in ("text", "reasoning", "refusal"):
            if isinstance(part.get(key), str):
                return str(part[key])
        return f"[{part.get('type', 'content')}]"
    return str(part)


def chat_text(value: Any) -> str | None:
    """A prompt, target or output as one text: a string as is, a list of strings one per
    line, chat messages as ``role: text`` lines (non-text parts named in brackets).

    >>> chat_text([{"role": "system", "content": "Be brief."},
    ...            {"role": "user", "content": [{"type": "text", "text": "2+3?"}]}])
    'system: Be brief.\\nuser: 2+3?'
    >>> chat_text(["A", "B"]), chat_text(None)
    ('A\\nB', None)
    """
    if value is None:
        return None
    if isinstance(value, str):
        return value
    if isinstance(value, list | tuple):
        lines = []
        for item in value:
            if isinstance(item, dict) and "role" in item:
                content = item.get("content")
                body = (content if isinstance(content, str) else
                        "".join(_part_text(p) for p in content or []))
                lines.append(f"{item['role']}: {body}")
            else:
                lines.append(_part_text(item))
        return "\n".join(lines)
    return _part_text(value)


def content_hash(prompt: str | None, reference: str | None) -> str | None:
    """A short hash of what the example is (prompt and reference), or None without either.

    >>> content_hash("2+3?", "5") == content_hash("2+3?", "5"), content_hash(None, None)
    (True, None)
    """
    if prompt is None and reference is None:
        return None
    return short_hash(f"{prompt or ''}\x1f{reference or ''}")
