"""The command line reads a store's declared cluster columns (issue #26 item 1): ``overall``,
``leaderboard``, ``pairwise`` and ``compare`` on a store group each benchmark by the column declared for
it (``import --cluster COL``, the Upload page), ``--cluster COL`` overrides it and
``--cluster -`` turns it off. Reference: the engine's ``overall`` / ``leaderboard`` on the
same rows with the columns named explicitly (``cluster={"b1": "passage", "b2": "topic"}``)."""

from __future__ import annotations

import json
from pathlib import Path

import pandas as pd
import pytest
from test_clusters_everywhere import _clustered_frame

from engine.cli import main
from engine.products._overall import overall
from engine.report._overall_json import overall_document


def _frames() -> tuple[pd.DataFrame, pd.DataFrame]:
    """b1 grouped by passage, b2 by topic (another column name): 4 systems × 96 examples in
    12 clusters each."""
    both = _clustered_frame(("b1", "b2"))
    b1 = both[both["benchmark"] == "b1"]
    b2 = both[both["benchmark"] == "b2"].rename(columns={"passage": "topic"})
    return b1.reset_index(drop=True), b2.reset_index(drop=True)


@pytest.fixture
def store(sqlite_url: str, tmp_path: Path) -> str:
    for frame, column in zip(_frames(), ("passage", "topic"), strict=True):
        path = tmp_path / f"{frame['benchmark'].iloc[0]}.csv"
        frame.to_csv(path, index=False)
        assert main(["import", str(path), "--db", sqlite_url, "--cluster", column]) == 0
    return sqlite_url


def _json(capsys: pytest.CaptureFixture[str], *args: str) -> dict:  # type: ignore[type-arg]
    assert main([*args, "--format", "json"]) == 0
    return json.loads(capsys.readouterr().out)  # type: ignore[no-any-return]


@pytest.mark.slow  # the CLI reads each file in its memory-capped child (~1 s each)
def test_overall_groups_each_benchmark_by_its_declared_column(
        store: str, capsys: pytest.CaptureFixture[str]) -> None:
    capsys.readouterr()
    got = _json(capsys, "overall", store, "--benchmarks", "b1,b2")
    b1, b2 = _frames()
    want = overall_document(overall(pd.concat([b1, b2], ignore_index=True),
                                    benchmarks=["b1", "b2"],
                                    cluster={"b1": "passage", "b2": "topic"}))
    assert any(n.startswith("b1: clustered by passage: 12 clusters") for n in got["notes"])
    assert any(n.startswith("b2: clustered by topic: 12 clusters") for n in got["notes"])
    for mine, ref in zip(got["systems"], want["systems"], strict=True):  # type: ignore[arg-type]
        assert mine["system"] == ref["system"]
        assert mine["ci_low"] == pytest.approx(ref["ci_low"], rel=1e-9)
        assert mine["ci_high"] == pytest.approx(ref["ci_high"], rel=1e-9)
    off = _json(capsys, "overall", store, "--benchmarks", "b1,b2", "--cluster", "-")
    assert not any("clustered by" in n for n in off["notes"])
    assert off["systems"][0]["ci_low"] != got["systems"][0]["ci_low"]


@pytest.mark.slow
def test_leaderboard_and_pairwise_read_the_declared_column(
        store: str, capsys: pytest.CaptureFixture[str]) -> None:
    capsys.readouterr()
    lb = _json(capsys, "leaderboard", store, "--benchmark", "b2", "--bt-resamples", "0")
    assert (lb["cluster"], lb["n_clusters"]) == ("topic", 12)
    pw = _json(capsys, "pairwise", store, "--benchmark", "b1")
    assert (pw["cluster"], pw["n_clusters"]) == ("passage", 12)
    plain = _json(capsys, "pairwise", store, "--benchmark", "b1", "--cluster", "-")
    assert "cluster" not in plain


@pytest.mark.slow
def test_compare_reads_the_declared_column(store: str,
                                           capsys: pytest.CaptureFixture[str]) -> None:
    """The gate on a store groups by the declared column, as the engine's compare_ab does
    with the column named; ``--cluster -`` turns it off."""
    from engine.cli._json import ab_json
    from engine.stats._ab import compare_ab

    capsys.readouterr()
    b1, _ = _frames()
    systems = sorted(b1["system"].unique())
    args = ("compare", store, "--benchmark", "b1", "--baseline", systems[0],
            "--candidate", systems[1])
    assert main([*args, "--format", "json"]) in (0, 1)
    got = json.loads(capsys.readouterr().out)
    want = ab_json(compare_ab(b1, baseline=systems[0], candidate=systems[1], benchmark="b1",
                              cluster="passage"))
    assert got["ci_low"] == pytest.approx(want["ci_low"], rel=1e-9)
    assert got["ci_high"] == pytest.approx(want["ci_high"], rel=1e-9)
    assert got["n_clusters"] == want["n_clusters"] == 12
    assert main([*args, "--cluster", "-", "--format", "json"]) in (0, 1)
    plain = json.loads(capsys.readouterr().out)
    assert plain["ci_low"] != got["ci_low"]
