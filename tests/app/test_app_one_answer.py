"""One page, one answer: with "Group examples by" on, every chart of a page draws the same
clustered result as the table beside it (intervals, rank ranges, groups, significant pairs,
p-values, effect sizes, model estimates), also with a slice or another correction chosen, and
that result is the engine's cluster-robust one (the clustered benchmark of
``test_app_clusters.py``, whose examples here also carry a ``part``, first or second half,
to slice by; plus ``qj``, a judge metric with human labels on the same passages, and the
Overall page with qa's passages declared on upload)."""

from __future__ import annotations

import math
import re
from collections.abc import Iterator
from dataclasses import FrozenInstanceError, replace
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd
import pyarrow as pa
import pytest
from apptest_support import app, html_frame, no_exception, pictures
from pages_data_support import store_env
from streamlit.testing.v1 import AppTest
from test_app_clusters import _frame as cluster_frame

from app.data.query import PowerPlan, Query
from app.rank_span import rank_span
from app.url import View
from engine import (
    ClusterDesign,
    TestOptions,
    benchmark_health,
    build_matrix,
    cluster_codes,
    compare_ab,
    leaderboard,
    p_beats,
)
from engine.app_support import benchmark_part, leaderboard_headline, md_text
from engine.results import Leaderboard
from engine.store import open_store

CLUSTERED = {"benchmark": "qa", "cluster": "passage"}
#: The settings each chart is checked under: the clusters alone, with another correction,
#: and on one slice of the examples (the first 20 questions: all 8 passages).
SCENES: dict[str, dict[str, str]] = {
    "clustered": {},
    "bonferroni": {"correction": "bonferroni"},
    "slice": {"scol": "part", "sval": "first"},
}
#: The bidirectional isolates every name and tooltip is wrapped in.
_ISOLATES = dict.fromkeys(map(ord, "\u2066\u2067\u2068\u2069"))


def _qa() -> pd.DataFrame:
    """The clustered benchmark of ``test_app_clusters.py`` with a second attribute, ``part``
    (questions q0–q19 first, q20–q39 second), to slice by."""
    frame = cluster_frame()
    first = frame["example_id"].str[1:].astype(int) < 20
    return frame.assign(part=np.where(first, "first", "second"))


def _judged() -> pd.DataFrame:
    """qj: an LLM judge's score on each of 80 examples (8 passages) for 3 systems, and a human
    label on a random 40% of the examples (the judge biased by +0.05, 0 and -0.03)."""
    g = np.random.default_rng(7)
    labelled = g.random(80) < 0.4
    rows = []
    for system, shift, bias in (("base", 0.0, 0.05), ("cand", 0.06, 0.0), ("other", -0.04, -0.03)):
        for i in range(80):
            human = 0.5 + shift + g.normal(0, 0.15)
            passage = f"passage-{i % 8}"
            rows.append(("qj", system, f"j{i}", "judge_score", human + bias + g.normal(0, 0.05),
                         passage))
            if labelled[i]:
                rows.append(("qj", system, f"j{i}", "human_score", human, passage))
    return pd.DataFrame(rows, columns=["benchmark", "system", "example_id", "metric", "value",
                                       "passage"])


@pytest.fixture(scope="module")
def store(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Path]:
    frame = pd.concat([_qa(), _judged()], ignore_index=True)
    with store_env(tmp_path_factory.mktemp("one-answer") / "sigboard.db", frame) as path:
        # the Overall page groups a benchmark by the column declared on upload only
        open_store(f"sqlite:///{path}").set_benchmark_cluster("qa", "passage")
        yield path


def _reference(scene: str) -> Leaderboard:
    """The engine's cluster-robust leaderboard of qa under ``scene`` (:data:`SCENES`): the
    slice's examples only, or the correction chosen."""
    frame = _qa()
    if scene == "slice":
        frame = frame[frame["part"] == "first"]
    options = TestOptions(correction=SCENES[scene].get("correction", "holm-sidak"))
    matrix = build_matrix(frame.drop(columns=["passage", "part"]), benchmark="qa",
                          metric="score")
    design = ClusterDesign.from_codes(cluster_codes(frame, "passage", matrix.examples),
                                      "passage")
    return leaderboard(matrix, options, cluster=design)


