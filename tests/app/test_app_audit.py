"""AppTests of the Audit page: the report of ``engine.app_support.audit_board`` on a stored
board, with the same numbers as the engine (and so as ``sigboard audit`` and the Leaderboard).

Reference values: :func:`engine.products._audit.audit_board` on the same matrix (its own tests
reproduce Eval-Arena's published HumanEval+ figure on this board, tests/data/audit/SOURCE.md).
"""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest
from apptest_support import app, no_exception
from pages_data_support import store_env

from engine import build_matrix
from engine.app_support import md_text
from engine.io._board import read_board
from engine.products._audit import audit_board

PAGE = "views/audit.py"
BOARD = Path(__file__).resolve().parents[1] / "data" / "audit" / "humaneval_plus"


@pytest.fixture(scope="module")
def store(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Path]:
    board = read_board(BOARD)
    assert board is not None
    with store_env(tmp_path_factory.mktemp("audit") / "sigboard.db", board.frame) as path:
        yield path


def _metric(at, label: str) -> str:  # noqa: ANN001
    return next(m.value for m in at.metric if m.label == label)


@pytest.mark.slow
def test_stored_board_report_equals_the_engine(store: Path) -> None:
    at = app(PAGE, benchmark="humaneval_plus")
    no_exception(at)
    assert at.title[0].value == "Audit a board"
    board = read_board(BOARD)
    assert board is not None
    ref = audit_board(build_matrix(board.frame), n_splits=1000, seed=0)
    assert ref.leader == "claude-3-opus-20240229" and at.markdown
    assert _metric(at, "Cannot be told apart from #1") == str(len(ref.tied_with_leader)) == "21"
    assert _metric(at, "Neighbouring ranks told apart") == "0 of 48"
    assert _metric(at, "#1 stable across halves") == f"{ref.top_split_half_stability:.0%}"
    assert any(md_text(ref.headline) in m.value for m in at.markdown)
    shown = at.dataframe[0].value
    assert list(shown["System"]) == list(ref.board.table["system"])
    assert shown["Told apart from #1"].iloc[0] == "leader"
    assert shown["Rank range"].iloc[0] == "1–22" and shown["Score"].iloc[0] == "77.4%"
    assert (shown["Told apart from #1"] == "no").sum() == 21
    assert any("6.7 points" in c.value for c in at.caption)  # Eval-Arena's p5_min


@pytest.mark.slow
def test_fewer_splits_and_the_files_mode(store: Path) -> None:
    at = app(PAGE, benchmark="humaneval_plus")
    at.number_input(key="audit_splits").set_value(200).run()
    no_exception(at)
    assert "200" in next(m.help for m in at.metric if m.label == "#1 stable across halves")
    at.radio(key="audit_source").set_value("files").run()
    no_exception(at)
    assert any("at least two systems" in i.value for i in at.info)
