"""A 0/1 metric run several times reads as a 0/1 metric on every page: scores in percent,
differences in percentage points ("points"), and the Examples page finds its suspect
examples — although the per-example mean of the runs is a fraction (1/3, 2/3), which is
what the cells of the score matrix hold.

Synthetic store (seeded): 4 systems × 60 examples × 3 runs of a pass/fail metric; the
systems solve each example with probability 0.85, 0.65, 0.45, 0.25, except examples
``flip-0``–``flip-4``, which the worse systems solve and the better ones fail (probability
one minus that): the suspects by construction (Kendall's tau between solving and the
systems' ranks is below 0 there).
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from pathlib import Path

import numpy as np
import pandas as pd
import pytest
from apptest_support import app, html_frame, no_exception, ranked
from pages_data_support import store_env

from engine import build_matrix
from engine._units import difference_text, interval_text, score_text, zero_one

BENCH = "runs01"
QUALITY = {"sys-a": 0.85, "sys-b": 0.65, "sys-c": 0.45, "sys-d": 0.25}
FLIPPED = tuple(f"flip-{i}" for i in range(5))
POINTS = re.compile(r"^[+-]?\d+\.\d points$")


def runs_frame() -> pd.DataFrame:
    g = np.random.default_rng(44)
    examples = [*FLIPPED, *(f"e{i:02d}" for i in range(55))]
    rows = []
    for system, q in QUALITY.items():
        for run in range(3):
            for e in examples:
                p = 1.0 - q if e in FLIPPED else q
                rows.append((BENCH, system, e, "pass", float(g.random() < p), run))
    return pd.DataFrame(rows, columns=["benchmark", "system", "example_id", "metric", "value",
                                       "run"])


@pytest.fixture(scope="module")
def store(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Path]:
    with store_env(tmp_path_factory.mktemp("runs01") / "sigboard.db", runs_frame()) as path:
        yield path


def test_zero_one_is_decided_on_the_runs_own_scores() -> None:
    m = build_matrix(runs_frame(), benchmark=BENCH, metric="pass")
    # the cells are means of 3 runs (a fraction: not binary, so no McNemar) ...
    assert not m.binary and m.has_runs and ((m.values * 3) % 1 == 0).all()
    assert zero_one(m)  # ... but every run scored 0 or 1
    numeric = runs_frame().assign(value=lambda d: d["value"] * 0.5 + 0.25)
    assert not zero_one(build_matrix(numeric, benchmark=BENCH, metric="pass"))
    single = runs_frame().query("run == 0")
    assert zero_one(build_matrix(single, benchmark=BENCH, metric="pass"))


def test_the_formatters_write_one_unit_per_kind() -> None:
    assert score_text(0.829268, percent=True) == "82.9%"
    assert score_text(0.829268, percent=False) == "0.8293"
    assert difference_text(0.0716, percent=True) == "+7.2 points"
    assert difference_text(-0.0716, percent=True, signed=False) == "-7.2 points"
    assert difference_text(0.0716, percent=False) == "+0.0716"
    assert interval_text(-0.0068, 0.157, percent=True, difference=True) == "[-0.7, +15.7] points"
    assert interval_text(0.7643, 0.8792, percent=True) == "[76.4%, 87.9%]"
    assert difference_text(float("nan"), percent=True) == "—"


@pytest.mark.slow
def test_leaderboard_shows_percent(store: Path) -> None:
    at = app("views/leaderboard.py", benchmark=BENCH)
    no_exception(at)
    rows, _ = ranked(at)
    assert rows["mean"].str.fullmatch(r"\d+\.\d%").all(), rows["mean"].tolist()


@pytest.mark.slow
def test_pairwise_and_ab_compare_write_the_same_difference_in_points(store: Path) -> None:
    pair = app("views/pairwise.py", benchmark=BENCH, a="sys-a", b="sys-b")
    no_exception(pair)
    summary = next(m.value for m in pair.markdown if " beats " in m.value)
    on_pairwise = re.search(r" by (\d+\.\d points) \[", summary)
    assert on_pairwise, summary
    ab = app("views/compare.py", benchmark=BENCH, base="sys-b", cand="sys-a")
    no_exception(ab)
    difference = next(m.value for m in ab.metric if m.label == "Difference")
    assert POINTS.match(difference), difference
    # the same mean difference, in the same unit, on both pages
    assert difference.lstrip("+") == on_pairwise.group(1)
    # A/B's tables in the same units: scores in percent, the models' differences in points
    assert html_frame(ab, "per system")["mean"].str.fullmatch(r"\d+\.\d%").all()
    verdict_model = html_frame(ab, "models").iloc[-1]
    assert float(verdict_model["estimate"]) == pytest.approx(float(difference.split()[0]),
                                                             abs=0.051)
    table = app("views/pairwise.py", benchmark=BENCH, panel="table")
    no_exception(table)
    shown = table.dataframe[0].value
    m = build_matrix(runs_frame(), benchmark=BENCH, metric="pass")
    means = dict(zip(m.systems, np.nanmean(m.values, axis=1), strict=True))
    row = shown[(shown["system A"] == "sys-a") & (shown["system B"] == "sys-b")].iloc[0]
    # the table's column holds points: 100 × the difference of the means
    assert row["A − B"] == pytest.approx(100 * (means["sys-a"] - means["sys-b"]))


@pytest.mark.slow
def test_examples_page_shows_points_and_the_suspects(store: Path) -> None:
    at = app("views/examples.py", benchmark=BENCH)
    no_exception(at)
    metrics = {m.label: m.value for m in at.metric}
    assert int(metrics["suspect examples"]) >= len(FLIPPED)
    suspects = set(html_frame(at, "suspect examples")["example"])
    assert set(FLIPPED) <= suspects, suspects
    for label in ("smallest detectable difference", "largest gap not significant"):
        assert metrics[label] == "—" or POINTS.match(metrics[label]), (label, metrics[label])
    assert POINTS.match(metrics["smallest detectable difference"])


@pytest.mark.slow
def test_plan_page_shows_points(store: Path) -> None:
    at = app("views/plan.py", benchmark=BENCH)
    no_exception(at)
    mdd = next(m.value for m in at.metric if m.label == "Smallest detectable difference")
    assert POINTS.match(mdd), mdd


@pytest.mark.slow
def test_distributions_page_shows_percent(store: Path) -> None:
    at = app("views/distributions.py", benchmark=BENCH)
    no_exception(at)
    summary = html_frame(at, "bootstrap summary")
    assert summary["mean"].str.fullmatch(r"\d+\.\d%").all(), summary["mean"].tolist()
