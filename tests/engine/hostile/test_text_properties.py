"""Issue #33 item 5: the one escaping module (engine/_text.py), property-tested over arbitrary
Unicode (hypothesis): whatever a name holds, every rendering is one line, shows the name
itself, and leaves nothing that Streamlit's GFM markdown would turn into a link.

The link patterns are remark-gfm's autolink literals (mdast-util-gfm-autolink-literal:
``(https?:\\/\\/|www(?=\\.))`` and ``([-.\\w+]+)@([-\\w]+(?:\\.[-\\w]+)+)``), matched on the text
*after* backslash escapes and character references are resolved, as that renderer does.
"""

from __future__ import annotations

import html
import re

import pytest
from hypothesis import example, given
from hypothesis import strategies as st

from engine._text import (
    ISOLATE,
    JOINER,
    POP,
    html_text,
    isolate,
    markdown_text,
    md_isolated,
    md_text,
    one_line,
    one_line_all,
    unlinked,
)

#: remark-gfm's autolink literals (JavaScript's \w is ASCII, hence re.ASCII).
GFM_LINK = re.compile(r"https?://|www(?=\.)|[-.\w+]+@[-\w]+(?:\.[-\w]+)+", re.IGNORECASE | re.ASCII)
#: What must never be left in a rendering: C0/C1 controls, DEL, line/paragraph separators,
#: the XML non-characters U+FFFE/U+FFFF and lone surrogates.
UNSAFE = re.compile("[\x00-\x1f\x7f-\x9f\u2028\u2029\ufffe\uffff\ud800-\udfff]")
LINKY = st.sampled_from(["https://evil.example/login", "http://e.vil", "www.evil.com",
                         "a@b.co", "WWW.X.Y", "HTTPS://X", "src=http://x", "\u2028", "\u2029",
                         "\x85", "\ud800", "[x](http://e)", "<img src=x>", ":red[a]"])
#: Arbitrary Unicode (surrogates too), mixed with the fragments that matter here.
TEXTS = st.lists(st.one_of(st.text(st.characters(codec=None)), LINKY), max_size=6).map("".join)


def _unescape_markdown(text: str) -> str:
    """What the markdown renderer shows: backslash escapes and character references resolved."""
    return re.sub(r"\\(.)|(&#?\w+;)", lambda m: m.group(1) if m.group(1) is not None
                  else html.unescape(m.group(2)), text, flags=re.DOTALL)


def _shown(text: str) -> str:
    return text.replace(JOINER, "")


@given(TEXTS)
@example("see https://evil.example/login and www.evil.com, mail a@b.co")
@example("&#0")
def test_md_text_shows_the_text_and_no_link(text: str) -> None:
    out = md_text(text)
    assert not UNSAFE.search(out)
    shown = _unescape_markdown(out)
    assert not GFM_LINK.search(shown), shown
    assert _shown(shown) == _shown(one_line(text)), "the text itself, every character"


@given(TEXTS)
def test_md_isolated_is_isolated(text: str) -> None:
    out = md_isolated(text)
    assert out.startswith(ISOLATE) and out.endswith(POP)
    assert not GFM_LINK.search(_unescape_markdown(out))


@given(TEXTS)
def test_html_text_is_inert_and_no_link(text: str) -> None:
    out = html_text(text)
    assert not re.search("[<>\"'`\\[\\]]", out), out
    assert not UNSAFE.search(out)
    shown = html.unescape(out)
    assert not GFM_LINK.search(shown), shown
    assert _shown(shown) == _shown(one_line(text))


@given(TEXTS)
def test_html_text_for_documents_is_the_text(text: str) -> None:
    out = html_text(text, markdown_safe=False)
    assert not re.search("[<>\"']", out) and not UNSAFE.search(out)
    assert html.unescape(out) == one_line(text), "a report shows the name unchanged"


@given(TEXTS)
def test_markdown_document_text_is_one_line(text: str) -> None:
    out = markdown_text(text)
    assert not UNSAFE.search(out) and "<" not in out and ">" not in out
    assert not re.search(r"(?<!\\)\|", out), "never ends a table cell"


@given(TEXTS)
def test_one_line_keeps_length_and_removes_every_break(text: str) -> None:
    out = one_line(text)
    assert len(out) == len(text), "one character for one: positions kept"
    assert not UNSAFE.search(out)
    assert out.splitlines() in ([out], []), "str.splitlines finds no break (U+0085 and U+2028 too)"
    out.encode("utf-8")  # no lone surrogate: always encodable
    assert isolate(text) == f"{ISOLATE}{out}{POP}"


@given(TEXTS)
def test_unlinked_only_adds_joiners(text: str) -> None:
    out = unlinked(text)
    assert out.replace(JOINER, "") == one_line(text).replace(JOINER, "")
    assert not GFM_LINK.search(out)


@pytest.mark.slow
@given(st.recursive(st.one_of(TEXTS, st.integers(), st.floats(allow_nan=False), st.none()),
                    lambda inner: st.one_of(st.lists(inner, max_size=4),
                                            st.dictionaries(TEXTS, inner, max_size=4)),
                    max_leaves=12))
def test_one_line_all_reaches_every_string(value: object) -> None:
    def strings(v: object) -> list[str]:
        if isinstance(v, str):
            return [v]
        if isinstance(v, dict):
            return [s for k, x in v.items() for s in strings(k) + strings(x)]
        if isinstance(v, list):
            return [s for x in v for s in strings(x)]
        return []
    assert not any(UNSAFE.search(s) for s in strings(one_line_all(value)))
