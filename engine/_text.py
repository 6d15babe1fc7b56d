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

Each of them first turns control characters (C0, DEL, C1) and the Unicode line and paragraph
separators into spaces and a lone surrogate into U+FFFD (:func:`one_line`): a name never breaks
a line, a table row, a Vega expression (a string literal there ends at U+2028) or an XML
document. The markdown places also break bare links (:func:`unlinked`): Streamlit's GFM
renderer links ``https://…``, ``www.…`` and ``a@b.c`` found in text *after* resolving
backslash escapes and character references, so escaping alone leaves them live; an invisible
WORD JOINER (U+2060) inside ``://``, after ``www`` and before ``@`` stops that.
Pure functions of the standard library; the engine's reports and the app share them (the
app may import the engine, never the reverse).
"""

from __future__ import annotations

import html
import re

__all__ = ["ISOLATE", "JOINER", "POP", "html_text", "isolate", "markdown_text", "md_isolated",
           "md_text", "masked", "one_line", "one_line_all", "safe_url", "unlinked"]

_CONTROL = re.compile("[\x00-\x1f\x7f-\x9f\u2028\u2029\ufffe\uffff]")
_SURROGATE = re.compile("[\ud800-\udfff]")
#: WORD JOINER: invisible, never a line break, and not a character any autolink accepts.
JOINER = "\u2060"
#: Where GFM's autolink literals start (``https://``, ``www.``) or join (``@``): remark-gfm's
#: patterns are ``(https?:\/\/|www(?=\.))`` and ``([-.\w+]+)@([-\w]+(?:\.[-\w]+)+)``.
_LINK_JOINTS = re.compile(r"(?<=:)(?=//)|(?<=www)(?=\.)|(?=@)", re.IGNORECASE)
#: First strong isolate … pop directional isolate: a right-to-left override inside a name
#: stays inside it (Unicode UAX #9).
ISOLATE, POP = "\u2068", "\u2069"
#: Markdown's special characters as character references (in HTML that markdown may read).
_MARKDOWN_ENTITIES = str.maketrans({c: f"&#{ord(c)};" for c in "$:\\`*_~[]"})
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
    return _SURROGATE.sub("\ufffd", _CONTROL.sub(" ", str(text)))


def one_line_all(value: object) -> object:
    """:func:`one_line` applied to every string inside nested dicts, lists and tuples (a chart
    specification: its data, sort orders and titles), keys included; other values as they are."""
    if isinstance(value, str):
        return one_line(value) if _CONTROL.search(value) or _SURROGATE.search(value) else value
    if isinstance(value, dict):
        return {one_line_all(k): one_line_all(v) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return [one_line_all(v) for v in value]
    return value


def unlinked(text: object) -> str:
    """:func:`one_line` with a WORD JOINER inside every ``://``, after every ``www`` before a
    dot and before every ``@``: no bare link for GFM's autolink literals; shown unchanged.

    >>> unlinked("see https://e.vil") == "see https:\u2060//e.vil"
    True
    """
    return _LINK_JOINTS.sub(JOINER, one_line(text))


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
    if not markdown_safe:
        return html.escape(one_line(text), quote=True)
    return html.escape(unlinked(text), quote=True).translate(_MARKDOWN_ENTITIES)


def md_text(text: object) -> str:
    """``text`` shown literally by Streamlit's markdown: ``[x](http://evil)`` is neither a
    link nor an image, ``<img …>`` no HTML, ``:red[x]`` no colour; line breaks as spaces.

    >>> md_text("[x](http://e.vil)")
    '\\\\[x\\\\]\\\\(http\\\\:\\u2060\\\\/\\\\/e\\\\.vil\\\\)'
    """
    return "".join(f"\\{c}" if c in _MARKDOWN_PUNCTUATION else c for c in unlinked(text))


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


# ------------------------------------------------------------- secrets in database URLs

#: ``scheme://user:`` (or ``user:`` without a scheme) then the password, up to the URL's last
#: ``@``: a password may hold ``@``, ``:`` or ``/`` unquoted, and a parser that splits at the
#: first ``@`` would show the rest of it as the host.
_SECRET = re.compile(r"((?:^(?!.*://)|://)[^/@:]*:)(?:.*)@(?=[^@]*$)", re.DOTALL)
_PASSWORD = re.compile(r"(?:^(?!.*://)|://)[^/@:]*:(.*)@[^@]*$", re.DOTALL)


def safe_url(url: str) -> str:
    """``url`` with its password masked, for messages.

    >>> safe_url("postgresql://me:p@ss/w:rd@db.example:5432/x")
    'postgresql://me:***@db.example:5432/x'
    """
    return _SECRET.sub(r"\1***@", url)


def masked(message: str, urls: list[str] | tuple[str, ...]) -> str:
    """``message`` with the password of every URL in ``urls`` masked, and every part of one
    split at ``@``, ``:`` and ``/`` (a database driver may quote one as a host name).

    >>> masked("failed to resolve host 'pw@db'", ["postgresql://u:s3cr:et@pw@db/x"])
    "failed to resolve host '***@db'"
    """
    secrets: set[str] = set()
    for url in urls:
        match = _PASSWORD.search(str(url))
        if match and match.group(1):
            secrets.add(match.group(1))
            secrets.update(part for part in re.split(r"[@:/]", match.group(1)) if len(part) >= 2)
    for secret in sorted(secrets, key=len, reverse=True):
        message = message.replace(secret, "***")
    return message
