""""Group examples by" on Mechanisms and Distributions (issue #26 item 1), as on the
Leaderboard: the same URL ``cluster`` and default (the declared column), the same sentence,
and one system's rank range equal to the Leaderboard's under the same clustering; the
Tukey intervals, the sign tests and the bootstrap are the engine's clustered ones
(synthetic: 3 systems × 40 questions in 8 passages, tests/app/test_app_clusters.py)."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest
from apptest_support import app, html_frame, no_exception
from pages_data_support import store_env
from streamlit.testing.v1 import AppTest
from test_app_clusters import _frame

from app.components.mechanisms_table import rankings_html
from app.data import results
from engine import (
    ClusterDesign,
    bootstrap_ranks,
    build_matrix,
    cluster_codes,
    leaderboard,
    mechanisms,
    p_beats,
    rank_intervals_of,
)
from engine.store import open_store


def _design() -> tuple[object, ClusterDesign]:
    frame = _frame()
    matrix = build_matrix(frame.drop(columns="passage"), benchmark="qa", metric="score")
    return matrix, ClusterDesign.from_codes(cluster_codes(frame, "passage", matrix.examples),
                                            "passage")


@pytest.fixture(scope="module")
def store(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Path]:
    path = tmp_path_factory.mktemp("clusters-mech") / "sigboard.db"
    with store_env(path, _frame()):
        open_store(f"sqlite:///{path}").set_benchmark_cluster("qa", "passage")
        yield path


def _captions(at: AppTest) -> str:
    return " ".join(c.value for c in at.caption)


def _rank_ranges(at: AppTest) -> dict[str, str]:
    table = html_frame(at, "leaderboard")
    column = next(c for c in table.columns if c.lower().startswith("rank range"))
    return dict(zip(table["System"] if "System" in table else table["system"], table[column],
                    strict=True))


@pytest.mark.slow
def test_mechanisms_grouped_by_the_declared_column(store: Path) -> None:
    matrix, design = _design()
    at = app("views/mechanisms.py", benchmark="qa")  # no cluster in the URL: the declared one
    no_exception(at)
    assert at.query_params["cluster"] == "passage"
    board = leaderboard(matrix, cluster=design)
    assert "8 clusters of examples; intervals widened by the design effect" in _captions(at)
    # the table: the engine's mechanisms with the clustered leaderboard's rank sets and the
    # Tukey intervals from the clustered standard errors
    expected = rankings_html(
        mechanisms(matrix, n_permutations=results.ELO_ORDERS,
                   trueskill_permutations=results.TRUESKILL_ORDERS, rng=0),
        board, rank_intervals_of(matrix, rng=0, cluster=design), level="95%")
    page = next(h.proto.body for h in at.get("html") if 'aria-label="mechanisms"' in h.proto.body)
    assert page == expected
    # the sign-test section: cluster-robust, said in its caption
    pb = p_beats(matrix, cluster=design)
    assert f"{int(pb.table['significant'].sum()):,} of 3 pairs are" in _captions(at)
    assert "cluster-robust by passage" in _captions(at)

    # one system's rank range: the Leaderboard's, grouped by the same column
    lb = app("views/leaderboard.py", benchmark="qa")
    no_exception(lb)
    ranges = _rank_ranges(lb)
    for system, cell in ranges.items():
        assert f"<td>{system}</td>" in page
        row = page.split(f"<td>{system}</td>", 1)[1].split("</tr>", 1)[0]
        assert f">{cell}<" in row, (system, cell, row)

    off = app("views/mechanisms.py", benchmark="qa", cluster="-")
    no_exception(off)
    assert "clusters of examples" not in _captions(off)
    assert "cluster-robust" not in _captions(off)


@pytest.mark.slow
def test_distributions_resample_the_clusters(store: Path) -> None:
    matrix, design = _design()
    at = app("views/distributions.py", benchmark="qa", boot="1000")
    no_exception(at)
    assert at.query_params["cluster"] == "passage"
    boot = bootstrap_ranks(matrix, n_resamples=1000, seed=0, cluster=design)
    shown = html_frame(at, "bootstrap summary").set_index("system")
    for row in boot.summary.itertuples():
        assert shown.loc[row.system, "mean 95% low"] == f"{row.ci_low:.4f}"
        assert shown.loc[row.system, "mean 95% high"] == f"{row.ci_high:.4f}"
    assert "bootstrap resamples of the clusters of \u2068passage\u2069" in _captions(at)
    assert "8 clusters of examples; intervals widened by the design effect" in _captions(at)
    # the rank set columns: the Leaderboard's, grouped by the same column
    lb = app("views/leaderboard.py", benchmark="qa")
    for system, cell in _rank_ranges(lb).items():
        low, high = shown.loc[system, "rank set best"], shown.loc[system, "rank set worst"]
        assert cell in (low if low == high else f"{low}–{high}", f"{low}-{high}"), (system, cell)

    off = app("views/distributions.py", benchmark="qa", boot="1000", cluster="-")
    no_exception(off)
    assert "clusters of examples" not in _captions(off)
