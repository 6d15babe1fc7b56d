"""Unit tests of the A/B compare page's SVG charts (``app/charts/svg_compare.py``).

The frames are hand-made in the shape of ``ABComparison.models`` and ``ABComparison.variance``
(``engine.compare_ab``); every expected pixel below is computed from the charts' layout
constants as stated at each assertion, and one test draws a real ``compare_ab`` result.
"""

from __future__ import annotations

import xml.etree.ElementTree as ET

import numpy as np
import pandas as pd
import pytest
from pages_data_support import compare_frame

from app.charts.compare import COMPONENT_NAMES, model_label
from app.charts.graph import BEST
from app.charts.svg_compare import MODEL_CHARS, axis_domain, models_svg, variance_svg
from engine import compare_ab
from engine._text import ISOLATE, POP

SVG = "{http://www.w3.org/2000/svg}"
HOSTILE = ["<script>alert(1)</script>", "</svg><img src=x onerror=alert(1)>", "safe\u202eevil",
           "مرحبا نموذج", "[x](http://evil) $y$ :red[z]"]


def _models(names: list[str], estimate: list[float], low: list[float], high: list[float],
            pvalue: list[float] | None = None) -> pd.DataFrame:
    return pd.DataFrame({"model": names, "estimate": estimate, "se": np.nan, "df": np.nan,
                         "statistic": np.nan,
                         "pvalue": pvalue if pvalue is not None else [0.5] * len(names),
                         "ci_low": low, "ci_high": high})


def _tree(svg: str) -> ET.Element:
    """The SVG parsed as XML: proof that no name closed or opened an element."""
    assert "\n" not in svg, "one line: tooltip line breaks are written as &#10;"
    return ET.fromstring(svg)


def _rows(svg: str) -> list[ET.Element]:
    return [g for g in _tree(svg).iter(f"{SVG}g") if g.find(f"{SVG}title") is not None]


def _label(row: ET.Element) -> str:
    text = row.find(f"{SVG}text")
    assert text is not None
    return (text.text or "").strip(ISOLATE + POP)


def _tip(row: ET.Element) -> str:
    title = row.find(f"{SVG}title")
    assert title is not None
    return title.text or ""


def _ticks(svg: str) -> dict[float, float]:
    """Each x tick label's value and pixel (the texts under the grid, below the rows)."""
    tree = _tree(svg)
    bottom = max(float(line.get("y2", "0")) for line in tree.iter(f"{SVG}line"))
    return {float(t.text.rstrip("%")): float(t.get("x", "nan"))
            for t in tree.iter(f"{SVG}text")
            if t.text and float(t.get("y", "0")) == bottom + 14}


def test_one_row_per_model_with_its_plain_label_interval_and_dot() -> None:
    models = _models(["ols", "ols-fe", "mcnemar (verdict)"], [0.1, 0.2, 0.15],
                     [-0.05, 0.1, 0.0], [0.25, 0.3, 0.3])
    svg = models_svg(models, metric="pass1", level="95%")
    tree = _tree(svg)
    assert tree.get("role") == "img" and tree.get("viewBox", "").startswith("0 0 ")
    assert "3 models" in tree.get("aria-label", "")
    rows = _rows(svg)
    assert [_label(r) for r in rows] == [model_label(m) for m in models["model"]]
    for row in rows:
        assert len(row.findall(f"{SVG}line")) == 1 and len(row.findall(f"{SVG}circle")) == 1
    text = "".join(tree.itertext())
    assert "Difference by model" in text, "the chart's title"
    assert "candidate − baseline (pass1; 95% interval)" in text, "the axis title"


def test_the_zero_line_is_at_the_pixel_of_zero() -> None:
    svg = models_svg(_models(["ols", "paired-t"], [0.3, 0.5], [0.1, 0.2], [0.5, 0.8]),
                     metric="m", level="95%")
    ticks = _ticks(svg)
    assert 0.0 in ticks, "0 is in view even when every interval is above it"
    (zero,) = [line for line in _tree(svg).iter(f"{SVG}line") if line.get("stroke") == BEST]
    assert zero.get("stroke-dasharray") and float(zero.get("x1", "nan")) == ticks[0.0]


def test_dots_and_interval_ends_sit_at_their_values_pixels() -> None:
    # the label column is 320 px, the plot 560 px over the axis of [0, 0.75] (0 kept in view)
    svg = models_svg(_models(["ols"], [0.5], [0.25], [0.75]), metric="m", level="95%")
    (row,) = _rows(svg)
    line, circle = row.find(f"{SVG}line"), row.find(f"{SVG}circle")
    assert line is not None and circle is not None
    low, high, _ = axis_domain(0.0, 0.75)

    def x(v: float) -> float:
        return 320 + 560 * (v - low) / (high - low)
    assert float(circle.get("cx", "nan")) == pytest.approx(x(0.5), abs=0.01)
    assert float(line.get("x1", "nan")) == pytest.approx(x(0.25), abs=0.01)
    assert float(line.get("x2", "nan")) == pytest.approx(x(0.75), abs=0.01)


@pytest.mark.parametrize(("low", "high"), [(-0.0709, 0.0994), (0.013, 0.87), (-3.2, -1.1),
                                           (0.0, 0.0), (1e-5, 3e-5), (-250.0, 1200.0)])
