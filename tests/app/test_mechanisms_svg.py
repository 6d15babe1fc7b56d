"""The Mechanisms page's two charts, written as SVG (app/charts/mechanisms.py, #27 item 3).

Reference values: each cell is checked against the engine's own P(A beats B) result and
Kendall taus of the same synthetic data (no external reference); the colour ramp's
midpoint is the average of its two end colours.
"""

from __future__ import annotations

import re
import xml.etree.ElementTree as ET

import numpy as np
import pandas as pd

from app.charts.mechanisms import FADED, LABELS, pbeats_svg, ramp, tau_svg
from engine import build_matrix, mechanisms
from engine._text import ISOLATE, POP
from engine.results import Mechanisms

XSS = "<img src=x onerror=alert(1)>"
SVG = "{http://www.w3.org/2000/svg}"


def _result(names: list[str]) -> Mechanisms:
    rng = np.random.default_rng(0)
    rows = [{"benchmark": "b", "system": s, "example_id": f"e{j}", "metric": "m",
             "value": float(rng.random() < 0.15 + 0.15 * i)}
            for i, s in enumerate(names) for j in range(120)]
    return mechanisms(build_matrix(pd.DataFrame(rows)), n_permutations=2,
                      trueskill_permutations=1, rng=0)


def _tips(svg: str) -> list[str]:
    root = ET.fromstring(svg)
    return ["".join(t.itertext()).replace(ISOLATE, "").replace(POP, "")
            for g in root.iter(f"{SVG}g") for t in g.iter(f"{SVG}title")]


def test_pbeats_cells_are_the_engines_and_names_are_escaped() -> None:
    names = ["good", XSS, "a&b", "c", "d"]
    result = _result(names)
    order = list(result.rankings["mean"])
    svg = pbeats_svg(result.p_beats, order)
    assert "<img" not in svg
    tips = _tips(svg)
    assert len(tips) == len(names) * (len(names) - 1), "every ordered pair, diagonal blank"
    prob, table = result.p_beats.prob, result.p_beats.table
    for a, b, significant in zip(table["system_a"], table["system_b"], table["significant"],
                                 strict=True):
        for row, column in ((a, b), (b, a)):
            tip = next(t for t in tips if t.startswith(f"{row} vs {column}:"))
            assert f"P(A beats B) {prob.loc[row, column]:.2f};" in tip
            assert tip.endswith(": significant" if significant else ": not significant")
    faded = [r for r in ET.fromstring(svg).iter(f"{SVG}rect")
             if r.get("fill-opacity") == str(FADED) and r.get("width") != "14"]
    assert len(faded) == 2 * int((~table["significant"].astype(bool)).sum())
    texts = ["".join(t.itertext()).replace(ISOLATE, "").replace(POP, "")
             for t in ET.fromstring(svg).iter(f"{SVG}text")]
    assert all(texts.count(name) == 2 for name in order), "a row and a column label each"


def test_tau_cells_are_the_engines() -> None:
    result = _result(["a", "b", "c", "d"])
    names = list(LABELS)
    tips = _tips(tau_svg(result.kendall_tau, names, LABELS))
    assert len(tips) == len(names) ** 2
    for key, tau in result.kendall_tau.items():
        a, b = key.split("|")
        if a in LABELS and b in LABELS:
            assert f"{LABELS[a]} vs {LABELS[b]}: Kendall tau {tau:.2f}" in tips


def test_ramp_interpolates_between_stops() -> None:
    assert ramp(("#000000", "#ff8000"), np.array([0.5, np.nan, 2.0])) == [
        "#804000", "#000000", "#ff8000"]
    assert re.fullmatch(r"#[0-9a-f]{6}", ramp(("#123456", "#abcdef"), np.array([0.3]))[0])
