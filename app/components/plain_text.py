"""User-provided text (system, benchmark, metric and column names) made inert for display.

Names come from uploads and from the URL: they are shown as text, never read as
markdown or HTML. :func:`html_text` is for HTML built by hand (``st.html``, the
exported report); :func:`md_text` for strings passed to markdown elements
(captions, notes, messages); :func:`inert` for the upload pages' labels and
messages. Pure functions.
"""

from __future__ import annotations

import html
import re

_MARKDOWN_ENTITIES = str.maketrans({"$": "&#36;", ":": "&#58;", "\\": "&#92;", "`": "&#96;",
                                    "*": "&#42;", "_": "&#95;", "~": "&#126;", "[": "&#91;",
                                    "]": "&#93;"})
#: Markdown's ASCII punctuation (and ``:`` for emoji and ``:red[…]`` directives, ``/`` and
#: ``@`` for autolinks), each backslash-escaped by :func:`md_text`.
_MARKDOWN = frozenset("\\`*_{}[]()#+-.!|<>~$:/@=&%^\"'")
_CONTROL = re.compile(r"[\x00-\x1f\x7f\u2028\u2029]")


def html_text(text: object) -> str:
    """``text`` safe inside HTML, also where markdown later renders that HTML."""
    return html.escape(_CONTROL.sub(" ", str(text)), quote=True).translate(_MARKDOWN_ENTITIES)


def md_text(text: object) -> str:
    """``text`` shown literally by a markdown element: every markdown character escaped."""
    return "".join(f"\\{c}" if c in _MARKDOWN else c for c in _CONTROL.sub(" ", str(text)))


_MD_SPECIAL = re.compile(r"([\\`*_{}\[\]<>()#+\-.!|:~$&\"'=])")


def inert(text: object) -> str:
    """``text`` escaped for Streamlit Markdown (labels, messages): shown literally, so a
    name like ``[x](http://evil)`` is neither a link nor an image nor HTML."""
    return _MD_SPECIAL.sub(r"\\\1", str(text)).replace("\n", " ")

