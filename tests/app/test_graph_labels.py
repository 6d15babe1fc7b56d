"""Significance-graph labels never overlap (#27 item 6: readable graphs).

The label boxes are read back from the SVG the page shows (each ``<text>``'s position,
anchor, font size and text, its width estimated as in :mod:`app.charts.labels`) and no two
may intersect: on the demo benchmarks with the default focus (best 20), the largest
(best 40) and every system, and on a synthetic 60-system benchmark with close means.
The interactive graph (vis-network) is read back the same way from its nodes' JSON: each
label a ``text`` node centred on its box, on the same layout as the static graph.
No external reference: the property is geometric.
"""

from __future__ import annotations

import json
import re
import xml.etree.ElementTree as ET
from pathlib import Path

import numpy as np
import pandas as pd
import pytest

from app.charts.labels import LINE_EMS, Box, place_labels, text_width
from app.charts.network import network_html
from app.charts.svg import static_graph_svg
from engine import build_matrix, leaderboard
from engine._text import ISOLATE, POP
from engine.results import Leaderboard
from engine.store import open_store

SVG = "{http://www.w3.org/2000/svg}"


def label_boxes(svg: str) -> list[tuple[str, Box]]:
    """Each system label of the graph (font size 12 or 14) and its estimated box."""
    root = ET.fromstring(svg)
    boxes = []
    for t in root.iter(f"{SVG}text"):
        size = float(t.get("font-size", "0"))
        if size < 12 or t.get("transform"):  # axis ticks (11) and the axis title
            continue
        text = "".join(t.itertext()).replace(ISOLATE, "").replace(POP, "")
        width, height = text_width(text, size), size * LINE_EMS
        x, y = float(t.get("x", "0")), float(t.get("y", "0"))
        x0 = x if t.get("text-anchor", "start") == "start" else x - width
        boxes.append((text, Box(x0, y - height / 2, x0 + width, y + height / 2)))
    return boxes


def assert_no_overlap(svg: str, expected: int) -> None:
    boxes = label_boxes(svg)
    assert len(boxes) == expected, "every system shown has its label"
    clashes = [(a, b) for i, (a, box_a) in enumerate(boxes) for b, box_b in boxes[i + 1:]
               if box_a.meets(box_b)]
    assert not clashes, f"{len(clashes)} overlapping labels, e.g. {clashes[:3]}"
    view = ET.fromstring(svg).get("viewBox", "").split()
    width, height = float(view[2]), float(view[3])
    assert all(b.x0 >= 0 and b.x1 <= width and b.y0 >= 0 and b.y1 <= height
               for _, b in boxes), "every label inside the picture"


@pytest.fixture(scope="module")
def demo_frame(tmp_path_factory: pytest.TempPathFactory, demo_data: Path) -> pd.DataFrame:
    store = open_store(f"sqlite:///{tmp_path_factory.mktemp('labels') / 's.db'}")
    store.ensure_demo_data(demo_data)
    frame = store.load_frame()
    store.close()
    return frame


@pytest.mark.slow
@pytest.mark.parametrize("benchmark", ["humaneval", "CRUXEval-input", "mbpp"])
def test_demo_graph_labels_do_not_overlap(demo_frame: pd.DataFrame, benchmark: str) -> None:
    board = leaderboard(build_matrix(demo_frame, benchmark=benchmark))
    order = list(board.table["system"])
    for top in (20, 40, len(order)):
        assert_no_overlap(static_graph_svg(board, tuple(order[:top])), min(top, len(order)))


def test_sixty_close_systems_keep_separate_labels() -> None:
    assert_no_overlap(static_graph_svg(sixty_close_systems()), 60)


def test_place_labels_moves_a_label_that_would_cover_another() -> None:
    labels = place_labels([(100, 50, 5), (102, 50, 5), (104, 51, 5)], ["alpha", "beta", "gamma"],
                          [12, 12, 12], left=0, right=300, top=0, bottom=200)
    assert not any(a.box.meets(b.box) for i, a in enumerate(labels) for b in labels[i + 1:])
    assert not labels[0].moved and any(label.moved for label in labels[1:])


