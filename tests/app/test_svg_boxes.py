"""Unit tests of the Distributions page's SVG boxplots (``app/charts/svg_boxes.py``).

The statistics come from ``engine.box_stats`` on small hand-made samples; every
expected number below is read off those samples (stated at each assertion).
"""

from __future__ import annotations

import re
import xml.etree.ElementTree as ET

import numpy as np
import pandas as pd

from app.charts.svg_boxes import BOX_COLOR, MAX_OUTLIERS, NONE_COLOR, PALETTE, box_svg
from engine._text import ISOLATE, JOINER, POP
from engine.app_support import box_stats
from engine.results import BoxStats

SVG = "{http://www.w3.org/2000/svg}"
HOSTILE = ["<script>alert(1)</script>", "</svg><img src=x onerror=alert(1)>", "safe\u202eevil",
           "[x](http://evil) $y$ :red[z]"]


def _tree(svg: str) -> ET.Element:
    """The SVG parsed as XML: proof that no name closed or opened an element."""
    assert "\n" not in svg, "one line: tooltip line breaks are written as &#10;"
    return ET.fromstring(svg)  # the parser decodes the character references itself


def _child(element: ET.Element, tag: str) -> ET.Element:
    found = element.find(f"{SVG}{tag}")
    assert found is not None, tag
    return found


def _rows(svg: str) -> list[ET.Element]:
    return [g for g in _tree(svg).iter(f"{SVG}g") if g.find(f"{SVG}title") is not None]


def _names(svg: str) -> list[str]:
    """The system name written on each row, top to bottom, without its isolates."""
    return [(_child(row, "text").text or "").strip(ISOLATE + POP) for row in _rows(svg)]


def _tips(svg: str) -> list[str]:
    return [_child(row, "title").text or "" for row in _rows(svg)]


def test_one_row_per_system_in_the_given_order() -> None:
    x = np.arange(40.0).reshape(10, 4)  # column j holds 4i + j: four evenly spread samples
    stats = box_stats(x, ["a", "b", "c", "d"])
    svg = box_svg(stats, ["c", "a", "d", "b"], title="mean score")
    assert _names(svg) == ["c", "a", "d", "b"]
    tree = _tree(svg)
    assert tree.get("role") == "img" and "4 systems" in tree.get("aria-label", "")
    rects = [r for r in tree.iter(f"{SVG}rect")]
    assert len(rects) == 4 and {r.get("fill") for r in rects} == {BOX_COLOR}
    assert "mean score" in "".join(tree.itertext()), "the axis title"
    ys = [float(_child(row, "line").get("y1", "nan")) for row in _rows(svg)]
    assert ys == sorted(ys), "top to bottom in order"


def test_tooltip_has_the_five_numbers_mean_and_outliers() -> None:
    # one system, samples 1..9 and 100: q1 3.25, median 5.5, q3 7.75 (linear interpolation),
    # upper fence 7.75 + 1.5 × 4.5 = 14.5, so 100 is the one outlier and the whisker ends at 9
    sample = np.array([1, 2, 3, 4, 5, 6, 7, 8, 9, 100], dtype=float)[:, None]
    svg = box_svg(box_stats(sample, ["only"]), ["only"], title="score")
    (tip,) = _tips(svg)
    for part in ("n: 10", "whiskers: 1 to 9", "quartiles: 3.25 to 7.75", "median: 5.5",
                 "mean: 14.5", "outliers: 1"):
        assert part in tip, (part, tip)
    (row,) = _rows(svg)
    assert len(list(row.iter(f"{SVG}circle"))) == 1


def test_hostile_names_and_metadata_are_escaped_and_isolated() -> None:
    x = np.tile(np.arange(5.0)[:, None], (1, len(HOSTILE)))
    color = pd.Series({HOSTILE[0]: "</svg><script>alert(2)</script>", HOSTILE[1]: "g\u202e1"},
                      name="o'brien <b>")
    svg = box_svg(box_stats(x, HOSTILE), HOSTILE, title="mean [m](http://evil)", color=color)
    assert "<script" not in svg and "<img" not in svg and "<b>" not in svg
    assert "(http://evil" not in svg and "$y$" not in svg, "markdown sees entities, not a link or math"
    tree = _tree(svg)  # parses: no name closed the svg or opened an element
    assert {el.tag for el in tree.iter()} <= {f"{SVG}{t}" for t in
                                              ("svg", "g", "title", "text", "line", "rect",
                                               "circle")}
    texts = list(tree.itertext())
    assert f"{ISOLATE}safe\u202eevil{POP}" in texts, "an RTL override stays inside its isolate"
    assert f"{ISOLATE}g\u202e1{POP}" in texts, "metadata values too"
    assert f"{ISOLATE}</svg><script>alert(2)</script>{POP}" in texts, "shown as text"
    # a bare URL in a name is kept but never linked: a WORD JOINER (engine._text.JOINER) sits in '://'
    assert [name.replace(JOINER, "") for name in _names(svg)] == HOSTILE
    assert all("://" not in name for name in _names(svg))
    assert "o'brien <b>" in _tips(svg)[0]