@pytest.fixture(scope="module")
def board() -> Leaderboard:
    return _reference("clustered")


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


@pytest.mark.slow
@pytest.mark.parametrize("scene", SCENES)
def test_rank_chart_draws_the_tables_intervals_and_rank_ranges(store: Path, scene: str) -> None:
    board = _reference(scene)
    at = app("views/leaderboard.py", **CLUSTERED, **SCENES[scene], graph="ranks")
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


@pytest.mark.slow
@pytest.mark.parametrize("scene", SCENES)
def test_significance_graph_joins_the_pairs_the_table_groups_together(store: Path, scene: str
                                                                      ) -> None:
    board = _reference(scene)
    at = app("views/leaderboard.py", **CLUSTERED, **SCENES[scene], graph="static")
    no_exception(at)
    table = html_frame(at, "leaderboard").set_index("system")
    svg = next(p for p in pictures(at) if "significance graph" in p)
    edges = {_pair(m[1], m[2]): float(m[3]) for m in (
        re.match(r"(.+) – (.+): adjusted p ([0-9.e+-]+)", t) for t in titles(svg)) if m}
    assert set(edges) == _insignificant(board)
    reference = _reference_rows(board)
    for pair, p in edges.items():  # the edge's p is the table's pair's (drawn to 3 digits)
        assert f"{p:.3g}" == f"{float(getattr(reference[pair], 'pvalue_adj')):.3g}", pair
    vertices = {m[1]: m[2] for m in (re.match(r"(.+): mean \S+, rank \S+, group (.+)$", t)
                                     for t in titles(svg)) if m}
    assert vertices == table["group"].to_dict()


@pytest.mark.slow
@pytest.mark.parametrize("scene", SCENES)
def test_groups_chart_and_member_table_are_one_grouping(store: Path, scene: str) -> None:
    board = _reference(scene)
    at = app("views/leaderboard.py", **CLUSTERED, **SCENES[scene], graph="groups")
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


def _reference_rows(board: Leaderboard) -> dict[frozenset[str], object]:
    """Pair → the engine's row of the pair."""
    return {_pair(r.system_a, r.system_b): r for r in board.pairwise.table.itertuples()}


def _adjusted_p(at: AppTest) -> dict[frozenset[str], float]:
    """Pair → adjusted p of the Pairwise page's pairs table."""
    frame = at.dataframe[0].value
    return {_pair(a, b): float(p) for a, b, p in zip(frame["system A"], frame["system B"],
                                                     frame["adjusted p"], strict=True)}


@pytest.mark.slow
@pytest.mark.parametrize("scene", SCENES)
def test_pvalue_heatmap_draws_the_pairs_tables_adjusted_p(store: Path, scene: str) -> None:
    board = _reference(scene)
    at = app("views/pairwise.py", **CLUSTERED, **SCENES[scene], panel="table")
    no_exception(at)
    pairs = _adjusted_p(at)
    at = app("views/pairwise.py", **CLUSTERED, **SCENES[scene], panel="pvalues")
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


@pytest.mark.slow
@pytest.mark.parametrize("scene", SCENES)
@pytest.mark.parametrize("panel", ["effects", "pwpp"])
def test_vega_panels_draw_the_pairs_tables_values(store: Path, scene: str, panel: str) -> None:
    board = _reference(scene)
    at = app("views/pairwise.py", **CLUSTERED, **SCENES[scene], panel=panel)
    no_exception(at)
    frame = next(f for f in chart_data(at) if {"A", "B"} <= set(f.columns))
    reference = _reference_rows(board)
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
    reference = _reference_rows(board)
    for a, b, p in zip(frame[first], frame[second], frame[score], strict=True):
        row: Any = reference[_pair(a, b)]
        # a cell is the adjusted p where the pair differs, blank where it does not
        assert (pd.isna(p) and not row.significant) or math.isclose(p, row.pvalue_adj,
                                                                      rel_tol=1e-9), (a, b, p)


@pytest.mark.slow
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


