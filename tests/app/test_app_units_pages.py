"""The pages left writing a 0/1 metric as fractions, or losing its percent display once runs
are averaged: A/B compare's chart of the difference by model, Overall, Slices, Conditions
and Watch. Each in the units of ``engine._units``: scores in percent ("82.9%"), differences
in percentage points ("+4.2 points"), other metrics with four decimals.

The store is as ``test_app_zero_one_runs``'s (seeded; 4 systems × 60 examples × 3 runs of a
pass/fail metric), whose cells are means of three 0/1 runs (``matrix.binary`` is False).
"""

from __future__ import annotations

import re
import xml.etree.ElementTree as ET
from collections.abc import Iterator
from pathlib import Path

import numpy as np
import pandas as pd
import pytest
from apptest_support import app, no_exception, other_html, pictures
from pages_data_support import store_env

from app.charts.svg_compare import models_svg

SVG = "{http://www.w3.org/2000/svg}"
BENCH = "runs01"
QUALITY = {"sys-a": 0.85, "sys-b": 0.65, "sys-c": 0.45, "sys-d": 0.25}
PERCENT = re.compile(r"^\d+\.\d%$")
POINTS = re.compile(r"^[+-]?\d+\.\d points$")


def runs_frame() -> pd.DataFrame:
    """As ``test_app_zero_one_runs.runs_frame`` without its flipped examples, with a column
    ``lang`` (one value per example) for the Slices page and the system settings ``model``
    and ``prompting`` (sys-a/sys-b and sys-c/sys-d differ only in prompting) for the
    Conditions page; plus a numeric benchmark ``num`` (scores in [0, 10], one run) for
    Overall, whose score is then standardised."""
    g = np.random.default_rng(44)
    model = {"sys-a": "m1", "sys-b": "m1", "sys-c": "m2", "sys-d": "m2"}
    prompting = {"sys-a": "cot", "sys-b": "direct", "sys-c": "cot", "sys-d": "direct"}
    rows = []
    for system, q in QUALITY.items():
        for run in range(3):
            for i in range(60):
                rows.append((BENCH, system, f"e{i:02d}", "pass", float(g.random() < q), run,
                             "py" if i % 2 else "go", model[system], prompting[system]))
        rows += [("num", system, f"n{i:02d}", "score", 10 * q * g.random(), 0, "py",
                  model[system], prompting[system]) for i in range(60)]
    return pd.DataFrame(rows, columns=["benchmark", "system", "example_id", "metric", "value",
                                       "run", "lang", "model", "prompting"])


@pytest.fixture(scope="module")
def store(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Path]:
    with store_env(tmp_path_factory.mktemp("units") / "sigboard.db", runs_frame()) as path:
        yield path


def _models(estimate: float, low: float, high: float) -> pd.DataFrame:
    return pd.DataFrame({"model": ["ols (verdict)"], "estimate": [estimate], "se": np.nan,
                         "df": np.nan, "statistic": np.nan, "pvalue": [0.2],
                         "ci_low": [low], "ci_high": [high]})


def _tick_labels(svg: str) -> list[str]:
    tree = ET.fromstring(svg)
    bottom = max(float(line.get("y2", "0")) for line in tree.iter(f"{SVG}line"))
    return [t.text or "" for t in tree.iter(f"{SVG}text")
            if float(t.get("y", "0")) == bottom + 14]


def test_difference_by_model_axis_is_in_points_for_a_zero_one_metric() -> None:
    # the humaneval default pair's verdict interval (as in test_svg_compare): 1.22 points,
    # interval -7.09 to +9.53 points (the models' table beside it shows 100 × these)
    models = _models(0.0122, -0.0709, 0.0953)
    svg = models_svg(models, metric="pass1", level="95%", percent=True)
    ticks = [float(t) for t in _tick_labels(svg)]
    # round ticks in points covering the interval in points, not fractions (-0.08 ... 0.1)
    assert min(ticks) <= -7.09 and max(ticks) >= 9.53 and 0.0 in ticks, ticks
    assert max(abs(t) for t in ticks) >= 5, ticks
    assert "candidate − baseline (pass1, points; 95% interval)" in svg
    tip = ET.fromstring(svg).find(f".//{SVG}title")
    assert tip is not None and tip.text is not None
    assert "estimate: +1.2 points" in tip.text and "interval: -7.1 to +9.5 points" in tip.text
    # a numeric metric keeps its own units
    plain = models_svg(models, metric="pass1", level="95%")
    assert max(abs(float(t)) for t in _tick_labels(plain)) < 1 and "points" not in plain


@pytest.mark.slow
def test_ab_compare_page_draws_the_difference_in_points(store: Path) -> None:
    at = app("views/compare.py", benchmark=BENCH, base="sys-b", cand="sys-a")
    no_exception(at)
    chart = next(p for p in pictures(at) if "Difference by model" in p)
    assert "points; 95% interval)" in chart
    ticks = [float(t) for t in _tick_labels(chart)]
    assert max(abs(t) for t in ticks) >= 5, ticks  # sys-a − sys-b is about 20 points


def _cells(html: str, label: str) -> list[str]:
    """The texts of the table cells whose phone label is ``label`` (before their interval)."""
    return re.findall(rf'<td data-label="{re.escape(label)}">([^<]*)<small>', html)


@pytest.mark.slow
def test_overall_writes_a_zero_one_benchmark_in_percent_beside_a_numeric_one(store: Path
                                                                            ) -> None:
    at = app("views/overall.py")
    no_exception(at)
    table = next(h for h in other_html(at) if 'aria-label="overall"' in h)
    assert "standardised score" in table  # the two benchmarks' units differ
    shares, numbers = _cells(table, BENCH), _cells(table, "num")
    assert len(shares) == len(QUALITY) and all(PERCENT.match(c) for c in shares), shares
    assert numbers and not any("%" in c for c in numbers), numbers


@pytest.mark.slow
def test_slices_keep_percent_with_repeated_runs(store: Path) -> None:
    at = app("views/slices.py", benchmark=BENCH, scol="lang")
    no_exception(at)
    table = next(h for h in other_html(at) if "sb-slices" in h and "<table" in h)
    means = re.findall(r'<td class="num"[^>]*>([^<]*)<small>', table)
    assert means and all(PERCENT.match(m) for m in means), means
    assert any("0/1 scores in percent" in c.value for c in at.caption)


@pytest.mark.slow
def test_conditions_keep_points_with_repeated_runs(store: Path) -> None:
    at = app("views/conditions.py", benchmark=BENCH)
    no_exception(at)
    shown = at.dataframe[0].value
    assert len(shown) == 2, shown  # m1 and m2, cot vs direct
    assert shown["difference"].str.fullmatch(POINTS).all(), shown["difference"].tolist()
    assert shown["interval"].str.fullmatch(r"\[[+-]\d+\.\d, [+-]\d+\.\d\] points").all()