def test_place_labels_overflows_below_the_plot_when_crowded() -> None:
    points = [(50.0, 20.0, 4.0)] * 30  # thirty points in one place in a small plot
    labels = place_labels(points, [f"system {i}" for i in range(30)], [12] * 30, left=0,
                          right=120, top=0, bottom=40)
    assert not any(a.box.meets(b.box) for i, a in enumerate(labels) for b in labels[i + 1:])
    assert max(label.box.y1 for label in labels) > 40, "the rest in rows under the plot"


# ------------------------------------------------ the interactive graph (pyvis / vis-network)

def network_nodes(page: str) -> list[dict]:
    """The node list vis-network draws, read back from the page's JSON."""
    found = re.search(r"nodes = new vis\.DataSet\((\[.*?\])\);", page, re.S)
    assert found, "the page carries its nodes"
    nodes: list[dict] = json.loads(found.group(1))
    return nodes


def network_label_boxes(page: str) -> list[tuple[str, Box]]:
    """Each label node (a ``text`` node drawn centred on its position) and its estimated box,
    the static test's geometry: width :func:`text_width`, height ``LINE_EMS`` × font size."""
    boxes = []
    for node in network_nodes(page):
        if node.get("shape") != "text":
            continue
        text, size = node["label"], float(node["font"]["size"])
        width, height = text_width(text, size), size * LINE_EMS
        x, y = float(node["x"]), float(node["y"])
        boxes.append((text, Box(x - width / 2, y - height / 2, x + width / 2, y + height / 2)))
    return boxes


def assert_network_labels_apart(page: str, expected: int) -> None:
    boxes = network_label_boxes(page)
    assert len(boxes) == expected, "every system shown has its label"
    clashes = [(a, b) for i, (a, box_a) in enumerate(boxes) for b, box_b in boxes[i + 1:]
               if box_a.meets(box_b)]
    assert not clashes, f"{len(clashes)} overlapping labels, e.g. {clashes[:3]}"
    nodes = network_nodes(page)
    assert all(n.get("physics") is False and "x" in n and "y" in n for n in nodes), "fixed"
    assert '"dragNodes": false' in page, "a node cannot be dragged onto another's label"


def svg_dots(svg: str) -> list[tuple[float, float]]:
    root = ET.fromstring(svg)
    return sorted((float(c.get("cx", "0")), float(c.get("cy", "0")))
                  for c in root.iter(f"{SVG}circle"))


def sixty_close_systems() -> Leaderboard:
    rng = np.random.default_rng(3)
    skill = np.linspace(0.45, 0.55, 60)  # close means: the labels crowd together
    rows = [{"benchmark": "b", "system": f"provider/model-{i:02d}-instruct-2024", "metric": "m",
             "example_id": f"e{j}", "value": float(rng.random() < skill[i])}
            for i in range(60) for j in range(120)]
    return leaderboard(build_matrix(pd.DataFrame(rows)))


@pytest.mark.slow
@pytest.mark.parametrize("benchmark", ["humaneval", "CRUXEval-input", "mbpp"])
def test_demo_interactive_graph_labels_do_not_overlap(demo_frame: pd.DataFrame,
                                                      benchmark: str) -> None:
    board = leaderboard(build_matrix(demo_frame, benchmark=benchmark))
    order = list(board.table["system"])
    for top in (20, len(order)):
        assert_network_labels_apart(network_html(board, tuple(order[:top])),
                                    min(top, len(order)))


@pytest.mark.slow
def test_sixty_close_systems_keep_separate_interactive_labels() -> None:
    board = sixty_close_systems()
    page = network_html(board)
    assert_network_labels_apart(page, 60)
    dots = sorted((float(n["x"]), float(n["y"])) for n in network_nodes(page)
                  if n.get("shape") == "dot")
    static = svg_dots(static_graph_svg(board))  # written with two decimals
    assert len(dots) == len(static) == 60
    assert np.allclose(dots, static, atol=0.006), "the static graph's layout"
