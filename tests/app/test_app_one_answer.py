"""One page, one answer: with "Group examples by" on, every chart of the Leaderboard and
Pairwise pages draws the same clustered result as the table beside it (intervals, rank
ranges, groups, significant pairs, p-values, effect sizes), and that result is the engine's
cluster-robust one (the clustered benchmark of ``test_app_clusters.py``)."""

from __future__ import annotations

import math
import re
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pandas as pd
import pyarrow as pa
import pytest
from apptest_support import app, html_frame, no_exception, pictures
from pages_data_support import store_env
from streamlit.testing.v1 import AppTest
from test_app_clusters import _engine_board as cluster_board
from test_app_clusters import _frame as cluster_frame

from engine import ClusterDesign, Leaderboard, build_matrix, cluster_codes, p_beats

CLUSTERED = {"benchmark": "qa", "cluster": "passage"}
#: The bidirectional isolates every name and tooltip is wrapped in.
_ISOLATES = dict.fromkeys(map(ord, "\u2066\u2067\u2068\u2069"))


@pytest.fixture(scope="module")
def store(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Path]:
    with store_env(tmp_path_factory.mktemp("one-answer") / "sigboard.db",
                   cluster_frame()) as path:
        yield path


@pytest.fixture(scope="module")
def board() -> Leaderboard:
    return cluster_board()


def titles(svg: str) -> list[str]:
    """The hover texts of an SVG chart, isolates and entities undone."""
    return [t.replace("&#58;", ":").translate(_ISOLATES)
            for t in re.findall(r"<title>(.*?)</title>", svg)]


def chart_data(at: AppTest, index: int = 0) -> list[pd.DataFrame]:
    """The datasets of the page's ``index``-th Vega-Lite chart, as frames."""
    charts = at.get("vega_lite_chart")
    assert len(charts) > index, "a Vega-Lite chart on the page"
    return [pa.ipc.open_stream(d.data.data).read_all().to_pandas()
            for d in charts[index].proto.datasets]


def _pair(a: str, b: str) -> frozenset[str]:
    return frozenset((a, b))


def _insignificant(board: Leaderboard) -> set[frozenset[str]]:
    t = board.pairwise.table
    return {_pair(a, b) for a, b, s in zip(t["system_a"], t["system_b"], t["significant"],
                                           strict=True) if not s}


def test_rank_chart_draws_the_tables_intervals_and_rank_ranges(store: Path,
                                                               board: Leaderboard) -> None:
    at = app("views/leaderboard.py", **CLUSTERED, graph="ranks")
    no_exception(at)
    table = html_frame(at, "leaderboard").set_index("system")
    tips = {m["system"]: m for m in (re.match(
        r"(?P<system>.+): mean (?P<mean>\S+), interval (?P<low>\S+) to (?P<high>\S+), "
        r"rank range (?P<ranks>.+)$", t) for t in titles(pictures(at)[0])) if m}
    assert set(tips) == set(table.index) == set(board.table["system"])
    for row in board.table.itertuples():
        low, high = map(float, table.loc[row.system, "CI"].strip("[]").split(","))
        tip = tips[row.system]
        # the chart's interval is the table's (and the engine's clustered one)
        assert math.isclose(float(tip["low"]), low, abs_tol=1e-4), (row.system, tip, low)
        assert math.isclose(float(tip["high"]), high, abs_tol=1e-4), (row.system, tip, high)
        assert math.isclose(low, row.ci_low, abs_tol=1e-4)
        assert tip["ranks"] == table.loc[row.system, "rank range"], row.system


def test_significance_graph_joins_the_pairs_the_table_groups_together(
        store: Path, board: Leaderboard) -> None:
    at = app("views/leaderboard.py", **CLUSTERED, graph="static")
    no_exception(at)
    table = html_frame(at, "leaderboard").set_index("system")
    svg = next(p for p in pictures(at) if "significance graph" in p)
    edges = {_pair(*m.groups()) for m in (re.match(r"(.+) – (.+): adjusted p", t)
                                          for t in titles(svg)) if m}
    assert edges == _insignificant(board)
    vertices = {m[1]: m[2] for m in (re.match(r"(.+): mean \S+, rank \S+, group (.+)$", t)
                                     for t in titles(svg)) if m}
    assert vertices == table["group"].to_dict()


