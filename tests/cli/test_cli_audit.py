"""`sigboard audit DIR_OR_FILE [--format json]` (the issue's interface: JSON ``leader``,
``tied_with_leader``, ``adjacent_separable``, ``adjacent_total``,
``top_split_half_stability``, ``rank_sets``, ``headline``).

Reference values: `sigboard leaderboard --format json` on the same board written as a long
table (the audit's numbers are the leaderboard's); Eval-Arena's published HumanEval+
``p5_min`` of 6.7% (tests/data/audit/SOURCE.md).
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from engine.cli import main
from engine.io._board import read_board

BOARD = Path(__file__).resolve().parents[1] / "data" / "audit" / "humaneval_plus"
KEYS = {"leader", "tied_with_leader", "adjacent_separable", "adjacent_total",
        "top_split_half_stability", "rank_sets", "headline"}


def _json(capsys: pytest.CaptureFixture[str], *args: str) -> tuple[int, Any]:
    code = main(list(args))
    out = capsys.readouterr().out
    return code, json.loads(out, parse_constant=lambda name: pytest.fail(f"JSON has {name}"))


@pytest.fixture(scope="module")
def as_table(tmp_path_factory: pytest.TempPathFactory) -> Path:
    board = read_board(BOARD)
    assert board is not None
    path = tmp_path_factory.mktemp("audit") / "humaneval_plus.csv"
    board.frame.to_csv(path, index=False)
    return path


@pytest.mark.slow  # the leaderboard command's rating intervals: ~4 s
def test_json_has_the_interface_and_equals_the_leaderboard(
        capsys: pytest.CaptureFixture[str], as_table: Path) -> None:
    code, audit = _json(capsys, "audit", str(BOARD), "--format", "json")
    assert code == 0 and set(audit) >= KEYS
    code, board = _json(capsys, "leaderboard", str(as_table), "--format", "json")
    assert code == 0
    assert audit["leader"] == board["systems"][0]["system"] == "claude-3-opus-20240229"
    assert audit["headline"].startswith(board["headline"])
    assert [(r["system"], r["rank_set_low"], r["rank_set_high"], r["in_best_set"])
            for r in audit["rank_sets"]] == [
        (r["system"], r["rank_set_low"], r["rank_set_high"], r["in_best_set"])
        for r in board["systems"]]
    assert len(audit["tied_with_leader"]) == 21 and audit["adjacent_total"] == 48
    assert 0.0 <= audit["top_split_half_stability"] <= 1.0
    assert audit["split_half_splits"] == 1000 and audit["split_half_seed"] == 0
    # Eval-Arena's README: 6.7% is the smallest difference with p < 0.05 on HumanEval+
    assert f"{audit['smallest_separable_gap_uncorrected']:.1%}" == "6.7%"


def test_a_results_table_gives_the_same_audit(capsys: pytest.CaptureFixture[str],
                                              as_table: Path) -> None:
    _, folder = _json(capsys, "audit", str(BOARD), "--format", "json", "--splits", "200")
    _, table = _json(capsys, "audit", str(as_table), "--format", "json", "--splits", "200")
    for key in ("leader", "tied_with_leader", "adjacent_separable", "rank_sets",
                "top_split_half_stability", "headline"):
        assert folder[key] == table[key], key


def test_options_and_seed_change_what_they_say(capsys: pytest.CaptureFixture[str]) -> None:
    _, a = _json(capsys, "audit", str(BOARD), "--format", "json", "--splits", "100",
                 "--seed", "3", "--correction", "none")
    assert a["correction"] == "none" and a["split_half_seed"] == 3
    assert a["smallest_separable_gap"] == a["smallest_separable_gap_uncorrected"]


def test_text_output(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["audit", str(BOARD), "--splits", "100"]) == 0
    out = capsys.readouterr().out
    assert "adjacent ranks separable: 0 of 48" in out
    assert "split-half stability of #1:" in out and "100 splits, seed 0" in out
    assert "6.7 points" in out and "claude-3-opus-20240229 ranks first" in out


def test_bad_input_exits_2_naming_the_fix(tmp_path: Path,
                                          capsys: pytest.CaptureFixture[str]) -> None:
    (tmp_path / "a.json").write_text('["x"]', encoding="utf-8")
    (tmp_path / "b.json").write_text('["y"]', encoding="utf-8")
    assert main(["audit", str(tmp_path)]) == 2
    err = capsys.readouterr().err
    assert "a.json" in err and "--instances FILE" in err
    assert main(["audit", str(BOARD), "--splits", "0"]) == 2
    assert "n_splits: must be a positive whole number" in capsys.readouterr().err
