"""The SVG pictures (app/charts/svg.py, svg_pairwise.py), the SVG kit they share with the reports
(engine/report/_svg.py) and the Vega-Lite dicts (app/charts/vl.py).

Reference values: the charts' content is checked against the engine's leaderboard of
the same synthetic data (no external reference); the Vega-Lite dicts against what
altair itself writes for the same chart (altair's ``from_dict``/``to_dict`` round trip).
"""

from __future__ import annotations

import math
import re
import xml.etree.ElementTree as ET
from typing import Any

import altair as alt
import numpy as np
import pandas as pd
import pytest
from hypothesis import given
from hypothesis import strategies as st

from app.charts.graph import BEST, clique_spec, graph_frames
from app.charts.pairwise import effect_heatmap_spec, pwpp_spec
from app.charts.svg import rank_ci_svg, static_graph_svg
from app.charts.svg_pairwise import (
    difference_histogram_svg,
    pair_scatter_svg,
    pvalue_heatmap_svg,
)
from app.charts.vl import Spec
from engine import MetricSpec, build_matrix, leaderboard
from engine._text import ISOLATE, POP
from engine.app_support import nice_ticks
from engine.results import Leaderboard

XSS = "<img src=x onerror=alert(1)>"
SVG = "{http://www.w3.org/2000/svg}"


def _board(names: list[str], *, higher: bool = True) -> Leaderboard:
    rng = np.random.default_rng(0)
    rows = [{"benchmark": "b", "system": s, "example_id": f"e{j}", "metric": "m",
             "value": float(rng.random() < 0.2 + 0.12 * i)}
            for i, s in enumerate(names) for j in range(80)]
    return leaderboard(build_matrix(pd.DataFrame(rows), spec=MetricSpec(higher_is_better=higher)))


def _records(frame: pd.DataFrame) -> list[dict[str, Any]]:
    """The rows of ``frame`` as JSON-safe dicts (Python numbers, NaN/NA as None), as altair
    writes a dataset."""
    rows = frame.astype(object).where(frame.notna(), None).to_dict("records")
    return [{str(key): value.item() if isinstance(value, np.generic) else value
             for key, value in row.items()} for row in rows]


def _jsonable(spec: Spec) -> Spec:
    """``spec`` with its datasets (data frames) as records."""
    return {**spec, "datasets": {name: _records(frame) for name, frame in spec["datasets"].items()}}


def _as_chart(spec: Spec) -> Any:
    """The altair chart of a hand-written specification."""
    kinds: dict[str, Any] = {"layer": alt.LayerChart, "hconcat": alt.HConcatChart,
                             "vconcat": alt.VConcatChart}
    kind = next((k for k in kinds if k in spec), None)
    chart: Any = kinds[kind] if kind else alt.Chart
    return chart.from_dict(_jsonable(spec), validate=False)


def _texts(svg: str) -> list[str]:
    root = ET.fromstring(svg)  # a well-formed standalone document
    return [("".join(t.itertext())).replace(ISOLATE, "").replace(POP, "")
            for t in root.iter(f"{SVG}text")]


def test_rank_plot_labels_every_system_in_rank_order_and_escapes_names() -> None:
    names = ["good", XSS, "a&b", "c"]
    board = _board(names)
    svg = rank_ci_svg(board, percent=True)
    assert svg.startswith('<svg xmlns="http://www.w3.org/2000/svg"') and "<img" not in svg
    texts = _texts(svg)
    order = list(board.table["system"])
    assert [t for t in texts if t in names] == order, "one labelled row per system, best first"
    ranges = [f"{lo}–{hi}" if lo != hi else str(lo)
              for lo, hi in zip(board.table["rank_low"], board.table["rank_high"], strict=True)]
    rows = [[("".join(t.itertext())).replace(ISOLATE, "").replace(POP, "")
             for t in g.iter(f"{SVG}text")] for g in ET.fromstring(svg).iter(f"{SVG}g")]
    assert [row[-1] for row in rows] == ranges, "each row ends with its rank range"
    assert not re.search(r"https?://(?!www\.w3\.org/2000/svg)", svg), "no external reference"


def test_rank_plot_shows_only_the_systems_asked_for() -> None:
    board = _board([f"s{i}" for i in range(6)])
    best = tuple(board.table["system"][:3])
    assert {t for t in _texts(rank_ci_svg(board, systems=best)) if t.startswith("s")} == set(best)


def test_rank_plot_puts_the_better_end_on_the_right_for_lower_is_better() -> None:
    for higher in (True, False):
        board = _board(["a", "b", "c", "d"], higher=higher)
        root = ET.fromstring(rank_ci_svg(board))
        dots = [float(c.get("cx", "nan")) for c in root.iter(f"{SVG}circle")]
        assert dots == sorted(dots, reverse=True), "best first, further right"