def test_long_names_are_cut_and_whole_in_the_tooltip() -> None:
    name = "m" * 80
    svg = box_svg(box_stats(np.ones((3, 1)), [name]), [name], title="t")
    (shown,) = _names(svg)
    assert shown.endswith("…") and len(shown) < 40
    assert name in _tips(svg)[0]


def test_colour_legend_one_colour_per_value() -> None:
    x = np.arange(12.0).reshape(4, 3)
    stats = box_stats(x, ["a", "b", "c"])
    color = pd.Series({"a": "open", "b": "closed"}, name="licence")  # c has no value
    svg = box_svg(stats, ["a", "b", "c"], title="t", color=color)
    tree = _tree(svg)
    texts = [t.strip(ISOLATE + POP) for t in tree.itertext()]
    assert "licence" in texts and "open" in texts and "closed" in texts and "(none)" in texts
    # sorted values take the palette in turn; a missing value is grey
    fills = [_child(row, "rect").get("fill") for row in _rows(svg)]
    assert fills == [PALETTE[1], PALETTE[0], NONE_COLOR]
    assert "licence" in _tips(svg)[0] and "open" in _tips(svg)[0]


def test_outliers_are_capped_and_always_counted() -> None:
    # one system: 20,000 zeros and 6,000 distinct values in (1, 2): q1 = q3 = 0 (the 75th
    # percentile falls among the zeros), so each of the 6,000 is an outlier
    rng = np.random.default_rng(0)
    sample = np.concatenate([np.zeros(20_000), 1 + rng.random(6_000)])[:, None]
    stats = box_stats(sample, ["s"])
    assert int(stats.table["outliers"].iloc[0]) == 6_000
    svg = box_svg(stats, ["s"], title="t")
    circles = list(_tree(svg).iter(f"{SVG}circle"))
    assert 0 < len(circles) <= MAX_OUTLIERS
    assert "outliers: 6000" in _tips(svg)[0], "the whole count, not the points drawn"


def test_repeated_outliers_are_drawn_once() -> None:
    # ranks repeat: 90 samples of 1, ten of 5 (IQR 0, the tens are outliers, all at one spot)
    sample = np.array([1.0] * 90 + [5.0] * 10)[:, None]
    svg = box_svg(box_stats(sample, ["s"]), ["s"], title="rank", integer=True)
    assert len(list(_tree(svg).iter(f"{SVG}circle"))) == 1
    assert "outliers: 10" in _tips(svg)[0]


def test_degenerate_inputs_draw_without_error() -> None:
    same = box_svg(box_stats(np.full((5, 2), 0.5), ["a", "b"]), ["a", "b"], title="t")
    assert _names(same) == ["a", "b"]
    ticks = [t for t in _tree(same).itertext() if re.fullmatch(r"-?[\d.]+", t)]
    assert ticks and float(ticks[0]) < 0.5 < float(ticks[-1]), "an axis around equal values"
    # a system with no samples at all (NaN everywhere): its name and "—" in the tooltip
    x = np.array([[1.0, np.nan], [2.0, np.nan], [3.0, np.nan]])
    svg = box_svg(box_stats(x, ["a", "empty"]), ["a", "empty"], title="t")
    assert _names(svg) == ["a", "empty"]
    empty = _rows(svg)[1]
    assert empty.find(f"{SVG}rect") is None and "median: —" in _tips(svg)[1]
    # a row asked for without statistics, and no rows at all
    missing = box_svg(box_stats(np.ones((2, 1)), ["a"]), ["b", "a"], title="t")
    assert _names(missing) == ["b", "a"] and "no samples" in _tips(missing)[0]
    one = box_stats(np.ones((2, 1)), ["a"])
    nothing = BoxStats(one.table.iloc[:0], one.outliers.iloc[:0], one.whis)
    assert _rows(box_svg(nothing, [], title="t")) == []


def test_integer_axis_has_whole_ticks_only() -> None:
    ranks = np.array([[1.0, 2.0], [2.0, 1.0], [1.0, 2.0]])  # two systems, ranks 1 and 2
    svg = box_svg(box_stats(ranks, ["a", "b"]), ["a", "b"], title="rank", integer=True)
    ticks = [t for t in _tree(svg).itertext() if re.fullmatch(r"-?[\d.]+", t)]
    assert ticks == ["1", "2"]
