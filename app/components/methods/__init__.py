"""The Methods page's text: ``docs/methods.md``, read at run time.

The statistics are described once, in ``docs/methods.md`` (which the README links to). The
wheel ships only the ``engine`` and ``app`` packages, so the page reads the byte-identical
copy shipped beside this module as package data (``methods.md``);
``tests/app/test_app_methods.py`` fails when the two differ. Pure functions: no Streamlit.
"""

from __future__ import annotations

import re
from functools import cache
from importlib.resources import files

#: The section that holds the one reference list.
REFERENCES = "References"


@cache
def methods_markdown() -> str:
    """The whole of ``docs/methods.md`` (the packaged copy), as written."""
    return (files(__package__) / "methods.md").read_text(encoding="utf-8")


def page_markdown() -> str:
    """The page's markdown: the document without its ``# Methods`` title, which the page
    shows with ``st.title``."""
    return re.sub(r"\A# [^\n]*\n+", "", methods_markdown())


def sections() -> dict[str, str]:
    """Each ``## `` section's heading and body, in the document's order."""
    parts = re.split(r"^## (.+)$", methods_markdown(), flags=re.MULTILINE)
    return {head.strip(): body.strip() for head, body in zip(parts[1::2], parts[2::2], strict=True)}


def references() -> list[str]:
    """The reference list: one string per ``- `` entry of the References section, its
    wrapped lines joined by single spaces."""
    body = sections()[REFERENCES]
    entries = re.split(r"^- ", body, flags=re.MULTILINE)[1:]
    return [" ".join(entry.split()) for entry in entries]
