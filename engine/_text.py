"""Uploaded and linked text made inert wherever it is shown: HTML, Markdown, plain text.

System, benchmark, metric and column names, example texts and values from a link are data:
they are shown as the text they are, never read as markup. One function per place text goes:

- :func:`html_text` — HTML written by hand (tables, SVG charts, the reports), as element text
  or attribute value: ``&<>"'`` as entities and, unless the HTML is a document no markdown
  renderer reads (the reports), markdown's special characters as character references too,
  so the app's HTML stays inert where Streamlit's markdown reads it again; a browser shows
  every reference as the character itself.
- :func:`md_text` — markdown rendered with Streamlit's extensions (titles, captions, messages,
  widget labels): every ASCII punctuation character backslash-escaped, since ``:red[…]``,
  ``:emoji:``, ``$math$`` and bare links all start with ordinary punctuation.
  :func:`md_isolated` is the same between Unicode isolates, for a name inside a sentence.
- :func:`markdown_text` — a Markdown document (the reports, read on GitHub: no extensions):
  ``&<>`` as entities and only the characters that make markup or end a table cell
  escaped, so the raw file stays readable.
- :func:`isolate` — plain-text places (chart labels, tooltips, select box options).

Each of them first turns control characters and the Unicode line and paragraph separators
into spaces (:func:`one_line`): a name never breaks a line, a table row or an XML document.
Pure functions of the standard library; the engine's reports and the app share them (the
app may import the engine, never the reverse).
"""

from __future__ import annotations

import html
import re

__all__ = ["ISOLATE", "POP", "html_text", "isolate", "markdown_text", "md_isolated", "md_text",
           "one_line"]

_CONTROL = re.compile(r"[\x00-\x1f\x7f\u2028\u2029]")
#: First strong isolate … pop directional isolate: a right-to-left override inside a name
#: stays inside it (Unicode UAX #9).
ISOLATE, POP = "\u2068", "\u2069"
#: Markdown's special characters as character references (in HTML that markdown may read).
_MARKDOWN_ENTITIES = str.maketrans({"$": "&#36;", ":": "&#58;", "\\": "&#92;", "`": "&#96;",
                                    "*": "&#42;", "_": "&#95;", "~": "&#126;", "[": "&#91;",
                                    "]": "&#93;"})
#: Markdown's ASCII punctuation, backslash-escaped by :func:`md_text` (``/``, ``.``, ``@`` and
#: ``:`` too: they start autolinks, e-mail links, emoji and Streamlit's ``:red[…]`` directives).
_MARKDOWN_PUNCTUATION = frozenset("\\`*_{}[]()#+-.!|<>~$:/@=&%^\"'")
#: What makes markup (or ends a table cell) in a plain Markdown document.
_MARKDOWN_MARKUP = re.compile(r"([\\`*_\[\]#|~$])")


def one_line(text: object) -> str:
    """``text`` with every control character and line or paragraph separator as a space.

    >>> one_line("a\\nb\\u2028c")
    'a b c'
    """
    return _CONTROL.sub(" ", str(text))


def isolate(text: object) -> str:
    """``text`` on one line between Unicode isolates, for plain-text places."""
    return f"{ISOLATE}{one_line(text)}{POP}"


def html_text(text: object, *, markdown_safe: bool = True) -> str:
    """``text`` inert in HTML, as element text or attribute value.

    ``markdown_safe``: also inert where a markdown renderer reads that HTML again (markdown's
    special characters as character references); False for a document nothing reads as
    markdown (the reports), whose source then keeps those characters as they are.

    >>> html_text('<img src=x onerror="alert(1)"> [x](y)')
    '&lt;img src=x onerror=&quot;alert(1)&quot;&gt; &#91;x&#93;(y)'
    >>> html_text("a: [b]", markdown_safe=False)
    'a: [b]'
    """
    escaped = html.escape(one_line(text), quote=True)
    return escaped.translate(_MARKDOWN_ENTITIES) if markdown_safe else escaped


def md_text(text: object) -> str:
    """``text`` shown literally by Streamlit's markdown: ``[x](http://evil)`` is neither a
    link nor an image, ``<img …>`` no HTML, ``:red[x]`` no colour; line breaks as spaces.

    >>> md_text("[x](http://e.vil)")
    '\\\\[x\\\\]\\\\(http\\\\:\\\\/\\\\/e\\\\.vil\\\\)'
    """
    return "".join(f"\\{c}" if c in _MARKDOWN_PUNCTUATION else c for c in one_line(text))


def md_isolated(text: object) -> str:
    """:func:`md_text` between Unicode isolates: a name inside a sentence, which a
    right-to-left override inside it cannot reorder."""
    return f"{ISOLATE}{md_text(text)}{POP}"


def markdown_text(text: object) -> str:
    """``text`` inert in a Markdown document (also in a table cell): ``&<>`` as entities,
    markdown punctuation and ``|`` backslash-escaped, line breaks as spaces.

    >>> markdown_text("<b>a|b</b>")
    '&lt;b&gt;a\\\\|b&lt;/b&gt;'
    """
    return _MARKDOWN_MARKUP.sub(r"\\\1", html.escape(one_line(text), quote=False))
