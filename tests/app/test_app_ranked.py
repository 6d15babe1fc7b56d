"""The leaderboard's ranked HTML table (app/ranked.py): escaping, formats, shading, links."""

from __future__ import annotations

import math

import pandas as pd
import pytest

from app.ranked import format_cell, html_table, ranked_html

XSS = "<img src=x onerror=alert(1)>"
COLUMNS = ["system", "rank", "group", "mean", "win rate", "Elo", "family"]


def _rows() -> pd.DataFrame:
    return pd.DataFrame({
        "system": ["best", XSS, 'quote"d & co'],
        "rank": [1, 2, 3],
        "group": ["a", "ab", "b"],
        "mean": [0.81234567, 0.5, 0.25],
        "win rate": [0.75, 0.5, 0.125],
        "Elo": [1090.4, 1000.0, 909.6],
        "family": ["llama", None, "=cmd"],
    })


def test_every_value_is_escaped() -> None:
    page = ranked_html(_rows(), COLUMNS)
    assert "<img" not in page
    assert "&lt;img src=x onerror=alert(1)&gt;" in page
    assert "quote&quot;d &amp; co" in page


@pytest.mark.parametrize(("column", "value", "shown"), [
    ("mean", 0.81234567, "0.8123"),
    ("win rate", 0.125, "12.5%"),
    ("Elo", 1090.4, "1090"),
    ("strength (share)", 0.0123456, "0.0123"),
    ("rank", 3.0, "3"),
    ("n", 164, "164"),
    ("family", None, "—"),
    ("family", math.nan, "—"),
    ("family", pd.NA, "—"),
    ("CI", "[0.1000, 0.2000]", "[0.1000, 0.2000]"),
    ("score", 0.5, "0.5"),
])
def test_cells_are_formatted_like_the_grid(column: str, value: object, shown: str) -> None:
    assert format_cell(column, value) == shown


def test_markdown_syntax_in_names_is_neutralised() -> None:
    rows = _rows().assign(system=["$x^2$ :smile: *b* _i_ `c`", "b", "c"])
    page = ranked_html(rows, ["system"])
    assert "&#36;x^2&#36; &#58;smile&#58; &#42;b&#42; &#95;i&#95; &#96;c&#96;" in page
    assert "\n" not in page, "one line: markdown never ends the HTML block early"


def test_rows_keep_their_order_and_count() -> None:
    page = ranked_html(_rows(), COLUMNS)
    assert 'data-rows="3"' in page
    assert page.index(">best<") < page.index("&lt;img") < page.index("quote&quot;d")
    assert page.count("<tr") == 4, "a header row and one row per system"


def test_top_systems_are_shaded_and_names_link() -> None:
    page = ranked_html(_rows(), COLUMNS, top={"best"},
                       links={"best": "pairwise?a=best&b=x", XSS: "pairwise?a=%3Cimg"})
    assert page.count('class="top"') == 1
    assert '<a href="pairwise?a=best&amp;b=x" target="_self">' in page
    assert '<a href="pairwise?a=%3Cimg" target="_self">' in page
    assert page.count("<a ") == 2, "only systems with a link get one"


def test_header_tooltips_are_escaped() -> None:
    page = ranked_html(_rows(), COLUMNS, help={"rank": 'rank "1" < 2'})
    assert '<th title="rank &quot;1&quot; &lt; 2">rank</th>' in page


def test_numeric_columns_are_right_aligned_by_position() -> None:
    page = ranked_html(_rows(), COLUMNS)
    assert ".sb-ranked td:nth-child(2),.sb-ranked th:nth-child(2){text-align:right}" in page
    assert "td:nth-child(3){font-family" in page, "group letters are monospaced"
    assert "nth-child(7){text-align" not in page, "metadata text stays left-aligned"


def test_html_table_escapes_formats_and_marks_missing_values() -> None:
    frame = pd.DataFrame({"example": ["<img src=x onerror=alert(1)>", "e2"],
                          "agreement": [-0.25, math.nan], "count": [3, 4]})
    html = html_table(frame, label="suspects", formats={"agreement": ".3f"},
                      help={"agreement": "Kendall's tau"})
    assert "<img" not in html and "&lt;img src=x onerror=alert(1)&gt;" in html
    assert "-0.250" in html and "—" in html, "the format, and '—' for a missing value"
    assert 'aria-label="suspects"' in html and 'data-rows="2"' in html
    assert 'title="Kendall&#x27;s tau"' in html
    assert "td:nth-child(2)" in html and "td:nth-child(3)" in html, "numbers right-aligned"
    assert "max-height:420px" in html and "max-height" not in html_table(frame, label="t",
                                                                          max_height=None)