def test_ticks_cover_the_data(low: float, high: float) -> None:
    first, last, ticks = axis_domain(low, high)
    assert first <= low and last >= high and ticks[0] == first and ticks[-1] == last
    assert len(ticks) >= 2 and ticks == sorted(ticks)
    steps = np.diff(ticks)
    assert np.allclose(steps, steps[0]), "evenly spaced"


def test_ticks_of_the_chart_cover_every_interval() -> None:
    # the humaneval default pair's interval ends (best vs next best, 2026-11 demo data)
    models = _models(["ols", "ols-fe-cluster"], [0.0122, 0.0122], [-0.0709, -0.0750],
                     [0.0953, 0.0994])
    ticks = sorted(_ticks(models_svg(models, metric="pass1", level="95%")))
    assert ticks[0] <= -0.0750 and ticks[-1] >= 0.0994 and 0.0 in ticks


def test_missing_estimates_and_intervals_do_not_crash() -> None:
    models = _models(["ols", "mixedlm", "paired-t"], [0.1, np.nan, 0.2],
                     [np.nan, np.nan, 0.1], [np.nan, np.nan, 0.3], [0.2, np.nan, 0.01])
    rows = _rows(models_svg(models, metric="m", level="90%"))
    assert len(rows) == 3
    assert not rows[0].findall(f"{SVG}line") and len(rows[0].findall(f"{SVG}circle")) == 1
    assert not rows[1].findall(f"{SVG}circle") and "not estimable" in "".join(rows[1].itertext())
    assert "estimate: —" in _tip(rows[1]) and "interval: — to —" in _tip(rows[1])
    everything_missing = _models(["ols"], [np.nan], [np.nan], [np.nan])
    assert len(_rows(models_svg(everything_missing, metric="m", level="95%"))) == 1
    assert _rows(models_svg(everything_missing.iloc[:0], metric="m", level="95%")) == []


def test_hover_text_has_names_estimate_interval_and_p() -> None:
    models = _models(["ols-fe"], [0.012195], [-0.049358], [0.073748], [0.696147])
    tip = _tip(_rows(models_svg(models, metric="m", level="95%"))[0])
    for part in ("per-example baseline (fixed effects)", "model: ", "ols-fe",
                 "estimate: 0.0122", "interval: -0.0494 to 0.0737", "p: 0.696"):
        assert part in tip, (part, tip)


def test_long_labels_are_cut_with_the_whole_in_the_hover_text() -> None:
    label = model_label("cluster-vc-t (verdict)")
    assert len(label) > MODEL_CHARS, "a real label longer than the cut"
    (row,) = _rows(models_svg(_models(["cluster-vc-t (verdict)"], [0.1], [0.0], [0.2]),
                              metric="m", level="95%"))
    shown = _label(row)
    assert len(shown) == MODEL_CHARS and shown.endswith("…") and label in _tip(row)


def test_hostile_names_are_escaped_in_both_charts() -> None:
    n = len(HOSTILE)
    models = _models(HOSTILE, [0.1] * n, [0.0] * n, [0.2] * n)
    svg = models_svg(models, metric="<script>m</script>", level="95%")
    variance = pd.DataFrame({"component": HOSTILE, "variance": [0.1] * n, "share": [1 / n] * n})
    for drawn in (svg, variance_svg(variance)):
        assert "<script" not in drawn and "<img" not in drawn
        rows = _rows(drawn)
        # shown as text (html_text breaks a URL with a word joiner after "http:")
        assert [_label(r)[:8] for r in rows] == [h[:8] for h in HOSTILE]
        assert all(ISOLATE in _tip(r) for r in rows), "names isolated (RTL, overrides)"


def test_one_bar_per_component_with_a_share_and_percent_ticks() -> None:
    variance = pd.DataFrame({"component": ["example", "system×example", "run", "residual"],
                             "variance": [0.146416, 0.07968, np.nan, 0.01],
                             "share": [0.6, 0.3, np.nan, 0.1]})
    svg = variance_svg(variance)
    tree = _tree(svg)
    assert tree.get("role") == "img" and tree.get("viewBox", "").startswith("0 0 ")
    rows = _rows(svg)
    assert [_label(r) for r in rows] == [COMPONENT_NAMES[c] for c in
                                         ("example", "system×example", "residual")]
    ticks = _ticks(svg)
    assert sorted(ticks) == [0.0, 25.0, 50.0, 75.0, 100.0], "five ticks, in percent"
    # bar widths: share × 360 px (the plot from the tick at 0% to the one at 100%)
    assert ticks[100.0] - ticks[0.0] == 360
    widths = [float(r.find(f"{SVG}rect").get("width", "nan")) for r in rows]
    assert widths == pytest.approx([216.0, 108.0, 36.0])
    assert "variance: 0.1464" in _tip(rows[0]) and "share: 60.0%" in _tip(rows[0])
    text = "".join(tree.itertext())
    assert "Where the variance is" in text and "share of the variance" in text


def test_a_real_comparison_draws_every_model_and_component() -> None:
    ab = compare_ab(compare_frame().drop(columns="family"), baseline="base-model",
                    candidate="cand-model")
    assert len(_rows(models_svg(ab.models, metric="score", level="95%"))) == len(ab.models)
    shares = ab.variance["share"].notna().sum()
    assert len(_rows(variance_svg(ab.variance))) == shares