def test_groups_chart_and_member_table_are_one_grouping(store: Path, board: Leaderboard
                                                        ) -> None:
    at = app("views/leaderboard.py", **CLUSTERED, graph="groups")
    no_exception(at)
    members = html_frame(at, "groups")
    listed = {frozenset(m.split(", ")) for m in members["members"]}
    frames = chart_data(at)
    drawn = next(f for f in frames if "system" in f.columns)
    charted = {frozenset(g["system"]) for _, g in drawn.groupby("group")}
    assert charted == listed
    covered = {s for c in board.cliques for s in c}
    assert listed == {frozenset(c) for c in board.cliques} | {
        frozenset([s]) for s in board.table["system"] if s not in covered}


def _adjusted_p(at: AppTest) -> dict[frozenset[str], float]:
    """Pair → adjusted p of the Pairwise page's pairs table."""
    frame = at.dataframe[0].value
    return {_pair(a, b): float(p) for a, b, p in zip(frame["system A"], frame["system B"],
                                                     frame["adjusted p"], strict=True)}


def _reference(board: Leaderboard) -> dict[frozenset[str], object]:
    """Pair → the engine's row of the pair."""
    return {_pair(r.system_a, r.system_b): r for r in board.pairwise.table.itertuples()}


def test_pvalue_heatmap_draws_the_pairs_tables_adjusted_p(store: Path, board: Leaderboard
                                                          ) -> None:
    at = app("views/pairwise.py", **CLUSTERED, panel="table")
    no_exception(at)
    pairs = _adjusted_p(at)
    at = app("views/pairwise.py", **CLUSTERED, panel="pvalues")
    no_exception(at)
    svg = next(p for p in pictures(at) if "adjusted p-values among" in p)
    cells = {(m[1], m[2]): float(m[3]) for m in (re.match(r"(.+) vs (.+): adjusted p (\S+)$", t)
                                                 for t in titles(svg)) if m}
    assert cells
    for (a, b), p in cells.items():
        assert f"{p:.2g}" == f"{pairs[_pair(a, b)]:.2g}", (a, b)
    for row in board.pairwise.table.itertuples():
        assert math.isclose(pairs[_pair(row.system_a, row.system_b)], row.pvalue_adj,
                            rel_tol=1e-9)


@pytest.mark.parametrize("panel", ["effects", "pwpp"])
def test_vega_panels_draw_the_pairs_tables_values(store: Path, board: Leaderboard,
                                                  panel: str) -> None:
    at = app("views/pairwise.py", **CLUSTERED, panel=panel)
    no_exception(at)
    frame = next(f for f in chart_data(at) if {"A", "B"} <= set(f.columns))
    reference = _reference(board)
    column, engine = ("effect", "effect_size") if panel == "effects" else ("p", "pvalue_adj")
    for a, b, value in zip(frame["A"], frame["B"], frame[column], strict=True):
        expected = float(getattr(reference[_pair(a, b)], engine))
        # the effect heatmap is the square matrix: B vs A is the same pair, the sign flipped
        assert math.isclose(abs(value), abs(expected), rel_tol=1e-9), (a, b, value, expected)


def test_across_metrics_table_is_the_clustered_pairs(store: Path, board: Leaderboard) -> None:
    at = app("views/pairwise.py", **CLUSTERED, panel="metrics")
    no_exception(at)
    frame = at.dataframe[0].value
    first, second, score = frame.columns[0], frame.columns[1], "score"
    reference = _reference(board)
    for a, b, p in zip(frame[first], frame[second], frame[score], strict=True):
        row: Any = reference[_pair(a, b)]
        # a cell is the adjusted p where the pair differs, blank where it does not
        assert (pd.isna(p) and not row.significant) or math.isclose(p, row.pvalue_adj,
                                                                      rel_tol=1e-9), (a, b, p)


def test_mechanisms_heatmap_draws_the_clustered_sign_tests(store: Path) -> None:
    frame = cluster_frame()
    matrix = build_matrix(frame.drop(columns="passage"), benchmark="qa", metric="score")
    design = ClusterDesign.from_codes(cluster_codes(frame, "passage", matrix.examples),
                                      "passage")
    reference = {_pair(r.system_a, r.system_b): r
                 for r in p_beats(matrix, cluster=design).table.itertuples()}
    at = app("views/mechanisms.py", **CLUSTERED)
    no_exception(at)
    svg = next(p for p in pictures(at) if "beats" in p)
    cells = [m for m in (re.match(r"(.+) vs (.+): P\(A beats B\) \S+; sign test, adjusted p "
                                  r"(\S+): (.+)$", t) for t in titles(svg)) if m]
    assert len(cells) == 2 * len(reference)
    for m in cells:
        row: Any = reference[_pair(m[1], m[2])]
        assert m[3] == f"{row.pvalue_adj:.2g}", (m[1], m[2])
        assert (m[4] == "significant") == bool(row.significant), (m[1], m[2])