def _models_chart(svg: str) -> dict[str, tuple[float, float, float]]:
    """Model → (estimate, interval low, high) of A/B compare's difference-by-model chart."""
    drawn = {}
    for tip in titles(svg):
        lines = dict(line.split(": ", 1) for line in tip.split("&#10;")[1:])
        if "estimate" in lines and lines["estimate"] != "—":
            low, high = lines["interval"].split(" to ")
            drawn[lines["model"]] = (float(lines["estimate"]), float(low), float(high))
    return drawn


@pytest.mark.slow
def test_compare_models_chart_is_the_models_table(store: Path) -> None:
    at = app("views/compare.py", **CLUSTERED, base="base", cand="cand")
    no_exception(at)
    # reference: the engine's cluster-robust A/B comparison of the same rows
    frame = _qa().drop(columns="part")
    ab = compare_ab(frame, baseline="base", candidate="cand", benchmark="qa", metric="score",
                    cluster="passage")
    svg = next(p for p in pictures(at) if "Difference by model" in p)
    drawn = _models_chart(svg)
    table = html_frame(at, "models")
    assert len(drawn) == len(table) == len(ab.models)
    for i, (row, (model, (estimate, low, high))) in enumerate(zip(
            ab.models.itertuples(), drawn.items(), strict=True)):
        shown = table.iloc[i]
        assert model == row.model  # the chart's rows are the table's, in its order
        # the chart's figures (4 decimals) are the table's (4 significant digits), the engine's
        for drawn_value, cell, exact in ((estimate, shown["estimate"], row.estimate),
                                         (low, shown["interval low"], row.ci_low),
                                         (high, shown["interval high"], row.ci_high)):
            assert math.isclose(drawn_value, exact, abs_tol=5e-5), (model, drawn_value, exact)
            assert math.isclose(float(cell), exact, rel_tol=5e-4, abs_tol=1e-12), (model, cell)


def _judge_reference() -> Leaderboard:
    """The engine's leaderboard of qj's judge scores, cluster-robust by passage."""
    frame = _judged()
    judged = frame[frame["metric"] == "judge_score"]
    matrix = build_matrix(judged.drop(columns="passage"), benchmark="qj", metric="judge_score")
    design = ClusterDesign.from_codes(cluster_codes(judged, "passage", matrix.examples),
                                      "passage")
    return leaderboard(matrix, cluster=design)


@pytest.mark.slow
def test_a_grouped_judge_metric_is_not_corrected_beside_a_clustered_table(store: Path
                                                                          ) -> None:
    # grouped by passage, the page's answer is the cluster-robust board's: PPI++, which
    # treats the examples as independent, is refused instead of leading above it
    at = app("views/leaderboard.py", benchmark="qj", metric="judge_score", cluster="passage")
    no_exception(at)
    reference = _judge_reference()
    assert at.markdown[0].value == f"**{md_text(leaderboard_headline(reference))}**"
    assert any("treats them as independent" in w.value and "clustered by" in w.value
               for w in at.warning)
    assert "judge corrected" not in " ".join(h.proto.body for h in at.get("html"))
    shown = html_frame(at, "leaderboard").set_index("system")["CI"]
    for row in reference.table.itertuples():
        assert shown[row.system] == f"[{row.ci_low:.4f}, {row.ci_high:.4f}]"
    # with no grouping the labels correct the judge, and the corrected table leads
    at = app("views/leaderboard.py", benchmark="qj", metric="judge_score", cluster="-")
    no_exception(at)
    corrected = html_frame(at, "judge corrected")
    assert set(corrected["system"]) == {"base", "cand", "other"}
    assert "leads on judge scores corrected" in at.markdown[0].value


def test_overall_pairs_are_the_declared_clusters_pairs(store: Path) -> None:
    at = app("views/overall.py", bench="qa", otab="pairs")
    no_exception(at)
    # reference: the engine's share of qa in an overall ranking grouped by its passages
    part = benchmark_part(_qa().drop(columns="part"), "qa", metrics=["score"],
                          cluster="passage")
    assert part.pairwise is not None
    reference = {_pair(r.system_a, r.system_b): r for r in part.pairwise.table.itertuples()}
    frame = at.dataframe[0].value
    assert len(frame) == len(reference)
    for a, b, cell in zip(frame["system A"], frame["system B"], frame["qa"], strict=True):
        row: Any = reference[_pair(a, b)]
        # a cell is the adjusted p where the pair differs on qa, blank where it does not
        assert (pd.isna(cell) or cell == "") == (not row.significant), (a, b, cell)
        if row.significant:
            assert math.isclose(float(cell), row.pvalue_adj, rel_tol=1e-9), (a, b, cell)


