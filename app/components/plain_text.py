"""User-provided text (system, benchmark, metric and column names) made inert for display.

Names come from uploads and from the URL: they are shown as text, never read as
markdown or HTML. :func:`html_text` is for HTML built by hand (``st.html``, the
exported report); :func:`md_text` (also named :func:`inert`, the upload pages' name)
for strings passed to markdown elements (captions, notes, messages, widget labels):
the escaping of :func:`app.ranked.plain`, without its Unicode isolates. Pure functions.
"""

from __future__ import annotations

import html

from app.ranked import _CONTROL, ISOLATE, POP, plain

_MARKDOWN_ENTITIES = str.maketrans({"$": "&#36;", ":": "&#58;", "\\": "&#92;", "`": "&#96;",
                                    "*": "&#42;", "_": "&#95;", "~": "&#126;", "[": "&#91;",
                                    "]": "&#93;"})


def html_text(text: object) -> str:
    """``text`` safe inside HTML, also where markdown later renders that HTML."""
    return html.escape(_CONTROL.sub(" ", str(text)), quote=True).translate(_MARKDOWN_ENTITIES)


def md_text(text: object) -> str:
    """``text`` shown literally by a markdown element: every markdown character escaped
    (``[x](http://evil)`` is neither a link nor an image nor HTML), line breaks as spaces."""
    return plain(text).removeprefix(ISOLATE).removesuffix(POP)


#: The upload pages' name for :func:`md_text`.
inert = md_text
