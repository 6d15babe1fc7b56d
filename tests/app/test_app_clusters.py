""""Group examples by" on Leaderboard, Pairwise and A/B compare (issue #26 item 1): one
pair's clustered answer is the engine's on all three pages, and the column declared for the
benchmark is the default (synthetic: 3 systems × 40 questions in 8 passages)."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import numpy as np
import pandas as pd
import pytest
from apptest_support import app, html_frame, no_exception
from pages_data_support import store_env
from streamlit.testing.v1 import AppTest

from engine import ClusterDesign, build_matrix, cluster_codes, leaderboard
from engine.results import Leaderboard
from engine.store import open_store


def _frame() -> pd.DataFrame:
    """Numeric scores with a system × passage effect (SD 0.1): passages fail together."""
    g = np.random.default_rng(5)
    level, by_passage = g.normal(0.5, 0.15, 40), g.normal(0, 0.1, (3, 8))
    rows = [("qa", system, f"q{i}", "score",
             float(level[i] + shift + by_passage[k, i % 8] + g.normal(0, 0.1)), f"passage-{i % 8}")
            for k, (system, shift) in enumerate((("base", 0.0), ("cand", 0.06), ("other", -0.04)))
            for i in range(40)]
    return pd.DataFrame(rows, columns=["benchmark", "system", "example_id", "metric", "value",
                                       "passage"])


def _engine_board() -> Leaderboard:
    """The engine's cluster-robust leaderboard of :func:`_frame` (the reference)."""
    frame = _frame()
    matrix = build_matrix(frame.drop(columns="passage"), benchmark="qa", metric="score")
    design = ClusterDesign.from_codes(cluster_codes(frame, "passage", matrix.examples), "passage")
    return leaderboard(matrix, cluster=design)


@pytest.fixture(scope="module")
def store(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Path]:
    with store_env(tmp_path_factory.mktemp("clusters") / "sigboard.db", _frame()) as path:
        yield path


def _captions(at: AppTest) -> str:
    return " ".join(c.value for c in at.caption)


@pytest.mark.slow
def test_one_pair_same_answer_on_the_three_pages(store: Path) -> None:
    lb = _engine_board()
    pair = lb.pairwise.table.set_index(["system_a", "system_b"]).loc[("base", "cand")]
    deff = float(np.median(lb.table["design_effect"]))

    at = app("views/leaderboard.py", benchmark="qa", cluster="passage")
    no_exception(at)
    assert f"8 clusters of examples; intervals widened by the design effect {deff:.2f}." \
        in _captions(at)
    shown = html_frame(at, "leaderboard").set_index("system")["CI"]
    for row in lb.table.itertuples():
        assert shown[row.system] == f"[{row.ci_low:.4f}, {row.ci_high:.4f}]"

    at = app("views/pairwise.py", benchmark="qa", cluster="passage", a="cand", b="base")
    no_exception(at)
    assert "8 clusters of examples; intervals widened by the design effect" in _captions(at)
    # cand − base = −(base − cand): the engine's interval, flipped
    interval = f"[{-pair['ci_high']:.4g}, {-pair['ci_low']:.4g}]"
    assert any(interval in m.value for m in at.markdown), interval

    at = app("views/compare.py", benchmark="qa", cluster="passage", base="base", cand="cand")
    no_exception(at)
    verdict = at.info[0].value if at.info else at.success[0].value
    assert f"p = {pair['pvalue']:.3g}" in verdict
    assert f"{-pair['ci_high']:+.4f} to {-pair['ci_low']:+.4f}" in verdict
    assert "The Pairwise page grouped by passage: same p-value and interval." in _captions(at)


@pytest.mark.slow
def test_unknown_column_is_a_url_problem_and_no_grouping_is_plain(store: Path) -> None:
    at = app("views/leaderboard.py", benchmark="qa", cluster="nope")
    no_exception(at)
    assert "`cluster`" in " ".join(w.value for w in at.warning)
    assert "clusters of examples" not in _captions(at)
    at = app("views/pairwise.py", benchmark="qa", cluster="nope")
    assert "`cluster`" in " ".join(w.value for w in at.warning)


@pytest.mark.slow
def test_declared_column_is_the_default_and_can_be_turned_off(
        tmp_path_factory: pytest.TempPathFactory) -> None:
    path = tmp_path_factory.mktemp("declared") / "sigboard.db"
    with store_env(path, _frame()):
        open_store(f"sqlite:///{path}").set_benchmark_cluster("qa", "passage")
        for page in ("leaderboard", "pairwise", "compare"):
            at = app(f"views/{page}.py", benchmark="qa")
            no_exception(at)
            assert at.query_params["cluster"] == "passage", page
            assert "8 clusters of examples" in _captions(at), page
        at = app("views/leaderboard.py", benchmark="qa", cluster="-")  # "(no grouping)"
        no_exception(at)
        assert "clusters of examples" not in _captions(at)
        assert not at.warning


@pytest.mark.slow
def test_upload_with_a_declared_cluster_column_opens_the_leaderboard_clustered(
        tmp_path: Path) -> None:
    # a store holding another benchmark only: qa arrives with the upload
    with store_env(tmp_path / "sigboard.db", _frame().assign(benchmark="other")) as path:
        at = app("views/upload.py")
        at.file_uploader(key="upload_files").upload(
            "qa.csv", _frame().to_csv(index=False).encode(), "application/octet-stream")
        at.run()
        picker = next(s for s in at.selectbox if s.label.startswith("Group examples by"))
        assert picker.options == ["(none: examples are independent)", "passage"]
        picker.set_value("passage")
        next(b for b in at.get("form_submit_button") if "Commit" in b.proto.label).click()
        at = at.run()
        no_exception(at)
        assert any("stored as upload" in s.value for s in at.success)
        assert open_store(f"sqlite:///{path}").benchmark_cluster("qa") == "passage"
        at = app("views/leaderboard.py", benchmark="qa")
        no_exception(at)
        assert at.query_params["cluster"] == "passage"
        assert "8 clusters of examples; intervals widened by the design effect" in _captions(at)


def test_cluster_sentence_in_plain_words() -> None:
    from app.components.cluster_choice import cluster_sentence

    assert cluster_sentence(8, np.array([1.5, 2.5, 9.0])) == \
        "8 clusters of examples; intervals widened by the design effect 2.50."
    assert "narrowed by the design effect 0.80" in cluster_sentence(5, np.array([0.8]))
    assert cluster_sentence(3, None) == \
        "3 clusters of examples; intervals computed from the clusters."