def test_graph_labels_every_focused_system_and_marks_the_best_in_red() -> None:
    board = _board(["good", XSS, "a&b", "c", "d"])
    focus = tuple(board.table["system"][:4])
    svg = static_graph_svg(board, focus)
    assert "<img" not in svg and BEST.lower() in svg.lower()
    texts = _texts(svg)
    assert set(focus) <= set(texts) and str(board.table["system"].iloc[4]) not in texts
    edges = len([e for e in ET.fromstring(svg).iter(f"{SVG}line")
                 if e.get("stroke-opacity") is not None])
    _, pairs = graph_frames(board, focus)
    assert edges == len(pairs), "one line per non-significant pair among the focus"


@given(st.floats(-1e6, 1e6), st.floats(1e-6, 1e6))
def test_nice_ticks_lie_in_the_range_with_a_round_step(low: float, width: float) -> None:
    high = low + width
    ticks = nice_ticks(low, high)
    assert ticks and all(low - 1e-9 * abs(width) <= t <= high + 1e-9 * max(abs(high), 1)
                         for t in ticks)
    if len(ticks) > 1:
        step = ticks[1] - ticks[0]
        mantissa = step / 10 ** math.floor(math.log10(step))
        assert any(math.isclose(mantissa, m, rel_tol=1e-3) for m in (1, 2, 5, 10))


@pytest.mark.slow
def test_vega_dicts_are_what_altair_writes() -> None:
    board = _board(["a", "b", "c"])
    order = list(board.table["system"])
    for spec in (clique_spec(board), effect_heatmap_spec(board.pairwise, order),
                 pwpp_spec(board.pairwise, order)):
        written = _as_chart(spec).to_dict()  # validated against the Vega-Lite schema
        assert written == _jsonable(spec)


def test_pvalue_heatmap_labels_both_axes_and_escapes_names() -> None:
    board = _board(["good", XSS, "a&b", "c"])
    order = list(board.table["system"])
    svg = pvalue_heatmap_svg(board.pairwise, order)
    assert "<img" not in svg
    texts = _texts(svg)
    assert all(texts.count(name) == 2 for name in order), "a row and a column label each"
    cells = [r for r in ET.fromstring(svg).iter(f"{SVG}rect") if r.get("stroke") == "white"]
    assert len(cells) == len(order) * (len(order) - 1), "every compared pair, both ways"


def test_pair_charts_count_every_example() -> None:
    rng = np.random.default_rng(1)
    x, y = (rng.random(50) < 0.6).astype(float), (rng.random(50) < 0.4).astype(float)
    scatter = ET.fromstring(pair_scatter_svg(x, y, "a", XSS, binary=True))
    counts = [int("".join(t.itertext())) for t in scatter.iter(f"{SVG}text")
              if t.get("fill") == "white"]
    assert sum(counts) == 50, "the four circles count every example (the 2×2 table)"
    for binary, d in ((True, x - y), (False, rng.normal(size=200))):
        bars = ET.fromstring(difference_histogram_svg(d, "a", "b", binary=binary))
        tips = ["".join(t.itertext()) for g in bars.iter(f"{SVG}g") for t in g.iter(f"{SVG}title")]
        assert sum(int(re.search(r"(\d+) examples", t).group(1)) for t in tips) == len(d)


def test_fast_specs_carry_their_data_as_arrow() -> None:
    """``app/data/figures.py`` hands Streamlit Arrow bytes (it passes them through untouched)."""
    import pyarrow as pa

    from app.charts.examples import example_system_heatmap_spec
    from app.data.figures import arrow
    from engine import ScoreMatrix

    matrix = ScoreMatrix.from_array((np.random.default_rng(0).random((5, 300)) > 0.5).astype(float))
    spec = example_system_heatmap_spec(matrix)
    sent = arrow(spec)
    for name, frame in spec["datasets"].items():
        table = pa.ipc.open_stream(sent["datasets"][name]).read_all().to_pandas()
        assert table.reset_index(drop=True).equals(frame.reset_index(drop=True))
    assert sent["data"] == spec["data"] and "width" in sent


def test_reports_and_pages_cut_long_names_alike() -> None:
    """One cut for every chart: the report's interval chart and the Leaderboard's rank plot
    show a long name as the same first NAME_CHARS − 1 characters and "…"."""
    from engine.app_support import NAME_CHARS, cut_name
    from engine.report._svg import interval_svg

    long = "system-" + "x" * 60
    cut = cut_name(long)
    assert len(cut) == NAME_CHARS and cut.endswith("…")
    report = interval_svg([long], [0.5], [0.4], [0.6], x_label="mean", title="t")
    assert cut in report and long not in report
    board = _board([long, "b"])
    assert cut in _texts(rank_ci_svg(board))
