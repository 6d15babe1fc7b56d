"""The leaderboard's ranked HTML table (app/ranked.py): escaping, formats, shading, links."""

from __future__ import annotations

import math

import pandas as pd
import pytest

from app.ranked import format_cell, ranked_html

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
    ("BT strength", 0.0123456, "0.0123"),
    ("rank", 3.0, "3"),
    ("n", 164, "164"),
    ("family", None, ""),
    ("family", math.nan, ""),
    ("family", pd.NA, ""),
    ("CI", "[0.1000, 0.2000]", "[0.1000, 0.2000]"),
    ("score", 0.5, "0.5"),
])
def test_cells_are_formatted_like_the_grid(column: str, value: object, shown: str) -> None:
    assert format_cell(column, value) == shown


def test_rows_keep_their_order_and_count() -> None:
    page = ranked_html(_rows(), COLUMNS)
    assert 'data-rows="3"' in page
    assert page.index(">best<") < page.index("&lt;img") < page.index("quote&quot;d")
    assert page.count("<tr") == 4, "a header row and one row per system"


def test_top_systems_are_shaded_and_names_link() -> None:
    page = ranked_html(_rows(), COLUMNS, top={"best"},
                       links={"best": "pairwise?a=best&b=x", XSS: "pairwise?a=%3Cimg"})
    assert page.count('class="top"') == 1
    assert '<a href="pairwise?a=best&amp;b=x"' in page
    assert '<a href="pairwise?a=%3Cimg"' in page
    assert page.count("<a ") == 2, "only systems with a link get one"


def test_header_tooltips_are_escaped() -> None:
    page = ranked_html(_rows(), COLUMNS, help={"rank": 'rank "1" < 2'})
    assert '<th class="num" title="rank &quot;1&quot; &lt; 2">rank</th>' in page