def _tip_lines(tip: str) -> tuple[str, dict[str, str]]:
    """(first line, name → value of the others) of a hover text written line by line."""
    first, *rest = tip.split("&#10;")
    return first, dict(line.split(": ", 1) for line in rest)


def test_distribution_boxes_are_the_bootstrap_tables(store: Path, board: Leaderboard) -> None:
    at = app("views/distributions.py", **CLUSTERED, dist="ranks", boot="200")
    no_exception(at)
    assert any(c.value.startswith("8 clusters of examples") for c in at.caption)
    table = html_frame(at, "bootstrap summary").set_index("system")
    boxes = dict(_tip_lines(t) for t in titles(pictures(at)[0]))
    assert set(boxes) == set(table.index)
    for system, box in boxes.items():
        # the box's median rank is the table's: one bootstrap of whole passages
        assert float(box["median"]) == float(table.loc[system, "median rank"]), system
    # the table's rank sets are the clustered Leaderboard's (the engine's clustered board)
    ranges = rank_span(board.table, board.rank_sets).set_index("system")
    for system in table.index:
        assert (int(table.loc[system, "rank set best"]), int(table.loc[system, "rank set worst"])
                ) == (int(ranges.loc[system, "low"]), int(ranges.loc[system, "high"])), system


def test_examples_difficulty_chart_is_the_health_reports(store: Path) -> None:
    # the Examples page does not group examples: its report is the plain one of qa
    at = app("views/examples.py", benchmark="qa")
    no_exception(at)
    matrix = build_matrix(_qa().drop(columns=["passage", "part"]), benchmark="qa",
                          metric="score")
    report = benchmark_health(matrix)
    bars = [t for t in titles(pictures(at)[0]) if t.endswith(" examples")]
    assert bars == [f"{lo:.2f} to {hi:.2f}: {n} examples" for lo, hi, n in zip(
        report.difficulty["bin_low"], report.difficulty["bin_high"], report.difficulty["count"],
        strict=True)]
    assert at.metric[0].value == str(report.size)


def test_watch_sequences_end_at_the_tables_intervals(store: Path) -> None:
    at = app("views/watch.py", benchmark="qa")
    no_exception(at)
    table = at.dataframe[0].value
    charts = pictures(at)
    assert len(charts) == len(table)  # one chart per challenger, in the table's order
    for row, svg in zip(table.itertuples(), charts, strict=True):
        last = re.match(r"after (\d+): \[(\S+), (\S+)\]$", titles(svg)[-1])
        assert last is not None, titles(svg)[-1]
        # the sequence's last look is the table's row (drawn to 3 significant digits)
        assert int(last[1]) == row.seen, row.challenger
        for drawn, shown in ((last[2], row.low), (last[3], row.high)):
            assert math.isclose(float(drawn), float(shown), rel_tol=5e-3, abs_tol=5e-4), (
                row.challenger, drawn, shown)


def test_a_query_is_frozen_and_built_once_from_the_url() -> None:
    view = View(benchmark="qa", metric="score", correction="holm", alpha=0.1, seed=3)
    q = Query.of(view, "token", cluster="passage", pair=("base", "cand"),
                 plan=PowerPlan(difference=0.02))
    assert q.options == TestOptions(correction="holm", alpha=0.1, seed=3)
    assert hash(q) == hash(replace(q))  # hashable, equal parts: one cache entry
    with pytest.raises(FrozenInstanceError):
        q.cluster = ""  # type: ignore[misc]
    # a result that reads only some parts is keyed by those alone, never by fewer
    assert q.narrowed(cluster=q.cluster, pair=q.pair) == Query(
        "token", "qa", "score", cluster="passage", pair=("base", "cand"))
    assert q.narrowed(pair=q.pair) != q.narrowed(pair=("cand", "base"))
    assert q.store_token == "token" and q.slice is None
