"""The Leaderboard of a judge metric with human labels: its ranked table is the judge board's
PPI++ ranking, the very object its headline and its count of differing pairs come from (the
Judge page's and the CLI's), labelled as corrected, not the judge's own scores.

The data: ``judged_wide(0)`` of tests/app/pages_data_support.py (4 systems × 400 examples, the judge
biased by +5, 0, −3, +2 points, 15% of the examples labelled). There the judge's own scores
rank s3, s0, s1, s2 with 3 of 6 pairs different, the PPI++ estimates s3, s2, s1, s0 with 4 of
6. Reference: the engine's :func:`judge_board` and :func:`leaderboard` on the same table.
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from itertools import combinations
from pathlib import Path

import networkx as nx
import pandas as pd
import pytest
from apptest_support import app, html_frame, no_exception, pictures, ranked
from pages_data_support import judged_wide as _wide
from pages_data_support import store_env

from app.data.judge import corrected_ranking
from engine import build_matrix, judge_board, leaderboard, leaderboard_report

PAGE = "views/leaderboard.py"


def _long() -> pd.DataFrame:
    wide = _wide(0)
    return (wide.melt(id_vars=["benchmark", "system", "example_id"], var_name="metric",
                      value_name="value").dropna().reset_index(drop=True))


@pytest.fixture(scope="module")
def store(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Path]:
    with store_env(tmp_path_factory.mktemp("judge-ranked") / "sigboard.db", _long()) as p:
        yield p


def test_the_premise_the_judges_own_ranking_differs_from_the_corrected() -> None:
    frame = _long()
    board = judge_board(frame, judge="judge_score", human="human_score", benchmark="judged")
    own = leaderboard(build_matrix(frame[frame["metric"] == "judge_score"], benchmark="judged",
                                   metric="judge_score"), bt_resamples=0)
    assert list(own.table["system"]) == ["s3", "s0", "s1", "s2"]
    assert int(own.pairwise.table["significant"].sum()) == 3
    assert list(board.table["system"]) == ["s3", "s2", "s1", "s0"]
    assert int(board.pairs.table["significant"].sum()) == 4


@pytest.mark.slow
def test_the_ranked_table_is_the_headlines_corrected_ranking(store: Path) -> None:
    frame = _long()
    board = judge_board(frame, judge="judge_score", human="human_score", benchmark="judged")
    at = app(PAGE, benchmark="judged", metric="judge_score")
    no_exception(at)
    headline = at.markdown[0].value
    assert "s3" in headline.split(" leads on judge scores corrected")[0]
    assert "4 of 6 pairs differ on the human-label scale" in headline
    table, _ = ranked(at)
    ref = board.table
    assert table["system"].tolist() == ref["system"].tolist()  # the corrected order
    assert table["rank"].tolist() == [str(r) for r in ref["rank"]]
    for cell, ci, row in zip(table["mean"], table["CI"], ref.itertuples(), strict=True):
        assert abs(float(cell) - row.ppi_mean) < 1e-4  # the PPI++ estimate, as shown
        low, high = (float(v) for v in ci.strip("[]").split(","))
        assert abs(low - row.ppi_low) < 1e-4 and abs(high - row.ppi_high) < 1e-4
    assert set(table["win rate"]) == {"—"}  # the judge's own example battles: not corrected
    # its groups: two systems share a letter exactly when the PPI++ pair test does not
    # separate them, so the table's differing pairs are the headline's 4 of 6
    letters = dict(zip(table["system"], table["group"], strict=True))
    differ = sum(not set(letters[a]) & set(letters[b]) for a, b in combinations(letters, 2))
    assert differ == 4
    labels = " ".join(m.value for m in at.markdown)
    assert "ranked on the corrected scores" in labels
    assert "Below: the judge's own uncorrected scores" not in labels


@pytest.mark.slow
def test_the_charts_draw_the_tables_corrected_ranking(store: Path) -> None:
    # one answer per page: the rank chart and the groups beside the corrected table are
    # drawn from the same PPI++ ranking (they drew the judge's own scores under a caption)
    frame = _long()
    board = judge_board(frame, judge="judge_score", human="human_score", benchmark="judged")
    at = app(PAGE, benchmark="judged", metric="judge_score")
    no_exception(at)
    rank_chart = pictures(at)[0]
    order = re.findall(r">\u2068(s\d)\u2069</text>", rank_chart)  # names isolated (bidi)
    assert list(dict.fromkeys(order)) == board.table["system"].tolist()  # s3, s2, s1, s0
    assert "uncorrected" not in " ".join(c.value for c in at.caption)
    # the Groups tab: maximal sets of systems no PPI++ pair test separates (networkx)
    at = app(PAGE, benchmark="judged", metric="judge_score", graph="groups")
    no_exception(at)
    p = board.pairs.table
    ties = nx.Graph(list(zip(p.loc[~p["significant"], "system_a"],
                             p.loc[~p["significant"], "system_b"], strict=True)))
    ties.add_nodes_from(board.table["system"])
    expected = {frozenset(c) for c in nx.find_cliques(ties)}
    shown = html_frame(at, "groups")
    assert {frozenset(m.split(", ")) for m in shown["members"]} == expected


def test_the_markdown_report_is_the_corrected_ranking() -> None:
    # the Leaderboard's "Download Markdown report" of a corrected judge metric: the PPI++
    # order and means, the PPI++ pair tests named, the rank range the pair tests' range
    frame = _long()
    board = judge_board(frame, judge="judge_score", human="human_score", benchmark="judged")
    own = leaderboard(build_matrix(frame[frame["metric"] == "judge_score"], benchmark="judged",
                                   metric="judge_score"), bt_resamples=0)
    text = leaderboard_report(corrected_ranking(own, board), fmt="markdown")
    rows = [line.split(" | ") for line in text.splitlines() if line.startswith("| ") and
            line[2].isdigit()]
    assert [r[1] for r in rows] == board.table["system"].tolist()
    assert [float(r[4]) for r in rows] == [round(m, 2) for m in board.table["ppi_mean"]]
    assert "PPI++ pair tests" in text and "Mogstad" not in text and "paired-t" not in text
